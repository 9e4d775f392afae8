/*
 * worksize.fast (paper IV.C.1): the pointer arguments of a call are
 * grouped by the region they point into; a group of pointers P in the
 * region [s, e) stands for at most l = e - min(P) bytes, input when any
 * of them points to const, output otherwise.  An argument that points to
 * pointers (T **) is followed: its elements count as pointers of the call
 * while they point into known regions.  On the stack, the region is the
 * frame of the wrapper's caller (stack_frame.c), not the whole stack.
 */
#include "rt/regions/regions.h"

#include <errno.h>

#define MAX_GROUPS WS_MAX_GROUPS
#define MAX_DEPTH 3		/* JSAMPIMAGE is three levels deep */
#define MAX_ELEMENTS 4096	/* pointers followed per array */

struct ws_call {
	struct region_state *s;
	uintptr_t frame, frame_end, stack_hi;	/* caller frame; top of this stack */
	bool follow;		/* the regions are exact: memory may be read */
	bool locked;		/* the sets may be searched; else the cache only */
	bool missed;		/* not locked, and the cache could not answer */
	bool crowded;		/* a pointer is in an area that holds blocks */
	struct ws_group g[MAX_GROUPS];
	unsigned ngroups;
	uint32_t unknown;
	struct region where[MEMO_ARGS];	/* of each pointer argument (site_memo.c) */
};

/* This thread's stack mapping is looked up once per thread. */
static void find_stack(struct ws_call *c, uintptr_t ret)
{
	struct region *thread_stack = region_cache_stack();
	bool is_block;
	uintptr_t size = 0;

	if (c->frame < thread_stack->start || c->frame >= thread_stack->end) {
		if (!c->locked) {
			c->missed = true;
			return;
		}
		if (!region_lookup(c->s, c->frame, thread_stack, &is_block) || is_block)
			*thread_stack = (struct region){ 0, 0 };
	}
	c->stack_hi = thread_stack->end;
	if (c->stack_hi && !region_cache_frame(ret, &size)) {
		if (!c->locked) {
			c->missed = true;
			return;
		}
		size = stack_caller_frame_size(c->frame, ret);
		region_cache_set_frame(ret, size);
	}
	/* The caller's return address ends its frame; unknown: the stack. */
	c->frame_end = size > sizeof(void *) ? c->frame + size - sizeof(void *) : c->stack_hi;
}

/* The region of p: the caller's frame, an older part of the stack, a
 * block or an area.  *readable: its memory may be read now. */
static bool region_of(struct ws_call *c, uintptr_t p, struct region *r, bool *readable)
{
	bool is_block;

	if (p >= c->frame && p < c->stack_hi) {
		*r = p < c->frame_end ? (struct region){ c->frame, c->frame_end }
				      : (struct region){ c->frame_end, c->stack_hi };
		*readable = true;
		return true;
	}
	/* Locked too, the cache goes first: it is synced with the sets, and
	 * a scan of a few entries is cheaper than a walk down two treaps.
	 * An area it holds may hold a block another thread has not logged. */
	struct region logged;
	bool held = false;

	if (!region_cache_find(p, r, &is_block) ||
	    (!is_block && c->locked && region_held_find(c->s, p, &logged))) {
		if (!c->locked)
			return c->missed = true, false;
		if (!region_lookup(c->s, p, r, &is_block))
			return false;
		region_cache_sync(c->s);	/* the maps may have been re-read */
		/* A block another thread holds is not logged: its thread may
		 * free it at any time, so it is neither cached nor read. */
		held = is_block && !region_find(&c->s->blocks, p, &logged);
		/* Such an area answers for p, not for the blocks in it: the
		 * cache and the memo would answer for them too. */
		if (!is_block && region_starts_within(&c->s->blocks, r->start, r->end))
			c->crowded = true;
		else if (!held)
			region_cache_add(r, is_block);
	}
	*readable = is_block && c->follow && !held;
	return true;
}

/* A struct of `size` bytes at p, in r: up to its end; else r's end. */
static uintptr_t end_of(const struct region *r, uintptr_t p, uint32_t size)
{
	return size && size < r->end - p ? p + size : r->end;
}

static void add_to_group(struct ws_call *c, const struct region *r, uintptr_t p, bool is_const,
			 uint32_t size)
{
	uintptr_t end = end_of(r, p, size);

	for (unsigned i = 0; i < c->ngroups; i++) {
		struct ws_group *g = &c->g[i];

		if (g->r.start == r->start) {
			if (p < g->min)
				g->min = p;
			if (end > g->end)
				g->end = end;
			g->is_const |= is_const;
			g->writable |= !is_const;
			return;
		}
	}
	if (c->ngroups < MAX_GROUPS)
		c->g[c->ngroups++] = (struct ws_group){ *r, p, end, is_const, !is_const };
}

/* The elements of one array of pointers look alike: after the first,
 * an element goes on only into the first one's region (rows of one
 * image) or into a region of the same size (rows allocated one by one).
 * Else a stack array of one row pointer (`&row`, as ImageMagick passes
 * libjpeg's scanlines) would run on through the caller's other locals,
 * into its image and pixel caches. */
static bool alike(const struct region *first, const struct region *r)
{
	return r->start == first->start || r->end - r->start == first->end - first->start;
}

/* p, found in r: its group, and the pointers it holds if it is an array. */
static void add_found(struct ws_call *c, uintptr_t p, const struct region *r, bool readable,
		      unsigned flags, uint32_t size, unsigned depth)
{
	if (!(flags & SIBYL_WS_ARRAY) || !readable || depth >= MAX_DEPTH) {
		add_to_group(c, r, p, flags & SIBYL_WS_CONST, size);
		return;
	}
	/* An array of pointers ends at the first element that points into
	 * no known region (or at its region's end), or unlike the first. */
	const uintptr_t *elem = (const uintptr_t *)p;
	struct region first = { 0, 0 };
	unsigned i;

	for (i = 0; i < MAX_ELEMENTS && (uintptr_t)(elem + i + 1) <= r->end; i++) {
		struct region er;
		bool er_readable;

		if (elem[i] < 4096 || !region_of(c, elem[i], &er, &er_readable) ||
		    (i && !alike(&first, &er)))
			break;
		if (!i)
			first = er;
		add_found(c, elem[i], &er, er_readable, flags, 0, depth + 1);
	}
	/* The array is as long as the elements followed: `&row` on the
	 * stack is one pointer, not the rest of the caller's frame. */
	add_to_group(c, r, p, flags & SIBYL_WS_CONST, i ? i * (uint32_t)sizeof(*elem) : size);
}

/* *where: the region p was found in, {0, 0} when none. */
static void add_pointer(struct ws_call *c, uintptr_t p, unsigned flags, uint32_t size,
			struct region *where)
{
	bool readable;

	*where = (struct region){ 0, 0 };
	if (p < 4096)
		return;		/* NULL, or a small integer passed as a pointer */
	if (region_of(c, p, where, &readable))
		add_found(c, p, where, readable, flags, size, 0);
	else
		c->unknown++;
}

/* One pass over the arguments; without the lock it stops at the first
 * pointer the cache cannot answer for. */
static void measure(struct ws_call *c, const struct sibyl_rt_ws_arg *args, unsigned n,
		    uintptr_t ret)
{
	c->ngroups = 0;
	c->unknown = 0;
	c->missed = false;
	c->crowded = false;
	find_stack(c, ret);
	for (unsigned i = 0; i < n && !c->missed; i++) {
		struct region r;

		add_pointer(c, (uintptr_t)args[i].p, args[i].flags, args[i].size,
			    i < MEMO_ARGS ? &c->where[i] : &r);
	}
}

void ws_sizes_of(const struct ws_group *g, unsigned ngroups, uint32_t unknown,
		 struct sibyl_rt_ws_sizes *out)
{
	uint64_t bytes[2] = { 0, 0 };	/* output, input */

	for (unsigned i = 0; i < ngroups; i++)
		bytes[g[i].is_const] += g[i].end - g[i].min;
	*out = (struct sibyl_rt_ws_sizes){ .in_bytes = bytes[1], .out_bytes = bytes[0],
					    .regions = ngroups, .unknown = unknown };
}

unsigned ws_groups_locked(const struct sibyl_rt_ws_arg *args, unsigned n, uintptr_t frame,
			  uintptr_t ret, struct ws_group *out, uint32_t *unknown)
{
	struct ws_call c;

	c.s = region_state();
	c.frame = frame;
	c.locked = true;
	c.follow = __atomic_load_n(&regions_lost, __ATOMIC_RELAXED) == 0;
	uint64_t version = c.s->version;

	measure(&c, args, n, ret);
	if (c.s->version == version && !c.crowded)	/* the maps were not re-read meanwhile */
		site_memo_fill(version, ret, frame, args, n, c.where);
	for (unsigned i = 0; i < c.ngroups; i++)
		out[i] = c.g[i];
	*unknown = c.unknown;
	return c.ngroups;
}

/* Under the lock, after applying the allocation log; false when the
 * sets changed meanwhile (the maps were re-read): not to be remembered. */
static bool measure_locked(struct ws_call *c, const struct sibyl_rt_ws_arg *args, unsigned n,
			   uintptr_t ret, uint64_t *version)
{
	int saved_errno = errno;

	region_lock();
	c->locked = true;
	region_log_apply(c->s);
	region_cache_sync(c->s);
	*version = c->s->version;
	measure(c, args, n, ret);
	region_cache_sync(c->s);	/* the maps may have been re-read */
	bool same = c->s->version == *version;

	region_unlock();
	errno = saved_errno;	/* reading the maps or unwinding may set it */
	return same;
}

/*
 * Not answered by the memo: one pass over the cache (region_cache.c),
 * else the general pass, still without the lock when the cache is
 * usable.  When the sets changed or a pointer is not in the cache: again
 * under the lock, after applying the allocation log.  Whichever found
 * the regions leaves them in the memo for the next call.  Out of line:
 * the memo's path needs no 2 KiB frame.
 */
static __attribute__((noinline)) void measure_call(const struct sibyl_rt_ws_arg *args, unsigned n,
						    uintptr_t frame, uintptr_t ret, uint64_t version,
						    bool cached, struct sibyl_rt_ws_sizes *out)
{
	struct ws_call c;	/* not zero-filled: the groups are 2 KiB */
	bool remember = true;

	c.s = region_state();
	if (cached && region_cache_where(args, n, frame, ret, c.where)) {
		/* The same pass again, from the memo: one way to group. */
		site_memo_fill(version, ret, frame, args, n, c.where);
		if (site_memo_sizes(version, ret, frame, args, n, out))
			return;
		/* Not remembered after all: the general pass answers. */
	}
	c.frame = frame;
	c.locked = false;
	c.follow = __atomic_load_n(&regions_lost, __ATOMIC_RELAXED) == 0;
	if (cached)
		measure(&c, args, n, ret);
	if (!cached || c.missed)
		remember = measure_locked(&c, args, n, ret, &version);
	ws_sizes_of(c.g, c.ngroups, c.unknown, out);
	if (remember && !c.crowded)
		site_memo_fill(version, ret, frame, args, n, c.where);
}

/* The memo answers a call like the last one from its site while the
 * sets are unchanged since this thread's cache was filled. */
REGIONS_EXPORT int sibyl_regions_worksize(struct sibyl_rt_thread *t, const struct sibyl_rt_ws_arg *args,
					 unsigned n, const void *frame, const void *ret,
					 struct sibyl_rt_ws_sizes *out)
{
	if (t->in_runtime) {
		*out = (struct sibyl_rt_ws_sizes){ 0 };
		return 0;
	}
	t->in_runtime = 1;
	region_held_flush();
	struct region_state *s = region_state();
	uint64_t version = __atomic_load_n(&s->version, __ATOMIC_ACQUIRE);
	bool cached = !region_held_covers(args, n) && region_cache_usable(s);

	if (!cached || !site_memo_sizes(version, (uintptr_t)ret, (uintptr_t)frame, args, n, out))
		measure_call(args, n, (uintptr_t)frame, (uintptr_t)ret, version, cached, out);
	t->in_runtime = 0;
	return 1;
}
