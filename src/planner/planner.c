/* The planner loop: interval of interest, sampling, stop rules. */
#include "planner/planner.h"
#include "planner/chain.h"
#include "planner/diagnose.h"
#include "planner/matrix.h"
#include "core/alloc.h"
#include "core/clock.h"
#include "core/log.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The narrowest interval of interest: a few distinct work metrics, and
 * never below RESOLUTION of the work metric: work metrics one apart at
 * 8192 (CLBlast, one matrix shape) cannot differ measurably, and a plan
 * that sampled 8192..8199 for 1100 samples learned nothing. */
#define IOI_MIN_WIDTH 4.0
#define RESOLUTION 0.01
/* Before any chain exists the interval sits at the lower bound and
 * doubles after this many samples without a chain (noisy or flat short
 * runs may need a wider start). */
#define PRECHAIN_DOUBLING 12
/* A sample the measure function calls unguarded was timed while the
 * machine ran slower than its best: kept, it would bend the profile where
 * it lies (and, at the chain's end, hold the chain back until more
 * samples there average it away).  It is left out and its work metric
 * measured again (so the work metrics drawn stay those of the seed), but
 * never more than this many times in a row: on a machine that stays
 * slow, planning goes on with the fastest of the measurements it took
 * there (each is the fastest of its rounds, timed as they came: more
 * rounds of the same estimate, since interference only adds time). */
#define UNGUARDED_SKIPS 3

void sibyl_plan_defaults(struct sibyl_plan_params *p)
{
	memset(p, 0, sizeof(*p));
	p->segment_error = 0.10;
	p->sample_error = 0.10;
	p->growth = 0.10;
	p->confidence = 0.95;
	p->fit_error = 0.02;
	p->relative_fit = true;
	p->seed = 1;
	p->max_samples = 2000;
	p->max_seconds = 600;
}

/* The thresholds are fractions, set and documented in percent by the
 * options named in messages (docs/plan.md): a message shows the
 * percentage. */
static int fraction(const char *name, double v, bool zero_ok, char *err, size_t errlen)
{
	if ((v > 0 && v < 1) || (zero_ok && v == 0))
		return 0;
	return sibyl_seterr(err, errlen, "%s: %g is not a percentage between 0 and 100", name,
			    100 * v);
}

int sibyl_plan_check(const struct sibyl_plan_params *p, char *err, size_t errlen)
{
	if (p->lo > p->hi || p->hi - p->lo < 4)
		return sibyl_seterr(err, errlen, "range %llu:%llu holds fewer than 5 work metrics",
				    (unsigned long long)p->lo, (unsigned long long)p->hi);
	if (fraction("--segment-error", p->segment_error, false, err, errlen) ||
	    fraction("--sample-error", p->sample_error, false, err, errlen) ||
	    fraction("--growth", p->growth, false, err, errlen) ||
	    fraction("--confidence", p->confidence, false, err, errlen) ||
	    fraction("--fit-error", p->fit_error, true, err, errlen))
		return -1;
	if (!(p->max_seconds >= 0))
		return sibyl_seterr(err, errlen, "--max-seconds: %g is negative", p->max_seconds);
	if (!(p->time_floor >= 0 && p->time_floor < 1))
		return sibyl_seterr(err, errlen, "time floor: %g s is not between 0 and 1 s",
				    p->time_floor);
	return 0;
}

uint64_t sibyl_random(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t sibyl_random_between(uint64_t *s, uint64_t a, uint64_t b)
{
	if (b <= a)
		return a;
	return a + sibyl_random(s) % (b - a + 1);
}

struct planner {
	const struct sibyl_plan_params *p;
	struct sibyl_matrix m;
	uint64_t rng;
	size_t without_chain;      /* samples taken while no chain existed */
	size_t skipped, skipped_in_row;  /* unguarded samples left out */
	uint64_t last;             /* the work metric of the last one left out */
	double last_fastest;       /* the fastest time measured there in a row */
	bool have_chain;
	size_t crow, ccol;         /* the best chain's last cell */
	double verify;             /* a work metric to measure again (diagnose.h), or -1 */
	size_t verified;
	size_t preempted;          /* samples the worker was pre-empted in */
	size_t measured, unguarded;  /* measurements, and those that came back unguarded */
	struct sibyl_point *taken;
	size_t ntaken, captaken;
};

/*
 * The interval of interest (section III.C).  Without a chain it starts at
 * the lower bound.  With one it is centred on the chain's last sampled
 * work metric x and reaches growth * time(x) / slope(x) to either side,
 * from the last segment's line (for time proportional to x^k that is
 * growth * x / k).  The paper sets the width "proportionally" to that
 * product and calls the factor the interval growth factor; reaching it
 * to either side makes the factor what the chain may grow by per sample
 * (10% of x for linear time), and halves the samples a range needs
 * against the full width (bench/plan/synthetic: 426 against 734 on
 * average) for the same error.  The width is clamped to
 * [IOI_MIN_WIDTH, x - lo + IOI_MIN_WIDTH]: a flat or falling segment (a
 * fixed overhead dominating small work metrics) would otherwise ask for
 * an interval so wide that almost no sample lands near the chain's end;
 * the clamp still lets a flat profile grow by half its length per step.
 */
static void interval(struct planner *pl, double *a, double *b)
{
	const struct sibyl_plan_params *p = pl->p;
	double lo = (double)p->lo, hi = (double)p->hi;
	double w;

	if (!pl->have_chain) {
		/* ... but never past growth * (hi - lo): the start needs samples
		 * near the lower bound, not spread over the range. */
		w = IOI_MIN_WIDTH * ldexp(1, (int)fmin(60, pl->without_chain / PRECHAIN_DOUBLING));
		w = fmax(w, RESOLUTION * lo);
		w = fmin(w, fmax(IOI_MIN_WIDTH, p->growth * (hi - lo)));
		*a = lo;
		*b = fmin(hi, lo + w);
		return;
	}
	struct sibyl_ols_fit f;
	double x = pl->m.nodes[pl->ccol].x;

	sibyl_matrix_fit(&pl->m, pl->crow, pl->ccol, &f);
	double y = sibyl_ols_predict(&f, x), wmax = x - lo + IOI_MIN_WIDTH;

	w = f.b > 0 && y > 0 ? 2 * p->growth * y / f.b : wmax;
	w = fmin(fmax(w, fmax(IOI_MIN_WIDTH, RESOLUTION * x)), wmax);
	*a = fmax(lo, x - w / 2);
	*b = fmin(hi, x + w / 2);
	/* Keep the next sampled work metric past the chain's end inside: if
	 * an anomalous sample there blocks the chain, more samples at it
	 * average it away instead of the planner waiting forever. */
	if (pl->ccol + 1 < pl->m.count)
		*b = fmax(*b, fmin(hi, pl->m.nodes[pl->ccol + 1].x));
}

/* The range's ends are sampled exactly, once each: the profile starts and
 * ends there, and the chain can only span the range if it holds them.  A
 * sample left out unguarded is taken again first. */
static uint64_t next_metric(struct planner *pl)
{
	const struct sibyl_plan_params *p = pl->p;
	double a, b;

	if (pl->skipped_in_row)
		return pl->last;
	if (pl->verify >= 0) {
		uint64_t x = (uint64_t)pl->verify;

		pl->verify = -1;
		pl->verified++;
		return x;
	}
	if (pl->m.count == 0)
		return p->lo;
	interval(pl, &a, &b);
	if (b >= (double)p->hi && sibyl_matrix_find(&pl->m, (double)p->hi) < 0)
		return p->hi;
	uint64_t ia = (uint64_t)ceil(a), ib = (uint64_t)floor(b);

	return sibyl_random_between(&pl->rng, ia, ib < ia ? ia : ib);
}

static int record(struct planner *pl, uint64_t x, double y)
{
	if (pl->ntaken == pl->captaken) {
		pl->captaken = pl->captaken ? 2 * pl->captaken : 256;
		pl->taken = sibyl_xreallocarray(pl->taken, pl->captaken, sizeof(*pl->taken));
	}
	pl->taken[pl->ntaken++] = (struct sibyl_point){ (double)x, y };
	size_t i;

	if (sibyl_matrix_insert(&pl->m, (double)x, y, &i))
		return -1;
	sibyl_chain_update(&pl->m, i);
	pl->have_chain = sibyl_chain_best(&pl->m, &pl->crow, &pl->ccol);
	if (!pl->have_chain)
		pl->without_chain++;
	return 0;
}

/* The chain so far as points and segments (none before the first
 * segment), and every sample. */
static struct sibyl_profile *make_profile(struct planner *pl, bool complete)
{
	struct sibyl_profile *prof = sibyl_xcalloc(1, sizeof(*prof));
	const struct sibyl_matrix *m = &pl->m;

	prof->lo = (double)pl->p->lo;
	prof->hi = (double)pl->p->hi;
	prof->complete = complete;
	if (pl->have_chain) {
		prof->segments = sibyl_chain_segments(m, pl->crow, pl->ccol, &prof->nsegments);
		prof->points = sibyl_chain_points(prof->segments, prof->nsegments, prof->lo,
						  m->nodes[pl->ccol].x, &prof->npoints);
	}
	prof->nsamples = m->samples;
	prof->samples = sibyl_xmalloc(m->samples * sizeof(*prof->samples));
	size_t k = 0;

	for (size_t i = 0; i < m->count; i++)
		for (size_t j = 0; j < m->nodes[i].nys; j++)
			prof->samples[k++] = (struct sibyl_point){ m->nodes[i].x, m->nodes[i].ys[j] };
	return prof;
}

static bool over_limit(struct planner *pl, double t0, struct sibyl_plan_result *r)
{
	const struct sibyl_plan_params *p = pl->p;
	double s = (double)(sibyl_mono_ns() - t0) * 1e-9;

	/* Samples left out cost their time too, so they count. */
	if (p->max_samples && pl->m.samples + pl->skipped >= p->max_samples)
		snprintf(r->message, sizeof(r->message), "stopped at the safety limit of %zu "
			 "samples (--max-samples)", p->max_samples);
	else if (p->max_seconds > 0 && s >= p->max_seconds)
		snprintf(r->message, sizeof(r->message), "stopped at the safety limit of %g "
			 "seconds (--max-seconds)", p->max_seconds);
	else
		return false;
	r->status = SIBYL_PLAN_LIMIT;
	return true;
}

/* Stop when no line can fit what was measured (diagnose.h), or ask for a
 * jump between metrics measured once to be verified (at most a quarter
 * of the samples go to that). */
static bool diagnosed(struct planner *pl, struct sibyl_plan_result *r)
{
	struct sibyl_diagnosis d;

	sibyl_diagnose(&pl->m, pl->p->sample_error, &d);
	if (d.verdict == SIBYL_VERDICT_NONE) {
		if (d.verify >= 0 && 4 * pl->verified < pl->m.samples)
			pl->verify = d.verify;
		return false;
	}
	/* Repeats scatter on a busy machine whatever the implementation: with
	 * the worker pre-empted in over a quarter of the samples, the scatter
	 * says nothing of it (a CI run beside other tests stopped OpenBLAS's
	 * plan at 23 samples), and the speed guard keeps looking for calm. */
	if (d.verdict == SIBYL_VERDICT_SCATTER && 4 * pl->preempted > pl->m.samples)
		return false;
	/* Nor does either verdict when a quarter of the measurements came
	 * back unguarded: the guard could not wait out a busy hour, and samples
	 * kept in slow phases sit 1.7 times above their guarded neighbours
	 * (insertion sort of 8024 and 8027 ints: 5.3 and 9.2 ms), a staircase
	 * or a scatter that is the machine's, not the implementation's. */
	if (4 * pl->unguarded > pl->measured)
		return false;
	r->status = SIBYL_PLAN_DIAGNOSED;
	r->verdict = d.verdict == SIBYL_VERDICT_METRIC ? SIBYL_STOP_METRIC : SIBYL_STOP_SCATTER;
	sibyl_seterr(r->message, sizeof(r->message), "%s; %s", d.why,
		 d.verdict == SIBYL_VERDICT_METRIC ?
		 "plan where the program calls (--from-trace TRACE --function NAME), at listed "
		 "work metrics (--metrics FILE), or with a metric that orders time "
		 "(docs/adapter.md)" : "no line can fit them, so planning stopped");
	return true;
}

static bool done(const struct planner *pl)
{
	return pl->have_chain && pl->m.nodes[pl->ccol].x == (double)pl->p->hi;
}

/* The result of a plan, its matrix freed. */
static void finish(struct planner *pl, double t0, struct sibyl_plan_result *r)
{
	r->seconds = ((double)sibyl_mono_ns() - t0) * 1e-9;
	r->samples = pl->m.samples;
	r->unique = pl->m.count;
	r->skipped = pl->skipped;
	r->verified = pl->verified;
	r->chain_end = pl->have_chain ? pl->m.nodes[pl->ccol].x : (double)pl->p->lo - 1;
	/* A stop before the first segment still keeps what was measured: a
	 * profile with samples and no points. */
	if (pl->m.samples)
		r->profile = make_profile(pl, r->status == SIBYL_PLAN_DONE);
	r->taken = pl->taken;
	sibyl_matrix_free(&pl->m);
}

int sibyl_plan_run(const struct sibyl_plan_params *p, sibyl_measure_fn measure,
		   void *ctx, sibyl_progress_fn progress, void *pctx,
		   struct sibyl_plan_result *r)
{
	struct planner pl = { .p = p, .rng = p->seed, .verify = -1 };
	struct sibyl_matrix_params mp = { p->segment_error, p->sample_error, p->confidence,
					  p->time_floor, p->fit_error, p->relative_fit };
	double t0 = (double)sibyl_mono_ns();

	memset(r, 0, sizeof(*r));
	if (sibyl_plan_check(p, r->message, sizeof(r->message))) {
		r->status = SIBYL_PLAN_FAILED;
		r->chain_end = (double)p->lo - 1;
		return -1;
	}
	sibyl_matrix_init(&pl.m, &mp);
	r->status = SIBYL_PLAN_DONE;
	while (!done(&pl) && !over_limit(&pl, t0, r)) {
		uint64_t x = next_metric(&pl);
		double y;
		char why[400];
		int rc = measure(ctx, x, &y, why, sizeof(why));

		if (rc < 0) {
			snprintf(r->message, sizeof(r->message), "%s", why);
			r->status = SIBYL_PLAN_FAILED;
			break;
		}
		pl.measured++;
		pl.unguarded += rc == SIBYL_MEASURE_UNGUARDED;
		if (rc == SIBYL_MEASURE_UNGUARDED && pl.skipped_in_row < UNGUARDED_SKIPS) {
			if (!pl.skipped_in_row++ || y < pl.last_fastest)
				pl.last_fastest = y;
			pl.skipped++;
			pl.last = x;
			continue;
		}
		if (rc == SIBYL_MEASURE_UNGUARDED)
			y = fmin(y, pl.last_fastest);
		pl.skipped_in_row = 0;
		pl.preempted += rc == SIBYL_MEASURE_PREEMPTED;
		if (record(&pl, x, y)) {
			snprintf(r->message, sizeof(r->message), "out of memory");
			r->status = SIBYL_PLAN_FAILED;
			break;
		}
		if (progress)
			progress(pctx, pl.m.samples,
				 pl.have_chain ? pl.m.nodes[pl.ccol].x : (double)p->lo - 1);
		if (!p->no_diagnosis && !done(&pl) && diagnosed(&pl, r))
			break;
	}
	finish(&pl, t0, r);
	return r->status == SIBYL_PLAN_DONE ? 0 : -1;
}

void sibyl_plan_result_free(struct sibyl_plan_result *r)
{
	sibyl_profile_free(r->profile);
	free(r->taken);
	json_decref(r->first_calls);
	memset(r, 0, sizeof(*r));
}
