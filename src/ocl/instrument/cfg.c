/* A control-flow graph as numbers (cfg.h): blocks sorted by address for
 * lookup, edges in compressed rows both ways. */
#include "ocl/instrument/cfg.h"

#include "core/alloc.h"

#include <stdint.h>
#include <stdlib.h>

struct ocl_cfg_key {
	LLVMBasicBlockRef block;
	size_t i;
};

static int by_address(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct ocl_cfg_key *)a)->block;
	uintptr_t y = (uintptr_t)((const struct ocl_cfg_key *)b)->block;

	return (x > y) - (x < y);
}

size_t ocl_cfg_index(const struct ocl_cfg *g, LLVMBasicBlockRef b)
{
	struct ocl_cfg_key key = { b, 0 };
	const struct ocl_cfg_key *hit = bsearch(&key, g->sorted, g->n, sizeof(key), by_address);

	return hit ? hit->i : SIZE_MAX;
}

/* Successors in the set, in the terminator's order. */
static void successors(struct ocl_cfg *g)
{
	size_t m = 0, cap = g->n + 1;

	g->succ = sibyl_xcalloc(cap, sizeof(*g->succ));
	g->succ_at = sibyl_xcalloc(g->n + 2, sizeof(*g->succ_at));
	for (size_t b = 0; b < g->n; b++) {
		LLVMValueRef t = LLVMGetBasicBlockTerminator(g->block[b]);
		unsigned ns = t ? LLVMGetNumSuccessors(t) : 0;

		for (unsigned s = 0; s < ns; s++) {
			size_t y = ocl_cfg_index(g, LLVMGetSuccessor(t, s));

			if (y == SIZE_MAX)
				continue;
			if (m == cap)
				g->succ = sibyl_xreallocarray(g->succ, cap *= 2, sizeof(*g->succ));
			g->succ[m++] = y;
		}
		g->succ_at[b + 1] = m;
	}
}

/* The same edges, by their target. */
static void predecessors(struct ocl_cfg *g)
{
	size_t *fill = sibyl_xcalloc(g->n + 1, sizeof(*fill));

	g->pred_at = sibyl_xcalloc(g->n + 2, sizeof(*g->pred_at));
	g->pred = sibyl_xcalloc(g->succ_at[g->n] + 1, sizeof(*g->pred));
	for (size_t e = 0; e < g->succ_at[g->n]; e++)
		g->pred_at[g->succ[e] + 1]++;
	for (size_t b = 0; b < g->n; b++)
		g->pred_at[b + 1] += g->pred_at[b];
	for (size_t b = 0; b < g->n; b++)
		for (size_t e = g->succ_at[b]; e < g->succ_at[b + 1]; e++) {
			size_t y = g->succ[e];

			g->pred[g->pred_at[y] + fill[y]++] = b;
		}
	free(fill);
}

void ocl_cfg_build(struct ocl_cfg *g, LLVMBasicBlockRef const *blocks, size_t n)
{
	*g = (struct ocl_cfg){ .n = n };
	g->block = sibyl_xcalloc(n + 1, sizeof(*g->block));
	g->sorted = sibyl_xcalloc(n + 1, sizeof(*g->sorted));
	for (size_t i = 0; i < n; i++) {
		g->block[i] = blocks[i];
		g->sorted[i] = (struct ocl_cfg_key){ blocks[i], i };
	}
	qsort(g->sorted, n, sizeof(*g->sorted), by_address);
	successors(g);
	predecessors(g);
}

void ocl_cfg_of_function(struct ocl_cfg *g, LLVMValueRef f)
{
	size_t n = LLVMCountBasicBlocks(f);
	LLVMBasicBlockRef *blocks = sibyl_xcalloc(n + 1, sizeof(*blocks));

	LLVMGetBasicBlocks(f, blocks);
	ocl_cfg_build(g, blocks, n);
	free(blocks);
}

void ocl_cfg_free(struct ocl_cfg *g)
{
	free(g->block);
	free(g->sorted);
	free(g->succ);
	free(g->succ_at);
	free(g->pred);
	free(g->pred_at);
	*g = (struct ocl_cfg){ 0 };
}
