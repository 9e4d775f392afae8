/*
 * The counting code put into the IR:
 *  - every function counts the entries of its own blocks in a private
 *    array of its own, one add per block (instrument_counters.c), zeroed
 *    on entry: nothing else sees it, so the device compiler keeps it in
 *    registers unless a barrier forces it to memory.  Counters of blocks
 *    on no cycle are 32-bit (a call enters them a bounded number of
 *    times) and widened at each `ret`: PoCL runs 8 work-items per AVX2
 *    vector, and a conditional 64-bit add per `if` body there costs a
 *    lane-by-lane mask extraction (RunAutomata's 360 `if (a[k])
 *    count++` ran 4x slower with one ulong counter beside `count`, 1.5x
 *    with a uint);
 *  - the kernel gets a trailing `__global ulong *` argument (the
 *    counters buffer) and a second private array for the functions it
 *    reaches; each of those gets a trailing private `ulong *` to it, adds
 *    its own counters there before each `ret`, and passes it on to the
 *    functions it calls.  A helper is thus counted wherever it is called
 *    from, keeps its loads' and stores' real address spaces, and keeps
 *    its inlining attributes: forcing every helper inline (the first
 *    design, so that one array could stay in registers) made PoCL build
 *    Rodinia's dwt2d 14 times slower than the plain kernel;
 *  - before each `ret` of the kernel, the flushes (instrument_flush.c)
 *    move both arrays to the buffer: one atomic per non-zero counter and
 *    work-item, never one per block.
 */
#include "ocl/instrument/instrument_internal.h"

#include "core/alloc.h"
#include "core/log.h"

#include <llvm-c/DebugInfo.h>
#include <stdlib.h>
#include <string.h>

struct rewrite {
	LLVMModuleRef mod;
	LLVMContextRef ctx;
	LLVMBuilderRef b;
	LLVMTypeRef i64, i32;
	LLVMValueRef *old, *new;	/* old function i -> new function i */
	LLVMValueRef *own;		/* new function i's own counters (i64 *) */
	LLVMValueRef *own32;		/* the narrow ones while it runs (i32 *) */
	const bool *narrow;		/* by counter number (ic_blocks) */
	LLVMValueRef *sink;		/* where it adds them: the helpers' array */
	size_t *base, *count;		/* its counters: [base, base + count) */
	int nf;
	bool per_item;
	size_t ncounters;
};

static LLVMValueRef slot_ptr_of(struct rewrite *r, LLVMTypeRef ty, LLVMValueRef base, size_t slot)
{
	LLVMValueRef idx = LLVMConstInt(r->i64, slot, 0);
	return LLVMBuildInBoundsGEP2(r->b, ty, base, &idx, 1, "");
}

static LLVMValueRef slot_ptr(struct rewrite *r, LLVMValueRef base, size_t slot)
{
	return slot_ptr_of(r, r->i64, base, slot);
}

/* *p += v (of type ty), at the builder's position. */
static void add_into_of(struct rewrite *r, LLVMTypeRef ty, LLVMValueRef p, LLVMValueRef v)
{
	LLVMValueRef was = LLVMBuildLoad2(r->b, ty, p, "");

	LLVMBuildStore(r->b, LLVMBuildAdd(r->b, was, v, ""), p);
}

static void add_into(struct rewrite *r, LLVMValueRef p, LLVMValueRef v)
{
	add_into_of(r, r->i64, p, v);
}

/* Function f's block entered: its counter j (global number c) + 1. */
static void count_entry(struct rewrite *r, int f, LLVMValueRef before, size_t j, size_t c)
{
	LLVMTypeRef ty = r->narrow[c] ? r->i32 : r->i64;

	LLVMPositionBuilderBefore(r->b, before);
	add_into_of(r, ty, slot_ptr_of(r, ty, r->narrow[c] ? r->own32[f] : r->own[f], j),
		    LLVMConstInt(ty, 1, 0));
}

/* Before a ret of function f: its narrow counters into their 64-bit
 * places, which nothing else wrote.  The freeze (a no-op on a defined
 * value) keeps the sum 32-bit: else instcombine widens the zext back
 * through the adds, and the 64-bit chain is again what the vectorizer
 * handles lane by lane (2.3x where the frozen one ran 1.05x). */
static void widen(struct rewrite *r, int f, LLVMValueRef ret)
{
	LLVMPositionBuilderBefore(r->b, ret);
	for (size_t j = 0; j < r->count[f]; j++) {
		if (!r->narrow[r->base[f] + j])
			continue;
		LLVMValueRef v = LLVMBuildLoad2(r->b, r->i32, slot_ptr_of(r, r->i32, r->own32[f], j), "");

		v = LLVMBuildZExt(r->b, LLVMBuildFreeze(r->b, v, ""), r->i64, "");
		LLVMBuildStore(r->b, v, slot_ptr(r, r->own[f], j));
	}
}

static LLVMValueRef first_non_phi(LLVMBasicBlockRef b)
{
	LLVMValueRef i = LLVMGetFirstInstruction(b);
	while (i && LLVMIsAPHINode(i))
		i = LLVMGetNextInstruction(i);
	return i;
}

static int index_of(const struct rewrite *r, LLVMValueRef f)
{
	for (int i = 0; i < r->nf; i++)
		if (r->old[i] == f)
			return i;
	return -1;
}

static void redirect_calls(struct rewrite *r, int f)
{
	for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(r->new[f]); b; b = LLVMGetNextBasicBlock(b))
		for (LLVMValueRef i = LLVMGetFirstInstruction(b), next; i; i = next) {
			next = LLVMGetNextInstruction(i);
			if (LLVMGetInstructionOpcode(i) != LLVMCall)
				continue;
			int callee = index_of(r, LLVMGetCalledValue(i));
			if (callee >= 0)
				ic_redirect_call(r->b, i, r->new[callee], r->sink[f]);
		}
}

/* An array of n counters of type ty zeroed at f's entry; its first element. */
static LLVMValueRef zeroed_array(struct rewrite *r, LLVMValueRef f, LLVMTypeRef ty, size_t n,
				 const char *name)
{
	LLVMTypeRef arrty = LLVMArrayType(ty, (unsigned)(n ? n : 1));
	LLVMValueRef zero = LLVMConstInt(r->i64, 0, 0), idx[2] = { zero, zero };

	LLVMPositionBuilderBefore(r->b, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(f)));
	LLVMValueRef arr = LLVMBuildAlloca(r->b, arrty, name);
	LLVMBuildStore(r->b, LLVMConstNull(arrty), arr);
	return LLVMBuildInBoundsGEP2(r->b, arrty, arr, idx, 2, "");
}

/* Each function's own counters; the kernel's array for the helpers
 * (indexed from the first helper counter, base[1] and up). */
static void setup_arrays(struct rewrite *r)
{
	size_t helpers = r->ncounters - r->count[0];

	for (int f = 0; f < r->nf; f++) {
		r->own[f] = zeroed_array(r, r->new[f], r->i64, r->count[f], "__sibyl_own");
		/* indexed as own[f]; the wide counters' places go unused */
		r->own32[f] = zeroed_array(r, r->new[f], r->i32, r->count[f], "__sibyl_own32");
	}
	r->sink[0] = helpers ? zeroed_array(r, r->new[0], r->i64, helpers, "__sibyl_helpers") : NULL;
	for (int f = 1; f < r->nf; f++)
		r->sink[f] = LLVMGetParam(r->new[f], LLVMCountParams(r->new[f]) - 1);
}

/* Before each ret of helper f: its own counters into the helpers' array. */
static void add_to_sink(struct rewrite *r, int f, LLVMValueRef ret)
{
	LLVMPositionBuilderBefore(r->b, ret);
	for (size_t j = 0; j < r->count[f]; j++) {
		LLVMValueRef v = LLVMBuildLoad2(r->b, r->i64, slot_ptr(r, r->own[f], j), "");

		add_into(r, slot_ptr(r, r->sink[f], r->base[f] - r->count[0] + j), v);
	}
}

/* At each ret: a helper hands its counters on, the kernel flushes both
 * arrays to the buffer, after the ret's block has counted. */
static void at_returns(struct rewrite *r)
{
	LLVMValueRef buf = LLVMGetParam(r->new[0], LLVMCountParams(r->new[0]) - 1);
	LLVMValueRef own = ic_build_flush(r->mod, r->b, "__sibyl_flush", r->count[0], 0,
					  r->ncounters, r->per_item);
	LLVMValueRef helpers = !r->sink[0] ? NULL :
		ic_build_flush(r->mod, r->b, "__sibyl_flush_helpers", r->ncounters - r->count[0],
			       r->count[0], r->ncounters, r->per_item);

	for (int f = 0; f < r->nf; f++)
		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(r->new[f]); b;
		     b = LLVMGetNextBasicBlock(b)) {
			LLVMValueRef term = LLVMGetBasicBlockTerminator(b);

			if (!term || LLVMGetInstructionOpcode(term) != LLVMRet)
				continue;
			widen(r, f, term);
			if (f) {
				add_to_sink(r, f, term);
				continue;
			}
			LLVMValueRef args[2] = { r->own[0], buf };

			LLVMPositionBuilderBefore(r->b, term);
			LLVMSetInstructionCallConv(LLVMBuildCall2(r->b, LLVMGlobalGetValueType(own),
								  own, args, 2, ""),
						   LLVMSPIRFUNCCallConv);
			if (!helpers)
				continue;
			args[0] = r->sink[0];
			LLVMSetInstructionCallConv(LLVMBuildCall2(r->b, LLVMGlobalGetValueType(helpers),
								  helpers, args, 2, ""),
						   LLVMSPIRFUNCCallConv);
		}
}

/* Each new function's range of counters (contiguous: counters are
 * numbered block by block, function by function, and chains never leave
 * a function); fnof[i], the function of block i. */
static void counter_ranges(struct rewrite *r, const struct ic_blocks *blocks, int *fnof)
{
	for (int f = 0; f < r->nf; f++)
		r->base[f] = SIZE_MAX, r->count[f] = 0;
	for (size_t i = 0; i < blocks->n; i++) {
		LLVMValueRef fn = LLVMGetBasicBlockParent(blocks->block[i]);
		int f = 0;

		while (f < r->nf && r->new[f] != fn)
			f++;
		fnof[i] = f;
		if (f == r->nf)
			continue;
		size_t c = blocks->counter[i];

		if (r->base[f] == SIZE_MAX || c < r->base[f]) {
			r->count[f] += r->base[f] == SIZE_MAX ? 1 : r->base[f] - c;
			r->base[f] = c;
		} else if (c >= r->base[f] + r->count[f]) {
			r->count[f] = c - r->base[f] + 1;
		}
	}
	for (int f = 0; f < r->nf; f++)
		if (r->base[f] == SIZE_MAX)
			r->base[f] = 0;
}

static void rewrite_free(struct rewrite *r)
{
	LLVMDisposeBuilder(r->b);
	free(r->new);
	free(r->own);
	free(r->own32);
	free(r->sink);
	free(r->base);
	free(r->count);
}

int ic_rewrite(struct ic_module *m, LLVMValueRef *fns, int nf, const struct ic_layout *layout,
	       const struct ic_blocks *blocks)
{
	struct rewrite r = { .mod = m->mod, .ctx = LLVMGetModuleContext(m->mod), .old = fns,
			     .nf = nf, .per_item = layout->per_item,
			     .ncounters = layout->ncounters };

	if (LLVMGetNamedMetadataNumOperands(m->mod, "opencl.kernels"))
		return sibyl_seterr(m->err, m->errlen, "instrument: SPIR with !opencl.kernels "
				    "metadata is not supported");
	LLVMValueRef *before = sibyl_xcalloc(blocks->n + 1, sizeof(*before));
	int *fnof = sibyl_xcalloc(blocks->n + 1, sizeof(*fnof));

	r.new = sibyl_xcalloc((size_t)nf, sizeof(*r.new));
	r.own = sibyl_xcalloc((size_t)nf, sizeof(*r.own));
	r.own32 = sibyl_xcalloc((size_t)nf, sizeof(*r.own32));
	r.narrow = blocks->narrow;
	r.sink = sibyl_xcalloc((size_t)nf, sizeof(*r.sink));
	r.base = sibyl_xcalloc((size_t)nf, sizeof(*r.base));
	r.count = sibyl_xcalloc((size_t)nf, sizeof(*r.count));
	r.i64 = LLVMInt64TypeInContext(r.ctx);
	r.i32 = LLVMInt32TypeInContext(r.ctx);
	r.b = LLVMCreateBuilderInContext(r.ctx);
	/* where each block's increment goes, fixed before any code is added */
	for (size_t i = 0; i < blocks->n; i++)
		before[i] = first_non_phi(blocks->block[i]);
	for (int f = 0; f < nf; f++)
		r.new[f] = ic_add_param(m->mod, fns[f], LLVMPointerType(r.i64, f == 0 ? 1 : 0), f == 0);
	counter_ranges(&r, blocks, fnof);
	setup_arrays(&r);
	for (size_t i = 0; i < blocks->n; i++)
		if (fnof[i] < nf && before[i] && blocks->head[i])
			count_entry(&r, fnof[i], before[i], blocks->counter[i] - r.base[fnof[i]],
				    blocks->counter[i]);
	/* calls are replaced last: a block may start with one, and its
	 * increment goes in front of it */
	for (int f = 0; f < nf; f++)
		redirect_calls(&r, f);
	at_returns(&r);
	ic_keep_only(m->mod, r.new, nf);
	m->kernel = r.new[0];
	rewrite_free(&r);
	free(before);
	free(fnof);
	return 0;
}
