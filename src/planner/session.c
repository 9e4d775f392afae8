/* One planning session: adapter, plan or stored profile, save, evaluate. */
#include "planner/session.h"
#include "planner/adapters/builtin.h"
#include "planner/guided.h"
#include "planner/replay.h"
#include "planner/provenance.h"
#include "core/alloc.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/output.h"
#include "core/progress.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct plan_progress {
	const struct sibyl_plan_request *rq;
	struct sibyl_progress line;
};

/* The share of the range the profile covers is the progress; its ETA
 * is rough (later segments are longer), but says minutes or hours. */
static void plan_progress(void *ctx, size_t samples, double end)
{
	struct plan_progress *pp = ctx;
	const struct sibyl_plan_params *p = &pp->rq->params;
	double done = end < (double)p->lo ? 0 : (end - (double)p->lo) / (double)(p->hi - p->lo);

	sibyl_progress_update(&pp->line, done, 1, "%zu samples, share of the range covered",
			      samples);
}

static void guided_progress(void *ctx, size_t done, size_t planned)
{
	struct plan_progress *pp = ctx;

	sibyl_progress_update(&pp->line, (double)done, (double)planned,
			      "%zu of %zu samples at the program's work metrics", done, planned);
}

/* Why samples scattered, when it may be the machine: how often the
 * worker was pre-empted and how much CPU time other guests took. */
static void say_preemption(struct sibyl_plan_result *r, const struct sibyl_worker *w)
{
	struct sibyl_worker_stats st;
	size_t len = strlen(r->message);

	sibyl_worker_stats(w, &st);
	double steal = st.cpu_ticks ? 100.0 * (double)st.steal_ticks / (double)st.cpu_ticks : 0;

	if (st.preempted || steal >= 1)
		snprintf(r->message + len, sizeof(r->message) - len, "; meanwhile the worker was "
			 "pre-empted %lu times (involuntary context switches) and other guests took "
			 "%.0f%% of the CPUs (steal)", st.preempted, steal);
	else
		snprintf(r->message + len, sizeof(r->message) - len, "; the worker was never "
			 "pre-empted: the implementation itself varies");
}

int sibyl_plan_adapter(const struct sibyl_plan_request *rq, struct sibyl_plan_result *r,
		       struct sibyl_worker **keep)
{
	struct sibyl_worker *w;

	memset(r, 0, sizeof(*r));
	if (keep)
		*keep = NULL;
	r->status = SIBYL_PLAN_FAILED;
	if (sibyl_plan_request_check(rq, r->message, sizeof(r->message)))
		return -1;
	w = sibyl_worker_start(rq->adapter, rq->source, &rq->config, &rq->sampling,
			       r->message, sizeof(r->message));
	if (!w)
		return -1;
	struct plan_progress pp = { .rq = rq };
	char what[256];

	snprintf(what, sizeof(what), "plan %s", rq->adapter->name);
	sibyl_progress_start(&pp.line, stderr, what, NULL);
	sibyl_guided_progress_fn gp = rq->progress ? guided_progress : NULL;
	int rc = rq->replay ? sibyl_plan_replay(&rq->params, rq->mix, sibyl_worker_measure_seq_cb,
						w, gp, &pp, r)
		 : rq->mix ? sibyl_plan_guided(&rq->params, rq->mix, sibyl_worker_measure_cb, w,
					       gp, &pp, r)
			 : sibyl_plan_run(&rq->params, sibyl_worker_measure_cb, w,
					  rq->progress ? plan_progress : NULL, &pp, r);

	sibyl_progress_done(&pp.line);
	if (r->status == SIBYL_PLAN_LIMIT ||
	    (r->status == SIBYL_PLAN_DIAGNOSED && r->verdict == SIBYL_STOP_SCATTER))
		say_preemption(r, w);
	if (r->profile && r->status != SIBYL_PLAN_FAILED)
		sibyl_worker_once_costs(w, rq->source, &rq->config, &rq->sampling, rq->mix,
					r->profile);
	if (r->profile)
		sibyl_plan_record(rq, r, w);
	if (keep && r->status != SIBYL_PLAN_FAILED && r->profile && r->profile->npoints)
		*keep = w;
	else
		sibyl_worker_stop(w);
	return rc;
}

int sibyl_plan_session_open(struct sibyl_plan_session *s, const char *builtin,
			    const char *so_spec, const struct sibyl_plan_settings *set,
			    char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	const struct sibyl_adapter *a = sibyl_adapters_resolve(&s->adapters, builtin, so_spec,
							       err, errlen);

	if (!a)
		return -1;
	sibyl_plan_request_init(&s->rq, a, s->adapters.source);
	return set ? sibyl_plan_request_apply(&s->rq, set, err, errlen) : 0;
}

/* What the job makes: a profile to write, or figures of a stored one. */
static const char *output_rule(const struct sibyl_plan_job *job)
{
	bool trace_check = job->profile && job->from_trace;

	if (job->profile && ((job->evaluate <= 0 && !trace_check) || job->output))
		return "--profile evaluates a stored profile: it needs --evaluate N (or "
		       "--from-trace) and takes no -o";
	if (!job->output && job->evaluate <= 0)
		return "-o PROFILE.json is required (or --evaluate N)";
	return NULL;
}

/* The options that only mean something with others. */
static const char *options_rule(const struct sibyl_plan_job *job)
{
	const char *why = NULL;

	if (job->evaluate_metrics && job->evaluate <= 0)
		why = "--evaluate-metrics needs --evaluate N";
	else if (job->evaluate_csv && job->evaluate <= 0)
		why = "--evaluate-csv needs --evaluate N";
	else if (!job->from_trace != !job->function)
		why = "--from-trace TRACE and --function NAME go together";
	else if (job->from_trace && job->metrics)
		why = "--from-trace and --metrics are two ways to say where the program calls: "
		      "give one";
	else if (job->metrics && job->profile)
		why = "--profile with --metrics: a stored profile is checked against a trace's "
		      "calls (--from-trace), or measured (--evaluate N)";
	else if (job->replay && (!job->from_trace || job->profile))
		why = "--replay plans by running a trace's calls in their order: it needs "
		      "--from-trace TRACE --function NAME, and no --profile";
	else if ((job->from_trace || job->metrics) && !job->profile && job->evaluate > 0)
		why = "a plan guided by --from-trace or --metrics is checked against the calls "
		      "themselves (printed after planning), not with --evaluate or --profile";
	return why;
}

int sibyl_plan_job_check(const struct sibyl_plan_job *job, char *err, size_t errlen)
{
	const char *why = output_rule(job);

	if (!why && (job->evaluate < 0 || job->evaluate > SIBYL_EVAL_MAX_POINTS))
		return sibyl_seterr(err, errlen, "--evaluate: %ld is not between 1 and %d",
				    job->evaluate, SIBYL_EVAL_MAX_POINTS);
	if (!why)
		why = options_rule(job);
	return why ? sibyl_seterr(err, errlen, "%s", why) : 0;
}

/* Plan, keeping the worker for the evaluation. */
static int plan(struct sibyl_plan_session *s, char *err, size_t errlen)
{
	struct sibyl_plan_result *r = &s->result;

	if (sibyl_plan_adapter(&s->rq, r, s->job.evaluate > 0 ? &s->worker : NULL) == 0)
		return 0;
	/* Worker messages already start with "adapter NAME". */
	bool named = !strncmp(r->message, "adapter ", 8);

	sibyl_seterr(err, errlen, "%s%s%s%s", named ? "" : s->rq.adapter->name, named ? "" : ": ",
		     r->message, !r->profile || !s->job.output ? "" : r->profile->npoints ?
		     "; the partial profile is kept" : "; no segment yet, the samples are kept");
	return -1;
}

/* A stored profile as the result of planning: the figures are those its
 * planning recorded (older profiles lack some), and the range is the
 * profile's unless the request narrows it. */
static int adopt_stored(struct sibyl_plan_session *s, struct sibyl_profile *p, char *err,
			size_t errlen)
{
	struct sibyl_plan_result *r = &s->result;
	struct sibyl_plan_params *params = &s->rq.params;
	json_t *samples = json_object_get(p->stats, "samples");
	json_t *skipped = json_object_get(p->stats, "skipped_unguarded");

	r->profile = p;
	r->samples = samples ? (size_t)json_integer_value(samples) : p->nsamples;
	r->skipped = json_is_integer(skipped) && json_integer_value(skipped) > 0 ?
		     (size_t)json_integer_value(skipped) : 0;
	r->seconds = json_number_value(json_object_get(p->stats, "seconds"));
	if (!s->job.range_given) {
		params->lo = (uint64_t)p->lo;
		params->hi = (uint64_t)p->hi;
	} else if ((double)params->lo < p->lo || (double)params->hi > p->hi) {
		return sibyl_seterr(err, errlen, "--range %llu:%llu is not within the profile's %g:%g",
				    (unsigned long long)params->lo, (unsigned long long)params->hi,
				    p->lo, p->hi);
	}
	if (sibyl_plan_check(params, err, errlen))
		return -1;
	if (!r->samples)
		return sibyl_seterr(err, errlen, "%s: no samples recorded for the baselines",
				    s->job.profile);
	return 0;
}

/* The stored profile, checked against the adapter as it runs now. */
static int load_profile(struct sibyl_plan_session *s, char *err, size_t errlen)
{
	const struct sibyl_adapter *a = s->rq.adapter;
	const char *path = s->job.profile, *unfit;
	struct sibyl_profile_want want = { a->name, a->work_metric, s->rq.config.threads,
					   s->rq.config.platform, s->rq.config.device,
					   a->min_metric, a->max_metric };
	struct sibyl_profile *p = sibyl_profile_load(path, err, errlen);
	char why[512];

	if (!p)
		return -1;
	if ((unfit = sibyl_profile_unfit(p, &want, why, sizeof(why)))) {
		sibyl_seterr(err, errlen, "%s: %s", path, unfit);
		sibyl_profile_free(p);
		return -1;
	}
	return adopt_stored(s, p, err, errlen);
}

/* The stored profile to evaluate and a worker to measure with.  An
 * incomplete one is evaluated all the same, as a plan that stopped early
 * is, but that is a failure. */
static int load_stored(struct sibyl_plan_session *s, char *err, size_t errlen)
{
	if (load_profile(s, err, errlen))
		return -1;
	s->worker = sibyl_worker_start(s->rq.adapter, s->rq.source, &s->rq.config,
				       &s->rq.sampling, err, errlen);
	if (!s->worker)
		return -1;
	if (!s->result.profile->complete)
		return sibyl_seterr(err, errlen, "%s: an incomplete profile (its planning stopped "
				    "early); its covered part is scored apart from the rest",
				    s->job.profile);
	return 0;
}

/* The profile against the program's traced calls (trace_check.h). */
static int check_trace(struct sibyl_plan_session *s, char *err, size_t errlen)
{
	if (sibyl_trace_check(s->result.profile, s->job.from_trace, s->job.function, &s->check,
			      err, errlen))
		return -1;
	s->checked = true;
	return 0;
}

/*
 * The evaluation's measurements go through the worker, counted for a
 * progress line: the uniform baseline's samples, then two passes over the
 * points, the history baseline's samples, and any measurement taken
 * again (evaluate.h).  The share done and the ETA weigh each measurement
 * by what the profile predicts it costs, not by one: the uniform
 * baseline comes first and in ascending order, and counted alone its
 * cheap first half promised an ETA several times too short.
 */
struct eval_progress {
	struct sibyl_worker *w;
	const struct sibyl_profile *profile;
	const struct sibyl_sampling *sampling;
	bool show;
	struct sibyl_progress line;
	size_t done, total;
	double cost_done, cost_total;  /* seconds, as predicted */
};

/* A sample is its runs (at least repeat, at least min_seconds a round)
 * and, whatever they cost, some rounds' fixed work. */
static double predicted_cost(const struct eval_progress *ep, double metric)
{
	const struct sibyl_sampling *sp = ep->sampling;
	double t = fmax(0, sibyl_profile_eval(ep->profile, metric));

	return fmax(t * sp->repeat, sp->min_seconds * sp->rounds) + 1e-3 * sp->rounds;
}

static void count_measurement(struct eval_progress *ep, double metric)
{
	size_t total = ++ep->done > ep->total ? ep->done : ep->total;

	ep->cost_done += predicted_cost(ep, metric);
	if (ep->show)
		sibyl_progress_update(&ep->line, fmin(ep->cost_done, ep->cost_total), ep->cost_total,
				      "%zu of %zu measurements", ep->done, total);
}

/* What the whole evaluation should cost: the uniform metrics', and as
 * much again per metric for the points and the history, drawn
 * uniformly over the same range. */
static void plan_cost(struct eval_progress *ep, const uint64_t *uniform, size_t nu, size_t n,
		      size_t budget)
{
	double u = 0;

	for (size_t i = 0; i < nu; i++)
		u += predicted_cost(ep, (double)uniform[i]);
	ep->total = nu + 2 * n + budget;
	ep->cost_total = nu ? u * (double)ep->total / (double)nu : 1;
}

static int measure_counted(void *ctx, uint64_t metric, double *seconds, char *err,
			   size_t errlen)
{
	struct eval_progress *ep = ctx;
	int rc = sibyl_worker_measure(ep->w, metric, seconds, err, errlen);

	count_measurement(ep, (double)metric);
	return rc;
}

static int measure_params_counted(void *ctx, const double *params, size_t nparams,
				  uint64_t metric, double *seconds, char *err, size_t errlen)
{
	struct eval_progress *ep = ctx;
	int rc = sibyl_worker_measure_params(ep->w, params, nparams, metric, seconds, err,
					     errlen);

	count_measurement(ep, (double)metric);
	return rc;
}

/* The evaluation points as CSV, written whole or not at all. */
static int save_eval_csv(const struct sibyl_eval *e, const char *path, char *err,
			 size_t errlen)
{
	char *csv;
	size_t len;
	FILE *f = sibyl_xmemstream(&csv, &len);
	int rc = sibyl_eval_write_csv(e, f) ? -1 : 0;

	if (fclose(f))
		rc = -1;
	if (rc == 0 && sibyl_output_write(path, csv, len, 0666))
		rc = -1;
	if (rc)
		sibyl_seterr(err, errlen, "%s: %s", path, strerror(errno));
	free(csv);
	return rc;
}

/* The baselines' samples: as many as the profile took, or, over a
 * --range narrower than a stored profile's, as many as it took there. */
static size_t budget_share(const struct sibyl_plan_session *s)
{
	const struct sibyl_profile *p = s->result.profile;
	const struct sibyl_plan_params *q = &s->rq.params;
	size_t within = 0;

	if (!s->job.profile || !s->job.range_given || !p->nsamples)
		return s->result.samples;
	for (size_t i = 0; i < p->nsamples; i++)
		within += p->samples[i].x >= (double)q->lo && p->samples[i].x <= (double)q->hi;
	/* stats.samples may count more than the samples kept in the file. */
	double share = (double)within / (double)p->nsamples;
	size_t budget = (size_t)llround(share * (double)s->result.samples);

	return budget ? budget : 1;
}

static int evaluate(struct sibyl_plan_session *s, char *err, size_t errlen)
{
	const struct sibyl_plan_params *p = &s->rq.params;
	const struct sibyl_param_hooks *hooks = sibyl_builtin_param_hooks(s->rq.adapter);
	struct sibyl_param_eval by_params = { .draw = hooks ? hooks->draw : NULL,
					      .metric_of = s->rq.adapter->metric_of,
					      .measure = measure_params_counted };
	size_t n = (size_t)s->job.evaluate, budget = budget_share(s), nu;
	struct eval_progress ep = { .w = s->worker, .profile = s->result.profile,
				    .sampling = &s->rq.sampling, .show = s->rq.progress };
	uint64_t *uniform = sibyl_uniform_metrics(p->lo, p->hi, budget, &nu);
	char what[256];

	plan_cost(&ep, uniform, nu, n, budget);
	free(uniform);
	snprintf(what, sizeof(what), "evaluate %s", s->rq.adapter->name);
	/* No rate: the share done is in predicted seconds, not a count. */
	sibyl_progress_start(&ep.line, stderr, what, NULL);
	int rc = sibyl_plan_evaluate(s->result.profile, p, n, budget, measure_counted, &ep,
				     hooks && !s->job.evaluate_metrics ? &by_params : NULL,
				     &s->eval, err, errlen);

	sibyl_progress_done(&ep.line);
	if (rc)
		return -1;
	s->evaluated = true;
	if (s->job.evaluate_csv)
		return save_eval_csv(&s->eval, s->job.evaluate_csv, err, errlen);
	return 0;
}

/* A replay times each call once, as the program made it: repeats, rounds
 * and the speed guard's references between calls would change the state
 * the next call meets, so options asking for them are refused. */
static int replay_sampling(struct sibyl_plan_request *rq, char *err, size_t errlen)
{
	struct sibyl_sampling d, *sp = &rq->sampling;

	sibyl_sampling_defaults(&d);
	if ((sp->repeat != d.repeat && sp->repeat != 1) ||
	    (sp->rounds != d.rounds && sp->rounds != 1) ||
	    (sp->min_seconds != d.min_seconds && sp->min_seconds != 0) ||
	    (sp->guard_wait != d.guard_wait && sp->guard_wait != 0))
		return sibyl_seterr(err, errlen, "--replay times each traced call once, in its "
				    "order: it takes no --repeat, --rounds, --sample-time or "
				    "--speed-guard");
	sp->repeat = sp->rounds = 1;
	sp->min_seconds = sp->guard_wait = 0;
	rq->replay = true;
	return 0;
}

/* Where the program calls, within the range planned: the adapter's, or
 * --range, which leaves the calls outside it out. */
static int load_mix(struct sibyl_plan_session *s, char *err, size_t errlen)
{
	const struct sibyl_plan_job *job = &s->job;
	struct sibyl_call_mix *mix = &s->mix;
	struct sibyl_plan_params *p = &s->rq.params;
	const char *from = job->from_trace ? job->from_trace : job->metrics;

	if (job->from_trace ? sibyl_call_mix_trace(job->from_trace, job->function,
						   s->rq.adapter->work_metric, mix, err, errlen)
			    : sibyl_call_mix_list(job->metrics, mix, err, errlen))
		return -1;
	uint64_t first = mix->v[0].metric, last = mix->v[mix->n - 1].metric;

	if (!job->range_given && (first < p->lo || last > p->hi))
		return sibyl_seterr(err, errlen, "%s: work metrics %llu to %llu, and %s's range is "
				    "%llu:%llu (--range LO:HI plans only the calls within it)", from,
				    (unsigned long long)first, (unsigned long long)last,
				    s->rq.adapter->name, (unsigned long long)p->lo,
				    (unsigned long long)p->hi);
	sibyl_call_mix_clip(mix, p->lo, p->hi);
	if (!mix->n)
		return sibyl_seterr(err, errlen, "%s: no work metric within --range %llu:%llu", from,
				    (unsigned long long)p->lo, (unsigned long long)p->hi);
	s->rq.mix = mix;
	/* A replay meets first calls in order; a list of metrics has no
	 * program whose first calls they would be. */
	s->rq.sampling.first_calls = job->from_trace && !job->replay;
	if (s->rq.max_samples_default)
		p->max_samples = SIBYL_GUIDED_BUDGET;
	return job->replay ? replay_sampling(&s->rq, err, errlen) : 0;
}

/* Name the program's calls the coverage is of. */
static void name_coverage(struct sibyl_plan_session *s)
{
	json_t *c = s->result.profile ? s->result.profile->coverage : NULL;

	if (!c)
		return;
	json_object_set_new(c, "source", json_string(s->job.from_trace ? s->job.from_trace :
						    s->job.metrics));
	if (s->job.function)
		json_object_set_new(c, "function", json_string(s->job.function));
}

static int failed(sibyl_plan_fail_fn fail, void *ctx, const char *why)
{
	fail(ctx, why);
	return 1;
}

/* Outputs are checked before planning, which may take an hour. */
static int check_outputs(const struct sibyl_plan_job *job, char *err, size_t errlen)
{
	const char *outputs[] = { job->output, job->evaluate_csv };

	for (size_t i = 0; i < sizeof(outputs) / sizeof(*outputs); i++)
		if (outputs[i] && sibyl_refuse_overwrite(outputs[i], job->force, err, errlen))
			return -1;
	return 0;
}

/* Everything checked, and the work metrics to plan at read, before any
 * sample is taken. */
static int prepare(struct sibyl_plan_session *s, const struct sibyl_plan_job *job, char *err,
		   size_t errlen)
{
	if (sibyl_plan_job_check(job, err, errlen) ||
	    sibyl_plan_request_check(&s->rq, err, errlen) || check_outputs(job, err, errlen))
		return -1;
	if (job->metrics || (job->from_trace && !job->profile))
		return load_mix(s, err, errlen);
	return 0;
}

/* The profile: a stored one (to check against a trace, or to evaluate),
 * or a new plan. */
static int obtain(struct sibyl_plan_session *s, const struct sibyl_plan_job *job, char *err,
		  size_t errlen)
{
	if (job->profile && job->from_trace)
		return load_profile(s, err, errlen);
	if (job->profile)
		return load_stored(s, err, errlen);
	return plan(s, err, errlen);
}

int sibyl_plan_session_run(struct sibyl_plan_session *s, const struct sibyl_plan_job *job,
			   sibyl_plan_fail_fn fail, void *ctx)
{
	char err[1024], why[1200];
	int status = 0;

	s->job = *job;
	if (prepare(s, job, err, sizeof(err)))
		return failed(fail, ctx, err);
	if (obtain(s, job, err, sizeof(err)))
		status = failed(fail, ctx, err);
	name_coverage(s);
	if (job->from_trace && s->result.profile && s->result.profile->npoints &&
	    check_trace(s, err, sizeof(err)))
		status = failed(fail, ctx, err);
	if (s->result.profile && job->output &&
	    sibyl_profile_save(s->result.profile, job->output, job->force, err, sizeof(err)))
		status = failed(fail, ctx, err);
	/* A partial profile (a safety stop) is still evaluated, over the
	 * whole range: the figures then show what stopping early costs. */
	if (s->worker && s->result.profile && job->evaluate > 0 &&
	    evaluate(s, err, sizeof(err))) {
		snprintf(why, sizeof(why), "%s%s", s->evaluated ? "" : "evaluate: ", err);
		status = failed(fail, ctx, why);
	}
	return status;
}

static void on_stop_signal(int sig)
{
	sibyl_worker_interrupt(sig);
	signal(sig, SIG_DFL);
}

void sibyl_plan_stop_on_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++) {
		struct sigaction old;

		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	}
}

bool sibyl_plan_session_has_result(const struct sibyl_plan_session *s)
{
	/* Planned without an evaluation, or evaluated: a plan that stopped
	 * before its first segment has nothing to evaluate and said so. */
	return s->result.profile && (s->evaluated || s->checked ||
				     (!s->worker && !s->job.profile));
}

void sibyl_plan_session_close(struct sibyl_plan_session *s)
{
	sibyl_worker_stop(s->worker);
	sibyl_eval_free(&s->eval);
	sibyl_plan_result_free(&s->result);
	sibyl_call_mix_free(&s->mix);
	sibyl_adapters_close(&s->adapters);
	memset(s, 0, sizeof(*s));
}
