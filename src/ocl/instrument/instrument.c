/*
 * sibyl_instrument_kernel: parse SPIR bitcode, work out every block's
 * static histogram (counts.c), rewrite the kernel and the functions it
 * reaches so they count into private counters (instrument_rewrite.c),
 * and write the bitcode back. Also the decoder of the counters buffer.
 *
 * Everything runs in a context of its own, so callers on several threads
 * and repeated calls do not share LLVM state.
 */
#include "ocl/instrument/instrument_internal.h"

#include "core/alloc.h"
#include "core/log.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Error.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdlib.h>
#include <string.h>

/* LLVM reports bitcode errors through the context; without a handler
 * it would print and exit(1), taking sibyl down. */
static void on_diagnostic(LLVMDiagnosticInfoRef info, void *arg)
{
	char **first = arg;

	if (*first || LLVMGetDiagInfoSeverity(info) != LLVMDSError)
		return;
	*first = LLVMGetDiagInfoDescription(info);
}

int ic_module_open(struct ic_module *m, const void *bc, size_t size, const char *kernel,
		   char *err, size_t errlen)
{
	char *diag = NULL;
	LLVMMemoryBufferRef buf;

	*m = (struct ic_module){ LLVMContextCreate(), NULL, NULL, err, errlen };
	LLVMContextSetDiagnosticHandler(m->ctx, on_diagnostic, &diag);
	buf = LLVMCreateMemoryBufferWithMemoryRange(bc, size, "spir", 0);
	if (LLVMParseBitcodeInContext2(m->ctx, buf, &m->mod)) {
		sibyl_seterr(err, errlen, "instrument: not LLVM bitcode: %s",
			     diag ? diag : "parse error");
		LLVMDisposeMessage(diag);
		LLVMDisposeMemoryBuffer(buf);
		LLVMContextDispose(m->ctx);
		*m = (struct ic_module){ 0 };
		return -1;
	}
	LLVMDisposeMemoryBuffer(buf);
	LLVMContextSetDiagnosticHandler(m->ctx, NULL, NULL);
	m->kernel = LLVMGetNamedFunction(m->mod, kernel);
	if (!m->kernel || LLVMIsDeclaration(m->kernel) ||
	    LLVMGetFunctionCallConv(m->kernel) != LLVMSPIRKERNELCallConv) {
		sibyl_seterr(err, errlen, "instrument: no kernel '%s' in the bitcode", kernel);
		ic_module_close(m);
		return -1;
	}
	return 0;
}

void ic_module_close(struct ic_module *m)
{
	if (m->mod)
		LLVMDisposeModule(m->mod);
	if (m->ctx)
		LLVMContextDispose(m->ctx);
	*m = (struct ic_module){ 0 };
}

int ic_module_open_ssa(struct ic_module *m, const void *bc, size_t size, const char *kernel,
		       const char *what, char *err, size_t errlen)
{
	if (ic_module_open(m, bc, size, kernel, err, errlen) < 0)
		return -1;
	if (ic_run_passes(m, "mem2reg", what) == 0)
		return 0;
	ic_module_close(m);
	return -1;
}

int ic_run_passes(const struct ic_module *m, const char *passes, const char *what)
{
	LLVMPassBuilderOptionsRef opt = LLVMCreatePassBuilderOptions();
	LLVMErrorRef err = LLVMRunPasses(m->mod, passes, NULL, opt);

	LLVMDisposePassBuilderOptions(opt);
	if (!err)
		return 0;
	char *msg = LLVMGetErrorMessage(err);
	sibyl_seterr(m->err, m->errlen, "%s: %s", what, msg);
	LLVMDisposeErrorMessage(msg);
	return -1;
}

int ic_emit(const struct ic_module *m, const char *what, const char *passes, void **bc,
	    size_t *size)
{
	char *msg = NULL;

	if (LLVMVerifyModule(m->mod, LLVMReturnStatusAction, &msg)) {
		/* the first line says what broke; the rest is IR */
		char *nl = msg ? strchr(msg, '\n') : NULL;
		if (nl)
			*nl = '\0';
		sibyl_seterr(m->err, m->errlen, "instrument: %s is invalid: %s", what,
			     msg ? msg : "?");
		LLVMDisposeMessage(msg);
		return -1;
	}
	LLVMDisposeMessage(msg);
	if (passes && ic_run_passes(m, passes, "instrument: inlining the helpers"))
		return -1;
	LLVMMemoryBufferRef buf = LLVMWriteBitcodeToMemoryBuffer(m->mod);
	*size = LLVMGetBufferSize(buf);
	*bc = sibyl_xmalloc(*size);
	memcpy(*bc, LLVMGetBufferStart(buf), *size);
	LLVMDisposeMemoryBuffer(buf);
	return 0;
}

int ic_write_bitcode(const struct ic_module *m, struct sibyl_instrumented *out)
{
	/* Inline the flushes (alwaysinline) here, so that the kernel's own
	 * counters are indexed by constants only and stay in registers
	 * whatever the device compiler does.  Helpers keep the inlining
	 * attributes clang gave them, as in the plain kernel. */
	return ic_emit(m, "the instrumented IR", "always-inline", &out->bitcode, &out->size);
}

int ic_finish(int rc, struct ic_layout *layout, struct sibyl_instrumented *out)
{
	if (rc) {
		ic_layout_free(layout);
		free(layout);
		free(out->bitcode);
		*out = (struct sibyl_instrumented){ 0 };
		return -1;
	}
	out->layout = layout;
	return 0;
}

int sibyl_instrument_kernel(const void *bc, size_t size, const char *kernel,
			    struct sibyl_instrumented *out, char *err, size_t errlen)
{
	return sibyl_instrument_kernel_ex(bc, size, kernel, NULL, out, err, errlen);
}

int sibyl_instrument_kernel_ex(const void *bc, size_t size, const char *kernel,
			       const struct sibyl_instrument_options *opt,
			       struct sibyl_instrumented *out, char *err, size_t errlen)
{
	struct ic_module m;
	struct ic_layout *layout = sibyl_xcalloc(1, sizeof(*layout));
	struct ic_blocks blocks = { 0 };
	LLVMValueRef *fns = NULL;
	int nf, rc = -1;

	*out = (struct sibyl_instrumented){ 0 };
	layout->per_item = opt && opt->per_item_rows;
	if (ic_module_open(&m, bc, size, kernel, err, errlen)) {
		free(layout);
		return -1;
	}
	out->counter_arg = LLVMCountParams(m.kernel);
	nf = ic_reachable(&m, &fns);
	if (nf >= 0) {
		ic_analyze(fns, nf, layout, &blocks);
		ic_assign_counters(&blocks, layout);
		if (opt && opt->strip_barriers)
			ic_barrier_lines(&blocks, layout);
		if (opt && opt->rows_max_bytes && opt->max_items && layout->ncounters &&
		    opt->max_items <= opt->rows_max_bytes / (layout->ncounters * sizeof(uint64_t)))
			layout->per_item = true;
	}
	if (nf >= 0 && !ic_rewrite(&m, fns, nf, layout, &blocks)) {
		if (opt && opt->strip_barriers)
			ic_strip_barriers(m.mod);
		rc = ic_write_bitcode(&m, out);
	}
	free(fns);
	ic_blocks_free(&blocks);
	ic_module_close(&m);
	return ic_finish(rc, layout, out);
}

size_t sibyl_instrumented_buffer_size(const struct sibyl_instrumented *in,
				      size_t global_items, size_t local_items)
{
	const struct ic_layout *layout = in->layout;
	size_t row = (layout->ncounters ? layout->ncounters : 1) * sizeof(uint64_t), size;

	(void)local_items;
	if (layout->races)	/* a count and the entries per group */
		return (size_t)(layout->race_groups * (1 + IC_RACE_WORDS * layout->race_records) *
				sizeof(uint64_t));
	/* atomics: one shared row; otherwise one row per work-item */
	if (!layout->per_item)
		return row;
	if (__builtin_mul_overflow(row, global_items ? global_items : 1, &size))
		return SIZE_MAX;
	return size;
}

int sibyl_instrumented_decode(const struct sibyl_instrumented *in, const void *buffer,
			      size_t size, struct sibyl_instcounts *out, char *err, size_t errlen)
{
	const struct ic_layout *layout = in->layout;
	size_t row = layout->ncounters * sizeof(uint64_t);
	size_t rows = !row ? 0 : layout->per_item ? size / row : 1;
	uint64_t *entries, *sums, v;

	*out = (struct sibyl_instcounts){ 0 };
	if (size < row || (layout->per_item && size % row))
		return sibyl_seterr(err, errlen, "instrument: counters buffer of %zu bytes does "
				    "not hold rows of %zu", size, row);
	entries = sibyl_xcalloc(layout->ncounters + 1, sizeof(*entries));
	for (size_t r = 0; r < rows; r++)
		for (size_t c = 0; c < layout->ncounters; c++) {
			/* memcpy: the caller's buffer need not be aligned for uint64_t */
			memcpy(&v, (const char *)buffer + r * row + c * sizeof(v), sizeof(v));
			entries[c] += v;
		}
	/* each counter's entries times the histogram of its blocks */
	sums = sibyl_xcalloc(layout->n + 1, sizeof(*sums));
	for (size_t c = 0; c < layout->ncounters; c++)
		for (size_t k = 0; k < layout->counter_hist[c].n; k++)
			sums[layout->counter_hist[c].slot[k]] += entries[c] * layout->counter_hist[c].add[k];
	ic_listing_from_sums(layout, sums, out);
	free(entries);
	free(sums);
	return 0;
}

void sibyl_instrumented_free(struct sibyl_instrumented *in)
{
	if (in->layout) {
		ic_layout_free(in->layout);
		free(in->layout);
	}
	free(in->bitcode);
	*in = (struct sibyl_instrumented){ 0 };
}
