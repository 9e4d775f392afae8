/*
 * The two programs of one marked text (source.h): the macros the marks
 * expand to, for the host analysis or for the device, in front of the
 * user's file.  Only the device's define code of their own: the host's
 * expand to a call per mark and to nothing else, so that its IR is the
 * plain IR with the calls added.
 */
#include "ocl/instrument/source.h"

#include "core/strbuf.h"

#include <stdlib.h>
#include <string.h>

static const char host_macros[] =
	"void __sibyl_mark(int);\n"
	"#define __sibyl_M(k) __sibyl_mark(k)\n"
	"#define __SIBYL_S\n#define __sibyl_F\n"
	"#define __SIBYL_KP\n#define __SIBYL_KP0 void\n"
	"#define __SIBYL_P\n#define __SIBYL_P0 void\n"
	"#define __SIBYL_A\n#define __SIBYL_A0\n";

/* Each kernel zeroes its counters, passes them to the helpers it calls
 * and moves them to the buffer before each return. */
static const char device_macros[] =
	"#define __sibyl_M(k) (__sibyl_c[__SIBYL_C##k] += 1)\n"
	"#define __SIBYL_S __private ulong __sibyl_c[__SIBYL_N]; "
	"for (int __sibyl_i = 0; __sibyl_i < __SIBYL_N; __sibyl_i++) __sibyl_c[__sibyl_i] = 0;\n"
	"#define __sibyl_F __sibyl_flush(__sibyl_c, __sibyl_counters)\n"
	"#define __SIBYL_KP , __global ulong *__sibyl_counters\n"
	"#define __SIBYL_KP0 __global ulong *__sibyl_counters\n"
	"#define __SIBYL_P , __private ulong *__sibyl_c\n"
	"#define __SIBYL_P0 __private ulong *__sibyl_c\n"
	"#define __SIBYL_A , __sibyl_c\n#define __SIBYL_A0 __sibyl_c\n";

/* A work-item's own row (row = linear global id), plain stores. */
static const char flush_rows[] =
	"void __sibyl_flush(__private ulong *c, __global ulong *buf)\n{\n"
	"\tsize_t row = (get_global_id(0) - get_global_offset(0)) + get_global_size(0) *\n"
	"\t\t((get_global_id(1) - get_global_offset(1)) + get_global_size(1) *\n"
	"\t\t (get_global_id(2) - get_global_offset(2)));\n"
	"\tfor (int i = 0; i < __SIBYL_ROW; i++)\n\t\tbuf[row * __SIBYL_ROW + i] = c[i];\n}\n";

/* One shared row, one 64-bit atomic per touched counter. */
static const char flush_atomics[] =
	"#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
	"void __sibyl_flush(__private ulong *c, __global ulong *buf)\n{\n"
	"\tfor (int i = 0; i < __SIBYL_ROW; i++)\n"
	"\t\tif (c[i])\n\t\t\tatom_add((volatile __global ulong *)&buf[i], c[i]);\n}\n";

/* --check's barrier probe: every work-item runs its own way to the end,
 * its barriers still counted by the marks (the host's text keeps them,
 * so the analysis IR stays the plain IR); the flags are still evaluated. */
static const char no_barriers[] =
	"#define barrier(flags) ((void)(flags))\n"
	"#define work_group_barrier(...) ((void)0)\n";

static void line_directive(struct sibyl_strbuf *b, const char *file)
{
	sibyl_strbuf_puts(b, "#line 1 \"");
	for (const char *p = file; *p; p++) {
		if (*p == '"' || *p == '\\')
			sibyl_strbuf_add(b, "\\", 1);
		sibyl_strbuf_add(b, p, 1);
	}
	sibyl_strbuf_puts(b, "\"\n");
}

/* The row's counters, then one the marks the kernel never reaches add
 * to (its other kernels', their helpers'), which is never stored. */
static void counters(struct sibyl_strbuf *b, const struct sibyl_source_marks *m,
		     const struct sibyl_instrumented *in)
{
	size_t row = 0;

	for (size_t k = 0; k < m->nmarks; k++)
		row += sibyl_source_counter(in, k) != SIZE_MAX;
	sibyl_strbuf_printf(b, "#define __SIBYL_ROW %zu\n#define __SIBYL_N %zu\n", row, row + 1);
	for (size_t k = 0; k < m->nmarks; k++) {
		size_t c = sibyl_source_counter(in, k);

		sibyl_strbuf_printf(b, "#define __SIBYL_C%zu %zu\n", k, c == SIZE_MAX ? row : c);
	}
}

char *sibyl_source_text(const struct sibyl_source_marks *m, const char *file,
			const struct sibyl_instrumented *in)
{
	struct sibyl_strbuf b = { 0 };

	if (!in) {
		sibyl_strbuf_puts(&b, host_macros);
	} else {
		counters(&b, m, in);
		sibyl_strbuf_puts(&b, device_macros);
		sibyl_strbuf_puts(&b, sibyl_instrumented_per_item(in) ? flush_rows : flush_atomics);
		if (sibyl_instrumented_strips_barriers(in))
			sibyl_strbuf_puts(&b, no_barriers);
	}
	line_directive(&b, file);
	sibyl_strbuf_puts(&b, m->body);
	return sibyl_strbuf_take(&b);
}
