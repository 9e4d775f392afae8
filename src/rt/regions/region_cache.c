/*
 * The regions this thread found last, so that a wrapped call in a loop
 * that allocates nothing in between (BLAS in a loop, a codec's scanline
 * calls) looks its pointers up without the tracker's lock and without
 * walking the ordered sets.  What it holds is exact as long as the sets
 * have not changed since: no event is waiting in the log and their
 * version (bumped by every change, under the lock) is the one the cache
 * was filled at.  An event logged by another thread during a lookup is
 * one that happened after it, as with the lock.
 */
#include "rt/regions/regions.h"

#define ENTRIES 8

struct entry {
	struct region r;	/* {0, 0}: empty, matches no pointer */
	bool is_block;
};

static __thread struct {
	uint64_t version;
	struct entry e[ENTRIES];
	unsigned next;		/* the entry replaced next */
	uintptr_t return_address, frame_size;
} cache __attribute__((tls_model("initial-exec")));

bool region_cache_usable(const struct region_state *s)
{
	return !region_log_pending() &&
	       __atomic_load_n(&s->version, __ATOMIC_ACQUIRE) == cache.version;
}

bool region_cache_find(uintptr_t p, struct region *out, bool *is_block)
{
	for (unsigned i = 0; i < ENTRIES; i++)
		if (p >= cache.e[i].r.start && p < cache.e[i].r.end) {
			*out = cache.e[i].r;
			*is_block = cache.e[i].is_block;
			return true;
		}
	return false;
}

void region_cache_sync(const struct region_state *s)
{
	if (cache.version == s->version)
		return;
	for (unsigned i = 0; i < ENTRIES; i++)
		cache.e[i] = (struct entry){ { 0, 0 }, false };
	cache.version = s->version;
}

void region_cache_add(const struct region *r, bool is_block)
{
	for (unsigned i = 0; i < ENTRIES; i++)
		if (cache.e[i].r.start == r->start && cache.e[i].r.end == r->end)
			return;
	cache.e[cache.next] = (struct entry){ *r, is_block };
	cache.next = (cache.next + 1) % ENTRIES;
}

/* Frame sizes never change (stack_frame.c caches them for good), so
 * this needs no version. */
bool region_cache_frame(uintptr_t return_address, uintptr_t *size)
{
	if (cache.return_address != return_address || !return_address)
		return false;
	*size = cache.frame_size;
	return true;
}

void region_cache_set_frame(uintptr_t return_address, uintptr_t size)
{
	cache.return_address = return_address;
	cache.frame_size = size;
}

/*
 * The last call's answer: a call from the same site, with the same
 * frame and the same pointers, while the sets are unchanged, has the
 * same sizes (a codec or a BLAS loop on the same buffers).  Not for
 * arrays of pointers, whose elements may have changed in between.
 */
#define MEMO_ARGS 8

static __thread struct {
	uint64_t version;
	uintptr_t return_address, frame;
	unsigned n;
	const void *p[MEMO_ARGS];
	unsigned flags[MEMO_ARGS];
	struct sibyl_rt_ws_sizes sizes;
} memo __attribute__((tls_model("initial-exec")));

static bool memo_matches(uintptr_t ret, uintptr_t frame, const struct sibyl_rt_ws_arg *args,
			 unsigned n)
{
	if (memo.return_address != ret || memo.frame != frame || memo.n != n || !ret)
		return false;
	for (unsigned i = 0; i < n; i++)
		if (memo.p[i] != args[i].p || memo.flags[i] != args[i].flags)
			return false;
	return true;
}

bool region_cache_answer(const struct region_state *s, uintptr_t ret, uintptr_t frame,
			 const struct sibyl_rt_ws_arg *args, unsigned n,
			 struct sibyl_rt_ws_sizes *out)
{
	if (!memo_matches(ret, frame, args, n) || region_log_pending() ||
	    __atomic_load_n(&s->version, __ATOMIC_ACQUIRE) != memo.version)
		return false;
	*out = memo.sizes;
	return true;
}

void region_cache_remember(uint64_t version, uintptr_t ret, uintptr_t frame,
			   const struct sibyl_rt_ws_arg *args, unsigned n,
			   const struct sibyl_rt_ws_sizes *sizes)
{
	memo.return_address = 0;	/* invalid until complete */
	if (n > MEMO_ARGS)
		return;
	for (unsigned i = 0; i < n; i++) {
		if (args[i].flags & SIBYL_WS_ARRAY)
			return;
		memo.p[i] = args[i].p;
		memo.flags[i] = args[i].flags;
	}
	memo.version = version;
	memo.frame = frame;
	memo.n = n;
	memo.sizes = *sizes;
	memo.return_address = ret;
}
