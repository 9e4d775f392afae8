/* The planner <-> worker messages (worker_protocol.h) as JSON. */
#define _GNU_SOURCE
#include "planner/worker_protocol.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* JSON has no NaN or infinity: a failed run's time is not sent. */
static double finite_or_zero(double x)
{
	return isfinite(x) ? x : 0;
}

json_t *sibyl_worker_setup_json(const struct sibyl_worker_setup *s)
{
	const struct sibyl_adapter_config *c = &s->config;
	const struct sibyl_sampling *sp = &s->sampling;

	return json_pack("{ss ss s{sI sI ss? ss?} s{sI sf sf sf sI sf sb}}", "source", s->source,
			 "adapter", s->adapter, "config", "threads", (json_int_t)c->threads,
			 "seed", (json_int_t)c->seed, "platform", c->platform, "device", c->device,
			 "sampling", "repeat", (json_int_t)sp->repeat, "min_seconds",
			 sp->min_seconds, "timeout", sp->timeout, "guard_wait", sp->guard_wait,
			 "rounds", (json_int_t)sp->rounds, "guard_tolerance", sp->guard_tolerance,
			 "first_calls", sp->first_calls);
}

int sibyl_worker_setup_parse(json_t *j, struct sibyl_worker_setup *s)
{
	json_int_t threads, seed, repeat, rounds;
	int first_calls = 0;
	struct sibyl_sampling *sp = &s->sampling;
	json_t *platform, *device;

	memset(s, 0, sizeof(*s));
	if (json_unpack(j, "{ss ss s{sI sI so so} s{sI sF sF sF sI sF s?b}}", "source", &s->source,
			"adapter", &s->adapter, "config", "threads", &threads, "seed", &seed,
			"platform", &platform, "device", &device,
			"sampling", "repeat", &repeat, "min_seconds", &sp->min_seconds,
			"timeout", &sp->timeout, "guard_wait", &sp->guard_wait, "rounds", &rounds,
			"guard_tolerance", &sp->guard_tolerance, "first_calls", &first_calls) ||
	    threads < 1 || repeat < 1 || rounds < 1)
		return -1;
	s->config.platform = json_string_value(platform);	/* null: NULL */
	s->config.device = json_string_value(device);
	s->config.threads = (unsigned)threads;
	s->config.seed = (uint64_t)seed;
	sp->repeat = (unsigned)repeat;
	sp->rounds = (unsigned)rounds;
	sp->first_calls = first_calls != 0;
	return 0;
}

json_t *sibyl_sample_request_json(const struct sibyl_sample_request *rq)
{
	json_t *j = json_pack("{sI}", "metric", (json_int_t)rq->metric), *params = json_array();

	for (uint32_t i = 0; i < rq->nparams; i++)
		json_array_append_new(params, json_real(finite_or_zero(rq->params[i])));
	json_object_set_new(j, "params", params);
	return j;
}

int sibyl_sample_request_parse(json_t *j, struct sibyl_sample_request *rq)
{
	json_int_t metric;
	json_t *params, *p;
	size_t i;

	memset(rq, 0, sizeof(*rq));
	if (json_unpack(j, "{sIso}", "metric", &metric, "params", &params) ||
	    !json_is_array(params) || json_array_size(params) > SIBYL_MAX_PARAMS)
		return -1;
	rq->metric = (uint64_t)metric;
	json_array_foreach(params, i, p) {
		if (!json_is_number(p))
			return -1;
		rq->params[rq->nparams++] = json_number_value(p);
	}
	return 0;
}

json_t *sibyl_sample_reply_json(const struct sibyl_sample_reply *r)
{
	return json_pack("{sisIsIsIsfsfsIsfsfsfsssIsIsIsIsfsfsI}", "status", (int)r->status,
			 "dropped", (json_int_t)r->dropped,
			 "dropped_inside", (json_int_t)r->dropped_inside,
			 "unguarded", (json_int_t)r->unguarded,
			 "seconds", finite_or_zero(r->seconds),
			 "reference_best", finite_or_zero(r->reference_best),
			 "best_raised", (json_int_t)r->best_raised,
			 "init_seconds", finite_or_zero(r->init_seconds),
			 "first_run_seconds", finite_or_zero(r->first_run_seconds),
			 "typical_seconds", finite_or_zero(r->typical_seconds), "msg", r->msg,
			 "preempted", (json_int_t)r->preempted, "steal_ticks",
			 (json_int_t)r->steal_ticks, "cpu_ticks", (json_int_t)r->cpu_ticks,
			 "first_run_faults", (json_int_t)r->first_run_faults,
			 "guard_seconds", finite_or_zero(r->guard_seconds),
			 "guard_vain_seconds", finite_or_zero(r->guard_vain_seconds),
			 "dropped_starved", (json_int_t)r->dropped_starved);
}

int sibyl_sample_reply_parse(json_t *j, struct sibyl_sample_reply *r)
{
	json_int_t dropped, inside, unguarded, raised, preempted = 0, steal = 0, cpu = 0, faults = 0,
		   starved = 0;
	const char *msg;
	int status;

	memset(r, 0, sizeof(*r));
	if (json_unpack(j, "{sisIsIsIsFsFsIsFsFsFsss?Is?Is?Is?Is?Fs?Fs?I}", "status", &status, "dropped", &dropped,
			"dropped_inside", &inside, "unguarded", &unguarded, "seconds", &r->seconds,
			"reference_best", &r->reference_best, "best_raised", &raised,
			"init_seconds", &r->init_seconds, "first_run_seconds",
			&r->first_run_seconds, "typical_seconds", &r->typical_seconds, "msg", &msg,
			"preempted", &preempted, "steal_ticks", &steal, "cpu_ticks", &cpu,
			"first_run_faults", &faults, "guard_seconds", &r->guard_seconds,
			"guard_vain_seconds", &r->guard_vain_seconds,
			"dropped_starved", &starved))
		return -1;
	r->dropped_starved = (uint32_t)starved;
	r->first_run_faults = (uint64_t)faults;
	r->preempted = (uint64_t)preempted;
	r->steal_ticks = (uint64_t)steal;
	r->cpu_ticks = (uint64_t)cpu;
	r->status = status;
	r->dropped = (uint32_t)dropped;
	r->dropped_inside = (uint32_t)inside;
	r->unguarded = (uint32_t)unguarded;
	r->best_raised = (uint32_t)raised;
	snprintf(r->msg, sizeof(r->msg), "%s", msg);
	return 0;
}

json_t *sibyl_sequence_request_json(const uint64_t *metrics, size_t n)
{
	json_t *seq = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(seq, json_integer((json_int_t)metrics[i]));
	return json_pack("{so}", "sequence", seq);
}

int sibyl_sequence_request_parse(json_t *j, uint64_t metrics[SIBYL_MAX_SEQUENCE], size_t *n)
{
	json_t *seq = json_object_get(j, "sequence"), *m;
	size_t i;

	if (!seq)
		return 0;
	if (!json_is_array(seq) || json_array_size(seq) > SIBYL_MAX_SEQUENCE)
		return -1;
	json_array_foreach(seq, i, m) {
		if (!json_is_integer(m) || json_integer_value(m) < 0)
			return -1;
		metrics[i] = (uint64_t)json_integer_value(m);
	}
	*n = json_array_size(seq);
	return 1;
}

json_t *sibyl_sequence_reply_json(const struct sibyl_sample_reply *r, const double *times,
				  size_t n, const size_t *lost, size_t nlost)
{
	json_t *j = sibyl_sample_reply_json(r), *t = json_array();

	for (size_t i = 0; i < n && r->status == 0; i++)
		json_array_append_new(t, json_real(finite_or_zero(times[i])));
	json_object_set_new(j, "times", t);
	if (nlost) {
		json_t *l = json_array();

		for (size_t i = 0; i < nlost; i++)
			json_array_append_new(l, json_integer((json_int_t)lost[i]));
		json_object_set_new(j, "lost_cpu", l);
	}
	return j;
}

int sibyl_sequence_times_parse(json_t *j, double *times, size_t n)
{
	json_t *t = json_object_get(j, "times"), *v;
	size_t i;

	if (!json_is_array(t) || json_array_size(t) != n)
		return -1;
	json_array_foreach(t, i, v) {
		if (!json_is_number(v))
			return -1;
		times[i] = json_number_value(v);
	}
	json_array_foreach(json_object_get(j, "lost_cpu"), i, v) {
		json_int_t k = json_integer_value(v);

		if (!json_is_integer(v) || k < 0 || (size_t)k >= n)
			return -1;
		times[k] = -fabs(times[k]);
	}
	return 0;
}

const char *sibyl_sample_where(const struct sibyl_sample_request *rq, char at[SIBYL_AT_LEN])
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

int sibyl_worker_progress_create(struct sibyl_worker_progress **page)
{
	int fd = memfd_create("sibyl-plan-progress", MFD_CLOEXEC);

	*page = NULL;
	if (fd >= 0 && (ftruncate(fd, sizeof(**page)) || !(*page = sibyl_worker_progress_map(fd)))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

struct sibyl_worker_progress *sibyl_worker_progress_map(int fd)
{
	void *p = mmap(NULL, sizeof(struct sibyl_worker_progress), PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

void sibyl_worker_progress_unmap(struct sibyl_worker_progress *p)
{
	if (p)
		munmap(p, sizeof(*p));
}
