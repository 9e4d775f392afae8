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

/* Tarjan's strongly connected components, with an explicit stack of
 * (block, next edge) frames so that kernels of thousands of blocks do
 * not recurse as deep. */
struct scc {
	const struct ocl_cfg *g;
	size_t *index, *low, *stack, *frame, *edge;
	bool *on;
	size_t next, sp, fp;
};

static void scc_enter(struct scc *s, size_t b)
{
	s->index[b] = s->low[b] = s->next++;
	s->stack[s->sp++] = b;
	s->on[b] = true;
	s->frame[s->fp] = b;
	s->edge[s->fp++] = s->g->succ_at[b];
}

/* Pop b's component if b is its root; a component of several blocks, or
 * of one with an edge to itself, is a cycle. */
static void scc_close(struct scc *s, size_t b, bool *cyclic)
{
	size_t n = 0, top;

	if (s->low[b] != s->index[b])
		return;
	do {
		top = s->stack[--s->sp];
		s->on[top] = false;
		n++;
	} while (top != b);
	for (size_t k = s->sp; k < s->sp + n; k++)
		cyclic[s->stack[k]] = n > 1;
	for (size_t e = s->g->succ_at[b]; e < s->g->succ_at[b + 1]; e++)
		if (s->g->succ[e] == b)
			cyclic[b] = true;
}

static void scc_walk(struct scc *s, size_t root, bool *cyclic)
{
	scc_enter(s, root);
	while (s->fp) {
		size_t b = s->frame[s->fp - 1];

		if (s->edge[s->fp - 1] < s->g->succ_at[b + 1]) {
			size_t y = s->g->succ[s->edge[s->fp - 1]++];

			if (s->index[y] == SIZE_MAX)
				scc_enter(s, y);
			else if (s->on[y] && s->index[y] < s->low[b])
				s->low[b] = s->index[y];
			continue;
		}
		scc_close(s, b, cyclic);
		if (--s->fp && s->low[b] < s->low[s->frame[s->fp - 1]])
			s->low[s->frame[s->fp - 1]] = s->low[b];
	}
}

void ocl_cfg_cyclic(const struct ocl_cfg *g, bool *cyclic)
{
	size_t n = g->n + 1;
	struct scc s = { g, sibyl_xmalloc(n * sizeof(size_t)), sibyl_xmalloc(n * sizeof(size_t)),
			 sibyl_xmalloc(n * sizeof(size_t)), sibyl_xmalloc(n * sizeof(size_t)),
			 sibyl_xmalloc(n * sizeof(size_t)), sibyl_xcalloc(n, sizeof(bool)), 0, 0, 0 };

	for (size_t b = 0; b < g->n; b++)
		s.index[b] = SIZE_MAX;
	for (size_t b = 0; b < g->n; b++)
		if (s.index[b] == SIZE_MAX)
			scc_walk(&s, b, cyclic);
	free(s.index);
	free(s.low);
	free(s.stack);
	free(s.frame);
	free(s.edge);
	free(s.on);
}
