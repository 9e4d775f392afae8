/*
 * Whole-program speedup from one traced run (Matoga et al. 2013, III and
 * IV.D): each call of a modelled kernel keeps its measured time t or is
 * replaced by the model's f(w) for its work w, and
 *
 *   P   = sum t / T                      (eq. 2, T the traced wall time)
 *   S_P = sum t / sum f(w)               (eq. 3)
 *   S_G = 1 / ((1 - P) + P / S_P)        (eq. 1) = T / (T - sum t + sum f(w))
 *
 * f is a piecewise-linear profile (sibyl plan) plus, optionally, the
 * host<->device transfer of each call's input and output bytes from a
 * device profile (sibyl device).  Docs: docs/predict.md.
 */
#ifndef SIBYL_PREDICT_H
#define SIBYL_PREDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sibyl/trace.h"

struct sibyl_trace;
struct sibyl_profile;
struct predict_calls;
struct sibyl_device_profile;

/* What a call outside the profile's measured range is predicted as. */
enum sibyl_outside_rule {
	SIBYL_OUTSIDE_EXTRAPOLATE,	/* the nearest piece extended (flagged) */
	SIBYL_OUTSIDE_KEEP,		/* its measured time: not accelerated */
};

struct sibyl_predict_model {
	const char *pattern;		/* fnmatch(3) glob on function names */
	const char *path;		/* for messages */
	const struct sibyl_profile *profile;
};

struct sibyl_predict_options {
	const struct sibyl_predict_model *models;
	size_t nmodels;
	const struct sibyl_device_profile *transfer;	/* NULL: none added */
	bool best_of;			/* per call, the faster of t and f(w) */
	enum sibyl_outside_rule outside;
	bool other_machine;		/* accept profiles of another host */
	bool no_one_time;		/* leave one-time costs out (the paper did) */
};

struct sibyl_kernel_prediction {
	const char *name, *library;	/* the traced function */
	const struct sibyl_predict_model *model;
	enum sibyl_work_source work_source;
	uint64_t calls;			/* counted calls */
	uint64_t nested;		/* inside another modelled call: not counted */
	uint64_t accelerated;		/* calls predicted on the accelerator */
	double work_min, work_max;	/* of the counted calls */
	double measured_s;		/* sum t */
	double compute_s, transfer_s;	/* the accelerated calls' f(w) and transfers */
	double kept_s;			/* measured time of calls not accelerated */
	double predicted_s;		/* compute_s + transfer_s + kept_s */
	double speedup;			/* measured_s / predicted_s */
	double half_s;			/* 95% half width of predicted_s */
	/* The profile's best-speed times are scaled per call by the typical
	 * factor near its work (stats.typical: how programs meet the
	 * machine); this is their mean weighted by time, 1 without it. */
	double typical_factor;
	bool typical_known;
	/* Page faults of the accelerated calls, kept in their prediction at
	 * the cost sibyl trace measured (faults_counted: the trace counted
	 * them, counters generator); included in compute_s. */
	bool faults_counted;
	uint64_t faults;
	double fault_s;
	/* Memory the implementation touches first as the calls grow
	 * (stats.one_time.first_touch): faults and their cost, included in
	 * compute_s. */
	double touch_faults, touch_s;
	/* Calls that are the first at their work metric, and what they pay
	 * beyond warm ones (stats.one_time.first_calls): in compute_s. */
	uint64_t first_at_calls;
	double first_at_s;
	uint64_t below, above;		/* calls outside the profile's points */
	double outside_measured_s;	/* their measured time */
	/* From an accelerated run (sibyl_predict_compare): the same kernel's
	 * counted calls there; NAN before a comparison. */
	uint64_t actual_calls;
	double actual_s;
	/* Best threshold policy "accelerate calls with work >= crossover"
	 * (what a redirect wrapper with a work threshold does). */
	bool has_crossover;		/* false: the accelerator never wins */
	double crossover;		/* smallest work accelerated */
	double threshold_predicted_s;
};

/* The accelerated calls of one kernel predicted by one profile segment
 * (segment -1: a profile without fit information). */
struct predict_group {
	size_t kernel;
	long segment;
	double from, to;		/* the segment's sampled work metrics */
	uint64_t calls;
	double fit_half;		/* linear sum of the line's 95% half widths */
	double noise_var;		/* sum of the single-run variances */
	bool unknown;
};

struct sibyl_prediction {
	double total_s;			/* T: traced wall time */
	double measured_s;		/* sum t over counted calls */
	double predicted_kernels_s;	/* sum of the kernels' predicted_s */
	double fraction;		/* P */
	double kernel_speedup;		/* S_P */
	double global_speedup;		/* S_G = untraced_total_s / predicted_total_s */
	/* The traced run accelerated (what --actual measures): eq. 1,
	 * T - sum t + sum predicted (+ one_time_s), and T over it. */
	double traced_total_s, traced_speedup;
	/* Interposition: `calls` wrapped calls each cost `per_call_s` (known:
	 * measured by sibyl trace; more with counters), total_s in all, a
	 * share of T; `inside` of them, inside_s, within accelerated calls
	 * (they go with them).  startup_s: what the traced process's start
	 * and exit cost it beyond untraced (sibyl trace's probe; 0 when the
	 * trace does not record it, startup_known false; startup_why then says
	 * why the probe failed, when the trace knows). */
	struct {
		bool known, startup_known;
		double per_call_s, total_s, share, inside_s, startup_s;
		uint64_t calls, inside;
		char startup_why[160];
	} interposition;
	/* Without sibyl: T less the interposition, the accelerated program
	 * predicted without what its calls still pay (total_s - inside_s),
	 * and the global speedup S_G between them. */
	double untraced_total_s;
	double predicted_total_s;
	/* Paid once per implementation swapped in (its profile's
	 * stats.one_time: initialisation and a fresh process's first call);
	 * added to predicted_total_s unless no_one_time. */
	double one_time_s;
	double one_time_in_call_s;	/* of it, what the first calls take beyond warm ones */
	bool one_time_included;
	size_t one_time_unknown;	/* accelerated profiles that do not say */
	bool partial;			/* the traced run did not finish normally */
	const char *partial_why;	/* why, when partial */
	/* 95% interval of predicted_total_s: +- half_s; known only when
	 * every accelerated call's profile has segments and samples.  The
	 * group holding the largest share of the variance dominates. */
	double half_s;
	bool interval_known;
	struct predict_group *groups;
	size_t ngroups;
	long dominant;
	double dominant_share;
	/* sibyl_predict_compare: the accelerated run's wall time and the
	 * speedup it achieved, T / T'; NAN when not compared. */
	double actual_total_s, actual_speedup;
	/* sibyl_predict_verify: how many accelerated runs; actual_total_s
	 * (and each kernel's actual_s) is their median, these the range. */
	unsigned actual_runs;
	double actual_total_min_s, actual_total_max_s;
	/* sibyl_predict_verify with the original re-run before each
	 * accelerated run (runs > 0): the speedup predicted from each fresh
	 * original trace and each pair's actual speedup (original's wall
	 * time over the accelerated run's), as {median, min, max}. */
	struct {
		unsigned runs;
		double predicted[3], actual[3];
	} paired;
	/* sibyl_predict_runs: this is the median (by S_G) of n predictions
	 * from n traces of one command; total and speedup are its predicted
	 * total and S_G, then the least and most of the n; half_s, what a
	 * further run's total varies by (95%), is in the interval's half_s
	 * beside the profile's own (profile_half_s).  n is 0 for one trace. */
	struct {
		unsigned n;
		double half_s, profile_half_s, total[3], speedup[3];
	} runs;
	bool actual_partial;
	const char *actual_partial_why;
	bool best_of, transfers;
	enum sibyl_outside_rule outside;
	struct sibyl_kernel_prediction *kernels;
	size_t nkernels;
	/* Private: the modelled calls, grouped by kernel (for the plot). */
	struct predict_calls *calls;
};

/* 0, or -1 with one line in err (no kernel matched, metric mismatch...). */
int sibyl_predict(const struct sibyl_trace *t, const struct sibyl_predict_options *o,
		  struct sibyl_prediction *out, char *err, size_t errlen);
void sibyl_prediction_free(struct sibyl_prediction *p);

/* p[0..n): predictions of n traces of one command.  The one of median
 * global speedup gets their spread (runs, in its half_s); its index. */
size_t sibyl_predict_runs(struct sibyl_prediction *p, size_t n);

/* Verification: the same kernels in a trace of the accelerated run (the
 * program run again with a redirect wrapper).  0, or -1 with one line. */
int sibyl_predict_compare(const struct sibyl_trace *accelerated,
			  const struct sibyl_predict_options *o, struct sibyl_prediction *p,
			  char *err, size_t errlen);

/* predict --verify: the traced command run again, accelerated. */
struct sibyl_verify {
	const char *sibyl;		/* the sibyl executable that runs `trace` */
	const char *const *wrappers;	/* preload these; NULL: the traced run's own */
	size_t nwrappers;
	unsigned runs;			/* compared with the median of this many */
	const char *out;		/* trace directory of the accelerated runs */
	/* Trace directory of the original's re-runs, one before each
	 * accelerated run; NULL: the accelerated runs alone. */
	const char *original_out;
	bool replace;			/* out may hold a trace already */
	bool show_output;		/* the program's stdout reaches ours */
};

/* Run the command of `traced` (in its directory, in our environment)
 * v->runs times under `sibyl trace`, each run ending as the traced run
 * did, and compare the prediction with the median run as
 * sibyl_predict_compare does; with v->original_out, the original (its
 * recorded environment and wrappers) runs before each and fills
 * p->paired.  0, or -1 with one line in err. */
int sibyl_predict_verify(const struct sibyl_trace *traced, const struct sibyl_verify *v,
			 const struct sibyl_predict_options *o, struct sibyl_prediction *p,
			 char *err, size_t errlen);

/* predict --plot: each call's measured and predicted times against its
 * work over the profiles' curves, PNG or SVG; 0, or -1 with one line. */
int sibyl_prediction_plot(const struct sibyl_predict_options *o, const struct sibyl_prediction *p,
			  const char *path, bool force, char *err, size_t errlen);

/* The table `sibyl predict` prints, and its --json object. */
void sibyl_prediction_print_text(FILE *out, const struct sibyl_trace *t,
				 const struct sibyl_prediction *p);
int sibyl_prediction_print_json(FILE *out, const struct sibyl_trace *t,
				const struct sibyl_prediction *p);

#endif
