/* A planning request: defaults and checks. */
#include "planner/request.h"
#include "planner/speed_guard.h"
#include "core/clock.h"
#include "core/log.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPEAT 1000
#define MAX_ROUNDS 100
#define MAX_SAMPLE_SECONDS 10.0
#define MAX_GUARD_WAIT 3600.0

void sibyl_sampling_defaults(struct sibyl_sampling *sp)
{
	*sp = (struct sibyl_sampling){ .repeat = 3, .min_seconds = 1e-3, .timeout = 10,
				       .guard_wait = 2, .rounds = 3,
				       .guard_tolerance = SIBYL_GUARD_TOLERANCE };
}

/* Named by the options that set them (docs/plan.md), in their units. */
int sibyl_sampling_check(const struct sibyl_sampling *sp, char *err, size_t errlen)
{
	if (sp->repeat < 1 || sp->repeat > MAX_REPEAT)
		return sibyl_seterr(err, errlen, "--repeat: %u is not between 1 and %d", sp->repeat,
				    MAX_REPEAT);
	if (sp->rounds < 1 || sp->rounds > MAX_ROUNDS)
		return sibyl_seterr(err, errlen, "--rounds: %u is not between 1 and %d", sp->rounds,
				    MAX_ROUNDS);
	if (!(sp->min_seconds >= 0 && sp->min_seconds <= MAX_SAMPLE_SECONDS))
		return sibyl_seterr(err, errlen, "--sample-time: %g ms is not between 0 and %g",
				    sp->min_seconds * 1e3, MAX_SAMPLE_SECONDS * 1e3);
	if (!(sp->timeout > 0))
		return sibyl_seterr(err, errlen, "--timeout: %g s is not above 0", sp->timeout);
	if (!(sp->guard_wait >= 0 && sp->guard_wait <= MAX_GUARD_WAIT))
		return sibyl_seterr(err, errlen, "--speed-guard: %g s is not between 0 and %g",
				    sp->guard_wait, MAX_GUARD_WAIT);
	if (!(sp->guard_tolerance > 0 && sp->guard_tolerance <= 1))
		return sibyl_seterr(err, errlen, "--speed-guard-tolerance: %g%% is not above 0 and "
				    "at most 100", 100 * sp->guard_tolerance);
	return 0;
}

void sibyl_plan_request_init(struct sibyl_plan_request *rq, const struct sibyl_adapter *a,
			     const char *source)
{
	memset(rq, 0, sizeof(*rq));
	rq->adapter = a;
	rq->source = source;
	sibyl_plan_defaults(&rq->params);
	rq->params.lo = a->min_metric;
	rq->params.hi = a->max_metric;
	/* Four ticks of the clock: finer differences are not measurable. */
	rq->params.time_floor = 4 * sibyl_seconds_resolution();
	rq->config = (struct sibyl_adapter_config){ .threads = 1, .seed = rq->params.seed,
						    .now = sibyl_seconds };
	sibyl_sampling_defaults(&rq->sampling);
	rq->progress = true;
}

int sibyl_plan_request_check(const struct sibyl_plan_request *rq, char *err, size_t errlen)
{
	const struct sibyl_adapter *a = rq->adapter;
	unsigned threads = rq->config.threads;

	if (!a)
		return sibyl_seterr(err, errlen, "no adapter to plan");
	if (sibyl_plan_check(&rq->params, err, errlen) ||
	    sibyl_sampling_check(&rq->sampling, err, errlen))
		return -1;
	if (threads < 1 || threads > SIBYL_MAX_THREADS)
		return sibyl_seterr(err, errlen, "--threads: %u is not between 1 and %d", threads,
				    SIBYL_MAX_THREADS);
	if (threads > 1 && !(a->flags & SIBYL_ADAPTER_THREADED))
		return sibyl_seterr(err, errlen, "--threads: adapter %s is single-threaded", a->name);
	if (!rq->config.now)
		return sibyl_seterr(err, errlen, "no clock for the adapter (config.now)");
	return 0;
}

void sibyl_plan_settings_defaults(struct sibyl_plan_settings *set)
{
	struct sibyl_plan_params p;
	struct sibyl_sampling sp;

	sibyl_plan_defaults(&p);
	sibyl_sampling_defaults(&sp);
	*set = (struct sibyl_plan_settings){
		.fit = p.relative_fit ? "relative" : "ols", .threads = 1, .seed = (long)p.seed,
		.max_samples = LONG_MIN, .repeat = sp.repeat, .rounds = sp.rounds,
		.segment_error = 100 * p.segment_error, .sample_error = 100 * p.sample_error,
		.growth = 100 * p.growth, .confidence = 100 * p.confidence,
		.fit_error = 100 * p.fit_error, .timeout = sp.timeout,
		.max_seconds = p.max_seconds, .speed_guard = sp.guard_wait,
		.sample_ms = 1e3 * sp.min_seconds, .guard_tolerance = 100 * sp.guard_tolerance,
	};
}

static int parse_range(const char *s, uint64_t *lo, uint64_t *hi, char *err, size_t errlen)
{
	char *end;

	errno = 0;
	if (!(*s >= '0' && *s <= '9'))
		goto bad;
	*lo = strtoull(s, &end, 10);
	if (errno || *end != ':' || !(end[1] >= '0' && end[1] <= '9'))
		goto bad;
	*hi = strtoull(end + 1, &end, 10);
	if (errno || *end)
		goto bad;
	return 0;
bad:
	return sibyl_seterr(err, errlen, "--range: '%s' is not LO:HI (two non-negative integers)",
			    s);
}

/* The counts as the planner takes them: none may be negative
 * (max-samples is LONG_MIN when not given). */
static int check_counts(const struct sibyl_plan_settings *set, char *err, size_t errlen)
{
	const struct { const char *name; long value; } counts[] = {
		{ "threads", set->threads }, { "seed", set->seed },
		{ "max-samples", set->max_samples }, { "repeat", set->repeat },
		{ "rounds", set->rounds },
	};

	for (size_t i = 0; i < sizeof(counts) / sizeof(*counts); i++)
		if (counts[i].value < 0 && !(i == 2 && counts[i].value == LONG_MIN))
			return sibyl_seterr(err, errlen, "--%s: %ld is negative", counts[i].name,
					    counts[i].value);
	return 0;
}

static unsigned as_unsigned(long v)
{
	return v > UINT_MAX ? UINT_MAX : (unsigned)v;
}

int sibyl_plan_request_apply(struct sibyl_plan_request *rq,
			     const struct sibyl_plan_settings *set, char *err, size_t errlen)
{
	struct sibyl_plan_params *p = &rq->params;

	if (check_counts(set, err, errlen) ||
	    (set->range && parse_range(set->range, &p->lo, &p->hi, err, errlen)))
		return -1;
	if (!set->fit || (strcmp(set->fit, "relative") && strcmp(set->fit, "ols")))
		return sibyl_seterr(err, errlen, "--fit: '%s' is neither 'relative' nor 'ols'",
				    set->fit ? set->fit : "");
	p->relative_fit = !strcmp(set->fit, "relative");
	p->segment_error = set->segment_error / 100;
	p->sample_error = set->sample_error / 100;
	p->growth = set->growth / 100;
	p->confidence = set->confidence / 100;
	p->fit_error = set->fit_error / 100;
	p->seed = (uint64_t)set->seed;
	rq->max_samples_default = set->max_samples == LONG_MIN;
	if (!rq->max_samples_default)
		p->max_samples = (size_t)set->max_samples;
	p->max_seconds = set->max_seconds;
	rq->config.threads = as_unsigned(set->threads);
	rq->config.seed = p->seed;
	rq->config.device = set->device;
	rq->config.platform = set->platform;
	rq->sampling = (struct sibyl_sampling){ as_unsigned(set->repeat), set->sample_ms * 1e-3,
						set->timeout, set->speed_guard,
						as_unsigned(set->rounds), set->guard_tolerance / 100,
						false };
	return sibyl_plan_request_check(rq, err, errlen);
}
