/* Kernels and argument layouts from SPIR bitcode, through the LLVM-C API. */
#define _GNU_SOURCE
#include "ocl/driver/kernel_info.h"
#include "core/alloc.h"
#include "core/log.h"

#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <stdlib.h>
#include <string.h>

/* The kernel_arg_* strings of one kernel, by argument. */
struct arg_md {
	unsigned *space;
	char **type, **base, **qual, **name;
};

static struct sibyl_ktype *ktype_of(LLVMTargetDataRef td, LLVMTypeRef ty)
{
	LLVMTypeKind k = LLVMGetTypeKind(ty);
	bool sized = k != LLVMStructTypeKind || !LLVMIsOpaqueStruct(ty);
	struct sibyl_ktype *t = sibyl_ktype_new(SIBYL_KT_OPAQUE,
					  sized ? (size_t)LLVMABISizeOfType(td, ty) : 0);

	switch (k) {
	case LLVMIntegerTypeKind:
		t->kind = SIBYL_KT_INT;
		t->bits = LLVMGetIntTypeWidth(ty);
		t->is_bool = t->bits == 1;
		break;
	case LLVMHalfTypeKind:
	case LLVMFloatTypeKind:
	case LLVMDoubleTypeKind:
		t->kind = SIBYL_KT_FLOAT;
		t->bits = k == LLVMHalfTypeKind ? 16 : k == LLVMFloatTypeKind ? 32 : 64;
		break;
	case LLVMVectorTypeKind:
	case LLVMArrayTypeKind:
		t->kind = k == LLVMVectorTypeKind ? SIBYL_KT_VECTOR : SIBYL_KT_ARRAY;
		t->n = k == LLVMVectorTypeKind ? LLVMGetVectorSize(ty) : LLVMGetArrayLength(ty);
		t->elem = ktype_of(td, LLVMGetElementType(ty));
		break;
	case LLVMStructTypeKind:
		if (!sized)
			break;
		t->kind = SIBYL_KT_STRUCT;
		t->n = LLVMCountStructElementTypes(ty);
		t->members = sibyl_xcalloc(t->n + 1, sizeof(*t->members));
		t->offsets = sibyl_xcalloc(t->n + 1, sizeof(*t->offsets));
		for (unsigned i = 0; i < t->n; i++) {
			t->members[i] = ktype_of(td, LLVMStructGetTypeAtIndex(ty, i));
			t->offsets[i] = LLVMOffsetOfElement(td, ty, i);
		}
		break;
	default:
		break;
	}
	return t;
}

static void set_signed(struct sibyl_ktype *t, bool is_signed, bool is_bool)
{
	t->is_signed = is_signed;
	t->is_bool = t->is_bool || is_bool;
	if (t->elem)
		set_signed(t->elem, is_signed, is_bool);
}

/* Signedness is not in LLVM types; the OpenCL type name carries it. */
static bool unsigned_name(const char *n)
{
	return n[0] == 'u' || !strncmp(n, "unsigned", 8) || !strcmp(n, "size_t") ||
	       !strcmp(n, "bool");
}

static void md_strings(LLVMValueRef node, unsigned nargs, char **out)
{
	LLVMValueRef *ops = sibyl_xcalloc(nargs + 1, sizeof(*ops));
	unsigned n = node ? LLVMGetMDNodeNumOperands(node) : 0;

	if (node)
		LLVMGetMDNodeOperands(node, ops);
	for (unsigned i = 0; i < nargs; i++) {
		unsigned len = 0;
		const char *s = i < n && ops[i] ? LLVMGetMDString(ops[i], &len) : NULL;

		out[i] = s ? sibyl_xstrndup(s, len) : sibyl_xstrdup("");
	}
	free(ops);
}

static LLVMValueRef fn_md(LLVMValueRef fn, const char *kind)
{
	LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(fn));
	unsigned id = LLVMGetMDKindIDInContext(ctx, kind, (unsigned)strlen(kind));
	size_t n = 0;
	LLVMValueMetadataEntry *e = LLVMGlobalCopyAllMetadata(fn, &n);
	LLVMValueRef v = NULL;

	for (size_t i = 0; i < n; i++)
		if (LLVMValueMetadataEntriesGetKind(e, (unsigned)i) == id)
			v = LLVMMetadataAsValue(ctx, LLVMValueMetadataEntriesGetMetadata(e, (unsigned)i));
	if (e)
		LLVMDisposeValueMetadataEntries(e);
	return v;
}

static void read_arg_md(LLVMValueRef fn, unsigned nargs, struct arg_md *md)
{
	LLVMValueRef spaces = fn_md(fn, "kernel_arg_addr_space");
	LLVMValueRef *ops = sibyl_xcalloc(nargs + 1, sizeof(*ops));
	unsigned n = spaces ? LLVMGetMDNodeNumOperands(spaces) : 0;

	md->space = sibyl_xcalloc(nargs + 1, sizeof(*md->space));
	md->type = sibyl_xcalloc(nargs + 1, sizeof(char *));
	md->base = sibyl_xcalloc(nargs + 1, sizeof(char *));
	md->qual = sibyl_xcalloc(nargs + 1, sizeof(char *));
	md->name = sibyl_xcalloc(nargs + 1, sizeof(char *));
	if (spaces)
		LLVMGetMDNodeOperands(spaces, ops);
	for (unsigned i = 0; i < nargs && i < n; i++)
		if (ops[i] && LLVMIsAConstantInt(ops[i]))
			md->space[i] = (unsigned)LLVMConstIntGetZExtValue(ops[i]);
	free(ops);
	md_strings(fn_md(fn, "kernel_arg_type"), nargs, md->type);
	md_strings(fn_md(fn, "kernel_arg_base_type"), nargs, md->base);
	md_strings(fn_md(fn, "kernel_arg_type_qual"), nargs, md->qual);
	md_strings(fn_md(fn, "kernel_arg_name"), nargs, md->name);
}

static const char *space_name(unsigned s)
{
	static const char *names[] = { "private", "global", "constant", "local" };

	return s < 4 ? names[s] : "generic";
}

static void classify(LLVMTargetDataRef td, LLVMTypeRef ty, unsigned space,
		     const char *base, struct sibyl_karg *a)
{
	bool ptr = LLVMGetTypeKind(ty) == LLVMPointerTypeKind;

	a->space = space_name(space);
	a->type = ktype_of(td, ptr ? LLVMGetElementType(ty) : ty);
	if (a->type->kind == SIBYL_KT_OPAQUE)	/* image2d_t, sampler_t, event_t, ... */
		a->kind = !strcmp(base, "sampler_t") ? SIBYL_KARG_SAMPLER
			: !strcmp(base, "image1d_t") || !strcmp(base, "image2d_t") ||
			  !strcmp(base, "image3d_t") ? SIBYL_KARG_IMAGE : SIBYL_KARG_UNSUPPORTED;
	else if (!ptr || space == 0)
		a->kind = SIBYL_KARG_VALUE;		/* scalars, vectors, byval structs */
	else if (space == 3)
		a->kind = SIBYL_KARG_LOCAL;
	else if (space == 1 || space == 2)
		a->kind = SIBYL_KARG_BUFFER;
	else
		a->kind = SIBYL_KARG_UNSUPPORTED;
	/* For pointers the name is "T*": the pointee decides signedness. */
	set_signed(a->type, !unsigned_name(base), !strncmp(base, "bool", 4));
}

/* __attribute__((reqd_work_group_size(X, Y, Z))): !{i32 X, i32 Y, i32 Z}. */
static void read_reqd(LLVMValueRef fn, uint64_t out[3])
{
	LLVMValueRef node = fn_md(fn, "reqd_work_group_size"), ops[3] = { NULL, NULL, NULL };

	if (!node || LLVMGetMDNodeNumOperands(node) != 3)
		return;
	LLVMGetMDNodeOperands(node, ops);
	for (int d = 0; d < 3; d++)
		out[d] = ops[d] && LLVMIsAConstantInt(ops[d]) ? LLVMConstIntGetZExtValue(ops[d]) : 0;
	if (!out[0] || !out[1] || !out[2])
		out[0] = out[1] = out[2] = 0;
}

static void read_kernel(LLVMTargetDataRef td, LLVMValueRef fn, struct sibyl_kernel *k)
{
	size_t len;
	const char *name = LLVMGetValueName2(fn, &len);
	unsigned nargs = LLVMCountParams(fn);
	struct arg_md md;

	k->name = sibyl_xstrndup(name, len);
	k->nargs = nargs;
	k->args = sibyl_xcalloc(nargs + 1, sizeof(*k->args));
	read_arg_md(fn, nargs, &md);
	for (unsigned i = 0; i < nargs; i++) {
		struct sibyl_karg *a = &k->args[i];

		a->name = *md.name[i] ? md.name[i] : (free(md.name[i]), NULL);
		if (!a->name)
			a->name = sibyl_xasprintf("arg%u", i);
		a->type_name = md.type[i];
		a->qualifiers = md.qual[i];
		classify(td, LLVMTypeOf(LLVMGetParam(fn, i)), md.space[i], md.base[i], a);
		free(md.base[i]);
	}
	read_reqd(fn, k->reqd_wg);
	free(md.base);
	free(md.space);
	free(md.type);
	free(md.qual);
	free(md.name);
}

int sibyl_kernels_read(const void *bc, size_t size, struct sibyl_kernels *out, char *err,
		       size_t errlen)
{
	LLVMContextRef ctx = LLVMContextCreate();
	LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(bc, size, "kernel");
	LLVMModuleRef mod = NULL;

	memset(out, 0, sizeof(*out));
	if (LLVMParseBitcodeInContext2(ctx, buf, &mod)) {
		LLVMDisposeMemoryBuffer(buf);
		LLVMContextDispose(ctx);
		return sibyl_seterr(err, errlen, "kernel: cannot read the SPIR bitcode clang-14 "
				    "produced");
	}
	LLVMDisposeMemoryBuffer(buf);
	LLVMTargetDataRef td = LLVMCreateTargetData(LLVMGetDataLayoutStr(mod));

	for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn; fn = LLVMGetNextFunction(fn)) {
		if (LLVMIsDeclaration(fn) || LLVMGetFunctionCallConv(fn) != LLVMSPIRKERNELCallConv)
			continue;
		out->items = sibyl_xreallocarray(out->items, out->n + 1, sizeof(*out->items));
		memset(&out->items[out->n], 0, sizeof(*out->items));
		read_kernel(td, fn, &out->items[out->n++]);
	}
	LLVMDisposeTargetData(td);
	LLVMDisposeModule(mod);
	LLVMContextDispose(ctx);
	return 0;
}

