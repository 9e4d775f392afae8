/* A planned profile's provenance and statistics. */
#include "planner/provenance.h"
#include "core/json.h"
#include "core/alloc.h"
#include "planner/first_calls.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static json_t *machine(void)
{
	struct utsname u;
	char host[256] = "", cpu[256] = "", line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");

	gethostname(host, sizeof(host) - 1);
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			snprintf(cpu, sizeof(cpu), "%s", strchr(line, ':') + 2);
			cpu[strcspn(cpu, "\n")] = '\0';
			break;
		}
	if (f)
		fclose(f);
	uname(&u);
	return json_pack("{sssssssi}", "hostname", host, "cpu", cpu, "kernel", u.release,
			 "cpus", (int)sysconf(_SC_NPROCESSORS_ONLN));
}

static json_t *provenance(const struct sibyl_plan_request *rq)
{
	const struct sibyl_adapter *a = rq->adapter;
	const struct sibyl_plan_params *p = &rq->params;

	return json_pack("{s{sssssssssssb}sisoss?ss?s{sIsIsfsfsfsfsfsssIsfsfsisisfsfsf}ss}",
			 "adapter", "name", a->name, "description", a->description ? a->description : "",
			 "work_metric", a->work_metric ? a->work_metric : "",
			 "params", a->params_doc ? a->params_doc : "", "source", rq->source,
			 "threaded", (a->flags & SIBYL_ADAPTER_THREADED) != 0,
			 "threads", (int)rq->config.threads, "machine", machine(),
			 "device", rq->config.device, "platform", rq->config.platform,
			 "parameters", "lo", (json_int_t)p->lo, "hi", (json_int_t)p->hi,
			 "segment_error", p->segment_error, "sample_error", p->sample_error,
			 "growth", p->growth, "confidence", p->confidence,
			 "fit_error", p->fit_error, "fit", p->relative_fit ? "relative" : "ols",
			 "seed", (json_int_t)p->seed, "timeout", rq->sampling.timeout,
			 "time_floor", p->time_floor, "repeat", (int)rq->sampling.repeat,
			 "rounds", (int)rq->sampling.rounds,
			 "min_sample_seconds", rq->sampling.min_seconds,
			 "speed_guard_wait", rq->sampling.guard_wait,
			 "speed_guard_tolerance", rq->sampling.guard_tolerance,
			 "clock", "tsc");
}

json_t *sibyl_speed_guard_json(const struct sibyl_worker *w)
{
	struct sibyl_worker_stats s;

	sibyl_worker_stats(w, &s);
	return json_pack("{sIsIsIsIsfsfsIsIsfsfsfsI}", "samples", (json_int_t)s.samples,
			 "dropped_runs", (json_int_t)s.dropped_runs,
			 "dropped_inside_runs", (json_int_t)s.dropped_inside_runs,
			 "unguarded_samples", (json_int_t)s.unguarded_samples,
			 "reference_first_ns", s.reference_first * 1e9,
			 "reference_best_ns", s.reference_best * 1e9,
			 "best_raised", (json_int_t)s.best_raised,
			 "preempted", (json_int_t)s.preempted,
			 "steal_pct", s.cpu_ticks ? 100.0 * (double)s.steal_ticks / (double)s.cpu_ticks : 0,
			 "guard_seconds", s.guard_seconds,
			 "guard_vain_seconds", s.guard_vain_seconds,
			 "dropped_starved_runs", (json_int_t)s.dropped_starved_runs);
}

/* What a program pays once for swapping this implementation in: the
 * adapter's init (loading a library, creating a device context, building
 * programs) unless the adapter says the original pays it too, and the
 * extra time of a fresh process's first call, which `sibyl predict` adds
 * to its prediction (docs/profile-format.md): the median of the fresh
 * workers that measured them, each listed in `runs`. */
static json_t *one_time_json(const struct sibyl_adapter *a, const struct sibyl_worker *w,
			     json_t *first_calls)
{
	struct sibyl_worker_stats s;

	json_t *runs = json_array();

	sibyl_worker_stats(w, &s);
	for (unsigned i = 0; i < s.one_time_runs; i++)
		json_array_append_new(runs, json_pack("[fff]", s.one_time[i].init,
						      s.one_time[i].first_run,
						      s.one_time[i].first_sample));
	json_t *touch = json_array();

	for (unsigned i = 0; i < s.first_touch_n; i++)
		json_array_append_new(touch, json_pack("[II]", (json_int_t)s.first_touch[i].metric,
						       (json_int_t)s.first_touch[i].faults));
	json_t *o = json_pack("{sfsbsIsfsfsososo}", "init_seconds", s.init_seconds,
			      "init_shared", (a->flags & SIBYL_ADAPTER_INIT_SHARED) != 0,
			      "first_call_metric", (json_int_t)s.first_call_metric,
			      "first_call_seconds", s.first_run_seconds,
			      "first_call_sample_seconds", s.first_sample_seconds,
			      "exit_seconds", sibyl_json_real_or_null(s.exit_seconds), "runs", runs,
			      "first_touch", touch);

	if (first_calls)	/* a replay's, each metric's first call (first_calls.h) */
		json_object_set(o, "first_calls", first_calls);
	return o;
}

/* The speed guard's profile is the machine at its best; a program meets
 * it as it comes.  Each sample's unguarded round is kept beside its time
 * ([work metric, seconds, typical seconds]); `sibyl predict` scales the
 * profile by their ratio of sums near each call's work, `factor` over
 * all of them. */
static json_t *typical_json(const struct sibyl_worker *w)
{
	struct sibyl_worker_stats s;
	json_t *samples = json_array();
	double sum = 0, typical = 0;

	sibyl_worker_stats(w, &s);
	for (size_t i = 0; i < s.ntypical; i++) {
		const struct sibyl_typical_sample *t = &s.typical[i];

		sum += t->seconds;
		typical += t->typical;
		json_array_append_new(samples, json_pack("[Iff]", (json_int_t)t->metric,
							 t->seconds, t->typical));
	}
	if (!s.ntypical) {
		json_decref(samples);
		return json_null();
	}
	return json_pack("{sfso}", "factor", typical / sum, "samples", samples);
}

/* A guided plan's first calls at each metric (first_calls.h), or NULL. */
static json_t *guided_first_calls(const struct sibyl_plan_request *rq,
				  const struct sibyl_worker *w, const struct sibyl_profile *p)
{
	struct sibyl_worker_stats s;

	sibyl_worker_stats(w, &s);
	if (!s.nfirst_at || !p->npoints)
		return NULL;
	uint64_t *m = sibyl_xmalloc(s.nfirst_at * sizeof(*m));
	double *t = sibyl_xmalloc(s.nfirst_at * sizeof(*t));
	struct sibyl_point *typical = sibyl_xmalloc((s.ntypical + 1) * sizeof(*typical));

	for (size_t i = 0; i < s.nfirst_at; i++)
		m[i] = s.first_at[i].metric, t[i] = s.first_at[i].seconds;
	for (size_t i = 0; i < s.ntypical; i++)
		typical[i] = (struct sibyl_point){ (double)s.typical[i].metric, s.typical[i].typical };
	json_t *j = sibyl_first_runs_guided(m, t, s.nfirst_at, s.ntypical ? typical : p->samples,
					    s.ntypical ? s.ntypical : p->nsamples,
					    rq->params.sample_error);

	free(m);
	free(t);
	free(typical);
	return j;
}

static const char *status_name(enum sibyl_plan_status s)
{
	if (s == SIBYL_PLAN_FAILED && sibyl_worker_interrupted())
		return "interrupted";   /* a sample failed because the user stopped it */
	return s == SIBYL_PLAN_DONE ? "complete" : s == SIBYL_PLAN_LIMIT ? "limit" :
	       s == SIBYL_PLAN_DIAGNOSED ? "diagnosed" : "failed";
}

void sibyl_plan_record(const struct sibyl_plan_request *rq, struct sibyl_plan_result *r,
		       const struct sibyl_worker *w)
{
	struct sibyl_profile *p = r->profile;

	p->name = sibyl_xstrdup(rq->adapter->name);
	p->work_metric = sibyl_xstrdup(rq->adapter->work_metric ? rq->adapter->work_metric : "");
	p->provenance = provenance(rq);
	/* How the samples were ordered: a replay's are measured in the
	 * calling context of the program (planner/replay.h). */
	json_object_set_new(p->provenance, "sample_order",
			    json_string(!rq->mix ? "adaptive" : rq->replay ? "traced" : "shuffled"));
	p->stats = json_pack("{sssIsIsIsIsIsf}", "status", status_name(r->status),
			     "samples", (json_int_t)r->samples,
			     "skipped_unguarded", (json_int_t)r->skipped,
			     "unique_work_metrics", (json_int_t)r->unique,
			     "points", (json_int_t)p->npoints,
			     "segments", (json_int_t)p->nsegments, "seconds", r->seconds);
	if (r->status != SIBYL_PLAN_DONE)
		json_object_set_new(p->stats, "stopped", json_string(r->message));
	if (rq->sampling.guard_wait > 0)
		json_object_set_new(p->stats, "speed_guard", sibyl_speed_guard_json(w));
	if (!r->first_calls && rq->sampling.first_calls)
		r->first_calls = guided_first_calls(rq, w, p);
	json_object_set_new(p->stats, "one_time", one_time_json(rq->adapter, w, r->first_calls));
	if (rq->sampling.guard_wait > 0)
		json_object_set_new(p->stats, "typical", typical_json(w));
}
