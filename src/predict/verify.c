/*
 * predict --verify: the paper's check (Matoga et al. 2013, V.A) done by
 * sibyl itself.  The traced command runs again, in its own directory,
 * under `sibyl trace` with the accelerated wrappers (a redirect wrapper,
 * or the same wrappers in an environment that selects the fast path),
 * several times; the prediction is compared with the median run, and
 * the spread of the runs is kept so a reader can tell an error from
 * noise.
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

/* `sibyl trace -o OUT [--force] -w W... -- COMMAND...`, NULL-terminated. */
static char **trace_argv(const struct sibyl_verify *v, const struct sibyl_trace_meta *m,
			 bool replace)
{
	const char *const *wraps = v->wrappers ? v->wrappers : m->wrappers;
	size_t nwraps = v->wrappers ? v->nwrappers : m->nwrappers, n = 0;
	char **argv = sibyl_xcalloc(6 + 2 * nwraps + m->argc + 1, sizeof(char *));

	argv[n++] = (char *)v->sibyl;
	argv[n++] = "trace";
	argv[n++] = "--output";
	argv[n++] = (char *)v->out;
	if (replace)
		argv[n++] = "--force";
	for (size_t i = 0; i < nwraps; i++) {
		argv[n++] = "--wrap";
		argv[n++] = (char *)wraps[i];
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

/* One accelerated run, traced into v->out and compared into p. */
static int run_once(const struct sibyl_trace *traced, const struct sibyl_verify *v,
		    unsigned k, const struct sibyl_predict_options *o, struct sibyl_prediction *p,
		    char *err, size_t errlen)
{
	const struct sibyl_trace_meta *m = sibyl_trace_meta(traced);
	char **argv = trace_argv(v, m, v->replace || k > 0), how[160];
	struct sibyl_run_fd quiet = { SIBYL_RUN_DEVNULL, 1 };
	struct sibyl_run_spec spec = { .argv = argv, .dir = *m->cwd ? m->cwd : NULL,
				       .fds = v->show_output ? NULL : &quiet,
				       .nfds = v->show_output ? 0 : 1 };
	struct sibyl_run_status st;
	struct sibyl_trace *t;
	uint64_t started = sibyl_mono_ns();
	int rc = -1;

	sibyl_run(&spec, &st);
	free(argv);
	if (st.outcome == SIBYL_RUN_NOT_STARTED)
		return sibyl_seterr(err, errlen, "--verify: %s trace %s", v->sibyl,
				    sibyl_run_describe(&st, how, sizeof(how)));
	if (!(t = sibyl_trace_open(v->out, err, errlen)))
		return -1;
	/* `sibyl trace` refused (it said why): what is there is older. */
	if (sibyl_trace_meta(t)->start_ns < started)
		sibyl_seterr(err, errlen, "--verify: run %u: no new trace in %s (`sibyl trace` %s)",
			     k + 1, v->out, sibyl_run_describe(&st, how, sizeof(how)));
	else if (!sibyl_trace_meta(t)->finished)
		sibyl_seterr(err, errlen, "--verify: run %u: `sibyl trace` %s before the program "
			    "ended", k + 1, sibyl_run_describe(&st, how, sizeof(how)));
	else if (!same_exit(sibyl_trace_meta(t), m))
		sibyl_seterr(err, errlen, "--verify: run %u of the accelerated program ended "
			    "otherwise than the traced run (see %s/meta.json \"exit\"): it does "
			    "not do the same thing", k + 1, v->out);
	else
		rc = sibyl_predict_compare(t, o, p, err, errlen);
	sibyl_trace_close(t);
	return rc;
}

int sibyl_predict_verify(const struct sibyl_trace *traced, const struct sibyl_verify *v,
			 const struct sibyl_predict_options *o, struct sibyl_prediction *p,
			 char *err, size_t errlen)
{
	unsigned runs = v->runs ? v->runs : 1;
	struct sibyl_progress bar;
	struct stat st;
	int rc = 0;

	if (!v->replace && lstat(v->out, &st) == 0)
		return sibyl_seterr(err, errlen, "--verify: %s exists (--force replaces it, if it "
				    "is a trace)", v->out);
	double *total = sibyl_xcalloc(runs, sizeof(*total));
	double *kernel = sibyl_xcalloc((size_t)runs * (p->nkernels + 1), sizeof(*kernel));

	sibyl_progress_start(&bar, stderr, "predict --verify", "runs");
	for (unsigned k = 0; k < runs && rc == 0; k++) {
		sibyl_progress_update(&bar, k, runs, "accelerated run %u of %u", k + 1, runs);
		rc = run_once(traced, v, k, o, p, err, errlen);
		total[k] = p->actual_total_s;
		for (size_t i = 0; i < p->nkernels; i++)
			kernel[i * runs + k] = p->kernels[i].actual_s;
	}
	sibyl_progress_done(&bar);
	if (rc == 0) {
		for (size_t i = 0; i < p->nkernels; i++)
			p->kernels[i].actual_s = gsl_stats_median(kernel + i * runs, 1, runs);
		predict_set_actual_total(p, runs, gsl_stats_median(total, 1, runs),
					 gsl_stats_min(total, 1, runs), gsl_stats_max(total, 1, runs));
	}
	free(kernel);
	free(total);
	return rc;
}
