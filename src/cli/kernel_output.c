/* sibyl kernel's results on stdout: text or one JSON object. */
#include "cli/kernel_cli.h"
#include "ocl/driver/argspec_infer.h"
#include "ocl/driver/summary.h"

#include <stdio.h>

void kernel_put_json(json_t *top)
{
	json_dumpf(top, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(top);
}

void kernel_put_inferred(json_t *top, const struct sibyl_run_cfg *cfg)
{
	if (cfg && cfg->specs)
		json_object_set_new(top, "inferred", sibyl_argspecs_inferred_json(cfg->kernel,
			cfg->specs, cfg->elements ? cfg->elements : cfg->gsize));
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

/* --check's findings, one line each, or that there is none. */
static void print_findings(const struct sibyl_run_cfg *cfg, json_t *findings)
{
	json_t *f;
	size_t i;

	if (!findings)
		return;
	json_array_foreach(findings, i, f)
		printf("kernel '%s': check: %s\n", cfg->kernel->name,
		       json_string_value(json_object_get(f, "message")));
	if (!json_array_size(findings))
		printf("kernel '%s': check: no finding\n", cfg->kernel->name);
}

void kernel_print_text(const struct kernel_opts *o, const struct sibyl_run_cfg *cfg, struct kernel_collect *c,
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
	print_findings(cfg, c->findings);
	if (o->dump_args) {
		json_t *a = json_object_get(json_array_get(c->samples, 0), "args");

		json_dumpf(a, stdout, JSON_COMPACT);
		putchar('\n');
	}
}

void kernel_print_json(const struct kernel_opts *o, const struct sibyl_run_cfg *cfg, struct kernel_collect *c,
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

	kernel_put_inferred(top, cfg);
	if (json_object_get(c->device, "cache"))
		json_object_set(top, "cache", json_object_get(c->device, "cache"));
	if (o->timeit)
		json_object_set_new(top, "times", sibyl_times_summary(c->samples));
	if (o->inst)
		json_object_set_new(top, "instcounts", sibyl_instcounts_json(mean));
	if (c->findings)
		json_object_set(top, "findings", c->findings);
	kernel_put_json(top);
}
