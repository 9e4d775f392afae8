/*
 * Give a function one more trailing parameter. LLVM cannot change a
 * function's type in place, so a new function takes the old one's name,
 * attributes and metadata, and the old body's blocks are moved into it.
 *
 * For the kernel the new parameter is the counters buffer, and every
 * kernel_arg_* node is extended by one entry for it. Nodes are shared
 * between kernels (and between kinds: type and base_type are often the
 * same node), so each gets a fresh extended copy attached to the new
 * function only; the shared original is left untouched.
 */
#include "ocl/instrument/instrument_internal.h"

#include "core/alloc.h"

#include <llvm-c/DebugInfo.h>
#include <stdlib.h>
#include <string.h>

static const char *const arg_kinds[] = {
	"kernel_arg_addr_space", "kernel_arg_access_qual", "kernel_arg_type",
	"kernel_arg_base_type", "kernel_arg_type_qual", "kernel_arg_name",
};

/* The entry the counters argument adds to node kind `k`. */
static LLVMMetadataRef arg_entry(LLVMContextRef ctx, size_t k)
{
	static const char *const strings[] = {
		NULL, "none", "ulong*", "ulong*", "", "__sibyl_counters",
	};

	if (k == 0)
		return LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(ctx), 1, 0));
	return LLVMMDStringInContext2(ctx, strings[k], strlen(strings[k]));
}

static LLVMMetadataRef extended(LLVMContextRef ctx, LLVMMetadataRef md, unsigned nparams,
				LLVMMetadataRef extra)
{
	LLVMValueRef node = LLVMMetadataAsValue(ctx, md);
	unsigned n = LLVMGetMDNodeNumOperands(node);

	if (n != nparams)	/* not one entry per argument: leave it */
		return md;
	LLVMValueRef *ops = sibyl_xcalloc(n + 1, sizeof(*ops));
	LLVMMetadataRef *mds = sibyl_xcalloc(n + 1, sizeof(*mds));

	LLVMGetMDNodeOperands(node, ops);
	for (unsigned i = 0; i < n; i++)
		mds[i] = LLVMValueAsMetadata(ops[i]);
	mds[n] = extra;
	LLVMMetadataRef out = LLVMMDNodeInContext2(ctx, mds, n + 1);
	free(ops);
	free(mds);
	return out;
}

static void copy_metadata(LLVMContextRef ctx, LLVMValueRef from, LLVMValueRef to, bool kernel)
{
	size_t n;
	unsigned nparams = LLVMCountParams(from);
	LLVMValueMetadataEntry *entries = LLVMGlobalCopyAllMetadata(from, &n);

	for (size_t i = 0; i < n; i++) {
		unsigned kind = LLVMValueMetadataEntriesGetKind(entries, (unsigned)i);
		LLVMMetadataRef md = LLVMValueMetadataEntriesGetMetadata(entries, (unsigned)i);

		for (size_t k = 0; kernel && k < sizeof(arg_kinds) / sizeof(*arg_kinds); k++)
			if (kind == LLVMGetMDKindIDInContext(ctx, arg_kinds[k],
							     (unsigned)strlen(arg_kinds[k])))
				md = extended(ctx, md, nparams, arg_entry(ctx, k));
		LLVMGlobalSetMetadata(to, kind, md);
	}
	if (entries)
		LLVMDisposeValueMetadataEntries(entries);
}

static void copy_attributes(LLVMValueRef from, LLVMValueRef to, unsigned nparams)
{
	for (unsigned k = 0; k <= nparams + 1; k++) {
		/* the function's own attributes, then the return value's, then each parameter's */
		LLVMAttributeIndex at = k == 0 ? (LLVMAttributeIndex)LLVMAttributeFunctionIndex : k - 1;
		unsigned n = LLVMGetAttributeCountAtIndex(from, at);
		if (!n)
			continue;
		LLVMAttributeRef *attrs = sibyl_xcalloc(n, sizeof(*attrs));

		LLVMGetAttributesAtIndex(from, at, attrs);
		for (unsigned i = 0; i < n; i++)
			LLVMAddAttributeAtIndex(to, at, attrs[i]);
		free(attrs);
	}
}

LLVMValueRef ic_add_param(LLVMModuleRef mod, LLVMValueRef f, LLVMTypeRef extra, bool kernel)
{
	LLVMContextRef ctx = LLVMGetModuleContext(mod);
	LLVMTypeRef fty = LLVMGlobalGetValueType(f);
	unsigned n = LLVMCountParamTypes(fty);
	LLVMTypeRef *params = sibyl_xcalloc(n + 1, sizeof(*params));
	size_t len;
	char *name = sibyl_xstrdup(LLVMGetValueName2(f, &len));
	LLVMValueRef nf;

	LLVMGetParamTypes(fty, params);
	params[n] = extra;
	LLVMSetValueName2(f, "", 0);
	nf = LLVMAddFunction(mod, name, LLVMFunctionType(LLVMGetReturnType(fty), params, n + 1,
							 LLVMIsFunctionVarArg(fty)));
	LLVMSetFunctionCallConv(nf, LLVMGetFunctionCallConv(f));
	LLVMSetLinkage(nf, LLVMGetLinkage(f));
	LLVMSetVisibility(nf, LLVMGetVisibility(f));
	copy_attributes(f, nf, n);
	copy_metadata(ctx, f, nf, kernel);
	for (unsigned i = 0; i < n; i++) {
		LLVMValueRef p = LLVMGetParam(f, i), np = LLVMGetParam(nf, i);
		const char *pname = LLVMGetValueName2(p, &len);
		LLVMSetValueName2(np, pname, len);
		LLVMReplaceAllUsesWith(p, np);
	}
	LLVMSetValueName2(LLVMGetParam(nf, n), "__sibyl_counters", 16);
	for (LLVMBasicBlockRef b; (b = LLVMGetFirstBasicBlock(f));) {
		LLVMRemoveBasicBlockFromParent(b);
		LLVMAppendExistingBasicBlock(nf, b);
	}
	free(params);
	free(name);
	return nf;
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

void ic_redirect_call(LLVMBuilderRef b, LLVMValueRef call, LLVMValueRef fn, LLVMValueRef extra)
{
	unsigned n = LLVMGetNumArgOperands(call);
	LLVMValueRef *args = sibyl_xcalloc(n + 1, sizeof(*args));
	size_t len;

	for (unsigned i = 0; i < n; i++)
		args[i] = LLVMGetOperand(call, i);
	args[n] = extra;
	LLVMPositionBuilderBefore(b, call);
	LLVMSetCurrentDebugLocation2(b, LLVMInstructionGetDebugLoc(call));
	const char *name = LLVMGetValueName2(call, &len);
	LLVMValueRef nc = LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, n + 1, "");
	LLVMSetCurrentDebugLocation2(b, NULL);
	LLVMSetValueName2(nc, name, len);
	LLVMSetInstructionCallConv(nc, LLVMGetInstructionCallConv(call));
	LLVMSetTailCall(nc, LLVMIsTailCall(call));
	copy_call_attributes(call, nc, n);
	LLVMReplaceAllUsesWith(call, nc);
	LLVMInstructionEraseFromParent(call);
	free(args);
}

/* Kept: the new functions and the helpers sibyl added (__sibyl_*). */
static bool kept(LLVMValueRef f, LLVMValueRef *fns, int nf)
{
	for (int i = 0; i < nf; i++)
		if (fns[i] == f)
			return true;
	return !strncmp(LLVMGetValueName(f), "__sibyl_", strlen("__sibyl_"));
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

void ic_keep_only(LLVMModuleRef mod, LLVMValueRef *fns, int nf)
{
	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
		if (!kept(f, fns, nf) && !LLVMIsDeclaration(f))
			drop_body(f);
	for (LLVMValueRef f = LLVMGetFirstFunction(mod), next; f; f = next) {
		next = LLVMGetNextFunction(f);
		if (!kept(f, fns, nf) && !LLVMGetFirstUse(f))
			LLVMDeleteFunction(f);
	}
}
