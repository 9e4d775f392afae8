/*
 * What the last call from a call site found, per thread: the region
 * each pointer argument was in and the group it went to.  A loop calls
 * a library from one site with its pointers in the same buffers, moving
 * or not (a BLAS loop over blocks, a codec's rows): when every pointer
 * of a call from that site, with that frame and those argument types,
 * lies in the region the same argument's pointer did, and the sets are
 * unchanged since, the grouping is the same, and the sizes follow from
 * the pointers in one pass over the arguments, without any lookup.
 * When each group holds one pointer (the common case: one buffer per
 * argument), that pass sums the sizes directly.
 *
 * Not for arrays of pointers (their elements may have changed), nor
 * for more than MEMO_ARGS pointer arguments.
 */
#include "rt/regions/regions.h"

#include <stddef.h>
#include <string.h>

#define NONE MEMO_ARGS		/* the group of pointers in no region */

static __thread struct {
	uint64_t version;
	uintptr_t return_address, frame;	/* 0: empty */
	unsigned n, ngroups;
	uint32_t unknown;
	uint32_t group_const;		/* bit k: group k has a pointer to const */
	uint32_t group_writable;	/* bit k: group k has a pointer to non-const */
	bool simple;			/* one pointer per group, no struct sizes */
	uintptr_t ends[2];		/* simple: the regions' ends, summed as sizes are */
	uint64_t key[MEMO_ARGS];	/* flags and size */
	uintptr_t lo[MEMO_ARGS], len[MEMO_ARGS];	/* where the pointer may be */
	uint8_t group[MEMO_ARGS];
	uint8_t first[MEMO_ARGS];	/* of each group: its first argument */
	uint8_t sum[MEMO_ARGS];		/* simple: 0 output, 1 input, 2 none */
} memo __attribute__((tls_model("initial-exec")));

_Static_assert(offsetof(struct sibyl_rt_ws_arg, size) ==
	       offsetof(struct sibyl_rt_ws_arg, flags) + sizeof(unsigned) && sizeof(unsigned) == 4,
	       "flags and size make one 64-bit key");

/* An argument's type, as the generator flagged it: one load, one compare. */
static uint64_t key_of(const struct sibyl_rt_ws_arg *a)
{
	uint64_t k;

	memcpy(&k, &a->flags, sizeof(k));
	return k;
}

/* Argument i, found in *where ({0, 0}: in no region): the range its
 * pointer must lie in next time, and its group. */
static void fill_arg(unsigned i, uintptr_t p, const struct region *where)
{
	unsigned k = 0;

	memo.group[i] = NONE;
	memo.sum[i] = 2;
	if (p < 4096 || !where->end) {
		/* Below 4096 nothing is looked up; else unknown: only this
		 * very pointer is known to be in no region. */
		memo.lo[i] = p < 4096 ? 0 : p;
		memo.len[i] = p < 4096 ? 4096 : 1;
		memo.unknown += p >= 4096;
		return;
	}
	memo.lo[i] = where->start;
	memo.len[i] = where->end - where->start;
	while (k < memo.ngroups && memo.lo[memo.first[k]] != where->start)
		k++;
	if (k == memo.ngroups)
		memo.first[memo.ngroups++] = (uint8_t)i;
	else
		memo.simple = false;
	memo.group[i] = (uint8_t)k;
	memo.sum[i] = (memo.key[i] & SIBYL_WS_CONST) != 0;
	memo.ends[memo.sum[i]] += where->end;
	if (memo.key[i] >> 32)
		memo.simple = false;	/* a struct's size bounds it */
}

void site_memo_fill(uint64_t version, uintptr_t ret, uintptr_t frame,
		    const struct sibyl_rt_ws_arg *args, unsigned n, const struct region *where)
{
	memo.return_address = 0;	/* invalid until complete */
	if (n > MEMO_ARGS || !ret)
		return;
	memo.ngroups = 0;
	memo.unknown = 0;
	memo.group_const = 0;
	memo.group_writable = 0;
	memo.simple = true;
	memo.ends[0] = memo.ends[1] = 0;
	for (unsigned i = 0; i < n; i++) {
		/* A NULL array (strtol's endptr) has no elements to change:
		 * it is remembered as any pointer below 4096 is. */
		if ((args[i].flags & SIBYL_WS_ARRAY) && (uintptr_t)args[i].p >= 4096)
			return;
		memo.key[i] = key_of(&args[i]);
		fill_arg(i, (uintptr_t)args[i].p, &where[i]);
		if (memo.group[i] != NONE && (args[i].flags & SIBYL_WS_CONST))
			memo.group_const |= 1u << memo.group[i];
		else if (memo.group[i] != NONE)
			memo.group_writable |= 1u << memo.group[i];
	}
	memo.version = version;
	memo.frame = frame;
	memo.n = n;
	memo.return_address = ret;
}

static bool same_site(uint64_t version, uintptr_t ret, uintptr_t frame, unsigned n)
{
	return memo.return_address == ret && memo.frame == frame && memo.n == n &&
	       memo.version == version && ret;
}

/* Argument i is of the type the memo's was and lies where it did. */
static inline __attribute__((always_inline)) bool lies_where(unsigned i,
							    const struct sibyl_rt_ws_arg *a)
{
	return key_of(a) == memo.key[i] && (uintptr_t)a->p - memo.lo[i] < memo.len[i];
}

/*
 * The groups of a call like the memo's, the sets being at `version`
 * with nothing pending: [min(P), end) per group, end being the region's
 * or, for pointers to structs, the last struct's (worksize_fast.c).
 * g has room for MEMO_ARGS groups.
 */
bool site_memo_groups(uint64_t version, uintptr_t ret, uintptr_t frame,
		      const struct sibyl_rt_ws_arg *args, unsigned n, struct ws_group *g,
		      unsigned *ngroups, uint32_t *unknown)
{
	if (!same_site(version, ret, frame, n))
		return false;
	for (unsigned k = 0; k < memo.ngroups; k++) {
		unsigned i = memo.first[k];

		g[k] = (struct ws_group){ { memo.lo[i], memo.lo[i] + memo.len[i] },
					  UINTPTR_MAX, 0, memo.group_const >> k & 1,
					  memo.group_writable >> k & 1 };
	}
	for (unsigned i = 0; i < n; i++) {
		uintptr_t p = (uintptr_t)args[i].p, hi = memo.lo[i] + memo.len[i];
		uint32_t size = args[i].size;
		uintptr_t end = size && size < hi - p ? p + size : hi;	/* a struct's */

		if (!lies_where(i, &args[i]))
			return false;
		if (memo.group[i] == NONE)
			continue;	/* in no group: counted in `unknown` */
		struct ws_group *to = &g[memo.group[i]];

		to->min = p < to->min ? p : to->min;
		to->end = end > to->end ? end : to->end;
	}
	*ngroups = memo.ngroups;
	*unknown = memo.unknown;
	return true;
}

bool site_memo_sizes(uint64_t version, uintptr_t ret, uintptr_t frame,
		     const struct sibyl_rt_ws_arg *args, unsigned n, struct sibyl_rt_ws_sizes *out)
{
	struct ws_group g[MEMO_ARGS];
	uintptr_t starts[3] = { 0, 0, 0 };	/* output, input, none */
	unsigned ng;
	uint32_t unknown;

	if (!memo.simple || !same_site(version, ret, frame, n)) {
		if (!site_memo_groups(version, ret, frame, args, n, g, &ng, &unknown))
			return false;
		ws_sizes_of(g, ng, unknown, out);
		return true;
	}
	/* One pointer per group, each standing for [p, end of its region):
	 * the sizes are the ends' sums less the pointers'. */
	for (unsigned i = 0; i < n; i++) {
		if (!lies_where(i, &args[i]))
			return false;
		starts[memo.sum[i]] += (uintptr_t)args[i].p;
	}
	*out = (struct sibyl_rt_ws_sizes){ .in_bytes = memo.ends[1] - starts[1],
					    .out_bytes = memo.ends[0] - starts[0],
					    .regions = memo.ngroups, .unknown = memo.unknown };
	return true;
}
