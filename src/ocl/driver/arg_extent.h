/*
 * How far a kernel's buffer accesses reach, read from its IR (LLVM 14,
 * after mem2reg, sibyl's side only): each index is bounded by interval
 * arithmetic from what is known before the run: the work-item
 * functions (get_global_id(0) < G, get_local_id(0) < L, ...), constants,
 * the scalars whose values are decided (fixed or inferred), loops whose
 * trip count those give (`for (i = 0; i < 256; i++)`, and what they
 * accumulate: `off += cols`), and the comparisons that guard the access
 * (`if (gid < n)`, a loop's own condition).  Rodinia's lud reads
 * `m[off + i * matrix_dim + tx]` for 256 rows whatever the buffers: the
 * buffer must hold that many, however long the others are.  An index
 * that depends on memory or on a random scalar is not bounded.
 * A scalar that a bounded non-negative value is subtracted from (nw's
 * `blk - 1 - bx`, bx a work-group id) is first raised, where allowed,
 * so that the difference is never negative: no buffer length helps an
 * index below 0.
 */
#ifndef SIBYL_OCL_ARG_EXTENT_H
#define SIBYL_OCL_ARG_EXTENT_H

#include "ocl/driver/kernel_info.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sibyl_extent_cfg {
	uint64_t g[3];		/* the global size per dimension (1 beyond the range's) */
	uint64_t l[3];		/* the local size; l[0] == 0: the runtime's, unknown */
	const bool *known;	/* per argument: a scalar whose value is decided */
	const int64_t *value;	/* ... and that value */
	const bool *raisable;	/* per argument: a decided scalar that may be raised */
};

/* out[k->nargs]: for each __global, __constant or __local buffer of
 * kernel k, one more than the largest element index that its accesses
 * in the kernel's own body reach, over those bounded (0: none is);
 * raised[k->nargs]: a raisable scalar's new value (0: unchanged), which
 * out assumes.  0, or -1 with one line in err (unreadable bitcode, no
 * such kernel). */
int sibyl_arg_extents(const void *bc, size_t size, const struct sibyl_kernel *k,
		      const struct sibyl_extent_cfg *cfg, uint64_t *out, int64_t *raised, char *err,
		      size_t errlen);

#endif
