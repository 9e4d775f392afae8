/*
 * What LLVM types forget: whether an integer inside a struct is signed,
 * and which bytes are bool. libclang reads the struct declarations of
 * the kernels' parameters; each field is matched to the LLVM member at
 * the same offset, so the layout still comes from the DataLayout alone.
 */
#include "ocl/driver/kernel_info.h"
#include "core/alloc.h"
#include "core/log.h"

#include <clang-c/Index.h>

#ifndef SIBYL_CLANG_RESOURCE_DIR
#define SIBYL_CLANG_RESOURCE_DIR "/usr/lib/llvm-14/lib/clang/14.0.6"
#endif
#include <stdlib.h>
#include <string.h>

static void apply(CXType ct, struct sibyl_ktype *t);

struct fields {
	struct sibyl_ktype *t;
};

static enum CXVisitorResult on_field(CXCursor field, CXClientData data)
{
	struct sibyl_ktype *t = ((struct fields *)data)->t;
	long long bits = clang_Cursor_getOffsetOfField(field);

	for (size_t i = 0; bits >= 0 && i < t->n; i++)
		if (t->offsets[i] * 8 == (size_t)bits) {
			t->members[i]->is_padding = false;
			apply(clang_getCursorType(field), t->members[i]);
			break;
		}
	return CXVisit_Continue;
}

static void apply(CXType ct, struct sibyl_ktype *t)
{
	ct = clang_getCanonicalType(ct);
	switch (t->kind) {
	case SIBYL_KT_INT:
		switch (ct.kind) {
		case CXType_Bool:
			t->is_bool = true;
			t->is_signed = false;
			break;
		case CXType_Char_U: case CXType_UChar: case CXType_UShort:
		case CXType_UInt: case CXType_ULong: case CXType_ULongLong:
			t->is_signed = false;
			break;
		case CXType_Char_S: case CXType_SChar: case CXType_Short:
		case CXType_Int: case CXType_Long: case CXType_LongLong:
			t->is_signed = true;
			break;
		default:
			break;
		}
		break;
	case SIBYL_KT_VECTOR:
	case SIBYL_KT_ARRAY:
		apply(ct.kind == CXType_ConstantArray ? clang_getArrayElementType(ct)
						      : clang_getElementType(ct), t->elem);
		break;
	case SIBYL_KT_STRUCT:
		if (ct.kind == CXType_Record) {
			struct fields f = { t };

			/* Members no field lands on are clang's explicit padding. */
			for (size_t i = 0; i < t->n; i++)
				t->members[i]->is_padding = true;
			clang_Type_visitFields(ct, on_field, &f);
		}
		break;
	default:
		break;
	}
}

struct search {
	struct sibyl_kernels *ks;
};

static void refine_kernel(CXCursor fn, struct sibyl_kernel *k)
{
	int n = clang_Cursor_getNumArguments(fn);

	for (int i = 0; i < n && (size_t)i < k->nargs; i++) {
		struct sibyl_karg *a = &k->args[i];
		CXType ct = clang_getCanonicalType(clang_getCursorType(clang_Cursor_getArgument(fn, (unsigned)i)));

		if (ct.kind == CXType_Pointer)
			ct = clang_getPointeeType(ct);
		/* Top-level scalars and vectors already have their sign from
		 * kernel_arg_base_type; structs are what needs the source. */
		if (a->type->kind == SIBYL_KT_STRUCT || a->type->kind == SIBYL_KT_ARRAY)
			apply(ct, a->type);
	}
}

static enum CXChildVisitResult on_decl(CXCursor c, CXCursor parent, CXClientData data)
{
	struct search *s = data;
	(void)parent;

	if (clang_getCursorKind(c) == CXCursor_FunctionDecl && clang_isCursorDefinition(c)) {
		CXString name = clang_getCursorSpelling(c);

		for (size_t i = 0; i < s->ks->n; i++)
			if (!strcmp(s->ks->items[i].name, clang_getCString(name)))
				refine_kernel(c, &s->ks->items[i]);
		clang_disposeString(name);
	}
	return CXChildVisit_Continue;
}

void sibyl_kernels_refine(struct sibyl_kernels *ks, const char *file, const char *const *args,
			  int nargs)
{
	CXIndex idx = clang_createIndex(0, 0);
	CXTranslationUnit tu = NULL;
	struct search s = { ks };
	const char **all = sibyl_xcalloc((size_t)nargs + 3, sizeof(*all));

	/* -resource-dir is not enough for libclang to find opencl-c-base.h. */
	all[0] = "-isystem";
	all[1] = SIBYL_CLANG_RESOURCE_DIR "/include";
	memcpy(all + 2, args, (size_t)nargs * sizeof(*all));
	if (clang_parseTranslationUnit2(idx, file, all, nargs + 2, NULL, 0, CXTranslationUnit_None,
					&tu) == CXError_Success && tu) {
		clang_visitChildren(clang_getTranslationUnitCursor(tu), on_decl, &s);
		clang_disposeTranslationUnit(tu);
	} else {
		sibyl_info("kernel: libclang could not parse %s; struct integers stay unsigned",
			   file);
	}
	clang_disposeIndex(idx);
	free(all);
}
