/*
 * A buffer read in parts by successive calls: openssl's cipher BIO reads
 * 8 KiB, then encrypts them 4 KiB per EVP_EncryptUpdate.  The first call
 * finds all 8 KiB changed and counts them; the second finds nothing new.
 * What a call reads starts at its pointer, so when the next call measured
 * at the same nesting level on the same thread, under the same caller,
 * points strictly inside a range where the previous one counted input,
 * and finds nothing changed in its own range since, the input the
 * previous call counted from that pointer on was this call's: it is added
 * here, and taken off the previous call by the trace reader, which a
 * carry record tells (docs/formats.md).
 *
 * The previous call's counted bytes are still marked: its entry left the
 * words it found changed in the shadow's `changed` bits, which only the
 * next entry at that level over the same words rewrites.
 */
#include "rt/regions/regions.h"

#define CARRY_RANGES 8
#define RECENT 32		/* threads x levels remembered */

struct measured {
	const struct sibyl_rt_thread *thread;	/* NULL: empty */
	unsigned level;
	uint32_t func;
	uint64_t start, caller;	/* start_tsc of the call and of its caller (0: none) */
	uint64_t used;		/* when last remembered or used (a counter) */
	unsigned n;
	struct region r[CARRY_RANGES];	/* where its entry counted input */
};

/* Not per thread (static TLS is scarce): one table under the tracker's
 * lock, which every caller holds; the least recently used entry goes. */
static struct measured recent[RECENT];
static uint64_t clock_now;

/* Where this thread's entries were last: tried first (they may have
 * been reused by another thread since). */
static __thread struct measured *mine[SHADOW_LEVELS] __attribute__((tls_model("initial-exec")));

/* The entry of `t` at `level`, NULL when none; make: the one to reuse. */
static struct measured *last_of(const struct sibyl_rt_thread *t, unsigned level, bool make)
{
	struct measured *m = mine[level], *old = &recent[0];

	if (m && m->thread == t && m->level == level)
		return m->used = ++clock_now, m;
	for (unsigned i = 0; i < RECENT; i++) {
		if (recent[i].thread == t && recent[i].level == level)
			return mine[level] = &recent[i], recent[i].used = ++clock_now, &recent[i];
		if (recent[i].used < old->used)
			old = &recent[i];
	}
	if (!make)
		return NULL;
	*old = (struct measured){ .thread = t, .level = level, .used = ++clock_now };
	return mine[level] = old;
}

/* The level of the call in progress, or SHADOW_LEVELS when too deep. */
static unsigned level_of(const struct sibyl_rt_thread *t)
{
	unsigned d = t->depth - 1;

	return d < SHADOW_LEVELS && d < SIBYL_RT_SHADOW ? d : SHADOW_LEVELS;
}

static uint64_t caller_start(const struct sibyl_rt_thread *t)
{
	unsigned d = t->depth - 1;

	return d >= 1 && d - 1 < SIBYL_RT_SHADOW ? t->shadow[d - 1].start : 0;
}

/* 8 bytes per word of [lo, hi) marked changed at `level`'s last entry
 * and not forgotten since. */
static uint64_t marked_bytes(unsigned level, uintptr_t lo, uintptr_t hi)
{
	uint64_t bytes = 0;

	for (uintptr_t w = lo & ~(uintptr_t)7; w < hi; w += 8) {
		struct shadow_page *s = shadow_find(w / SHADOW_PAGE, level);
		unsigned k = (unsigned)(w % SHADOW_PAGE / 8);

		if (!s) {
			w = (w / SHADOW_PAGE + 1) * SHADOW_PAGE - 8;	/* the next page */
			continue;
		}
		/* Forgotten since (the block was freed, the memory handed out
		 * again): not the same buffer, whatever the marks say. */
		uint64_t marked = s->changed[k / 64] & s->seen[k / 64];

		if (!(k % 64) && !marked && w + 512 <= hi) {
			w += 512 - 8;	/* 64 unmarked words */
			continue;
		}
		bytes += marked >> (k % 64) & 1 ? 8 : 0;
	}
	return bytes;
}

uint64_t carry_candidate(const struct sibyl_rt_thread *t, uintptr_t lo, uintptr_t hi)
{
	unsigned level = level_of(t);
	const struct measured *last = level < SHADOW_LEVELS ? last_of(t, level, false) : NULL;

	if (!last || !last->start || last->caller != caller_start(t))
		return 0;
	for (unsigned i = 0; i < last->n; i++) {
		const struct region *r = &last->r[i];

		if (lo > r->start && lo < r->end)
			return marked_bytes(level, lo, hi < r->end ? hi : r->end);
	}
	return 0;
}

void carry_take(const struct sibyl_rt_thread *t, struct sibyl_rt_ws_full *st, uint64_t bytes)
{
	unsigned level = level_of(t);
	const struct measured *last = bytes && level < SHADOW_LEVELS ? last_of(t, level, false) : NULL;

	if (!last)
		return;
	st->carry += bytes;
	st->carry_func = last->func;
	st->carry_start = last->start;
}

void carry_remember(const struct sibyl_rt_thread *t, const struct sibyl_rt_ws_full *st)
{
	unsigned level = level_of(t);

	if (level == SHADOW_LEVELS)
		return;
	struct measured *m = last_of(t, level, true);

	m->func = t->shadow[level].func;
	m->start = t->shadow[level].start;
	m->caller = caller_start(t);
	m->n = 0;
	for (unsigned i = 0; i < st->n && m->n < CARRY_RANGES; i++)
		if (st->counted >> i & 1)
			m->r[m->n++] = (struct region){ st->r[i].lo, st->r[i].hi };
}
