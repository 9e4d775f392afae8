/*
 * Sampling in a worker process, so an adapter that crashes or hangs
 * cannot take the planner down, and an adapter on an OpenCL device never
 * shares a process with sibyl's LLVM 14: the worker, sibyl-plan-worker
 * (sampler.c; found as core/run.h finds helpers, or $SIBYL_PLAN_WORKER),
 * loads the adapter again by its source and name, runs its init once,
 * then one sample (setup, timed run, teardown) per request over a pipe,
 * of a work metric or of invocation parameters.
 * Each sample has a deadline; a worker that dies or misses it is killed
 * and the request fails with "adapter X crashed (signal N) at work metric
 * M" or "adapter X timed out after T s at work metric M".  The caller
 * stops there and keeps what it learned (no restart: an adapter that
 * crashed at one work metric would most likely crash again nearby).
 */
#ifndef SIBYL_PLANNER_WORKER_H
#define SIBYL_PLANNER_WORKER_H

#include <sibyl/adapter.h>
#include "planner/params.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sibyl_worker;

/* How one sample is measured.  It is `rounds` rounds, 2 ms apart, and
 * the fastest round's estimate.  A round is at least repeat / rounds
 * runs (rounded up), each with its own setup and teardown, and more while
 * their times add up to less than min_seconds (at most SIBYL_MAX_RUNS):
 * one short run is mostly the clock's tick and its input's luck.  A
 * round's estimate is the mean of the middle half of its run times (the
 * median of fewer than four).
 * With guard_wait > 0 the runs go in groups timed only while the CPU
 * runs at its best speed (planner/speed_guard.h): a group run in a slow
 * phase is dropped and run again, and once waiting and dropped groups
 * have cost guard_wait seconds the sample takes its runs as they come.
 * `timeout` is per run; sibyl_sample_time_limit() is how long a whole
 * sample may take before it counts as hung. */
struct sibyl_sampling {
	unsigned repeat;           /* >= 1 */
	double min_seconds;
	double timeout;
	double guard_wait;         /* 0: no speed guard */
	unsigned rounds;           /* >= 1 */
	/* A reference counts as calm within best * (1 + this); 0 takes the
	 * guard's default (speed_guard.h). */
	double guard_tolerance;
	/* Run each work metric's first sample once more before its runs and
	 * report that run apart (first_calls.h): a plan from a trace, whose
	 * program pays its first call at each metric. */
	bool first_calls;
};

double sibyl_sample_time_limit(const struct sibyl_sampling *sp);	/* sampler.c */

/* What the speed guard did over a worker's samples so far. */
/* Fresh probes that measure the one-time costs (one_time.h). */
#define SIBYL_ONE_TIME_RUNS 5
#define SIBYL_FIRST_TOUCH_STEPS 10

struct sibyl_worker_stats {
	unsigned long samples;
	unsigned long dropped_runs;       /* runs dropped in slow phases */
	unsigned long dropped_inside_runs; /* of them, for a reference timed inside their group */
	unsigned long dropped_starved_runs; /* of those, for the worker losing its CPU */
	unsigned long unguarded_samples;  /* samples that waited guard_wait in vain */
	double reference_first;           /* the reference's best after calibration (s) */
	double reference_best;            /* its best at the last sample (s) */
	unsigned long best_raised;        /* times the best was raised (speed_guard.h) */
	double guard_seconds;             /* spent waiting and on dropped groups */
	double guard_vain_seconds;        /* of them, by samples that gave up */
	/* Pre-emption while sampling: the worker's involuntary context
	 * switches, and the CPUs' steal and total ticks (/proc/stat). */
	unsigned long preempted;
	unsigned long long steal_ticks, cpu_ticks;
	/* One-time costs: the adapter's init, and a fresh process's first
	 * run beside the same work warm (the planning worker's, at its first
	 * sample, until sibyl_worker_once_costs's probes replace them). */
	double init_seconds;
	uint64_t first_metric;
	/* Where the one-time runs made their first call: first_metric, or
	 * the traced program's first call (sibyl_worker_once_costs). */
	uint64_t first_call_metric;
	double first_run_seconds, first_sample_seconds;
	/* The same in each process that measured them: the probes, or the
	 * planning worker alone when none ran (sibyl_worker_once_costs). */
	unsigned one_time_runs;
	struct sibyl_one_time_run {
		double init, first_run, first_sample;
	} one_time[SIBYL_ONE_TIME_RUNS];
	/* What the probes' exits took beyond a bare probe's (their median;
	 * NAN: not measured). */
	double exit_seconds;
	/* Page faults of a fresh worker's first run, at the first sample's
	 * work metric, then at each of a ladder of work metrics
	 * (sibyl_worker_once_costs). */
	uint64_t first_run_faults;
	unsigned first_touch_n;
	struct sibyl_first_touch {
		uint64_t metric, faults;
	} first_touch[SIBYL_FIRST_TOUCH_STEPS];
	/* With sampling.first_calls, each work metric's first run after the
	 * worker's first sample (that one is the process's, above). */
	struct sibyl_first_at {
		uint64_t metric;
		double seconds;
	} *first_at;
	size_t nfirst_at, cap_first_at;
	/* Under the guard, each sample's time and its unguarded round's. */
	struct sibyl_typical_sample {
		uint64_t metric;
		double seconds, typical;
	} *typical;
	size_t ntypical, cap_typical;
};

#define SIBYL_MAX_RUNS 10000

/* Start the worker on adapter a, found in source ("builtin" or the
 * adapter .so, as sibyl_adapters_open was given it), and run init there;
 * NULL with a one-line reason.  Built-ins with parameter hooks also take
 * sibyl_worker_measure_params. */
struct sibyl_worker *sibyl_worker_start(const struct sibyl_adapter *a, const char *source,
					const struct sibyl_adapter_config *config,
					const struct sibyl_sampling *sp, char *err,
					size_t errlen);
/* One sample: 0 and the run's seconds, SIBYL_MEASURE_UNGUARDED
 * (planner.h) and the seconds when it waited guard_wait in vain,
 * SIBYL_MEASURE_PREEMPTED and the seconds when the worker was pre-empted
 * while taking it, or -1
 * with a one-line reason (the worker is gone after a crash or timeout). */
int sibyl_worker_measure(struct sibyl_worker *w, uint64_t metric, double *seconds,
			 char *err, size_t errlen);
/* The same for a sample built from invocation parameters by the
 * adapter's setup_params hook (adapters/builtin.h); the run is given metric, theirs
 * (sibyl_measure_params_fn, planner/params.h). */
int sibyl_worker_measure_params(struct sibyl_worker *w, const double *params, size_t nparams,
				uint64_t metric, double *seconds, char *err, size_t errlen);
/* A replay (planner/replay.h): the n work metrics run in this order, one
 * run each (setup, timed run, teardown), back to back in the worker with
 * no message between them (up to SIBYL_MAX_SEQUENCE a request), whatever
 * the sampling says; seconds[i] is metrics[i]'s.  A worker's first
 * sample, which measures its one-time costs, is taken before.  Each call
 * has one run's time limit (the sampling's timeout), watched through a
 * page the worker counts its calls on (worker_protocol.h): a call that
 * hangs is named within 1.25 limits.  0, or -1 with a one-line reason. */
int sibyl_worker_measure_seq(struct sibyl_worker *w, const uint64_t *metrics, size_t n,
			     double *seconds, char *err, size_t errlen);
int sibyl_worker_measure_seq_cb(void *ctx, const uint64_t *metrics, size_t n, double *seconds,
				char *err, size_t errlen);
/* A sibyl_measure_fn over a worker (ctx is the worker). */
int sibyl_worker_measure_cb(void *ctx, uint64_t metric, double *seconds, char *err,
			    size_t errlen);
int sibyl_worker_measure_params_cb(void *ctx, const double *params, size_t nparams,
				   uint64_t metric, double *seconds, char *err, size_t errlen);
void sibyl_worker_stats(const struct sibyl_worker *w, struct sibyl_worker_stats *s);
struct sibyl_call_mix;
struct sibyl_profile;
/* After planning `profile`, in fresh processes: the one-time costs, in
 * SIBYL_ONE_TIME_RUNS probes (one_time.h) at the first sample's work
 * metric, or with a plan from a trace (mix) at the program's first
 * call, whose size decides what a library sets up then (CLBlast builds
 * the kernels of that size); w's stats then hold the run of median
 * cost, and a probe that fails leaves what was measured.  Then the
 * memory the implementation touches first as a program's calls grow:
 * for work metrics from the first sample's up to the profile's last
 * point, evenly on a log scale, a fresh worker's first run and its page
 * faults (sibyl predict charges a call the faults its work adds over the
 * largest before it), stopping at the first worker that fails or at ~2 s
 * of workers. */
void sibyl_worker_once_costs(struct sibyl_worker *w, const char *source,
			     const struct sibyl_adapter_config *config,
			     const struct sibyl_sampling *sp, const struct sibyl_call_mix *mix,
			     const struct sibyl_profile *profile);
/* Ask the worker to run fini and exit; kill it if it does not. */
void sibyl_worker_stop(struct sibyl_worker *w);

/* Called from a signal handler (async-signal-safe): the sample under way
 * and every later request fail with "interrupted by SIG..." and the
 * worker is killed, so the caller stops as after a crash and keeps what
 * it has.  Workers ignore SIGINT themselves: the terminal sends it to
 * the whole process group, and the planner decides. */
void sibyl_worker_interrupt(int sig);
/* The signal sibyl_worker_interrupt() was given, 0 if none. */
int sibyl_worker_interrupted(void);

#endif
