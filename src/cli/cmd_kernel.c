/* sibyl kernel: run, time and count any standalone OpenCL kernel (docs/kernel.md). */
#include "cli/commands.h"
#include "core/log.h"
#include "core/options.h"
#include "core/strbuf.h"
#include "ocl/driver/args.h"
#include "ocl/driver/argspec.h"
#include "ocl/driver/compile.h"
#include "ocl/driver/counting.h"
#include "ocl/driver/guard.h"
#include "ocl/instrument/instrument.h"
#include "ocl/driver/kernel_info.h"
#include "ocl/driver/ndrange.h"
#include "ocl/driver/summary.h"
#include "ocl/driver/sweep.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct sibyl_command_help help = {
	"kernel", "FILE.cl [-k NAME | --all] -g G [-l L] [-n SAMPLES] [-i | --spir] [--time-it] "
	"[--static] [-D ...] [-I ...] [--build-options ...] [--platform P --device D] [--seed N] "
	"[--timeout S] [--json] [-o FILE.jsonl [--force]]",
	"Run one kernel of an OpenCL C file on a real device with arguments generated from its "
	"signature (signed integers in [-g, g], unsigned in [0, g), floats uniform in [-g, g], buffers of G "
	"elements), in a child process that may crash or hang safely.  Without -k, list the "
	"kernels and their arguments.  --time-it times every sample (host, device, queue, submit, "
	"transfer); -i counts the LLVM instructions executed on the device (Oclgrind's "
	"--inst-counts listing); --spir runs the plain kernel from the SPIR bitcode -i instruments "
	"(ignored with -i and --static), for `oclgrind --inst-counts sibyl kernel --spir`; "
	"--static counts the kernel's IR.  -g FROM:TO:STEP sweeps "
	"global sizes, one JSON line per sample (-o).  See docs/kernel.md.",
};

#define MAX_TIMEOUT 86400

struct opts {
	struct sibyl_compile_opts c;
	const char *kernel, *gsize, *lsize, *platform, *device, *out;
	long samples, seed, elements, warmup;
	double timeout, build_timeout;
	bool inst, spir, timeit, stat, json, coarse, dump_args, force, fence, all, verbose;
	bool source_counters;			/* -i through the source, not SPIR */
	const struct sibyl_kernels *ks;		/* the file's kernels */
	struct sibyl_strlist args;		/* -A NAME=SPEC */
	struct sibyl_strbuf diagnostics;	/* compilers' messages, for --json */
};

/* Print one JSON object (stolen) on stdout. */
static void put_json(json_t *top)
{
	json_dumpf(top, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(top);
}

/* Exit statuses a batch script can tell apart (docs/kernel.md); 2 is a
 * usage error. */
static const int exit_status[] = {
	[SIBYL_KS_OK] = 0, [SIBYL_KS_ERROR] = 1, [SIBYL_KS_COMPILE] = 3,
	[SIBYL_KS_UNSUPPORTED] = 4, [SIBYL_KS_CRASH] = 5, [SIBYL_KS_TIMEOUT] = 6,
};

/* Compilers' messages (diagnostics) are printed as they come, and kept
 * for --json, which puts them in its object instead. */
static void on_notice(enum sibyl_notice kind, const char *text, void *ctx)
{
	struct opts *o = ctx;

	if (kind == SIBYL_NOTICE_DIAG) {
		sibyl_strbuf_puts(&o->diagnostics, text);
		if (o->diagnostics.len && o->diagnostics.s[o->diagnostics.len - 1] != '\n')
			sibyl_strbuf_puts(&o->diagnostics, "\n");
		if (o->json)
			return;
		size_t n = strlen(text);

		fprintf(stderr, "%.*s\n", (int)(n && text[n - 1] == '\n' ? n - 1 : n), text);
		return;
	}
	sibyl_notice_print(kind, text, NULL);
}

/* A run that did not finish, after its line (printed by the caller or
 * noticed by the guard): the JSON object, or in text the device
 * compiler's chatter and --dump-args.  The exit status. */
static int failure(struct opts *o, const char *kernel, const struct sibyl_run_cfg *cfg,
		   const struct sibyl_guard *g, enum sibyl_kstatus st, const char *stage,
		   const char *message)
{
	const struct sibyl_kfailure *f = g ? &g->failure : NULL;
	const char *chatter = g ? g->chatter : NULL;

	if (o->json) {
		json_t *j = sibyl_kfailure_json(o->c.file, kernel, cfg, f, st, stage, message);

		if (o->diagnostics.len)
			json_object_set_new(j, "diagnostics",
					    json_string(sibyl_strbuf_str(&o->diagnostics)));
		if (chatter)
			json_object_set_new(j, "compiler_output", json_string(chatter));
		put_json(j);
		return exit_status[st];
	}
	if (chatter)
		fputs(chatter, stderr);
	json_t *a = o->dump_args ? sibyl_kfailure_args(cfg, f) : NULL;

	if (a) {
		json_dumpf(a, stdout, JSON_COMPACT);
		putchar('\n');
		json_decref(a);
	}
	return exit_status[st];
}

/* Struct members' signedness is not in the bitcode: ask libclang. */
static void refine(const struct opts *o, struct sibyl_kernels *ks)
{
	struct sibyl_strlist args = { 0 };

	sibyl_compile_frontend_args(&o->c, &args);
	sibyl_kernels_refine(ks, o->c.file, args.items, (int)args.count);
	sibyl_strlist_free(&args);
}

/* A terminal user may pick the kernel; scripts get the listing. */
static const struct sibyl_kernel *prompt_kernel(const struct sibyl_kernels *ks)
{
	char line[256];

	for (size_t i = 0; i < ks->n; i++)
		printf("[%zu] ", i + 1), sibyl_kernel_print(stdout, &ks->items[i]);
	printf("kernel to run [1-%zu]: ", ks->n);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return NULL;
	unsigned long i = strtoul(line, NULL, 10);

	if (i >= 1 && i <= ks->n)
		return &ks->items[i - 1];
	line[strcspn(line, "\n")] = '\0';
	return sibyl_kernels_find(ks, line);
}

static int list_kernels(const struct opts *o, const struct sibyl_kernels *ks)
{
	if (o->json) {
		json_t *a = json_array();

		for (size_t i = 0; i < ks->n; i++)
			json_array_append_new(a, sibyl_kernel_json(&ks->items[i]));
		put_json(json_pack("{s:s, s:o}", "file", o->c.file, "kernels", a));
	} else {
		printf("Kernels in %s:\n", o->c.file);
		for (size_t i = 0; i < ks->n; i++)
			sibyl_kernel_print(stdout, &ks->items[i]);
	}
	return 0;
}

static int static_counts(const struct opts *o, const void *bc, size_t size, const char *kernel)
{
	struct sibyl_instcounts c;
	char err[1024];

	if (sibyl_static_counts(bc, size, kernel, &c, err, sizeof(err)) < 0)
		return sibyl_err("%s", err), 1;
	if (o->coarse)
		sibyl_instcounts_coarsen(&c);
	if (o->json)
		put_json(json_pack("{s:s, s:s, s:b, s:o}", "file", o->c.file, "kernel", kernel,
				   "static", 1, "instcounts", sibyl_instcounts_json(&c)));
	else
		sibyl_instcounts_print_static(stdout, kernel, &c);
	sibyl_instcounts_free(&c);
	return 0;
}

struct collect {
	json_t *samples, *device;
};

static void on_device(void *ctx, json_t *msg)
{
	struct collect *c = ctx;

	if (!c->device)
		c->device = json_incref(msg);
}

static void on_sample(void *ctx, json_t *msg)
{
	json_array_append(((struct collect *)ctx)->samples, msg);
}

/* "64,16" in n-D, "1024" in 1-D. */
static const char *shape(const struct sibyl_run_cfg *cfg, bool local, char *buf, size_t len)
{
	uint64_t one[3] = { local ? cfg->lsize : cfg->gsize, 1, 1 };

	bool nd = cfg->dims > 1 && !(local && !cfg->ldim[0]);	/* 0: the runtime's */

	return sibyl_dims_format(nd ? local ? cfg->ldim : cfg->gdim : one, nd ? cfg->dims : 1,
				 buf, len);
}

/* The sizes as --json reports them: integers in 1-D, arrays in n-D. */
static json_t *shape_json(const struct sibyl_run_cfg *cfg, bool local)
{
	json_t *a;

	if (cfg->dims <= 1 || (local && !cfg->ldim[0]))
		return json_integer((json_int_t)(local ? cfg->lsize : cfg->gsize));
	a = json_array();
	for (unsigned d = 0; d < cfg->dims; d++)
		json_array_append_new(a, json_integer((json_int_t)(local ? cfg->ldim : cfg->gdim)[d]));
	return a;
}

static void print_text(const struct opts *o, const struct sibyl_run_cfg *cfg, struct collect *c,
		       struct sibyl_instcounts *mean)
{
	size_t n = json_array_size(c->samples);

	char g[64], l[64];

	if (!o->inst && !o->timeit)
		printf("kernel '%s' ran %zu sample%s (gsize %s, lsize %s, seed %ld) on %s\n",
		       cfg->kernel->name, n, n == 1 ? "" : "s", shape(cfg, false, g, sizeof(g)),
		       shape(cfg, true, l, sizeof(l)), o->seed,
		       json_string_value(json_object_get(c->device, "device")));
	if (o->inst)
		sibyl_instcounts_print(stdout, cfg->kernel->name, mean);
	if (o->timeit) {
		json_t *sum = sibyl_times_summary(c->samples);

		sibyl_times_print(stdout, cfg->kernel->name, n, sum);
		json_decref(sum);
	}
	if (o->dump_args) {
		json_t *a = json_object_get(json_array_get(c->samples, 0), "args");

		json_dumpf(a, stdout, JSON_COMPACT);
		putchar('\n');
	}
}

static void print_json(const struct opts *o, const struct sibyl_run_cfg *cfg, struct collect *c,
		       struct sibyl_instcounts *mean)
{
	json_t *samples = json_array(), *s;
	size_t i;

	json_array_foreach(c->samples, i, s) {
		json_t *one = sibyl_sample_json(s, o->coarse);

		json_object_set_new(one, "gsize", shape_json(cfg, false));
		json_object_set_new(one, "lsize", shape_json(cfg, true));
		json_array_append_new(samples, one);
	}
	json_t *top = json_pack("{s:s, s:s, s:O, s:O, s:o, s:o, s:I, s:o, s:o}",
		"file", o->c.file, "kernel", cfg->kernel->name,
		"platform", json_object_get(c->device, "platform"),
		"device", json_object_get(c->device, "device"),
		"gsize", shape_json(cfg, false), "lsize", shape_json(cfg, true),
		"seed", (json_int_t)o->seed, "signature", sibyl_kernel_json(cfg->kernel),
		"samples", samples);

	if (json_object_get(c->device, "cache"))
		json_object_set(top, "cache", json_object_get(c->device, "cache"));
	if (o->timeit)
		json_object_set_new(top, "times", sibyl_times_summary(c->samples));
	if (o->inst)
		json_object_set_new(top, "instcounts", sibyl_instcounts_json(mean));
	put_json(top);
}

static int run_once(struct opts *o, struct sibyl_run_cfg *cfg)
{
	struct collect c = { json_array(), NULL };
	struct sibyl_guard g = { o->timeout, o->build_timeout, false, on_device, on_sample, &c,
				 { 0 }, NULL };
	struct sibyl_instcounts mean = { 0 };
	char err[1024];
	int n = sibyl_run_guarded(cfg, &g, err, sizeof(err)), r = 0;

	if (n < 0)
		sibyl_err("%s", err);
	if (n == 0 && json_array_size(c.samples)) {
		if (o->inst) {
			sibyl_instcounts_mean(c.samples, &mean);
			if (o->coarse)
				sibyl_instcounts_coarsen(&mean);
		}
		if (g.chatter && o->verbose)
			fputs(g.chatter, stderr);
		if (o->json)
			print_json(o, cfg, &c, &mean);
		else
			print_text(o, cfg, &c, &mean);
		if (o->inst)
			sibyl_instcounts_free(&mean);
	} else if (n) {
		r = failure(o, cfg->kernel->name, cfg, &g, g.failure.status, g.failure.stage,
			    n < 0 ? err : g.failure.message);
	}
	free(g.chatter);
	json_decref(c.samples);
	json_decref(c.device);
	if (fflush(stdout))
		return sibyl_err_errno("kernel: writing the results"), 1;
	return r;
}

static int in_range(const char *name, long v, long lo, long hi)
{
	if (v >= lo && v <= hi)
		return 0;
	return sibyl_err("kernel: --%s: %ld is not in %ld..%ld", name, v, lo, hi);
}

/* Out of range, these ran nothing (a sweep whose sample count wrapped),
 * ran forever or overflowed: refused before anything runs. The runner
 * numbers samples with an int; a sample's seed is --seed + its number. */
static int check_numbers(const struct opts *o, const struct sibyl_range *r)
{
	uint64_t sizes = (r->to - r->from) / r->step + 1, total;

	if (in_range("samples", o->samples, 1, INT_MAX) || in_range("elements", o->elements, 0, LONG_MAX) ||
	    in_range("warmup", o->warmup, 0, LONG_MAX) ||
	    in_range("seed", o->seed, 0, LONG_MAX - (o->samples - 1)))
		return -1;
	if (__builtin_mul_overflow(sizes, (uint64_t)o->samples, &total) || total > INT_MAX)
		return sibyl_err("kernel: -g %s -n %ld: more than %d samples in one run", o->gsize,
				 o->samples, INT_MAX);
	/* At most a day: in milliseconds, that stays within poll()'s int. */
	if (!(o->timeout >= 0 && o->timeout <= MAX_TIMEOUT))
		return sibyl_err("kernel: --timeout: %g is not a number of seconds in 0..%d "
				 "(0: no limit)", o->timeout, MAX_TIMEOUT);
	if (!(o->build_timeout >= 0 && o->build_timeout <= MAX_TIMEOUT))
		return sibyl_err("kernel: --build-timeout: %g is not a number of seconds in "
				 "0..%d (0: no limit)", o->build_timeout, MAX_TIMEOUT);
	return 0;
}

static int unsupported(struct opts *o, const struct sibyl_kernel *k,
		       const struct sibyl_karg *bad)
{
	char err[1024];

	snprintf(err, sizeof(err), "kernel: %s: argument '%s' (%s) is unsupported: only 1-D, "
		 "2-D and 3-D images and samplers are generated", k->name, bad->name,
		 bad->type_name);
	sibyl_err("%s", err);
	return failure(o, k->name, NULL, NULL, SIBYL_KS_UNSUPPORTED, "setup", err);
}

/* The shape, the numbers and the arguments, checked before anything
 * runs: 0, or -1 after one line. */
static int check_launch(const struct opts *o, const struct sibyl_kernel *k,
			struct sibyl_ndrange *nd, struct sibyl_range *r,
			struct sibyl_argspec **specs)
{
	char err[1024] = "";

	if (!o->gsize)
		return sibyl_err("kernel: -g GSIZE is required to run %s (see --help)", k->name);
	if (sibyl_launch_shape(o->gsize, o->lsize, k, nd, r, err, sizeof(err)) < 0 ||
	    sibyl_argspecs_make(k, &o->args, specs, err, sizeof(err)) < 0)
		return sibyl_err("%s", err);
	struct sibyl_args_cfg largest = { r->to, (uint64_t)o->elements, 0, 0, *specs,
					  { nd->dims > 1 ? nd->g[0] : r->to, nd->g[1], nd->g[2] } };

	if (check_numbers(o, r) == 0 && sibyl_args_check(k, &largest, err, sizeof(err)) == 0)
		return 0;
	if (*err)	/* check_numbers said its own line */
		sibyl_err("%s", err);
	sibyl_argspecs_free(*specs, k->nargs);
	*specs = NULL;
	return -1;
}

static int run(struct opts *o, const struct sibyl_kernel *k, void *bc, size_t size)
{
	const struct sibyl_karg *bad = sibyl_kernel_unsupported(k);
	struct sibyl_range r;
	char err[1024];

	if (bad)
		return unsupported(o, k, bad);
	if (o->stat)
		return static_counts(o, bc, size, k->name);
	struct sibyl_ndrange nd;
	struct sibyl_argspec *specs = NULL;

	if (check_launch(o, k, &nd, &r, &specs) < 0)
		return 2;
	char *build = sibyl_build_options(&o->c);
	struct sibyl_run_cfg cfg = {
		.platform = o->platform, .device = o->device, .kernel = k, .file = o->c.file,
		.build_options = build, .user_options = o->c.build_options,
		.dump_args = o->dump_args, .gsize = r.from,
		.lsize = sibyl_dims_total(nd.l, nd.dims), .dims = nd.dims, .specs = specs,
		.elements = (uint64_t)o->elements, .seed = (uint64_t)o->seed,
		.samples = o->samples, .warmup = o->warmup, .fence = o->fence,
		.verbose = o->verbose,
	};
	struct sibyl_counting counting = { 0 };
	int ret;

	memcpy(cfg.gdim, nd.g, sizeof(cfg.gdim));
	memcpy(cfg.ldim, nd.l, sizeof(cfg.ldim));

	struct sibyl_counting_how how = { o->inst, o->spir, o->source_counters, o->build_timeout,
					  &o->c, o->ks };

	if (sibyl_counting_start(&counting, &how, bc, size, &cfg, err, sizeof(err)) < 0) {
		sibyl_err("%s", err);
		sibyl_counting_done(&counting);
		sibyl_argspecs_free(specs, k->nargs);
		free(build);
		return failure(o, k->name, NULL, NULL, SIBYL_KS_ERROR, "instrument", err);
	}
	if (r.from != r.to || o->out) {
		struct sibyl_sweep_opts so = { o->out, o->force, o->coarse, o->timeout,
					       o->build_timeout };

		enum sibyl_kstatus st;

		if ((ret = sibyl_sweep(&cfg, &r, &so, &st, err, sizeof(err))) < 0)
			sibyl_err("%s", err);
		ret = ret ? exit_status[st] : 0;	/* a crash 5, a timeout 6, as one run */
	} else {
		ret = run_once(o, &cfg);
	}
	sibyl_counting_done(&counting);
	sibyl_argspecs_free(specs, k->nargs);
	free(build);
	return ret;
}

/* --all: every kernel of the file in turn, as the thesis surveyed
 * Rodinia; failures are reported and the next kernel runs. */
static int run_all(struct opts *o, const struct sibyl_kernels *ks, void *bc, size_t size)
{
	size_t ran = 0, failed = 0, unsupported = 0;

	if (o->json || o->out)
		return sibyl_err("kernel: --all prints text: no --json or --output"), 2;
	for (size_t i = 0; i < ks->n; i++) {
		const struct sibyl_kernel *k = &ks->items[i];
		int r = run(o, k, bc, size);

		if (r == 2)
			return 2;
		if (sibyl_kernel_unsupported(k))
			unsupported++;
		else if (r)
			failed++;
		else
			ran++;
	}
	printf("%s: %zu kernel%s: %zu ran, %zu failed, %zu unsupported\n", o->c.file, ks->n,
	       ks->n == 1 ? "" : "s", ran, failed, unsupported);
	return failed || unsupported ? 1 : 0;
}

/* The options into *o, the file operand included: 0, 1 after --help,
 * or -1 after one line on a usage error. */
static int parse_options(int argc, char **argv, struct opts *o)
{
	struct sibyl_option opts[] = {
		{ "file", 0, SIBYL_OPT_STRING, &o->c.file, "FILE.cl", "the OpenCL C file (or the operand)" },
		{ "kernel", 'k', SIBYL_OPT_STRING, &o->kernel, "NAME", "the kernel to run" },
		{ "all", 0, SIBYL_OPT_FLAG, &o->all, NULL, "run every kernel of the file in turn" },
		{ "gsize", 'g', SIBYL_OPT_STRING, &o->gsize, "G[,G[,G]]|FROM:TO:STEP",
		  "global size (up to 3 dimensions), or a sweep of 1-D sizes" },
		{ "lsize", 'l', SIBYL_OPT_STRING, &o->lsize, "L[,L[,L]]",
		  "local size (default: reqd_work_group_size, else the runtime's)" },
		{ "samples", 'n', SIBYL_OPT_LONG, &o->samples, "N", "runs, each with new arguments (1)" },
		{ "inst-counts", 'i', SIBYL_OPT_FLAG, &o->inst, NULL, "count the LLVM instructions run" },
		{ "source-counters", 0, SIBYL_OPT_FLAG, &o->source_counters, NULL, "-i without SPIR" },
		{ "spir", 0, SIBYL_OPT_FLAG, &o->spir, NULL,
		  "run the plain kernel from the SPIR bitcode -i instruments (-O, -D, -I apply)" },
		{ "time-it", 0, SIBYL_OPT_FLAG, &o->timeit, NULL, "time every sample" },
		{ "static", 0, SIBYL_OPT_FLAG, &o->stat, NULL, "static instruction counts of the IR" },
		{ "coarse", 0, SIBYL_OPT_FLAG, &o->coarse, NULL, "-i without bytes or callees" },
		{ "define", 'D', SIBYL_OPT_LIST, &o->c.defines, "NAME[=VAL]", "preprocessor macro" },
		{ "include", 'I', SIBYL_OPT_LIST, &o->c.includes, "DIR", "include directory" },
		{ "build-options", 0, SIBYL_OPT_STRING, &o->c.build_options, "OPTS",
		  "more OpenCL build options" },
		{ "opt-level", 'O', SIBYL_OPT_STRING, &o->c.opt_level, "LEVEL",
		  "clang optimisation level of the SPIR bitcode for -i/--spir/--static (0)" },
		{ "platform", 'p', SIBYL_OPT_STRING, &o->platform, "P", "platform: index or name" },
		{ "device", 'd', SIBYL_OPT_STRING, &o->device, "D", "device: index or name" },
		{ "warmup", 0, SIBYL_OPT_LONG, &o->warmup, "N", "unreported launches first (0)" },
		{ "seed", 0, SIBYL_OPT_LONG, &o->seed, "N", "seed of sample 0; sample i uses N+i (0)" },
		{ "arg", 'A', SIBYL_OPT_LIST, &o->args, "NAME=V", "a scalar's value, a buffer's "
		  "contents: random, zeros, ones, arange, file:PATH" },
		{ "elements", 0, SIBYL_OPT_LONG, &o->elements, "N", "buffer elements (default G)" },
		{ "timeout", 0, SIBYL_OPT_DOUBLE, &o->timeout, "S",
		  "seconds a sample's kernel may run, 0: no limit (60)" },
		{ "build-timeout", 0, SIBYL_OPT_DOUBLE, &o->build_timeout, "S",
		  "seconds the device may take to compile the kernel, 0: no limit (600)" },
		{ "verbose", 'v', SIBYL_OPT_FLAG, &o->verbose, NULL,
		  "show the compilers' warnings and the device compiler's output" },
		{ "fence", 0, SIBYL_OPT_FLAG, &o->fence, NULL,
		  "buffers end at an inaccessible page: out-of-bounds accesses crash at once" },
		{ "json", 0, SIBYL_OPT_FLAG, &o->json, NULL, "print one JSON object" },
		{ "dump-args", 0, SIBYL_OPT_FLAG, &o->dump_args, NULL,
		  "report the generated arguments (and buffers after the run)" },
		{ "output", 'o', SIBYL_OPT_STRING, &o->out, "FILE.jsonl", "JSON lines of every sample" },
		{ "out", 0, SIBYL_OPT_STRING, &o->out, "FILE.jsonl", NULL },
		{ "force", 'f', SIBYL_OPT_FLAG, &o->force, NULL, "replace an existing -o file" },
		SIBYL_OPT_END,
	};
	int operands, first_unused = 1;
	int r = sibyl_cli_options(&help, opts, argc, argv, false, &operands);

	if (r)
		return r;
	if (operands && !o->c.file)
		o->c.file = argv[first_unused++];
	if (operands >= first_unused)
		return sibyl_err("kernel: unexpected operand '%s' (see --help)", argv[first_unused]);
	if (!o->c.file)
		return sibyl_err("kernel: FILE.cl is required (see --help)");
	return 0;
}

static int check_modes(const struct opts *o)
{
	if (o->source_counters && (!o->inst || o->stat))
		return sibyl_err("kernel: --source-counters goes with -i (see --help)");
	/* Marks relate to blocks only as clang lays them out at -O0. */
	if (o->source_counters && o->c.opt_level && strcmp(o->c.opt_level, "0"))
		return sibyl_err("kernel: --source-counters counts the -O0 IR only (no -O %s)",
				 o->c.opt_level);
	return 0;
}

int cmd_kernel(int argc, char **argv)
{
	struct opts o = { .samples = 1, .timeout = 60, .build_timeout = 600 };
	void *bc = NULL;
	size_t size = 0;
	struct sibyl_kernels ks = { 0 };
	const struct sibyl_kernel *k = NULL;
	char err[1024];
	int r = parse_options(argc, argv, &o);

	if (r || check_modes(&o))
		return r > 0 ? 0 : 2;
	sibyl_set_verbose(o.verbose);
	sibyl_set_notice_handler(on_notice, &o);
	r = sibyl_compile_spir(&o.c, &bc, &size, err, sizeof(err));
	if (r < 0 || sibyl_kernels_read(bc, size, &ks, err, sizeof(err)) < 0) {
		sibyl_err("%s", err);
		r = failure(&o, o.kernel, NULL, NULL, r == -2 ? SIBYL_KS_COMPILE : SIBYL_KS_ERROR,
			    "compile", err);
		goto out;
	}
	r = 1;
	if (!ks.n) {
		sibyl_err("kernel: %s defines no kernel", o.c.file);
		goto out;
	}
	refine(&o, &ks);
	o.ks = &ks;
	if (o.kernel && !(k = sibyl_kernels_find(&ks, o.kernel))) {
		sibyl_err("kernel: %s has no kernel '%s'", o.c.file, o.kernel);
		goto out;
	}
	if (o.all && !k) {
		r = run_all(&o, &ks, bc, size);
		goto out;
	}
	if (!k && !(o.gsize && !o.json && isatty(0))) {
		r = list_kernels(&o, &ks);
		goto out;
	}
	if (!k && !(k = prompt_kernel(&ks))) {
		sibyl_err("kernel: no kernel chosen");
		goto out;
	}
	r = run(&o, k, bc, size);
out:
	sibyl_set_notice_handler(sibyl_notice_print, NULL);
	sibyl_strbuf_free(&o.diagnostics);
	sibyl_kernels_free(&ks);
	free(bc);
	sibyl_strlist_free(&o.c.defines);
	sibyl_strlist_free(&o.c.includes);
	sibyl_strlist_free(&o.args);
	return r;
}
