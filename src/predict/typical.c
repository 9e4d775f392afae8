/*
 * How programs meet the machine, per call (docs/predict.md, "Typical
 * speed").  A profile planned under the speed guard is the machine at
 * its best; the planner also timed, for each sample, one round as the
 * runs came (stats.typical.samples: [work, seconds, typical seconds]).
 * A call's factor is their ratio of sums over the samples of the profile
 * segment that predicts it (the slowdown depends on the work: OpenBLAS
 * slowed by 1.33 at 64^3 and 1.16 at 320^3 in the same slow phases), or
 * over all samples when its segment has fewer than MIN_SAMPLES.
 */
#include "predict/internal.h"

#include "core/alloc.h"
#include "model/profile.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#define MIN_SAMPLES 3

struct predict_typical {
	size_t n;
	const struct sibyl_segment *segments;
	double *factor;		/* per segment, NAN: too few samples */
	double all;
};

/* The segment holding w, else the nearest. */
static size_t segment_near(const struct predict_typical *t, double w)
{
	size_t best = 0;
	double gap = INFINITY;

	for (size_t i = 0; i < t->n; i++) {
		double d = fmax(0, fmax(t->segments[i].from - w, w - t->segments[i].to));

		if (d < gap) {
			gap = d;
			best = i;
		}
	}
	return best;
}

struct predict_typical *predict_typical_new(const struct sibyl_profile *p)
{
	json_t *typ = p->stats ? json_object_get(p->stats, "typical") : NULL;
	json_t *samples = json_object_get(typ, "samples"), *s;
	double *sum, *slow, all = 0, all_slow = 0;
	size_t i, k, *count;

	if (!json_is_array(samples) || !json_array_size(samples))
		return NULL;
	struct predict_typical *t = sibyl_xcalloc(1, sizeof(*t));

	t->n = p->nsegments;
	t->segments = p->segments;
	t->factor = sibyl_xcalloc(t->n ? t->n : 1, sizeof(double));
	sum = sibyl_xcalloc(t->n ? t->n : 1, sizeof(double));
	slow = sibyl_xcalloc(t->n ? t->n : 1, sizeof(double));
	count = sibyl_xcalloc(t->n ? t->n : 1, sizeof(size_t));
	json_array_foreach(samples, i, s) {
		double w = json_number_value(json_array_get(s, 0));
		double sec = json_number_value(json_array_get(s, 1));
		double typical = json_number_value(json_array_get(s, 2));

		if (!(sec > 0) || !(typical > 0) || !isfinite(sec + typical))
			continue;
		all += sec;
		all_slow += typical;
		for (k = 0; k < t->n; k++)
			if (w >= p->segments[k].from && w <= p->segments[k].to) {
				sum[k] += sec;
				slow[k] += typical;
				count[k]++;
			}
	}
	t->all = all > 0 ? all_slow / all : 1;
	for (k = 0; k < t->n; k++)
		t->factor[k] = count[k] >= MIN_SAMPLES ? slow[k] / sum[k] : NAN;
	free(sum);
	free(slow);
	free(count);
	return t;
}

double predict_typical_at(const struct predict_typical *t, double w)
{
	if (!t)
		return 1;
	if (!t->n)
		return t->all;
	double f = t->factor[segment_near(t, w)];

	return isnan(f) ? t->all : f;
}

void predict_typical_free(struct predict_typical *t)
{
	if (t)
		free(t->factor);
	free(t);
}

void predict_typical_calls(struct sibyl_prediction *out, struct predict_calls *calls)
{
	for (size_t k = 0, from = 0; k < out->nkernels; k++) {
		size_t to = predict_kernel_end(calls, from);
		struct predict_typical *t = predict_typical_new(out->kernels[k].model->profile);

		out->kernels[k].typical_known = t != NULL;
		for (size_t i = from; i < to; i++)
			calls->v[i].typical = predict_typical_at(t, calls->v[i].work);
		predict_typical_free(t);
		from = to;
	}
}
