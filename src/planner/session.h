/*
 * A planning session: the flow behind `sibyl plan`.  Find the adapter,
 * plan it (or load a profile planned before), save the profile, evaluate
 * it against fresh measurements and save the evaluation points, keeping
 * what each step found when a later one fails.
 */
#ifndef SIBYL_PLANNER_SESSION_H
#define SIBYL_PLANNER_SESSION_H

#include "planner/call_mix.h"
#include "planner/evaluate.h"
#include "planner/loader.h"
#include "planner/planner.h"
#include "planner/request.h"
#include "planner/trace_check.h"
#include "planner/worker.h"

#include <stdbool.h>

/* What a session does beside planning; the fields are named after the
 * options that set them (docs/plan.md). */
struct sibyl_plan_job {
	const char *output;         /* the profile to write, or NULL */
	bool force;                 /* replace an existing output */
	const char *profile;        /* evaluate this stored profile instead of planning */
	bool range_given;           /* the request's range narrows the stored profile's */
	long evaluate;              /* evaluation points; 0: no evaluation */
	bool evaluate_metrics;      /* random metrics even where parameters can be drawn */
	const char *evaluate_csv;   /* every evaluation point as CSV, or NULL */
	/* Plan where a program calls (guided.h): the calls of `function` in
	 * the trace directory from_trace, or the work metrics listed in
	 * metrics; NULL: the range. */
	const char *from_trace, *function, *metrics;
	/* With from_trace: replay the calls in traced order (replay.h). */
	bool replay;
};

struct sibyl_plan_session {
	struct sibyl_adapter_list adapters;
	struct sibyl_plan_request rq;
	struct sibyl_plan_job job;
	/* The profile planned or loaded, with the figures of its planning. */
	struct sibyl_plan_result result;
	struct sibyl_worker *worker;  /* running while there is something to evaluate */
	struct sibyl_eval eval;
	bool evaluated;
	struct sibyl_call_mix mix;    /* where the program calls, for a guided plan */
	struct sibyl_trace_check check;  /* the profile against the traced calls */
	bool checked;
};

/* Find the adapter (sibyl_adapters_resolve) and make the request for it
 * in s->rq: the defaults, or the settings when set is not NULL
 * (sibyl_plan_request_apply).  -1 with a reason; close the session
 * either way. */
int sibyl_plan_session_open(struct sibyl_plan_session *s, const char *builtin,
			    const char *so_spec, const struct sibyl_plan_settings *set,
			    char *err, size_t errlen);
/* 0, or -1 with "what: why" in err: the options a job combines. */
int sibyl_plan_job_check(const struct sibyl_plan_job *job, char *err, size_t errlen);

/* Called with each failure's one-line reason, as it happens. */
typedef void (*sibyl_plan_fail_fn)(void *ctx, const char *why);

/*
 * Check the request and the job, then plan (or load job->profile), save
 * the profile, evaluate it and save the points.  A failure is reported
 * through fail and the flow goes on with what there is: a plan that
 * stopped early still saves and evaluates its partial profile, an
 * incomplete stored profile is still evaluated.  Returns 0, or 1 after
 * any failure.
 */
int sibyl_plan_session_run(struct sibyl_plan_session *s, const struct sibyl_plan_job *job,
			   sibyl_plan_fail_fn fail, void *ctx);
/* From now on, SIGINT, SIGTERM and SIGHUP (Ctrl-C, a batch system) end
 * the sample under way and stop planning or evaluating as a crashed
 * adapter would: the profile found so far is saved and the reason is one
 * failure.  A second signal ends the process at once.  A signal ignored
 * on entry stays ignored (a shell starts background jobs with SIGINT
 * ignored, so that Ctrl-C reaches only the foreground). */
void sibyl_plan_stop_on_signals(void);
/* Whether there is a result to show: a profile planned without an
 * evaluation, or evaluated. */
bool sibyl_plan_session_has_result(const struct sibyl_plan_session *s);
void sibyl_plan_session_close(struct sibyl_plan_session *s);

/*
 * Start a worker, run the planner, name the profile and attach its
 * provenance (machine, adapter, parameters) and statistics.  Returns 0
 * when the profile spans the range; -1 otherwise, with r->message (and
 * r->profile when part of the range was covered; none for a request
 * sibyl_plan_request_check refuses).  With keep, the worker stays
 * running for evaluation when there is a profile and the worker did not
 * fail (else *keep is NULL).
 */
int sibyl_plan_adapter(const struct sibyl_plan_request *rq, struct sibyl_plan_result *r,
		       struct sibyl_worker **keep);

#endif
