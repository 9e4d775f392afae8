/* A child per run (a whole sweep), restarted after a crashed or hung sample. */
#define _GNU_SOURCE
#include "ocl/driver/guard.h"
#include "ocl/driver/check.h"
#include "ocl/driver/summary.h"
#include "ocl/driver/compile.h"
#include "ocl/driver/fenced.h"
#include "core/alloc.h"
#include "core/cleanup.h"
#include "core/fs.h"
#include "core/helper.h"
#include "core/log.h"
#include "core/output.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Positions count samples through the sweep: size index * samples + sample. */
struct watch {
	struct sibyl_guard *g;
	char *err;		/* the caller's */
	size_t errlen;
	const struct sibyl_run_cfg *cfg;
	uint64_t from, step;	/* the sweep's first global size and step */
	long samples;
	bool bad_counters;
	bool started;		/* a sample started in this child */
	bool running;		/* its kernel is CL_RUNNING (its compile is done) */
	bool built;		/* the child built the program */
	long current, next;	/* the position running, the first not done */
	json_int_t seed;
	uint64_t gsize;		/* of the sample running */
	uint64_t local_elements;
	char past[128];		/* the buffer whose fence the runner hit (fenced.h) */
	bool before;		/* the fence before its start */
};

static long position(const struct watch *w, json_t *msg)
{
	uint64_t gs = (uint64_t)json_integer_value(json_object_get(msg, "gsize"));
	long sample = (long)json_integer_value(json_object_get(msg, "sample"));
	uint64_t k = w->step && gs > w->from ? (gs - w->from) / w->step : 0;

	return (long)k * w->samples + sample;
}

/* --check: whether the work-items of each group reached as many
 * barriers; a finding goes into the sample's "barriers" (check.h). */
struct counters {
	const struct sibyl_instrumented *inst;
	const void *buf;
	size_t size;
};

static unsigned barrier_line(void *ctx, uint64_t a, uint64_t b)
{
	const struct counters *c = ctx;

	return sibyl_instrumented_barrier_line(c->inst, c->buf, c->size, (size_t)a, (size_t)b);
}

static void check_barriers(const struct watch *w, const void *buf, size_t size, json_t *msg)
{
	size_t rows;
	uint64_t *counts = sibyl_instrumented_barriers(w->cfg->inst, buf, size, &rows);
	struct counters c = { w->cfg->inst, buf, size };
	struct sibyl_barrier_where where = { barrier_line, &c };
	json_t *f = counts ? sibyl_check_barriers(w->cfg, counts, rows, &where) : NULL;

	if (f)
		json_object_set_new(msg, "barriers", f);
	free(counts);
}

/* --check's race probe: the log's findings, an array, go into the
 * sample's "races" (check.h), how many groups it logged (and cut short)
 * and how many __global accesses were left out of the analysis into
 * "race_log"; the log itself is freed. */
static int check_races(const struct watch *w, char *buf, size_t size, json_t *msg)
{
	struct sibyl_races r;
	int rc = sibyl_instrumented_races(w->cfg->inst, buf, size, &r);

	free(buf);
	if (rc < 0)
		return sibyl_seterr(w->err, w->errlen, "kernel: the race probe's log has %zu "
				    "bytes, not the size it was given", size);
	json_object_del(msg, "counters");
	json_object_set_new(msg, "races", sibyl_check_races(w->cfg, &r));
	json_object_set_new(msg, "race_log", json_pack("{s:I, s:I, s:I}", "groups",
							(json_int_t)r.groups, "cut",
							(json_int_t)r.truncated, "unscanned",
							(json_int_t)r.unscanned));
	return 0;
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
	if (w->cfg->races)
		return check_races(w, buf, size, msg);
	if (w->cfg->barriers)
		check_barriers(w, buf, size, msg);
	int r = sibyl_instrumented_decode(w->cfg->inst, buf, size, &c, w->err, w->errlen);

	free(buf);
	if (r < 0)
		return -1;
	if (!c.n) {	/* every work-item runs at least a ret */
		sibyl_instcounts_free(&c);
		return sibyl_seterr(w->err, w->errlen, "kernel: the counters stayed zero: the "
				    "device did not run the instrumented code (at global sizes too "
				    "large for per-item rows it needs 64-bit atomics, which "
				    "Oclgrind, for one, lacks)");
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

static double on_start(struct watch *w, json_t *msg)
{
	w->current = position(w, msg);
	w->gsize = (uint64_t)json_integer_value(json_object_get(msg, "gsize"));
	w->started = true;
	w->running = false;
	w->seed = json_integer_value(json_object_get(msg, "seed"));
	w->local_elements = (uint64_t)json_integer_value(json_object_get(msg, "local_elements"));
	return w->g->build_timeout_s;	/* the launch may compile first */
}

/* The limit of the next line: the kernel's once it runs, else the build's. */
static double on_line(void *ctx, json_t *msg)
{
	struct watch *w = ctx;
	const char *ev = json_string_value(json_object_get(msg, "event"));

	if (!ev)
		return w->g->build_timeout_s;
	if (!strcmp(ev, "start"))
		return on_start(w, msg);
	if (!strcmp(ev, "fence")) {	/* the crash that follows is this access */
		const char *arg = json_string_value(json_object_get(msg, "arg"));
		const char *where = json_string_value(json_object_get(msg, "where"));

		snprintf(w->past, sizeof(w->past), "%s", arg ? arg : "");
		w->before = where && !strcmp(where, "before");
		return w->running ? w->g->timeout_s : w->g->build_timeout_s;
	}
	if (!strcmp(ev, "running")) {
		/* A late callback of an earlier sample arms nothing. */
		if (w->started && position(w, msg) == w->current) {
			w->running = true;
			return w->g->timeout_s;
		}
		return w->running ? w->g->timeout_s : w->g->build_timeout_s;
	}
	w->running = false;
	if (!strcmp(ev, "sample")) {
		w->next = position(w, msg) + 1;
		if (w->bad_counters || decode_counters(w, msg) < 0)
			w->bad_counters = true;
		else if (w->g->on_sample)
			w->g->on_sample(w->g->ctx, msg);
	} else if (!strcmp(ev, "device")) {
		w->built = true;
		if (w->g->on_device)
			w->g->on_device(w->g->ctx, msg);
	}
	return w->g->build_timeout_s;
}

/* The configuration file the runner reads, in a private directory of its
 * own (a name another user can guess could be planted in advance),
 * beside the file that keeps the runner's stderr. */
static char *write_config(const struct sibyl_run_cfg *cfg, const char *dir, char *err,
			  size_t errlen)
{
	json_t *j = sibyl_run_cfg_to_json(cfg);
	char *path = sibyl_path_join(dir, "run.json"), *text = json_dumps(j, JSON_COMPACT);

	json_decref(j);
	if (sibyl_output_write(path, text, strlen(text), 0666) < 0) {
		sibyl_seterr_errno(err, errlen, "kernel: %s", path);
		free(path);
		path = NULL;
	}
	free(text);
	return path;
}

/* The runner's stderr (the device compiler's chatter), kept for the caller. */
static void keep_chatter(struct watch *w, const char *dir)
{
	char *path = sibyl_path_join(dir, "stderr"), why[128], *text;
	size_t len;

	if ((text = sibyl_read_file(path, SIBYL_KERNEL_FILE_MAX, &len, why, sizeof(why))) && len) {
		char *all = sibyl_xasprintf("%s%s", w->g->chatter ? w->g->chatter : "", text);

		free(w->g->chatter);
		w->g->chatter = all;
	}
	free(text);
	free(path);
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

static int spawn(struct watch *w, const char *config, const char *dir,
		 struct sibyl_run_status *res)
{
	char *runner = sibyl_run_helper_path("sibyl-kernel-run", "SIBYL_KERNEL_RUNNER");
	char *argv[] = { runner, (char *)config, NULL }, *out = sibyl_path_join(dir, "stderr");
	int fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600), r;
	/* Until its first line the child builds the program. */
	struct sibyl_helper h = { argv, on_line, w, w->g->build_timeout_s, fd };

	r = sibyl_helper_run(&h, res, w->err, w->errlen);
	if (r < 0)	/* it did not start: say whose helper */
		sibyl_seterr(w->err, w->errlen, "kernel: cannot run %s: %s", runner,
			     strerror(res->code));
	if (fd >= 0)
		close(fd);
	keep_chatter(w, dir);
	free(out);
	free(runner);
	return r;
}

/* One child from (cfg->gsize, cfg->first_sample) to the end. */
static int start(struct sibyl_run_cfg *cfg, struct watch *w, struct sibyl_run_status *res)
{
	char *config = NULL, *dir = sibyl_private_tmpdir("sibyl-run");
	int r = -1;

	if (!dir)
		return sibyl_seterr_errno(w->err, w->errlen, "kernel: temporary directory");
	sibyl_cleanup_dir(dir, true);
	cfg->counters_sizes = NULL;
	if ((!cfg->inst || !counters_sizes(cfg, sibyl_run_cfg_sizes(cfg), w->err, w->errlen)) &&
	    (config = write_config(cfg, dir, w->err, w->errlen)))
		r = spawn(w, config, dir, res);
	sibyl_cleanup_remove_dir(dir);
	free(cfg->counters_sizes);
	cfg->counters_sizes = NULL;
	free(config);
	free(dir);
	return r;
}

static const char *const status_names[] = {
	[SIBYL_KS_OK] = "ok", [SIBYL_KS_ERROR] = "error", [SIBYL_KS_COMPILE] = "compile-error",
	[SIBYL_KS_UNSUPPORTED] = "unsupported", [SIBYL_KS_CRASH] = "crash",
	[SIBYL_KS_TIMEOUT] = "timeout",
};

const char *sibyl_kstatus_name(enum sibyl_kstatus s)
{
	return status_names[s];
}

static void failed(struct watch *w, enum sibyl_kstatus status, int sig)
{
	struct sibyl_kfailure *f = &w->g->failure;
	const char *before = status == SIBYL_KS_ERROR || status == SIBYL_KS_UNSUPPORTED
			     ? "setup" : "build";

	f->status = status;
	/* A crash may beat the runner's "running" line: blamed on the run. */
	f->stage = !w->built ? before : !w->started ? "setup"
		 : w->running || status != SIBYL_KS_TIMEOUT ? "run" : "jit";
	f->signal = sig;
	f->sampled = w->started;
	f->seed = (uint64_t)w->seed;
	f->gsize = w->gsize;
	f->local_elements = w->local_elements;
	f->message[0] = '\0';
}

/* What the runner's fence caught, for the crash's line ("" when none). */
static const char *past_end(const struct watch *w, char *said, size_t len)
{
	if (!*w->past)
		return "";
	if (!strcmp(w->past, SIBYL_FENCE_COUNTERS))
		snprintf(said, len, ": an access past the end of sibyl's counters (a sibyl bug: "
			 "please report it)");
	else
		snprintf(said, len, ": it read or wrote %s of '%s'",
			 w->before ? "before the start" : "past the end", w->past);
	return said;
}

/* The runner ended before its samples did: 0 when the sweep goes on
 * (one sample crashed or hung: reported), -1 with err when it stops. */
static int ended(struct watch *w, const struct sibyl_run_status *res)
{
	const char *k = w->cfg->kernel->name;
	bool timed_out = res->outcome == SIBYL_RUN_TIMED_OUT;

	if (res->outcome == SIBYL_RUN_FAILED) {
		failed(w, res->code == SIBYL_KRUN_EXIT_BUILD ? SIBYL_KS_COMPILE
			  : res->code == SIBYL_KRUN_EXIT_UNSUPPORTED ? SIBYL_KS_UNSUPPORTED
			  : SIBYL_KS_ERROR, 0);
		return sibyl_helper_failed("kernel: sibyl-kernel-run", res, w->err, w->errlen);
	}
	failed(w, timed_out ? SIBYL_KS_TIMEOUT : SIBYL_KS_CRASH, res->code);
	if (timed_out && strcmp(w->g->failure.stage, "run"))
		return sibyl_seterr(w->err, w->errlen, "kernel: compiling %s for the device took "
				    "longer than %g s (--build-timeout)", k, w->g->build_timeout_s);
	if (!w->started)	/* died building or setting up */
		return sibyl_seterr(w->err, w->errlen, "kernel: the OpenCL runtime crashed "
				    "(signal %d) while preparing %s", res->code, k);
	char *m = w->g->failure.message, said[192];
	size_t len = sizeof(w->g->failure.message);

	if (timed_out)
		snprintf(m, len, "kernel %s timed out after %g s with seed %lld (gsize %llu)", k,
			 w->g->timeout_s, (long long)w->seed, (unsigned long long)w->gsize);
	else
		snprintf(m, len, "kernel %s crashed (signal %d) with seed %lld (gsize %llu)%s", k,
			 res->code, (long long)w->seed, (unsigned long long)w->gsize,
			 past_end(w, said, sizeof(said)));
	sibyl_notice(SIBYL_NOTICE_ERROR, "%s", m);
	return 0;
}

int sibyl_run_guarded(struct sibyl_run_cfg *cfg, struct sibyl_guard *g, char *err, size_t errlen)
{
	struct watch w = { .g = g, .err = err, .errlen = errlen, .cfg = cfg, .from = cfg->gsize,
			   .step = cfg->gsize_step, .samples = cfg->samples, .current = -1,
			   .next = cfg->first_sample };
	long total = (long)sibyl_run_cfg_sizes(cfg) * cfg->samples;
	int failures = 0;

	while (w.next < total) {
		struct sibyl_run_status res;

		cfg->gsize = w.from + (uint64_t)(w.next / w.samples) * w.step;
		cfg->first_sample = w.next % w.samples;
		w.current = -1;
		w.started = w.running = w.built = false;
		w.past[0] = '\0';
		if (start(cfg, &w, &res) < 0 || w.bad_counters) {
			failed(&w, SIBYL_KS_ERROR, 0);
			return -1;
		}
		if (res.outcome == SIBYL_RUN_OK)
			break;
		if (ended(&w, &res) < 0) {	/* where it stopped */
			cfg->gsize = w.from + (uint64_t)(w.next / w.samples) * w.step;
			return -1;
		}
		/* One sample failed; with keep_going the others go on. */
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

static double on_probe(void *ctx, json_t *msg)
{
	json_t *spir = json_object_get(msg, "spir");

	if (spir)
		*(int *)ctx = json_is_true(spir);
	return 0;
}

int sibyl_device_takes_spir(const struct sibyl_run_cfg *cfg, double build_timeout_s, bool *spir,
			    char *err, size_t errlen)
{
	struct sibyl_run_cfg probe = *cfg;
	char *dir = sibyl_private_tmpdir("sibyl-run"), *config = NULL;
	char *runner = sibyl_run_helper_path("sibyl-kernel-run", "SIBYL_KERNEL_RUNNER");
	struct sibyl_run_status res;
	int said = -1, r = -1;

	probe.probe = true;
	probe.inst = NULL;	/* nothing to decode, no counters' sizes */
	probe.spir_path = probe.counted_source = NULL;
	if (!dir) {
		sibyl_seterr_errno(err, errlen, "kernel: temporary directory");
	} else if (sibyl_cleanup_dir(dir, true), (config = write_config(&probe, dir, err, errlen))) {
		char *argv[] = { runner, config, NULL };
		struct sibyl_helper h = { argv, on_probe, &said, build_timeout_s, -1 };

		r = sibyl_helper_run(&h, &res, err, errlen);
		if (r == 0 && res.outcome != SIBYL_RUN_OK)
			r = sibyl_helper_failed("kernel: sibyl-kernel-run", &res, err, errlen);
	}
	if (dir)
		sibyl_cleanup_remove_dir(dir);
	*spir = said == 1;
	free(config);
	free(dir);
	free(runner);
	return r < 0 || said < 0 ? -1 : 0;
}
