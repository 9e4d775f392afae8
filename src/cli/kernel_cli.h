/* sibyl kernel's options and output, beside its entry point (cmd_kernel.c). */
#ifndef SIBYL_CLI_KERNEL_CLI_H
#define SIBYL_CLI_KERNEL_CLI_H

#include "core/options.h"
#include "core/strbuf.h"
#include "ocl/driver/argspec.h"
#include "ocl/driver/compile.h"
#include "ocl/driver/kernel_info.h"
#include "ocl/driver/ndrange.h"
#include "ocl/driver/run.h"
#include "ocl/instrument/instrument.h"

#include <jansson.h>
#include <stdbool.h>

/* --check found something (docs/kernel.md; 3-6 are in exit_status[]). */
#define KERNEL_EXIT_FINDINGS 7

struct kernel_opts {
	struct sibyl_compile_opts c;
	const char *kernel, *gsize, *lsize, *platform, *device, *out;
	long samples, seed, elements, warmup;
	double timeout, build_timeout;
	bool inst, spir, timeit, stat, json, coarse, dump_args, force, fence, all, verbose;
	bool source_counters;			/* -i through the source, not SPIR */
	bool check;				/* --check: findings about the kernel */
	bool no_infer;				/* arguments from the signature only */
	const struct sibyl_kernels *ks;		/* the file's kernels */
	struct sibyl_strlist args;		/* -A NAME=SPEC */
	struct sibyl_strbuf diagnostics;	/* compilers' messages, for --json */
	json_t *probes;		/* --check's probes' findings (check_probe.h), until reported */
};

/* The options into *o, the file operand included, and their
 * combinations checked: 0, 1 after --help, or -1 after one line on a
 * usage error. */
int kernel_parse_options(int argc, char **argv, struct kernel_opts *o);

/* The shape, the numbers and the arguments (with the sizes the IR in
 * bc shows), checked before anything runs: 0, or -1 after one line
 * (*specs then NULL). */
int kernel_check_launch(const struct kernel_opts *o, const struct sibyl_kernel *k,
			const void *bc, size_t size, struct sibyl_ndrange *nd,
			struct sibyl_range *r, struct sibyl_argspec **specs);

/* What one run's runner reported: its samples and its device message. */
struct kernel_collect {
	json_t *samples, *device;
	json_t *findings;	/* --check (check.h); NULL without */
};

/* The arguments inferred from the IR into top's "inferred" (argspec_infer.h). */
void kernel_put_inferred(json_t *top, const struct sibyl_run_cfg *cfg);

/* Print one JSON object (stolen) on stdout. */
void kernel_put_json(json_t *top);

/* A run's results on stdout, as text or as one JSON object. */
void kernel_print_text(const struct kernel_opts *o, const struct sibyl_run_cfg *cfg,
		       struct kernel_collect *c, struct sibyl_instcounts *mean);
void kernel_print_json(const struct kernel_opts *o, const struct sibyl_run_cfg *cfg,
		       struct kernel_collect *c, struct sibyl_instcounts *mean);

#endif
