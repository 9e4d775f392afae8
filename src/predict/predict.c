/*
 * The prediction itself: every counted call of a kernel is either kept
 * (its measured t) or replaced by the accelerated time f(w) plus its
 * transfers, then eq. 1-3 of Matoga et al. give the whole program.
 */
#include "predict/internal.h"

#include "core/alloc.h"
#include "model/profile.h"
#include "ocl/device/device_profile.h"
#include "sibyl/trace.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Host->device for the input, device->host for the output: the measured
 * curve inside its range, its ends scaled outside (device_profile.h). */
static double transfer_s(const struct sibyl_predict_options *o, const struct predict_call *c)
{
	if (!o->transfer)
		return 0;
	double in = sibyl_device_transfer_seconds_measured(o->transfer, SIBYL_H2D, c->in_bytes);
	double out = sibyl_device_transfer_seconds_measured(o->transfer, SIBYL_D2H, c->out_bytes);

	return (in > 0 ? in : 0) + (out > 0 ? out : 0);
}

struct predict_time predict_call_time(const struct sibyl_predict_options *o,
				      const struct sibyl_profile *p, const struct predict_call *c)
{
	double lo = p->points[0].x, hi = p->points[p->npoints - 1].x;
	struct predict_time r = { .below = c->work < lo, .above = c->work > hi };

	if ((r.below || r.above) && o->outside == SIBYL_OUTSIDE_KEEP) {
		r.compute = r.transfer = NAN;
		return r;
	}
	/* A profile extended below its first point can go negative: time
	 * is never less than zero.  Its times are the machine at its best;
	 * the typical factor makes them the speed a program meets.  The
	 * call's page faults are the program's memory, not the kernel's;
	 * what it pays for being first is first_touch.c's (a first call's
	 * excess is at least minus the line: never below zero). */
	r.compute = fmax(0, sibyl_profile_eval(p, c->work)) * (c->typical > 0 ? c->typical : 1) +
		    c->fault_s + c->touch_s + c->first_at_s;
	r.transfer = transfer_s(o, c);
	return r;
}

struct choice {
	double work, measured, accelerated;	/* accelerated: NAN if never */
};

static int by_work(const void *a, const void *b)
{
	const struct choice *x = a, *y = b;

	return (x->work > y->work) - (x->work < y->work);
}

/* The threshold policy a redirect wrapper can apply: accelerate calls
 * with work >= w.  Tried at every distinct w of the calls (and "never"),
 * the fastest total wins; the ties go to the larger threshold. */
static void crossover(struct sibyl_kernel_prediction *k, struct choice *ch, size_t n)
{
	double keep_all = 0, best, suffix = 0;

	qsort(ch, n, sizeof(*ch), by_work);
	for (size_t i = 0; i < n; i++)
		keep_all += ch[i].measured;
	best = keep_all;
	k->has_crossover = false;
	k->threshold_predicted_s = keep_all;
	/* Walking down: prefix kept, suffix [i, n) accelerated. */
	double prefix = keep_all;

	for (size_t i = n; i-- > 0;) {
		suffix += isnan(ch[i].accelerated) ? ch[i].measured : ch[i].accelerated;
		prefix -= ch[i].measured;
		if (i > 0 && ch[i - 1].work == ch[i].work)
			continue;	/* a threshold separates distinct works only */
		if (prefix + suffix < best) {
			best = prefix + suffix;
			k->has_crossover = true;
			k->crossover = ch[i].work;
			k->threshold_predicted_s = best;
		}
	}
}

/* Call c runs on the accelerator: compute and transfer seconds. */
static void accelerate(struct sibyl_kernel_prediction *k, struct predict_call *c, double comp,
		       double xfer)
{
	c->accelerated = true;
	k->faults_counted |= c->faults_counted;
	k->faults += c->faults;
	k->fault_s += c->fault_s;
	k->touch_faults += c->touch_faults;
	k->touch_s += c->touch_s;
	k->first_at_calls += c->first_at;
	k->first_at_s += c->first_at_s;
	k->accelerated++;
	k->compute_s += comp;
	k->transfer_s += xfer;
}

/* The calls v[0, n) of kernel ki. */
static void predict_kernel(const struct sibyl_predict_options *o, struct sibyl_prediction *out,
			   size_t ki, struct predict_call *v, size_t nv)
{
	struct sibyl_kernel_prediction *k = &out->kernels[ki];
	const struct sibyl_profile *p = k->model->profile;
	double best = 0;	/* the accelerated calls' profile times */
	struct predict_fits *fits = predict_fits_new(p);
	struct choice *ch = sibyl_xcalloc(nv, sizeof(*ch));
	size_t n = 0;

	k->work_min = INFINITY;
	k->work_max = -INFINITY;
	for (size_t i = 0; i < nv; i++) {
		struct predict_call *c = &v[i];

		if (c->nested) {
			k->nested++;
			continue;
		}
		k->calls++;
		k->measured_s += c->seconds;
		k->work_min = fmin(k->work_min, c->work);
		k->work_max = fmax(k->work_max, c->work);
		struct predict_time pt = predict_call_time(o, p, c);
		double comp = pt.compute, xfer = isnan(comp) ? 0 : pt.transfer;

		if (pt.below || pt.above) {
			k->below += pt.below;
			k->above += pt.above;
			k->outside_measured_s += c->seconds;
		}

		ch[n++] = (struct choice){ c->work, c->seconds, isnan(comp) ? NAN : comp + xfer };
		if (isnan(comp) || (o->best_of && comp + xfer >= c->seconds)) {
			k->kept_s += c->seconds;
			continue;
		}
		accelerate(k, c, comp, xfer);
		double own = comp - c->fault_s - c->touch_s - c->first_at_s;	/* the profile's */

		best += own / c->typical;
		predict_interval_add(out, ki, fits, c->work, own, c->typical);
	}
	predict_fits_free(fits);
	/* The factor the accelerated calls met, weighted by their time. */
	k->typical_factor = best > 0 ?
		(k->compute_s - k->fault_s - k->touch_s - k->first_at_s) / best : 1;
	k->predicted_s = k->compute_s + k->transfer_s + k->kept_s;
	k->speedup = k->predicted_s > 0 ? k->measured_s / k->predicted_s : INFINITY;
	crossover(k, ch, n);
	free(ch);
}

/* A profile's one-time cost: init (unless the original pays it too:
 * init_shared) plus what the first call took beyond the same work
 * measured warm (*first, paid inside that call), plus the exit's share
 * (exit_seconds, absent from older profiles); -1 when the profile does
 * not record it. */
static double one_time_of(const struct sibyl_profile *p, double *first_call)
{
	json_t *o = p->stats ? json_object_get(p->stats, "one_time") : NULL;
	json_t *init = json_object_get(o, "init_seconds");
	double first = *first_call = sibyl_profile_first_call_excess(p);

	if (!json_is_number(init) || first < 0)
		return -1;
	json_t *exit = json_object_get(o, "exit_seconds");

	return (json_is_true(json_object_get(o, "init_shared")) ? 0 :
		fmax(0, json_number_value(init)) + fmax(0, json_number_value(exit))) + first;
}

/* Whether two profiles measured the same implementation: one file, or
 * one adapter (name and shared object) planned twice, e.g. over two
 * ranges.  A program loads and initialises it once. */
static bool same_implementation(const struct sibyl_predict_model *a,
				const struct sibyl_predict_model *b)
{
	if (!strcmp(a->path, b->path))
		return true;
	json_t *x = json_object_get(a->profile->provenance, "adapter");
	json_t *y = json_object_get(b->profile->provenance, "adapter");
	const char *xs = json_string_value(json_object_get(x, "source"));
	const char *ys = json_string_value(json_object_get(y, "source"));
	const char *xn = json_string_value(json_object_get(x, "name"));
	const char *yn = json_string_value(json_object_get(y, "name"));

	return xs && ys && xn && yn && !strcmp(xs, ys) && !strcmp(xn, yn);
}

/* Once per implementation actually swapped in: kernels sharing one
 * share its initialisation. */
static void add_one_time(struct sibyl_prediction *out, const struct sibyl_predict_options *o)
{
	for (size_t k = 0; k < out->nkernels; k++) {
		const struct sibyl_kernel_prediction *kp = &out->kernels[k];
		bool seen = false;

		for (size_t j = 0; j < k && !seen; j++)
			seen = out->kernels[j].accelerated &&
			       same_implementation(out->kernels[j].model, kp->model);
		if (seen || !kp->accelerated)
			continue;
		double in_call, cost = one_time_of(kp->model->profile, &in_call);

		if (cost < 0) {
			out->one_time_unknown++;
		} else {
			out->one_time_s += cost;
			out->one_time_in_call_s += in_call;
		}
	}
	out->one_time_included = !o->no_one_time;
}

/* Why a trace cannot stand for a whole run, or NULL. */
static const char *partial_why(const struct sibyl_trace_meta *m)
{
	if (!m->complete)
		return "the trace is incomplete (sibyl report says why)";
	if (m->exit_kind == SIBYL_EXIT_SIGNAL)
		return "the run was killed by a signal";
	if (m->exit_kind != SIBYL_EXIT_STATUS || m->exit_code != 0)
		return "the run did not exit with status 0";
	return NULL;
}

int sibyl_predict(const struct sibyl_trace *t, const struct sibyl_predict_options *o,
		  struct sibyl_prediction *out, char *err, size_t errlen)
{
	const struct sibyl_trace_meta *meta = sibyl_trace_meta(t);

	memset(out, 0, sizeof(*out));
	out->calls = sibyl_xcalloc(1, sizeof(*out->calls));
	out->actual_total_s = out->actual_speedup = NAN;
	out->best_of = o->best_of;
	out->transfers = o->transfer != NULL;
	out->outside = o->outside;
	out->partial_why = partial_why(meta);
	out->partial = out->partial_why != NULL;
	out->total_s = meta->wall_ns * 1e-9;
	if (predict_collect(t, o, out, out->calls, err, errlen) < 0) {
		sibyl_prediction_free(out);
		return -1;
	}
	predict_typical_calls(out, out->calls);
	predict_first_touch(out, out->calls, meta->page_fault_ns);
	/* Every kernel has calls (it was made by its first): one run each. */
	for (size_t k = 0, from = 0; k < out->nkernels; k++) {
		size_t to = predict_kernel_end(out->calls, from);

		out->kernels[k].actual_s = NAN;
		predict_kernel(o, out, k, out->calls->v + from, to - from);
		out->measured_s += out->kernels[k].measured_s;
		out->predicted_kernels_s += out->kernels[k].predicted_s;
		from = to;
	}
	out->fraction = out->total_s > 0 ? out->measured_s / out->total_s : 0;
	out->kernel_speedup = out->predicted_kernels_s > 0 ?
		out->measured_s / out->predicted_kernels_s : INFINITY;
	predict_interval_finish(out);
	add_one_time(out, o);
	out->traced_total_s = out->total_s - out->measured_s + out->predicted_kernels_s +
			      (out->one_time_included ? out->one_time_s : 0);
	out->traced_speedup = out->traced_total_s > 0 ?
		out->total_s / out->traced_total_s : INFINITY;
	/* Without sibyl, neither run pays the wrappers; the calls inside
	 * accelerated ones are not made at all (docs/predict.md). */
	predict_interposition(t, out);
	out->untraced_total_s = out->total_s - out->interposition.total_s -
				out->interposition.startup_s;
	out->predicted_total_s = out->traced_total_s - out->interposition.startup_s -
		(out->interposition.total_s - out->interposition.inside_s);
	out->global_speedup = out->predicted_total_s > 0 ?
		out->untraced_total_s / out->predicted_total_s : INFINITY;
	return 0;
}

/* The accelerated run is read with the same rules (models, metrics,
 * nesting), so a kernel's actual time covers the calls its prediction
 * replaced. */
int sibyl_predict_compare(const struct sibyl_trace *accelerated,
			  const struct sibyl_predict_options *o, struct sibyl_prediction *p,
			  char *err, size_t errlen)
{
	const struct sibyl_trace_meta *meta = sibyl_trace_meta(accelerated);
	struct sibyl_prediction run = { 0 };
	struct predict_calls calls = { 0 };
	int rc = predict_collect(accelerated, o, &run, &calls, err, errlen);
	long *to = sibyl_xcalloc(run.nkernels, sizeof(*to));

	for (size_t i = 0; i < p->nkernels; i++) {
		p->kernels[i].actual_calls = 0;
		p->kernels[i].actual_s = 0;
	}
	for (size_t r = 0; rc == 0 && r < run.nkernels; r++) {
		to[r] = -1;
		for (size_t i = 0; i < p->nkernels; i++)
			if (!strcmp(run.kernels[r].name, p->kernels[i].name))
				to[r] = (long)i;
	}
	for (size_t c = 0; rc == 0 && c < calls.n; c++) {
		long i = to[calls.v[c].kernel];

		if (calls.v[c].nested || i < 0)
			continue;
		p->kernels[i].actual_calls++;
		p->kernels[i].actual_s += calls.v[c].seconds;
	}
	free(to);
	free(calls.v);
	sibyl_prediction_free(&run);
	if (rc < 0)
		return -1;
	p->actual_partial_why = partial_why(meta);
	p->actual_partial = p->actual_partial_why != NULL;
	predict_set_actual_total(p, 1, meta->wall_ns * 1e-9, meta->wall_ns * 1e-9,
				 meta->wall_ns * 1e-9);
	return 0;
}

void predict_set_actual_total(struct sibyl_prediction *p, unsigned runs, double median_s,
			      double min_s, double max_s)
{
	p->actual_runs = runs;
	p->actual_total_s = median_s;
	p->actual_total_min_s = min_s;
	p->actual_total_max_s = max_s;
	p->actual_speedup = median_s > 0 ? p->total_s / median_s : INFINITY;
}

double predict_error(const struct sibyl_prediction *p)
{
	return (p->traced_speedup - p->actual_speedup) / p->actual_speedup;
}

double predict_paired_error(const struct sibyl_prediction *p)
{
	return (p->paired.predicted[0] - p->paired.actual[0]) / p->paired.actual[0];
}

void sibyl_prediction_free(struct sibyl_prediction *p)
{
	free(p->kernels);
	free(p->groups);
	if (p->calls)
		free(p->calls->v);
	free(p->calls);
	memset(p, 0, sizeof(*p));
}

struct predict_split predict_error_split(const struct sibyl_prediction *p)
{
	/* Initialisation and exit go with the rest: a redirect wrapper loads
	 * the alternative before its first call's timed part.  What the first
	 * call takes beyond a warm one (CLBlast builds its kernels there) is
	 * inside that call's time. */
	struct predict_split s = { .kernels_predicted_s = p->predicted_kernels_s +
				   (p->one_time_included ? p->one_time_in_call_s : 0) };

	for (size_t i = 0; i < p->nkernels; i++)
		s.kernels_actual_s += p->kernels[i].actual_s;
	s.rest_predicted_s = p->traced_total_s - s.kernels_predicted_s;
	s.rest_actual_s = p->actual_total_s - s.kernels_actual_s;
	return s;
}
