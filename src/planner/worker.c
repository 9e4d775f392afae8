/* The planner's side of the sampling worker (worker.h): it runs
 * sibyl-plan-worker through the runner and talks worker_protocol.h. */
#define _GNU_SOURCE
#include "planner/worker.h"
#include "planner/planner.h"
#include "planner/worker_protocol.h"
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

/* The built-in adapter of the bare worker whose exit is the baseline:
 * nothing to load, a trivial init. */
#define BARE_ADAPTER "insertion-sort"

struct sibyl_worker {
	const struct sibyl_adapter *a;
	bool by_params;            /* it can build samples from parameters */
	struct sibyl_child child;  /* pid -1 once gone */
	int to;                    /* requests */
	struct sibyl_msg_reader from;   /* replies */
	double timeout;
	struct sibyl_worker_stats stats;
};

/* Why the worker is gone: reap it and describe its end.  It closed its
 * replies, so it is ending; a worker that lingers is killed. */
static void describe_death(struct sibyl_worker *w, const char *at, char *err, size_t errlen)
{
	struct sibyl_run_status st = { SIBYL_RUN_FAILED, -1, NULL };

	sibyl_run_wait(&w->child, sibyl_mono_ns() + 5000000000ull, &st);
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

	sibyl_run_kill(&w->child, &st);
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

/* Wait for one reply within the timeout, and with times, a sequence's n
 * times (worker_protocol.h).  0, or -1 with err set. */
static int await(struct sibyl_worker *w, struct sibyl_sample_reply *r, const char *at,
		 double *times, size_t n, char *err, size_t errlen)
{
	uint64_t deadline = sibyl_mono_ns() + (uint64_t)(w->timeout * 1e9);
	json_t *msg;
	enum sibyl_msg_got got = sibyl_msg_next(&w->from, deadline, wake[0], &msg);

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
	int r = msg ? sibyl_msg_send(w->to, msg) : -1;

	json_decref(msg);
	return r;
}

/* Start sibyl-plan-worker with its requests and replies at their
 * numbers; -1 with err set. */
static int spawn(struct sibyl_worker *w, char *err, size_t errlen)
{
	int req[2], rep[2] = { -1, -1 };
	char *path = sibyl_run_helper_path("sibyl-plan-worker", "SIBYL_PLAN_WORKER");
	char *argv[] = { path, NULL };
	struct sibyl_run_status st;

	if (pipe2(req, O_CLOEXEC) || pipe2(rep, O_CLOEXEC)) {
		sibyl_seterr(err, errlen, "pipe: %s", strerror(errno));
		free(path);
		return -1;
	}
	struct sibyl_run_fd fds[] = { { req[0], SIBYL_RUN_REQUEST_FD },
				      { rep[1], SIBYL_RUN_REPORT_FD } };
	struct sibyl_run_spec spec = { .argv = argv, .fds = fds, .nfds = 2 };
	int r = sibyl_run_start(&spec, &w->child, &st);

	close(req[0]);
	close(rep[1]);
	w->to = req[1];
	sibyl_msg_reader_init(&w->from, rep[0]);
	if (r < 0)
		sibyl_seterr(err, errlen, "cannot run %s: %s", path, strerror(st.code));
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

	w->stats.exit_seconds = NAN;	/* until sibyl_worker_one_time_again */
	sibyl_seconds_init();
	if (wake[0] < 0 && pipe2(wake, O_CLOEXEC | O_NONBLOCK))
		wake[0] = wake[1] = -1;   /* poll ignores fd -1: EINTR still wakes most waits */
	w->a = a;
	w->to = -1;
	w->from.fd = -1;
	w->child.pid = -1;
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
		rc = await(w, &r, " in init", NULL, 0, err, errlen);
	w->timeout = sibyl_sample_time_limit(sp);
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
	if (interrupted_by || w->child.pid < 0)
		json_decref(msg);
	if (interrupted_by)
		return interrupted(w, at, err, errlen);
	if (w->child.pid < 0)
		return sibyl_seterr(err, errlen, "adapter %s: worker is gone", w->a->name);
	if (send_request(w, msg)) {
		describe_death(w, at, err, errlen);
		return -1;
	}
	return 0;
}

/* What a sample's reply says of the worker, into its stats. */
static void account(struct sibyl_worker *w, const struct sibyl_sample_request *rq,
		    const struct sibyl_sample_reply *rp)
{
	const struct sibyl_sample_reply r = *rp;

	if (!w->stats.samples) {
		w->stats.first_metric = rq->metric;
		w->stats.first_run_seconds = r.first_run_seconds;
		w->stats.first_sample_seconds = r.seconds;
		w->stats.first_run_faults = r.first_run_faults;
		w->stats.one_time[0] = (struct sibyl_one_time_run){ w->stats.init_seconds,
								    r.first_run_seconds, r.seconds };
		w->stats.one_time_runs = 1;
	}
	w->stats.samples++;
	w->stats.dropped_runs += r.dropped;
	w->stats.dropped_inside_runs += r.dropped_inside;
	w->stats.unguarded_samples += r.unguarded;
	w->stats.preempted += r.preempted;
	w->stats.steal_ticks += r.steal_ticks;
	w->stats.cpu_ticks += r.cpu_ticks;
	w->stats.reference_best = r.reference_best;
	w->stats.best_raised = r.best_raised;
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

	if (await(w, &r, sibyl_sample_where(rq, at), NULL, 0, err, errlen))
		return -1;
	if (r.status)
		return sibyl_seterr(err, errlen, "adapter %s: %s", w->a->name, r.msg);
	*seconds = r.seconds;
	account(w, rq, &r);
	return r.unguarded ? SIBYL_MEASURE_UNGUARDED : 0;
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
 * warm.  Then sequence requests, each waited for as long as its runs may
 * take. */
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
		if (send_message(w, sibyl_sequence_request_json(metrics + i, k), at, err, errlen))
			return -1;
		w->timeout = limit * (double)k;
		int rc = await(w, &r, at, seconds + i, k, err, errlen);

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

/* Stop w; the seconds from the end of its requests to its exit (fini,
 * then the kernel tearing the process down), NAN unless it exited 0 by
 * itself and was watched through a pidfd (without one, the wait looks
 * every 10 ms: too coarse for a cost of some 0.4 ms). */
static double stop_timed(struct sibyl_worker *w)
{
	struct sibyl_run_status st = { .outcome = SIBYL_RUN_NOT_STARTED };
	double start = sibyl_seconds();
	bool precise = w->child.pidfd >= 0;

	if (w->to >= 0)
		close(w->to);  /* end of requests: the worker runs fini */
	/* Give fini a moment, then insist. */
	sibyl_run_wait(&w->child, sibyl_mono_ns() + 2000000000ull, &st);
	double took = st.outcome == SIBYL_RUN_OK && precise ? sibyl_seconds() - start : NAN;

	if (w->from.fd >= 0)
		close(w->from.fd);
	sibyl_msg_reader_free(&w->from);
	free(w->stats.typical);
	free(w);
	return took;
}

/* The exit of a worker that holds only a built-in adapter: what every
 * worker's exit costs whatever it loaded; NAN when it cannot run. */
static double bare_exit_seconds(const struct sibyl_adapter_config *config,
				const struct sibyl_sampling *sp)
{
	size_t n;
	const struct sibyl_adapter *const *builtin = sibyl_builtin_adapters(&n);
	char err[256];

	for (size_t i = 0; i < n; i++)
		if (!strcmp(builtin[i]->name, BARE_ADAPTER)) {
			struct sibyl_worker *bare = sibyl_worker_start(builtin[i], "builtin",
								       config, sp, err,
								       sizeof(err));

			return bare ? stop_timed(bare) : NAN;
		}
	return NAN;
}

/* A program that swapped the implementation in also pays, at exit, its
 * library's destructors and the teardown of the memory it mapped (about
 * 0.4 ms for OpenBLAS here): each fresh worker's exit beside a bare
 * worker's, their median is exit_seconds. */
void sibyl_worker_one_time_again(struct sibyl_worker *w, const char *source,
				 const struct sibyl_adapter_config *config,
				 const struct sibyl_sampling *sp)
{
	struct sibyl_worker_stats *s = &w->stats;
	struct sibyl_sampling plain = *sp;
	double excess[SIBYL_ONE_TIME_RUNS];
	unsigned nexcess = 0;
	char err[256];

	s->exit_seconds = NAN;
	if (!s->one_time_runs || w->by_params)
		return;	/* no first sample to repeat */
	plain.guard_wait = 0;	/* no 2 s calibration: one run is compared with its sample */
	while (s->one_time_runs < SIBYL_ONE_TIME_RUNS && !interrupted_by) {
		struct sibyl_worker *fresh = sibyl_worker_start(w->a, source, config, &plain, err,
								sizeof(err));
		double seconds;

		if (!fresh)
			break;
		if (sibyl_worker_measure(fresh, s->first_metric, &seconds, err, sizeof(err)) < 0) {
			sibyl_worker_stop(fresh);
			break;
		}
		s->one_time[s->one_time_runs++] = fresh->stats.one_time[0];
		double own = stop_timed(fresh), bare = bare_exit_seconds(config, &plain);

		if (isfinite(own) && isfinite(bare))
			excess[nexcess++] = own - bare;
	}
	s->exit_seconds = nexcess ? gsl_stats_median(excess, 1, nexcess) : NAN;
	struct sibyl_one_time_run sorted[SIBYL_ONE_TIME_RUNS];

	memcpy(sorted, s->one_time, s->one_time_runs * sizeof(*sorted));
	qsort(sorted, s->one_time_runs, sizeof(*sorted), by_one_time_cost);
	const struct sibyl_one_time_run *mid = &sorted[(s->one_time_runs - 1) / 2];

	s->init_seconds = mid->init;
	s->first_run_seconds = mid->first_run;
	s->first_sample_seconds = mid->first_sample;
}

#define FIRST_TOUCH_SECONDS 2.0

void sibyl_worker_first_touch(struct sibyl_worker *w, const char *source,
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

void sibyl_worker_stop(struct sibyl_worker *w)
{
	if (w)
		stop_timed(w);
}
