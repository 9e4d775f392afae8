/* `sibyl kmodel dataset`: counts and times of every suite kernel. */
#define _GNU_SOURCE
#include "kmodel/dataset.h"
#include "kmodel/devmodel.h"
#include "core/log.h"
#include "core/progress.h"
#include "ocl/driver/compile.h"
#include "ocl/driver/counting.h"
#include "ocl/driver/guard.h"
#include "ocl/driver/kernel_info.h"
#include "ocl/driver/summary.h"
#include "ocl/driver/sweep.h"

#include <stdlib.h>
#include <string.h>

/* PoCL compiles a kernel at its first launch; sibyl kernel's default limit. */
#define BUILD_TIMEOUT_S 600.0

struct ds {
	const struct sibyl_kmodel_suite *suite;
	const struct sibyl_kmodel_dataset_opts *o;
	struct sibyl_kmodel_data data;
	FILE *out;
	long samples;
	const struct sibyl_kmodel_entry *e;
	json_t *kernel_line;	/* to write before its first sample */
	json_t *counts;		/* "gsize/sample" -> counts, of the counting run */
	json_t *block;		/* the time run's samples of one global size */
	char *device;		/* of this run */
	long units;		/* its compute units; 0: not said */
	bool wrong_device;
	size_t sizes_done, sizes_total;
	struct sibyl_progress line;
};

static const char *opt_level(const struct sibyl_kmodel_dataset_opts *o)
{
	return o->opt_level ? o->opt_level : "0";
}

static void put(struct ds *d, json_t *j)
{
	json_dumpf(j, d->out, JSON_COMPACT | JSON_SORT_KEYS);
	fputc('\n', d->out);
}

static char *key(json_t *msg)
{
	char *k;

	if (asprintf(&k, "%lld/%lld", (long long)json_integer_value(json_object_get(msg, "gsize")),
		     (long long)json_integer_value(json_object_get(msg, "sample"))) < 0)
		abort();
	return k;
}

static void on_count(void *ctx, json_t *msg)
{
	struct ds *d = ctx;
	/* Fine records: sibyl_kmodel_counts coarsens them itself, keeping
	 * what a call calls. */
	json_t *s = sibyl_sample_json(msg, false);
	char *k = key(msg);

	json_object_set_new(d->counts, k, sibyl_kmodel_counts(json_object_get(s, "instcounts")));
	free(k);
	json_decref(s);
}

static void on_device(void *ctx, json_t *msg)
{
	struct ds *d = ctx;
	const char *dev = json_string_value(json_object_get(msg, "device"));
	const char *had = d->data.header ? json_string_value(json_object_get(d->data.header,
									       "device")) : NULL;

	if (!dev || d->device)
		return;
	d->device = strdup(dev);
	d->units = (long)json_integer_value(json_object_get(msg, "compute_units"));
	/* A file's times at another thread count are another device's. */
	d->wrong_device = had && !sibyl_kmodel_same_device(had, sibyl_kmodel_units(d->data.header),
							    dev, d->units);
	if (d->data.header)
		return;
	d->data.header = json_pack("{s:s, s:s, s:i, s:s, s:s, s:O, s:s, s:s}", "type", "dataset",
				   "format", "sibyl-kmodel-dataset", "version",
				   SIBYL_KMODEL_DATASET_VERSION, "suite",
				   d->suite->path, "sibyl", SIBYL_VERSION, "platform",
				   json_object_get(msg, "platform"), "device", dev, "opt_level",
				   opt_level(d->o));
	if (d->units > 0)
		json_object_set_new(d->data.header, "compute_units", json_integer(d->units));
	put(d, d->data.header);
}

/* All samples of a global size are in: write them (with the kernel's
 * line before its first) in one go. */
static void flush_block(struct ds *d)
{
	size_t i;
	json_t *s;

	if (!json_array_size(d->block) || d->wrong_device)
		return;
	if (d->kernel_line) {
		put(d, d->kernel_line);
		json_decref(d->kernel_line);
		d->kernel_line = NULL;
	}
	json_array_foreach(d->block, i, s)
		put(d, s);
	fflush(d->out);
	json_array_clear(d->block);
	d->sizes_done++;
	sibyl_progress_update(&d->line, (double)d->sizes_done, (double)d->sizes_total, "%s",
			      d->e->name);
}

static bool has_sample(const struct ds *d, json_int_t gsize, json_int_t sample)
{
	size_t i;
	json_t *s;

	json_array_foreach(d->data.samples, i, s)
		if (json_integer_value(json_object_get(s, "gsize")) == gsize &&
		    json_integer_value(json_object_get(s, "sample")) == sample &&
		    !strcmp(json_string_value(json_object_get(s, "kernel")), d->e->name))
			return true;
	return false;
}

static void on_time(void *ctx, json_t *msg)
{
	struct ds *d = ctx;
	char *k = key(msg);
	json_t *counts = json_object_get(d->counts, k);
	json_int_t gsize = json_integer_value(json_object_get(msg, "gsize"));

	free(k);
	if (json_array_size(d->block) && json_integer_value(json_object_get(
			json_array_get(d->block, 0), "gsize")) != gsize)
		flush_block(d);
	if (!counts || has_sample(d, gsize, json_integer_value(json_object_get(msg, "sample"))))
		return;	/* its counting sample crashed; or measured before */
	json_t *s = json_pack("{s:s, s:s, s:I, s:O, s:O, s:O, s:O, s:O}",
		"type", "sample", "kernel", d->e->name, "gsize", gsize,
		"lsize", json_object_get(msg, "lsize"), "sample", json_object_get(msg, "sample"),
		"seed", json_object_get(msg, "seed"), "device_ns", json_object_get(msg, "device_ns"),
		"counts", counts);

	/* The launch's CPU time, kmodel's other clock (table.h). */
	if (json_is_number(json_object_get(msg, "cpu_ns")))
		json_object_set(s, "cpu_ns", json_object_get(msg, "cpu_ns"));
	json_array_append_new(d->block, s);
	if ((long)json_array_size(d->block) == d->samples)
		flush_block(d);
}

/* The first global size of e not yet in the file (0: none). */
static uint64_t first_missing(struct ds *d, const struct sibyl_range *r)
{
	for (uint64_t g = r->from; g <= r->to; g += r->step) {
		if (!sibyl_kmodel_data_has(&d->data, d->e->name, (long long)g, d->samples))
			return g;
		d->sizes_done++;
	}
	return 0;
}

static json_t *static_line(const struct sibyl_kmodel_entry *e, const void *bc, size_t size,
			   char *err, size_t errlen)
{
	struct sibyl_instcounts c;

	if (sibyl_static_counts(bc, size, e->name, &c, err, errlen) < 0)
		return NULL;
	json_t *records = sibyl_instcounts_json(&c);
	json_t *line = json_pack("{s:s, s:s, s:s, s:s, s:o}", "type", "kernel", "kernel", e->name,
				 "file", e->file, "category", e->category, "static",
				 sibyl_kmodel_counts(records));

	json_decref(records);
	sibyl_instcounts_free(&c);
	return line;
}

/* The counting run, then the timed one over the same seeds. */
static int sweep_both(struct ds *d, struct sibyl_run_cfg *cfg, const void *bc, size_t size,
		      char *err, size_t errlen)
{
	struct sibyl_counting counting = { 0 };
	struct sibyl_guard gc = { .timeout_s = d->o->timeout_s, .build_timeout_s = BUILD_TIMEOUT_S,
				  .keep_going = true, .on_device = on_device,
				  .on_sample = on_count, .ctx = d };
	struct sibyl_guard gt = gc;
	struct sibyl_run_cfg plain = *cfg;
	int r = sibyl_counting_prepare(&counting, bc, size, cfg, err, errlen);

	if (r == 0)
		r = sibyl_run_guarded(cfg, &gc, err, errlen);
	free(gc.chatter);
	sibyl_counting_done(&counting);
	if (r >= 0 && !d->wrong_device) {
		int t;

		plain.warmup = 1;	/* PoCL compiles at a size's first launch */
		gt.on_sample = on_time;
		t = sibyl_run_guarded(&plain, &gt, err, errlen);
		free(gt.chatter);
		flush_block(d);
		r = t < 0 ? t : r + t;
	}
	return r;
}

static int run_entry(struct ds *d, const struct sibyl_kernel *k, const struct sibyl_range *r,
		     uint64_t from, const void *bc, size_t size, char *err, size_t errlen)
{
	struct sibyl_compile_opts c = { .file = d->e->file };
	char *build = sibyl_build_options(&c);
	struct sibyl_run_cfg cfg = {
		.platform = d->o->platform, .device = d->o->device, .kernel = k,
		.file = d->e->file, .build_options = build, .gsize = from, .gsize_to = r->to,
		.gsize_step = r->step, .lsize = (uint64_t)d->e->lsize, .samples = d->samples,
	};
	int ret = sweep_both(d, &cfg, bc, size, err, errlen);

	free(build);
	return ret;
}

int sibyl_kmodel_kernel_open(const char *file, const char *name, const char *level, void **bc,
			     size_t *size, struct sibyl_kernels *ks, const struct sibyl_kernel **k,
			     char *err, size_t errlen)
{
	struct sibyl_compile_opts c = { .file = file, .opt_level = level };
	struct sibyl_strlist args = { 0 };

	*bc = NULL;
	*size = 0;
	memset(ks, 0, sizeof(*ks));
	if (sibyl_compile_spir(&c, bc, size, err, errlen) < 0 ||
	    sibyl_kernels_read(*bc, *size, ks, err, errlen) < 0)
		return -1;
	sibyl_compile_frontend_args(&c, &args);
	sibyl_kernels_refine(ks, c.file, args.items, (int)args.count);
	sibyl_strlist_free(&args);
	if (!(*k = sibyl_kernels_find(ks, name)))
		return sibyl_seterr(err, errlen, "kmodel: %s has no kernel '%s'", file, name);
	return 0;
}

/* One suite kernel: 0, 1 when samples failed, -1 with the line in err. */
static int measure(struct ds *d, char *err, size_t errlen)
{
	struct sibyl_kernels ks = { 0 };
	const struct sibyl_kernel *k;
	struct sibyl_range r;
	void *bc = NULL;
	size_t size = 0;
	int ret = -1;

	if (sibyl_range_parse(d->e->gsize, &r, err, errlen) < 0)
		return -1;
	uint64_t from = first_missing(d, &r);

	if (!from)
		return 0;
	if (sibyl_kmodel_kernel_open(d->e->file, d->e->name, d->o->opt_level, &bc, &size, &ks, &k,
				     err, errlen) < 0)
		goto out;
	if (!json_object_get(d->data.kernels, d->e->name) &&
	    !(d->kernel_line = static_line(d->e, bc, size, err, errlen)))
		goto out;
	ret = run_entry(d, k, &r, from, bc, size, err, errlen);
out:
	json_decref(d->kernel_line);
	d->kernel_line = NULL;
	sibyl_kernels_free(&ks);
	free(bc);
	return ret;
}

static size_t count_sizes(const struct sibyl_kmodel_entry *e)
{
	struct sibyl_range r;

	if (sibyl_range_parse(e->gsize, &r, NULL, 0) < 0)
		return 0;
	return (size_t)((r.to - r.from) / r.step + 1);
}

static int measure_all(struct ds *d, char *err, size_t errlen)
{
	int failed = 0;

	for (size_t i = 0; i < d->suite->n; i++) {
		char why[1024];

		d->e = &d->suite->items[i];
		if (d->o->only && strcmp(d->o->only, d->e->name))
			continue;
		json_object_clear(d->counts);
		int r = measure(d, why, sizeof(why));

		if (d->wrong_device)
			return sibyl_seterr(err, errlen, "kmodel: %s was measured on %s (%ld "
					    "compute units), not on %s (%ld): use another file",
					    d->o->out, json_string_value(json_object_get(
						    d->data.header, "device")),
					    sibyl_kmodel_units(d->data.header), d->device, d->units);
		if (r < 0)
			/* why is a whole line of its own ("kmodel: ..."). */
			sibyl_notice(SIBYL_NOTICE_ERROR, "kmodel: %s: %s", d->e->name,
				     why + (strncmp(why, "kmodel: ", 8) ? 0 : 8));
		failed |= r != 0;
	}
	return failed;
}

/* Counts of IR at another -O level, or named as another version names
 * them, are another dataset. */
static int same_level(const struct ds *d, char *err, size_t errlen)
{
	const char *had = d->data.header ? json_string_value(json_object_get(d->data.header,
									       "opt_level")) : NULL;
	json_int_t v = d->data.header ? json_integer_value(json_object_get(d->data.header,
									   "version")) : 0;

	if (v && v != SIBYL_KMODEL_DATASET_VERSION)
		return sibyl_seterr(err, errlen, "kmodel: %s is a version %lld dataset, whose "
				    "calls are named otherwise than version %d's: use another "
				    "file", d->o->out, (long long)v, SIBYL_KMODEL_DATASET_VERSION);
	if (had && strcmp(had, opt_level(d->o)))
		return sibyl_seterr(err, errlen, "kmodel: %s counts IR at -O%s, not -O%s: use "
				    "another file", d->o->out, had, opt_level(d->o));
	return 0;
}

int sibyl_kmodel_dataset(const struct sibyl_kmodel_suite *s,
			 const struct sibyl_kmodel_dataset_opts *o, char *err, size_t errlen)
{
	struct ds d = { .suite = s, .o = o, .samples = o->samples ? o->samples : s->samples };
	int r = -1;

	if (sibyl_kmodel_data_read(o->out, true, &d.data, err, errlen) < 0 ||
	    same_level(&d, err, errlen) < 0 ||
	    !(d.out = sibyl_kmodel_data_append(o->out, err, errlen)))
		goto out;
	d.counts = json_object();
	d.block = json_array();
	for (size_t i = 0; i < s->n; i++)
		if (!o->only || !strcmp(o->only, s->items[i].name))
			d.sizes_total += count_sizes(&s->items[i]);
	sibyl_progress_start(&d.line, stderr, "kmodel dataset", "sizes");
	r = measure_all(&d, err, errlen);
	sibyl_progress_done(&d.line);
	if (fclose(d.out) != 0 && r >= 0)
		r = sibyl_seterr_errno(err, errlen, "kmodel: writing %s", o->out);
out:
	json_decref(d.counts);
	json_decref(d.block);
	free(d.device);
	sibyl_kmodel_data_free(&d.data);
	return r;
}
