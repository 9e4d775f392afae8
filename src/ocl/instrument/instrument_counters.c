/*
 * Which counter each block increments.  Counting every opcode slot of a
 * block on entry cost one private add per slot (five to twenty per
 * block); a kernel with a barrier inside a loop keeps those counters in
 * PoCL's per-work-item context arrays, in memory, and ran 9-27 times
 * slower instrumented.  So a block increments one counter, its own, and
 * the decoder multiplies each counter by the histogram of its blocks.
 *
 * Blocks that always run together share a counter: a block whose only
 * predecessor ends in an unconditional branch to it runs exactly as
 * often as that predecessor (clang's -O0 code is full of such chains),
 * so only the head of a chain counts.
 */
#include "ocl/instrument/cfg.h"
#include "ocl/instrument/instrument_internal.h"

#include "core/alloc.h"

#include <stdint.h>
#include <stdlib.h>

/* pred[i]: block i's only predecessor if it has exactly one, SIZE_MAX
 * otherwise (none, several, or one that reaches it twice). */
static void single_predecessors(const struct ic_blocks *blocks, size_t *pred)
{
	struct ocl_cfg g;

	ocl_cfg_build(&g, blocks->block, blocks->n);
	for (size_t i = 0; i < blocks->n; i++)
		pred[i] = ocl_cfg_npred(&g, i) == 1 ? g.pred[g.pred_at[i]] : SIZE_MAX;
	ocl_cfg_free(&g);
}

/* Block i runs exactly as often as its predecessor p. */
static bool follows(const struct ic_blocks *blocks, const size_t *pred, size_t i)
{
	size_t p = pred[i];

	if (p == SIZE_MAX || p == i)
		return false;
	LLVMValueRef term = LLVMGetBasicBlockTerminator(blocks->block[p]);

	return LLVMGetInstructionOpcode(term) == LLVMBr && LLVMGetNumSuccessors(term) == 1;
}

/* The counter of block i, following chains to their head (memoised in
 * counter[]; heads are numbered as they are met). */
static size_t counter_of(const struct ic_blocks *blocks, const size_t *pred, size_t *counter,
			 size_t i, size_t *next)
{
	size_t head = i, steps = 0;

	/* A cycle of single-predecessor blocks cannot be entered; the step
	 * bound only keeps a malformed CFG from looping here. */
	while (counter[head] == SIZE_MAX && follows(blocks, pred, head) && steps++ < blocks->n)
		head = pred[head];
	if (counter[head] == SIZE_MAX)
		counter[head] = (*next)++;
	for (size_t b = i; counter[b] == SIZE_MAX; b = pred[b])
		counter[b] = counter[head];
	return counter[i];
}

void ic_assign_counters(struct ic_blocks *blocks, struct ic_layout *layout)
{
	size_t n = blocks->n ? blocks->n : 1, next = 0;
	size_t *pred = sibyl_xmalloc(n * sizeof(*pred));
	size_t *counter = blocks->counter = sibyl_xmalloc(n * sizeof(*counter));
	bool *head = blocks->head = sibyl_xmalloc(n * sizeof(*head));

	single_predecessors(blocks, pred);
	for (size_t i = 0; i < blocks->n; i++)
		counter[i] = SIZE_MAX;
	for (size_t i = 0; i < blocks->n; i++)
		counter_of(blocks, pred, counter, i, &next);
	layout->ncounters = next;
	layout->counter_hist = sibyl_xcalloc(next ? next : 1, sizeof(*layout->counter_hist));
	for (size_t i = 0; i < blocks->n; i++) {
		head[i] = !follows(blocks, pred, i);
		for (size_t k = 0; k < blocks->hist[i].n; k++)
			ic_hist_add(&layout->counter_hist[counter[i]], blocks->hist[i].slot[k],
				    blocks->hist[i].add[k]);
	}
	free(pred);
}
