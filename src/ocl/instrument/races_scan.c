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
#include "ocl/instrument/races_internal.h"

#include "core/alloc.h"

#include <stdlib.h>
#include <string.h>


/* The group's current epoch's view of one __local byte. */
struct byte {
	uint64_t epoch;
	bool init;		/* written in an earlier epoch */
	bool wrote;		/* written in this one */
	bool raced;		/* a race on it in this one */
	struct ic_seen seen;	/* this epoch's accesses */
	struct ic_who pending;	/* a read of it before any write */
};

void ic_map_free(struct ic_map *m)
{
	free(m->keys);
	free(m->idx);
	*m = (struct ic_map){ 0 };
}

static size_t hash(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

static void map_grow(struct ic_map *m)
{
	struct ic_map g = { sibyl_xcalloc(m->cap ? 2 * m->cap : 1024, sizeof(uint64_t)),
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
	ic_map_free(m);
	*m = g;
}

size_t ic_map_get(struct ic_map *m, uint64_t k, bool *fresh)
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
	struct ic_map bytes;
	struct byte *state;
	size_t state_cap;
	struct ic_pairs pairs;	/* distinct race line pairs */
	unsigned *lines;	/* distinct uninitialised read lines */
	size_t nlines;
};

static const char *what(unsigned kind)
{
	return kind & IC_RACE_GROUP ? "async copy" : kind & IC_RACE_ATOMIC ? "atomic" :
	       kind & IC_RACE_WRITE ? "write" : "read";
}

struct sibyl_race_access ic_race_access(const struct ic_layout *l, const struct ic_who *w)
{
	const struct ic_race_site *site = &l->race_sites[w->site];

	return (struct sibyl_race_access){ site->line, what(site->kind), w->item, w->group };
}

bool ic_pair_seen(struct ic_pairs *s, unsigned a, unsigned b)
{
	if (a > b) {
		unsigned t = a;

		a = b, b = t;
	}
	for (size_t i = 0; i < s->n; i++)
		if (s->p[i][0] == a && s->p[i][1] == b)
			return true;
	s->p = sibyl_xreallocarray(s->p, s->n + 1, sizeof(*s->p));
	s->p[s->n][0] = a;
	s->p[s->n++][1] = b;
	return false;
}

void ic_race_found(const struct ic_layout *l, struct ic_pairs *pairs,
		   struct sibyl_race_finding *f, const struct ic_who *was, const struct ic_who *now)
{
	struct sibyl_race_access x = ic_race_access(l, was), y = ic_race_access(l, now);

	if (!ic_pair_seen(pairs, x.line, y.line))
		f->lines++;
	if (!f->found)
		*f = (struct sibyl_race_finding){ true, x, y, now->group, f->lines };
}

static void uninit(struct scan *s, const struct ic_who *w)
{
	struct sibyl_race_finding *f = &s->out->uninit;
	struct sibyl_race_access x = ic_race_access(s->l, w);
	bool seen = false;

	for (size_t i = 0; i < s->nlines && !seen; i++)
		seen = s->lines[i] == x.line;
	if (!seen) {
		s->lines = sibyl_xreallocarray(s->lines, s->nlines + 1, sizeof(*s->lines));
		s->lines[s->nlines++] = x.line;
		f->lines++;
	}
	if (!f->found)
		*f = (struct sibyl_race_finding){ .found = true, .a = x, .group = s->group,
						  .lines = f->lines };
}

/* An earlier access among two of another key (a store of the very
 * byte w stores does not count). */
static const struct ic_who *other(const struct ic_who c[2], const struct ic_who *w)
{
	for (int j = 0; j < 2; j++)
		if (c[j].set && c[j].key != w->key && (w->byte < 0 || c[j].byte != w->byte))
			return &c[j];
	return NULL;
}

static void remember(struct ic_who c[2], const struct ic_who *w)
{
	if (!c[0].set)
		c[0] = *w;
	else if (c[0].key != w->key && !c[1].set)
		c[1] = *w;
}

const struct ic_who *ic_race_touch(struct ic_seen *s, const struct ic_who *w, unsigned kind)
{
	bool atomic = kind & IC_RACE_ATOMIC, write = kind & IC_RACE_WRITE;
	const struct ic_who *x = other(s->w, w);

	if (!x && (atomic || write))	/* atomics race with plain accesses only */
		x = other(s->r, w);
	if (!x && !atomic)
		x = other(s->a, w);
	remember(atomic ? s->a : write ? s->w : s->r, w);
	return x;
}

/* A new epoch for the byte: the last one's pending read was uninitialised
 * unless it raced (the race is the finding then). */
static void roll(struct scan *s, struct byte *b, uint64_t epoch)
{
	if (b->pending.set && !b->raced)
		uninit(s, &b->pending);
	*b = (struct byte){ .epoch = epoch, .init = b->init || b->wrote };
}

static void touch(struct scan *s, struct byte *b, const struct ic_who *w, unsigned kind)
{
	/* a read of what nothing wrote before: not itself earlier in this
	 * epoch, nor another work-item (a race, the finding then) */
	if ((kind & IC_RACE_READ) && !b->init && !b->wrote && !b->pending.set)
		b->pending = *w;
	const struct ic_who *x = ic_race_touch(&b->seen, w, kind);

	if (x) {
		b->raced = true;
		ic_race_found(s->l, &s->pairs, &s->out->race, x, w);
	}
	b->wrote |= kind & IC_RACE_WRITE;
}

static struct byte *byte_at(struct scan *s, uint64_t addr, uint64_t epoch)
{
	bool fresh;
	size_t i = ic_map_get(&s->bytes, addr, &fresh);

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

int ic_race_byte(unsigned kind, uint64_t value, uint64_t k)
{
	if (!(kind & IC_RACE_VALUE))
		return -1;
	if (kind & IC_RACE_HASH)	/* 30 bits of (fingerprint, k): above any byte */
		return 256 + (int)((value + k) * 0x9e3779b97f4a7c15ull >> 34);
	return k < 8 ? (int)(value >> (8 * k) & 0xff) : -1;	/* little-endian */
}

int ic_race_by_epoch(const void *a, const void *b)
{
	const struct ic_entry *x = a, *y = b;

	if (x->epoch != y->epoch)
		return x->epoch < y->epoch ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

size_t ic_race_entries(const struct ic_layout *l, const uint64_t *region, size_t n, bool global,
		       uint64_t group, struct ic_entry *e)
{
	struct ic_map items = { 0 };
	uint64_t *epochs = sibyl_xcalloc(n + 1, sizeof(*epochs));
	size_t m = 0;
	bool fresh;

	for (size_t j = 0; j < n; j++) {
		const uint64_t *w = region + 1 + IC_RACE_WORDS * j;
		uint64_t item = w[1] & 0xffffffffu, site = w[1] >> 32;
		size_t k = ic_map_get(&items, item, &fresh);

		if (fresh)
			epochs[k] = 0;
		if (site >= l->nsites)
			continue;	/* not an entry the probe wrote */
		unsigned kind = l->race_sites[site].kind;

		if (kind & IC_RACE_BARRIER) {	/* __global's epoch: a global fence */
			epochs[k] += !global || (w[3] & IC_RACE_GLOBAL_FENCE);
			continue;
		}
		if (!(kind & IC_RACE_GLOBAL) != !global)
			continue;
		e[m++] = (struct ic_entry){ w[0], kind & IC_RACE_GROUP ? SIBYL_RACE_GROUP : item, group,
					    w[2] < IC_RACE_MAX_SPAN ? w[2] : IC_RACE_MAX_SPAN, epochs[k], j,
					    w[3], (unsigned)site };
	}
	free(epochs);
	ic_map_free(&items);
	return m;
}

static void scan_group(struct scan *s, const uint64_t *region)
{
	uint64_t n = region[0] < s->l->race_records ? region[0] : s->l->race_records;
	struct ic_entry *e = sibyl_xcalloc(n + 1, sizeof(*e));
	size_t m = ic_race_entries(s->l, region, (size_t)n, false, s->group, e);

	s->out->groups += region[0] > 0;
	s->out->truncated += region[0] > s->l->race_records;
	qsort(e, m, sizeof(*e), ic_race_by_epoch);
	for (size_t j = 0; j < m; j++) {
		struct ic_who w = { true, e[j].site, e[j].item, s->group, e[j].item, -1 };
		unsigned kind = s->l->race_sites[e[j].site].kind;

		for (uint64_t k = 0; k < e[j].len; k++) {
			w.byte = ic_race_byte(kind, e[j].value, k);
			touch(s, byte_at(s, e[j].addr + k, e[j].epoch), &w, kind);
		}
	}
	for (size_t i = 0; i < s->bytes.n; i++)
		roll(s, &s->state[i], UINT64_MAX);
	ic_map_free(&s->bytes);
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
	struct ic_global *g = ic_global_new(l);

	for (s.group = 0; s.group < l->race_groups; s.group++) {
		/* memcpy: the caller's buffer need not be aligned for uint64_t */
		memcpy(region, (const char *)buffer + s.group * words * sizeof(*region),
		       words * sizeof(*region));
		scan_group(&s, region);
		ic_global_add(g, region, s.group);
	}
	ic_global_scan(g, out);
	free(region);
	free(s.state);
	free(s.pairs.p);
	free(s.lines);
	return 0;
}
