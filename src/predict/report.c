/* What `sibyl predict` prints: a table per kernel, then the whole
 * program; or one JSON object (docs/predict.md). */
#include "predict/internal.h"
#include "core/json.h"

#include "model/profile.h"
#include "sibyl/trace.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

static const char *work_source_name(const struct sibyl_kernel_prediction *k)
{
	switch (k->work_source) {
	case SIBYL_WORK_IN_BYTES:
		return "input bytes";
	case SIBYL_WORK_OUT_BYTES:
		return "output bytes";
	case SIBYL_WORK_INOUT_BYTES:
		return "input+output bytes";
	default:
		return k->model->profile->work_metric;
	}
}

/* Planned with --replay: measured in the traced order, as the program
 * met the machine (provenance.sample_order). */
static bool replayed(const struct sibyl_profile *p)
{
	json_t *order = p->provenance ? json_object_get(p->provenance, "sample_order") : NULL;

	return json_is_string(order) && !strcmp(json_string_value(order), "traced");
}

static void print_kernel_notes(FILE *out, const struct sibyl_prediction *p,
			       const struct sibyl_kernel_prediction *k)
{
	const struct sibyl_profile *prof = k->model->profile;

	fprintf(out, "  %s: %s (%s), work = %s%s\n", k->name, k->model->path,
		prof->name ? prof->name : "unnamed", work_source_name(k),
		prof->complete ? "" : "; INCOMPLETE profile");
	if (p->transfers)
		fprintf(out, "    accelerated calls: compute %.6g s + transfers %.6g s\n", k->compute_s,
			k->transfer_s);
	if (k->typical_known)
		fprintf(out, "    profile times x %.3f: the speed programs meet, not the best "
			"(stats.typical)\n", k->typical_factor);
	else if (replayed(prof))
		fprintf(out, "    profile times as measured in the program's order of calls "
			"(plan --replay): the speed it met\n");
	else
		fprintf(out, "    profile times as measured: the profile does not record how "
			"programs meet the machine (stats.typical)\n");
	if (k->faults_counted)
		fprintf(out, "    page faults in the accelerated calls: %llu, %.6g s kept in the "
			"prediction (fresh memory: any implementation pays them)\n",
			(unsigned long long)k->faults, k->fault_s);
	if (k->touch_faults > 0)
		fprintf(out, "    memory the implementation touches first as the calls grow: %.0f page "
			"faults, %.6g s added (stats.one_time.first_touch)\n", k->touch_faults,
			k->touch_s);
	if (k->first_at_calls)
		fprintf(out, "    first calls at their work metric: %llu, %+.6g s added "
			"(stats.one_time.first_calls)\n", (unsigned long long)k->first_at_calls,
			k->first_at_s);
	if (k->nested)
		fprintf(out, "    %lu call(s) inside another modelled call, counted with it\n",
			(unsigned long)k->nested);
	if (k->below || k->above)
		fprintf(out, "    OUTSIDE the profile's points [%g, %g]: %lu below, %lu above "
			"(%.3g s measured), %s\n", prof->points[0].x, prof->points[prof->npoints - 1].x,
			(unsigned long)k->below, (unsigned long)k->above, k->outside_measured_s,
			p->outside == SIBYL_OUTSIDE_KEEP ? "kept at their measured time" :
			"extrapolated from the nearest piece");
	if (k->has_crossover)
		fprintf(out, "    crossover: accelerating calls with work >= %g predicts %.6g s\n",
			k->crossover, k->threshold_predicted_s);
	else
		fprintf(out, "    crossover: none, the accelerator is never predicted faster\n");
}

/* S_G's interval from the total's: T without sibyl / (total +- half). */
static void speedup_interval(const struct sibyl_prediction *p, double *lo, double *hi)
{
	double worst = p->predicted_total_s + p->half_s, best = p->predicted_total_s - p->half_s;

	*lo = p->untraced_total_s / worst;
	*hi = best > 0 ? p->untraced_total_s / best : INFINITY;
}

/* Several traces (sibyl_predict_runs): their spread, and what it adds. */
static void print_runs(FILE *out, const struct sibyl_prediction *p)
{
	fprintf(out, "from %u traces of the command: global speedup %.3f (%.3f .. %.3f), "
		"predicted total %.6g s (%.6g .. %.6g); above, the trace of median speedup; a "
		"further run's total varies by +- %.3g s (95%%)", p->runs.n, p->runs.speedup[0],
		p->runs.speedup[1], p->runs.speedup[2], p->runs.total[0], p->runs.total[1],
		p->runs.total[2], p->runs.half_s);
	if (p->interval_known)
		fprintf(out, ", in the interval beside the profile's +- %.3g s",
			p->runs.profile_half_s);
	fputc('\n', out);
}

static void print_interval(FILE *out, const struct sibyl_prediction *p)
{
	double lo, hi;

	if (p->runs.n)
		print_runs(out, p);
	if (!p->interval_known) {
		fprintf(out, "95%% interval: unknown (a profile without samples)\n");
		return;
	}
	speedup_interval(p, &lo, &hi);
	fprintf(out, "95%% interval: total %.6g s +- %.3g s, global speedup %.3f .. %.3f\n",
		p->predicted_total_s, p->half_s, lo, hi);
	if (p->dominant < 0)
		return;
	const struct predict_group *g = &p->groups[p->dominant];

	fprintf(out, "uncertainty dominated by %s calls with work %g .. %g (%lu calls): "
		"%.0f%% of the variance\n", p->kernels[g->kernel].name, g->from, g->to,
		(unsigned long)g->calls, 100 * p->dominant_share);
}

static void print_interposition(FILE *out, const struct sibyl_prediction *p)
{
	if (!p->interposition.known) {
		fprintf(out, "interposition: %llu wrapped calls, cost per call unknown (the trace "
			"does not record it: traced by an older sibyl); counted as 0\n",
			(unsigned long long)p->interposition.calls);
		return;
	}
	fprintf(out, "interposition: %llu wrapped calls, %.6g s = %.2f%% of T (%.1f ns per call, "
		"more with counters; measured by sibyl trace); %llu inside accelerated calls go "
		"with them\n", (unsigned long long)p->interposition.calls, p->interposition.total_s,
		100 * p->interposition.share, p->interposition.per_call_s * 1e9,
		(unsigned long long)p->interposition.inside);
	if (p->interposition.startup_known)
		fprintf(out, "tracing's start and exit of the process: %.3g s (measured by sibyl "
			"trace), left out without sibyl\n", p->interposition.startup_s);
	else if (p->interposition.startup_why[0])
		fprintf(out, "tracing's start and exit of the process: unknown (sibyl trace's "
			"probe failed: %s); counted as 0\n", p->interposition.startup_why);
	else
		fprintf(out, "tracing's start and exit of the process: unknown (not in the trace: "
			"an older sibyl, or a trace interrupted before its probe); counted as 0\n");
}

/* Whether the kernels or the rest of the program made the error: on a
 * shared machine the rest, which the prediction takes from one traced
 * run, often moves more than the kernels are off. */
static void print_split(FILE *out, const struct sibyl_prediction *p)
{
	struct predict_split s = predict_error_split(p);

	fprintf(out, "difference by part: kernels predicted %.6g s, actual %.6g s (%+.3g s); "
		"the rest of the program (with one-time costs) predicted %.6g s, actual %.6g s "
		"(%+.3g s)\n", s.kernels_predicted_s, s.kernels_actual_s,
		s.kernels_predicted_s - s.kernels_actual_s, s.rest_predicted_s, s.rest_actual_s,
		s.rest_predicted_s - s.rest_actual_s);
}

/* --actual / --verify: the accelerated runs against the prediction. */
static void print_actual(FILE *out, const struct sibyl_prediction *p)
{
	for (size_t i = 0; i < p->nkernels; i++)
		if (p->kernels[i].actual_calls != p->kernels[i].calls)
			fprintf(out, "NOTE: %s: %lu calls in the accelerated run, %lu predicted\n",
				p->kernels[i].name, (unsigned long)p->kernels[i].actual_calls,
				(unsigned long)p->kernels[i].calls);
	if (p->actual_partial)
		fprintf(out, "PARTIAL: accelerated run: %s\n", p->actual_partial_why);
	if (p->actual_runs > 1)
		fprintf(out, "actual: %.6g s accelerated, median of %u runs (%.6g .. %.6g s: "
			"speedup %.3f .. %.3f)\n", p->actual_total_s, p->actual_runs,
			p->actual_total_min_s, p->actual_total_max_s,
			p->total_s / p->actual_total_max_s, p->total_s / p->actual_total_min_s);
	else
		fprintf(out, "actual: %.6g s accelerated\n", p->actual_total_s);
	print_split(out, p);
	/* Like with like: the accelerated runs were traced too. */
	if (!p->paired.runs) {
		fprintf(out, "predicted speedup %.3f, actual %.3f, error %.1f%%\n",
			p->traced_speedup, p->actual_speedup, 100 * predict_error(p));
		return;
	}
	fprintf(out, "this trace's prediction against the median accelerated run: speedup "
		"%.3f, actual %.3f, error %.1f%%\n", p->traced_speedup, p->actual_speedup,
		100 * predict_error(p));
	fprintf(out, "paired with the original run again before each: predicted %.3f .. %.3f, "
		"actual %.3f .. %.3f (%u pairs)\n", p->paired.predicted[1], p->paired.predicted[2],
		p->paired.actual[1], p->paired.actual[2], p->paired.runs);
	fprintf(out, "predicted speedup %.3f, actual %.3f, error %.1f%%\n", p->paired.predicted[0],
		p->paired.actual[0], 100 * predict_paired_error(p));
}

void sibyl_prediction_print_text(FILE *out, const struct sibyl_trace *t,
				 const struct sibyl_prediction *p)
{
	const struct sibyl_trace_meta *m = sibyl_trace_meta(t);

	fprintf(out, "Prediction for: %s\n", *m->command ? m->command : "(unknown command)");
	if (p->partial)
		fprintf(out, "PARTIAL: %s; its time may not be the program's\n", p->partial_why);
	fprintf(out, "Policy: %s; transfers %s; calls outside a profile %s\n\n",
		p->best_of ? "best-of (per call, the faster of measured and predicted)" :
		"every call accelerated", p->transfers ? "added from the device profile" :
		"not added (the profile must include them)",
		p->outside == SIBYL_OUTSIDE_KEEP ? "kept" : "extrapolated");
	bool compared = !isnan(p->actual_total_s);

	fprintf(out, "%-24s %9s %12s %12s %12s %10s %9s %9s", "kernel", "calls", "work min",
		"measured s", "predicted s", "95% +-", "speedup", "accel.");
	fprintf(out, compared ? " %12s %8s\n" : "\n", "actual s", "error");
	for (size_t i = 0; i < p->nkernels; i++) {
		const struct sibyl_kernel_prediction *k = &p->kernels[i];

		fprintf(out, "%-24s %9lu %12.4g %12.6g %12.6g %10.3g %9.3f %9lu", k->name,
			(unsigned long)k->calls, k->work_min, k->measured_s, k->predicted_s,
			k->half_s, k->speedup, (unsigned long)k->accelerated);
		if (compared)
			fprintf(out, " %12.6g %7.1f%%", k->actual_s,
				100 * (k->predicted_s - k->actual_s) / k->actual_s);
		fputc('\n', out);
	}
	fputc('\n', out);
	for (size_t i = 0; i < p->nkernels; i++)
		print_kernel_notes(out, p, &p->kernels[i]);
	fprintf(out, "\nWhole program: T = %.6g s traced, P = %.1f%% in the kernels (eq. 2), "
		"S_P = %.3f (eq. 3)\n", p->total_s, 100 * p->fraction, p->kernel_speedup);
	if (p->fraction > 1)
		fprintf(out, "NOTE: P > 100%%: kernels ran on several threads at once; Amdahl's law "
			"over wall time overstates the gain\n");
	fprintf(out, "one-time costs of the accelerated path: %.6g s (initialisation, first call), "
		"%s\n", p->one_time_s, p->one_time_included ? "included" : "NOT included");
	if (p->one_time_unknown)
		fprintf(out, "NOTE: %zu profile(s) do not record their one-time costs (plan them "
			"again to measure them)\n", p->one_time_unknown);
	print_interposition(out, p);
	fprintf(out, "traced: predicted total %.6g s, speedup %.3f (eq. 1; what --actual "
		"measures)\n", p->traced_total_s, p->traced_speedup);
	fprintf(out, "without sibyl: T = %.6g s, predicted total %.6g s, global speedup "
		"S_G = %.3f\n", p->untraced_total_s, p->predicted_total_s, p->global_speedup);
	print_interval(out, p);
	if (compared)
		print_actual(out, p);
}

/* JSON has no infinity: an unbounded speedup is null. */
static json_t *kernel_json(const struct sibyl_prediction *p, const struct sibyl_kernel_prediction *k)
{
	const struct sibyl_profile *prof = k->model->profile;
	json_t *j = json_object();

	json_object_set_new(j, "name", json_string(k->name));
	json_object_set_new(j, "library", json_string(k->library));
	json_object_set_new(j, "profile", json_string(k->model->path));
	json_object_set_new(j, "profile_complete", json_boolean(prof->complete));
	json_object_set_new(j, "work_metric", json_string(work_source_name(k)));
	json_object_set_new(j, "calls", json_integer((json_int_t)k->calls));
	json_object_set_new(j, "nested_calls", json_integer((json_int_t)k->nested));
	json_object_set_new(j, "accelerated_calls", json_integer((json_int_t)k->accelerated));
	json_object_set_new(j, "work_min", sibyl_json_real_or_null(k->work_min));
	json_object_set_new(j, "work_max", sibyl_json_real_or_null(k->work_max));
	json_object_set_new(j, "measured_s", json_real(k->measured_s));
	json_object_set_new(j, "predicted_s", json_real(k->predicted_s));
	json_object_set_new(j, "compute_s", json_real(k->compute_s));
	json_object_set_new(j, "transfer_s", p->transfers ? json_real(k->transfer_s) : json_null());
	json_object_set_new(j, "kept_s", json_real(k->kept_s));
	json_object_set_new(j, "speedup", sibyl_json_real_or_null(k->speedup));
	json_object_set_new(j, "predicted_half_s", p->interval_known ? json_real(k->half_s) : json_null());
	json_object_set_new(j, "typical_factor", k->typical_known ? json_real(k->typical_factor) :
			    json_null());
	json_object_set_new(j, "page_faults", k->faults_counted ?
			    json_integer((json_int_t)k->faults) : json_null());
	json_object_set_new(j, "page_fault_s", json_real(k->fault_s));
	json_object_set_new(j, "first_touch_faults", json_real(k->touch_faults));
	json_object_set_new(j, "first_touch_s", json_real(k->touch_s));
	json_object_set_new(j, "first_at_calls", json_integer((json_int_t)k->first_at_calls));
	json_object_set_new(j, "first_at_s", json_real(k->first_at_s));
	json_object_set_new(j, "outside_below", json_integer((json_int_t)k->below));
	json_object_set_new(j, "outside_above", json_integer((json_int_t)k->above));
	json_object_set_new(j, "outside_measured_s", json_real(k->outside_measured_s));
	json_object_set_new(j, "crossover_work",
			    k->has_crossover ? sibyl_json_real_or_null(k->crossover) : json_null());
	json_object_set_new(j, "crossover_predicted_s", json_real(k->threshold_predicted_s));
	if (!isnan(p->actual_total_s)) {
		json_object_set_new(j, "actual_calls", json_integer((json_int_t)k->actual_calls));
		json_object_set_new(j, "actual_s", json_real(k->actual_s));
	}
	return j;
}

static json_t *interval_json(const struct sibyl_prediction *p)
{
	double lo, hi;

	if (!p->interval_known)
		return json_null();
	speedup_interval(p, &lo, &hi);
	json_t *j = json_pack("{sfsfsosf}", "level", 0.95, "predicted_total_half_s", p->half_s,
			      "global_speedup", json_pack("[oo]", sibyl_json_real_or_null(lo),
							  sibyl_json_real_or_null(hi)),
			      "dominant_share", p->dominant_share);

	if (p->dominant >= 0) {
		const struct predict_group *g = &p->groups[p->dominant];

		json_object_set_new(j, "dominant", json_pack("{sssfsfsI}", "kernel",
			p->kernels[g->kernel].name, "work_from", g->from, "work_to", g->to,
			"calls", (json_int_t)g->calls));
	}
	return j;
}

static json_t *interposition_json(const struct sibyl_prediction *p)
{
	bool known = p->interposition.known;
	json_t *j = json_pack("{sososIsIsososo}", "per_call_s", known ?
			      json_real(p->interposition.per_call_s) : json_null(),
			 "startup_s", p->interposition.startup_known ?
			 json_real(p->interposition.startup_s) : json_null(),
			 "calls", (json_int_t)p->interposition.calls,
			 "inside_accelerated", (json_int_t)p->interposition.inside,
			 "inside_accelerated_s", json_real(p->interposition.inside_s),
			 "total_s", json_real(p->interposition.total_s),
			 "share", json_real(p->interposition.share));

	if (j && p->interposition.startup_why[0])
		json_object_set_new(j, "startup_error", json_string(p->interposition.startup_why));
	return j;
}

/* What --verify or --actual measured, beside the prediction. */
static void add_actual_json(json_t *j, const struct sibyl_prediction *p)
{
	json_object_set_new(j, "actual_total_s", json_real(p->actual_total_s));
	json_object_set_new(j, "actual_speedup", sibyl_json_real_or_null(p->actual_speedup));
	json_object_set_new(j, "actual_partial", json_boolean(p->actual_partial));
	json_object_set_new(j, "actual_runs", json_integer(p->actual_runs));
	json_object_set_new(j, "actual_total_range_s", json_pack("[ff]",
		p->actual_total_min_s, p->actual_total_max_s));
	json_object_set_new(j, "error", sibyl_json_real_or_null(predict_error(p)));
	struct predict_split sp = predict_error_split(p);

	json_object_set_new(j, "error_split", json_pack("{sfsfsfsf}",
		"kernels_predicted_s", sp.kernels_predicted_s, "kernels_actual_s",
		sp.kernels_actual_s, "rest_predicted_s", sp.rest_predicted_s,
		"rest_actual_s", sp.rest_actual_s));
}

int sibyl_prediction_print_json(FILE *out, const struct sibyl_trace *t,
				const struct sibyl_prediction *p)
{
	json_t *j = json_object(), *kernels = json_array();

	json_object_set_new(j, "command", json_string(sibyl_trace_meta(t)->command));
	json_object_set_new(j, "partial", json_boolean(p->partial));
	json_object_set_new(j, "partial_why", p->partial ? json_string(p->partial_why) : json_null());
	json_object_set_new(j, "best_of", json_boolean(p->best_of));
	json_object_set_new(j, "transfers", json_boolean(p->transfers));
	json_object_set_new(j, "outside", json_string(p->outside == SIBYL_OUTSIDE_KEEP ?
						      "keep" : "extrapolate"));
	json_object_set_new(j, "measured_total_s", json_real(p->total_s));
	json_object_set_new(j, "kernels_measured_s", json_real(p->measured_s));
	json_object_set_new(j, "kernels_predicted_s", json_real(p->predicted_kernels_s));
	json_object_set_new(j, "fraction", json_real(p->fraction));
	json_object_set_new(j, "kernel_speedup", sibyl_json_real_or_null(p->kernel_speedup));
	json_object_set_new(j, "predicted_total_s", json_real(p->predicted_total_s));
	json_object_set_new(j, "interval", interval_json(p));
	json_object_set_new(j, "runs", !p->runs.n ? json_null() :
		json_pack("{sisfsfs[fff]s[ooo]}", "traces", (int)p->runs.n, "half_s",
			  p->runs.half_s, "profile_half_s", p->runs.profile_half_s,
			  "predicted_total_s", p->runs.total[0], p->runs.total[1], p->runs.total[2],
			  "global_speedup", sibyl_json_real_or_null(p->runs.speedup[0]),
			  sibyl_json_real_or_null(p->runs.speedup[1]),
			  sibyl_json_real_or_null(p->runs.speedup[2])));
	json_object_set_new(j, "one_time_s", json_real(p->one_time_s));
	json_object_set_new(j, "one_time_in_call_s", json_real(p->one_time_in_call_s));
	json_object_set_new(j, "one_time_included", json_boolean(p->one_time_included));
	json_object_set_new(j, "one_time_unknown", json_integer((json_int_t)p->one_time_unknown));
	json_object_set_new(j, "global_speedup", sibyl_json_real_or_null(p->global_speedup));
	json_object_set_new(j, "untraced_total_s", json_real(p->untraced_total_s));
	json_object_set_new(j, "traced", json_pack("{soso}", "predicted_total_s",
						   json_real(p->traced_total_s), "global_speedup",
						   sibyl_json_real_or_null(p->traced_speedup)));
	json_object_set_new(j, "interposition", interposition_json(p));
	if (!isnan(p->actual_total_s))
		add_actual_json(j, p);
	if (p->paired.runs)
		json_object_set_new(j, "paired", json_pack("{sisos[ff]sos[ff]so}",
			"runs", (int)p->paired.runs, "predicted_speedup",
			sibyl_json_real_or_null(p->paired.predicted[0]),
			"predicted_range", p->paired.predicted[1], p->paired.predicted[2],
			"actual_speedup", sibyl_json_real_or_null(p->paired.actual[0]), "actual_range",
			p->paired.actual[1], p->paired.actual[2], "error",
			sibyl_json_real_or_null(predict_paired_error(p))));
	for (size_t i = 0; i < p->nkernels; i++)
		json_array_append_new(kernels, kernel_json(p, &p->kernels[i]));
	json_object_set_new(j, "kernels", kernels);
	int rc = json_dumpf(j, out, JSON_INDENT(1) | JSON_REAL_PRECISION(17));

	fputc('\n', out);
	json_decref(j);
	return rc;
}
