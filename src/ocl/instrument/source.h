/*
 * Instruction counts without SPIR (`sibyl kernel -i --source-counters`):
 * the OpenCL C source itself counts, for devices that take no SPIR
 * bitcode (NVIDIA's and AMD's drivers lack cl_khr_spir).
 *
 * 1. sibyl_source_mark() (source_marks.c, libclang) puts a counter
 *    increment, a "mark", where each source region starts: a kernel's
 *    body, the arm of an `if`, a loop's body, the right operand of `&&`
 *    and `||`, the true arm of a branching `?:`, a `case` and a label.
 *    Marks are macros, so one text gives two programs: for the device
 *    they add to a private array (the kernel's, passed down to helpers
 *    as one more argument) that each kernel moves to a trailing
 *    `__global ulong *` buffer at its returns; for the host analysis
 *    (with __SIBYL_HOST defined) each is a call `__sibyl_mark(k)` and
 *    every other addition expands to nothing.
 * 2. clang-14 compiles the analysis text at -O0 (the caller does). A mark
 *    creates no control flow, so its IR is the plain IR block for block
 *    with the mark calls added; sibyl_instrument_source() (source_solve.c)
 *    checks that, finds the block of every mark, and derives every other
 *    block's count from the marks by flow conservation (a block runs as
 *    often as its edges in, and as its edges out; a helper as often as
 *    its call sites).  Counts are linear in the marks, so each mark's
 *    contribution to every listing line is fixed before the run, and the
 *    counters buffer decodes as the IR path's does
 *    (sibyl_instrumented_decode).
 */
#ifndef SIBYL_OCL_INSTRUMENT_SOURCE_H
#define SIBYL_OCL_INSTRUMENT_SOURCE_H

#include "ocl/instrument/instrument.h"
#include "core/options.h"

#include <stdbool.h>
#include <stddef.h>

struct sibyl_source_marks {
	char *body;	/* the user's file with the marks' macros in it */
	size_t nmarks;
	/* Functions left unmarked, and why (one line each): a kernel that
	 * reaches one is refused with that line. */
	struct sibyl_strlist refused_fns, refused_why;
};

/* Mark `file` (parsed with the compiler arguments `args`); `kernels`
 * names its kernels (nkernels of them). Returns 0, or -1 with one line
 * in err ("FILE:LINE: what: not supported by --source-counters"). */
int sibyl_source_mark(const char *file, const char *const *args, int nargs,
		      const char *const *kernels, size_t nkernels,
		      struct sibyl_source_marks *out, char *err, size_t errlen);

/* The whole program: the macros' definitions for the host analysis
 * (in == NULL) or for the device, counting as the layout `in` says
 * (sibyl_instrument_source: which mark adds to which counter; rows or
 * atomics), a #line back to `file`, then the marked body. malloc'd. */
char *sibyl_source_text(const struct sibyl_source_marks *m, const char *file,
			const struct sibyl_instrumented *in);

void sibyl_source_marks_free(struct sibyl_source_marks *m);

/* The layout that decodes the counters of `kernel`: `bc` is the plain
 * -O0 SPIR bitcode (what the IR path counts), `host_bc` the analysis
 * text's, marked as `marks` says. out->bitcode stays NULL (the device builds the source);
 * out->counter_arg is the counters argument's index. Returns 0, or -1
 * with the reason in err. opt: as sibyl_instrument_kernel_ex (with
 * strip_barriers and -g bitcode, the barriers' lines too). */
int sibyl_instrument_source(const void *bc, size_t size, const void *host_bc, size_t host_size,
			    const char *kernel, const struct sibyl_source_marks *marks,
			    const struct sibyl_instrument_options *opt,
			    struct sibyl_instrumented *out, char *err, size_t errlen);

/* The counter of the row that mark `mark` adds to; SIZE_MAX for the
 * marks of functions the kernel does not reach. */
size_t sibyl_source_counter(const struct sibyl_instrumented *in, size_t mark);

/* Whether the device's text defines barrier() and work_group_barrier()
 * away (opt->strip_barriers: --check's barrier probe). */
bool sibyl_instrumented_strips_barriers(const struct sibyl_instrumented *in);

/* Whether the counters go to per-work-item rows (else atomics). */
bool sibyl_instrumented_per_item(const struct sibyl_instrumented *in);

#endif
