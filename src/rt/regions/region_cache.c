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

/* Starts and ends in arrays of their own: a lookup is a short scan. */
static __thread struct {
	uint64_t version;
	uintptr_t start[ENTRIES], end[ENTRIES];	/* {0, 0}: empty, matches no pointer */
	bool is_block[ENTRIES];
	unsigned next;		/* the entry replaced next */
	uintptr_t return_address, frame_size;
	struct region stack;	/* this thread's stack mapping; {0, 0}: not known */
} cache __attribute__((tls_model("initial-exec")));

bool region_cache_usable(const struct region_state *s)
{
	return !region_log_pending() &&
	       __atomic_load_n(&s->version, __ATOMIC_ACQUIRE) == cache.version;
}

static int entry_of(uintptr_t p)
{
	for (int i = 0; i < ENTRIES; i++)
		if (p >= cache.start[i] && p < cache.end[i])
			return i;
	return -1;
}

bool region_cache_find(uintptr_t p, struct region *out, bool *is_block)
{
	int i = entry_of(p);

	if (i < 0)
		return false;
	*out = (struct region){ cache.start[i], cache.end[i] };
	*is_block = cache.is_block[i];
	return true;
}

void region_cache_sync(const struct region_state *s)
{
	if (cache.version == s->version)
		return;
	for (unsigned i = 0; i < ENTRIES; i++)
		cache.start[i] = cache.end[i] = 0;
	cache.version = s->version;
}

void region_cache_add(const struct region *r, bool is_block)
{
	for (unsigned i = 0; i < ENTRIES; i++)
		if (cache.start[i] == r->start && cache.end[i] == r->end)
			return;
	cache.start[cache.next] = r->start;
	cache.end[cache.next] = r->end;
	cache.is_block[cache.next] = is_block;
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

struct region *region_cache_stack(void)
{
	return &cache.stack;
}

/* The entry the argument at each position was found in last: tried
 * first, since a loop passes the same buffers in the same positions. */
static __thread uint8_t hint[MEMO_ARGS] __attribute__((tls_model("initial-exec")));

/* p's region, from the caller's frame, the stack above it or a cached
 * region; false when it is in none of them. */
static bool quick_region(uintptr_t p, unsigned pos, uintptr_t frame, uintptr_t frame_end,
			 uintptr_t *start, uintptr_t *end)
{
	if (p >= frame && p < cache.stack.end) {
		*start = p < frame_end ? frame : frame_end;
		*end = p < frame_end ? frame_end : cache.stack.end;
		return true;
	}
	int e = hint[pos];

	if (!(p >= cache.start[e] && p < cache.end[e])) {
		if ((e = entry_of(p)) < 0)
			return false;
		hint[pos] = (uint8_t)e;
	}
	*start = cache.start[e];
	*end = cache.end[e];
	return true;
}

/*
 * The regions of a call's pointers in one pass over the arguments, the
 * cache being usable: no pointer arrays, a known caller frame, and every
 * pointer in a region the cache holds ({0, 0} for those below 4096).
 * The general path (worksize_fast.c) takes over when this returns false.
 */
bool region_cache_where(const struct sibyl_rt_ws_arg *args, unsigned n, uintptr_t frame,
			uintptr_t ret, struct region *where)
{
	if (n > MEMO_ARGS || frame < cache.stack.start || frame >= cache.stack.end ||
	    cache.return_address != ret || !ret)
		return false;
	uintptr_t frame_end = cache.frame_size > sizeof(void *)
				      ? frame + cache.frame_size - sizeof(void *) : cache.stack.end;

	for (unsigned i = 0; i < n; i++) {
		uintptr_t p = (uintptr_t)args[i].p;

		where[i] = (struct region){ 0, 0 };
		if (p < 4096)
			continue;
		if ((args[i].flags & SIBYL_WS_ARRAY) ||
		    !quick_region(p, i, frame, frame_end, &where[i].start, &where[i].end))
			return false;
	}
	return true;
}
