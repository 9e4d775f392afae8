/* A child per run (a whole sweep), restarted after a crashed or hung sample. */
#define _GNU_SOURCE
#include "ocl/driver/guard.h"
#include "ocl/driver/summary.h"
#include "ocl/driver/compile.h"
#include "core/alloc.h"
#include "core/fs.h"
#include "core/helper.h"
#include "core/log.h"
#include "core/output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Positions count samples through the sweep: size index * samples + sample. */
struct watch {
	const struct sibyl_guard *g;
	char *err;		/* the caller's */
	size_t errlen;
	const struct sibyl_run_cfg *cfg;
	uint64_t from, step;	/* the sweep's first global size and step */
	long samples;
	bool bad_counters;
	bool started;		/* a sample started in this child */
	long current, next;	/* the position running, the first not done */
	json_int_t seed;
	uint64_t gsize;		/* of the sample running */
};

static long position(const struct watch *w, json_t *msg)
{
	uint64_t gs = (uint64_t)json_integer_value(json_object_get(msg, "gsize"));
	long sample = (long)json_integer_value(json_object_get(msg, "sample"));
	uint64_t k = w->step && gs > w->from ? (gs - w->from) / w->step : 0;

	return (long)k * w->samples + sample;
}

/* Replace the counters file of a sample by its decoded listing. */
static int decode_counters(struct watch *w, json_t *msg)
{
	const char *path = json_string_value(json_object_get(msg, "counters"));
	struct sibyl_instcounts c = { 0 };
	size_t size;
	char *buf, why[128];

	if (!path)
		return 0;
	if (!(buf = sibyl_read_file(path, SIBYL_KERNEL_FILE_MAX, &size, why, sizeof(why))))
		return sibyl_seterr(w->err, w->errlen, "kernel: %s: %s", path, why);
	unlink(path);
	int r = sibyl_instrumented_decode(w->cfg->inst, buf, size, &c, w->err, w->errlen);

	free(buf);
	if (r < 0)
		return -1;
	if (!c.n) {	/* every work-item runs at least a ret */
		sibyl_instcounts_free(&c);
		return sibyl_seterr(w->err, w->errlen, "kernel: the counters stayed zero: the "
				    "device did not run the instrumented code (Oclgrind, for one, "
				    "lacks 64-bit atomics)");
	}
	json_t *list = json_array();

	for (size_t i = 0; i < c.n; i++)
		json_array_append_new(list, json_pack("[s, I, I]", c.items[i].name,
			(json_int_t)c.items[i].count, (json_int_t)c.items[i].bytes));
	sibyl_instcounts_free(&c);
	json_object_del(msg, "counters");
	json_object_set_new(msg, "instcounts", list);
	return 0;
}

static bool on_line(void *ctx, json_t *msg)
{
	struct watch *w = ctx;
	const char *ev = json_string_value(json_object_get(msg, "event"));

	if (!ev)
		return false;
	if (!strcmp(ev, "start")) {
		w->current = position(w, msg);
		w->gsize = (uint64_t)json_integer_value(json_object_get(msg, "gsize"));
		w->started = true;
		w->seed = json_integer_value(json_object_get(msg, "seed"));
		return true;
	}
	if (!strcmp(ev, "sample")) {
		w->next = position(w, msg) + 1;
		if (w->bad_counters || decode_counters(w, msg) < 0)
			w->bad_counters = true;
		else if (w->g->on_sample)
			w->g->on_sample(w->g->ctx, msg);
	} else if (!strcmp(ev, "device") && w->g->on_device) {
		w->g->on_device(w->g->ctx, msg);
	}
	return false;
}

/* The configuration file the runner reads, in a private directory of its
 * own: a name another user can guess could be planted in advance. */
static char *write_config(const struct sibyl_run_cfg *cfg, char *err, size_t errlen)
{
	json_t *j = sibyl_run_cfg_to_json(cfg);
	char *dir = sibyl_private_tmpdir("sibyl-run"), *path = NULL, *text = json_dumps(j, JSON_COMPACT);

	json_decref(j);
	if (!dir) {
		sibyl_seterr_errno(err, errlen, "kernel: temporary directory");
	} else if (sibyl_output_write((path = sibyl_path_join(dir, "run.json")), text,
					   strlen(text), 0666) < 0) {
		sibyl_seterr_errno(err, errlen, "kernel: %s", path);
		rmdir(dir);
		free(path);
		path = NULL;
	}
	free(dir);
	free(text);
	return path;
}

/* The file and its directory (`path` is cut to the directory). */
static void remove_config(char *path)
{
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
}

/* -i: the counters' bytes at each global size of the run. */
static int counters_sizes(struct sibyl_run_cfg *cfg, size_t n, char *err, size_t errlen)
{
	cfg->counters_sizes = sibyl_xcalloc(n, sizeof(*cfg->counters_sizes));
	for (size_t k = 0; k < n; k++) {
		uint64_t g = cfg->gsize + k * cfg->gsize_step;

		cfg->counters_sizes[k] = sibyl_instrumented_buffer_size(cfg->inst, g, cfg->lsize);
		if (cfg->counters_sizes[k] == SIZE_MAX)
			return sibyl_seterr(err, errlen, "kernel: the counters of gsize %llu do "
					    "not fit in memory", (unsigned long long)g);
	}
	return 0;
}

/* One child from (cfg->gsize, cfg->first_sample) to the end. */
static int start(struct sibyl_run_cfg *cfg, struct watch *w, struct sibyl_run_status *res)
{
	char *config = NULL, *runner = sibyl_run_helper_path("sibyl-kernel-run", "SIBYL_KERNEL_RUNNER");
	int r = -1;

	cfg->counters_sizes = NULL;
	if ((!cfg->inst || !counters_sizes(cfg, sibyl_run_cfg_sizes(cfg), w->err, w->errlen)) &&
	    (config = write_config(cfg, w->err, w->errlen))) {
		char *argv[] = { runner, config, NULL };
		/* Until its first line the child builds the program: a hang
		 * there (a compiler loop) gets a generous limit of its own. */
		struct sibyl_helper h = { argv, on_line, w, w->g->timeout_s,
					  SIBYL_GUARD_SETUP_FACTOR * w->g->timeout_s };

		r = sibyl_helper_run(&h, res, w->err, w->errlen);
		if (r < 0)	/* it did not start: say whose helper */
			sibyl_seterr(w->err, w->errlen, "kernel: cannot run %s: %s", runner,
				     strerror(res->code));
		remove_config(config);
	}
	free(cfg->counters_sizes);
	cfg->counters_sizes = NULL;
	free(config);
	free(runner);
	return r;
}

int sibyl_run_guarded(struct sibyl_run_cfg *cfg, const struct sibyl_guard *g, char *err,
		      size_t errlen)
{
	struct watch w = { .g = g, .err = err, .errlen = errlen, .cfg = cfg, .from = cfg->gsize, .step = cfg->gsize_step,
			   .samples = cfg->samples, .current = -1, .next = cfg->first_sample };
	const char *k = cfg->kernel->name;
	long total = (long)sibyl_run_cfg_sizes(cfg) * cfg->samples;
	int failures = 0;

	while (w.next < total) {
		struct sibyl_run_status res;

		cfg->gsize = w.from + (uint64_t)(w.next / w.samples) * w.step;
		cfg->first_sample = w.next % w.samples;
		w.current = -1;
		w.started = false;
		if (start(cfg, &w, &res) < 0 || w.bad_counters)
			return -1;
		if (res.outcome == SIBYL_RUN_OK)
			break;
		if (res.outcome == SIBYL_RUN_FAILED) {	/* where it stopped */
			cfg->gsize = w.from + (uint64_t)(w.next / w.samples) * w.step;
			return sibyl_helper_failed("kernel: sibyl-kernel-run", &res, err, errlen);
		}
		if (!w.started && res.outcome == SIBYL_RUN_TIMED_OUT)
			return sibyl_seterr(err, errlen, "kernel: building %s took longer than %g s",
					    k, SIBYL_GUARD_SETUP_FACTOR * g->timeout_s);
		if (!w.started)	/* died building or setting up */
			return sibyl_seterr(err, errlen, "kernel: the OpenCL runtime crashed "
					    "(signal %d) while preparing %s", res.code, k);
		/* One sample failed; with keep_going the others go on. */
		if (res.outcome == SIBYL_RUN_TIMED_OUT)
			sibyl_notice(SIBYL_NOTICE_ERROR, "kernel %s timed out after %g s with seed "
				     "%lld (gsize %llu)", k, g->timeout_s, (long long)w.seed,
				     (unsigned long long)w.gsize);
		else
			sibyl_notice(SIBYL_NOTICE_ERROR, "kernel %s crashed (signal %d) with seed "
				     "%lld (gsize %llu)", k, res.code, (long long)w.seed,
				     (unsigned long long)w.gsize);
		failures++;
		if (!g->keep_going)
			break;
		/* A crash between samples is the last one's doing (it wrote
		 * out of bounds into the host heap): blame it, redo none. */
		if (w.current >= w.next)
			w.next = w.current + 1;
	}
	cfg->gsize = w.from;
	cfg->first_sample = 0;
	return failures;
}
