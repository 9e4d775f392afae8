/* Unit tests of the instruction counter: listing format and order,
 * coarsening, Oclgrind's byte sizes, the rewritten kernel's signature and
 * kernel_arg_* metadata (shared nodes), static counts, error paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "ocl/instrument/instrument_internal.h"

#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/IRReader.h>
#include <stdlib.h>
#include <string.h>

/* Two kernels sharing metadata nodes (!5 is both type and base_type of
 * k2, !4 is the access qualifiers of both) and a helper both call with
 * a local pointer. */
static const char ir[] =
	"target datalayout = \"e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024\"\n"
	"target triple = \"spir64\"\n"
	"define spir_func i32 @helper(i32 addrspace(3)* %p) {\n"
	"  %v = load i32, i32 addrspace(3)* %p\n"
	"  %c = icmp sgt i32 %v, 0\n"
	"  br i1 %c, label %a, label %b\n"
	"a:\n  ret i32 %v\n"
	"b:\n  ret i32 0\n}\n"
	"define spir_kernel void @k1(i32 addrspace(1)* %o, i32 addrspace(3)* %l) !kernel_arg_addr_space !1 !kernel_arg_access_qual !4 !kernel_arg_type !3 !kernel_arg_base_type !3 !kernel_arg_type_qual !6 {\n"
	"  %r = call spir_func i32 @helper(i32 addrspace(3)* %l)\n"
	"  store i32 %r, i32 addrspace(1)* %o\n"
	"  ret void\n}\n"
	"define spir_kernel void @k2(i32 addrspace(1)* %o, i32 addrspace(3)* %l) !kernel_arg_addr_space !1 !kernel_arg_access_qual !4 !kernel_arg_type !5 !kernel_arg_base_type !5 !kernel_arg_type_qual !6 {\n"
	"  %x = alloca <3 x float>\n"
	"  %v = load <3 x float>, <3 x float>* %x\n"
	"  %r = call spir_func i32 @helper(i32 addrspace(3)* %l)\n"
	"  %r2 = call spir_func i32 @helper(i32 addrspace(3)* %l)\n"
	"  %s = add i32 %r, %r2\n"
	"  store i32 %s, i32 addrspace(1)* %o\n"
	"  ret void\n}\n"
	"!1 = !{i32 1, i32 3}\n"
	"!3 = !{!\"int*\", !\"int*\"}\n"
	"!4 = !{!\"none\", !\"none\"}\n"
	"!5 = !{!\"int*\", !\"int*\"}\n"
	"!6 = !{!\"\", !\"\"}\n";

static void *bitcode(size_t *size)
{
	LLVMContextRef ctx = LLVMContextCreate();
	LLVMMemoryBufferRef in = LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, sizeof(ir) - 1, "t");
	LLVMModuleRef mod;
	char *msg = NULL;

	assert_int_equal(LLVMParseIRInContext(ctx, in, &mod, &msg), 0);
	LLVMMemoryBufferRef out = LLVMWriteBitcodeToMemoryBuffer(mod);
	*size = LLVMGetBufferSize(out);
	void *bc = malloc(*size);
	memcpy(bc, LLVMGetBufferStart(out), *size);
	LLVMDisposeMemoryBuffer(out);
	LLVMDisposeModule(mod);
	LLVMContextDispose(ctx);
	return bc;
}

static char *listing(const struct sibyl_instcounts *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	sibyl_instcounts_print(f, "k", c);
	fclose(f);
	return text;
}

static void test_print_order(void **state)
{
	(void)state;
	struct sibyl_instcount items[] = {
		{ "br", 5, 0 }, { "load global (8 bytes)", 2, 8 }, { "alloca", 5, 0 },
		{ "call _Z13get_global_idj()", 12345678901234ull, 0 },
	};
	struct sibyl_instcounts c = { items, 4 };

	ic_listing_sort(&c);
	char *text = listing(&c);
	assert_string_equal(text, "Instructions executed for kernel 'k':\n"
				  "  12345678901234 - call _Z13get_global_idj()\n"
				  "               5 - alloca\n"
				  "               5 - br\n"
				  "               2 - load global (8 bytes)\n"
				  "\n");
	free(text);
}

static void add(struct sibyl_instcounts *c, const char *name, uint64_t n, uint64_t bytes)
{
	c->items = realloc(c->items, (c->n + 1) * sizeof(*c->items));
	c->items[c->n++] = (struct sibyl_instcount){ strdup(name), n, bytes };
}

static void test_coarsen(void **state)
{
	(void)state;
	struct sibyl_instcounts c = { 0 };

	add(&c, "call f()", 3, 0);
	add(&c, "load global (64 bytes)", 16, 64);
	add(&c, "call llvm.memcpy.p0i8.p1i8.i64()", 2, 0);
	add(&c, "call", 1, 0);
	add(&c, "store private (8 bytes)", 2, 8);
	sibyl_instcounts_coarsen(&c);
	char *text = listing(&c);
	assert_string_equal(text, "Instructions executed for kernel 'k':\n"
				  "              16 - load global\n"
				  "               6 - call\n"
				  "               2 - store private\n\n");
	assert_int_equal(c.items[0].bytes, 64);
	free(text);
	sibyl_instcounts_free(&c);
}

static void test_type_bytes(void **state)
{
	(void)state;
	LLVMContextRef ctx = LLVMContextCreate();
	LLVMTypeRef f = LLVMFloatTypeInContext(ctx), i8 = LLVMInt8TypeInContext(ctx);
	LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx), v3 = LLVMVectorType(f, 3);
	LLVMTypeRef members[] = { i8, i32, v3 };

	assert_int_equal(ic_type_bytes(v3), 16);
	assert_int_equal(ic_type_bytes(LLVMInt1TypeInContext(ctx)), 1);
	assert_int_equal(ic_type_bytes(LLVMPointerType(i8, 1)), 8);
	assert_int_equal(ic_type_bytes(LLVMArrayType(v3, 3)), 48);
	assert_int_equal(ic_type_bytes(LLVMStructTypeInContext(ctx, members, 2, 0)), 8);
	assert_int_equal(ic_type_bytes(LLVMStructTypeInContext(ctx, members, 2, 1)), 5);
	assert_int_equal(ic_type_bytes(LLVMStructTypeInContext(ctx, members, 3, 0)), 32);
	assert_int_equal(ic_type_bytes(LLVMDoubleTypeInContext(ctx)), 8);
	LLVMContextDispose(ctx);
}

/* The last entry of a kernel's `kind` node, as text. */
static const char *md_last_string(LLVMContextRef ctx, LLVMValueRef f, const char *kind)
{
	unsigned id = LLVMGetMDKindIDInContext(ctx, kind, (unsigned)strlen(kind)), len;
	size_t count;
	const char *out = NULL;
	LLVMValueMetadataEntry *md = LLVMGlobalCopyAllMetadata(f, &count);

	for (unsigned i = 0; i < count; i++)
		if (LLVMValueMetadataEntriesGetKind(md, i) == id) {
			LLVMValueRef node = LLVMMetadataAsValue(ctx, LLVMValueMetadataEntriesGetMetadata(md, i));
			LLVMValueRef ops[8];
			unsigned n = LLVMGetMDNodeNumOperands(node);
			assert_true(n <= 8);
			LLVMGetMDNodeOperands(node, ops);
			out = LLVMGetMDString(ops[n - 1], &len);
		}
	LLVMDisposeValueMetadataEntries(md);
	return out;
}

static unsigned md_operands(LLVMContextRef ctx, LLVMValueRef f, const char *kind)
{
	unsigned id = LLVMGetMDKindIDInContext(ctx, kind, (unsigned)strlen(kind)), n = 0;
	size_t count;
	LLVMValueMetadataEntry *md = LLVMGlobalCopyAllMetadata(f, &count);

	for (unsigned i = 0; i < count; i++)
		if (LLVMValueMetadataEntriesGetKind(md, i) == id)
			n = LLVMGetMDNodeNumOperands(
				LLVMMetadataAsValue(ctx, LLVMValueMetadataEntriesGetMetadata(md, i)));
	LLVMDisposeValueMetadataEntries(md);
	return n;
}

/* The error line a failing call gives back. */
static char err[512];

static void test_rewrite(void **state)
{
	(void)state;
	size_t size;
	void *bc = bitcode(&size);
	struct sibyl_instrumented in;
	LLVMContextRef ctx = LLVMContextCreate();
	LLVMModuleRef mod;

	assert_int_equal(sibyl_instrument_kernel(bc, size, "k2", &in, err, sizeof(err)), 0);
	assert_int_equal(in.counter_arg, 2);
	LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(in.bitcode, in.size, "o", 0);
	assert_int_equal(LLVMParseBitcodeInContext2(ctx, buf, &mod), 0);
	LLVMValueRef k2 = LLVMGetNamedFunction(mod, "k2");
	assert_non_null(k2);
	assert_null(LLVMGetNamedFunction(mod, "k1"));	/* other kernels go */
	assert_int_equal(LLVMCountParams(k2), 3);
	assert_int_equal(LLVMGetFunctionCallConv(k2), LLVMSPIRKERNELCallConv);
	const char *kinds[] = { "kernel_arg_addr_space", "kernel_arg_access_qual", "kernel_arg_type",
				"kernel_arg_base_type", "kernel_arg_type_qual" };
	for (size_t i = 0; i < 5; i++)	/* extended exactly once, shared nodes too */
		assert_int_equal(md_operands(ctx, k2, kinds[i]), 3);
	assert_string_equal(md_last_string(ctx, k2, "kernel_arg_type"), "ulong*");
	assert_string_equal(md_last_string(ctx, k2, "kernel_arg_base_type"), "ulong*");
	assert_string_equal(md_last_string(ctx, k2, "kernel_arg_access_qual"), "none");
	assert_string_equal(md_last_string(ctx, k2, "kernel_arg_type_qual"), "");
	LLVMValueRef helper = LLVMGetNamedFunction(mod, "helper");
	assert_int_equal(LLVMCountParams(helper), 2);	/* counters passed down */
	assert_int_equal(LLVMGetTypeKind(LLVMTypeOf(LLVMGetParam(helper, 1))), LLVMPointerTypeKind);
	/* k2's counter, then helper's entry and one for a and b: both are a
	 * lone `ret`, so their entries are counted together */
	assert_int_equal(sibyl_instrumented_buffer_size(&in, 64, 16), 3 * 8);

	/* each counter's entries times its blocks' instructions */
	struct sibyl_instcounts c;
	uint64_t entries[3] = { 1, 2, 2 };
	assert_int_equal(sibyl_instrumented_decode(&in, entries, sizeof(entries), &c, err,
						   sizeof(err)), 0);
	char *text = listing(&c);
	assert_non_null(strstr(text, "               3 - ret\n"));
	assert_non_null(strstr(text, "               2 - load local (8 bytes)\n"));
	assert_non_null(strstr(text, "               2 - call helper()\n"));
	assert_non_null(strstr(text, "               2 - br\n"));
	assert_non_null(strstr(text, "               1 - load private (16 bytes)\n"));
	free(text);
	sibyl_instcounts_free(&c);

	/* a buffer that is too small is refused */
	uint64_t small = 0;
	assert_int_equal(sibyl_instrumented_decode(&in, &small, sizeof(small), &c, err, sizeof(err)), -1);
	LLVMDisposeModule(mod);
	LLVMDisposeMemoryBuffer(buf);
	LLVMContextDispose(ctx);
	sibyl_instrumented_free(&in);
	free(bc);
}

/* Per-item rows: the buffer grows with the NDRange, the rows are summed. */
static void test_rows(void **state)
{
	(void)state;
	size_t size;
	void *bc = bitcode(&size);
	struct sibyl_instrument_options opt = { .per_item_rows = true };
	struct sibyl_instrumented in;
	struct sibyl_instcounts c;

	assert_int_equal(sibyl_instrument_kernel_ex(bc, size, "k1", &opt, &in, err, sizeof(err)), 0);
	size_t row = sibyl_instrumented_buffer_size(&in, 1, 0);
	assert_int_equal(sibyl_instrumented_buffer_size(&in, 3, 1), 3 * row);
	/* rows * items wrapped to a small buffer: now "more than fits" */
	assert_true(sibyl_instrumented_buffer_size(&in, SIZE_MAX / 8, 0) == SIZE_MAX);
	/* k1's counter, helper's entry's, and the one its two `ret` blocks
	 * share (test_rewrite) */
	assert_int_equal(row, 3 * 8);
	uint64_t *buf = calloc(3, row);
	for (size_t i = 0; i < 3 * row / 8; i++)
		buf[i] = i % 3 == 2 ? 2 : 1;
	assert_int_equal(sibyl_instrumented_decode(&in, buf, 3 * row, &c, err, sizeof(err)), 0);
	/* every block entered once in each of three rows: three times the
	 * static counts, bytes included */
	struct sibyl_instcounts once;
	assert_int_equal(sibyl_static_counts(bc, size, "k1", &once, err, sizeof(err)), 0);
	assert_int_equal(c.n, once.n);
	uint64_t total = 0, total_once = 0, bytes = 0, bytes_once = 0;
	for (size_t i = 0; i < c.n; i++)
		total += c.items[i].count, bytes += c.items[i].bytes;
	for (size_t i = 0; i < once.n; i++)
		total_once += once.items[i].count, bytes_once += once.items[i].bytes;
	assert_int_equal(total, 3 * total_once);
	assert_int_equal(bytes, 3 * bytes_once);
	sibyl_instcounts_free(&once);
	sibyl_instcounts_free(&c);
	assert_int_equal(sibyl_instrumented_decode(&in, buf, 3 * row - 8, &c, err, sizeof(err)), -1);
	free(buf);
	sibyl_instrumented_free(&in);
	free(bc);
}

static void test_static(void **state)
{
	(void)state;
	size_t size;
	void *bc = bitcode(&size);
	struct sibyl_instcounts c;

	assert_int_equal(sibyl_static_counts(bc, size, "k2", &c, err, sizeof(err)), 0);
	char *text = listing(&c);
	assert_string_equal(text, "Instructions executed for kernel 'k':\n"
				  "               3 - ret\n"
				  "               2 - call helper()\n"
				  "               1 - add\n"
				  "               1 - alloca\n"
				  "               1 - br\n"
				  "               1 - icmp\n"
				  "               1 - load local (4 bytes)\n"
				  "               1 - load private (16 bytes)\n"
				  "               1 - store global (4 bytes)\n\n");
	free(text);
	sibyl_instcounts_free(&c);
	free(bc);
}

/* A loop, two `if` bodies alike, two barrier blocks alike. */
static const char ir_counters[] =
	"target triple = \"spir64\"\n"
	"declare spir_func void @_Z7barrierj(i32)\n"
	"define spir_kernel void @k(i32 addrspace(1)* %o, i32 %n) {\n"
	"entry:\n  br label %head\n"
	"head:\n  %i = phi i32 [ 0, %entry ], [ %j, %body ]\n"
	"  %c = icmp slt i32 %i, %n\n  br i1 %c, label %body, label %exit\n"
	"body:\n  %j = add i32 %i, 1\n  br label %head\n"
	"exit:\n  %d = icmp sgt i32 %n, 0\n  br i1 %d, label %t1, label %e1\n"
	"t1:\n  store i32 1, i32 addrspace(1)* %o\n  br label %e1\n"
	"e1:\n  br i1 %d, label %t2, label %e2\n"
	"t2:\n  store i32 2, i32 addrspace(1)* %o\n  br label %e2\n"
	"e2:\n  br i1 %d, label %b1, label %b2\n"
	"b1:\n  call spir_func void @_Z7barrierj(i32 1)\n  br label %e3\n"
	"b2:\n  call spir_func void @_Z7barrierj(i32 1)\n  br label %e3\n"
	"e3:\n  ret void\n}\n";

/* The block named `name` of the analysed blocks. */
static size_t block_named(const struct ic_blocks *blocks, const char *name)
{
	for (size_t i = 0; i < blocks->n; i++)
		if (!strcmp(LLVMGetBasicBlockName(blocks->block[i]), name))
			return i;
	fail_msg("no block %s", name);
	return 0;
}

/* A block that always runs as often as another counts on its counter
 * (a join of an if's arms with the if's block); blocks with equal
 * histograms share a counter, except across a cycle's edge or at a
 * barrier; counters of blocks on no cycle are narrow. */
static void test_counters(void **state)
{
	(void)state;
	struct ic_module m = { 0 };
	LLVMMemoryBufferRef in = LLVMCreateMemoryBufferWithMemoryRangeCopy(
		ir_counters, sizeof(ir_counters) - 1, "t");
	char *msg = NULL;

	m.ctx = LLVMContextCreate();
	assert_int_equal(LLVMParseIRInContext(m.ctx, in, &m.mod, &msg), 0);
	m.kernel = LLVMGetNamedFunction(m.mod, "k");
	m.err = err, m.errlen = sizeof(err);
	LLVMValueRef *fns;
	struct ic_layout layout = { 0 };
	struct ic_blocks b;
	int nf = ic_reachable(&m, &fns);
	assert_int_equal(nf, 1);
	ic_analyze(fns, nf, &layout, &b);
	ic_assign_counters(&b, &layout);
	/* exit with e1, e2, e3 (the joins); t1 with t2; entry, head, body,
	 * b1, b2 alone */
	assert_int_equal(layout.ncounters, 7);
	size_t exit = block_named(&b, "exit"), head = block_named(&b, "head");
	assert_int_equal(b.counter[exit], b.counter[block_named(&b, "e1")]);
	assert_int_equal(b.counter[exit], b.counter[block_named(&b, "e3")]);
	assert_false(b.head[block_named(&b, "e2")]);
	assert_true(b.head[block_named(&b, "t2")]);
	assert_int_not_equal(b.counter[exit], b.counter[head]);
	assert_int_equal(b.counter[block_named(&b, "t1")], b.counter[block_named(&b, "t2")]);
	assert_int_not_equal(b.counter[block_named(&b, "b1")], b.counter[block_named(&b, "b2")]);
	assert_false(b.narrow[b.counter[head]]);
	assert_false(b.narrow[b.counter[block_named(&b, "body")]]);
	assert_true(b.narrow[b.counter[exit]]);
	assert_true(b.narrow[b.counter[block_named(&b, "t1")]]);
	/* exit's counter stands for its chain: icmp, three br and ret */
	const struct ic_hist *h = &layout.counter_hist[b.counter[exit]];
	uint64_t total = 0;
	for (size_t k = 0; k < h->n; k++)
		total += h->add[k];
	assert_int_equal(total, 5);
	free(fns);
	ic_blocks_free(&b);
	ic_layout_free(&layout);
	ic_module_close(&m);
}

static void test_errors(void **state)
{
	(void)state;
	size_t size;
	void *bc = bitcode(&size);
	struct sibyl_instrumented in;
	struct sibyl_instcounts c;

	assert_int_equal(sibyl_instrument_kernel("not bitcode", 11, "k1", &in, err, sizeof(err)), -1);
	assert_string_equal(err, "instrument: not LLVM bitcode: Invalid bitcode signature");
	assert_int_equal(sibyl_instrument_kernel(bc, size, "nosuch", &in, err, sizeof(err)), -1);
	assert_string_equal(err, "instrument: no kernel 'nosuch' in the bitcode");
	assert_int_equal(sibyl_instrument_kernel(bc, size, "helper", &in, err, sizeof(err)), -1);	/* not a kernel */
	assert_int_equal(sibyl_static_counts(bc, size / 2, "k1", &c, err, sizeof(err)), -1);
	free(bc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_print_order), cmocka_unit_test(test_coarsen),
		cmocka_unit_test(test_type_bytes), cmocka_unit_test(test_rewrite), cmocka_unit_test(test_rows),
		cmocka_unit_test(test_static), cmocka_unit_test(test_counters),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
