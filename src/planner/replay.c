/* Plans that replay a program's calls in the order it made them (replay.h). */
#include "planner/replay.h"
#include "planner/first_calls.h"
#include "core/alloc.h"
#include "core/clock.h"
#include "core/log.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Windows of calls when not all fit: enough to meet a program's phases,
 * long enough that the lead-in calls, whose times are dropped, cost
 * little of the budget. */
#define MAX_WINDOWS 8
#define MIN_WINDOW 50
/* The smallest and the largest call, each led in by the call before it. */
#define EXTREME_RUNS 4
/* Calls timed at each extreme, and at each metric with HEAVY of the
 * traced time, when the budget holds them. */
#define EXTREME_CALLS 3
#define HEAVY 0.05
/* Samples a point takes at least: one run each, so a point's time is
 * not one run's luck. */
#define GROUP 4
/* Passes over the calls when the budget holds them that often.  A metric
 * the program calls once is then timed five times (four once its first
 * run goes apart as a first call), and its point is their trimmed mean: with two passes it was the
 * second pass's one run, and one descheduled run made the demo's 208^2
 * product read 2.86 ms, six times its neighbours' line. */
#define MAX_PASSES 5

static void add_span(struct sibyl_replay_plan *plan, size_t first, size_t len, bool lead)
{
	plan->v = sibyl_xreallocarray(plan->v, plan->n + 1, sizeof(*plan->v));
	plan->v[plan->n++] = (struct sibyl_replay_span){ first, len, lead };
}

bool sibyl_replay_plan_times(const struct sibyl_replay_plan *plan,
			     const struct sibyl_call_mix *mix, uint64_t metric)
{
	for (size_t k = 0; k < plan->n; k++)
		for (size_t j = plan->v[k].first + plan->v[k].lead;
		     j < plan->v[k].first + plan->v[k].len; j++)
			if (mix->seq[j].metric == metric)
				return true;
	return false;
}

/* Whether a span times the call at index i. */
static bool timed(const struct sibyl_replay_plan *plan, size_t i)
{
	for (size_t k = 0; k < plan->n; k++)
		if (plan->v[k].first + plan->v[k].lead <= i && i < plan->v[k].first + plan->v[k].len)
			return true;
	return false;
}

/* The calls at `metric` spans time. */
static size_t timed_at(const struct sibyl_replay_plan *plan, const struct sibyl_call_mix *mix,
		       uint64_t metric)
{
	size_t n = 0;

	for (size_t i = 0; i < mix->nseq; i++)
		n += mix->seq[i].metric == metric && timed(plan, i);
	return n;
}

/* The index of the first call at `metric` from `from` on. */
static size_t first_at(const struct sibyl_call_mix *mix, uint64_t metric, size_t from)
{
	size_t i = from;

	while (i < mix->nseq && mix->seq[i].metric != metric)
		i++;
	return i;
}

/* The first calls at `metric` until `want` of them are timed, each
 * with the call before it as its lead-in when `lead` (and there is
 * one). */
static void add_calls(struct sibyl_replay_plan *plan, const struct sibyl_call_mix *mix,
		      uint64_t metric, bool lead, size_t want)
{
	size_t have = timed_at(plan, mix, metric);

	for (size_t i = first_at(mix, metric, 0); have < want && i < mix->nseq;
	     i = first_at(mix, metric, i + 1)) {
		if (timed(plan, i))
			continue;
		bool led = lead && i > 0;

		add_span(plan, i - led, 1 + led, led);
		have++;
	}
}

static int by_first(const void *a, const void *b)
{
	const struct sibyl_replay_span *x = a, *y = b;

	return (x->first > y->first) - (x->first < y->first);
}

/* In traced order, overlapping or touching spans joined: a lead-in that
 * follows the span before it has its context, so it is timed. */
static void join_spans(struct sibyl_replay_plan *plan)
{
	size_t k = 0;

	qsort(plan->v, plan->n, sizeof(*plan->v), by_first);
	for (size_t i = 0; i < plan->n; i++) {
		struct sibyl_replay_span *last = k ? &plan->v[k - 1] : NULL;

		if (last && plan->v[i].first <= last->first + last->len) {
			size_t end = plan->v[i].first + plan->v[i].len;

			if (end > last->first + last->len)
				last->len = end - last->first;
		} else {
			plan->v[k++] = plan->v[i];
		}
	}
	plan->n = k;
}

/* Windows of `budget` runs in all, spread evenly over the calls. */
static void add_windows(struct sibyl_replay_plan *plan, size_t n, size_t budget)
{
	size_t k = budget / MIN_WINDOW, len;

	k = k < 1 ? 1 : k > MAX_WINDOWS ? MAX_WINDOWS : k;
	len = budget / k < 2 ? 2 : budget / k;
	for (size_t w = 0; w < k; w++) {
		double centre = ((double)w + 0.5) * (double)n / (double)k;
		size_t first = (size_t)fmin(fmax(0, centre - (double)len / 2), (double)(n - len));

		add_span(plan, first, len, first > 0);
	}
}

/* The runs the smallest and the largest call take, each led in. */
static size_t extreme_runs(const struct sibyl_call_mix *mix)
{
	size_t lo = first_at(mix, mix->v[0].metric, 0);
	size_t hi = first_at(mix, mix->v[mix->n - 1].metric, 0);

	return lo == hi ? 1 + (lo > 0) : 2 + (lo > 0) + (hi > 0);
}

/* Whether mix->v[i] is timed at several calls when the budget holds
 * them: an extreme, or a metric with HEAVY of the traced time. */
static bool repeated_pick(const struct sibyl_call_mix *mix, size_t i)
{
	return i == 0 || i == mix->n - 1 ||
	       (mix->seconds > 0 && mix->v[i].seconds >= HEAVY * mix->seconds);
}

/* The runs repeated picks take, each call led in. */
static size_t repeated_runs(const struct sibyl_call_mix *mix)
{
	size_t runs = 0;

	for (size_t i = 0; i < mix->n; i++)
		if (repeated_pick(mix, i))
			runs += 2 * (mix->v[i].calls < EXTREME_CALLS ? mix->v[i].calls : EXTREME_CALLS);
	return runs;
}

/* More calls than the budget: the extremes' runs are set aside (all
 * EXTREME_RUNS, or what they take under a budget that small, without
 * their lead-ins if it is smaller still), the windows get the rest, and
 * the extremes are added unless a window holds them: never more runs
 * than the budget.  A budget below the two extremes picks nothing.
 * With room, the extremes and the metrics with HEAVY of the traced
 * time are timed at up to EXTREME_CALLS of their calls: windows meet
 * metrics in proportion to their calls, not their time (FFTW's 65536,
 * a quarter to a half of the program's time in 12 calls of 3000, no
 * window met, and one run of it read 2.5 times the calls' median). */
static void pick_windows(struct sibyl_replay_plan *plan, const struct sibyl_call_mix *mix,
			 size_t budget)
{
	size_t led = extreme_runs(mix), bare = mix->n > 1 ? 2 : 1;
	bool lead = budget >= led;
	size_t reserve = budget >= EXTREME_RUNS + 2 ? EXTREME_RUNS : lead ? led : bare;
	size_t want = 1, more = repeated_runs(mix);

	if (budget < bare)
		return;
	if (more > reserve && budget >= more + MIN_WINDOW)
		reserve = more, want = EXTREME_CALLS;
	if (budget >= reserve + 2)	/* a window is a lead-in and a call at least */
		add_windows(plan, mix->nseq, budget - reserve);
	for (size_t i = 0; i < mix->n; i++)
		if (i == 0 || i == mix->n - 1 || (want > 1 && repeated_pick(mix, i)))
			add_calls(plan, mix, mix->v[i].metric, lead, want);
	join_spans(plan);
}

void sibyl_replay_pick(const struct sibyl_call_mix *mix, size_t budget,
		       struct sibyl_replay_plan *plan)
{
	size_t n = mix->nseq;

	memset(plan, 0, sizeof(*plan));
	plan->passes = 1;
	if (!n)
		return;
	if (!budget || budget / n >= MAX_PASSES)
		plan->passes = MAX_PASSES;
	else if (budget / n > 1)
		plan->passes = (unsigned)(budget / n);
	if (!budget || n <= budget)
		add_span(plan, 0, n, false);
	else
		pick_windows(plan, mix, budget);
	for (size_t k = 0; k < plan->n; k++)
		plan->runs += plan->v[k].len * plan->passes;
}

void sibyl_replay_plan_free(struct sibyl_replay_plan *plan)
{
	free(plan->v);
	memset(plan, 0, sizeof(*plan));
}

/* One replay under way: the timed samples in the order taken. */
struct replay_run {
	const struct sibyl_replay_plan *plan;
	const struct sibyl_call_mix *mix;
	sibyl_measure_seq_fn measure;
	void *ctx;
	sibyl_guided_progress_fn progress;
	void *pctx;
	size_t done;               /* measurements, lead-ins included */
	struct sibyl_point *samples;
	size_t n;
	uint64_t *metrics;         /* a span's, to measure */
	double *seconds;
	struct sibyl_first_runs first;	/* each metric's first run in the worker */
};

static int replay_pass(struct replay_run *rr, char *err, size_t errlen)
{
	for (size_t k = 0; k < rr->plan->n; k++) {
		const struct sibyl_replay_span *s = &rr->plan->v[k];

		for (size_t j = 0; j < s->len; j++)
			rr->metrics[j] = rr->mix->seq[s->first + j].metric;
		if (rr->measure(rr->ctx, rr->metrics, s->len, rr->seconds, err, errlen) < 0)
			return -1;
		rr->done += s->len;
		if (rr->progress)
			rr->progress(rr->pctx, rr->done, rr->plan->runs);
		/* A lead-in's time says nothing of its context, but a first
		 * call's cost is its own (first_calls.h); one that lost the
		 * CPU (negated, worker_protocol.h) says nothing of it, nor of
		 * its metric's time. */
		for (size_t j = 0; j < s->len; j++) {
			size_t sample = j < s->lead ? SIZE_MAX : rr->n + j - s->lead;

			if (rr->seconds[j] < 0)
				sibyl_first_runs_lost(&rr->first, rr->metrics[j], sample);
			rr->seconds[j] = fabs(rr->seconds[j]);
			sibyl_first_runs_note(&rr->first, rr->metrics[j], rr->seconds[j], sample);
		}
		for (size_t j = s->lead; j < s->len; j++)
			rr->samples[rr->n++] = (struct sibyl_point){ (double)rr->metrics[j],
								     rr->seconds[j] };
	}
	return 0;
}

static int by_x(const void *a, const void *b)
{
	const struct sibyl_point *x = a, *y = b;

	return (x->x > y->x) - (x->x < y->x);
}

/* The point of samples v[0..n), sorted by metric: the median metric and
 * the mean of the middle half of the times (their median under four):
 * a run that met interference, or a page fault, moves it little. */
static struct sibyl_point group_point(const struct sibyl_point *v, size_t n, double *ys)
{
	double x = n % 2 ? v[n / 2].x : (v[n / 2 - 1].x + v[n / 2].x) / 2;

	for (size_t i = 0; i < n; i++)
		ys[i] = v[i].y;
	gsl_sort(ys, 1, n);
	return (struct sibyl_point){ x, n < 4 ? gsl_stats_median_from_sorted_data(ys, 1, n) :
				     gsl_stats_trmean_from_sorted_data(0.25, ys, 1, n) };
}

/* How many samples from s[i] on share its metric (s sorted). */
static size_t run_at(const struct sibyl_point *s, size_t n, size_t i)
{
	size_t j = i + 1;

	while (j < n && s[j].x == s[i].x)
		j++;
	return j - i;
}

/* Whether the samples from s[i] on are a metric's of their own: more
 * than one a pass, or fewer since its first run went apart, as a first
 * call or lost (first_calls.h). */
static bool own_point(const struct sibyl_point *s, size_t n, size_t i, size_t alone,
		      const struct sibyl_first_runs *f)
{
	return run_at(s, n, i) >= alone || sibyl_first_runs_apart(f, (uint64_t)s[i].x);
}

/* Sort the samples and group them into points (replay.h); how many.  A
 * metric the program called again is a point of its own and no group
 * reaches into it: its runs say its time, where a group's point, at its
 * median metric, would put its neighbour's time there (FFTW's prime
 * 1009, 14 times 1024's, vanished into 1024's point). */
static size_t group_points(struct sibyl_point *s, size_t n, unsigned passes,
			   const struct sibyl_first_runs *f, struct sibyl_point *pts)
{
	double *ys = sibyl_xmalloc(n * sizeof(*ys));
	size_t np = 0, alone = 2 * (size_t)passes;

	qsort(s, n, sizeof(*s), by_x);
	for (size_t i = 0, j; i < n; i = j) {
		bool edge = s[i].x == s[0].x || s[i].x == s[n - 1].x;
		bool own = edge || own_point(s, n, i, alone, f);

		j = i + run_at(s, n, i);
		while (!own && j < n && j - i < GROUP && s[j].x != s[n - 1].x &&
		       !own_point(s, n, j, alone, f))
			j += run_at(s, n, j);
		pts[np++] = group_point(s + i, j - i, ys);
	}
	free(ys);
	return np;
}

/* The noise of one run, from the first two passes' runs of each call. */
static double pass_noise(const struct sibyl_point *s, size_t per_pass)
{
	struct sibyl_eval_point *pts = sibyl_xcalloc(per_pass ? per_pass : 1, sizeof(*pts));

	for (size_t k = 0; k < per_pass; k++) {
		pts[k].measured[0] = s[k].y;
		pts[k].measured[1] = s[per_pass + k].y;
	}
	double noise = sibyl_guided_noise(pts, per_pass);

	free(pts);
	return noise;
}

/* How the calls were replayed (docs/profile-format.md, coverage.replay). */
static json_t *replay_json(const struct sibyl_replay_plan *plan, unsigned passes, size_t runs)
{
	json_t *spans = json_array();
	size_t timed = 0, leads = 0;

	for (size_t k = 0; k < plan->n; k++) {
		json_array_append_new(spans, json_pack("[II]", (json_int_t)plan->v[k].first,
						       (json_int_t)plan->v[k].len));
		timed += plan->v[k].len - plan->v[k].lead;
		leads += plan->v[k].lead;
	}
	return json_pack("{sssisIsIsIso}", "order", "traced", "passes", (int)passes,
			 "runs", (json_int_t)runs, "timed_calls", (json_int_t)timed,
			 "lead_in_runs", (json_int_t)(leads * passes), "spans", spans);
}

/* picked[i]: whether mix->v[i]'s metric was sampled (s sorted by metric). */
static bool *sampled(const struct sibyl_call_mix *mix, const struct sibyl_point *s, size_t n)
{
	bool *picked = sibyl_xcalloc(mix->n, sizeof(*picked));

	for (size_t i = 0, k = 0; i < mix->n; i++) {
		while (k < n && s[k].x < (double)mix->v[i].metric)
			k++;
		picked[i] = k < n && s[k].x == (double)mix->v[i].metric;
	}
	return picked;
}

/* The profile of the samples, spanning the calls' range. */
static struct sibyl_profile *replay_profile(const struct sibyl_call_mix *mix,
					    struct sibyl_point *s, size_t n, unsigned passes,
					    const struct sibyl_first_runs *f)
{
	struct sibyl_profile *prof = sibyl_xcalloc(1, sizeof(*prof));

	prof->lo = (double)mix->v[0].metric;
	prof->hi = (double)mix->v[mix->n - 1].metric;
	prof->complete = true;
	prof->points = sibyl_xmalloc(n * sizeof(*prof->points));
	prof->npoints = group_points(s, n, passes, f, prof->points);
	prof->samples = sibyl_xmalloc(n * sizeof(*prof->samples));
	memcpy(prof->samples, s, n * sizeof(*s));
	prof->nsamples = n;
	return prof;
}

static void fill_result(const struct sibyl_plan_params *p, const struct sibyl_call_mix *mix,
			const struct sibyl_replay_plan *plan, struct replay_run *rr,
			unsigned passes, struct sibyl_plan_result *r)
{
	double noise = passes >= 2 ? pass_noise(rr->samples, rr->n / passes) : NAN;

	sibyl_first_runs_split(&rr->first, rr->samples, &rr->n, p->sample_error);
	struct sibyl_profile *prof = replay_profile(mix, rr->samples, rr->n, passes, &rr->first);
	bool *picked = sampled(mix, prof->samples, prof->nsamples);

	r->first_calls = sibyl_first_runs_json(&rr->first, "replay: each work metric's "
					       "first run in the planning worker, in the traced "
					       "calls' order, beside the median of its other runs");

	r->status = SIBYL_PLAN_DONE;
	r->profile = prof;
	prof->coverage = sibyl_guided_coverage(mix, picked, prof, noise);
	json_object_set_new(prof->coverage, "replay", replay_json(plan, passes, rr->done));
	r->samples = rr->done;
	r->unique = 0;
	for (size_t i = 0; i < mix->n; i++)
		r->unique += picked[i];
	r->chain_end = prof->hi;
	r->taken = sibyl_xmalloc(prof->nsamples * sizeof(*r->taken));
	memcpy(r->taken, prof->samples, prof->nsamples * sizeof(*r->taken));
	free(picked);
}

int sibyl_plan_replay(const struct sibyl_plan_params *p, const struct sibyl_call_mix *mix,
		      sibyl_measure_seq_fn measure, void *ctx, sibyl_guided_progress_fn progress,
		      void *pctx, struct sibyl_plan_result *r)
{
	double t0 = (double)sibyl_mono_ns();
	struct sibyl_replay_plan plan;
	struct replay_run rr = { .plan = &plan, .mix = mix, .measure = measure, .ctx = ctx,
				 .progress = progress, .pctx = pctx };
	unsigned pass = 0;

	memset(r, 0, sizeof(*r));
	r->status = SIBYL_PLAN_FAILED;
	sibyl_replay_pick(mix, p->max_samples, &plan);
	if (!plan.n && mix->nseq)
		snprintf(r->message, sizeof(r->message), "--max-samples %zu is too few for a "
			 "replay: it runs the smallest and the largest call at least",
			 p->max_samples);
	else if (!plan.n)
		snprintf(r->message, sizeof(r->message), "no traced call to replay (a list of "
			 "work metrics has no order: --replay needs --from-trace)");
	rr.samples = sibyl_xmalloc((plan.runs ? plan.runs : 1) * sizeof(*rr.samples));
	rr.metrics = sibyl_xmalloc((plan.runs ? plan.runs : 1) * sizeof(*rr.metrics));
	rr.seconds = sibyl_xmalloc((plan.runs ? plan.runs : 1) * sizeof(*rr.seconds));
	size_t whole = 0;	/* samples of the passes that ended */

	/* The worker's first sample, before the replay, ran the first call
	 * at the first span's first metric (worker.h). */
	if (plan.n)
		sibyl_first_runs_met(&rr.first, mix->seq[plan.v[0].first].metric);

	for (; plan.n && pass < plan.passes; pass++) {
		if (pass && p->max_seconds > 0 &&
		    ((double)sibyl_mono_ns() - t0) * 1e-9 >= p->max_seconds)
			break;
		if (replay_pass(&rr, r->message, sizeof(r->message)))
			break;
		whole = rr.n;
	}
	/* A pass that failed (its worker died, say) leaves the passes before
	 * it, each a replay of every picked call: they make the profile,
	 * kept beside the error. */
	rr.n = whole;
	if (plan.n && pass && rr.n) {
		fill_result(p, mix, &plan, &rr, pass, r);
		if (r->message[0])
			r->status = SIBYL_PLAN_FAILED;
	}
	r->seconds = ((double)sibyl_mono_ns() - t0) * 1e-9;
	free(rr.samples);
	free(rr.metrics);
	free(rr.seconds);
	sibyl_first_runs_free(&rr.first);
	sibyl_replay_plan_free(&plan);
	return r->status == SIBYL_PLAN_DONE ? 0 : -1;
}
