/*
 * --check: whether the barrier probe can be trusted on a kernel.  The
 * probe strips the barriers and lets each work-item run alone, so a
 * work-item never sees what the others of its group store between two
 * barriers.  Where the branches that decide how often a barrier is
 * reached read __local or __global memory (a flag work-item 0 sets,
 * a reduction's result: Rodinia leukocyte's IMGVF_kernel), work-items
 * run alone take other ways than they would together, and the probe's
 * divergence is its own.  This finds such a branch, from the IR.
 *
 * Data flow is followed within a function, through private variables
 * (clang -O0 keeps them in allocas), not into callees' parameters.
 */
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

/* One function's blocks, numbered, and which of them reach a barrier. */
struct cfg {
	LLVMBasicBlockRef *block;
	bool *barrier;
	size_t n;
	struct vset index;	/* block -> its number + 1 */
	bool *seen;		/* the search's */
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

static void cfg_build(LLVMValueRef f, const struct vset *with_barriers, struct cfg *g)
{
	*g = (struct cfg){ 0 };
	g->n = LLVMCountBasicBlocks(f);
	g->block = sibyl_xcalloc(g->n + 1, sizeof(*g->block));
	g->barrier = sibyl_xcalloc(g->n + 1, sizeof(*g->barrier));
	g->seen = sibyl_xcalloc(g->n + 1, sizeof(*g->seen));
	LLVMGetBasicBlocks(f, g->block);
	for (size_t k = 0; k < g->n; k++) {
		vset_put(&g->index, g->block[k], k + 1);
		g->barrier[k] = calls_barrier(g->block[k], with_barriers);
	}
}

static void cfg_free(struct cfg *g)
{
	free(g->block);
	free(g->barrier);
	free(g->seen);
	vset_free(&g->index);
}

/* Depth first from block `from` (not `avoid`): reaches `target`, or
 * with target == n a block that leaves the function. */
static bool reaches(struct cfg *g, size_t from, size_t avoid, size_t target)
{
	LLVMValueRef term = LLVMGetBasicBlockTerminator(g->block[from]);
	unsigned ns = term ? LLVMGetNumSuccessors(term) : 0;

	if (from == avoid || g->seen[from])
		return false;
	g->seen[from] = true;
	if (from == target || (target == g->n && !ns))
		return true;
	for (unsigned s = 0; s < ns; s++)
		if (reaches(g, vset_get(&g->index, LLVMGetSuccessor(term, s)) - 1, avoid, target))
			return true;
	return false;
}

static bool search(struct cfg *g, size_t from, size_t avoid, size_t target)
{
	memset(g->seen, 0, g->n * sizeof(*g->seen));
	return reaches(g, from, avoid, target);
}

/* Whether branch block b decides how often barrier block k runs: one
 * of its ways leads to k, another out of the function without k. */
static bool decides(struct cfg *g, size_t b, size_t k)
{
	LLVMValueRef term = LLVMGetBasicBlockTerminator(g->block[b]);
	bool to_k = false, around = false;

	for (unsigned s = 0; s < LLVMGetNumSuccessors(term); s++) {
		size_t to = vset_get(&g->index, LLVMGetSuccessor(term, s)) - 1;

		to_k |= search(g, to, g->n, k);
		around |= search(g, to, k, g->n);
	}
	return to_k && around;
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

/* f's first branch on shared memory that decides a barrier's count: its
 * source line (1 without debug information), or 0. */
static unsigned function_branch(LLVMValueRef f, const struct vset *with_barriers)
{
	struct vset taint = { 0 };
	struct cfg g;
	unsigned line = 0;

	cfg_build(f, with_barriers, &g);
	taint_function(f, &taint);
	for (size_t b = 0; b < g.n && !line; b++) {
		LLVMValueRef t = tainted_branch(g.block[b], &taint);

		for (size_t k = 0; t && k < g.n && !line; k++)
			if (g.barrier[k] && decides(&g, b, k))
				line = LLVMGetDebugLocLine(t) ? LLVMGetDebugLocLine(t) : 1;
	}
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
