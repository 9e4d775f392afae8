/* Global-size sweeps into JSON lines, with a progress bar on a terminal. */
#define _GNU_SOURCE
#include "ocl/driver/sweep.h"
#include "ocl/driver/guard.h"
#include "ocl/driver/summary.h"
#include "core/alloc.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/output.h"
#include "core/progress.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int sibyl_range_parse(const char *s, struct sibyl_range *r, char *err, size_t errlen)
{
	char *end;
	int n = 0;
	uint64_t v[3] = { 0, 0, 0 };

	for (const char *p = s; n < 3; p = end + 1) {
		errno = 0;
		v[n++] = strtoull(p, &end, 10);
		if (errno || end == p || *p == '-' || (*end && *end != ':'))
			return sibyl_seterr(err, errlen, "kernel: --gsize: expected N or FROM:TO[:STEP], got '%s'", s);
		/* Sizes travel as JSON integers, signed 64-bit. */
		if (v[n - 1] > INT64_MAX)
			return sibyl_seterr(err, errlen, "kernel: --gsize: %" PRIu64 " is larger than %" PRId64,
					 v[n - 1], INT64_MAX);
		if (!*end)
			break;
	}
	*r = (struct sibyl_range){ v[0], n > 1 ? v[1] : v[0], n > 2 ? v[2] : v[0] };
	if (!r->from || !r->step || r->to < r->from)
		return sibyl_seterr(err, errlen, "kernel: --gsize: '%s' is empty or has a zero size or step", s);
	return 0;
}

struct sweep_state {
	FILE *out;
	const struct sibyl_sweep_opts *o;
	const char *kernel;
	size_t done, total;
	struct sibyl_progress line;
};

static void progress(struct sweep_state *st, uint64_t gsize)
{
	sibyl_progress_update(&st->line, (double)st->done, (double)st->total,
			      "%zu/%zu samples, gsize %" PRIu64, st->done, st->total, gsize);
}

static void on_sample(void *ctx, json_t *msg)
{
	struct sweep_state *st = ctx;
	json_t *s = sibyl_sample_json(msg, st->o->coarse);

	json_object_set_new(s, "kernel", json_string(st->kernel));
	json_dumpf(s, st->out, JSON_COMPACT | JSON_SORT_KEYS);
	fputc('\n', st->out);
	json_decref(s);
	st->done++;
	progress(st, (uint64_t)json_integer_value(json_object_get(msg, "gsize")));
}

static int finish(FILE *f, struct sibyl_output *out, int r, char *err, size_t errlen)
{
	if (!out->path)
		return fflush(stdout) ? sibyl_seterr_errno(err, errlen, "kernel: writing the samples") : r;
	char *path = sibyl_xstrdup(out->path);
	int closed = fclose(f);

	out->fd = -1;	/* closed with its stream */
	if (closed != 0 || r < 0) {
		sibyl_output_discard(out);
		r = closed ? sibyl_seterr_errno(err, errlen, "kernel: writing %s", path) : r;
	} else if (sibyl_output_commit(out) < 0) {
		r = sibyl_seterr_errno(err, errlen, "kernel: %s", path);
	}
	free(path);
	return r;
}

int sibyl_sweep(struct sibyl_run_cfg *cfg, const struct sibyl_range *r,
		const struct sibyl_sweep_opts *o, enum sibyl_kstatus *status, char *err,
		size_t errlen)
{
	struct sweep_state st = { stdout, o, cfg->kernel->name, 0, 0, { 0 } };
	struct sibyl_guard g = { o->timeout_s, o->build_timeout_s, true, NULL, on_sample, &st,
				 { 0 }, NULL };
	struct sibyl_output out = { 0 };
	char why[1024];

	*status = SIBYL_KS_ERROR;	/* until the runs say otherwise */
	if (o->out && sibyl_refuse_overwrite(o->out, o->force, why, sizeof(why)))
		return sibyl_seterr(err, errlen, "kernel: %s", why);
	if (o->out) {
		if (sibyl_output_open(&out, o->out, 0666) < 0)
			return sibyl_seterr_errno(err, errlen, "kernel: %s", o->out);
		if (!(st.out = fdopen(out.fd, "w"))) {
			sibyl_output_discard(&out);
			return sibyl_seterr_errno(err, errlen, "kernel: %s", o->out);
		}
	}
	cfg->gsize = r->from;
	cfg->gsize_to = r->to;
	cfg->gsize_step = r->step;
	st.total = sibyl_run_cfg_sizes(cfg) * (size_t)cfg->samples;
	sibyl_progress_start(&st.line, stderr, "kernel sweep", "samples");
	progress(&st, r->from);
	int res = sibyl_run_guarded(cfg, &g, err, errlen);	/* -1: failed, else samples lost */

	sibyl_progress_done(&st.line);
	*status = !res ? SIBYL_KS_OK : g.failure.status != SIBYL_KS_OK ? g.failure.status :
		  SIBYL_KS_ERROR;
	if (g.chatter && (res || sibyl_verbose()))	/* the device compiler's */
		sibyl_notice(SIBYL_NOTICE_DIAG, "%s", g.chatter);
	free(g.chatter);
	/* A build error fails at once; a failure later (out of resources at
	 * a large size) keeps what was measured. */
	if (res < 0 && st.done) {
		sibyl_notice(SIBYL_NOTICE_ERROR, "%s", err);
		if (o->out)
			sibyl_notice(SIBYL_NOTICE_ERROR, "kernel: sweep stopped at gsize %llu; %zu "
				     "samples kept in %s", (unsigned long long)cfg->gsize, st.done,
				     o->out);
		res = 1;
	}
	return finish(st.out, &out, res < 0 ? -1 : res ? 1 : 0, err, errlen);
}
