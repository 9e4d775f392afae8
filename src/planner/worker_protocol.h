/*
 * What the planner and its worker program, sibyl-plan-worker, say to
 * each other: JSON lines (core/run.h), requests on the worker's
 * SIBYL_RUN_REQUEST_FD, replies on its SIBYL_RUN_REPORT_FD.
 *
 *   {"source", "adapter", "config": {...}, "sampling": {...}}   first:
 *       which adapter to load and how to sample; the reply is init's
 *   {"metric", "params": [...]}                                 a sample
 *   {"sequence": [...]}      a replay's work metrics (planner/replay.h),
 *       run one after another, one run each; the reply's "times" has
 *       one time per metric, or is empty when one failed (its msg says);
 *       the calls started are counted on a shared page (below)
 *
 * Each request gets one reply.  The end of requests (EOF) asks the
 * worker to run the adapter's fini and exit.
 */
#ifndef SIBYL_PLANNER_WORKER_PROTOCOL_H
#define SIBYL_PLANNER_WORKER_PROTOCOL_H

#include <sibyl/adapter.h>
#include "planner/params.h"
#include "planner/worker.h"

#include <jansson.h>
#include <stdint.h>

/* One sample: of a work metric, or (nparams > 0) of invocation
 * parameters, built by the adapter's setup_params hook; metric is then
 * theirs. */
struct sibyl_sample_request {
	uint64_t metric;
	uint32_t nparams;
	double params[SIBYL_MAX_PARAMS];
};

struct sibyl_sample_reply {
	int32_t status;            /* 0, or -1 with msg */
	uint32_t dropped;          /* runs dropped in slow phases */
	uint32_t dropped_inside;   /* of them, for references timed inside their group */
	uint32_t dropped_starved;  /* of those, for the worker losing its CPU (sampler.c) */
	uint32_t unguarded;        /* 1: the sample waited for its best speed in vain */
	double seconds;
	double reference_best;     /* the speed guard's best reference so far */
	uint32_t best_raised;      /* times the guard raised its best (so far) */
	/* The guard's spending so far: seconds spent waiting and on dropped
	 * groups, and of them by samples that gave up (in vain). */
	double guard_seconds, guard_vain_seconds;
	/* One-time costs a program swapping this implementation in pays:
	 * init (in the first reply), the fresh process's first run (in the
	 * first sample's reply; 0 in later ones). */
	double init_seconds, first_run_seconds;
	/* The page faults of that first run (getrusage minor faults around
	 * run() alone): the memory the implementation touches first at this
	 * work metric (sibyl_worker_once_costs). */
	uint64_t first_run_faults;
	/* Under the speed guard: one round timed as the runs come, when the
	 * sample was asked for (how a program meets the machine); else 0. */
	double typical_seconds;
	char msg[240];
	/* While the sample ran: involuntary context switches of the worker
	 * (another process took its CPU), and the steal and total ticks of
	 * all CPUs (/proc/stat: time the hypervisor gave to other guests). */
	uint64_t preempted, steal_ticks, cpu_ticks;
};

/* The worker's first request.  Strings are borrowed from the JSON. */
struct sibyl_worker_setup {
	const char *source;        /* "builtin" or an adapter .so */
	const char *adapter;
	struct sibyl_adapter_config config;   /* config.now is the worker's own */
	struct sibyl_sampling sampling;
};

json_t *sibyl_worker_setup_json(const struct sibyl_worker_setup *s);
int sibyl_worker_setup_parse(json_t *j, struct sibyl_worker_setup *s);
json_t *sibyl_sample_request_json(const struct sibyl_sample_request *rq);
int sibyl_sample_request_parse(json_t *j, struct sibyl_sample_request *rq);
json_t *sibyl_sample_reply_json(const struct sibyl_sample_reply *r);
int sibyl_sample_reply_parse(json_t *j, struct sibyl_sample_reply *r);

/* The most work metrics one sequence request holds. */
#define SIBYL_MAX_SEQUENCE 256

json_t *sibyl_sequence_request_json(const uint64_t *metrics, size_t n);
/* 1 and metrics[0..*n) when j is a sequence request, 0 when it is not,
 * -1 when it is malformed or longer than SIBYL_MAX_SEQUENCE. */
int sibyl_sequence_request_parse(json_t *j, uint64_t metrics[SIBYL_MAX_SEQUENCE], size_t *n);
/* The reply to one, with times[0..n) (none when r->status is not 0) and
 * lost[0..nlost), the calls that were their metric's first in the worker
 * and lost its CPU (involuntary context switches): one run's luck that
 * cannot be run again (planner/first_calls.h). */
json_t *sibyl_sequence_reply_json(const struct sibyl_sample_reply *r, const double *times,
				  size_t n, const size_t *lost, size_t nlost);
/* The times of a sequence reply: 0 when it has n of them; a lost call's
 * time is negated. */
int sibyl_sequence_times_parse(json_t *j, double *times, size_t n);

/*
 * The page the planner shares with its worker (a memfd, at the worker's
 * SIBYL_PLAN_PROGRESS_FD): how many calls of sequences the worker has
 * started in its life.  A sequence's one reply comes after its last
 * call, so the planner watches this count to give each call the time
 * limit of one run (worker.c) with no message between two calls: the
 * worker only stores a number between them.  Without the page (it could
 * not be made) the planner waits the sequence's runs' limits added up.
 */
#define SIBYL_PLAN_PROGRESS_FD 5
struct sibyl_worker_progress {
	uint64_t started;
};

/* The planner's: a new page, zero, mapped into *page; its descriptor
 * (close-on-exec) for the worker, or -1 and *page NULL. */
int sibyl_worker_progress_create(struct sibyl_worker_progress **page);
/* Map fd's page; NULL when it cannot be mapped. */
struct sibyl_worker_progress *sibyl_worker_progress_map(int fd);
void sibyl_worker_progress_unmap(struct sibyl_worker_progress *p);

/* " at work metric M", or " at parameters AxBxC (work metric M)": the
 * place a failure names. */
#define SIBYL_AT_LEN 160
const char *sibyl_sample_where(const struct sibyl_sample_request *rq, char at[SIBYL_AT_LEN]);

#endif
