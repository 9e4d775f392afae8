/* The planner's side of the sampling worker (worker.h): it runs
 * sibyl-plan-worker through the runner and talks worker_protocol.h. */
#define _GNU_SOURCE
#include "planner/worker.h"
#include "planner/call_mix.h"
#include "model/profile.h"
#include "planner/planner.h"
#include "planner/worker_protocol.h"
#include "planner/helper.h"
#include "planner/one_time.h"
#include "planner/adapters/builtin.h"
#include "core/alloc.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/message.h"
#include "core/run.h"

#include <errno.h>
#include <gsl/gsl_statistics_double.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct sibyl_worker {
	const struct sibyl_adapter *a;
	bool by_params;            /* it can build samples from parameters */
	struct sibyl_helper h;     /* sibyl-plan-worker */
	double timeout;
	double run_timeout;        /* one run's limit: a sequence call's */
	struct sibyl_worker_progress *progress;   /* shared with the worker; NULL: none */
	struct sibyl_worker_stats stats;
};

/* Why the worker is gone: reap it and describe its end.  It closed its
 * replies, so it is ending; a worker that lingers is killed. */
static void describe_death(struct sibyl_worker *w, const char *at, char *err, size_t errlen)
{
	struct sibyl_run_status st = { SIBYL_RUN_FAILED, -1, NULL };

	sibyl_run_wait(&w->h.child, sibyl_mono_ns() + 5000000000ull, &st);
	if (st.outcome == SIBYL_RUN_CRASHED)
		sibyl_seterr(err, errlen, "adapter %s crashed (signal %d, %s)%s", w->a->name,
			     st.code, strsignal(st.code), at);
	else
		sibyl_seterr(err, errlen, "adapter %s exited (status %d)%s", w->a->name,
			     st.outcome == SIBYL_RUN_TIMED_OUT ? -1 : st.code, at);
}

static void kill_worker(struct sibyl_worker *w)
{
	struct sibyl_run_status st;

	sibyl_run_kill(&w->h.child, &st);
}

static volatile sig_atomic_t interrupted_by;
/* The self-pipe that wakes a wait for a reply when a signal lands between
 * the check of interrupted_by and poll(). */
static int wake[2] = { -1, -1 };

void sibyl_worker_interrupt(int sig)
{
	int saved = errno;

	interrupted_by = sig;
	if (wake[1] >= 0 && write(wake[1], "", 1) < 0) {
		/* full: a wake-up is already pending */
	}
	errno = saved;
}

int sibyl_worker_interrupted(void)
{
	return interrupted_by;
}

static int interrupted(struct sibyl_worker *w, const char *at, char *err, size_t errlen)
{
	const char *name = sigabbrev_np(interrupted_by);

	kill_worker(w);
	return sibyl_seterr(err, errlen, "interrupted by SIG%s%s", name ? name : "?", at);
}

/* A sequence under way: its calls, and the worker's count of calls
 * started when it was sent. */
struct seq_watch {
	const uint64_t *metrics;
	size_t n;
	uint64_t base;
	size_t hung;               /* out: the call that ran out of time */
};

static uint64_t calls_started(const struct sibyl_worker *w)
{
	return __atomic_load_n(&w->progress->started, __ATOMIC_RELAXED);
}

/* The next reply, within w->timeout; or, watching a sequence, until one
 * of its calls has run for a run's limit with no next call started,
 * looked at every quarter of that limit: a hung call is caught within
 * 1.25 limits, not after the limits of the whole sequence. */
static enum sibyl_msg_got next_reply(struct sibyl_worker *w, struct seq_watch *watch,
				     json_t **msg)
{
	uint64_t now = sibyl_mono_ns(), limit = (uint64_t)(w->timeout * 1e9);

	if (!watch)
		return sibyl_msg_next(&w->h.from, now + limit, wake[0], msg);
	limit = (uint64_t)(w->run_timeout * 1e9);
	for (uint64_t seen = watch->base, since = now;;) {
		uint64_t end = since + limit, slice = now + limit / 4;
		enum sibyl_msg_got got = sibyl_msg_next(&w->h.from, slice < end ? slice : end,
							 wake[0], msg);
		uint64_t started = calls_started(w);

		now = sibyl_mono_ns();
		if (got != SIBYL_MSG_TIMEOUT)
			return got;
		if (started != seen) {
			seen = started;
			since = now;
		} else if (now >= end) {
			watch->hung = seen > watch->base ? (size_t)(seen - watch->base - 1) : 0;
			return got;
		}
	}
}

/* Wait for one reply within the timeout, and with times, a sequence's n
 * times (worker_protocol.h), watched call by call when `watch`.  0, or
 * -1 with err set. */
static int await(struct sibyl_worker *w, struct sibyl_sample_reply *r, const char *at,
		 double *times, size_t n, struct seq_watch *watch, char *err, size_t errlen)
{
	json_t *msg;
	enum sibyl_msg_got got = next_reply(w, watch, &msg);

	if (got == SIBYL_MSG_ONE) {
		int bad = sibyl_sample_reply_parse(msg, r);

		if (!bad && times && r->status == 0)
			bad = sibyl_sequence_times_parse(msg, times, n);
		json_decref(msg);
		if (bad) {
			kill_worker(w);
			return sibyl_seterr(err, errlen, "adapter %s: the worker sent a bad reply%s",
					    w->a->name, at);
		}
	}
	if (interrupted_by)
		return interrupted(w, at, err, errlen);
	if (got == SIBYL_MSG_TIMEOUT) {
		kill_worker(w);
		if (watch)
			return sibyl_seterr(err, errlen, "adapter %s timed out after %g s at work "
					    "metric %llu (call %zu of %zu replayed back to back)",
					    w->a->name, w->run_timeout,
					    (unsigned long long)watch->metrics[watch->hung],
					    watch->hung + 1, watch->n);
		return sibyl_seterr(err, errlen, "adapter %s timed out after %g s%s", w->a->name,
				    w->timeout, at);
	}
	if (got != SIBYL_MSG_ONE) {
		describe_death(w, at, err, errlen);
		return -1;
	}
	return 0;
}

static int send_request(struct sibyl_worker *w, json_t *msg)
{
	int r = msg ? sibyl_msg_send(w->h.to, msg) : -1;

	json_decref(msg);
	return r;
}

/* Start sibyl-plan-worker with its requests, replies and progress page
 * at their numbers; -1 with err set. */
static int spawn(struct sibyl_worker *w, char *err, size_t errlen)
{
	char *path = sibyl_run_helper_path("sibyl-plan-worker", "SIBYL_PLAN_WORKER");
	char *argv[] = { path, NULL };
	int page = sibyl_worker_progress_create(&w->progress);
	/* Without a page, /dev/null there (which cannot be mapped): never a
	 * descriptor sibyl inherited at that number. */
	struct sibyl_run_fd extra = { page < 0 ? SIBYL_RUN_DEVNULL : page, SIBYL_PLAN_PROGRESS_FD };
	int r = sibyl_helper_start(&w->h, argv, &extra, err, errlen);

	if (page >= 0)
		close(page);	/* the mapping stays */
	free(path);
	return r;
}

struct sibyl_worker *sibyl_worker_start(const struct sibyl_adapter *a, const char *source,
					const struct sibyl_adapter_config *config,
					const struct sibyl_sampling *sp, char *err, size_t errlen)
{
	struct sibyl_worker *w = sibyl_xcalloc(1, sizeof(*w));
	struct sibyl_worker_setup setup = { source, a->name, *config, *sp };
	struct sibyl_sample_reply r = { 0 };

	w->stats.exit_seconds = NAN;	/* until sibyl_worker_once_costs */
	sibyl_seconds_init();
	if (wake[0] < 0 && pipe2(wake, O_CLOEXEC | O_NONBLOCK))
		wake[0] = wake[1] = -1;   /* poll ignores fd -1: EINTR still wakes most waits */
	w->a = a;
	w->by_params = sibyl_builtin_param_hooks(a) != NULL;
	/* Write errors to a dead worker must come back as EPIPE, not kill us. */
	signal(SIGPIPE, SIG_IGN);
	if (spawn(w, err, errlen) < 0) {
		sibyl_worker_stop(w);
		return NULL;
	}
	/* init may build device programs (PoCL compiles on first use): give
	 * it six sample timeouts, at least a minute. */
	w->timeout = fmax(60, 6 * sp->timeout);
	int rc = send_request(w, sibyl_worker_setup_json(&setup));

	if (rc)
		describe_death(w, " in init", err, errlen);
	else
		rc = await(w, &r, " in init", NULL, 0, NULL, err, errlen);
	w->timeout = sibyl_sample_time_limit(sp);
	w->run_timeout = sp->timeout;
	w->stats.reference_first = w->stats.reference_best = r.reference_best;
	w->stats.init_seconds = r.init_seconds;
	if (rc == 0 && r.status) {
		sibyl_seterr(err, errlen, "adapter %s: init: %s", a->name, r.msg);
		rc = -1;
	}
	if (rc) {
		sibyl_worker_stop(w);
		return NULL;
	}
	return w;
}

/* Send one request, msg, taken; `at` names it in a failure.  0, or -1
 * with err set. */
static int send_message(struct sibyl_worker *w, json_t *msg, const char *at, char *err,
			size_t errlen)
{
	if (interrupted_by || w->h.child.pid < 0)
		json_decref(msg);
	if (interrupted_by)
		return interrupted(w, at, err, errlen);
	if (w->h.child.pid < 0)
		return sibyl_seterr(err, errlen, "adapter %s: worker is gone", w->a->name);
	if (send_request(w, msg)) {
		describe_death(w, at, err, errlen);
		return -1;
	}
	return 0;
}

static void first_at(struct sibyl_worker_stats *s, uint64_t metric, double seconds)
{
	if (s->nfirst_at == s->cap_first_at) {
		s->cap_first_at = s->cap_first_at ? 2 * s->cap_first_at : 64;
		s->first_at = sibyl_xreallocarray(s->first_at, s->cap_first_at, sizeof(*s->first_at));
	}
	s->first_at[s->nfirst_at++] = (struct sibyl_first_at){ metric, seconds };
}

/* What a sample's reply says of the worker, into its stats. */
static void account(struct sibyl_worker *w, const struct sibyl_sample_request *rq,
		    const struct sibyl_sample_reply *rp)
{
	const struct sibyl_sample_reply r = *rp;

	if (!w->stats.samples) {
		w->stats.first_metric = w->stats.first_call_metric = rq->metric;
		w->stats.first_run_seconds = r.first_run_seconds;
		w->stats.first_sample_seconds = r.seconds;
		w->stats.first_run_faults = r.first_run_faults;
		w->stats.one_time[0] = (struct sibyl_one_time_run){ w->stats.init_seconds,
								    r.first_run_seconds, r.seconds };
		w->stats.one_time_runs = 1;
	} else if (r.first_run_seconds > 0) {	/* a metric's first (sampling.first_calls) */
		first_at(&w->stats, rq->metric, r.first_run_seconds);
	}
	w->stats.samples++;
	w->stats.dropped_runs += r.dropped;
	w->stats.dropped_inside_runs += r.dropped_inside;
	w->stats.dropped_starved_runs += r.dropped_starved;
	w->stats.unguarded_samples += r.unguarded;
	w->stats.preempted += r.preempted;
	w->stats.steal_ticks += r.steal_ticks;
	w->stats.cpu_ticks += r.cpu_ticks;
	w->stats.reference_best = r.reference_best;
	w->stats.best_raised = r.best_raised;
	w->stats.guard_seconds = r.guard_seconds;
	w->stats.guard_vain_seconds = r.guard_vain_seconds;
	if (r.typical_seconds > 0 && r.seconds > 0) {
		struct sibyl_worker_stats *s = &w->stats;

		if (s->ntypical == s->cap_typical) {
			s->cap_typical = s->cap_typical ? 2 * s->cap_typical : 256;
			s->typical = sibyl_xreallocarray(s->typical, s->cap_typical, sizeof(*s->typical));
		}
		s->typical[s->ntypical++] = (struct sibyl_typical_sample){ rq->metric, r.seconds,
									  r.typical_seconds };
	}
}

/* The reply to rq, the oldest request unanswered. */
static int receive_sample(struct sibyl_worker *w, const struct sibyl_sample_request *rq,
			  double *seconds, char *err, size_t errlen)
{
	struct sibyl_sample_reply r;
	char at[SIBYL_AT_LEN];

	if (await(w, &r, sibyl_sample_where(rq, at), NULL, 0, NULL, err, errlen))
		return -1;
	if (r.status)
		return sibyl_seterr(err, errlen, "adapter %s: %s", w->a->name, r.msg);
	*seconds = r.seconds;
	account(w, rq, &r);
	return r.unguarded ? SIBYL_MEASURE_UNGUARDED : r.preempted ? SIBYL_MEASURE_PREEMPTED : 0;
}

static int request(struct sibyl_worker *w, const struct sibyl_sample_request *rq, double *seconds,
		   char *err, size_t errlen)
{
	char at[SIBYL_AT_LEN];

	if (send_message(w, sibyl_sample_request_json(rq), sibyl_sample_where(rq, at), err, errlen))
		return -1;
	return receive_sample(w, rq, seconds, err, errlen);
}

/* The worker's first sample measures a fresh process's one-time costs
 * (worker.h), which `sibyl predict` adds apart: a replay starts after it,
 * warm.  Then sequence requests, each call given a run's time limit
 * (next_reply), or without the progress page the sum of its calls'. */
int sibyl_worker_measure_seq(struct sibyl_worker *w, const uint64_t *metrics, size_t n,
			     double *seconds, char *err, size_t errlen)
{
	double first, limit = w->timeout;

	if (n && !w->stats.samples && sibyl_worker_measure(w, metrics[0], &first, err, errlen) < 0)
		return -1;
	for (size_t i = 0; i < n; i += SIBYL_MAX_SEQUENCE) {
		size_t k = n - i < SIBYL_MAX_SEQUENCE ? n - i : SIBYL_MAX_SEQUENCE;
		struct sibyl_sample_reply r;
		char at[SIBYL_AT_LEN];

		snprintf(at, sizeof(at), " in a replay of %zu calls from work metric %llu", k,
			 (unsigned long long)metrics[i]);
		struct seq_watch watch = { metrics + i, k, w->progress ? calls_started(w) : 0, 0 };

		if (send_message(w, sibyl_sequence_request_json(metrics + i, k), at, err, errlen))
			return -1;
		w->timeout = limit * (double)k;
		int rc = await(w, &r, at, seconds + i, k, w->progress ? &watch : NULL, err, errlen);

		w->timeout = limit;
		if (rc)
			return -1;
		if (r.status)
			return sibyl_seterr(err, errlen, "adapter %s: %s", w->a->name, r.msg);
		w->stats.samples += k;
	}
	return 0;
}

int sibyl_worker_measure_seq_cb(void *ctx, const uint64_t *metrics, size_t n, double *seconds,
				char *err, size_t errlen)
{
	return sibyl_worker_measure_seq(ctx, metrics, n, seconds, err, errlen);
}

int sibyl_worker_measure(struct sibyl_worker *w, uint64_t metric, double *seconds,
			 char *err, size_t errlen)
{
	struct sibyl_sample_request rq;

	memset(&rq, 0, sizeof(rq));   /* no stray padding down the pipe */
	rq.metric = metric;
	return request(w, &rq, seconds, err, errlen);
}

int sibyl_worker_measure_params(struct sibyl_worker *w, const double *params, size_t nparams,
				uint64_t metric, double *seconds, char *err, size_t errlen)
{
	struct sibyl_sample_request rq;

	if (!w->by_params || nparams == 0 || nparams > SIBYL_MAX_PARAMS)
		return sibyl_seterr(err, errlen, "adapter %s: cannot build a sample from %zu parameters",
				    w->a->name, nparams);
	memset(&rq, 0, sizeof(rq));
	rq.nparams = (uint32_t)nparams;
	rq.metric = metric;
	memcpy(rq.params, params, nparams * sizeof(*params));
	return request(w, &rq, seconds, err, errlen);
}

int sibyl_worker_measure_cb(void *ctx, uint64_t metric, double *seconds, char *err,
			    size_t errlen)
{
	return sibyl_worker_measure(ctx, metric, seconds, err, errlen);
}

int sibyl_worker_measure_params_cb(void *ctx, const double *params, size_t nparams,
				   uint64_t metric, double *seconds, char *err, size_t errlen)
{
	return sibyl_worker_measure_params(ctx, params, nparams, metric, seconds, err, errlen);
}

void sibyl_worker_stats(const struct sibyl_worker *w, struct sibyl_worker_stats *s)
{
	*s = w->stats;
}

static double first_excess(const struct sibyl_one_time_run *r)
{
	return fmax(0, r->first_run - r->first_sample);
}

static int by_one_time_cost(const void *a, const void *b)
{
	const struct sibyl_one_time_run *x = a, *y = b;
	double cx = x->init + first_excess(x), cy = y->init + first_excess(y);

	return (cx > cy) - (cx < cy);
}

/* Stop w; the seconds its exit took (sibyl_helper_stop). */
static double stop_timed(struct sibyl_worker *w)
{
	double took = sibyl_helper_stop(&w->h);

	sibyl_worker_progress_unmap(w->progress);
	free(w->stats.typical);
	free(w->stats.first_at);
	free(w);
	return took;
}

/* One-time costs are measured in sibyl-plan-one-time, which links only
 * the C library, as a small program does (one_time.h): probe after
 * probe, each exit beside a bare probe's; the run of median cost and
 * the median excess of the exits are kept.  The planning worker's own
 * run stays when no probe runs (a built-in adapter lives in the worker
 * only). */
static void one_time_again(struct sibyl_worker *w, const char *source,
			   const struct sibyl_adapter_config *config,
			   const struct sibyl_sampling *sp, uint64_t first_call)
{
	struct sibyl_worker_stats *s = &w->stats;
	struct sibyl_one_time_run runs[SIBYL_ONE_TIME_RUNS];
	double excess[SIBYL_ONE_TIME_RUNS], timeout = fmax(60, 6 * sp->timeout);
	unsigned n = 0, nexcess = 0;
	char err[256];

	s->exit_seconds = NAN;
	if (!s->one_time_runs || w->by_params || !strcmp(source, "builtin"))
		return;	/* no first sample to repeat, or no probe can load it */
	uint64_t first = first_call ? first_call : s->first_metric;

	while (n < SIBYL_ONE_TIME_RUNS && !interrupted_by) {
		double own, bare;

		if (sibyl_one_time_probe(source, w->a->name, config, first, timeout,
					 &runs[n], &own, err, sizeof(err)) < 0)
			break;
		n++;
		if (sibyl_one_time_probe(NULL, NULL, config, 0, timeout, NULL, &bare, err,
					 sizeof(err)) == 0 && isfinite(own) && isfinite(bare))
			excess[nexcess++] = own - bare;
	}
	s->exit_seconds = nexcess ? gsl_stats_median(excess, 1, nexcess) : NAN;
	if (!n)
		return;
	memcpy(s->one_time, runs, n * sizeof(*runs));
	s->one_time_runs = n;
	s->first_call_metric = first;
	qsort(runs, n, sizeof(*runs), by_one_time_cost);
	s->init_seconds = runs[(n - 1) / 2].init;
	s->first_run_seconds = runs[(n - 1) / 2].first_run;
	s->first_sample_seconds = runs[(n - 1) / 2].first_sample;
}

#define FIRST_TOUCH_SECONDS 2.0

static void first_touch(struct sibyl_worker *w, const char *source,
			const struct sibyl_adapter_config *config,
			const struct sibyl_sampling *sp, uint64_t hi)
{
	struct sibyl_worker_stats *s = &w->stats;
	struct sibyl_sampling plain = *sp;
	double lo = (double)s->first_metric, start = sibyl_seconds();
	char err[256];

	s->first_touch_n = 0;
	if (!s->samples || w->by_params || lo < 1 || (double)hi <= lo)
		return;
	/* The first step is the planning worker's own first run. */
	s->first_touch[s->first_touch_n++] = (struct sibyl_first_touch){ s->first_metric,
									  s->first_run_faults };
	/* Only each worker's first run counts: the sample after it is one run. */
	plain.guard_wait = 0;
	plain.rounds = 1;
	plain.repeat = 1;
	plain.min_seconds = 0;
	for (unsigned i = 1; i < SIBYL_FIRST_TOUCH_STEPS && !interrupted_by &&
			     sibyl_seconds() - start < FIRST_TOUCH_SECONDS; i++) {
		double f = (double)i / (SIBYL_FIRST_TOUCH_STEPS - 1);
		uint64_t m = (uint64_t)llround(lo * pow((double)hi / lo, f));

		if (m <= s->first_touch[s->first_touch_n - 1].metric)
			continue;	/* a narrow range rounds onto a step already taken */
		struct sibyl_worker *fresh = sibyl_worker_start(w->a, source, config, &plain, err,
								sizeof(err));
		double seconds;

		if (!fresh)
			break;
		int rc = sibyl_worker_measure(fresh, m, &seconds, err, sizeof(err));

		if (rc >= 0)
			s->first_touch[s->first_touch_n++] = (struct sibyl_first_touch){
				m, fresh->stats.first_run_faults };
		sibyl_worker_stop(fresh);
		if (rc < 0)
			break;
	}
}

void sibyl_worker_once_costs(struct sibyl_worker *w, const char *source,
			     const struct sibyl_adapter_config *config,
			     const struct sibyl_sampling *sp, const struct sibyl_call_mix *mix,
			     const struct sibyl_profile *profile)
{
	one_time_again(w, source, config, sp, mix && mix->nseq ? mix->seq[0].metric : 0);
	if (profile->npoints)
		first_touch(w, source, config, sp, (uint64_t)profile->points[profile->npoints - 1].x);
}

void sibyl_worker_stop(struct sibyl_worker *w)
{
	if (w)
		stop_timed(w);
}
