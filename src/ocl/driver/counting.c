/* Temporary files of a SPIR run (-i, --spir). */
#include "ocl/driver/counting.h"
#include "ocl/driver/guard.h"
#include "ocl/driver/kernel_info.h"
#include "ocl/instrument/source.h"
#include "core/alloc.h"
#include "core/cleanup.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/output.h"

#include <stdlib.h>
#include <string.h>

static int make_dir(struct sibyl_counting *c, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	if (!(c->dir = sibyl_private_tmpdir("sibyl-kernel")))
		return sibyl_seterr_errno(err, errlen, "kernel: temporary directory");
	sibyl_cleanup_dir(c->dir, true);
	return 0;
}

/* The kernel alone (instrument.h), as -i's copy is: the device then
 * links what it needs, not what the file's other kernels call. */
int sibyl_counting_plain(struct sibyl_counting *c, const void *bc, size_t size,
			 struct sibyl_run_cfg *cfg, char *err, size_t errlen)
{
	void *one;
	size_t one_size;
	int r;

	if (make_dir(c, err, errlen) < 0 ||
	    sibyl_spir_only_kernel(bc, size, cfg->kernel->name, &one, &one_size, err, errlen) < 0)
		return -1;
	c->spir = sibyl_path_join(c->dir, "plain.bc");
	r = sibyl_output_write(c->spir, one, one_size, 0666);
	free(one);
	if (r < 0)
		return sibyl_seterr_errno(err, errlen, "kernel: %s", c->spir);
	cfg->spir_path = c->spir;
	cfg->spir_plain = true;
	return 0;
}

/* Counters in rows of their own, one per work-item, when every global
 * size of the run keeps them within this: a row is stored with plain
 * stores, where the shared row takes one atomic per counter and
 * work-item, which made kernels of a few microseconds 3-5 times slower
 * instrumented (docs/instcounts.md). */
#define ROWS_MAX_BYTES ((size_t)32 << 20)

/* The race probe's log: the first RACE_GROUPS work-groups, RACE_ENTRIES
 * entries (32 bytes each) shared among them; a group that makes more
 * keeps its first (races_scan.c). */
#define RACE_GROUPS 16
#define RACE_ENTRIES ((uint64_t)1 << 20)

static int instrument(const void *bc, size_t size, const struct sibyl_run_cfg *cfg,
		      const struct sibyl_instrument_options *rows, struct sibyl_instrumented *out,
		      char *err, size_t errlen)
{
	uint64_t groups = cfg->lsize ? cfg->gsize / cfg->lsize : RACE_GROUPS;

	if (!cfg->races)
		return sibyl_instrument_kernel_ex(bc, size, cfg->kernel->name, rows, out, err,
						  errlen);
	groups = groups < RACE_GROUPS ? groups : RACE_GROUPS;
	return sibyl_instrument_races(bc, size, cfg->kernel->name, groups, RACE_ENTRIES / groups,
				      out, err, errlen);
}

int sibyl_counting_prepare(struct sibyl_counting *c, const void *bc, size_t size,
			   struct sibyl_run_cfg *cfg, char *err, size_t errlen)
{
	struct sibyl_instrument_options rows = {
		/* each work-item's barriers, each its own way (check.h) */
		.per_item_rows = cfg->barriers, .strip_barriers = cfg->barriers,
		.max_items = cfg->gsize_to > cfg->gsize ? cfg->gsize_to : cfg->gsize,
		.rows_max_bytes = ROWS_MAX_BYTES,
	};

	if (make_dir(c, err, errlen) < 0)
		return -1;
	if (instrument(bc, size, cfg, &rows, &c->inst, err, errlen) < 0)
		return -1;
	c->spir = sibyl_path_join(c->dir, "instrumented.bc");
	c->counters = sibyl_path_join(c->dir, "counters");
	if (sibyl_output_write(c->spir, c->inst.bitcode, c->inst.size, 0666) < 0)
		return sibyl_seterr_errno(err, errlen, "kernel: %s", c->spir);
	cfg->inst = &c->inst;
	cfg->spir_path = c->spir;
	cfg->counter_arg = c->inst.counter_arg;
	cfg->counters_path = c->counters;
	return 0;
}

/* The analysis copy compiled as the user's file is, its directory
 * searched first for "quoted" includes (the copy lives elsewhere). */
static int compile_host(const struct sibyl_compile_opts *o, const char *path, void **bc,
			size_t *size, char *err, size_t errlen)
{
	struct sibyl_compile_opts ho = *o;
	char *dir = sibyl_xstrdup(o->file), *slash = strrchr(dir, '/');
	int r;

	ho.file = path;
	ho.includes = (struct sibyl_strlist){ 0 };
	if (slash)
		*slash = '\0';
	sibyl_strlist_add(&ho.includes, slash ? (*dir ? dir : "/") : ".");
	for (size_t i = 0; i < o->includes.count; i++)
		sibyl_strlist_add(&ho.includes, o->includes.items[i]);
	r = sibyl_compile_spir(&ho, bc, size, err, errlen);
	sibyl_strlist_free(&ho.includes);
	free(dir);
	return r;
}

static int write_text(struct sibyl_counting *c, const char *name, char *text, char **path,
		      char *err, size_t errlen)
{
	*path = sibyl_path_join(c->dir, name);
	int r = sibyl_output_write(*path, text, strlen(text), 0600);

	free(text);
	return r < 0 ? sibyl_seterr_errno(err, errlen, "kernel: %s", *path) : 0;
}

/* Marks, the host analysis, the layout: what the device's copy needs. */
static int analyse_source(struct sibyl_counting *c, const struct sibyl_compile_opts *o,
			  const struct sibyl_kernels *ks, const void *bc, size_t size,
			  const struct sibyl_run_cfg *cfg, struct sibyl_source_marks *marks,
			  char *err, size_t errlen)
{
	struct sibyl_instrument_options rows = {
		.per_item_rows = cfg->barriers, .strip_barriers = cfg->barriers,
		.max_items = cfg->gsize_to > cfg->gsize ? cfg->gsize_to : cfg->gsize,
		.rows_max_bytes = ROWS_MAX_BYTES,
	};
	struct sibyl_strlist args = { 0 };
	const char **names = sibyl_xcalloc(ks->n + 1, sizeof(*names));
	char *host = NULL;
	void *hbc = NULL;
	size_t hsize = 0;
	int r;

	for (size_t i = 0; i < ks->n; i++)
		names[i] = ks->items[i].name;
	sibyl_compile_frontend_args(o, &args);
	r = sibyl_source_mark(o->file, (const char *const *)args.items, (int)args.count, names,
			      ks->n, marks, err, errlen);
	if (!r)
		r = write_text(c, "host.cl", sibyl_source_text(marks, o->file, NULL), &host,
			       err, errlen);
	if (!r && compile_host(o, host, &hbc, &hsize, err, errlen) < 0)
		r = -1;
	if (!r)
		r = sibyl_instrument_source(bc, size, hbc, hsize, cfg->kernel->name, marks,
					    &rows, &c->inst, err, errlen);
	free(hbc);
	free(host);
	free(names);
	sibyl_strlist_free(&args);
	return r;
}

int sibyl_counting_source(struct sibyl_counting *c, const struct sibyl_compile_opts *o,
			  const struct sibyl_kernels *ks, const void *bc, size_t size,
			  struct sibyl_run_cfg *cfg, char *err, size_t errlen)
{
	struct sibyl_source_marks marks = { 0 };
	int r;

	if (make_dir(c, err, errlen) < 0)
		return -1;
	r = analyse_source(c, o, ks, bc, size, cfg, &marks, err, errlen);
	if (!r)
		r = write_text(c, "device.cl", sibyl_source_text(&marks, o->file, &c->inst),
			       &c->source, err, errlen);
	sibyl_source_marks_free(&marks);
	if (r)
		return -1;
	c->counters = sibyl_path_join(c->dir, "counters");
	cfg->inst = &c->inst;
	cfg->counted_source = c->source;
	cfg->counter_arg = c->inst.counter_arg;
	cfg->counters_path = c->counters;
	return 0;
}

int sibyl_counting_start(struct sibyl_counting *c, const struct sibyl_counting_how *how,
			 const void *bc, size_t size, struct sibyl_run_cfg *cfg, char *err,
			 size_t errlen)
{
	bool spir = true;

	/* No SPIR on the device (NVIDIA's, AMD's drivers): the source counts. */
	if (how->inst && !how->source &&
	    sibyl_device_takes_spir(cfg, how->build_timeout_s, &spir, err, errlen) == 0 && !spir)
		sibyl_info("kernel: the device does not take SPIR (no cl_khr_spir): -i counts "
			   "through the marked source, as with --source-counters");
	if (how->inst && (how->source || !spir)) {
		if (sibyl_counting_source(c, how->c, how->ks, bc, size, cfg, err, errlen) < 0)
			return -1;
		sibyl_info("kernel: -i counts through the marked source (--source-counters): %zu "
			   "counters per work-item, %s", sibyl_instrumented_buffer_size(&c->inst, 1, 0) /
			   sizeof(uint64_t), sibyl_instrumented_per_item(&c->inst) ? "a row each" :
			   "64-bit atomics");
		return 0;
	}
	if (how->inst)
		return sibyl_counting_prepare(c, bc, size, cfg, err, errlen);
	return how->spir ? sibyl_counting_plain(c, bc, size, cfg, err, errlen) : 0;
}

void sibyl_counting_done(struct sibyl_counting *c)
{
	sibyl_instrumented_free(&c->inst);	/* the source path has a layout, no bitcode */
	if (c->dir)
		sibyl_cleanup_remove_dir(c->dir);
	free(c->dir);
	free(c->spir);
	free(c->counters);
	free(c->source);
}
