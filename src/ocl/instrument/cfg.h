/*
 * A control-flow graph as numbers.  LLVM-C gives a block's successors
 * (its terminator's operands) and nothing else: no predecessors, no
 * numbering, no lookup from a block to its place.  The analyses of the
 * kernel driver and the instrumenter (counters shared along chains,
 * barriers steered by shared memory, source marks solved by flow
 * conservation, loop guards) all need those, so they build this view
 * once per function, or over several functions' blocks at once.
 */
#ifndef SIBYL_OCL_CFG_H
#define SIBYL_OCL_CFG_H

#include <llvm-c/Core.h>
#include <stdbool.h>
#include <stddef.h>

struct ocl_cfg_key;

/* Blocks numbered 0..n-1 in the order given (a function's layout order
 * for ocl_cfg_of_function); one entry per edge in succ and pred, so a
 * conditional branch with both arms to one block counts twice.  Edges to
 * blocks outside the set are left out. */
struct ocl_cfg {
	LLVMBasicBlockRef *block;
	size_t n;
	size_t *succ, *succ_at;	/* b's successors: succ[succ_at[b] .. succ_at[b + 1]) */
	size_t *pred, *pred_at;	/* b's predecessors: pred[pred_at[b] .. pred_at[b + 1]) */
	struct ocl_cfg_key *sorted;	/* for ocl_cfg_index */
};

/* The graph of blocks[0..n) (copied). */
void ocl_cfg_build(struct ocl_cfg *g, LLVMBasicBlockRef const *blocks, size_t n);
/* The graph of function f's blocks. */
void ocl_cfg_of_function(struct ocl_cfg *g, LLVMValueRef f);
void ocl_cfg_free(struct ocl_cfg *g);

/* cyclic[b] (n entries): whether block b lies on a cycle, i.e. can run
 * more than once per call of its function. */
void ocl_cfg_cyclic(const struct ocl_cfg *g, bool *cyclic);

/* b's number, SIZE_MAX when b is not in the graph. */
size_t ocl_cfg_index(const struct ocl_cfg *g, LLVMBasicBlockRef b);

static inline size_t ocl_cfg_nsucc(const struct ocl_cfg *g, size_t b)
{
	return g->succ_at[b + 1] - g->succ_at[b];
}

static inline size_t ocl_cfg_npred(const struct ocl_cfg *g, size_t b)
{
	return g->pred_at[b + 1] - g->pred_at[b];
}

#endif
