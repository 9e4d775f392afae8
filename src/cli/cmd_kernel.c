/* sibyl kernel: run, time and count any standalone OpenCL kernel (docs/kernel.md). */
#include "cli/commands.h"
#include "cli/kernel_cli.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/options.h"
#include "core/strbuf.h"
#include "ocl/driver/args.h"
#include "ocl/driver/check.h"
#include "ocl/driver/check_probe.h"
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
	struct kernel_opts *o = ctx;

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

/* --check's probes' findings in text (--json puts them in its object). */
static void report_probes(const struct kernel_opts *o, const char *kernel)
{
	json_t *f;
	size_t i;

	json_array_foreach(o->probes, i, f)
		if (!o->json)
			printf("kernel '%s': check: %s\n", kernel,
			       json_string_value(json_object_get(f, "message")));
}

/* A run that did not finish, after its line (printed by the caller or
 * noticed by the guard): the JSON object, or in text the device
 * compiler's chatter and --dump-args.  The exit status. */
static int failure(struct kernel_opts *o, const char *kernel, const struct sibyl_run_cfg *cfg,
		   const struct sibyl_guard *g, enum sibyl_kstatus st, const char *stage,
		   const char *message)
{
	const struct sibyl_kfailure *f = g ? &g->failure : NULL;
	const char *chatter = g ? g->chatter : NULL;

	if (o->probes)	/* a divergent barrier: the likely cause of the failure on PoCL */
		report_probes(o, kernel);
	if (o->json) {
		json_t *j = sibyl_kfailure_json(o->c.file, kernel, cfg, f, st, stage, message);

		if (o->probes)
			json_object_set(j, "findings", o->probes);
		kernel_put_inferred(j, cfg);

		if (o->diagnostics.len)
			json_object_set_new(j, "diagnostics",
					    json_string(sibyl_strbuf_str(&o->diagnostics)));
		if (chatter)
			json_object_set_new(j, "compiler_output", json_string(chatter));
		kernel_put_json(j);
		json_decref(o->probes), o->probes = NULL;
		return exit_status[st];
	}
	if (chatter)
		fputs(chatter, stderr);
	json_decref(o->probes), o->probes = NULL;
	json_t *a = o->dump_args ? sibyl_kfailure_args(cfg, f) : NULL;

	if (a) {
		json_dumpf(a, stdout, JSON_COMPACT);
		putchar('\n');
		json_decref(a);
	}
	return exit_status[st];
}

/* Struct members' signedness is not in the bitcode: ask libclang. */
static void refine(const struct kernel_opts *o, struct sibyl_kernels *ks)
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

static int list_kernels(const struct kernel_opts *o, const struct sibyl_kernels *ks)
{
	if (o->json) {
		json_t *a = json_array();

		for (size_t i = 0; i < ks->n; i++)
			json_array_append_new(a, sibyl_kernel_json(&ks->items[i]));
		kernel_put_json(json_pack("{s:s, s:o}", "file", o->c.file, "kernels", a));
	} else {
		printf("Kernels in %s:\n", o->c.file);
		for (size_t i = 0; i < ks->n; i++)
			sibyl_kernel_print(stdout, &ks->items[i]);
	}
	return 0;
}

static int static_counts(const struct kernel_opts *o, const void *bc, size_t size, const char *kernel)
{
	struct sibyl_instcounts c;
	char err[1024];

	if (sibyl_static_counts(bc, size, kernel, &c, err, sizeof(err)) < 0)
		return sibyl_err("%s", err), 1;
	if (o->coarse)
		sibyl_instcounts_coarsen(&c);
	if (o->json)
		kernel_put_json(json_pack("{s:s, s:s, s:b, s:o}", "file", o->c.file, "kernel", kernel,
				   "static", 1, "instcounts", sibyl_instcounts_json(&c)));
	else
		sibyl_instcounts_print_static(stdout, kernel, &c);
	sibyl_instcounts_free(&c);
	return 0;
}

static void on_device(void *ctx, json_t *msg)
{
	struct kernel_collect *c = ctx;

	if (!c->device)
		c->device = json_incref(msg);
}

static void on_sample(void *ctx, json_t *msg)
{
	json_array_append(((struct kernel_collect *)ctx)->samples, msg);
}

static int run_once(struct kernel_opts *o, struct sibyl_run_cfg *cfg)
{
	struct kernel_collect c = { json_array(), NULL, NULL };
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
		if (o->check && (c.findings = sibyl_check_findings(cfg->kernel, c.samples)) &&
		    o->probes) {	/* the probes' findings first */
			json_array_extend(o->probes, c.findings);
			json_decref(c.findings);
			c.findings = json_incref(o->probes);
		}
		if (c.findings && json_array_size(c.findings))
			r = KERNEL_EXIT_FINDINGS;
		if (o->json)
			kernel_print_json(o, cfg, &c, &mean);
		else
			kernel_print_text(o, cfg, &c, &mean);
		if (o->inst)
			sibyl_instcounts_free(&mean);
	} else if (n) {
		r = failure(o, cfg->kernel->name, cfg, &g, g.failure.status, g.failure.stage,
			    n < 0 ? err : g.failure.message);
	}
	free(g.chatter);
	json_decref(c.samples);
	json_decref(c.device);
	json_decref(c.findings);
	json_decref(o->probes), o->probes = NULL;
	if (fflush(stdout))
		return sibyl_err_errno("kernel: writing the results"), 1;
	return r;
}

static int unsupported(struct kernel_opts *o, const struct sibyl_kernel *k,
		       const struct sibyl_karg *bad)
{
	char err[1024];

	snprintf(err, sizeof(err), "kernel: %s: argument '%s' (%s) is unsupported: only 1-D, "
		 "2-D and 3-D images and samplers are generated", k->name, bad->name,
		 bad->type_name);
	sibyl_err("%s", err);
	return failure(o, k->name, NULL, NULL, SIBYL_KS_UNSUPPORTED, "setup", err);
}

/* --check's probes (check_probe.h), before the run. */
static json_t *check_probes(const struct kernel_opts *o, const struct sibyl_run_cfg *cfg,
			    const void *bc, size_t size)
{
	struct sibyl_check_how how = { &o->c, o->ks, bc, size, o->source_counters, o->timeout,
				       o->build_timeout };

	return sibyl_check_probe(cfg, &how);
}

static int run(struct kernel_opts *o, const struct sibyl_kernel *k, void *bc, size_t size)
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

	if (kernel_check_launch(o, k, bc, size, &nd, &r, &specs) < 0)
		return 2;
	char *build = sibyl_build_options(&o->c);
	struct sibyl_run_cfg cfg = {
		.platform = o->platform, .device = o->device, .kernel = k, .file = o->c.file,
		.build_options = build, .user_options = o->c.build_options,
		.dump_args = o->dump_args, .gsize = r.from,
		.lsize = sibyl_dims_total(nd.l, nd.dims), .dims = nd.dims, .specs = specs,
		.elements = (uint64_t)o->elements, .seed = (uint64_t)o->seed,
		.samples = o->samples, .warmup = o->warmup, .fence = o->fence, .check = o->check,
		.verbose = o->verbose,
	};
	struct sibyl_counting counting = { 0 };
	int ret;

	memcpy(cfg.gdim, nd.g, sizeof(cfg.gdim));
	memcpy(cfg.ldim, nd.l, sizeof(cfg.ldim));
	o->probes = o->check ? check_probes(o, &cfg, bc, size) : NULL;

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
static int run_all(struct kernel_opts *o, const struct sibyl_kernels *ks, void *bc, size_t size)
{
	size_t ran = 0, failed = 0, unsupported = 0, findings = 0;

	if (o->json || o->out)
		return sibyl_err("kernel: --all prints text: no --json or --output"), 2;
	for (size_t i = 0; i < ks->n; i++) {
		const struct sibyl_kernel *k = &ks->items[i];
		int r = run(o, k, bc, size);

		if (r == 2)
			return 2;
		if (sibyl_kernel_unsupported(k))
			unsupported++;
		else if (r && r != KERNEL_EXIT_FINDINGS)
			failed++;
		else
			ran++, findings += r != 0;
	}
	printf("%s: %zu kernel%s: %zu ran, %zu failed, %zu unsupported", o->c.file, ks->n,
	       ks->n == 1 ? "" : "s", ran, failed, unsupported);
	if (o->check)
		printf(", %zu with findings", findings);
	putchar('\n');
	return failed || unsupported ? 1 : findings ? KERNEL_EXIT_FINDINGS : 0;
}

/* The file has no kernel to run (none, or not the one -k names): one
 * line, and with --json the object a batch script reads. */
static int no_kernel(struct kernel_opts *o, char *message)
{
	sibyl_err("%s", message);
	int r = failure(o, o->kernel, NULL, NULL, SIBYL_KS_ERROR, "setup", message);

	free(message);
	return r;
}

int cmd_kernel(int argc, char **argv)
{
	struct kernel_opts o = { .samples = 1, .timeout = 60, .build_timeout = 600 };
	void *bc = NULL;
	size_t size = 0;
	struct sibyl_kernels ks = { 0 };
	const struct sibyl_kernel *k = NULL;
	char err[1024];
	int r = kernel_parse_options(argc, argv, &o);

	if (r)
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
	if (!ks.n) {
		r = no_kernel(&o, sibyl_xasprintf("kernel: %s defines no kernel", o.c.file));
		goto out;
	}
	refine(&o, &ks);
	o.ks = &ks;
	if (o.kernel && !(k = sibyl_kernels_find(&ks, o.kernel))) {
		r = no_kernel(&o, sibyl_xasprintf("kernel: %s has no kernel '%s'", o.c.file,
						  o.kernel));
		goto out;
	}
	r = 1;
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
