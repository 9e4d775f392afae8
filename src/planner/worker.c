/* The sampling worker process and the TSC clock handed to adapters. */
#define _GNU_SOURCE
#include "planner/worker.h"
#include "planner/planner.h"
#include "planner/speed_guard.h"
#include "core/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <sched.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct reply {
	int32_t status;            /* 0, or -1 with msg */
	uint32_t dropped;          /* runs dropped in slow phases */
	uint32_t dropped_inside;   /* of them, for references timed inside their group */
	uint32_t unguarded;        /* 1: the sample waited for its best speed in vain */
	double seconds;
	double reference_best;     /* the speed guard's best reference so far */
	uint32_t best_raised;      /* times the guard raised its best (so far) */
	/* One-time costs a program swapping this implementation in pays:
	 * init (in the first reply), the fresh process's first run (in the
	 * first sample's reply; 0 in later ones). */
	double init_seconds, first_run_seconds;
	char msg[240];
};

/* One sample: of a work metric, or (nparams > 0) of invocation
 * parameters, built by the setup_params hook; metric is then theirs. */
struct request {
	uint64_t metric;
	uint32_t nparams;
	double params[SIBYL_MAX_PARAMS];
};

struct sibyl_worker {
	const struct sibyl_adapter *a;
	sibyl_setup_params_fn setup_params;
	pid_t pid;
	int to, from;              /* request and reply pipes */
	double timeout;
	struct sibyl_worker_stats stats;
};

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* 1 complete, 0 end of file, -1 error. */
static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0 && p == buf ? 0 : -1;
		p += n;
		len -= (size_t)n;
	}
	return 1;
}

/* " at work metric M", or " at parameters AxBxC (work metric M)": the
 * place a failure names. */
#define SIBYL_AT_LEN 160

static const char *where(const struct request *rq, char at[SIBYL_AT_LEN])
{
	int len = snprintf(at, SIBYL_AT_LEN, " at %s", rq->nparams ? "parameters " : "");

	for (uint32_t i = 0; i < rq->nparams && len < SIBYL_AT_LEN; i++)
		len += snprintf(at + len, SIBYL_AT_LEN - (size_t)len, "%s%g", i ? "x" : "",
				rq->params[i]);
	if (len < SIBYL_AT_LEN)
		snprintf(at + len, SIBYL_AT_LEN - (size_t)len, rq->nparams ? " (work metric %llu)" :
			 "work metric %llu", (unsigned long long)rq->metric);
	return at;
}

static void sample(const struct sibyl_worker *w, void *state, const struct request *rq,
		   struct reply *r)
{
	const struct sibyl_adapter *a = w->a;
	void *s = NULL;
	int failed = rq->nparams ? w->setup_params(state, rq->params, rq->nparams, &s)
				 : a->setup ? a->setup(state, rq->metric, &s) : 0;
	char at[SIBYL_AT_LEN];

	if (failed) {
		r->status = -1;
		snprintf(r->msg, sizeof(r->msg), "setup failed%s", where(rq, at));
		return;
	}
	r->seconds = a->run(state, s, rq->metric);
	if (!(r->seconds >= 0)) {
		r->status = -1;
		snprintf(r->msg, sizeof(r->msg), "run failed%s", where(rq, at));
	}
	if (a->teardown)
		a->teardown(state, s);
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
static void measure_round(const struct sibyl_worker *w, void *state,
			  const struct sibyl_sampling *sp, unsigned repeat,
			  struct sibyl_speed_guard *g, const struct request *rq, double *times,
			  double *wait_left, struct reply *r)
{
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
		double start = sibyl_seconds();

		do {
			struct reply one = { 0 };

			sample(w, state, rq, &one);
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
		bool calm_before = calm, inside_calm = sibyl_speed_guard_inside_stop(g);

		calm = calm && inside_calm && sibyl_speed_guard_calm(g);
		if (!calm && sibyl_seconds() < deadline) {
			r->dropped += (uint32_t)(k.n - before.n);
			if (calm_before && !inside_calm)
				r->dropped_inside += (uint32_t)(k.n - before.n);
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
 * round met, which only ever adds time. */
static void measure(const struct sibyl_worker *w, void *state, const struct sibyl_sampling *sp,
		    struct sibyl_speed_guard *g, const struct request *rq, double *times,
		    struct reply *r)
{
	unsigned rounds = rounds_of(sp), repeat = runs_per_round(sp);
	double wait_left = sp->guard_wait, fastest = 0;

	memset(r, 0, sizeof(*r));
	for (unsigned i = 0; i < rounds; i++) {
		if (i) {
			struct timespec gap = { 0, ROUND_GAP_NS };

			nanosleep(&gap, NULL);
		}
		measure_round(w, state, sp, repeat, g, rq, times, &wait_left, r);
		if (r->status)
			return;
		if (i == 0 || r->seconds < fastest)
			fastest = r->seconds;
	}
	r->seconds = fastest;
	r->reference_best = g->best;
	r->best_raised = g->raised;
}

/*
 * Keep the worker on as many CPUs as the implementation has threads,
 * starting with the one it runs on, as benchmark harnesses do: a run
 * that migrates leaves its cache behind, and on a VM it also changes
 * host thread.  (An unpinned insertion-sort plan here timed in two
 * clusters 35% apart and stalled; one under taskset covered 20 times
 * more of the range in 400 samples.  The VM's speed phases, see
 * docs/plan.md, remain either way.)  With as many threads as CPUs,
 * nothing is pinned.
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

static void __attribute__((noreturn)) worker_main(const struct sibyl_worker *w,
						  const struct sibyl_adapter_config *cfg,
						  const struct sibyl_sampling *sp, int in, int out)
{
	const struct sibyl_adapter *a = w->a;
	struct reply r = { 0 };
	void *state = NULL;
	struct request rq;
	struct sibyl_speed_guard guard = { 0 };
	double *times = malloc(SIBYL_MAX_RUNS * sizeof(*times));

	pin(cfg->threads ? cfg->threads : 1);
	double init_start = sibyl_seconds();

	if (!times) {
		r.status = -1;
		snprintf(r.msg, sizeof(r.msg), "out of memory");
	} else if (a->init && a->init(&state, cfg, r.msg, sizeof(r.msg))) {
		r.status = -1;
		if (!r.msg[0])
			snprintf(r.msg, sizeof(r.msg), "init failed");
	}
	r.init_seconds = sibyl_seconds() - init_start;
	if (sp->guard_wait > 0 && r.status == 0) {
		guard.tolerance = 1 + sp->guard_tolerance;
		sibyl_speed_guard_calibrate(&guard, GUARD_CALIBRATION_SECONDS);
		sibyl_speed_guard_inside_init();   /* without it, brackets only */
	}
	r.reference_best = guard.best;
	if (write_all(out, &r, sizeof(r)) || r.status)
		_exit(1);
	for (bool first = true; read_all(in, &rq, sizeof(rq)) == 1; first = false) {
		/* A fresh process pays page faults and cold caches on its first
		 * run: the first request runs once more and drops that run. */
		double first_run = 0;

		if (first) {
			sample(w, state, &rq, &r);
			first_run = r.seconds;
		}
		if (!first || r.status == 0)
			measure(w, state, sp, &guard, &rq, times, &r);
		r.first_run_seconds = first_run;	/* measure() starts a fresh reply */
		if (write_all(out, &r, sizeof(r)))
			break;
	}
	if (a->fini)
		a->fini(state);
	_exit(0);
}

/* Why the worker is gone: reap it and describe its end. */
static void describe_death(struct sibyl_worker *w, const char *at, char *err, size_t errlen)
{
	int st = 0;

	if (waitpid(w->pid, &st, 0) == w->pid && WIFSIGNALED(st))
		snprintf(err, errlen, "adapter %s crashed (signal %d, %s)%s", w->a->name,
			 WTERMSIG(st), strsignal(WTERMSIG(st)), at);
	else
		snprintf(err, errlen, "adapter %s exited (status %d)%s", w->a->name,
			 WIFEXITED(st) ? WEXITSTATUS(st) : -1, at);
	w->pid = -1;
}

static void kill_worker(struct sibyl_worker *w)
{
	if (w->pid > 0) {
		kill(w->pid, SIGKILL);
		waitpid(w->pid, NULL, 0);
		w->pid = -1;
	}
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
	return snprintf(err, errlen, "interrupted by SIG%s%s", name ? name : "?", at), -1;
}

/* Wait for one reply within the timeout.  0, or -1 with err set. */
static int await(struct sibyl_worker *w, struct reply *r, const char *at, char *err,
		 size_t errlen)
{
	struct pollfd p[2] = { { w->from, POLLIN, 0 }, { wake[0], POLLIN, 0 } };
	double deadline = (double)sibyl_mono_ns() * 1e-9 + w->timeout;

	for (;;) {
		double left = deadline - (double)sibyl_mono_ns() * 1e-9;
		int n = left > 0 ? poll(p, 2, (int)(left * 1000) + 1) : 0;

		if (interrupted_by)
			return interrupted(w, at, err, errlen);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0) {
			kill_worker(w);
			snprintf(err, errlen, "adapter %s timed out after %g s%s", w->a->name,
				 w->timeout, at);
			return -1;
		}
		break;
	}
	if (read_all(w->from, r, sizeof(*r)) != 1) {
		describe_death(w, at, err, errlen);
		return -1;
	}
	return 0;
}

/* The limit is per run; a sample is `repeat` runs (rounded up to a
 * multiple of the rounds), plus the dropped warm-up run of the first
 * request, plus each round's short runs that fill min_seconds (their
 * setups stop after ten times that), plus the gaps between rounds and
 * the speed guard's wait. */
double sibyl_sample_time_limit(const struct sibyl_sampling *sp)
{
	unsigned rounds = rounds_of(sp), runs = runs_per_round(sp) * rounds;

	return sp->timeout * (runs + 1) + rounds * 10 * sp->min_seconds +
	       (rounds - 1) * ROUND_GAP_NS * 1e-9 + sp->guard_wait;
}

struct sibyl_worker *sibyl_worker_start(const struct sibyl_adapter *a,
					sibyl_setup_params_fn setup_params,
					const struct sibyl_adapter_config *config,
					const struct sibyl_sampling *sp, char *err, size_t errlen)
{
	int req[2], rep[2];
	struct sibyl_worker *w = calloc(1, sizeof(*w));
	struct reply r = { 0 };

	sibyl_seconds_init();
	if (wake[0] < 0 && pipe2(wake, O_CLOEXEC | O_NONBLOCK))
		wake[0] = wake[1] = -1;   /* poll ignores fd -1: EINTR still wakes most waits */
	if (pipe(req) || pipe(rep)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		free(w);
		return NULL;
	}
	fflush(NULL);
	w->a = a;
	w->setup_params = setup_params;
	w->pid = fork();
	if (w->pid == 0) {
		close(req[1]);
		close(rep[0]);
		if (wake[0] >= 0) {   /* the planner's alone */
			close(wake[0]);
			close(wake[1]);
			wake[0] = wake[1] = -1;
		}
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_IGN);   /* the planner's to act on (worker.h) */
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		worker_main(w, config, sp, req[0], rep[1]);
	}
	close(req[0]);
	close(rep[1]);
	w->to = req[1];
	w->from = rep[0];
	if (w->pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		sibyl_worker_stop(w);
		return NULL;
	}
	/* Write errors to a dead worker must come back as EPIPE, not kill us. */
	signal(SIGPIPE, SIG_IGN);
	/* init may build device programs (PoCL compiles on first use): give
	 * it six sample timeouts, at least a minute. */
	w->timeout = fmax(60, 6 * sp->timeout);
	int rc = await(w, &r, " in init", err, errlen);

	w->timeout = sibyl_sample_time_limit(sp);
	w->stats.reference_first = w->stats.reference_best = r.reference_best;
	w->stats.init_seconds = r.init_seconds;
	if (rc == 0 && r.status) {
		snprintf(err, errlen, "adapter %s: init: %s", a->name, r.msg);
		rc = -1;
	}
	if (rc) {
		sibyl_worker_stop(w);
		return NULL;
	}
	return w;
}

static int request(struct sibyl_worker *w, const struct request *rq, double *seconds,
		   char *err, size_t errlen)
{
	struct reply r;
	char at[SIBYL_AT_LEN];

	where(rq, at);
	if (interrupted_by)
		return interrupted(w, at, err, errlen);
	if (w->pid < 0)
		return snprintf(err, errlen, "adapter %s: worker is gone", w->a->name), -1;
	if (write_all(w->to, rq, sizeof(*rq))) {
		describe_death(w, at, err, errlen);
		return -1;
	}
	if (await(w, &r, at, err, errlen))
		return -1;
	if (r.status)
		return snprintf(err, errlen, "adapter %s: %s", w->a->name, r.msg), -1;
	*seconds = r.seconds;
	if (!w->stats.samples) {
		w->stats.first_metric = rq->metric;
		w->stats.first_run_seconds = r.first_run_seconds;
		w->stats.first_sample_seconds = r.seconds;
	}
	w->stats.samples++;
	w->stats.dropped_runs += r.dropped;
	w->stats.dropped_inside_runs += r.dropped_inside;
	w->stats.unguarded_samples += r.unguarded;
	w->stats.reference_best = r.reference_best;
	w->stats.best_raised = r.best_raised;
	return r.unguarded ? SIBYL_MEASURE_UNGUARDED : 0;
}

int sibyl_worker_measure(struct sibyl_worker *w, uint64_t metric, double *seconds,
			 char *err, size_t errlen)
{
	struct request rq;

	memset(&rq, 0, sizeof(rq));   /* no stray padding down the pipe */
	rq.metric = metric;
	return request(w, &rq, seconds, err, errlen);
}

int sibyl_worker_measure_params(struct sibyl_worker *w, const double *params, size_t nparams,
				uint64_t metric, double *seconds, char *err, size_t errlen)
{
	struct request rq;

	if (!w->setup_params || nparams == 0 || nparams > SIBYL_MAX_PARAMS)
		return snprintf(err, errlen, "adapter %s: cannot build a sample from %zu parameters",
				w->a->name, nparams), -1;
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

void sibyl_worker_stop(struct sibyl_worker *w)
{
	if (!w)
		return;
	close(w->to);          /* end of requests: the worker runs fini */
	if (w->pid > 0) {
		struct reply r;
		struct pollfd p = { w->from, POLLIN, 0 };

		/* Give fini a moment, then insist. */
		if (poll(&p, 1, 2000) > 0 && read_all(w->from, &r, sizeof(r)) == 0)
			waitpid(w->pid, NULL, 0);
		else
			kill_worker(w);
	}
	close(w->from);
	free(w);
}
