/* Private to src/predict: the modelled calls of a trace. */
#ifndef SIBYL_PREDICT_INTERNAL_H
#define SIBYL_PREDICT_INTERNAL_H

#include "predict/predict.h"

struct sibyl_profile;

/* One call of a modelled function. */
struct predict_call {
	uint64_t start_ns, end_ns;
	double seconds;		/* measured t */
	double work;		/* w, in the profile's metric */
	uint64_t in_bytes, out_bytes;
	size_t kernel;		/* index into the kernels */
	size_t thread;
	size_t process;		/* its thread's (sibyl_trace_process) */
	uint16_t depth;		/* wrapped calls around it */
	double typical;		/* its profile time's factor (0: 1) */
	bool faults_counted;	/* the trace counted its page faults */
	/* The trace's faults on it that the prediction keeps, at the cost
	 * sibyl trace measured (first_touch.c leaves out a charged first
	 * call's: its measured first run holds them). */
	uint64_t faults;
	double fault_s;
	/* New memory the accelerated implementation would touch here, its
	 * work being the largest so far in its process (first_touch.c), and
	 * its cost. */
	double touch_faults, touch_s;
	/* Charged as its process's first call at its work (stats.one_time.
	 * first_calls, first_touch.c), and that excess at the typical speed. */
	bool first_at;
	double first_at_s;
	bool nested;		/* inside another modelled call of its thread */
	bool accelerated;	/* predicted on the accelerator */
};

struct predict_calls {
	struct predict_call *v;
	size_t n, cap;
};

/* calls.c: match models to the trace's functions (one kernel per called
 * function), check work metrics and machines, collect the calls, mark
 * the nested ones and group them by kernel, in kernel order.  0, or -1
 * with one line in err. */
int predict_collect(const struct sibyl_trace *t, const struct sibyl_predict_options *o,
		    struct sibyl_prediction *out, struct predict_calls *calls,
		    char *err, size_t errlen);

/* The end of the run of calls of calls->v[from]'s kernel. */
static inline size_t predict_kernel_end(const struct predict_calls *calls, size_t from)
{
	size_t to = from;

	while (to < calls->n && calls->v[to].kernel == calls->v[from].kernel)
		to++;
	return to;
}

/* first_touch.c: what each call pays for being first, per process and
 * profile, in the order the calls began: touch_faults and touch_s from
 * the profiles' stats.one_time.first_touch, or first_at and first_at_s
 * from their stats.one_time.first_calls (then faults and fault_s are
 * cleared).  Needs each call's typical factor. */
void predict_first_touch(const struct sibyl_prediction *out, struct predict_calls *calls,
			 double page_fault_ns);

/* predict.c: one call's time on the accelerator: compute and transfer
 * (both NAN when the outside rule keeps it on the original), and whether
 * its work lies below or above the profile's points. */
struct predict_time {
	double compute, transfer;
	bool below, above;
};
struct predict_time predict_call_time(const struct sibyl_predict_options *o,
				      const struct sibyl_profile *p, const struct predict_call *c);

/* predict.c: the accelerated runs' wall time (their median and range)
 * and the actual speedup it gives, T / T'. */
void predict_set_actual_total(struct sibyl_prediction *p, unsigned runs, double median_s,
			      double min_s, double max_s);
/* The relative error of this trace's prediction against the median
 * accelerated run, and of the paired medians (verify.c). */
double predict_error(const struct sibyl_prediction *p);
double predict_paired_error(const struct sibyl_prediction *p);

/* Where a compared prediction differs from the accelerated run: the
 * kernels' time, and the rest of the program (its time outside the
 * kernels, with the one-time costs), predicted and actual. */
struct predict_split {
	double kernels_predicted_s, kernels_actual_s, rest_predicted_s, rest_actual_s;
};
struct predict_split predict_error_split(const struct sibyl_prediction *p);

/* interval.c: 95% prediction intervals from the profiles' segment fits. */
struct predict_fits;
struct predict_fits *predict_fits_new(const struct sibyl_profile *p);
void predict_fits_free(struct predict_fits *f);
/* One accelerated call of `kernel`, predicted `predicted` s at work w
 * (the profile's times scaled by `typical`). */
void predict_interval_add(struct sibyl_prediction *p, size_t kernel, const struct predict_fits *f,
			  double w, double predicted, double typical);
void predict_interval_finish(struct sibyl_prediction *p);

/* typical.c: from the profile's best speed to the speed programs meet
 * (stats.typical, docs/plan.md); NULL when the profile does not record
 * it, and then the factor is 1. */
struct predict_typical;
struct predict_typical *predict_typical_new(const struct sibyl_profile *p);
double predict_typical_at(const struct predict_typical *t, double w);
void predict_typical_free(struct predict_typical *t);
/* Each call's typical factor, and each kernel's typical_known. */
void predict_typical_calls(struct sibyl_prediction *out, struct predict_calls *calls);

/* interposition.c: what tracing added to the traced run, from the cost
 * per call `sibyl trace` measured (p->interposition). */
void predict_interposition(const struct sibyl_trace *t, struct sibyl_prediction *p);

#endif
