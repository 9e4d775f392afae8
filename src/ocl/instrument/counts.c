/*
 * What each instruction counts as, by Oclgrind's naming (its
 * InstructionCounter plugin): the LLVM opcode name; loads and stores
 * split by address space with the bytes moved; calls by the callee's
 * (mangled) name, or plain "call" when the callee is not a function.
 * Also the static counts (`--static`): every block's histogram once.
 */
#include "ocl/instrument/instrument_internal.h"

#include "core/alloc.h"
#include "core/log.h"

#include <llvm-c/BitReader.h>
#include <stdlib.h>
#include <string.h>

const char *ic_opcode_name(LLVMOpcode op)
{
	static const struct { LLVMOpcode op; const char *name; } names[] = {
		{ LLVMRet, "ret" }, { LLVMBr, "br" }, { LLVMSwitch, "switch" },
		{ LLVMIndirectBr, "indirectbr" }, { LLVMInvoke, "invoke" },
		{ LLVMUnreachable, "unreachable" }, { LLVMCallBr, "callbr" },
		{ LLVMFNeg, "fneg" }, { LLVMAdd, "add" }, { LLVMFAdd, "fadd" },
		{ LLVMSub, "sub" }, { LLVMFSub, "fsub" }, { LLVMMul, "mul" },
		{ LLVMFMul, "fmul" }, { LLVMUDiv, "udiv" }, { LLVMSDiv, "sdiv" },
		{ LLVMFDiv, "fdiv" }, { LLVMURem, "urem" }, { LLVMSRem, "srem" },
		{ LLVMFRem, "frem" }, { LLVMShl, "shl" }, { LLVMLShr, "lshr" },
		{ LLVMAShr, "ashr" }, { LLVMAnd, "and" }, { LLVMOr, "or" },
		{ LLVMXor, "xor" }, { LLVMAlloca, "alloca" }, { LLVMLoad, "load" },
		{ LLVMStore, "store" }, { LLVMGetElementPtr, "getelementptr" },
		{ LLVMTrunc, "trunc" }, { LLVMZExt, "zext" }, { LLVMSExt, "sext" },
		{ LLVMFPToUI, "fptoui" }, { LLVMFPToSI, "fptosi" },
		{ LLVMUIToFP, "uitofp" }, { LLVMSIToFP, "sitofp" },
		{ LLVMFPTrunc, "fptrunc" }, { LLVMFPExt, "fpext" },
		{ LLVMPtrToInt, "ptrtoint" }, { LLVMIntToPtr, "inttoptr" },
		{ LLVMBitCast, "bitcast" }, { LLVMAddrSpaceCast, "addrspacecast" },
		{ LLVMICmp, "icmp" }, { LLVMFCmp, "fcmp" }, { LLVMPHI, "phi" },
		{ LLVMCall, "call" }, { LLVMSelect, "select" }, { LLVMVAArg, "va_arg" },
		{ LLVMExtractElement, "extractelement" },
		{ LLVMInsertElement, "insertelement" },
		{ LLVMShuffleVector, "shufflevector" },
		{ LLVMExtractValue, "extractvalue" }, { LLVMInsertValue, "insertvalue" },
		{ LLVMFreeze, "freeze" }, { LLVMFence, "fence" },
		{ LLVMAtomicCmpXchg, "cmpxchg" }, { LLVMAtomicRMW, "atomicrmw" },
		{ LLVMResume, "resume" }, { LLVMLandingPad, "landingpad" },
		{ LLVMCleanupRet, "cleanupret" }, { LLVMCatchRet, "catchret" },
		{ LLVMCatchPad, "catchpad" }, { LLVMCleanupPad, "cleanuppad" },
		{ LLVMCatchSwitch, "catchswitch" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].op == op)
			return names[i].name;
	return NULL;
}

static uint64_t type_align(LLVMTypeRef type);

static uint64_t struct_bytes(LLVMTypeRef type)
{
	bool packed = LLVMIsPackedStruct(type);
	uint64_t size = 0, align_max = 1;

	for (unsigned i = 0; i < LLVMCountStructElementTypes(type); i++) {
		LLVMTypeRef member = LLVMStructGetTypeAtIndex(type, i);
		uint64_t align = type_align(member);

		if (!packed && align && size % align)
			size += align - size % align;
		size += ic_type_bytes(member);
		if (align > align_max)
			align_max = align;
	}
	if (!packed && size % align_max)
		size += align_max - size % align_max;
	return size;
}

/* Oclgrind aligns arrays like their element, structs like their widest
 * member (packed: 1), anything else to its own size. */
static uint64_t type_align(LLVMTypeRef type)
{
	switch (LLVMGetTypeKind(type)) {
	case LLVMArrayTypeKind:
		return type_align(LLVMGetElementType(type));
	case LLVMStructTypeKind: {
		uint64_t max = 1;

		if (LLVMIsPackedStruct(type))
			return 1;
		for (unsigned i = 0; i < LLVMCountStructElementTypes(type); i++) {
			uint64_t a = type_align(LLVMStructGetTypeAtIndex(type, i));
			if (a > max)
				max = a;
		}
		return max;
	}
	default:
		return ic_type_bytes(type);
	}
}

uint64_t ic_type_bytes(LLVMTypeRef type)
{
	switch (LLVMGetTypeKind(type)) {
	case LLVMArrayTypeKind:
		return LLVMGetArrayLength(type) * ic_type_bytes(LLVMGetElementType(type));
	case LLVMStructTypeKind:
		return struct_bytes(type);
	case LLVMVectorTypeKind: {
		unsigned n = LLVMGetVectorSize(type);
		return (n == 3 ? 4 : n) * ic_type_bytes(LLVMGetElementType(type));
	}
	case LLVMPointerTypeKind:
		return 8;	/* Oclgrind's sizeof(size_t) on a 64-bit host */
	case LLVMIntegerTypeKind:
		return (LLVMGetIntTypeWidth(type) + 7) / 8;
	case LLVMHalfTypeKind:
	case LLVMBFloatTypeKind:
		return 2;
	case LLVMFloatTypeKind:
		return 4;
	case LLVMDoubleTypeKind:
		return 8;
	case LLVMX86_FP80TypeKind:
		return 10;
	case LLVMFP128TypeKind:
	case LLVMPPC_FP128TypeKind:
		return 16;
	default:
		return 0;
	}
}

static const char *space_name(unsigned as)
{
	static const char *const names[] = { "private", "global", "constant", "local" };
	return as < 4 ? names[as] : "(unknown)";
}

static size_t find_slot(struct ic_layout *l, const char *name, enum ic_slot_kind kind,
			unsigned as)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->slots[i].kind == kind && l->slots[i].addrspace == as &&
		    !strcmp(l->slots[i].name, name))
			return i;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 32;
		l->slots = sibyl_xreallocarray(l->slots, l->cap, sizeof(*l->slots));
	}
	l->slots[l->n] = (struct ic_slot){ .name = sibyl_xstrdup(name), .kind = kind,
					   .addrspace = as };
	return l->n++;
}

void ic_hist_add(struct ic_hist *h, size_t slot, uint64_t add)
{
	for (size_t i = 0; i < h->n; i++)
		if (h->slot[i] == slot) {
			h->add[i] += add;
			return;
		}
	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 8;
		h->slot = sibyl_xreallocarray(h->slot, h->cap, sizeof(*h->slot));
		h->add = sibyl_xreallocarray(h->add, h->cap, sizeof(*h->add));
	}
	h->slot[h->n] = slot;
	h->add[h->n++] = add;
}

static void count_memop(struct ic_layout *l, struct ic_hist *h, bool load, LLVMValueRef ptr)
{
	LLVMTypeRef pty = LLVMTypeOf(ptr);
	unsigned as = LLVMGetPointerAddressSpace(pty);
	char name[64];

	snprintf(name, sizeof(name), "%s %s", load ? "load" : "store", space_name(as));
	size_t slot = find_slot(l, name, IC_MEMOP, as), bytes_slot = find_slot(l, name, IC_BYTES, as);

	l->slots[slot].bytes_slot = bytes_slot;
	ic_hist_add(h, slot, 1);
	ic_hist_add(h, bytes_slot, ic_type_bytes(LLVMGetElementType(pty)));
}

/* "call NAME()" for a direct call; Oclgrind drops llvm.dbg.* from its
 * listing, so they get no slot (*slot stays SIZE_MAX). */
static size_t call_slot(struct ic_layout *l, LLVMValueRef call)
{
	LLVMValueRef callee = LLVMGetCalledValue(call);
	size_t len;
	const char *fn;

	if (!LLVMIsAFunction(callee))
		return find_slot(l, "call", IC_PLAIN, 0);
	fn = LLVMGetValueName2(callee, &len);
	if (len >= 9 && !strncmp(fn, "llvm.dbg.", 9))
		return SIZE_MAX;
	char *name = sibyl_xasprintf("call %.*s()", (int)len, fn);
	size_t slot = find_slot(l, name, IC_PLAIN, 0);

	free(name);
	return slot;
}

void ic_block_hist(struct ic_layout *l, LLVMBasicBlockRef block, struct ic_hist *h)
{
	for (LLVMValueRef i = LLVMGetFirstInstruction(block); i; i = LLVMGetNextInstruction(i)) {
		LLVMOpcode op = LLVMGetInstructionOpcode(i);
		size_t slot;

		if (op == LLVMLoad || op == LLVMStore) {
			count_memop(l, h, op == LLVMLoad, LLVMGetOperand(i, op == LLVMLoad ? 0 : 1));
			continue;
		}
		if (op == LLVMCall) {
			slot = call_slot(l, i);
			if (slot == SIZE_MAX)
				continue;
		} else {
			const char *name = ic_opcode_name(op);

			slot = find_slot(l, name ? name : "<invalid>", IC_PLAIN, 0);
		}
		ic_hist_add(h, slot, 1);
	}
}

void ic_layout_free(struct ic_layout *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->slots[i].name);
	free(l->slots);
	for (size_t c = 0; c < l->ncounters; c++)
		ic_hist_free(&l->counter_hist[c]);
	free(l->counter_hist);
	free(l->mark_counter);
	free(l->barrier_line);
	free(l->race_sites);
	*l = (struct ic_layout){ 0 };
}

void ic_hist_free(struct ic_hist *h)
{
	free(h->slot);
	free(h->add);
	*h = (struct ic_hist){ 0 };
}

static bool contains(LLVMValueRef *set, int n, LLVMValueRef f)
{
	for (int i = 0; i < n; i++)
		if (set[i] == f)
			return true;
	return false;
}

/* Collect the defined functions `f` calls that are not yet in `set`. */
static int add_callees(const struct ic_module *m, LLVMValueRef f, LLVMValueRef **set, int *n,
		       int *cap)
{
	for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
		for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
			if (LLVMGetInstructionOpcode(i) != LLVMCall)
				continue;
			LLVMValueRef callee = LLVMGetCalledValue(i);
			if (!LLVMIsAFunction(callee)) {
				if (LLVMIsAInlineAsm(callee))
					continue;
				return sibyl_seterr(m->err, m->errlen, "instrument: an indirect or "
						    "cast call in '%s' is not supported",
						    LLVMGetValueName(f));
			}
			if (LLVMIsDeclaration(callee) || contains(*set, *n, callee))
				continue;
			if (LLVMGetFunctionCallConv(callee) == LLVMSPIRKERNELCallConv)
				return sibyl_seterr(m->err, m->errlen, "instrument: '%s' calls "
						    "kernel '%s' as a function: not supported",
						    LLVMGetValueName(f), LLVMGetValueName(callee));
			if (*n == *cap) {
				*cap *= 2;
				*set = sibyl_xreallocarray(*set, (size_t)*cap, sizeof(**set));
			}
			(*set)[(*n)++] = callee;
		}
	return 0;
}

int ic_reachable(const struct ic_module *m, LLVMValueRef **out)
{
	int n = 1, cap = 16;
	LLVMValueRef *set = sibyl_xcalloc((size_t)cap, sizeof(*set));

	set[0] = m->kernel;
	for (int i = 0; i < n; i++)
		if (add_callees(m, set[i], &set, &n, &cap)) {
			free(set);
			return -1;
		}
	*out = set;
	return n;
}

void ic_analyze(LLVMValueRef *fns, int nf, struct ic_layout *layout, struct ic_blocks *out)
{
	size_t cap = 0;

	*out = (struct ic_blocks){ 0 };
	for (int f = 0; f < nf; f++)
		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fns[f]); b;
		     b = LLVMGetNextBasicBlock(b)) {
			if (out->n == cap) {
				cap = cap ? 2 * cap : 64;
				out->block = sibyl_xreallocarray(out->block, cap, sizeof(*out->block));
				out->hist = sibyl_xreallocarray(out->hist, cap, sizeof(*out->hist));
			}
			out->block[out->n] = b;
			out->hist[out->n] = (struct ic_hist){ 0 };
			ic_block_hist(layout, b, &out->hist[out->n++]);
		}
}

void ic_blocks_free(struct ic_blocks *blocks)
{
	for (size_t i = 0; i < blocks->n; i++)
		ic_hist_free(&blocks->hist[i]);
	free(blocks->block);
	free(blocks->hist);
	free(blocks->counter);
	free(blocks->head);
	free(blocks->narrow);
	*blocks = (struct ic_blocks){ 0 };
}

int sibyl_static_counts(const void *bc, size_t size, const char *kernel,
			struct sibyl_instcounts *out, char *err, size_t errlen)
{
	struct ic_module m;
	struct ic_layout layout = { 0 };
	struct ic_blocks blocks = { 0 };
	LLVMValueRef *fns = NULL;
	uint64_t *sums = NULL;
	int nf, rc = -1;

	*out = (struct sibyl_instcounts){ 0 };
	if (ic_module_open(&m, bc, size, kernel, err, errlen))
		return -1;
	nf = ic_reachable(&m, &fns);
	if (nf < 0)
		goto out;
	ic_analyze(fns, nf, &layout, &blocks);
	sums = sibyl_xcalloc(layout.n + 1, sizeof(*sums));
	for (size_t b = 0; b < blocks.n; b++)
		for (size_t i = 0; i < blocks.hist[b].n; i++)
			sums[blocks.hist[b].slot[i]] += blocks.hist[b].add[i];
	ic_listing_from_sums(&layout, sums, out);
	rc = 0;
out:
	free(sums);
	free(fns);
	ic_blocks_free(&blocks);
	ic_layout_free(&layout);
	ic_module_close(&m);
	return rc;
}
