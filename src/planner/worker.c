/* The sampling worker process and the TSC clock handed to adapters. */
#include "planner/worker.h"
#include "core/clock.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static struct sibyl_clock_cal cal;

void sibyl_plan_clock_init(void)
{
	uint64_t tsc, ns;

	if (cal.tsc_per_ns > 0)
		return;
	sibyl_clock_pair(&tsc, &ns);
	sibyl_clock_calibrate(&cal, tsc, ns, 20 * 1000 * 1000);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median step between back-to-back reads: what timing the shortest
 * run costs, and below which run times cannot be told apart. */
double sibyl_plan_resolution(void)
{
	double d[1001];

	sibyl_plan_clock_init();
	d[0] = sibyl_plan_now();
	for (int i = 1; i < 1001; i++)
		d[i] = sibyl_plan_now();
	for (int i = 0; i < 1000; i++)
		d[i] = d[i + 1] - d[i];
	qsort(d, 1000, sizeof(*d), cmp_double);
	return d[500];
}

double sibyl_plan_now(void)
{
	return sibyl_tsc_delta_ns(&cal, sibyl_tsc() - cal.ref_tsc) * 1e-9;
}

struct reply {
	int32_t status;            /* 0, or -1 with msg */
	double seconds;
	char msg[240];
};

struct sibyl_worker {
	const struct sibyl_adapter *a;
	pid_t pid;
	int to, from;              /* request and reply pipes */
	double timeout;
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

static void sample(const struct sibyl_adapter *a, void *state, uint64_t metric,
		   struct reply *r)
{
	void *s = NULL;

	if (a->setup && a->setup(state, metric, &s)) {
		r->status = -1;
		snprintf(r->msg, sizeof(r->msg), "setup failed at work metric %llu",
			 (unsigned long long)metric);
		return;
	}
	r->seconds = a->run(state, s, metric);
	if (!(r->seconds >= 0)) {
		r->status = -1;
		snprintf(r->msg, sizeof(r->msg), "run failed at work metric %llu",
			 (unsigned long long)metric);
	}
	if (a->teardown)
		a->teardown(state, s);
}

static void __attribute__((noreturn)) worker_main(const struct sibyl_adapter *a,
						  const struct sibyl_adapter_config *cfg,
						  unsigned repeat, int in, int out)
{
	struct reply r = { 0 };
	void *state = NULL;
	uint64_t metric;

	if (a->init && a->init(&state, cfg, r.msg, sizeof(r.msg))) {
		r.status = -1;
		if (!r.msg[0])
			snprintf(r.msg, sizeof(r.msg), "init failed");
	}
	if (write_all(out, &r, sizeof(r)) || r.status)
		_exit(1);
	for (bool first = true; read_all(in, &metric, sizeof(metric)) == 1; first = false) {
		struct reply one;
		unsigned runs = repeat + (first ? 1 : 0);

		/* A fresh process pays page faults and cold caches on its first
		 * run: the first request runs once more and drops that run.
		 * The sample is the fastest run: interference (preemption,
		 * another process's cache traffic) only ever adds time. */
		memset(&r, 0, sizeof(r));
		r.seconds = INFINITY;
		for (unsigned k = 0; k < runs && r.status == 0; k++) {
			memset(&one, 0, sizeof(one));
			sample(a, state, metric, &one);
			if (one.status)
				r = one;
			else if (!(first && k == 0) && one.seconds < r.seconds)
				r.seconds = one.seconds;
		}
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

/* Wait for one reply within the timeout.  0, or -1 with err set. */
static int await(struct sibyl_worker *w, struct reply *r, const char *at, char *err,
		 size_t errlen)
{
	struct pollfd p = { w->from, POLLIN, 0 };
	double deadline = (double)sibyl_mono_ns() * 1e-9 + w->timeout;

	for (;;) {
		double left = deadline - (double)sibyl_mono_ns() * 1e-9;
		int n = left > 0 ? poll(&p, 1, (int)(left * 1000) + 1) : 0;

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

struct sibyl_worker *sibyl_worker_start(const struct sibyl_adapter *a,
					const struct sibyl_adapter_config *config,
					unsigned repeat, double timeout, char *err, size_t errlen)
{
	int req[2], rep[2];
	struct sibyl_worker *w = calloc(1, sizeof(*w));
	struct reply r;

	sibyl_plan_clock_init();
	if (pipe(req) || pipe(rep)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		free(w);
		return NULL;
	}
	fflush(NULL);
	w->a = a;
	w->timeout = timeout;
	w->pid = fork();
	if (w->pid == 0) {
		close(req[1]);
		close(rep[0]);
		signal(SIGPIPE, SIG_DFL);
		worker_main(a, config, repeat ? repeat : 1, req[0], rep[1]);
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
	w->timeout = fmax(60, 6 * timeout);
	int rc = await(w, &r, " in init", err, errlen);

	/* The limit is per run; a sample is `repeat` runs (plus the dropped
	 * warm-up run of the first request). */
	w->timeout = timeout * ((repeat ? repeat : 1) + 1);
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

int sibyl_worker_measure(struct sibyl_worker *w, uint64_t metric, double *seconds,
			 char *err, size_t errlen)
{
	struct reply r;
	char at[64];

	snprintf(at, sizeof(at), " at work metric %llu", (unsigned long long)metric);
	if (w->pid < 0)
		return snprintf(err, errlen, "adapter %s: worker is gone", w->a->name), -1;
	if (write_all(w->to, &metric, sizeof(metric))) {
		describe_death(w, at, err, errlen);
		return -1;
	}
	if (await(w, &r, at, err, errlen))
		return -1;
	if (r.status)
		return snprintf(err, errlen, "adapter %s: %s", w->a->name, r.msg), -1;
	*seconds = r.seconds;
	return 0;
}

int sibyl_worker_measure_cb(void *ctx, uint64_t metric, double *seconds, char *err,
			    size_t errlen)
{
	return sibyl_worker_measure(ctx, metric, seconds, err, errlen);
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
