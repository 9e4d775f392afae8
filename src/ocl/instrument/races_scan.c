/*
 * The race probe's log read back (instrument.h, sibyl_instrumented_races).
 *
 * Group by group: each entry's epoch is the number of barriers its
 * work-item had logged before it (the log keeps each work-item's order);
 * the entries are then taken epoch by epoch, in log order within one,
 * and every byte they touch keeps what happened to it in the current
 * epoch: up to two distinct work-items that wrote it, read it, and used
 * it atomically.  Two suffice: an access conflicts with an earlier one
 * of another work-item, and of two distinct work-items one is not the
 * accessing one.  Log order decides nothing but which access of a pair
 * is named first, so the verdict does not depend on how the device
 * interleaved the work-items.  Two stores of the same byte value do not
 * race with each other, as in Oclgrind by default (`flag = 1` by every
 * work-item); a read beside them still races.  A cut log is a prefix of
 * what ran: what it shows happened (a write that precedes a read
 * precedes it in the log too), it may miss what came after.
 */
#include "ocl/instrument/instrument_internal.h"

#include "core/alloc.h"

#include <stdlib.h>
#include <string.h>

/* Bytes one access may cover: a memcpy of more is taken as this long. */
#define MAX_SPAN ((uint64_t)1 << 20)

struct entry {
	uint64_t addr, item, len, epoch, seq, value;
	unsigned site;
};

struct who {
	bool set;
	unsigned site;
	uint64_t item;
	int byte;	/* the byte a store wrote (-1: unknown, not a store) */
};

struct byte {
	uint64_t epoch;
	bool init;		/* written in an earlier epoch */
	bool wrote;		/* written in this one */
	bool raced;		/* a race on it in this one */
	struct who w[2], r[2], a[2];	/* this epoch: writes, reads, atomics */
	struct who pending;	/* a read of it before any write */
};

/* Open addressing, u64 -> index into a growing array of values. */
struct map {
	uint64_t *keys;
	size_t *idx;		/* SIZE_MAX: empty */
	size_t cap, n;
};

static void map_free(struct map *m)
{
	free(m->keys);
	free(m->idx);
	*m = (struct map){ 0 };
}

static size_t hash(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

static void map_grow(struct map *m)
{
	struct map g = { sibyl_xcalloc(m->cap ? 2 * m->cap : 1024, sizeof(uint64_t)),
			 sibyl_xcalloc(m->cap ? 2 * m->cap : 1024, sizeof(size_t)),
			 m->cap ? 2 * m->cap : 1024, m->n };

	memset(g.idx, 0xff, g.cap * sizeof(size_t));
	for (size_t i = 0; i < m->cap; i++) {
		if (m->idx[i] == SIZE_MAX)
			continue;
		size_t h = hash(m->keys[i], g.cap);

		while (g.idx[h] != SIZE_MAX)
			h = (h + 1) & (g.cap - 1);
		g.keys[h] = m->keys[i];
		g.idx[h] = m->idx[i];
	}
	map_free(m);
	*m = g;
}

/* The index of key k; a new one (m->n before) when absent. */
static size_t map_get(struct map *m, uint64_t k, bool *fresh)
{
	if (2 * (m->n + 1) > m->cap)
		map_grow(m);
	size_t h = hash(k, m->cap);

	while (m->idx[h] != SIZE_MAX && m->keys[h] != k)
		h = (h + 1) & (m->cap - 1);
	*fresh = m->idx[h] == SIZE_MAX;
	if (*fresh) {
		m->keys[h] = k;
		m->idx[h] = m->n++;
	}
	return m->idx[h];
}

struct scan {
	const struct ic_layout *l;
	struct sibyl_races *out;
	uint64_t group;
	struct map bytes;
	struct byte *state;
	size_t state_cap;
	unsigned (*pairs)[2], *lines;	/* distinct race line pairs, uninit lines */
	size_t npairs, nlines;
};

static const char *what(unsigned kind)
{
	return kind & IC_RACE_GROUP ? "async copy" : kind & IC_RACE_ATOMIC ? "atomic" :
	       kind & IC_RACE_WRITE ? "write" : "read";
}

static struct sibyl_race_access access_of(const struct scan *s, const struct who *w)
{
	const struct ic_race_site *site = &s->l->race_sites[w->site];

	return (struct sibyl_race_access){ site->line, what(site->kind), w->item };
}

/* Whether the pair of lines {a, b} raced before (either order). */
static bool seen_pair(struct scan *s, unsigned a, unsigned b)
{
	if (a > b) {
		unsigned t = a;

		a = b, b = t;
	}
	for (size_t i = 0; i < s->npairs; i++)
		if (s->pairs[i][0] == a && s->pairs[i][1] == b)
			return true;
	s->pairs = sibyl_xreallocarray(s->pairs, s->npairs + 1, sizeof(*s->pairs));
	s->pairs[s->npairs][0] = a;
	s->pairs[s->npairs++][1] = b;
	return false;
}

static void race(struct scan *s, struct byte *b, const struct who *was, const struct who *now)
{
	struct sibyl_race_finding *f = &s->out->race;
	struct sibyl_race_access x = access_of(s, was), y = access_of(s, now);

	b->raced = true;
	if (!seen_pair(s, x.line, y.line))
		f->lines++;
	if (f->found)
		return;
	*f = (struct sibyl_race_finding){ true, x, y, s->group, f->lines };
}

static void uninit(struct scan *s, const struct who *w)
{
	struct sibyl_race_finding *f = &s->out->uninit;
	struct sibyl_race_access x = access_of(s, w);
	bool seen = false;

	for (size_t i = 0; i < s->nlines && !seen; i++)
		seen = s->lines[i] == x.line;
	if (!seen) {
		s->lines = sibyl_xreallocarray(s->lines, s->nlines + 1, sizeof(*s->lines));
		s->lines[s->nlines++] = x.line;
		f->lines++;
	}
	if (!f->found)
		*f = (struct sibyl_race_finding){ true, x, { 0, NULL, 0 }, s->group, f->lines };
}

/* An earlier access of this epoch by another work-item among two (a
 * store of the very byte w stores does not count). */
static const struct who *other(const struct who c[2], const struct who *w)
{
	for (int j = 0; j < 2; j++)
		if (c[j].set && c[j].item != w->item && (w->byte < 0 || c[j].byte != w->byte))
			return &c[j];
	return NULL;
}

static void remember(struct who c[2], const struct who *w)
{
	if (!c[0].set)
		c[0] = *w;
	else if (c[0].item != w->item && !c[1].set)
		c[1] = *w;
}

/* A new epoch for the byte: the last one's pending read was uninitialised
 * unless it raced (the race is the finding then). */
static void roll(struct scan *s, struct byte *b, uint64_t epoch)
{
	if (b->pending.set && !b->raced)
		uninit(s, &b->pending);
	*b = (struct byte){ .epoch = epoch, .init = b->init || b->wrote };
}

static void touch(struct scan *s, struct byte *b, const struct who *w, unsigned kind)
{
	bool atomic = kind & IC_RACE_ATOMIC, write = kind & IC_RACE_WRITE;
	const struct who *x = NULL;

	if (atomic)	/* atomics race with plain accesses only */
		x = other(b->w, w) ? other(b->w, w) : other(b->r, w);
	else if (write)
		x = other(b->w, w) ? other(b->w, w) : other(b->r, w) ? other(b->r, w) : other(b->a, w);
	else
		x = other(b->w, w) ? other(b->w, w) : other(b->a, w);
	if (x)
		race(s, b, x, w);
	/* a read of what nothing wrote before: not itself earlier in this
	 * epoch, nor another work-item (a race, the finding then) */
	if ((kind & IC_RACE_READ) && !b->init && !b->wrote && !b->pending.set)
		b->pending = *w;
	remember(atomic ? b->a : write ? b->w : b->r, w);
	b->wrote |= write;
}

static struct byte *byte_at(struct scan *s, uint64_t addr, uint64_t epoch)
{
	bool fresh;
	size_t i = map_get(&s->bytes, addr, &fresh);

	if (fresh) {
		if (i == s->state_cap) {
			s->state_cap = s->state_cap ? 2 * s->state_cap : 1024;
			s->state = sibyl_xreallocarray(s->state, s->state_cap, sizeof(*s->state));
		}
		s->state[i] = (struct byte){ .epoch = epoch };
	} else if (s->state[i].epoch != epoch) {
		roll(s, &s->state[i], epoch);
	}
	return &s->state[i];
}

static int by_epoch(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->epoch != y->epoch)
		return x->epoch < y->epoch ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Group g's entries with their epochs, barriers dropped; their number. */
static size_t entries(const struct scan *s, const uint64_t *region, size_t n, struct entry *e)
{
	struct map items = { 0 };
	uint64_t *epochs = sibyl_xcalloc(n + 1, sizeof(*epochs));
	size_t m = 0;
	bool fresh;

	for (size_t j = 0; j < n; j++) {
		const uint64_t *w = region + 1 + IC_RACE_WORDS * j;
		uint64_t item = w[1] & 0xffffffffu, site = w[1] >> 32;
		size_t k = map_get(&items, item, &fresh);

		if (fresh)
			epochs[k] = 0;
		if (site >= s->l->nsites)
			continue;	/* not an entry the probe wrote */
		if (s->l->race_sites[site].kind & IC_RACE_BARRIER) {
			epochs[k]++;
			continue;
		}
		bool group = s->l->race_sites[site].kind & IC_RACE_GROUP;

		e[m++] = (struct entry){ w[0], group ? SIBYL_RACE_GROUP : item,
					 w[2] < MAX_SPAN ? w[2] : MAX_SPAN, epochs[k], j, w[3],
					 (unsigned)site };
	}
	free(epochs);
	map_free(&items);
	return m;
}

static void scan_group(struct scan *s, const uint64_t *region)
{
	uint64_t n = region[0] < s->l->race_records ? region[0] : s->l->race_records;
	struct entry *e = sibyl_xcalloc(n + 1, sizeof(*e));
	size_t m = entries(s, region, (size_t)n, e);

	s->out->groups += region[0] > 0;
	s->out->truncated += region[0] > s->l->race_records;
	qsort(e, m, sizeof(*e), by_epoch);
	for (size_t j = 0; j < m; j++) {
		struct who w = { true, e[j].site, e[j].item, -1 };
		unsigned kind = s->l->race_sites[e[j].site].kind;

		for (uint64_t k = 0; k < e[j].len; k++) {
			if ((kind & IC_RACE_VALUE) && k < 8)	/* little-endian */
				w.byte = (int)(e[j].value >> (8 * k) & 0xff);
			touch(s, byte_at(s, e[j].addr + k, e[j].epoch), &w, kind);
		}
	}
	for (size_t i = 0; i < s->bytes.n; i++)
		roll(s, &s->state[i], UINT64_MAX);
	map_free(&s->bytes);
	free(e);
}

int sibyl_instrumented_races(const struct sibyl_instrumented *in, const void *buffer,
			     size_t size, struct sibyl_races *out)
{
	const struct ic_layout *l = in->layout;
	struct scan s = { .l = l, .out = out };

	*out = (struct sibyl_races){ 0 };
	if (!l || !l->races || size != sibyl_instrumented_buffer_size(in, 0, 0))
		return -1;
	size_t words = 1 + IC_RACE_WORDS * (size_t)l->race_records;
	uint64_t *region = sibyl_xmalloc(words * sizeof(*region));

	for (s.group = 0; s.group < l->race_groups; s.group++) {
		/* memcpy: the caller's buffer need not be aligned for uint64_t */
		memcpy(region, (const char *)buffer + s.group * words * sizeof(*region),
		       words * sizeof(*region));
		scan_group(&s, region);
	}
	free(region);
	free(s.state);
	free(s.pairs);
	free(s.lines);
	return 0;
}
