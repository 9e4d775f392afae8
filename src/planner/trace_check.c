/* A profile against a program's traced calls (trace_check.h). */
#include "planner/trace_check.h"
#include "core/alloc.h"
#include "core/log.h"
#include "sibyl/trace.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static void count_cover(struct sibyl_trace_check *c, enum sibyl_cover where)
{
	c->between += where == SIBYL_COVER_BETWEEN;
	c->below += where == SIBYL_COVER_BELOW;
	c->above += where == SIBYL_COVER_ABOVE;
}

/* Pairs of a process and a work metric met, for the metrics whose first
 * call the profile records apart. */
struct met {
	struct { size_t proc; double metric; } *v;
	size_t n;
};

/* What a call at w in process proc pays for being its process's first
 * there: the profile's first call at w beyond its time there, once.  The
 * process's first call (!charge) pays the one-time excess instead, which
 * was measured at a first call too: its metric is met all the same. */
static double first_at(const struct sibyl_profile *p, struct met *met, size_t proc, double w,
		       bool charge, struct sibyl_trace_check *c)
{
	double excess = sibyl_profile_first_call_at(p, w);

	if (isnan(excess))
		return 0;
	for (size_t i = 0; i < met->n; i++)
		if (met->v[i].proc == proc && met->v[i].metric == w)
			return 0;
	met->v = sibyl_xreallocarray(met->v, met->n + 1, sizeof(*met->v));
	met->v[met->n].proc = proc;
	met->v[met->n++].metric = w;
	if (!charge)
		return 0;
	c->first_at_calls++;
	c->first_at_s += excess;
	return excess;
}

/* Each call of the function: its relative error into e (grown as needed). */
static int compare_calls(const struct sibyl_profile *p, const struct sibyl_trace *t,
			 const char *function, struct sibyl_trace_check *c, double **e,
			 char *err, size_t errlen)
{
	struct sibyl_trace_iter *it = sibyl_trace_iter_new(t);
	struct sibyl_trace_call call;
	const struct sibyl_trace_function *checked = NULL;
	enum sibyl_work_source src = SIBYL_WORK_DECLARED;
	size_t cap = 0;
	int rc = 0;
	bool *started = sibyl_xcalloc(sibyl_trace_process_count(t) + 1, sizeof(*started));
	struct met met = { NULL, 0 };

	while (rc == 0 && sibyl_trace_iter_next(it, &call) == 1) {
		if (strcmp(call.function->name, function))
			continue;
		if (call.function != checked &&
		    (rc = sibyl_work_source_of(call.function, p->work_metric, "the profile", &src,
					       err, errlen)))
			break;
		checked = call.function;
		double w = sibyl_call_work(&call, src);
		double traced = fmax(1e-12, call.duration_ns * 1e-9);
		/* The one clamp: a line extended below its first point can go
		 * negative.  The excesses added to it never take it below zero:
		 * a first call at a metric is the line there times its measured
		 * ratio to the warm runs (sibyl_profile_first_call_at), the
		 * process's first call's excess is at least 0. */
		double predicted = fmax(0, sibyl_profile_eval(p, w));
		size_t proc = sibyl_trace_thread(t, call.thread)->process;

		predicted += first_at(p, &met, proc, w, started[proc], c);
		if (!started[proc]) {	/* the process's first call of function */
			started[proc] = true;
			c->first_calls++;
			predicted += c->first_call_s;
		}
		count_cover(c, sibyl_profile_cover(p, w));
		if (c->calls == cap) {
			cap = cap ? 2 * cap : 1024;
			*e = sibyl_xreallocarray(*e, cap, sizeof(**e));
		}
		(*e)[c->calls++] = 100 * fabs(predicted - traced) / traced;
		c->traced_s += traced;
		c->predicted_s += predicted;
	}
	sibyl_trace_iter_free(it);
	free(started);
	free(met.v);
	return rc;
}

int sibyl_trace_check(const struct sibyl_profile *p, const char *dir, const char *function,
		      struct sibyl_trace_check *c, char *err, size_t errlen)
{
	char why[1024];
	struct sibyl_trace *t = sibyl_trace_open(dir, why, sizeof(why));
	double *e = NULL;

	memset(c, 0, sizeof(*c));
	if (!t)
		return sibyl_seterr(err, errlen, "%s", why);
	if (!p->npoints) {
		sibyl_trace_close(t);
		return sibyl_seterr(err, errlen, "the profile has no points to predict with");
	}
	c->first_call_s = fmax(0, sibyl_profile_first_call_excess(p));
	int rc = compare_calls(p, t, function, c, &e, err, errlen);

	sibyl_trace_close(t);
	if (rc == 0 && !c->calls)
		rc = sibyl_seterr(err, errlen, "%s: no call of %s in the trace", dir, function);
	if (rc == 0) {
		gsl_sort(e, 1, c->calls);
		c->median_error_pct = gsl_stats_median_from_sorted_data(e, 1, c->calls);
		c->mean_error_pct = gsl_stats_mean(e, 1, c->calls);
		c->total_error_pct = 100 * (c->predicted_s - c->traced_s) / c->traced_s;
	}
	free(e);
	return rc;
}
