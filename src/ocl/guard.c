/* A child per run, restarted after a crashed or hung sample. */
#define _GNU_SOURCE
#include "ocl/guard.h"
#include "ocl/child.h"
#include "ocl/summary.h"
#include "core/fs.h"
#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct watch {
	const struct sibyl_guard *g;
	const struct sibyl_run_cfg *cfg;
	bool bad_counters;
	bool started;		/* a sample started in this child */
	long current, next;	/* the sample running, the first not done */
	json_int_t seed;
};

/* sibyl-kernel-run next to sibyl (or $SIBYL_KERNEL_RUNNER). */
static char *runner_path(void)
{
	const char *env = getenv("SIBYL_KERNEL_RUNNER");
	char *dir, *p;

	if (env && *env)
		return strdup(env);
	if (!(dir = sibyl_self_dir()))
		return strdup("sibyl-kernel-run");
	p = sibyl_path_join(dir, "sibyl-kernel-run");
	free(dir);
	return p;
}

/* Replace the counters file of a sample by its decoded listing. */
static int decode_counters(struct watch *w, json_t *msg)
{
	const char *path = json_string_value(json_object_get(msg, "counters"));
	struct sibyl_instcounts c = { 0 };
	size_t size;
	char *buf;

	if (!path)
		return 0;
	if (!(buf = sibyl_read_file(path, &size)))
		return sibyl_err_errno("kernel: %s", path);
	unlink(path);
	int r = sibyl_instrumented_decode(w->cfg->inst, buf, size, &c);

	free(buf);
	if (r < 0)
		return -1;
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
	long sample = (long)json_integer_value(json_object_get(msg, "sample"));

	if (!ev)
		return false;
	if (!strcmp(ev, "start")) {
		w->current = sample;
		w->started = true;
		w->seed = json_integer_value(json_object_get(msg, "seed"));
		return true;
	}
	if (!strcmp(ev, "sample")) {
		w->next = sample + 1;
		if (decode_counters(w, msg) < 0)
			w->bad_counters = true;
		else if (w->g->on_sample)
			w->g->on_sample(w->g->ctx, msg);
	} else if (!strcmp(ev, "device") && w->g->on_device) {
		w->g->on_device(w->g->ctx, msg);
	}
	return false;
}

/* The configuration file the runner reads. */
static char *write_config(const struct sibyl_run_cfg *cfg)
{
	json_t *j = sibyl_run_cfg_to_json(cfg);
	char *path, *text = json_dumps(j, JSON_COMPACT);

	json_decref(j);
	if (asprintf(&path, "%s/sibyl-run-%d.json", getenv("TMPDIR") ?: "/tmp", (int)getpid()) < 0)
		abort();
	if (sibyl_write_file_atomic(path, text, strlen(text)) < 0) {
		sibyl_err_errno("kernel: %s", path);
		free(path);
		path = NULL;
	}
	free(text);
	return path;
}

/* One child for samples [cfg->first_sample, cfg->samples). */
static int start(struct sibyl_run_cfg *cfg, struct watch *w, struct sibyl_child_result *res)
{
	char *config, *runner = runner_path();
	int r = -1;

	if (cfg->inst)
		cfg->counters_size = sibyl_instrumented_buffer_size(cfg->inst, cfg->gsize, cfg->lsize);
	if ((config = write_config(cfg))) {
		char *argv[] = { runner, config, NULL };

		r = sibyl_child_run(argv, on_line, w, w->g->timeout_s, res);
		unlink(config);
	}
	free(config);
	free(runner);
	return r;
}

int sibyl_run_guarded(struct sibyl_run_cfg *cfg, const struct sibyl_guard *g)
{
	struct watch w = { .g = g, .cfg = cfg, .current = -1, .next = cfg->first_sample };
	const char *k = cfg->kernel->name;
	int failures = 0;

	while (w.next < cfg->samples) {
		struct sibyl_child_result res;

		cfg->first_sample = w.next;
		w.current = -1;
		w.started = false;
		if (start(cfg, &w, &res) < 0 || w.bad_counters)
			return -1;
		if (res.status == SIBYL_CHILD_OK)
			break;
		if (res.status == SIBYL_CHILD_FAILED)
			return -1;
		if (!w.started && res.status == SIBYL_CHILD_TIMEOUT) {
			sibyl_err("kernel: building %s took longer than %g s", k,
				  SIBYL_CHILD_SETUP_FACTOR * g->timeout_s);
			return -1;
		}
		if (!w.started) {	/* died building or setting up */
			sibyl_err("kernel: the OpenCL runtime crashed (signal %d) while preparing %s",
				  res.code, k);
			return -1;
		}
		if (res.status == SIBYL_CHILD_TIMEOUT)
			sibyl_err("kernel %s timed out after %g s with seed %lld (gsize %llu)", k,
				  g->timeout_s, (long long)w.seed, (unsigned long long)cfg->gsize);
		else
			sibyl_err("kernel %s crashed (signal %d) with seed %lld (gsize %llu)", k,
				  res.code, (long long)w.seed, (unsigned long long)cfg->gsize);
		failures++;
		if (!g->keep_going)
			break;
		/* A crash between samples is the last one's doing (it wrote
		 * out of bounds into the host heap): blame it, redo none. */
		if (w.current >= w.next)
			w.next = w.current + 1;
	}
	return failures;
}
