/*
 * --check: whether the barrier probe can be trusted on a kernel.  The
 * probe strips the barriers and lets each work-item run alone, so a
 * work-item never sees what the others of its group store between two
 * barriers.  Where the branches that decide how often a barrier is
 * reached read __local or __global memory (a flag work-item 0 sets,
 * a reduction's result: Rodinia leukocyte's IMGVF_kernel), work-items
 * run alone take other ways than they would together, and the probe's
 * divergence is its own.  This finds such a branch, from the IR: one a
 * barrier block is control dependent on (postdominators), directly or
 * through branches it decides.
 *
 * Taint is followed within a function, through private variables
 * (clang -O0 keeps them in allocas), stores and merges in what a
 * tainted branch decides, not into callees' parameters.
 */
#include "ocl/instrument/cfg.h"
#include "ocl/instrument/instrument_internal.h"

#include "core/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A set of LLVM values (or blocks), open addressing: pointer -> index+1. */
struct vset {
	const void **key;
	size_t *val, cap, n;
};

static size_t slot_of(const struct vset *s, const void *k)
{
	size_t h = ((uintptr_t)k >> 4) * 0x9E3779B97F4A7C15u;

	for (h &= s->cap - 1; s->key[h] && s->key[h] != k; h = (h + 1) & (s->cap - 1))
		;
	return h;
}

static size_t vset_get(const struct vset *s, const void *k)
{
	return s->cap ? s->val[slot_of(s, k)] : 0;
}

/* Returns whether k is new. */
static bool vset_put(struct vset *s, const void *k, size_t v)
{
	if (2 * (s->n + 1) > s->cap) {
		struct vset old = *s;

		s->cap = s->cap ? 2 * s->cap : 256;
		s->key = sibyl_xcalloc(s->cap, sizeof(*s->key));
		s->val = sibyl_xcalloc(s->cap, sizeof(*s->val));
		s->n = 0;
		for (size_t i = 0; i < old.cap; i++)
			if (old.key[i])
				vset_put(s, old.key[i], old.val[i]);
		free(old.key);
		free(old.val);
	}
	size_t h = slot_of(s, k);

	if (s->key[h])
		return false;
	s->key[h] = k, s->val[h] = v, s->n++;
	return true;
}

static void vset_free(struct vset *s)
{
	free(s->key);
	free(s->val);
	*s = (struct vset){ 0 };
}

static bool barrier_callee(LLVMValueRef callee)
{
	size_t len;
	const char *name = LLVMGetValueName2(callee, &len);

	return !strncmp(name, "_Z7barrier", 10) || !strncmp(name, "_Z18work_group_barrier", 22);
}

/* __global, __local or generic memory: what other work-items write. */
static bool shared_pointer(LLVMValueRef p)
{
	LLVMTypeRef t = LLVMTypeOf(p);
	unsigned as;

	if (LLVMGetTypeKind(t) != LLVMPointerTypeKind)
		return false;
	as = LLVMGetPointerAddressSpace(t);
	return as == 1 || as == 3 || as == 4;
}

/* The private variable a pointer points into (its alloca), or NULL. */
static LLVMValueRef private_base(LLVMValueRef p)
{
	while (LLVMIsAGetElementPtrInst(p) || LLVMIsABitCastInst(p) || LLVMIsAAddrSpaceCastInst(p))
		p = LLVMGetOperand(p, 0);
	return LLVMIsAAllocaInst(p) ? p : NULL;
}

/* Whether instruction i reads shared memory, or any operand is tainted. */
static bool tainted_by(const struct vset *taint, LLVMValueRef i)
{
	int n = LLVMGetNumOperands(i);
	bool call = LLVMIsACallInst(i);

	if (LLVMIsAAtomicRMWInst(i) || LLVMIsAAtomicCmpXchgInst(i))
		return true;
	if (LLVMIsALoadInst(i) && shared_pointer(LLVMGetOperand(i, 0)))
		return true;
	for (int k = 0; k < n; k++) {
		LLVMValueRef o = LLVMGetOperand(i, k);

		if (vset_get(taint, o) || (call && shared_pointer(o)))
			return true;
	}
	return false;
}

/* A tainted store or call taints the private variables it writes. */
static bool taint_written(struct vset *taint, LLVMValueRef i)
{
	bool grew = false;
	LLVMValueRef base;

	if (LLVMIsAStoreInst(i)) {
		base = private_base(LLVMGetOperand(i, 1));
		if (base && vset_get(taint, LLVMGetOperand(i, 0)))
			grew |= vset_put(taint, base, 1);
		return grew;
	}
	for (int k = 0; LLVMIsACallInst(i) && k < LLVMGetNumOperands(i); k++)
		if ((base = private_base(LLVMGetOperand(i, k))))
			grew |= vset_put(taint, base, 1);
	return grew;
}

/* The values of f that depend on shared memory, to a fixed point. */
static void taint_function(LLVMValueRef f, struct vset *taint)
{
	for (bool grew = true; grew;) {
		grew = false;
		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
			for (LLVMValueRef i = LLVMGetFirstInstruction(b); i;
			     i = LLVMGetNextInstruction(i)) {
				if (vset_get(taint, i) || !tainted_by(taint, i))
					continue;
				grew |= vset_put(taint, i, 1);
				grew |= taint_written(taint, i);
			}
	}
}

/* One function's blocks (cfg.h), which of them reach a barrier, and
 * who postdominates whom. */
struct cfg {
	struct ocl_cfg c;
	bool *barrier;
	bool *pd;		/* pd[x * n + y]: every way from y out of the function passes x */
};

static bool calls_barrier(LLVMBasicBlockRef b, const struct vset *with_barriers)
{
	for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
		LLVMValueRef callee = LLVMIsACallInst(i) ? LLVMGetCalledValue(i) : NULL;

		if (callee && LLVMIsAFunction(callee) &&
		    (barrier_callee(callee) || vset_get(with_barriers, callee)))
			return true;
	}
	return false;
}

static size_t nsucc(const struct cfg *g, size_t b)
{
	return ocl_cfg_nsucc(&g->c, b);
}

static size_t succ(const struct cfg *g, size_t b, size_t s)
{
	return g->c.succ[g->c.succ_at[b] + s];
}

/* For each x, the blocks that reach no exit of the function once x is
 * taken away: a search backwards from the exits. */
static void postdominators(struct cfg *g)
{
	const struct ocl_cfg *c = &g->c;
	size_t n = c->n, *stack = sibyl_xcalloc(n + 1, sizeof(*stack)), top;
	bool *reached = sibyl_xcalloc(n + 1, sizeof(*reached));

	g->pd = sibyl_xcalloc(n * n + 1, sizeof(*g->pd));
	for (size_t x = 0; x < n; x++) {
		memset(reached, 0, n * sizeof(*reached));
		top = 0;
		for (size_t y = 0; y < n; y++)
			if (y != x && !nsucc(g, y))
				reached[y] = true, stack[top++] = y;
		while (top) {
			size_t y = stack[--top];

			for (size_t p = c->pred_at[y]; p < c->pred_at[y + 1]; p++)
				if (c->pred[p] != x && !reached[c->pred[p]])
					reached[c->pred[p]] = true, stack[top++] = c->pred[p];
		}
		for (size_t y = 0; y < n; y++)
			g->pd[x * n + y] = !reached[y];
	}
	free(stack);
	free(reached);
}

static void cfg_build(LLVMValueRef f, const struct vset *with_barriers, struct cfg *g)
{
	ocl_cfg_of_function(&g->c, f);
	g->barrier = sibyl_xcalloc(g->c.n + 1, sizeof(*g->barrier));
	for (size_t k = 0; k < g->c.n; k++)
		g->barrier[k] = calls_barrier(g->c.block[k], with_barriers);
	postdominators(g);
}

static void cfg_free(struct cfg *g)
{
	ocl_cfg_free(&g->c);
	free(g->barrier);
	free(g->pd);
}

/* Whether block b's branch decides whether x runs (x is control
 * dependent on b): x postdominates one of b's successors, not b. */
static bool controls(const struct cfg *g, size_t b, size_t x)
{
	if (x != b && g->pd[x * g->c.n + b])
		return false;
	for (unsigned s = 0; s < nsucc(g, b); s++)
		if (succ(g, b, s) == x || g->pd[x * g->c.n + succ(g, b, s)])
			return true;
	return false;
}

/* The condition of b's branch or switch, if b has one that depends on
 * shared memory. */
static LLVMValueRef tainted_branch(LLVMBasicBlockRef b, const struct vset *taint)
{
	LLVMValueRef t = LLVMGetBasicBlockTerminator(b);

	if (!t || LLVMGetNumSuccessors(t) < 2 || !(LLVMIsABranchInst(t) || LLVMIsASwitchInst(t)))
		return NULL;
	LLVMValueRef c = LLVMIsABranchInst(t) ? LLVMGetCondition(t) : LLVMGetOperand(t, 0);

	return vset_get(taint, c) ? t : NULL;
}

/* why[x] = t for the blocks whether and how often they run b's branch t
 * decides, directly or through branches in such blocks. */
static void mark(const struct cfg *g, size_t b, LLVMValueRef t, LLVMValueRef *why)
{
	for (size_t x = 0; x < g->c.n; x++)
		if (!why[x] && controls(g, b, x)) {
			why[x] = t;
			if (nsucc(g, x) > 1)
				mark(g, x, t, why);
		}
}

/* What the branches on shared memory decide taints too: private
 * variables stored in the blocks they decide, values merged after them
 * (phi).  Returns whether the taint grew. */
static bool implicit(const struct cfg *g, LLVMValueRef *why, struct vset *taint)
{
	bool grew = false;

	for (size_t x = 0; x < g->c.n; x++)
		for (LLVMValueRef i = LLVMGetFirstInstruction(g->c.block[x]); i;
		     i = LLVMGetNextInstruction(i)) {
			LLVMValueRef base = LLVMIsAStoreInst(i) && why[x] ?
					    private_base(LLVMGetOperand(i, 1)) : NULL;

			if (base)
				grew |= vset_put(taint, base, 1);
			for (unsigned k = 0; LLVMIsAPHINode(i) && k < LLVMCountIncoming(i); k++) {
				LLVMBasicBlockRef from = LLVMGetIncomingBlock(i, k);
				size_t y = ocl_cfg_index(&g->c, from);

				if (why[y] || tainted_branch(from, taint))
					grew |= vset_put(taint, i, 1);
			}
		}
	return grew;
}

/* f's branch on shared memory that decides whether or how often a
 * barrier runs: its source line (1 without debug information), or 0. */
static unsigned function_branch(LLVMValueRef f, const struct vset *with_barriers)
{
	struct vset taint = { 0 };
	struct cfg g;
	unsigned line = 0;
	bool grew = true;

	cfg_build(f, with_barriers, &g);
	LLVMValueRef *why = sibyl_xcalloc(g.c.n + 1, sizeof(*why));

	while (grew) {
		taint_function(f, &taint);
		memset(why, 0, g.c.n * sizeof(*why));
		for (size_t b = 0; b < g.c.n; b++) {
			LLVMValueRef t = tainted_branch(g.c.block[b], &taint);

			if (t)
				mark(&g, b, t, why);
		}
		grew = implicit(&g, why, &taint);
	}
	for (size_t k = 0; k < g.c.n && !line; k++)
		if (g.barrier[k] && why[k])
			line = LLVMGetDebugLocLine(why[k]) ? LLVMGetDebugLocLine(why[k]) : 1;
	free(why);
	vset_free(&taint);
	cfg_free(&g);
	return line;
}

int sibyl_barrier_data_branch(const void *bc, size_t size, const char *kernel, unsigned *line,
			      char *err, size_t errlen)
{
	struct ic_module m;
	struct vset with_barriers = { 0 };
	LLVMValueRef *fns = NULL;
	int nf;

	*line = 0;
	if (ic_module_open(&m, bc, size, kernel, err, errlen))
		return -1;
	nf = ic_reachable(&m, &fns);
	for (bool grew = true; grew;) {	/* the functions that reach a barrier */
		grew = false;
		for (int f = 0; f < nf; f++)
			for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fns[f]); b;
			     b = LLVMGetNextBasicBlock(b))
				if (calls_barrier(b, &with_barriers))
					grew |= vset_put(&with_barriers, fns[f], 1);
	}
	for (int f = 0; f < nf && !*line; f++)
		if (vset_get(&with_barriers, fns[f]))
			*line = function_branch(fns[f], &with_barriers);
	vset_free(&with_barriers);
	free(fns);
	ic_module_close(&m);
	return nf < 0 ? -1 : *line > 0;
}
