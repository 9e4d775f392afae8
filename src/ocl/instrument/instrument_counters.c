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
 * so only the head of a chain counts.  So does the join of an if or an
 * if-else whose arms are single blocks (clang's `if (c) x++;`): each
 * run of the if's block takes one arm, or the direct edge, into it, so
 * it runs as often as the if's block and counts on that block's counter.
 *
 * Chains of one function whose summed histograms are equal share a
 * counter too: the decoder adds entries times histogram, and the sum of
 * their entries times the one histogram is the same total.  Long
 * runs of `if (a[k]) count++` (a cellular automaton's 360 neighbours)
 * had two counters per `if`, hundreds of private counters per
 * work-item that PoCL kept in memory and updated lane by lane, and ran
 * 4-7 times slower instrumented; their `if` bodies and joins are a
 * handful of histograms, so a handful of counters stay in registers and
 * the conditional adds become selects.  A chain that calls a barrier
 * keeps its own counter: --check tells work-items that stopped at
 * different barriers apart by these counters (barriers.c).
 */
#include "ocl/instrument/cfg.h"
#include "ocl/instrument/instrument_internal.h"

#include "core/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* x lies on a side path of p into j: p is its only predecessor and j
 * its only successor. */
static bool side_block(const struct ocl_cfg *g, size_t x, size_t p, size_t j)
{
	return x != j && x != p && ocl_cfg_npred(g, x) == 1 && g->pred[g->pred_at[x]] == p &&
	       ocl_cfg_nsucc(g, x) == 1 && g->succ[g->succ_at[x]] == j;
}

/* The block j runs exactly as often as (SIZE_MAX: none found): its only
 * predecessor when that ends in an unconditional branch to it, or the
 * block p of an if or if-else whose arms all meet at j: every edge out
 * of p goes to j or to a side block, every edge into j comes from p or
 * a side block, and each run of p takes exactly one of them. */
static size_t same_count(const struct ocl_cfg *g, size_t j)
{
	size_t np = ocl_cfg_npred(g, j), x, p;

	if (np == 0)
		return SIZE_MAX;
	x = g->pred[g->pred_at[j]];
	if (np == 1 && x != j && ocl_cfg_nsucc(g, x) == 1)
		return x;
	p = ocl_cfg_npred(g, x) == 1 && ocl_cfg_nsucc(g, x) == 1 ? g->pred[g->pred_at[x]] : x;
	if (p == j || ocl_cfg_nsucc(g, p) == 0)
		return SIZE_MAX;
	for (size_t e = g->pred_at[j]; e < g->pred_at[j + 1]; e++)
		if (g->pred[e] != p && !side_block(g, g->pred[e], p, j))
			return SIZE_MAX;
	for (size_t e = g->succ_at[p]; e < g->succ_at[p + 1]; e++)
		if (g->succ[e] != j && !side_block(g, g->succ[e], p, j))
			return SIZE_MAX;
	return p;
}

/* same[i]: same_count's block for block i; cyclic[i]: block i lies on
 * a cycle. */
static void graph_facts(const struct ic_blocks *blocks, size_t *same, bool *cyclic)
{
	struct ocl_cfg g;

	ocl_cfg_build(&g, blocks->block, blocks->n);
	for (size_t i = 0; i < blocks->n; i++)
		same[i] = same_count(&g, i);
	ocl_cfg_cyclic(&g, cyclic);
	ocl_cfg_free(&g);
}

/* Block i counts on another block's counter. */
static bool follows(const size_t *same, size_t i)
{
	return same[i] != SIZE_MAX && same[i] != i;
}

/* The counter of block i, following chains to their head (memoised in
 * counter[]; heads are numbered as they are met). */
static size_t counter_of(const struct ic_blocks *blocks, const size_t *pred, size_t *counter,
			 size_t i, size_t *next)
{
	size_t head = i, steps = 0;

	/* A cycle of single-predecessor blocks cannot be entered; the step
	 * bound only keeps a malformed CFG from looping here. */
	while (counter[head] == SIZE_MAX && follows(pred, head) && steps++ < blocks->n)
		head = pred[head];
	if (counter[head] == SIZE_MAX)
		counter[head] = (*next)++;
	for (size_t b = i; counter[b] == SIZE_MAX; b = pred[b])
		counter[b] = counter[head];
	return counter[i];
}

/* A counter to merge: its function, whether its blocks are on a cycle
 * (narrow ones stay apart from the others), its histogram sorted by
 * slot. */
struct merge_key {
	LLVMValueRef fn;
	bool cyclic;
	const struct ic_hist *hist;
	size_t counter;
};

static int by_slot(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* Sort h's pairs by slot, so that equal histograms compare equal. */
static void sort_hist(struct ic_hist *h)
{
	size_t (*pair)[2] = sibyl_xcalloc(h->n + 1, sizeof(*pair));

	for (size_t i = 0; i < h->n; i++)
		pair[i][0] = h->slot[i], pair[i][1] = (size_t)h->add[i];
	qsort(pair, h->n, sizeof(*pair), by_slot);
	for (size_t i = 0; i < h->n; i++)
		h->slot[i] = pair[i][0], h->add[i] = pair[i][1];
	free(pair);
}

static int hist_cmp(const struct ic_hist *x, const struct ic_hist *y)
{
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	for (size_t i = 0; i < x->n; i++) {
		if (x->slot[i] != y->slot[i])
			return x->slot[i] < y->slot[i] ? -1 : 1;
		if (x->add[i] != y->add[i])
			return x->add[i] < y->add[i] ? -1 : 1;
	}
	return 0;
}

static int key_cmp(const void *a, const void *b)
{
	const struct merge_key *x = a, *y = b;
	int h;

	if (x->fn != y->fn)
		return (uintptr_t)x->fn < (uintptr_t)y->fn ? -1 : 1;
	if (x->cyclic != y->cyclic)
		return x->cyclic ? 1 : -1;
	h = hist_cmp(x->hist, y->hist);
	if (h)
		return h;
	/* the first counter of a group represents it */
	return (x->counter > y->counter) - (x->counter < y->counter);
}

static bool calls_barrier(const struct ic_layout *layout, const struct ic_hist *h)
{
	for (size_t i = 0; i < h->n; i++)
		if (ic_slot_is_barrier(&layout->slots[h->slot[i]]))
			return true;
	return false;
}

/* rep[c]: the first counter of c's function with c's histogram and
 * c's kind (on a cycle or not: a chain is wholly one or the other, its
 * head's only successor being the next block). */
static void representatives(const struct ic_blocks *blocks, const struct ic_layout *layout,
			    const bool *cyclic, size_t n, size_t *rep)
{
	struct merge_key *key = sibyl_xcalloc(n + 1, sizeof(*key));

	for (size_t c = 0; c < n; c++)
		key[c] = (struct merge_key){ NULL, false, &layout->counter_hist[c], c };
	for (size_t i = 0; i < blocks->n; i++) {	/* a counter's blocks share a function */
		key[blocks->counter[i]].fn = LLVMGetBasicBlockParent(blocks->block[i]);
		key[blocks->counter[i]].cyclic |= cyclic[i];
	}
	qsort(key, n, sizeof(*key), key_cmp);
	for (size_t k = 0; k < n; k++) {
		bool same = k && key[k].fn == key[k - 1].fn && key[k].cyclic == key[k - 1].cyclic &&
			    !calls_barrier(layout, key[k].hist) &&
			    !hist_cmp(key[k].hist, key[k - 1].hist);
		rep[key[k].counter] = same ? rep[key[k - 1].counter] : key[k].counter;
	}
	free(key);
}

/* Merge the counters whose histograms are equal (see the top), keeping
 * the numbering in order of first use, so each function's counters stay
 * contiguous (instrument_rewrite.c). */
static void merge_equal(struct ic_blocks *blocks, struct ic_layout *layout, const bool *cyclic)
{
	size_t n = layout->ncounters, next = 0;
	size_t *rep = sibyl_xcalloc(n + 1, sizeof(*rep)), *id = sibyl_xcalloc(n + 1, sizeof(*id));

	for (size_t c = 0; c < n; c++)
		sort_hist(&layout->counter_hist[c]);
	representatives(blocks, layout, cyclic, n, rep);
	for (size_t c = 0; c < n; c++) {
		if (rep[c] == c) {
			struct ic_hist h = layout->counter_hist[c];

			layout->counter_hist[c] = (struct ic_hist){ 0 };
			id[c] = next;
			layout->counter_hist[next++] = h;
		} else {
			id[c] = id[rep[c]];
			ic_hist_free(&layout->counter_hist[c]);
		}
	}
	blocks->narrow = sibyl_xmalloc((next ? next : 1) * sizeof(*blocks->narrow));
	for (size_t c = 0; c < next; c++)
		blocks->narrow[c] = true;
	for (size_t i = 0; i < blocks->n; i++) {
		blocks->counter[i] = id[blocks->counter[i]];
		if (cyclic[i])
			blocks->narrow[blocks->counter[i]] = false;
	}
	layout->ncounters = next;
	free(rep);
	free(id);
}

void ic_assign_counters(struct ic_blocks *blocks, struct ic_layout *layout)
{
	size_t n = blocks->n ? blocks->n : 1, next = 0;
	size_t *pred = sibyl_xmalloc(n * sizeof(*pred));
	size_t *counter = blocks->counter = sibyl_xmalloc(n * sizeof(*counter));
	bool *head = blocks->head = sibyl_xmalloc(n * sizeof(*head));
	bool *cyclic = sibyl_xcalloc(n, sizeof(*cyclic));

	graph_facts(blocks, pred, cyclic);
	for (size_t i = 0; i < blocks->n; i++)
		counter[i] = SIZE_MAX;
	for (size_t i = 0; i < blocks->n; i++)
		counter_of(blocks, pred, counter, i, &next);
	layout->ncounters = next;
	layout->counter_hist = sibyl_xcalloc(next ? next : 1, sizeof(*layout->counter_hist));
	for (size_t i = 0; i < blocks->n; i++) {
		head[i] = !follows(pred, i);
		for (size_t k = 0; k < blocks->hist[i].n; k++)
			ic_hist_add(&layout->counter_hist[counter[i]], blocks->hist[i].slot[k],
				    blocks->hist[i].add[k]);
	}
	free(pred);
	merge_equal(blocks, layout, cyclic);
	free(cyclic);
}
