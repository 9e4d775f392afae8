/*
 * worksize.full, the paper's buffer inspection (IV.C.2), done with
 * shadows only where the arguments reach.  At entry the ranges the
 * pointer arguments stand for (worksize.fast's groups: [min(P), end of
 * the region), the caller's frame for stack pointers, pointer arrays
 * followed) are compared with what the library saw there last: changed
 * bytes are input.  At exit the same ranges are compared again: bytes
 * the call changed are output, and those also input are in-out.
 *
 * A word not inspected since its memory was allocated is input when it
 * is neither zero (fresh memory) nor what the library saw there before
 * the allocator recycled it (the shadow keeps it): then the program
 * wrote it, and the library has never seen it, behind a pointer to
 * const or not (a matrix C that dgemm updates with beta = 1 is input
 * the first time too, in fresh memory; an output buffer's leftovers are
 * not).  Behind a pointer to non-const, an unseen word of a block malloc
 * carved from recycled memory may also be an earlier buffer's data (one
 * the library never saw: numpy's matrix-vector products go through
 * gemv): it is taken as seen unless the program wrote the block since
 * malloc handed it out, which samples of the block taken then tell
 * (shadow_block_state).
 *
 * Bytes are counted in runs of changed 8-byte words, trimmed to the
 * first and last changed byte of the run, so 1.0 written over 0.0 counts
 * eight bytes, not the two that differ.
 */
#include "rt/regions/regions.h"

#include <errno.h>
#include <string.h>

/* Changed bytes as runs of adjacent changed words. */
struct runs {
	uint64_t bytes;
	uintptr_t next;		/* address of the word after the open run */
	unsigned tail_trim;	/* unchanged bytes at the end of its last word */
	bool open;
};

static void run_close(struct runs *r)
{
	if (r->open)
		r->bytes -= r->tail_trim;
	r->open = false;
}

/* The word at addr differs by x (0: it does not). */
static void run_word(struct runs *r, uintptr_t addr, uint64_t x)
{
	if (!x) {
		run_close(r);
		return;
	}
	if (!r->open || r->next != addr) {
		run_close(r);
		r->bytes -= (unsigned)__builtin_ctzll(x) >> 3;
	}
	r->bytes += 8;
	r->tail_trim = (unsigned)__builtin_clzll(x) >> 3;
	r->next = addr + 8;
	r->open = true;
}

/* The bytes of the word at addr that lie in [lo, hi). */
static uint64_t mask_of(uintptr_t addr, uintptr_t lo, uintptr_t hi)
{
	uint64_t m = ~0ull;

	if (lo > addr)
		m &= ~0ull << 8 * (lo - addr);
	if (hi < addr + 8)
		m &= ~0ull >> 8 * (addr + 8 - hi);
	return m;
}

struct pass {
	bool entry;
	bool leftovers;		/* entry: unseen words of recycled pages are not
				   the program's (shadow_block_state) */
	bool keep;		/* entry: leave the last call's marks (a carry) */
	bool clean;		/* the page at hand is still write-protected */
	unsigned level;		/* nesting depth of the call */
	struct runs changed, inout;
};

/* Another thread may write the memory while it is compared: each word
 * is read once, and the copy gets the value that was compared, so a
 * write landing in between is seen as a change next time, never lost. */
static uint64_t read_once(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* One word, in the general case (range edges, words not seen before). */
static void word(struct pass *ps, struct shadow_page *s, unsigned w, uintptr_t addr,
		 uint64_t mask)
{
	uint64_t cur = read_once((const uint64_t *)addr), *copy = (uint64_t *)s->copy + w;
	uint64_t bit = 1ull << (w % 64), *seen = &s->seen[w / 64], *changed = &s->changed[w / 64];

	/* Not seen since allocated: zero (fresh memory) and what the library
	 * saw there before (recycled memory, still in the copy) are nothing
	 * new; anything else the program wrote, and is input. */
	if (!(*seen & bit)) {
		bool leftover = s->recycled && ps->leftovers;

		if (!(cur & mask) || !((cur ^ *copy) & mask) || leftover)
			*copy = cur;
		*seen |= bit;
	}
	uint64_t x = (cur ^ *copy) & mask;

	*copy ^= x;
	run_word(&ps->changed, addr, x);
	s->marked |= ps->entry && x;
	if (ps->entry && (x || !ps->keep))
		*changed = x ? *changed | bit : *changed & ~bit;
	else
		run_word(&ps->inout, addr, *changed & bit ? x : 0);
}

/* Runs over the 64 words at base, of which `bits` changed by x[]. */
static void block_runs(struct runs *r, uintptr_t base, uint64_t bits, const uint64_t *x)
{
	if (!bits) {
		run_close(r);
		return;
	}
	uint64_t starts = bits & ~(bits << 1), ends = bits & ~(bits >> 1);

	if ((bits & 1) && !(r->open && r->next == base)) {
		run_close(r);
	} else if (bits & 1) {
		starts &= ~1ull;	/* the open run goes on */
	} else {
		run_close(r);
	}
	r->bytes += 8 * (uint64_t)__builtin_popcountll(bits);
	for (; starts; starts &= starts - 1)
		r->bytes -= (unsigned)__builtin_ctzll(x[__builtin_ctzll(starts)]) >> 3;
	r->open = false;
	for (; ends; ends &= ends - 1) {
		unsigned k = (unsigned)__builtin_ctzll(ends);

		if (k == 63) {
			r->open = true;
			r->tail_trim = (unsigned)__builtin_clzll(x[63]) >> 3;
			r->next = base + 512;
		} else {
			r->bytes -= (unsigned)__builtin_clzll(x[k]) >> 3;
		}
	}
}

/* 64 whole words, all seen before, some changed: one sweep. */
static void block(struct pass *ps, struct shadow_page *s, unsigned b, uintptr_t base)
{
	const uint64_t *cur = (const uint64_t *)base;
	uint64_t *copy = (uint64_t *)s->copy + 64 * b;
	uint64_t x[64], bits = 0;

	for (unsigned k = 0; k < 64; k++) {
		x[k] = read_once(&cur[k]) ^ copy[k];
		copy[k] ^= x[k];	/* the value compared, not a second read */
		bits |= (uint64_t)(x[k] != 0) << k;
	}
	block_runs(&ps->changed, base, bits, x);
	s->marked |= ps->entry && bits;
	if (ps->entry)
		s->changed[b] = ps->keep ? s->changed[b] | bits : bits;
	else
		block_runs(&ps->inout, base, bits & s->changed[b], x);
}

/* Bits w0 to w1 - 1 of a 64-bit block map. */
static uint64_t bits_of(unsigned w0, unsigned w1)
{
	uint64_t hi = w1 >= 64 ? ~0ull : (1ull << w1) - 1;

	return hi & ~((1ull << w0) - 1);
}

/* The bit masks of words [w0, w1) (w0 < w1) in their first and last
 * 64-word blocks, b0 and b1; the blocks between are whole. */
struct span {
	unsigned b0, b1;
	uint64_t first, last;
};

static struct span span_of(unsigned w0, unsigned w1)
{
	struct span sp = { w0 / 64, (w1 - 1) / 64, ~0ull << (w0 % 64), ~0ull >> (63 - (w1 - 1) % 64) };

	if (sp.b0 == sp.b1)
		sp.first = sp.last = sp.first & sp.last;
	return sp;
}

/* Words [w0, w1) of the page were all seen before.  A page seen whole
 * (the common case for big buffers) says so at once. */
static bool all_seen(struct shadow_page *s, unsigned w0, unsigned w1)
{
	if (s->whole)
		return true;
	struct span sp = span_of(w0, w1);
	uint64_t all = (s->seen[sp.b0] | ~sp.first) & (s->seen[sp.b1] | ~sp.last);

	for (unsigned b = sp.b0 + 1; b < sp.b1; b++)
		all &= s->seen[b];
	if (all == ~0ull && w0 == 0 && w1 == SHADOW_WORDS)
		s->whole = true;
	return all == ~0ull;
}

/* Words [w0, w1) of the page are unchanged (entry).  A page with no
 * mark left (nothing changed at the last entries) needs nothing. */
static void clear_changed(struct shadow_page *s, unsigned w0, unsigned w1)
{
	if (!s->marked)
		return;
	struct span sp = span_of(w0, w1);
	uint64_t left = 0;

	s->changed[sp.b0] &= ~sp.first;
	s->changed[sp.b1] &= ~sp.last;
	for (unsigned b = sp.b0 + 1; b < sp.b1; b++)
		s->changed[b] = 0;
	for (unsigned b = 0; b < SHADOW_WORDS / 64; b++)
		left |= s->changed[b];
	s->marked = left != 0;
}

/* Words [w0, w1) of the page are as the copy has them. */
static void unchanged(struct pass *ps, struct shadow_page *s, unsigned w0, unsigned w1)
{
	run_close(&ps->changed);
	run_close(&ps->inout);
	if (ps->entry && !ps->keep)
		clear_changed(s, w0, w1);
}

/* Every word of the page seen so far lies in words [w0, w1). */
static bool seen_within(const struct shadow_page *s, unsigned w0, unsigned w1)
{
	struct span sp = span_of(w0, w1);

	for (unsigned b = 0; b < SHADOW_WORDS / 64; b++) {
		uint64_t in = b < sp.b0 || b > sp.b1 ? 0 : b == sp.b0 ? sp.first
						     : b == sp.b1 ? sp.last : ~0ull;

		if (s->seen[b] & ~in)
			return false;
	}
	return true;
}

/* [lo, hi) within one page.  Seen before and unchanged, the common case,
 * it costs one memcmp; else 512 bytes at a time, a part seen before and
 * unchanged again one memcmp, other parts word by word. */
static void compare_part(struct pass *ps, struct shadow_page *s, uintptr_t lo, uintptr_t hi)
{
	uintptr_t page_base = s->page / SHADOW_LEVELS * SHADOW_PAGE;
	unsigned w0 = (unsigned)(lo - page_base) / 8, w1 = (unsigned)(hi - page_base + 7) / 8;

	if (all_seen(s, w0, w1) && !memcmp((const void *)lo, s->copy + (lo - page_base), hi - lo)) {
		unchanged(ps, s, w0, w1);
		return;
	}
	for (uintptr_t chunk = lo & ~(uintptr_t)511; chunk < hi; chunk += 512) {
		uintptr_t a = lo > chunk ? lo : chunk, e = hi < chunk + 512 ? hi : chunk + 512;
		unsigned b = (unsigned)((chunk - page_base) / 512);
		uint64_t bits = bits_of((unsigned)(a - chunk) / 8, (unsigned)(e - chunk + 7) / 8);

		if ((s->seen[b] & bits) == bits &&
		    !memcmp((const void *)a, s->copy + (a - page_base), e - a)) {
			run_close(&ps->changed);
			run_close(&ps->inout);
			if (ps->entry && !ps->keep)
				s->changed[b] &= ~bits;
			continue;
		}
		if (a == chunk && e == chunk + 512 && s->seen[b] == ~0ull) {
			block(ps, s, b, chunk);
			continue;
		}
		for (uintptr_t w = a & ~(uintptr_t)7; w < e; w += 8)
			word(ps, s, (unsigned)((w - page_base) / 8), w, mask_of(w, lo, hi));
	}
}

/* [lo, hi) within one page: not compared at all when the page is still
 * write-protected since its copy was last synced whole (shadow_wp.c). */
static void page_part(struct pass *ps, struct shadow_page *s, uintptr_t lo, uintptr_t hi)
{
	uintptr_t page_base = s->page / SHADOW_LEVELS * SHADOW_PAGE;
	unsigned w0 = (unsigned)(lo - page_base) / 8, w1 = (unsigned)(hi - page_base + 7) / 8;

	if (ps->clean && s->wp_synced && all_seen(s, w0, w1)) {
		unchanged(ps, s, w0, w1);
		return;
	}
	compare_part(ps, s, lo, hi);
	/* Synced while protected: whole, or on top of a whole sync. */
	s->wp_synced = ps->clean && (s->wp_synced || seen_within(s, w0, w1));
}

/* The changed bytes of [lo, hi); a page without a shadow (memory
 * exhausted) counts whole, one that cannot be read not at all. */
static void inspect(struct pass *ps, uintptr_t lo, uintptr_t hi)
{
	uint64_t clean[WP_MAX_PAGES / 64];
	uintptr_t first = lo / SHADOW_PAGE;
	/* Ranges over fewer pages are compared (shadow_wp.c): no call to find out. */
	bool wp = wp_pages(lo, hi) >= WP_MIN_PAGES && shadow_wp_clean(lo, hi, clean);

	while (lo < hi) {
		uintptr_t page_end = (lo / SHADOW_PAGE + 1) * SHADOW_PAGE;
		uintptr_t end = hi < page_end ? hi : page_end;
		struct shadow_page *s = shadow_get(lo / SHADOW_PAGE, ps->level);
		uintptr_t k = lo / SHADOW_PAGE - first;

		ps->clean = wp && k < WP_MAX_PAGES && (clean[k / 64] >> (k % 64) & 1);

		if (s && shadow_readable(s)) {
			page_part(ps, s, lo, end);
		} else if (!s) {
			run_close(&ps->changed);
			ps->changed.bytes += end - lo;
		}
		lo = end;
	}
	run_close(&ps->changed);
	run_close(&ps->inout);
}

/* Unseen words of the group's recycled pages are taken as seen: behind
 * a pointer to non-const, in a block of recycled memory the program has
 * not written since malloc handed it out, or in a block too old to tell
 * (behind a pointer to const the library reads them: the program put
 * them there). */
static bool leftovers_in(const struct ws_group *g)
{
	if (g->is_const)
		return false;
	enum block_state b = shadow_block_state(g->r.start, g->r.end);

	return b == BLOCK_LEFTOVERS || b == BLOCK_UNKNOWN;
}

static void lock_applied(void)
{
	region_held_flush();	/* before the lock: it may need to take it */
	region_lock();
	region_log_apply(region_state());
}

/* Lock held: the part of [lo, hi) still in the region it was in at
 * entry (the call may have freed or shrunk a block: unmapped memory
 * must not be read). */
static uintptr_t still_there(uintptr_t lo, uintptr_t hi)
{
	struct region r;
	bool is_block;

	if (!region_lookup(region_state(), lo, &r, &is_block))
		return lo;
	return r.end < hi ? r.end : hi;
}

REGIONS_EXPORT int sibyl_regions_full_enter(struct sibyl_rt_thread *t,
					   const struct sibyl_rt_ws_arg *args, unsigned n,
					   const void *frame, const void *ret,
					   struct sibyl_rt_ws_full *st)
{
	struct ws_group g[WS_MAX_GROUPS];
	int saved_errno = errno;

	st->n = 0;
	st->in_bytes = 0;
	st->counted = 0;
	st->written = 0;
	st->carry = 0;
	st->carry_tid = 0;
	/* Lost allocation events: a block believed live may be unmapped. */
	if (t->in_runtime || __atomic_load_n(&regions_lost, __ATOMIC_RELAXED))
		return 0;
	t->in_runtime = 1;
	shadow_in_use = true;
	lock_applied();
	region_cache_sync(region_state());
	unsigned ng;

	/* A call like the last one from its site: no lookup (site_memo.c). */
	if (region_held_covers(args, n) ||
	    !site_memo_groups(region_state()->version, (uintptr_t)ret, (uintptr_t)frame, args, n, g,
			      &ng, &st->unknown))
		ng = ws_groups_locked(args, n, (uintptr_t)frame, (uintptr_t)ret, g, &st->unknown);

	st->regions = ng;
	struct carry_ctx cc = carry_begin(t);

	for (unsigned i = 0; i < ng && st->n < SIBYL_WS_FULL_RANGES; i++) {
		const struct measured *from;
		uint64_t from_start, carried = carry_candidate(&cc, st, g[i].min, g[i].end, &from,
							       &from_start);
		/* Marks carried stay: they are this call's input now, and the
		 * next part's call may carry them on. */
		struct pass ps = { .entry = true, .keep = carried != 0,
				   .level = t->depth - 1, .leftovers = leftovers_in(&g[i]) };

		inspect(&ps, g[i].min, g[i].end);
		st->in_bytes += ps.changed.bytes;
		if (ps.changed.bytes)
			carried = 0;	/* the program wrote there since: not a part */
		carry_take(st, carried, from, from_start);
		st->in_bytes += carried;
		st->counted |= (uint32_t)(ps.changed.bytes || carried) << st->n;
		st->written |= (uint32_t)g[i].writable << st->n;
		st->r[st->n].lo = g[i].min;
		st->r[st->n++].hi = g[i].end;
	}
	st->unknown += ng - st->n;	/* beyond the ranges kept: not measured */
	st->version = region_state()->version;
	carry_remember(t, st);
	region_unlock();
	t->in_runtime = 0;
	errno = saved_errno;
	return 1;
}

REGIONS_EXPORT int sibyl_regions_full_exit(struct sibyl_rt_thread *t, struct sibyl_rt_ws_full *st,
					  struct sibyl_rt_ws_sizes *out)
{
	int saved_errno = errno;

	*out = (struct sibyl_rt_ws_sizes){ .in_bytes = st->in_bytes, .regions = st->regions,
					    .unknown = st->unknown };
	if (t->in_runtime)
		return 0;
	t->in_runtime = 1;
	lock_applied();
	for (unsigned i = 0; i < st->n; i++) {
		struct pass ps = { .entry = false, .level = t->depth - 1 };

		/* Reached only through pointers to const: the call does not
		 * write there.  (What another thread writes meanwhile is the
		 * next call's input, not this one's output.) */
		if (!(st->written >> i & 1))
			continue;
		/* No region changed since entry: the ranges are all there. */
		uintptr_t hi = region_state()->version == st->version ? st->r[i].hi
								 : still_there(st->r[i].lo, st->r[i].hi);

		inspect(&ps, st->r[i].lo, hi);
		out->out_bytes += ps.changed.bytes;
		out->inout_bytes += ps.inout.bytes;
	}
	carry_finish(t);
	region_unlock();
	t->in_runtime = 0;
	errno = saved_errno;
	return 1;
}
