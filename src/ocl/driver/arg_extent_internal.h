/*
 * Inside arg_extent.c and arg_loops.c: intervals of integer values at
 * one access, the guards that hold there, and the loops they run in.
 */
#ifndef SIBYL_OCL_ARG_EXTENT_INTERNAL_H
#define SIBYL_OCL_ARG_EXTENT_INTERNAL_H

#include "ocl/driver/arg_extent.h"
#include "ocl/instrument/cfg.h"

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

/* Bounds beyond +-2^62 are infinite: no buffer is that long, and the
 * products of two bounds stay within __int128. */
#define EXT_INF ((int64_t)1 << 62)
#define EXT_MEMO 4096		/* values bounded per block (a power of 2) */
#define EXT_BUDGET 512		/* values evaluated per access */
#define EXT_GUARDS 32
#define EXT_UP 64		/* blocks walked up for guards */

struct iv {
	int64_t lo, hi;		/* lo > hi: never reached */
};

#define IV_ANY ((struct iv){ -EXT_INF, EXT_INF })
#define IV_EMPTY ((struct iv){ 1, 0 })

struct slot {
	LLVMValueRef v;
	struct iv r;
	bool done;
};

struct guard {		/* `x p b` holds at the accesses of the block */
	LLVMValueRef x, b;
	LLVMIntPredicate p;
};

struct ext {
	LLVMValueRef kernel;
	LLVMTargetDataRef td;
	const struct sibyl_kernel *k;
	const struct sibyl_extent_cfg *cfg;
	int64_t *value;		/* the scalars' values, raised ones included */
	struct slot memo[EXT_MEMO];
	size_t used;
	unsigned budget;
	struct guard guard[EXT_GUARDS];
	unsigned nguards;
	struct ocl_cfg blocks;	/* the kernel's, in layout order */
};

/* A comparison `x p b`: x below b (dir -1), above it (1), equal (0),
 * or neither (2: !=); b itself allowed; unsigned. */
struct ext_order {
	int dir;
	bool incl, uns;
};
struct ext_order ext_order(LLVMIntPredicate p);

int64_t iv_plus(int64_t a, int64_t b);
struct iv iv_point(int64_t c);
bool iv_empty(struct iv a);
struct iv iv_join(struct iv a, struct iv b);
struct iv iv_add(struct iv a, struct iv b);
struct iv iv_neg(struct iv a);
struct iv iv_mul(struct iv a, struct iv b);
/* x's bounds where `x p b` holds, b within bounds b. */
struct iv iv_narrow(struct iv x, LLVMIntPredicate p, struct iv b);

/* The bounds of integer v at the current block's accesses. */
struct iv ext_eval(struct ext *e, LLVMValueRef v);

/* The guards that hold in block b into e->guard. */
void ext_guards(struct ext *e, LLVMBasicBlockRef b);
/* r narrowed by the guards on v. */
struct iv ext_guarded(struct ext *e, LLVMValueRef v, struct iv r);
/* A phi: the join of its values, or a loop's variable over its trips. */
struct iv ext_phi(struct ext *e, LLVMValueRef phi);

#endif
