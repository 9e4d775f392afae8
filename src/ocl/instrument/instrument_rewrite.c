/*
 * The counting code put into the IR:
 *  - the kernel gets a trailing `__global ulong *` argument (the
 *    counters buffer) and an alloca'd array of per-work-item counters,
 *    zeroed on entry;
 *  - every function the kernel reaches gets a trailing private `ulong *`
 *    through which it counts into its caller's array, so a helper called
 *    from several places (or kernels) needs no copy per caller and its
 *    loads and stores keep their real address spaces;
 *  - every block counts its entries, one private add in the counter of
 *    its chain (instrument_counters.c), which the device compiler keeps
 *    in a register once it inlines the helpers unless a barrier forces
 *    it to memory;
 *  - before each `ret` of the kernel, one flush (instrument_flush.c)
 *    moves the counters to the buffer: one atomic per non-zero counter
 *    and work-item, never one per block.
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
	LLVMTypeRef i64;
	LLVMValueRef *old, *new;	/* old function i -> new function i */
	LLVMValueRef *ctr;		/* the counters pointer inside new function i */
	int nf;
	bool per_item;
};

static LLVMValueRef slot_ptr(struct rewrite *r, LLVMValueRef base, size_t slot)
{
	LLVMValueRef idx = LLVMConstInt(r->i64, slot, 0);
	return LLVMBuildInBoundsGEP2(r->b, r->i64, base, &idx, 1, "");
}

static void count_entry(struct rewrite *r, LLVMValueRef base, LLVMValueRef before, size_t counter)
{
	LLVMPositionBuilderBefore(r->b, before);
	LLVMValueRef p = slot_ptr(r, base, counter);
	LLVMValueRef v = LLVMBuildLoad2(r->b, r->i64, p, "");
	LLVMBuildStore(r->b, LLVMBuildAdd(r->b, v, LLVMConstInt(r->i64, 1, 0), ""), p);
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

static void copy_call_attributes(LLVMValueRef from, LLVMValueRef to, unsigned nargs)
{
	for (unsigned k = 0; k <= nargs + 1; k++) {
		LLVMAttributeIndex at = k == 0 ? (LLVMAttributeIndex)LLVMAttributeFunctionIndex : k - 1;
		unsigned n = LLVMGetCallSiteAttributeCount(from, at);
		LLVMAttributeRef attrs[64];
		if (!n || n > 64)
			continue;
		LLVMGetCallSiteAttributes(from, at, attrs);
		for (unsigned i = 0; i < n; i++)
			LLVMAddCallSiteAttribute(to, at, attrs[i]);
	}
}

/* Replace a call of old function `callee` by one of its new version,
 * passing the counters pointer `ctr` along. */
static void redirect_call(struct rewrite *r, LLVMValueRef call, int callee, LLVMValueRef ctr)
{
	unsigned n = LLVMGetNumArgOperands(call);
	LLVMValueRef *args = sibyl_xcalloc(n + 1, sizeof(*args));
	size_t len;

	for (unsigned i = 0; i < n; i++)
		args[i] = LLVMGetOperand(call, i);
	args[n] = ctr;
	LLVMPositionBuilderBefore(r->b, call);
	LLVMSetCurrentDebugLocation2(r->b, LLVMInstructionGetDebugLoc(call));
	const char *name = LLVMGetValueName2(call, &len);
	LLVMValueRef nc = LLVMBuildCall2(r->b, LLVMGlobalGetValueType(r->new[callee]),
					 r->new[callee], args, n + 1, "");
	LLVMSetCurrentDebugLocation2(r->b, NULL);
	LLVMSetValueName2(nc, name, len);
	LLVMSetInstructionCallConv(nc, LLVMGetInstructionCallConv(call));
	LLVMSetTailCall(nc, LLVMIsTailCall(call));
	copy_call_attributes(call, nc, n);
	LLVMReplaceAllUsesWith(call, nc);
	LLVMInstructionEraseFromParent(call);
	free(args);
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
				redirect_call(r, i, callee, r->ctr[f]);
		}
}

/* The kernel's counters: an array zeroed on entry. */
static void setup_kernel(struct rewrite *r, size_t nslots)
{
	LLVMTypeRef arrty = LLVMArrayType(r->i64, (unsigned)(nslots ? nslots : 1));
	LLVMValueRef zero = LLVMConstInt(r->i64, 0, 0), idx[2] = { zero, zero };

	LLVMPositionBuilderBefore(r->b, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(r->new[0])));
	LLVMValueRef arr = LLVMBuildAlloca(r->b, arrty, "__sibyl_ctr");
	LLVMBuildStore(r->b, LLVMConstNull(arrty), arr);
	r->ctr[0] = LLVMBuildInBoundsGEP2(r->b, arrty, arr, idx, 2, "");
}

/* Flush right before each ret, after the ret's block has counted. */
static void flush_at_returns(struct rewrite *r, size_t nslots)
{
	LLVMValueRef k = r->new[0];
	LLVMValueRef flush = ic_build_flush(r->mod, r->b, nslots, r->per_item);

	for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(k); b; b = LLVMGetNextBasicBlock(b)) {
		LLVMValueRef term = LLVMGetBasicBlockTerminator(b);
		if (!term || LLVMGetInstructionOpcode(term) != LLVMRet)
			continue;
		LLVMValueRef args[2] = { r->ctr[0], LLVMGetParam(k, LLVMCountParams(k) - 1) };
		LLVMPositionBuilderBefore(r->b, term);
		LLVMValueRef c = LLVMBuildCall2(r->b, LLVMGlobalGetValueType(flush), flush, args, 2, "");
		LLVMSetInstructionCallConv(c, LLVMSPIRFUNCCallConv);
	}
}

static bool kept(const struct rewrite *r, LLVMValueRef f)
{
	for (int i = 0; i < r->nf; i++)
		if (r->new[i] == f)
			return true;
	return !strcmp(LLVMGetValueName(f), "__sibyl_flush");
}

/* Drop a body without leaving dangling uses: first cut every use of its
 * instructions, then erase the instructions, then the empty blocks. */
static void drop_body(LLVMValueRef f)
{
	for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
		for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))
			if (LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMVoidTypeKind)
				LLVMReplaceAllUsesWith(i, LLVMGetUndef(LLVMTypeOf(i)));
	for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
		for (LLVMValueRef i; (i = LLVMGetFirstInstruction(b));)
			LLVMInstructionEraseFromParent(i);
	for (LLVMBasicBlockRef b; (b = LLVMGetFirstBasicBlock(f));)
		LLVMDeleteBasicBlock(b);
}

/* Only the instrumented kernel stays: other kernels would still call the
 * helpers' old versions, which are empty now. */
static void remove_others(struct rewrite *r)
{
	for (LLVMValueRef f = LLVMGetFirstFunction(r->mod); f; f = LLVMGetNextFunction(f))
		if (!kept(r, f) && !LLVMIsDeclaration(f))
			drop_body(f);
	for (LLVMValueRef f = LLVMGetFirstFunction(r->mod), next; f; f = next) {
		next = LLVMGetNextFunction(f);
		if (!kept(r, f) && !LLVMGetFirstUse(f))
			LLVMDeleteFunction(f);
	}
}

int ic_rewrite(struct ic_module *m, LLVMValueRef *fns, int nf, const struct ic_layout *layout,
	       const struct ic_blocks *blocks)
{
	struct rewrite r = { m->mod, LLVMGetModuleContext(m->mod), NULL, NULL, fns, NULL, NULL, nf,
			     layout->per_item };
	LLVMValueRef *before;

	if (LLVMGetNamedMetadataNumOperands(m->mod, "opencl.kernels"))
		return sibyl_seterr(m->err, m->errlen, "instrument: SPIR with !opencl.kernels "
				    "metadata is not supported");
	before = sibyl_xcalloc(blocks->n + 1, sizeof(*before));
	r.new = sibyl_xcalloc((size_t)nf, sizeof(*r.new));
	r.ctr = sibyl_xcalloc((size_t)nf, sizeof(*r.ctr));
	r.i64 = LLVMInt64TypeInContext(r.ctx);
	r.b = LLVMCreateBuilderInContext(r.ctx);
	/* where each block's increments go, fixed before any code is added */
	for (size_t i = 0; i < blocks->n; i++)
		before[i] = first_non_phi(blocks->block[i]);
	for (int f = 0; f < nf; f++) {
		LLVMTypeRef t = LLVMPointerType(r.i64, f == 0 ? 1 : 0);
		r.new[f] = ic_add_param(m->mod, fns[f], t, f == 0);
		r.ctr[f] = LLVMGetParam(r.new[f], LLVMCountParams(r.new[f]) - 1);
	}
	setup_kernel(&r, layout->ncounters);
	for (size_t i = 0; i < blocks->n; i++) {
		LLVMValueRef fn = LLVMGetBasicBlockParent(blocks->block[i]);
		int f = 0;
		while (f < nf && r.new[f] != fn)
			f++;
		if (f < nf && before[i] && blocks->head[i])
			count_entry(&r, r.ctr[f], before[i], blocks->counter[i]);
	}
	/* calls are replaced last: a block may start with one, and its
	 * increments go in front of it */
	for (int f = 0; f < nf; f++)
		redirect_calls(&r, f);
	flush_at_returns(&r, layout->ncounters);
	remove_others(&r);
	m->kernel = r.new[0];
	LLVMDisposeBuilder(r.b);
	free(before);
	free(r.new);
	free(r.ctr);
	return 0;
}
