/*
 * Which calls a prediction replaces.  A --model pattern selects traced
 * functions by name; each called function it matches is one kernel, and
 * its profile must be measured in the metric the trace recorded for it:
 * the definition file's declared `work` metric, or bytes.  Nothing is
 * guessed: a mismatch, an undeclared metric or a profile of another host
 * is refused with one line.
 */
#define _GNU_SOURCE
#include "predict/internal.h"

#include "core/alloc.h"
#include "core/log.h"
#include "model/profile.h"
#include "sibyl/trace.h"

#include <fnmatch.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The trace must have recorded what the profile is measured in. */
static int check_metric(const struct sibyl_trace_function *f, const struct sibyl_predict_model *m,
			enum sibyl_work_source *source, char *err, size_t errlen)
{
	return sibyl_work_source_of(f, m->profile->work_metric, m->path, source, err, errlen);
}

/* A profile measured elsewhere predicts another machine: refuse unless
 * asked (a what-if prediction), naming both hosts. */
static int check_machine(const struct sibyl_trace *t, const struct sibyl_predict_options *o,
			 const struct sibyl_predict_model *m, char *err, size_t errlen)
{
	const char *here = sibyl_trace_meta(t)->hostname;
	json_t *machine = m->profile->provenance ?
		json_object_get(m->profile->provenance, "machine") : NULL;
	const char *there = json_string_value(json_object_get(machine, "hostname"));

	if (o->other_machine || !there || !*here || !strcmp(here, there))
		return 0;
	return sibyl_seterr(err, errlen, "%s: profiled on host '%s', the trace ran on '%s' "
			    "(--other-machine predicts with it anyway)", m->path, there, here);
}

/* The model whose pattern matches the function, or NULL; two is an error. */
static int model_of(const struct sibyl_predict_options *o, const struct sibyl_trace_function *f,
		    const struct sibyl_predict_model **found, char *err, size_t errlen)
{
	*found = NULL;
	for (size_t i = 0; i < o->nmodels; i++) {
		if (fnmatch(o->models[i].pattern, f->name, 0))
			continue;
		if (*found)
			return sibyl_seterr(err, errlen, "%s is matched by both --model %s and --model %s",
					    f->name, (*found)->pattern, o->models[i].pattern);
		*found = &o->models[i];
	}
	return 0;
}

/* The kernel of a called function, created on its first call. */
static long kernel_of(const struct sibyl_trace *t, const struct sibyl_predict_options *o,
		      struct sibyl_prediction *out, long *by_function,
		      const struct sibyl_trace_function *f, char *err, size_t errlen)
{
	size_t fi = (size_t)(f - sibyl_trace_function(t, 0));
	const struct sibyl_predict_model *m;

	if (by_function[fi] != -2)
		return by_function[fi];
	by_function[fi] = -1;
	if (model_of(o, f, &m, err, errlen) < 0)
		return -3;
	if (!m)
		return -1;
	struct sibyl_kernel_prediction k = { .name = f->name, .library = f->library, .model = m };

	if (m->profile->npoints == 0)
		return sibyl_seterr(err, errlen, "%s: the profile has no points (its plan stopped before its "
				    "first segment); plan it again", m->path), -3;
	if (check_metric(f, m, &k.work_source, err, errlen) < 0 ||
	    check_machine(t, o, m, err, errlen) < 0)
		return -3;
	out->kernels = sibyl_xreallocarray(out->kernels, out->nkernels + 1, sizeof(k));
	out->kernels[out->nkernels] = k;
	return by_function[fi] = (long)out->nkernels++;
}

/* A call that writes fresh memory (numpy's new result array) takes a page
 * fault per page whichever implementation writes it: that time stays in
 * the prediction (docs/predict.md, "Page faults"). */
static void count_faults(struct predict_call *p, const struct sibyl_trace_call *c, double fault_ns)
{
	p->faults_counted = (c->counter_mask & (1u << SIBYL_CNT_PAGE_FAULTS)) && !isnan(fault_ns);
	if (!p->faults_counted)
		return;
	p->faults = c->counters[SIBYL_CNT_PAGE_FAULTS];
	p->fault_s = (double)p->faults * fault_ns * 1e-9;
}

static void push(struct predict_calls *calls, const struct predict_call *c)
{
	if (calls->n == calls->cap) {
		calls->cap = calls->cap ? calls->cap * 2 : 1024;
		calls->v = sibyl_xreallocarray(calls->v, calls->cap, sizeof(*c));
	}
	calls->v[calls->n++] = *c;
}

static int by_start(const void *a, const void *b)
{
	const struct predict_call *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return (x->end_ns < y->end_ns) - (x->end_ns > y->end_ns);	/* outer first */
}

/* A modelled call inside another one of the same thread is part of the
 * outer call's time (cblas_dgemm calls dgemm_): counting both would
 * replace the same time twice.  Calls of one thread nest or are disjoint. */
static void mark_nested(struct predict_calls *calls)
{
	for (size_t from = 0; from < calls->n;) {
		size_t to = from;

		while (to < calls->n && calls->v[to].thread == calls->v[from].thread)
			to++;
		qsort(calls->v + from, to - from, sizeof(*calls->v), by_start);
		uint64_t outer_end = 0;

		for (size_t i = from; i < to; i++) {
			calls->v[i].nested = i > from && calls->v[i].start_ns < outer_end;
			if (!calls->v[i].nested)
				outer_end = calls->v[i].end_ns;
		}
		from = to;
	}
}

static int by_kernel(const void *a, const void *b)
{
	const struct predict_call *x = a, *y = b;

	return (x->kernel > y->kernel) - (x->kernel < y->kernel);
}

/* Every pattern must name something that ran: a typo must not predict 1.0. */
static int check_patterns_used(const struct sibyl_predict_options *o,
			       const struct sibyl_prediction *out, char *err, size_t errlen)
{
	for (size_t i = 0; i < o->nmodels; i++) {
		bool used = false;

		for (size_t k = 0; k < out->nkernels && !used; k++)
			used = out->kernels[k].model == &o->models[i];
		if (!used)
			return sibyl_seterr(err, errlen, "--model %s: no call of a function matching "
					    "'%s' in the trace", o->models[i].pattern, o->models[i].pattern);
	}
	return 0;
}

int predict_collect(const struct sibyl_trace *t, const struct sibyl_predict_options *o,
		    struct sibyl_prediction *out, struct predict_calls *calls,
		    char *err, size_t errlen)
{
	size_t nf = sibyl_trace_function_count(t);
	long *by_function = sibyl_xmalloc((nf ? nf : 1) * sizeof(long));
	struct sibyl_trace_iter *it = sibyl_trace_iter_new(t);
	struct sibyl_trace_call c;
	int rc = 0;

	for (size_t i = 0; i < nf; i++)
		by_function[i] = -2;	/* not looked at yet */
	while (rc == 0 && sibyl_trace_iter_next(it, &c) == 1) {
		long k = kernel_of(t, o, out, by_function, c.function, err, errlen);

		if (k == -3)
			rc = -1;
		if (k < 0)
			continue;
		push(calls, &(struct predict_call){
			.start_ns = c.start_ns, .end_ns = c.end_ns, .seconds = c.duration_ns * 1e-9,
			.work = sibyl_call_work(&c, out->kernels[k].work_source), .in_bytes = c.in_bytes,
			.out_bytes = c.out_bytes, .kernel = (size_t)k, .thread = c.thread,
			.process = sibyl_trace_thread(t, c.thread)->process, .depth = c.depth });
		count_faults(&calls->v[calls->n - 1], &c, sibyl_trace_meta(t)->page_fault_ns);
	}
	sibyl_trace_iter_free(it);
	free(by_function);
	if (rc == 0)
		rc = check_patterns_used(o, out, err, errlen);
	if (rc == 0) {
		mark_nested(calls);	/* needs the calls of a thread together */
		qsort(calls->v, calls->n, sizeof(*calls->v), by_kernel);
	}
	return rc;
}
