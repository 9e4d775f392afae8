/*
 * The worker's side of sampling (worker.h): sibyl-plan-worker loads the
 * adapter, runs its init once, then measures one sample per request
 * (worker_protocol.h).  It is a program of its own, linking no LLVM:
 * an adapter on an OpenCL device (PoCL brings LLVM 15) must never share
 * a process with the LLVM 14 that sibyl links.
 */
#define _GNU_SOURCE
#include "planner/sampler.h"
#include "planner/first_calls.h"
#include "planner/worker_protocol.h"
#include "planner/loader.h"
#include "planner/planner.h"
#include "planner/speed_guard.h"
#include "planner/preemption.h"
#include "planner/adapters/builtin.h"
#include "core/alloc.h"
#include "core/clock.h"
#include "core/message.h"
#include "core/run.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* The adapter being sampled, in the worker. */
struct sampler {
	const struct sibyl_adapter *a;
	sibyl_setup_params_fn setup_params;
	void *state;
	const struct sibyl_sampling *sp;
	struct sibyl_speed_guard guard;
	/* What the guard spent on waiting and dropped groups, and of that
	 * what samples that gave up spent (in vain), over the worker's life. */
	double guard_spent, guard_vain;
	double *times;             /* SIBYL_MAX_RUNS */
	bool count_faults;         /* sample(): count the run's page faults */
	unsigned threads;          /* the adapter's, as configured */
	struct sibyl_worker_progress *progress;   /* NULL: the planner watches none */
	struct sibyl_metrics_met met;   /* with sp->first_calls: the metrics sampled */
};

/* How far a run's reported time may exceed the wall time around it. */
#define WALL_SLACK 2.0
#define WALL_ALLOWANCE 1e-4

/* The process's: an implementation's helper threads fault for it too. */
static uint64_t minor_faults(void)
{
	struct rusage u;

	return getrusage(RUSAGE_SELF, &u) ? 0 : (uint64_t)u.ru_minflt;
}

static void sample(const struct sampler *w, const struct sibyl_sample_request *rq,
		   struct sibyl_sample_reply *r)
{
	const struct sibyl_adapter *a = w->a;
	void *s = NULL;
	int failed = rq->nparams ? w->setup_params(w->state, rq->params, rq->nparams, &s)
				 : a->setup ? a->setup(w->state, rq->metric, &s) : 0;
	char at[SIBYL_AT_LEN];

	if (failed) {
		r->status = -1;
		snprintf(r->msg, sizeof(r->msg), "setup failed (returned %d; 0 is success)%s",
			 failed, sibyl_sample_where(rq, at));
		return;
	}
	uint64_t faults = w->count_faults ? minor_faults() : 0;
	double t0 = sibyl_seconds();

	r->seconds = a->run(w->state, s, rq->metric);
	double wall = sibyl_seconds() - t0;

	if (w->count_faults)
		r->first_run_faults = minor_faults() - faults;

	if (!(r->seconds >= 0)) {
		r->status = -1;
		snprintf(r->msg, sizeof(r->msg), "run failed (returned %g)%s", r->seconds,
			 sibyl_sample_where(rq, at));
	} else if (r->seconds > WALL_SLACK * wall + WALL_ALLOWANCE) {
		/* An adapter may time part of its run, never more than all of
		 * it: a time beyond the wall time around run() is a unit slip
		 * (milliseconds for seconds), which would make every profile
		 * of it wrong by that factor. */
		r->status = -1;
		snprintf(r->msg, sizeof(r->msg), "run reported %.3g s but took %.3g s%s: return "
			 "seconds, timed with config->now", r->seconds, wall,
			 sibyl_sample_where(rq, at));
	}
	if (a->teardown)
		a->teardown(w->state, s);
}

/* The middle half of n run times, averaged (the median when n < 4):
 * interference only ever adds time, and data-dependent run times (a sort
 * of random inputs) vary both ways, so the fastest run would be biased
 * low; the mean of the middle is smooth where the clock ticks coarsely. */
static double interquartile_mean(double *t, size_t n)
{
	gsl_sort(t, 1, n);
	if (n < 4)
		return t[n / 2];
	return gsl_stats_trmean_from_sorted_data(0.25, t, 1, n);
}

/* The runs of one round so far. */
struct runs {
	size_t n;
	double total;              /* their times added */
	double busy;               /* wall time of their groups, setups included */
};

/* At least `repeat` runs and, for short runs, more until they add up to
 * min_seconds (or their setups take ten times that). */
static bool need_more(const struct sibyl_sampling *sp, unsigned repeat, const struct runs *k)
{
	return k->n < repeat || (k->total < sp->min_seconds && k->n < SIBYL_MAX_RUNS &&
				 k->busy < 10 * sp->min_seconds);
}

/*
 * A group of runs that lost its CPU to another task: time-slicing, which
 * the speed guard's reference (2 µs, inside one slice) never sees.  With
 * another process busy on the same CPU, insertion sort's 7 ms runs took
 * 2.2 times as long, repeats agreed within their stretch, and a plan of
 * an honest square law was stopped as "the work metric does not predict
 * time".  Taken only for serial adapters: then the process's CPU time
 * should match the wall time, and falls short by what the other task
 * took, seen with an involuntary switch (a threaded adapter's own
 * threads switch its caller out as well).  (preemption.h)
 */
#define STARVED_SHARE 0.02

static bool one_thread_works(const struct sampler *w)
{
	return !(w->a->flags & (SIBYL_ADAPTER_OPENCL | SIBYL_ADAPTER_THREADED));
}

static bool starved(const struct sampler *w, const struct sibyl_cpu_mark *since)
{
	struct sibyl_cpu_mark now;

	if (!one_thread_works(w))
		return false;
	sibyl_cpu_mark(&now);
	double wall = now.wall - since->wall, lost = wall - (now.cpu - since->cpu);

	return now.preempted > since->preempted && lost > STARVED_SHARE * wall;
}

/* A group's n runs dropped, and why: a reference inside it or the CPU
 * lost, when the reference before it was calm. */
static void count_dropped(struct sibyl_sample_reply *r, uint32_t n, bool calm_before,
			  bool inside_calm, bool lost)
{
	r->dropped += n;
	r->dropped_inside += calm_before && !inside_calm ? n : 0;
	r->dropped_starved += calm_before && lost ? n : 0;
}

/* Groups of runs of about GROUP_SECONDS between two references: short
 * enough to fit between phase changes, long enough that the references
 * (some 6 µs each) cost little. */
#define GROUP_SECONDS 2e-3

/* One round of a sample: at least `repeat` runs, its estimate in
 * r->seconds.  Under the speed guard, each group of runs is bracketed by
 * the reference and dropped when either end ran slow; once the sample has
 * spent its guard budget (*wait_left) on waiting and dropped groups (kept
 * runs do not count), it takes its runs as they come (and says so).  A
 * group's closing reference also opens the next group: nothing runs
 * between them, so timing a second one would only cost. */
static void measure_round(struct sampler *w, unsigned repeat,
			  const struct sibyl_sample_request *rq, double *wait_left,
			  struct sibyl_sample_reply *r)
{
	const struct sibyl_sampling *sp = w->sp;
	struct sibyl_speed_guard *g = &w->guard;
	double *times = w->times;
	struct runs k = { 0 };
	double begin = sibyl_seconds();
	bool calm = false;          /* the last reference ran at the best speed */

	while (need_more(sp, repeat, &k)) {
		bool watch = sp->guard_wait > 0 && !r->unguarded;
		double deadline = begin + k.busy + *wait_left;
		struct runs before = k;

		if (watch && !calm)
			calm = sibyl_speed_guard_wait(g, deadline);
		if (watch)
			sibyl_speed_guard_inside_start(g);
		struct sibyl_cpu_mark mark;

		sibyl_cpu_mark(&mark);
		double start = mark.wall;

		do {
			struct sibyl_sample_reply one = { 0 };

			sample(w, rq, &one);
			if (one.status) {
				*r = one;
				return;
			}
			times[k.n++] = one.seconds;
			k.total += one.seconds;
			k.busy = before.busy + sibyl_seconds() - start;
		} while (need_more(sp, repeat, &k) && sibyl_seconds() - start < GROUP_SECONDS);
		if (!watch)
			continue;
		bool lost = starved(w, &mark), calm_before = calm;
		bool inside_calm = sibyl_speed_guard_inside_stop(g) && !lost;

		calm = calm && inside_calm && sibyl_speed_guard_calm(g);
		if (!calm && sibyl_seconds() < deadline) {
			count_dropped(r, (uint32_t)(k.n - before.n), calm_before, inside_calm, lost);
			k = before;
			continue;
		}
		r->unguarded = !calm;
		if (r->unguarded)
			sibyl_speed_guard_give_up(g);
	}
	*wait_left = fmax(0, *wait_left - (sibyl_seconds() - begin - k.busy));
	r->seconds = interquartile_mean(times, k.n);
}

/* Rounds of a sample start this far apart (a sleep): a round caught in a
 * slow stretch of a few milliseconds is then unlikely to share it with
 * the next one (docs/plan.md, "Rounds"). */
#define ROUND_GAP_NS 2000000L

static unsigned rounds_of(const struct sibyl_sampling *sp)
{
	return sp->rounds ? sp->rounds : 1;
}

/* The `repeat` runs shared out among the rounds, rounded up. */
static unsigned runs_per_round(const struct sibyl_sampling *sp)
{
	return (sp->repeat + rounds_of(sp) - 1) / rounds_of(sp);
}

/* One sample: sp->rounds rounds, each of repeat / rounds runs (rounded
 * up), sharing the guard's budget.  The sample is the fastest round's
 * estimate: within a round, run times vary both ways with the data and
 * are averaged; between rounds, what differs is the interference a
 * round met, which only ever adds time.  Under the guard, one more round
 * first, unguarded: the profile is the machine at its best speed,
 * programs meet it as it comes, and `sibyl predict` scales the profile
 * by the ratio of the two (docs/plan.md, "Typical speed"). */
static void measure(struct sampler *w, const struct sibyl_sample_request *rq,
		    struct sibyl_sample_reply *r)
{
	const struct sibyl_sampling *sp = w->sp;
	unsigned rounds = rounds_of(sp), repeat = runs_per_round(sp);
	double wait_left = sp->guard_wait, fastest = 0;

	memset(r, 0, sizeof(*r));
	if (sp->guard_wait > 0) {
		struct sibyl_sample_reply t = { .unguarded = 1 };	/* no waiting, nothing dropped */
		double no_wait = 0;

		measure_round(w, repeat, rq, &no_wait, &t);
		if (t.status) {
			*r = t;
			return;
		}
		r->typical_seconds = t.seconds;
	}
	for (unsigned i = 0; i < rounds; i++) {
		if (i) {
			struct timespec gap = { 0, ROUND_GAP_NS };

			nanosleep(&gap, NULL);
		}
		measure_round(w, repeat, rq, &wait_left, r);
		if (r->status)
			return;
		if (i == 0 || r->seconds < fastest)
			fastest = r->seconds;
	}
	r->seconds = fastest;
	r->reference_best = w->guard.best;
	r->best_raised = w->guard.raised;
	w->guard_spent += sp->guard_wait - wait_left;
	w->guard_vain += r->unguarded ? sp->guard_wait - wait_left : 0;
	r->guard_seconds = w->guard_spent;
	r->guard_vain_seconds = w->guard_vain;
}

/*
 * Keep the worker on as many CPUs as the implementation has threads,
 * starting with the one it runs on, as benchmark harnesses do: a run
 * that migrates leaves its cache behind, and on a VM it also changes
 * host thread.  (An unpinned insertion-sort plan here timed in two
 * clusters 35% apart and stalled; one under taskset covered 20 times
 * more of the range in 400 samples.  The VM's speed phases, see
 * docs/plan.md, remain either way.)  With as many threads as CPUs,
 * nothing is pinned, nor is an OpenCL implementation: its device's
 * runtime starts threads of its own, which inherit the mask (PoCL's CPU
 * device kept to one core took 15 ms for a 320x320 product that numpy's
 * calls, unpinned, ran in 10-11 ms).
 */
static void pin(unsigned threads)
{
	cpu_set_t allowed, use;
	int cpu = sched_getcpu(), n = 0;

	if (cpu < 0 || sched_getaffinity(0, sizeof(allowed), &allowed) ||
	    (unsigned)CPU_COUNT(&allowed) <= threads)
		return;
	CPU_ZERO(&use);
	for (int k = 0; k < CPU_SETSIZE && (unsigned)n < threads; k++) {
		int c = (cpu + k) % CPU_SETSIZE;

		if (CPU_ISSET(c, &allowed)) {
			CPU_SET(c, &use);
			n++;
		}
	}
	sched_setaffinity(0, sizeof(use), &use);
}

/* How long the speed guard learns its reference's best before the first
 * sample: long enough to usually include a fast stretch, since the first
 * samples (microseconds each, at the bottom of the range) are taken
 * against this best (docs/plan.md, "Speed guard", has the measurements). */
#define GUARD_CALIBRATION_SECONDS 2.0

/* The limit is per run; a sample is `repeat` runs (rounded up to a
 * multiple of the rounds), plus the dropped warm-up run of the first
 * request, plus each round's short runs that fill min_seconds (their
 * setups stop after ten times that), plus the gaps between rounds and
 * the speed guard's wait; under the guard, one unguarded round more. */
double sibyl_sample_time_limit(const struct sibyl_sampling *sp)
{
	unsigned rounds = rounds_of(sp) + (sp->guard_wait > 0);
	unsigned runs = runs_per_round(sp) * rounds;

	return sp->timeout * (runs + 1) + rounds * 10 * sp->min_seconds +
	       (rounds - 1) * ROUND_GAP_NS * 1e-9 + sp->guard_wait;
}

static int reply(int out, const struct sibyl_sample_reply *r)
{
	json_t *j = sibyl_sample_reply_json(r);
	int rc = j ? sibyl_msg_send(out, j) : -1;

	json_decref(j);
	return rc;
}

/* The adapter the setup names, in *list; NULL with the reason in r->msg. */
static const struct sibyl_adapter *load(const struct sibyl_worker_setup *s,
					struct sibyl_adapter_list *list, struct sibyl_sample_reply *r)
{
	const struct sibyl_adapter *a = NULL;

	if (!strcmp(s->source, "builtin"))
		sibyl_adapters_builtin(list);
	else if (sibyl_adapters_open(list, s->source, r->msg, sizeof(r->msg)))
		return NULL;
	a = sibyl_adapters_find(list, s->adapter, r->msg, sizeof(r->msg));
	return a;
}

/* Load the adapter, pin, run init and calibrate the speed guard; r says
 * how it went.  0, or -1 when the worker cannot go on. */
static int start(struct sampler *w, const struct sibyl_worker_setup *s,
		 struct sibyl_adapter_list *list, struct sibyl_sample_reply *r)
{
	struct sibyl_adapter_config cfg = s->config;
	const struct sibyl_param_hooks *hooks;

	cfg.now = sibyl_seconds;
	/* A program swapping the implementation in loads its library too
	 * (the redirect wrapper's dlopen): the load counts with init. */
	double init_start = sibyl_seconds();

	if (!(w->a = load(s, list, r)))
		return r->status = -1;
	hooks = sibyl_builtin_param_hooks(w->a);
	w->setup_params = hooks ? hooks->setup : NULL;
	w->sp = &s->sampling;
	w->times = sibyl_xmalloc(SIBYL_MAX_RUNS * sizeof(*w->times));
	w->threads = cfg.threads ? cfg.threads : 1;
	if (!(w->a->flags & SIBYL_ADAPTER_OPENCL))
		pin(w->threads);

	if (w->a->init && w->a->init(&w->state, &cfg, r->msg, sizeof(r->msg))) {
		r->status = -1;
		if (!r->msg[0])
			snprintf(r->msg, sizeof(r->msg), "init failed");
	}
	r->init_seconds = sibyl_seconds() - init_start;
	if (w->sp->guard_wait > 0 && r->status == 0) {
		w->guard.tolerance = 1 + w->sp->guard_tolerance;
		sibyl_speed_guard_calibrate(&w->guard, GUARD_CALIBRATION_SECONDS);
		sibyl_speed_guard_inside_init();   /* without it, brackets only */
	}
	r->reference_best = w->guard.best;
	return r->status;
}

/* One sample, and how much the worker was pre-empted meanwhile. */
static void measure_watched(struct sampler *w, const struct sibyl_sample_request *rq,
			    struct sibyl_sample_reply *r)
{
	uint64_t steal0, total0, steal1, total1, switches = sibyl_involuntary_switches();

	sibyl_cpu_ticks(&steal0, &total0);
	measure(w, rq, r);
	sibyl_cpu_ticks(&steal1, &total1);
	r->preempted = sibyl_involuntary_switches() - switches;
	r->steal_ticks = steal1 - steal0;
	r->cpu_ticks = total1 - total0;
}

/* A replay's calls back to back (worker_protocol.h): one run each, as
 * sample() runs it, nothing but their setups and teardowns between them. */
static int serve_sequence(struct sampler *w, const uint64_t *metrics, size_t n, int out)
{
	struct sibyl_sample_request rq;
	struct sibyl_sample_reply r = { 0 };
	double times[SIBYL_MAX_SEQUENCE];
	size_t lost[SIBYL_MAX_SEQUENCE], nlost = 0;

	memset(&rq, 0, sizeof(rq));
	for (size_t i = 0; i < n && r.status == 0; i++) {
		if (w->progress)	/* a store, no message: the next call meets this one's state */
			__atomic_store_n(&w->progress->started, w->progress->started + 1,
					 __ATOMIC_RELAXED);
		rq.metric = metrics[i];
		/* A metric's first call cannot be taken again: did it lose
		 * the CPU?  (asked around it alone) */
		bool fresh = !sibyl_metrics_met_add(&w->met, rq.metric);
		uint64_t switches = fresh ? sibyl_involuntary_switches() : 0;

		sample(w, &rq, &r);
		times[i] = r.seconds;
		if (fresh && sibyl_involuntary_switches() != switches)
			lost[nlost++] = i;
	}
	json_t *j = sibyl_sequence_reply_json(&r, times, n, lost, nlost);
	int rc = j ? sibyl_msg_send(out, j) : -1;

	json_decref(j);
	return rc;
}

/* Whether rq's sample starts with a run of its own, reported apart: the
 * worker's first (page faults, cold caches), and with sp->first_calls
 * each metric's first, a program's first call there (first_calls.h). */
static bool fresh_metric(struct sampler *w, const struct sibyl_sample_request *rq, bool first)
{
	return w->sp->first_calls ? !sibyl_metrics_met_add(&w->met, rq->metric) : first;
}

/* Before a metric's first run (not the worker's first), one run at the
 * metric met before it, dropped: between samples the worker lost its
 * caches (a 40-byte SHA-256 digest's first run: 7.6 µs, 0.4 warm). */
static void lead_in(struct sampler *w, const struct sibyl_sample_request *rq)
{
	struct sibyl_sample_request last = { .metric = 0 };
	struct sibyl_sample_reply r = { 0 };

	if (rq->nparams || w->met.n < 2)
		return;
	last.metric = w->met.v[w->met.n - 2];
	sample(w, &last, &r);
}

/* Requests until EOF, one reply each. */
static void serve_samples(struct sampler *w, struct sibyl_msg_reader *in, int out)
{
	struct sibyl_sample_request rq;
	struct sibyl_sample_reply r = { 0 };
	json_t *msg;

	for (bool first = true; sibyl_msg_next(in, 0, -1, &msg) == SIBYL_MSG_ONE; first = false) {
		uint64_t seq[SIBYL_MAX_SEQUENCE];
		size_t nseq = 0;
		int is_seq = sibyl_sequence_request_parse(msg, seq, &nseq);
		int bad = is_seq ? is_seq < 0 : sibyl_sample_request_parse(msg, &rq);

		json_decref(msg);
		if (bad || (is_seq && serve_sequence(w, seq, nseq, out)))
			break;
		if (is_seq)
			continue;
		double first_run = 0;
		uint64_t first_faults = 0;
		bool fresh = fresh_metric(w, &rq, first);

		if (fresh && !first)
			lead_in(w, &rq);
		if (fresh) {
			uint64_t switches = sibyl_involuntary_switches();

			w->count_faults = first;
			sample(w, &rq, &r);
			w->count_faults = false;
			first_run = r.seconds;
			first_faults = r.first_run_faults;
			/* One that lost its CPU cannot be run again (FFTW's
			 * 65536: 5.4 ms against 1.5): unreported. */
			if (!first && sibyl_involuntary_switches() != switches)
				first_run = 0;
		}
		if (!fresh || r.status == 0)
			measure_watched(w, &rq, &r);
		r.first_run_seconds = first_run;	/* measure() starts a fresh reply */
		r.first_run_faults = first_faults;
		if (reply(out, &r))
			break;
	}
}

int sibyl_sampler_serve(int requests, int replies, int progress)
{
	struct sibyl_msg_reader in;
	struct sibyl_worker_setup setup;
	struct sibyl_adapter_list list = { 0 };
	struct sibyl_sample_reply r = { 0 };
	struct sampler w = { 0 };
	json_t *msg = NULL;
	int status = 1;

	sibyl_seconds_init();
	w.progress = progress < 0 ? NULL : sibyl_worker_progress_map(progress);
	sibyl_msg_reader_init(&in, requests);
	if (sibyl_msg_next(&in, 0, -1, &msg) != SIBYL_MSG_ONE ||
	    sibyl_worker_setup_parse(msg, &setup) < 0) {
		r.status = -1;
		snprintf(r.msg, sizeof(r.msg), "bad setup from the planner");
	}
	if (r.status == 0 && start(&w, &setup, &list, &r) == 0 && reply(replies, &r) == 0) {
		serve_samples(&w, &in, replies);
		if (w.a->fini)
			w.a->fini(w.state);
		status = 0;
	} else {
		reply(replies, &r);
	}
	/* The adapter's object stays loaded: the worker exits next, and
	 * unloading would run an OpenCL runtime's destructors for nothing. */
	json_decref(msg);
	sibyl_msg_reader_free(&in);
	sibyl_worker_progress_unmap(w.progress);
	free(w.times);
	free(w.met.v);
	return status;
}
