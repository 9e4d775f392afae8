/*
 * The kernel's epilogue: __sibyl_flush(ulong *ctr, __global ulong *buf),
 * called before each return with the work-item's private counters, once
 * for the kernel's own (buf[0..n)) and once, as __sibyl_flush_helpers,
 * for those of the functions it called (the rest of the row).
 *
 * Default: add each non-zero counter to buf[slot] with a 64-bit atomic
 * (cl_khr_int64_base_atomics; PoCL has it). Counters that a work-item
 * never touched cost a compare, not an atomic.
 *
 * Per-item rows, for devices without 64-bit atomics: the work-item's
 * linear global id selects its own row of `nslots` counters, stored
 * without atomics (no two work-items share a row); the host sums the
 * rows. The buffer then grows with the NDRange.
 */
#include "ocl/instrument/instrument_internal.h"

#include <string.h>

static LLVMValueRef slot_ptr(LLVMBuilderRef b, LLVMTypeRef i64, LLVMValueRef base, LLVMValueRef idx)
{
	return LLVMBuildInBoundsGEP2(b, i64, base, &idx, 1, "");
}

/* A work-item function such as get_global_id: size_t f(uint). */
static LLVMValueRef builtin(LLVMModuleRef mod, LLVMBuilderRef b, const char *name, unsigned dim)
{
	LLVMContextRef ctx = LLVMGetModuleContext(mod);
	LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
	LLVMTypeRef fty = LLVMFunctionType(LLVMInt64TypeInContext(ctx), &i32, 1, 0);
	LLVMValueRef fn = LLVMGetNamedFunction(mod, name);

	if (!fn) {
		fn = LLVMAddFunction(mod, name, fty);
		LLVMSetFunctionCallConv(fn, LLVMSPIRFUNCCallConv);
	}
	LLVMValueRef arg = LLVMConstInt(i32, dim, 0);
	LLVMValueRef call = LLVMBuildCall2(b, fty, fn, &arg, 1, "");
	LLVMSetInstructionCallConv(call, LLVMSPIRFUNCCallConv);
	return call;
}

/* (gid0 - off0) + size0 * ((gid1 - off1) + size1 * (gid2 - off2)), or
 * for the group grp0 + ngrp0 * (grp1 + ngrp1 * grp2). */
LLVMValueRef ic_linear_id(LLVMModuleRef mod, LLVMBuilderRef b, bool group)
{
	const char *id = group ? "_Z12get_group_idj" : "_Z13get_global_idj";
	const char *size = group ? "_Z14get_num_groupsj" : "_Z15get_global_sizej";
	LLVMValueRef v = NULL;

	for (int d = 2; d >= 0; d--) {
		LLVMValueRef g = builtin(mod, b, id, (unsigned)d);

		if (!group)
			g = LLVMBuildSub(b, g, builtin(mod, b, "_Z17get_global_offsetj", (unsigned)d), "");
		v = v ? LLVMBuildAdd(b, g, LLVMBuildMul(b, builtin(mod, b, size, (unsigned)d), v, ""), "")
		      : g;
	}
	return v;
}

static void flush_atomic(LLVMContextRef ctx, LLVMBuilderRef b, LLVMValueRef fn,
			 LLVMBasicBlockRef cur, size_t nslots, size_t offset)
{
	LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
	LLVMValueRef zero = LLVMConstInt(i64, 0, 0);

	for (size_t s = 0; s < nslots; s++) {
		LLVMValueRef idx = LLVMConstInt(i64, s, 0);
		LLVMBasicBlockRef add = LLVMAppendBasicBlockInContext(ctx, fn, "");
		LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(ctx, fn, "");
		LLVMPositionBuilderAtEnd(b, cur);
		LLVMValueRef v = LLVMBuildLoad2(b, i64, slot_ptr(b, i64, LLVMGetParam(fn, 0), idx), "");
		LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, v, zero, ""), add, next);
		LLVMPositionBuilderAtEnd(b, add);
		LLVMValueRef to = LLVMConstInt(i64, offset + s, 0);

		LLVMBuildAtomicRMW(b, LLVMAtomicRMWBinOpAdd, slot_ptr(b, i64, LLVMGetParam(fn, 1), to),
				   v, LLVMAtomicOrderingMonotonic, 0);
		LLVMBuildBr(b, next);
		cur = next;
	}
	LLVMPositionBuilderAtEnd(b, cur);
}

static void flush_row(LLVMModuleRef mod, LLVMBuilderRef b, LLVMValueRef fn, LLVMBasicBlockRef cur,
		      size_t nslots, size_t offset, size_t row_len)
{
	LLVMTypeRef i64 = LLVMInt64TypeInContext(LLVMGetModuleContext(mod));

	LLVMPositionBuilderAtEnd(b, cur);
	LLVMValueRef row = LLVMBuildMul(b, ic_linear_id(mod, b, false), LLVMConstInt(i64, row_len, 0), "");
	LLVMValueRef base = slot_ptr(b, i64, LLVMGetParam(fn, 1), row);
	for (size_t s = 0; s < nslots; s++) {
		LLVMValueRef idx = LLVMConstInt(i64, s, 0), to = LLVMConstInt(i64, offset + s, 0);
		LLVMValueRef v = LLVMBuildLoad2(b, i64, slot_ptr(b, i64, LLVMGetParam(fn, 0), idx), "");
		LLVMBuildStore(b, v, slot_ptr(b, i64, base, to));
	}
}

LLVMValueRef ic_build_flush(LLVMModuleRef mod, LLVMBuilderRef b, const char *name, size_t nslots,
			    size_t offset, size_t row_len, bool per_item)
{
	LLVMContextRef ctx = LLVMGetModuleContext(mod);
	LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
	LLVMTypeRef params[2] = { LLVMPointerType(i64, 0), LLVMPointerType(i64, 1) };
	LLVMValueRef fn = LLVMAddFunction(mod, name,
					  LLVMFunctionType(LLVMVoidTypeInContext(ctx), params, 2, 0));
	unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", strlen("alwaysinline"));

	LLVMSetLinkage(fn, LLVMInternalLinkage);
	LLVMSetFunctionCallConv(fn, LLVMSPIRFUNCCallConv);
	LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(ctx, always, 0));
	LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, fn, "");
	if (per_item)
		flush_row(mod, b, fn, entry, nslots, offset, row_len);
	else
		flush_atomic(ctx, b, fn, entry, nslots, offset);
	LLVMBuildRetVoid(b);
	return fn;
}
