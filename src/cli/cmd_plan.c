/* sibyl plan: adaptive performance profiles of an implementation (docs/plan.md). */
#include "cli/commands.h"
#include "core/clock.h"
#include "core/fs.h"
#include "core/output.h"
#include "core/log.h"
#include "core/options.h"
#include "planner/adapters/builtin.h"
#include "planner/envelope.h"
#include "planner/evaluate.h"
#include "planner/loader.h"
#include "planner/plot.h"
#include "planner/session.h"
#include "planner/speed_guard.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct sibyl_command_help help = {
	"plan", "--adapter NAME|--adapter-so FILE.so[:NAME] [options] -o PROFILE.json\n"
	"       sibyl plan --list-adapters [--adapter-so FILE.so] [--json]\n"
	"       sibyl plan --adapter NAME --evaluate N [--evaluate-metrics] [--json]\n"
	"       sibyl plan --adapter NAME --profile PROFILE.json --evaluate N [--json]\n"
	"       sibyl plan envelope A.json B.json ... -o OUT.json\n"
	"       sibyl plan show PROFILE.json -o PLOT.png|PLOT.svg",
	"Sample an implementation through its adapter with the planner heuristic of "
	"Wernsing & Stitt (2010) and write its piecewise-linear performance profile "
	"(docs/profile-format.md).  Percentages are given in percent (10 = 10%).  "
	"--evaluate N plans, then measures N random work metrics and compares the profile "
	"and two baselines with the same sample budget against them; adapters that can draw "
	"random invocation parameters (--list-adapters) are measured at those instead, "
	"predicted through their work metric, as in the paper.  With --profile it evaluates "
	"a profile planned before instead of planning.  Sampling runs in a "
	"worker process: a crashing or hanging adapter stops the planner with one line, "
	"keeping the part of the profile already found.",
};

struct plan_opts {
	bool list, json, force, evaluate_metrics;
	const char *adapter, *adapter_so, *range, *output, *device, *platform, *evaluate_csv;
	const char *fit, *profile;
	long threads, seed, evaluate, max_samples, repeat, rounds;
	double segment_error, sample_error, growth, confidence, timeout, max_seconds;
	double fit_error, sample_ms, speed_guard, guard_tolerance;
};

static int parse_range(const char *s, uint64_t *lo, uint64_t *hi)
{
	char *end;

	errno = 0;
	if (*s == '-' || !(*s >= '0' && *s <= '9'))
		goto bad;
	*lo = strtoull(s, &end, 10);
	if (errno || *end != ':' || end[1] == '-' || !(end[1] >= '0' && end[1] <= '9'))
		goto bad;
	*hi = strtoull(end + 1, &end, 10);
	if (errno || *end)
		goto bad;
	return 0;
bad:
	return sibyl_err("plan: --range: '%s' is not LO:HI (two non-negative integers)", s);
}

static int percent(const char *name, double v, double *out)
{
	if (!(v > 0 && v < 100))
		return sibyl_err("plan: --%s: %g is not a percentage between 0 and 100", name, v);
	*out = v / 100;
	return 0;
}

/* "FILE.so:NAME" or "FILE.so" with a single adapter. */
static const struct sibyl_adapter *find_adapter(const struct plan_opts *o,
						struct sibyl_adapter_list *l)
{
	char err[1024];
	const char *name = o->adapter;
	char *path = NULL;

	if (o->adapter_so) {
		path = strdup(o->adapter_so);
		char *colon = strrchr(path, ':');

		if (colon) {
			*colon = '\0';
			name = colon + 1;
		}
		if (sibyl_adapters_open(l, path, err, sizeof(err))) {
			free(path);
			return sibyl_err("plan: %s", err), NULL;
		}
		if (!name && l->count == 1)
			name = l->items[0]->name;
	} else {
		sibyl_adapters_builtin(l);
	}
	const struct sibyl_adapter *a = name ? sibyl_adapters_find(l, name, err, sizeof(err)) : NULL;

	if (!name)
		sibyl_err("plan: %s holds several adapters: name one as FILE.so:NAME", path);
	else if (!a)
		sibyl_err("plan: %s", err);
	free(path);
	return a;
}

static int list_adapters(const struct plan_opts *o)
{
	struct sibyl_adapter_list l;
	char err[1024];

	if (o->adapter_so) {
		if (sibyl_adapters_open(&l, o->adapter_so, err, sizeof(err)))
			return sibyl_err("plan: %s", err), 1;
	} else {
		sibyl_adapters_builtin(&l);
	}
	json_t *arr = json_array();

	if (!o->json)
		printf("%-20s %-18s %-8s %s\n", "ADAPTER", "RANGE", "KIND", "DESCRIPTION");
	for (size_t i = 0; i < l.count; i++) {
		const struct sibyl_adapter *a = l.items[i];
		const char *kind = a->flags & SIBYL_ADAPTER_OPENCL ? "opencl" :
				   a->flags & SIBYL_ADAPTER_THREADED ? "threads" : "serial";
		/* --evaluate draws random invocation parameters for these. */
		bool by_params = sibyl_builtin_param_hooks(a) != NULL;
		char range[64];

		snprintf(range, sizeof(range), "%" PRIu64 ":%" PRIu64, a->min_metric, a->max_metric);
		if (o->json)
			json_array_append_new(arr, json_pack("{sssIsIssssssss?sb}", "name", a->name,
				"min", (json_int_t)a->min_metric, "max", (json_int_t)a->max_metric,
				"kind", kind, "description", a->description ? a->description : "",
				"work_metric", a->work_metric ? a->work_metric : "",
				"params", a->params_doc, "evaluates_parameters", by_params));
		else
			printf("%-20s %-18s %-8s %s (work metric: %s%s%s)\n", a->name, range, kind,
			       a->description ? a->description : "",
			       a->work_metric ? a->work_metric : "?",
			       by_params ? "; evaluated at random " : "",
			       by_params ? a->params_doc : "");
	}
	if (o->json) {
		json_dumpf(arr, stdout, JSON_INDENT(1));
		putchar('\n');
	}
	json_decref(arr);
	sibyl_adapters_close(&l);
	return 0;
}

static int make_request(const struct plan_opts *o, const struct sibyl_adapter *a,
			const char *source, struct sibyl_plan_request *rq)
{
	struct sibyl_plan_params *p = &rq->params;
	char err[512];

	memset(rq, 0, sizeof(*rq));
	sibyl_plan_defaults(p);
	rq->adapter = a;
	rq->source = source;
	p->lo = a->min_metric;
	p->hi = a->max_metric;
	if (o->range && parse_range(o->range, &p->lo, &p->hi))
		return -1;
	if (percent("segment-error", o->segment_error, &p->segment_error) ||
	    percent("sample-error", o->sample_error, &p->sample_error) ||
	    percent("growth", o->growth, &p->growth) ||
	    percent("confidence", o->confidence, &p->confidence))
		return -1;
	if (!(o->fit_error >= 0 && o->fit_error < 100))
		return sibyl_err("plan: --fit-error: %g is not a percentage between 0 and 100",
				 o->fit_error);
	p->fit_error = o->fit_error / 100;
	if (strcmp(o->fit, "relative") && strcmp(o->fit, "ols"))
		return sibyl_err("plan: --fit: '%s' is neither 'relative' nor 'ols'", o->fit);
	p->relative_fit = !strcmp(o->fit, "relative");
	if (o->seed < 0 || o->max_samples < 0 || o->max_seconds < 0 || !(o->timeout > 0))
		return sibyl_err("plan: --seed, --max-samples, --max-seconds must be >= 0 and "
				 "--timeout > 0");
	p->seed = (uint64_t)o->seed;
	p->max_samples = (size_t)o->max_samples;
	p->max_seconds = o->max_seconds;
	/* Four ticks of the clock: finer differences are not measurable. */
	p->time_floor = 4 * sibyl_seconds_resolution();
	if (sibyl_plan_check(p, err, sizeof(err)))
		return sibyl_err("plan: %s", err);
	if (o->threads < 1 || o->threads > 4096)
		return sibyl_err("plan: --threads: %ld is not between 1 and 4096", o->threads);
	if (o->threads > 1 && !(a->flags & SIBYL_ADAPTER_THREADED))
		return sibyl_err("plan: --threads: adapter %s is single-threaded", a->name);
	rq->config.threads = (unsigned)o->threads;
	rq->config.seed = p->seed;
	rq->config.device = o->device;
	rq->config.platform = o->platform;
	rq->config.now = sibyl_seconds;
	if (o->repeat < 1 || o->repeat > 1000)
		return sibyl_err("plan: --repeat: %ld is not between 1 and 1000", o->repeat);
	if (o->rounds < 1 || o->rounds > 100)
		return sibyl_err("plan: --rounds: %ld is not between 1 and 100", o->rounds);
	if (!(o->sample_ms >= 0 && o->sample_ms <= 10000))
		return sibyl_err("plan: --sample-time: %g ms is not between 0 and 10000", o->sample_ms);
	if (!(o->speed_guard >= 0 && o->speed_guard <= 3600))
		return sibyl_err("plan: --speed-guard: %g s is not between 0 and 3600",
				 o->speed_guard);
	if (!(o->guard_tolerance > 0 && o->guard_tolerance <= 100))
		return sibyl_err("plan: --speed-guard-tolerance: %g%% is not above 0 and at most 100",
				 o->guard_tolerance);
	rq->sampling = (struct sibyl_sampling){ (unsigned)o->repeat, o->sample_ms * 1e-3,
						o->timeout, o->speed_guard, (unsigned)o->rounds,
						o->guard_tolerance / 100 };
	rq->progress = isatty(STDERR_FILENO);
	return 0;
}

static json_t *error_json(const struct sibyl_error *e)
{
	return json_pack("{sfsf}", "mean_error_pct", e->mean_pct, "rmse_pct", e->rmse_pct);
}

static void print_result(const struct plan_opts *o, const struct sibyl_plan_request *rq,
			 const struct sibyl_plan_result *r, const struct sibyl_eval *e,
			 const struct sibyl_worker *w)
{
	const struct sibyl_profile *p = r->profile;
	/* After evaluation the worker has the whole run's figures; without
	 * it, the profile kept those of planning. */
	json_t *guard = rq->sampling.guard_wait <= 0 ? NULL : w ? sibyl_speed_guard_json(w) :
			json_incref(json_object_get(p->stats, "speed_guard"));

	if (o->json) {
		json_t *j = json_pack("{sssisisisIsIsIsIsfsb}", "adapter", rq->adapter->name,
				      "threads", (int)rq->config.threads, "repeat", (int)rq->sampling.repeat,
				      "rounds", (int)rq->sampling.rounds,
				      "samples", (json_int_t)r->samples,
				      "skipped_unguarded", (json_int_t)r->skipped,
				      "points", (json_int_t)p->npoints,
				      "segments", (json_int_t)p->nsegments, "seconds", r->seconds,
				      "complete", p->complete);

		if (o->output)
			json_object_set_new(j, "output", json_string(o->output));
		if (guard)
			json_object_set_new(j, "speed_guard", guard);
		if (e) {
			json_object_set_new(j, "evaluated", json_integer((json_int_t)e->n));
			json_object_set_new(j, "evaluated_at", json_string(e->by_params ?
				"parameters" : "metrics"));
			json_object_set_new(j, "mean_error_pct", json_real(e->planner.mean_pct));
			json_object_set_new(j, "rmse_pct", json_real(e->planner.rmse_pct));
			json_object_set_new(j, "baselines", json_pack("{sIsos{sfsfsfsfsf}}",
				"budget", (json_int_t)e->budget, "uniform", error_json(&e->uniform),
				"power", "mean_error_pct", e->power.mean_pct, "rmse_pct",
				e->power.rmse_pct, "a", e->power_a, "b", e->power_b, "c", e->power_c));
			json_object_set_new(j, "noise_floor_pct", json_real(e->noise_pct));
			json_object_set_new(j, "evaluation_seconds", json_real(e->seconds));
			json_object_set_new(j, "remeasured", json_integer((json_int_t)e->remeasured));
			json_object_set_new(j, "unguarded_measurements",
					    json_integer((json_int_t)e->unguarded));
		}
		json_dumpf(j, stdout, JSON_INDENT(1));
		putchar('\n');
		json_decref(j);
		return;
	}
	/* A stored profile's figures are those of its planning, not of now. */
	char skipped[64] = "";

	if (r->skipped)
		snprintf(skipped, sizeof(skipped), " (and %zu unguarded, left out)", r->skipped);
	printf("%s%s%s: %zu samples%s, %zu profile points, %zu segments, %.2f s planner time%s%s\n",
	       rq->adapter->name, o->profile ? ", planned in " : "", o->profile ? o->profile : "",
	       r->samples, skipped, p->npoints, p->nsegments, r->seconds,
	       o->output ? " -> " : "", o->output ? o->output : "");
	if (guard) {
		printf("speed guard: %lld runs dropped in slow phases (%lld seen inside their "
		       "group), %lld of %lld samples waited in vain\n",
		       (long long)json_integer_value(json_object_get(guard, "dropped_runs")),
		       (long long)json_integer_value(json_object_get(guard, "dropped_inside_runs")),
		       (long long)json_integer_value(json_object_get(guard, "unguarded_samples")),
		       (long long)json_integer_value(json_object_get(guard, "samples")));
		json_decref(guard);
	}
	if (!e)
		return;
	printf("%-34s %12s %10s\n", "evaluated at", "mean error", "RMSE");
	printf("%-34s %11.2f%% %9.2f%%\n", "planner profile", e->planner.mean_pct,
	       e->planner.rmse_pct);
	printf("%-34s %11.2f%% %9.2f%%\n", "uniform samples + interpolation", e->uniform.mean_pct,
	       e->uniform.rmse_pct);
	printf("%-34s %11.2f%% %9.2f%%\n", "a*n^b+c fit (StarPU-style)", e->power.mean_pct,
	       e->power.rmse_pct);
	printf("%-34s %11.2f%%\n", "noise floor (measured twice)", e->noise_pct);
	if (e->remeasured)
		printf("(%zu unguarded measurements taken again, %zu still unguarded)\n",
		       e->remeasured, e->unguarded);
	printf("(%zu random %s; baselines had %zu samples each)\n", e->n,
	       e->by_params ? "invocation parameters, predicted at their work metric" :
	       "work metrics", e->budget);
}

/* The evaluation points as CSV, written whole or not at all. */
static int save_eval_csv(const struct sibyl_eval *e, const char *path)
{
	char *csv = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&csv, &len);
	int rc = !f || sibyl_eval_write_csv(e, f) ? -1 : 0;

	if (f && fclose(f))
		rc = -1;
	if (rc == 0 && sibyl_output_write(path, csv, len, 0666))
		rc = -1;
	if (rc)
		sibyl_err_errno("plan: %s", path);
	free(csv);
	return rc;
}

/* Why a stored profile cannot be evaluated with this request, or NULL:
 * it must be one of this adapter, with the same work metric (a changed
 * cost model changes what a metric means), planned with the same threads
 * and device, over a range the adapter accepts. */
static const char *unfit_profile(const struct sibyl_profile *p, const struct sibyl_plan_request *rq,
				 char *why, size_t len)
{
	const struct sibyl_adapter *a = rq->adapter;
	json_t *prov = p->provenance;
	json_t *threads = json_object_get(prov, "threads");
	const char *device = json_string_value(json_object_get(prov, "device"));
	const char *platform = json_string_value(json_object_get(prov, "platform"));
	json_t *samples = json_object_get(p->stats, "samples");

	if (!p->npoints)
		return "no profile points to evaluate";
	if (!p->name || !*p->name || strcmp(p->name, a->name))
		return snprintf(why, len, "a profile of %s, not of %s",
				p->name && *p->name ? p->name : "an unnamed implementation",
				a->name), why;
	/* A profile that names no work metric (written by hand) is taken as
	 * the adapter's. */
	if (p->work_metric && *p->work_metric &&
	    strcmp(p->work_metric, a->work_metric ? a->work_metric : ""))
		return snprintf(why, len, "planned for the work metric '%s', and %s's is now '%s'",
				p->work_metric, a->name,
				a->work_metric ? a->work_metric : ""), why;
	if (json_is_integer(threads) && json_integer_value(threads) != rq->config.threads)
		return snprintf(why, len, "planned with %lld threads: give --threads %lld",
				(long long)json_integer_value(threads),
				(long long)json_integer_value(threads)), why;
	if (strcmp(device ? device : "", rq->config.device ? rq->config.device : "") ||
	    strcmp(platform ? platform : "", rq->config.platform ? rq->config.platform : ""))
		return snprintf(why, len, "planned on platform '%s' device '%s': give the same "
				"--platform and --device", platform ? platform : "",
				device ? device : ""), why;
	if (!(p->lo >= (double)a->min_metric && p->hi <= (double)a->max_metric &&
	      p->lo == floor(p->lo) && p->hi == floor(p->hi)))
		return snprintf(why, len, "its range %g:%g is not within %s's %" PRIu64 ":%" PRIu64,
				p->lo, p->hi, a->name, a->min_metric, a->max_metric), why;
	if (samples && !(json_is_integer(samples) && json_integer_value(samples) >= 1 &&
			 json_integer_value(samples) <= 1000000))
		return "stats.samples is not a sample count between 1 and 1000000";
	return NULL;
}

/* --profile FILE: a profile this adapter's planner wrote before, to be
 * evaluated instead of planned.  Its range is the profile's unless
 * --range narrows it, and the baselines get the samples it took. */
static int load_planned(const struct plan_opts *o, struct sibyl_plan_request *rq,
			struct sibyl_plan_result *r)
{
	char err[1024];
	struct sibyl_profile *p = sibyl_profile_load(o->profile, err, sizeof(err));
	const char *why;

	memset(r, 0, sizeof(*r));
	if (!p)
		return sibyl_err("plan: %s", err);
	if ((why = unfit_profile(p, rq, err, sizeof(err)))) {
		sibyl_err("plan: %s: %s", o->profile, why);
		sibyl_profile_free(p);
		return -1;
	}
	json_t *samples = json_object_get(p->stats, "samples");

	r->profile = p;
	r->samples = samples ? (size_t)json_integer_value(samples) : p->nsamples;
	/* Only reported (older profiles have none). */
	json_t *skipped = json_object_get(p->stats, "skipped_unguarded");

	r->skipped = json_is_integer(skipped) && json_integer_value(skipped) > 0 ?
		     (size_t)json_integer_value(skipped) : 0;
	r->seconds = json_number_value(json_object_get(p->stats, "seconds"));
	if (!o->range) {
		rq->params.lo = (uint64_t)p->lo;
		rq->params.hi = (uint64_t)p->hi;
	} else if ((double)rq->params.lo < p->lo || (double)rq->params.hi > p->hi) {
		sibyl_err("plan: --range %s is not within the profile's %g:%g", o->range, p->lo,
			  p->hi);
		return -1;
	}
	if (sibyl_plan_check(&rq->params, err, sizeof(err)))
		return sibyl_err("plan: %s", err);
	if (!r->samples)
		return sibyl_err("plan: %s: no samples recorded for the baselines", o->profile);
	return 0;
}

/* Ctrl-C (or a SIGTERM from a batch system) ends the sample under way
 * and stops planning or evaluating as a crashed adapter would: the
 * profile found so far is written and the reason is one line.  A second
 * signal ends sibyl at once.  A signal ignored on entry stays ignored (a
 * shell starts background jobs with SIGINT ignored, so that Ctrl-C
 * reaches only the foreground). */
static void on_stop_signal(int sig)
{
	sibyl_worker_interrupt(sig);
	signal(sig, SIG_DFL);
}

static void stop_on_signals(void)
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

static int run_plan(const struct plan_opts *o)
{
	struct sibyl_adapter_list l;
	struct sibyl_plan_request rq;
	struct sibyl_plan_result r;
	struct sibyl_worker *w = NULL;
	struct sibyl_eval e = { 0 };
	char err[1024];
	int status = 0;

	if (o->profile && (o->evaluate <= 0 || o->output))
		return sibyl_err("plan: --profile evaluates a stored profile: it needs --evaluate N "
				 "and takes no -o"), 2;
	if (!o->output && o->evaluate <= 0)
		return sibyl_err("plan: -o PROFILE.json is required (or --evaluate N)"), 2;
	if (o->evaluate < 0 || o->evaluate > 1000000)
		return sibyl_err("plan: --evaluate: %ld is not between 1 and 1000000", o->evaluate), 2;
	if (o->evaluate_metrics && o->evaluate <= 0)
		return sibyl_err("plan: --evaluate-metrics needs --evaluate N"), 2;
	if (o->evaluate_csv && o->evaluate <= 0)
		return sibyl_err("plan: --evaluate-csv needs --evaluate N"), 2;
	const char *outputs[] = { o->output, o->evaluate_csv };

	for (size_t i = 0; i < sizeof(outputs) / sizeof(*outputs); i++)
		if (outputs[i] && sibyl_refuse_overwrite(outputs[i], o->force, err, sizeof(err)))
			return sibyl_err("plan: %s", err), 1;
	const struct sibyl_adapter *a = find_adapter(o, &l);

	if (!a) {
		sibyl_adapters_close(&l);
		return 2;
	}
	if (make_request(o, a, l.source, &rq)) {
		sibyl_adapters_close(&l);
		return 2;
	}
	const struct sibyl_param_hooks *hooks = sibyl_builtin_param_hooks(a);

	rq.setup_params = hooks ? hooks->setup : NULL;
	stop_on_signals();
	if (o->profile) {
		if (load_planned(o, &rq, &r)) {
			sibyl_plan_result_free(&r);
			sibyl_adapters_close(&l);
			return 1;
		}
		if (!(w = sibyl_worker_start(a, rq.setup_params, &rq.config, &rq.sampling, err,
					     sizeof(err)))) {
			sibyl_err("plan: %s", err);
			status = 1;
		} else if (!r.profile->complete) {
			/* As when planning stops early: evaluated, and the exit
			 * status says the profile does not span its range. */
			sibyl_err("plan: %s: an incomplete profile (its planning stopped early); "
				  "it is evaluated over the whole range", o->profile);
			status = 1;
		}
	} else if (sibyl_plan_adapter(&rq, &r, o->evaluate > 0 ? &w : NULL)) {
		/* Worker messages already start with "adapter NAME". */
		bool named = !strncmp(r.message, "adapter ", 8);

		sibyl_err("plan: %s%s%s%s", named ? "" : a->name, named ? "" : ": ", r.message,
			  !r.profile || !o->output ? "" : r.profile->npoints ?
			  "; the partial profile is kept" :
			  "; no segment yet, the samples are kept");
		status = 1;
	}
	if (r.profile && o->output &&
	    sibyl_profile_save(r.profile, o->output, o->force, err, sizeof(err))) {
		sibyl_err("plan: %s", err);
		status = 1;
	}
	/* A partial profile (safety stop) is still evaluated, over the whole
	 * range: the figures then show what stopping early costs. */
	bool evaluated = false;
	struct sibyl_param_eval by_params = {
		.draw = hooks ? hooks->draw : NULL, .metric_of = a->metric_of,
		.measure = sibyl_worker_measure_params_cb,
	};

	if (w && r.profile) {
		if (sibyl_plan_evaluate(r.profile, &rq.params, (size_t)o->evaluate, r.samples,
					sibyl_worker_measure_cb, w,
					hooks && !o->evaluate_metrics ? &by_params : NULL, &e, err,
					sizeof(err))) {
			sibyl_err("plan: evaluate: %s", err);
			status = 1;
		} else {
			evaluated = true;
			if (o->evaluate_csv && save_eval_csv(&e, o->evaluate_csv))
				status = 1;
		}
	}
	/* Planned without --evaluate, or evaluated: a plan that stopped before
	 * its first segment has nothing to evaluate and says so above. */
	if (r.profile && (evaluated || (!w && !o->profile)))
		print_result(o, &rq, &r, evaluated ? &e : NULL, w);
	sibyl_worker_stop(w);
	sibyl_eval_free(&e);
	sibyl_plan_result_free(&r);
	sibyl_adapters_close(&l);
	return status;
}

static int plan_main(int argc, char **argv)
{
	struct plan_opts o = { .threads = 1, .seed = 1, .max_samples = 2000,
			       .segment_error = 10, .sample_error = 10, .growth = 10,
			       .confidence = 95, .timeout = 10, .max_seconds = 600, .repeat = 3,
			       .rounds = 3, .fit_error = 2, .fit = "relative", .sample_ms = 1,
			       .speed_guard = 2, .guard_tolerance = 100 * SIBYL_GUARD_TOLERANCE };
	struct sibyl_option opts[] = {
		{ "list-adapters", 0, SIBYL_OPT_FLAG, &o.list, NULL, "list the adapters and exit" },
		{ "adapter", 'a', SIBYL_OPT_STRING, &o.adapter, "NAME", "a built-in adapter" },
		{ "adapter-so", 0, SIBYL_OPT_STRING, &o.adapter_so, "FILE.so[:NAME]",
		  "an adapter exported by a shared object (include/sibyl/adapter.h)" },
		{ "threads", 't', SIBYL_OPT_LONG, &o.threads, "N", "threads for a threaded adapter (1)" },
		{ "range", 'r', SIBYL_OPT_STRING, &o.range, "LO:HI",
		  "work metric range (the adapter's by default)" },
		{ "seed", 's', SIBYL_OPT_LONG, &o.seed, "S", "random seed (1): same seed, same samples" },
		{ "segment-error", 0, SIBYL_OPT_DOUBLE, &o.segment_error, "P",
		  "max confidence-interval width of a segment, % of its time (10)" },
		{ "sample-error", 0, SIBYL_OPT_DOUBLE, &o.sample_error, "P",
		  "error beyond which a sample is out of range, % (10)" },
		{ "growth", 0, SIBYL_OPT_DOUBLE, &o.growth, "P", "interval growth factor, % (10)" },
		{ "confidence", 0, SIBYL_OPT_DOUBLE, &o.confidence, "P", "confidence level, % (95)" },
		{ "timeout", 0, SIBYL_OPT_DOUBLE, &o.timeout, "SEC",
		  "time limit of one run of a sample (10)" },
		{ "repeat", 0, SIBYL_OPT_LONG, &o.repeat, "K",
		  "runs per sample at least, spread over the rounds (3; the paper: 1)" },
		{ "rounds", 0, SIBYL_OPT_LONG, &o.rounds, "N",
		  "a sample is N rounds of its runs, 2 ms apart, and takes the fastest round's "
		  "time (3; 1 = one round, as in the paper)" },
		{ "sample-time", 0, SIBYL_OPT_DOUBLE, &o.sample_ms, "MS",
		  "more runs per round until they add up to MS (1; 0 = just --repeat)" },
		{ "speed-guard", 0, SIBYL_OPT_DOUBLE, &o.speed_guard, "SEC",
		  "drop runs timed while the CPU is slower than its best (a VM sharing its core) "
		  "and run them again, spending at most SEC per sample on waiting and dropped "
		  "runs (2; 0 = off, as in the paper)" },
		{ "speed-guard-tolerance", 0, SIBYL_OPT_DOUBLE, &o.guard_tolerance, "P",
		  "the speed guard's reference counts as calm up to P% above its best (10)" },
		{ "fit-error", 0, SIBYL_OPT_DOUBLE, &o.fit_error, "P",
		  "a segment's line must pass this close to the mean of each third of its "
		  "samples, % (2; 0 = off, as in the paper)" },
		{ "fit", 0, SIBYL_OPT_STRING, &o.fit, "KIND",
		  "least squares of each segment: 'relative' residuals (weights 1/time^2; the "
		  "default) or 'ols', ordinary, as in the paper" },
		{ "max-samples", 0, SIBYL_OPT_LONG, &o.max_samples, "N",
		  "safety stop after N samples (2000; 0 = none)" },
		{ "max-seconds", 0, SIBYL_OPT_DOUBLE, &o.max_seconds, "SEC",
		  "safety stop after SEC seconds of planning (600; 0 = none)" },
		{ "device", 0, SIBYL_OPT_STRING, &o.device, "NAME", "OpenCL device for OpenCL adapters" },
		{ "platform", 0, SIBYL_OPT_STRING, &o.platform, "NAME", "OpenCL platform" },
		{ "evaluate", 'e', SIBYL_OPT_LONG, &o.evaluate, "N",
		  "after planning, measure N random work metrics (or parameters) against the "
		  "profile" },
		{ "evaluate-csv", 0, SIBYL_OPT_STRING, &o.evaluate_csv, "FILE",
		  "write every evaluation point (its two measurements and the three predictions) "
		  "as CSV" },
		{ "profile", 0, SIBYL_OPT_STRING, &o.profile, "FILE",
		  "evaluate this profile, planned before for the same adapter, instead of "
		  "planning (its range, unless --range)" },
		{ "evaluate-metrics", 0, SIBYL_OPT_FLAG, &o.evaluate_metrics, NULL,
		  "evaluate at random work metrics even where the adapter can draw random "
		  "parameters" },
		{ "output", 'o', SIBYL_OPT_STRING, &o.output, "FILE", "the profile to write" },
		{ "force", 'f', SIBYL_OPT_FLAG, &o.force, NULL, "replace an existing output" },
		{ "json", 0, SIBYL_OPT_FLAG, &o.json, NULL, "print one JSON object" },
		SIBYL_OPT_END,
	};
	int operands, r = sibyl_options_parse(&help, opts, argc, argv, false, &operands);

	if (r)
		return r > 0 ? 0 : 2;
	if (operands)
		return sibyl_err("plan: unexpected operand '%s' (see --help)", argv[1]), 2;
	if (o.list)
		return list_adapters(&o);
	if (!o.adapter == !o.adapter_so)
		return sibyl_err("plan: name one adapter with --adapter or --adapter-so "
				 "(see --list-adapters)"), 2;
	return run_plan(&o);
}

static const struct sibyl_command_help envelope_help = {
	"plan envelope", "A.json B.json ... -o OUT.json [--force] [--json]",
	"Overlay performance profiles of implementations of the same function and keep the "
	"lowest envelope: the fastest implementation at each work metric.  The output is a "
	"profile whose \"pieces\" say which implementation wins where.",
};

static int plan_envelope(int argc, char **argv)
{
	const char *output = NULL;
	bool force = false, json = false;
	struct sibyl_option opts[] = {
		{ "output", 'o', SIBYL_OPT_STRING, &output, "FILE", "the envelope profile to write" },
		{ "force", 'f', SIBYL_OPT_FLAG, &force, NULL, "replace an existing output" },
		{ "json", 0, SIBYL_OPT_FLAG, &json, NULL, "print the pieces as JSON" },
		SIBYL_OPT_END,
	};
	int n, r = sibyl_options_parse(&envelope_help, opts, argc, argv, false, &n);
	char err[1024];

	if (r)
		return r > 0 ? 0 : 2;
	if (n < 1 || !output)
		return sibyl_err("plan envelope: expected profiles and -o OUT.json (see --help)"), 2;
	if (sibyl_refuse_overwrite(output, force, err, sizeof(err)))
		return sibyl_err("plan envelope: %s", err), 1;
	struct sibyl_profile **in = calloc((size_t)n, sizeof(*in)), *env = NULL;
	int status = 1;

	for (int i = 0; i < n; i++)
		if (!(in[i] = sibyl_profile_load(argv[i + 1], err, sizeof(err)))) {
			sibyl_err("plan envelope: %s", err);
			goto out;
		}
	if (!(env = sibyl_envelope((const struct sibyl_profile *const *)in, (size_t)n, err,
				   sizeof(err))))
		sibyl_err("plan envelope: %s", err);
	else if (sibyl_profile_save(env, output, force, err, sizeof(err)))
		sibyl_err("plan envelope: %s", err);
	else
		status = 0;
	if (status == 0)
		sibyl_envelope_print(stdout, env, json);
out:
	for (int i = 0; i < n; i++)
		sibyl_profile_free(in[i]);
	free(in);
	sibyl_profile_free(env);
	return status;
}

static const struct sibyl_command_help show_help = {
	"plan show", "PROFILE.json -o PLOT.png|PLOT.svg [--force]",
	"Plot a profile: its samples as points and its piecewise-linear profile as lines "
	"(an envelope: one colour per implementation).  The format follows the extension.",
};

static int plan_show(int argc, char **argv)
{
	const char *output = NULL;
	bool force = false;
	struct sibyl_option opts[] = {
		{ "output", 'o', SIBYL_OPT_STRING, &output, "FILE", "PNG or SVG file to write" },
		{ "force", 'f', SIBYL_OPT_FLAG, &force, NULL, "replace an existing output" },
		SIBYL_OPT_END,
	};
	int n, r = sibyl_options_parse(&show_help, opts, argc, argv, false, &n);
	char err[1024];

	if (r)
		return r > 0 ? 0 : 2;
	if (n != 1 || !output)
		return sibyl_err("plan show: expected one profile and -o PLOT.png|svg (see --help)"), 2;
	struct sibyl_profile *p = sibyl_profile_load(argv[1], err, sizeof(err));

	if (!p)
		return sibyl_err("plan show: %s", err), 1;
	r = sibyl_plot_profile(p, output, force, err, sizeof(err));
	if (r)
		sibyl_err("plan show: %s", err);
	sibyl_profile_free(p);
	return r ? 1 : 0;
}

int cmd_plan(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "envelope"))
		return plan_envelope(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "show"))
		return plan_show(argc - 1, argv + 1);
	return plan_main(argc, argv);
}
