/* The text and JSON that `sibyl plan` prints (docs/plan.md). */
#include "planner/report.h"
#include "planner/adapters/builtin.h"
#include "planner/envelope.h"
#include "planner/provenance.h"

#include <inttypes.h>
#include <jansson.h>

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

static void print_json(FILE *f, json_t *j)
{
	json_dumpf(j, f, JSON_INDENT(1));
	fputc('\n', f);
	json_decref(j);
}

void sibyl_plan_print_adapters(FILE *f, const struct sibyl_adapter_list *l, bool json)
{
	json_t *arr = json_array();

	if (!json)
		fprintf(f, "%-20s %-18s %-8s %s\n", "ADAPTER", "RANGE", "KIND", "DESCRIPTION");
	for (size_t i = 0; i < l->count; i++) {
		const struct sibyl_adapter *a = l->items[i];
		const char *kind = a->flags & SIBYL_ADAPTER_OPENCL ? "opencl" :
				   a->flags & SIBYL_ADAPTER_THREADED ? "threads" : "serial";
		/* An evaluation draws random invocation parameters for these. */
		bool by_params = sibyl_builtin_param_hooks(a) != NULL;
		char range[64];

		snprintf(range, sizeof(range), "%" PRIu64 ":%" PRIu64, a->min_metric, a->max_metric);
		if (json)
			json_array_append_new(arr, json_pack("{sssIsIssssssss?sb}", "name", a->name,
				"min", (json_int_t)a->min_metric, "max", (json_int_t)a->max_metric,
				"kind", kind, "description", or_empty(a->description),
				"work_metric", or_empty(a->work_metric),
				"params", a->params_doc, "evaluates_parameters", by_params));
		else
			fprintf(f, "%-20s %-18s %-8s %s (work metric: %s%s%s)\n", a->name, range, kind,
				or_empty(a->description), a->work_metric ? a->work_metric : "?",
				by_params ? "; evaluated at random " : "",
				by_params ? a->params_doc : "");
	}
	if (json)
		print_json(f, arr);
	else
		json_decref(arr);
}

static json_t *error_json(const struct sibyl_error *e)
{
	return json_pack("{sfsf}", "mean_error_pct", e->mean_pct, "rmse_pct", e->rmse_pct);
}

static void add_evaluation_json(json_t *j, const struct sibyl_eval *e)
{
	json_object_set_new(j, "evaluated", json_integer((json_int_t)e->n));
	json_object_set_new(j, "evaluated_at", json_string(e->by_params ? "parameters" :
							   "metrics"));
	json_object_set_new(j, "mean_error_pct", json_real(e->planner.mean_pct));
	json_object_set_new(j, "rmse_pct", json_real(e->planner.rmse_pct));
	json_object_set_new(j, "baselines", json_pack("{sIsos{sfsfsfsfsf}}",
		"budget", (json_int_t)e->budget, "uniform", error_json(&e->uniform),
		"power", "mean_error_pct", e->power.mean_pct, "rmse_pct", e->power.rmse_pct,
		"a", e->power_a, "b", e->power_b, "c", e->power_c));
	json_t *hist = error_json(&e->history);

	/* How much of it was history and how much its regression. */
	json_object_set_new(hist, "metrics_seen", json_integer((json_int_t)e->history_model.n));
	json_object_set_new(hist, "points_seen", json_integer((json_int_t)e->history_hits));
	json_object_set_new(json_object_get(j, "baselines"), "history", hist);
	json_object_set_new(j, "noise_floor_pct", json_real(e->noise_pct));
	/* Scored apart: points beyond the profile's, which it extrapolates. */
	json_object_set_new(j, "outside_points", json_integer((json_int_t)e->outside_n));
	if (e->outside_n)
		json_object_set_new(j, "outside", error_json(&e->outside));
	json_object_set_new(j, "evaluation_seconds", json_real(e->seconds));
	json_object_set_new(j, "remeasured", json_integer((json_int_t)e->remeasured));
	json_object_set_new(j, "unguarded_measurements", json_integer((json_int_t)e->unguarded));
}

static json_t *check_json(const struct sibyl_trace_check *c)
{
	return json_pack("{sIsfsfsfsfsfsIsIsIsIsfsIsf}", "calls", (json_int_t)c->calls,
			 "traced_s", c->traced_s, "predicted_s", c->predicted_s,
			 "total_error_pct", c->total_error_pct,
			 "median_error_pct", c->median_error_pct,
			 "mean_error_pct", c->mean_error_pct,
			 "between_sampled", (json_int_t)c->between,
			 "below_points", (json_int_t)c->below, "above_points", (json_int_t)c->above,
			 "first_calls", (json_int_t)c->first_calls, "first_call_s", c->first_call_s,
			 "first_at_calls", (json_int_t)c->first_at_calls, "first_at_s", c->first_at_s);
}

static void result_json(FILE *f, const struct sibyl_plan_session *s, json_t *guard)
{
	const struct sibyl_plan_request *rq = &s->rq;
	const struct sibyl_plan_result *r = &s->result;
	json_t *j = json_pack("{sssisisisIsIsIsIsfsb}", "adapter", rq->adapter->name,
			      "threads", (int)rq->config.threads, "repeat", (int)rq->sampling.repeat,
			      "rounds", (int)rq->sampling.rounds, "samples", (json_int_t)r->samples,
			      "skipped_unguarded", (json_int_t)r->skipped,
			      "points", (json_int_t)r->profile->npoints,
			      "segments", (json_int_t)r->profile->nsegments, "seconds", r->seconds,
			      "complete", r->profile->complete);

	if (s->job.output)
		json_object_set_new(j, "output", json_string(s->job.output));
	if (guard)
		json_object_set_new(j, "speed_guard", guard);
	if (s->evaluated)
		add_evaluation_json(j, &s->eval);
	if (r->profile->coverage)
		json_object_set(j, "coverage", r->profile->coverage);
	if (s->checked)
		json_object_set_new(j, "trace_check", check_json(&s->check));
	print_json(f, j);
}

static void evaluation_text(FILE *f, const struct sibyl_eval *e)
{
	fprintf(f, "%-34s %12s %10s\n", "evaluated at", "mean error", "RMSE");
	fprintf(f, "%-34s %11.2f%% %9.2f%%\n", "planner profile", e->planner.mean_pct,
		e->planner.rmse_pct);
	fprintf(f, "%-34s %11.2f%% %9.2f%%\n", "uniform samples + interpolation",
		e->uniform.mean_pct, e->uniform.rmse_pct);
	fprintf(f, "%-34s %11.2f%% %9.2f%%\n", "a*n^b+c fit (StarPU-style)", e->power.mean_pct,
		e->power.rmse_pct);
	fprintf(f, "%-34s %11.2f%% %9.2f%%   (%zu of the points seen before)\n",
		"per-size history (StarPU-style)", e->history.mean_pct, e->history.rmse_pct,
		e->history_hits);
	fprintf(f, "%-34s %11.2f%%\n", "noise floor (measured twice)", e->noise_pct);
	if (e->outside_n)
		fprintf(f, "%-34s %11.2f%% %9.2f%%   (%zu of %zu points, scored apart)\n",
			"beyond the profile: extrapolated", e->outside.mean_pct, e->outside.rmse_pct,
			e->outside_n, e->n);
	if (e->remeasured)
		fprintf(f, "(%zu unguarded measurements taken again, %zu still unguarded)\n",
			e->remeasured, e->unguarded);
	fprintf(f, "(%zu random %s; baselines had %zu samples each)\n", e->n,
		e->by_params ? "invocation parameters, predicted at their work metric" :
		"work metrics", e->budget);
}

static double cover_figure(json_t *c, const char *key)
{
	return json_number_value(json_object_get(c, key));
}

/* What a guided plan sampled of the program's calls. */
static void coverage_text(FILE *f, json_t *c)
{
	json_t *loo = json_object_get(c, "interpolation_error_pct");
	long long left_out = (long long)cover_figure(c, "left_out_calls");

	fprintf(f, "sampled %lld of the %lld work metrics of %lld calls: %.1f%% of their "
		"time, %.1f%% of the calls",
		(long long)cover_figure(c, "sampled_metrics"),
		(long long)cover_figure(c, "distinct_metrics"), (long long)cover_figure(c, "calls"),
		100 * cover_figure(c, "sampled_share"), 100 * cover_figure(c, "sampled_calls_share"));
	if (cover_figure(c, "interpolated_share") > 0 && json_is_number(loo))
		fprintf(f, "; the rest interpolated (a sampled metric lies %.1f%% from the line "
			"through its neighbours, median)", json_number_value(loo));
	if (left_out)
		fprintf(f, "; %lld calls outside --range left out", left_out);
	fputc('\n', f);
}

static void check_text(FILE *f, const struct sibyl_plan_session *s)
{
	const struct sibyl_trace_check *c = &s->check;

	/* An error when the adapter runs the traced implementation; when it
	 * runs another (an accelerator planned where the original calls),
	 * the change swapping it in makes. */
	fprintf(f, "against the %zu traced calls of %s: predicted %.6g s, traced %.6g s "
		"(%+.2f%%); per call %.2f%% median, %.2f%% mean difference\n", c->calls,
		s->job.function, c->predicted_s, c->traced_s, c->total_error_pct,
		c->median_error_pct, c->mean_error_pct);
	if (c->first_call_s > 0)
		fprintf(f, "each process's first call predicted with the profile's first-call "
			"cost added: %.3g ms, %zu call%s\n", 1e3 * c->first_call_s, c->first_calls,
			c->first_calls == 1 ? "" : "s");
	if (c->first_at_calls)
		fprintf(f, "each process's first call at a work metric predicted with the "
			"profile's first call there (stats.one_time.first_calls): %zu call%s, "
			"%+.3g ms\n", c->first_at_calls, c->first_at_calls == 1 ? "" : "s",
			1e3 * c->first_at_s);
	if (c->between || c->below || c->above)
		fprintf(f, "not measured: %zu calls interpolated between sampled work metrics, "
			"%zu extrapolated below the profile's points, %zu above\n", c->between,
			c->below, c->above);
}

static long long guard_figure(json_t *guard, const char *key)
{
	return (long long)json_integer_value(json_object_get(guard, key));
}

/* A stored profile's figures are those of its planning, not of now. */
static void result_text(FILE *f, const struct sibyl_plan_session *s, json_t *guard)
{
	const struct sibyl_plan_result *r = &s->result;
	const struct sibyl_plan_job *job = &s->job;
	char skipped[64] = "";

	if (r->skipped)
		snprintf(skipped, sizeof(skipped), " (and %zu unguarded, left out)", r->skipped);
	fprintf(f, "%s%s%s: %zu samples%s, %zu profile points, %zu segments, %.2f s planner "
		"time%s%s\n", s->rq.adapter->name, job->profile ? ", planned in " : "",
		or_empty(job->profile), r->samples, skipped, r->profile->npoints,
		r->profile->nsegments, r->seconds, job->output ? " -> " : "",
		or_empty(job->output));
	if (guard) {
		/* Profiles planned before the guard counted these lack them. */
		char starved[64] = "", spent[64] = "";

		if (json_object_get(guard, "dropped_starved_runs"))
			snprintf(starved, sizeof(starved), ", %lld as the worker lost its CPU",
				 guard_figure(guard, "dropped_starved_runs"));
		if (json_object_get(guard, "guard_seconds"))
			snprintf(spent, sizeof(spent), "; %.0f s spent, %.0f s in vain",
				 json_number_value(json_object_get(guard, "guard_seconds")),
				 json_number_value(json_object_get(guard, "guard_vain_seconds")));
		fprintf(f, "speed guard: %lld runs dropped in slow phases (%lld seen inside their "
			"group%s), %lld of %lld samples waited in vain%s; worker pre-empted %lld "
			"times, steal %.1f%%\n",
			guard_figure(guard, "dropped_runs"),
			guard_figure(guard, "dropped_inside_runs"), starved,
			guard_figure(guard, "unguarded_samples"), guard_figure(guard, "samples"),
			spent, guard_figure(guard, "preempted"),
			json_number_value(json_object_get(guard, "steal_pct")));
		json_decref(guard);
	}
	if (r->profile->coverage)
		coverage_text(f, r->profile->coverage);
	if (s->checked)
		check_text(f, s);
	if (s->evaluated)
		evaluation_text(f, &s->eval);
}

void sibyl_plan_print_result(FILE *f, const struct sibyl_plan_session *s, bool json)
{
	/* After an evaluation the worker has the whole run's figures;
	 * without it, the profile kept those of planning. */
	json_t *guard = s->rq.sampling.guard_wait <= 0 ? NULL :
			s->worker ? sibyl_speed_guard_json(s->worker) :
			json_incref(json_object_get(s->result.profile->stats, "speed_guard"));

	if (json)
		result_json(f, s, guard);
	else
		result_text(f, s, guard);
}

static void points_text(FILE *f, const struct sibyl_profile *p)
{
	fprintf(f, "\n%16s %16s\n", "WORK METRIC", "SECONDS");
	for (size_t i = 0; i < p->npoints; i++)
		fprintf(f, "%16.10g %16.6g\n", p->points[i].x, p->points[i].y);
}

static void segments_text(FILE *f, const struct sibyl_profile *p)
{
	fprintf(f, "\n%16s %16s %8s %6s %14s %14s\n", "FROM", "TO", "SAMPLES", "OUT",
		"INTERCEPT (s)", "SLOPE (s/unit)");
	for (size_t i = 0; i < p->nsegments; i++) {
		const struct sibyl_segment *g = &p->segments[i];

		fprintf(f, "%16.10g %16.10g %8u %6u %14.6g %14.6g\n", g->from, g->to, g->samples,
			g->out_of_range, g->a, g->b);
	}
}

void sibyl_plan_print_profile(FILE *f, const struct sibyl_profile *p)
{
	const char *status = json_string_value(json_object_get(p->stats, "status"));

	fprintf(f, "%s: %s over %.17g:%.17g, %s%s%s\n",
		p->name && *p->name ? p->name : "(unnamed)",
		p->work_metric && *p->work_metric ? p->work_metric : "(work metric not named)",
		p->lo, p->hi, p->complete ? "complete" : "incomplete", status ? ", planning " : "",
		or_empty(status));
	fprintf(f, "%zu samples, %zu points, %zu segments, %zu pieces\n", p->nsamples,
		p->npoints, p->nsegments, p->npieces);
	if (p->npoints)
		points_text(f, p);
	if (p->nsegments)
		segments_text(f, p);
	if (p->npieces) {
		fputc('\n', f);
		sibyl_envelope_print(f, p, false);
	}
}
