/*
 * predict --verify: the paper's check (Matoga et al. 2013, V.A) done by
 * sibyl itself.  The traced command runs again, in its own directory,
 * under `sibyl trace` with the accelerated wrappers (a redirect wrapper,
 * or the same wrappers in an environment that selects the fast path),
 * several times; the prediction is compared with the median run, and
 * the spread of the runs is kept so a reader can tell an error from
 * noise.
 *
 * A program run twice on a shared or virtual machine can take 10-30%
 * longer the second time, which is no error of the prediction.  So
 * before each accelerated run the original runs again too (its recorded
 * environment and wrappers) and is predicted afresh: each pair meets
 * the same stretch of the machine, and the medians over the pairs are
 * compared (`paired` below), as an A/B benchmark interleaves its arms.
 */
#include "predict/internal.h"

#include "core/alloc.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/progress.h"
#include "core/run.h"
#include "sibyl/trace.h"

#include <gsl/gsl_statistics_double.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Which of the two programs a run is. */
struct arm {
	const char *name;		/* "original", "accelerated" */
	const char *out;		/* its trace directory */
	const char *const *wrappers;
	size_t nwrappers;
	const char *const *env;		/* NULL: ours */
};

/* `sibyl trace -o OUT [--force] -w W... -- COMMAND...`, NULL-terminated. */
static char **trace_argv(const struct sibyl_verify *v, const struct sibyl_trace_meta *m,
			 const struct arm *a, bool replace)
{
	char **argv = sibyl_xcalloc(6 + 2 * a->nwrappers + m->argc + 1, sizeof(char *));
	size_t n = 0;

	argv[n++] = (char *)v->sibyl;
	argv[n++] = "trace";
	argv[n++] = "--output";
	argv[n++] = (char *)a->out;
	if (replace)
		argv[n++] = "--force";
	for (size_t i = 0; i < a->nwrappers; i++) {
		argv[n++] = "--wrap";
		argv[n++] = (char *)a->wrappers[i];
	}
	argv[n++] = "--";
	for (size_t i = 0; i < m->argc; i++)
		argv[n++] = (char *)m->argv[i];
	return argv;
}

static bool same_exit(const struct sibyl_trace_meta *a, const struct sibyl_trace_meta *b)
{
	return a->exit_kind == b->exit_kind && a->exit_code == b->exit_code;
}

/* Round k's run of arm a, traced and checked: the trace, or NULL with
 * one line in err. */
static struct sibyl_trace *run_arm(const struct sibyl_trace *traced, const struct sibyl_verify *v,
				   const struct arm *a, unsigned k, char *err, size_t errlen)
{
	const struct sibyl_trace_meta *m = sibyl_trace_meta(traced);
	char **argv = trace_argv(v, m, a, v->replace || k > 0), how[160];
	struct sibyl_run_fd quiet = { SIBYL_RUN_DEVNULL, 1 };
	struct sibyl_run_spec spec = { .argv = argv, .dir = *m->cwd ? m->cwd : NULL,
				       .base_env = a->env, .fds = v->show_output ? NULL : &quiet,
				       .nfds = v->show_output ? 0 : 1 };
	struct sibyl_run_status st;
	struct sibyl_trace *t;
	uint64_t started = sibyl_mono_ns();

	sibyl_run(&spec, &st);
	free(argv);
	if (st.outcome == SIBYL_RUN_NOT_STARTED)
		return sibyl_seterr(err, errlen, "--verify: %s trace %s", v->sibyl,
				    sibyl_run_describe(&st, how, sizeof(how))), NULL;
	if (!(t = sibyl_trace_open(a->out, err, errlen)))
		return NULL;
	/* `sibyl trace` refused (it said why): what is there is older. */
	if (sibyl_trace_meta(t)->start_ns < started)
		sibyl_seterr(err, errlen, "--verify: %s run %u: no new trace in %s (`sibyl "
			     "trace` %s)", a->name, k + 1, a->out,
			     sibyl_run_describe(&st, how, sizeof(how)));
	else if (!sibyl_trace_meta(t)->finished)
		sibyl_seterr(err, errlen, "--verify: %s run %u: `sibyl trace` %s before the "
			     "program ended", a->name, k + 1,
			     sibyl_run_describe(&st, how, sizeof(how)));
	else if (!same_exit(sibyl_trace_meta(t), m))
		sibyl_seterr(err, errlen, "--verify: %s run %u ended otherwise than the traced "
			     "run (see %s/meta.json \"exit\"): it does not do the same thing",
			     a->name, k + 1, a->out);
	else
		return t;
	sibyl_trace_close(t);
	return NULL;
}

/* The original again, predicted afresh: its speedup and wall time. */
static int original_round(const struct sibyl_trace *traced, const struct sibyl_verify *v,
			  const struct arm *a, unsigned k, const struct sibyl_predict_options *o,
			  double *predicted, double *total, char *err, size_t errlen)
{
	struct sibyl_trace *t = run_arm(traced, v, a, k, err, errlen);
	struct sibyl_prediction q;
	int rc;

	if (!t)
		return -1;
	rc = sibyl_predict(t, o, &q, err, errlen);
	if (rc == 0) {
		*predicted = q.traced_speedup;
		*total = q.total_s;
		sibyl_prediction_free(&q);
	}
	sibyl_trace_close(t);
	return rc;
}

static int accelerated_round(const struct sibyl_trace *traced, const struct sibyl_verify *v,
			     const struct arm *a, unsigned k, const struct sibyl_predict_options *o,
			     struct sibyl_prediction *p, char *err, size_t errlen)
{
	struct sibyl_trace *t = run_arm(traced, v, a, k, err, errlen);
	int rc;

	if (!t)
		return -1;
	rc = sibyl_predict_compare(t, o, p, err, errlen);
	sibyl_trace_close(t);
	return rc;
}

static void median_range(const double *x, unsigned n, double out[3])
{
	double *s = sibyl_xcalloc(n, sizeof(*s));

	memcpy(s, x, n * sizeof(*s));
	out[0] = gsl_stats_median(s, 1, n);
	out[1] = gsl_stats_min(s, 1, n);
	out[2] = gsl_stats_max(s, 1, n);
	free(s);
}

/* Per round: [0] accelerated wall, [1] original's predicted speedup,
 * [2] the pair's actual speedup; then one column per kernel. */
struct rounds {
	unsigned n;
	double *acc_total, *predicted, *pair_actual, *kernel;
};

static void summarise(const struct rounds *r, bool paired, struct sibyl_prediction *p)
{
	double m[3];

	for (size_t i = 0; i < p->nkernels; i++)
		p->kernels[i].actual_s = gsl_stats_median(r->kernel + i * r->n, 1, r->n);
	median_range(r->acc_total, r->n, m);
	predict_set_actual_total(p, r->n, m[0], m[1], m[2]);
	if (!paired)
		return;
	p->paired.runs = r->n;
	median_range(r->predicted, r->n, p->paired.predicted);
	median_range(r->pair_actual, r->n, p->paired.actual);
}

static int check_out(const struct sibyl_verify *v, const char *out, char *err, size_t errlen)
{
	struct stat st;

	if (!v->replace && lstat(out, &st) == 0)
		return sibyl_seterr(err, errlen, "--verify: %s exists (--force replaces it, if it "
				    "is a trace)", out);
	return 0;
}

int sibyl_predict_verify(const struct sibyl_trace *traced, const struct sibyl_verify *v,
			 const struct sibyl_predict_options *o, struct sibyl_prediction *p,
			 char *err, size_t errlen)
{
	const struct sibyl_trace_meta *m = sibyl_trace_meta(traced);
	struct arm acc = { "accelerated", v->out, v->wrappers ? v->wrappers : m->wrappers,
			   v->wrappers ? v->nwrappers : m->nwrappers, NULL };
	struct arm orig = { "original", v->original_out, m->wrappers, m->nwrappers, m->environ };
	bool paired = v->original_out != NULL;
	struct rounds r = { .n = v->runs ? v->runs : 1 };
	struct sibyl_progress bar;
	int rc = check_out(v, acc.out, err, errlen) || (paired && check_out(v, orig.out, err,
									       errlen)) ? -1 : 0;

	r.acc_total = sibyl_xcalloc(r.n, sizeof(double));
	r.predicted = sibyl_xcalloc(r.n, sizeof(double));
	r.pair_actual = sibyl_xcalloc(r.n, sizeof(double));
	r.kernel = sibyl_xcalloc((size_t)r.n * (p->nkernels + 1), sizeof(double));
	sibyl_progress_start(&bar, stderr, "predict --verify", "runs");
	for (unsigned k = 0; k < r.n && rc == 0; k++) {
		double orig_total = 0;

		sibyl_progress_update(&bar, k, r.n, "%s run %u of %u", paired ?
				      "original and accelerated" : "accelerated", k + 1, r.n);
		if (paired)
			rc = original_round(traced, v, &orig, k, o, &r.predicted[k], &orig_total,
					    err, errlen);
		if (rc == 0)
			rc = accelerated_round(traced, v, &acc, k, o, p, err, errlen);
		r.acc_total[k] = p->actual_total_s;
		r.pair_actual[k] = orig_total / p->actual_total_s;
		for (size_t i = 0; i < p->nkernels; i++)
			r.kernel[i * r.n + k] = p->kernels[i].actual_s;
	}
	sibyl_progress_done(&bar);
	if (rc == 0)
		summarise(&r, paired, p);
	free(r.acc_total);
	free(r.predicted);
	free(r.pair_actual);
	free(r.kernel);
	return rc;
}
