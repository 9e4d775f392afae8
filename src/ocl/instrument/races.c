/*
 * --check's race probe (instrument.h, sibyl_instrument_races): a copy of
 * the kernel that logs every access to __local and __global memory, and
 * every barrier it passes (with its flags), into a trailing __global
 * ulong * argument.  Each of the
 * first `groups` work-groups has a region of its own: a count, then
 * `records` entries of IC_RACE_WORDS words (instrument_internal.h),
 * appended with one atomic on the count, so the log keeps each
 * work-item's program order whatever the device interleaves.  Each
 * function works out its group's region and its work-item's id once, at
 * its entry; an access costs a call of a small function, which the
 * device compiler (PoCL) inlines: the first design, the whole append
 * at every access, kept PoCL compiling Rodinia's dwt2d for minutes; a group that logs more keeps its first
 * `records` (the count says how many were dropped).  The barriers stay:
 * the kernel computes what it does in the real run, and the host
 * (races_scan.c, races_global.c) works out each access's epoch (the
 * barriers its work-item had passed) from the log.
 *
 * The functions the kernel reaches take the log pointer too, so a
 * helper's accesses through a pointer argument are logged wherever it is
 * called from.  What is logged: loads, stores, atomicrmw and cmpxchg in
 * address spaces 3 and 1; calls of the atomic builtins, vloadN/vstoreN,
 * async_work_group_(strided_)copy and llvm.memcpy/memmove/memset on such
 * a pointer; barrier(), work_group_barrier() and wait_group_events() as
 * epoch ends.  The log itself is __global too, but its stores are in
 * __sibyl_race_log, which is not logged.
 */
#include "ocl/instrument/instrument_internal.h"

#include "core/alloc.h"
#include "core/log.h"

#include <ctype.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Target.h>
#include <stdlib.h>
#include <string.h>

#define GLOBAL_AS 1
#define LOCAL_AS 3

struct races {
	LLVMModuleRef mod;
	LLVMBuilderRef b;
	LLVMTypeRef i64;
	LLVMTargetDataRef td;
	LLVMValueRef log;	/* __sibyl_race_log(region, the entry's words) */
	struct ic_layout *layout;
	size_t site_cap;
	/* the function being logged: its group's region (null: a group
	 * not logged), the work-item's linear global id */
	LLVMValueRef region, item;
};

/* The address space of pointer p (~0u: not a pointer). */
static unsigned space(LLVMValueRef p)
{
	LLVMTypeRef t = LLVMTypeOf(p);

	return LLVMGetTypeKind(t) == LLVMPointerTypeKind ? LLVMGetPointerAddressSpace(t) : ~0u;
}

/* A pointer into memory that work-items share: __local or __global. */
static bool logged_ptr(LLVMValueRef p)
{
	return space(p) == LOCAL_AS || space(p) == GLOBAL_AS;
}

static LLVMValueRef bytes_of(const struct races *r, LLVMTypeRef t)
{
	return LLVMConstInt(r->i64, LLVMTypeIsSized(t) ? LLVMStoreSizeOfType(r->td, t) : 1, 0);
}

/* The bytes of a pointer's element (LLVM 14's pointers are typed). */
static LLVMValueRef pointee_bytes(const struct races *r, LLVMValueRef p)
{
	return bytes_of(r, LLVMGetElementType(LLVMTypeOf(p)));
}

static uint64_t add_site(struct races *r, LLVMValueRef i, unsigned kind)
{
	struct ic_layout *l = r->layout;

	if (l->nsites == r->site_cap) {
		r->site_cap = r->site_cap ? 2 * r->site_cap : 64;
		l->race_sites = sibyl_xreallocarray(l->race_sites, r->site_cap, sizeof(*l->race_sites));
	}
	l->race_sites[l->nsites] = (struct ic_race_site){ LLVMGetDebugLocLine(i), kind };
	return l->nsites++;
}

static bool number_kind(LLVMTypeKind k)
{
	return k == LLVMIntegerTypeKind || k == LLVMFloatTypeKind || k == LLVMDoubleTypeKind ||
	       k == LLVMHalfTypeKind;
}

/* The value a store writes as an i64, when a number, a pointer or a
 * vector of numbers of at most 8 bytes; from 9 to 16 bytes (float4,
 * int4) a fingerprint of it (*hashed), equal for equal values; NULL
 * otherwise.  Equal values written by several work-items are not
 * reported (races_scan.c, races_global.c). */
static LLVMValueRef stored_value(struct races *r, LLVMValueRef v, bool *hashed)
{
	LLVMTypeRef t = LLVMTypeOf(v);
	LLVMTypeKind k = LLVMGetTypeKind(t);
	unsigned long long bits = LLVMTypeIsSized(t) ? LLVMSizeOfTypeInBits(r->td, t) : 0;

	*hashed = false;
	if (k == LLVMPointerTypeKind)
		return bits <= 64 ? LLVMBuildPtrToInt(r->b, v, r->i64, "") : NULL;
	if (!bits || bits > 128 || !number_kind(k == LLVMVectorTypeKind ?
						 LLVMGetTypeKind(LLVMGetElementType(t)) : k))
		return NULL;
	if (k != LLVMIntegerTypeKind)
		v = LLVMBuildBitCast(r->b, v, LLVMIntTypeInContext(LLVMGetModuleContext(r->mod),
								   (unsigned)bits), "");
	if (bits <= 64)
		return LLVMBuildZExtOrBitCast(r->b, v, r->i64, "");
	*hashed = true;
	LLVMValueRef hi = LLVMBuildLShr(r->b, v, LLVMConstInt(LLVMTypeOf(v), 64, 0), "");

	return LLVMBuildXor(r->b, LLVMBuildTrunc(r->b, v, r->i64, ""),
			    LLVMBuildMul(r->b, LLVMBuildTrunc(r->b, hi, r->i64, ""),
					 LLVMConstInt(r->i64, 0x9e3779b97f4a7c15ull, 0), ""), "");
}

/* Log an access of `len` bytes (i64) at a logged pointer p (NULL: a
 * barrier), for instruction i, at the builder's position; `value`: what
 * a store writes (NULL: unknown), or a barrier's flags. */
static void log_at(struct races *r, LLVMValueRef i, LLVMValueRef p, LLVMValueRef len,
		   unsigned kind, LLVMValueRef value)
{
	unsigned site_kind = kind | (value && !(kind & IC_RACE_BARRIER) ? IC_RACE_VALUE : 0) |
			     (p && space(p) == GLOBAL_AS ? IC_RACE_GLOBAL : 0);
	LLVMValueRef args[1 + IC_RACE_WORDS] = {
		r->region, p ? LLVMBuildPtrToInt(r->b, p, r->i64, "") : LLVMConstInt(r->i64, 0, 0),
		LLVMBuildOr(r->b, LLVMConstInt(r->i64, add_site(r, i, site_kind) << 32, 0), r->item, ""),
		len ? LLVMBuildIntCast2(r->b, len, r->i64, 0, "") : LLVMConstInt(r->i64, 0, 0),
		value ? value : LLVMConstInt(r->i64, 0, 0),
	};

	LLVMSetCurrentDebugLocation2(r->b, LLVMInstructionGetDebugLoc(i));
	LLVMValueRef c = LLVMBuildCall2(r->b, LLVMGlobalGetValueType(r->log), r->log, args,
					1 + IC_RACE_WORDS, "");

	LLVMSetInstructionCallConv(c, LLVMSPIRFUNCCallConv);
	LLVMSetCurrentDebugLocation2(r->b, NULL);
}

/* An access through operand `op` of i, if it is a logged pointer. */
static void log_op(struct races *r, LLVMValueRef i, unsigned op,
		   LLVMValueRef len, unsigned kind)
{
	LLVMValueRef p = LLVMGetOperand(i, op);

	if (logged_ptr(p))
		log_at(r, i, p, len, kind, NULL);
}

/* "barrier" from "_Z7barrierj"; the whole name when not mangled. */
static const char *demangled(const char *name, size_t *len)
{
	char *end;
	unsigned long n;

	if (strncmp(name, "_Z", 2) || !isdigit((unsigned char)name[2]))
		return *len = strlen(name), name;
	n = strtoul(name + 2, &end, 10);
	*len = strnlen(end, n);
	return end;
}

static bool is(const char *id, size_t len, const char *what)
{
	return len == strlen(what) && !strncmp(id, what, len);
}

/* vloadN(offset, p) / vstoreN(data, offset, p): N elements at p + offset * N. */
static void log_vector(struct races *r, LLVMValueRef i, bool store, unsigned n)
{
	LLVMValueRef p = LLVMGetOperand(i, store ? 2 : 1), off = LLVMGetOperand(i, store ? 1 : 0);

	if (!logged_ptr(p))
		return;
	LLVMValueRef len = LLVMBuildMul(r->b, pointee_bytes(r, p), LLVMConstInt(r->i64, n, 0), "");
	LLVMValueRef at = LLVMBuildGEP2(r->b, LLVMGetElementType(LLVMTypeOf(p)), p,
					(LLVMValueRef[]){ LLVMBuildMul(r->b, LLVMBuildIntCast2(
						r->b, off, r->i64, 0, ""), LLVMConstInt(r->i64, n, 0), "") },
					1, "");

	log_at(r, i, at, len, store ? IC_RACE_WRITE : IC_RACE_READ, NULL);
}

/* The OpenCL builtins that touch memory through a pointer argument. */
static void log_builtin(struct races *r, LLVMValueRef i, const char *id,
			size_t len)
{
	unsigned args = LLVMGetNumArgOperands(i);

	/* Only with a logged pointer first: atomic_work_item_fence, or a
	 * user's atom... helper, may take an integer, whose element type
	 * LLVM cannot give. */
	if (args >= 1 && !strncmp(id, "atom", 4) && logged_ptr(LLVMGetOperand(i, 0)))
		log_op(r, i, 0, pointee_bytes(r, LLVMGetOperand(i, 0)),
		       IC_RACE_ATOMIC | IC_RACE_READ | IC_RACE_WRITE);
	else if (len > 5 && !strncmp(id, "vload", 5) && isdigit((unsigned char)id[5]) && args == 2)
		log_vector(r, i, false, (unsigned)strtoul(id + 5, NULL, 10));
	else if (len > 6 && !strncmp(id, "vstore", 6) && isdigit((unsigned char)id[6]) && args == 3)
		log_vector(r, i, true, (unsigned)strtoul(id + 6, NULL, 10));
	else if ((is(id, len, "async_work_group_copy") ||
		  is(id, len, "async_work_group_strided_copy")) && args >= 3) {
		for (unsigned k = 0; k < 2; k++) {
			LLVMValueRef p = LLVMGetOperand(i, k);

			if (logged_ptr(p))	/* each side: the group's copy */
				log_at(r, i, p, LLVMBuildMul(r->b, pointee_bytes(r, p),
					LLVMBuildIntCast2(r->b, LLVMGetOperand(i, 2), r->i64, 0, ""), ""),
				       IC_RACE_GROUP | (k ? IC_RACE_READ : IC_RACE_WRITE), NULL);
		}
	}
}

/* A barrier's flags (CLK_GLOBAL_MEM_FENCE: IC_RACE_GLOBAL_FENCE) as an
 * i64, whatever computes them; a global fence when there are none. */
static LLVMValueRef fence_flags(struct races *r, LLVMValueRef i)
{
	LLVMValueRef f = LLVMGetNumArgOperands(i) ? LLVMGetOperand(i, 0) : NULL;

	if (!f || LLVMGetTypeKind(LLVMTypeOf(f)) != LLVMIntegerTypeKind)
		return LLVMConstInt(r->i64, IC_RACE_GLOBAL_FENCE, 0);
	return LLVMBuildZExtOrBitCast(r->b, f, r->i64, "");
}

static void log_call(struct races *r, LLVMValueRef i, LLVMValueRef next)
{
	LLVMValueRef callee = LLVMGetCalledValue(i);
	size_t nlen, len;

	if (!LLVMIsAFunction(callee) || callee == r->log)
		return;
	const char *name = LLVMGetValueName2(callee, &nlen), *id = demangled(name, &len);

	if (is(id, len, "barrier") || is(id, len, "work_group_barrier")) {
		LLVMPositionBuilderBefore(r->b, next);	/* the epoch ends once it is passed */
		log_at(r, i, NULL, NULL, IC_RACE_BARRIER, fence_flags(r, i));
	} else if (is(id, len, "wait_group_events")) {
		/* the copies' ends: __local's epoch, no fence on __global */
		LLVMPositionBuilderBefore(r->b, next);
		log_at(r, i, NULL, NULL, IC_RACE_BARRIER, LLVMConstInt(r->i64, 0, 0));
	} else if (!strncmp(name, "llvm.memcpy", 11) || !strncmp(name, "llvm.memmove", 12)) {
		log_op(r, i, 1, LLVMGetOperand(i, 2), IC_RACE_READ);
		log_op(r, i, 0, LLVMGetOperand(i, 2), IC_RACE_WRITE);
	} else if (!strncmp(name, "llvm.memset", 11)) {
		log_op(r, i, 0, LLVMGetOperand(i, 2), IC_RACE_WRITE);
	} else if (id != name) {
		log_builtin(r, i, id, len);
	}
}

static void log_store(struct races *r, LLVMValueRef i)
{
	LLVMValueRef v = LLVMGetOperand(i, 0), p = LLVMGetOperand(i, 1);
	bool hashed;

	if (!logged_ptr(p))
		return;
	LLVMValueRef value = stored_value(r, v, &hashed);

	log_at(r, i, p, bytes_of(r, LLVMTypeOf(v)), IC_RACE_WRITE | (hashed ? IC_RACE_HASH : 0),
	       value);
}

static void log_instruction(struct races *r, LLVMValueRef i, LLVMValueRef next)
{
	LLVMPositionBuilderBefore(r->b, i);
	switch (LLVMGetInstructionOpcode(i)) {
	case LLVMLoad:
		log_op(r, i, 0, bytes_of(r, LLVMTypeOf(i)), IC_RACE_READ);
		break;
	case LLVMStore:
		log_store(r, i);
		break;
	case LLVMAtomicRMW:
	case LLVMAtomicCmpXchg:
		log_op(r, i, 0, bytes_of(r, LLVMTypeOf(LLVMGetOperand(i, 1))),
		       IC_RACE_ATOMIC | IC_RACE_READ | IC_RACE_WRITE);
		break;
	case LLVMCall:
		log_call(r, i, next);
		break;
	default:
		break;
	}
}

/* __sibyl_race_log(region, addr, site, len, value): append the entry
 * to the region, if there is one and room in it.  As small as can be:
 * the device compiler (PoCL) inlines it at every access. */
static LLVMValueRef build_log(struct races *r, uint64_t records)
{
	LLVMContextRef ctx = LLVMGetModuleContext(r->mod);
	LLVMTypeRef params[1 + IC_RACE_WORDS] = { LLVMPointerType(r->i64, 1), r->i64, r->i64, r->i64,
						  r->i64 };
	LLVMValueRef fn = LLVMAddFunction(r->mod, "__sibyl_race_log",
					  LLVMFunctionType(LLVMVoidTypeInContext(ctx), params,
							   1 + IC_RACE_WORDS, 0));
	LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, fn, ""),
		rec = LLVMAppendBasicBlockInContext(ctx, fn, ""),
		put = LLVMAppendBasicBlockInContext(ctx, fn, ""),
		done = LLVMAppendBasicBlockInContext(ctx, fn, "");
	LLVMBuilderRef b = r->b;
	LLVMValueRef region = LLVMGetParam(fn, 0);

	LLVMSetLinkage(fn, LLVMInternalLinkage);
	LLVMSetFunctionCallConv(fn, LLVMSPIRFUNCCallConv);
	LLVMPositionBuilderAtEnd(b, entry);
	LLVMBuildCondBr(b, LLVMBuildIsNotNull(b, region, ""), rec, done);
	LLVMPositionBuilderAtEnd(b, rec);
	LLVMValueRef n = LLVMBuildAtomicRMW(b, LLVMAtomicRMWBinOpAdd, region,
					    LLVMConstInt(r->i64, 1, 0), LLVMAtomicOrderingMonotonic, 0);
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, n, LLVMConstInt(r->i64, records, 0), ""),
			put, done);
	LLVMPositionBuilderAtEnd(b, put);
	LLVMValueRef at = LLVMBuildAdd(b, LLVMBuildMul(b, n, LLVMConstInt(r->i64, IC_RACE_WORDS, 0), ""),
				       LLVMConstInt(r->i64, 1, 0), "");
	for (unsigned w = 0; w < IC_RACE_WORDS; w++) {
		LLVMValueRef idx = LLVMBuildAdd(b, at, LLVMConstInt(r->i64, w, 0), "");

		LLVMBuildStore(b, LLVMGetParam(fn, 1 + w),
			       LLVMBuildInBoundsGEP2(b, r->i64, region, &idx, 1, ""));
	}
	LLVMBuildBr(b, done);
	LLVMPositionBuilderAtEnd(b, done);
	LLVMBuildRetVoid(b);
	return fn;
}

/* At f's entry, once: its work-item's id and its group's region of the
 * log (null past the groups logged). */
static void prologue(struct races *r, LLVMValueRef f, LLVMValueRef buf)
{
	LLVMBuilderRef b = r->b;
	const struct ic_layout *l = r->layout;

	LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(f)));
	LLVMValueRef grp = ic_linear_id(r->mod, b, true);
	LLVMValueRef off = LLVMBuildMul(b, grp, LLVMConstInt(r->i64, 1 + IC_RACE_WORDS *
							       l->race_records, 0), "");
	LLVMValueRef in = LLVMBuildICmp(b, LLVMIntULT, grp, LLVMConstInt(r->i64, l->race_groups, 0), "");

	r->region = LLVMBuildSelect(b, in, LLVMBuildInBoundsGEP2(b, r->i64, buf, &off, 1, ""),
				    LLVMConstNull(LLVMTypeOf(buf)), "");
	r->item = LLVMBuildAnd(b, ic_linear_id(r->mod, b, false),
			       LLVMConstInt(r->i64, 0xffffffffu, 0), "");
}

static void log_function(struct races *r, LLVMValueRef f)
{
	LLVMValueRef buf = LLVMGetParam(f, LLVMCountParams(f) - 1);

	prologue(r, f, buf);

	for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
		for (LLVMValueRef i = LLVMGetFirstInstruction(b), next; i; i = next) {
			next = LLVMGetNextInstruction(i);
			log_instruction(r, i, next);
		}
}

/* Calls of the reached functions' old versions go to the new ones,
 * the log passed on. */
static void redirect(struct races *r, LLVMValueRef *old, LLVMValueRef *nw, int nf)
{
	for (int f = 0; f < nf; f++) {
		LLVMValueRef buf = LLVMGetParam(nw[f], LLVMCountParams(nw[f]) - 1);

		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(nw[f]); b; b = LLVMGetNextBasicBlock(b))
			for (LLVMValueRef i = LLVMGetFirstInstruction(b), next; i; i = next) {
				next = LLVMGetNextInstruction(i);
				if (LLVMGetInstructionOpcode(i) != LLVMCall)
					continue;
				for (int k = 0; k < nf; k++)
					if (LLVMGetCalledValue(i) == old[k])
						ic_redirect_call(r->b, i, nw[k], buf);
			}
	}
}

static int rewrite(struct ic_module *m, struct ic_layout *layout, struct sibyl_instrumented *out)
{
	LLVMValueRef *fns = NULL;
	int nf = ic_reachable(m, &fns);

	if (nf < 0)
		return -1;
	struct races r = { m->mod, LLVMCreateBuilderInContext(m->ctx), LLVMInt64TypeInContext(m->ctx),
			   LLVMCreateTargetData(LLVMGetDataLayoutStr(m->mod)), NULL, layout, 0,
			   NULL, NULL };
	LLVMValueRef *nw = sibyl_xcalloc((size_t)nf, sizeof(*nw));

	out->counter_arg = LLVMCountParams(m->kernel);
	for (int f = 0; f < nf; f++)
		nw[f] = ic_add_param(m->mod, fns[f], LLVMPointerType(r.i64, 1), f == 0);
	r.log = build_log(&r, layout->race_records);
	for (int f = 0; f < nf; f++)
		log_function(&r, nw[f]);
	redirect(&r, fns, nw, nf);
	ic_keep_only(m->mod, nw, nf);
	m->kernel = nw[0];
	int rc = ic_write_bitcode(m, out);

	LLVMDisposeTargetData(r.td);
	LLVMDisposeBuilder(r.b);
	free(nw);
	free(fns);
	return rc;
}

int sibyl_instrument_races(const void *bc, size_t size, const char *kernel, uint64_t groups,
			   uint64_t records, struct sibyl_instrumented *out, char *err,
			   size_t errlen)
{
	struct ic_module m;
	struct ic_layout *layout = sibyl_xcalloc(1, sizeof(*layout));

	*out = (struct sibyl_instrumented){ 0 };
	*layout = (struct ic_layout){ .races = true, .race_groups = groups ? groups : 1,
				      .race_records = records ? records : 1 };
	if (ic_module_open(&m, bc, size, kernel, err, errlen)) {
		free(layout);
		return -1;
	}
	int rc = rewrite(&m, layout, out);

	ic_module_close(&m);
	return ic_finish(rc, layout, out);
}
