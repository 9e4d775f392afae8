/* What a line cannot fit (diagnose.h). */
#include "planner/diagnose.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Neighbours are metrics at most this far apart, relatively. */
#define NEAR 0.25
/* A jump: time up by more than this (beyond what time ∝ x² allows over
 * the step), or down by as much. */
#define JUMP 1.5
/* Verdicts need this much evidence. */
#define MIN_JUMPS 2
#define MIN_SCATTERED 4

struct node_view {
	double x, mean, lo, hi;
	size_t n;
};

static struct node_view view(const struct sibyl_node *nd)
{
	struct node_view v = { nd->x, 0, INFINITY, 0, nd->nys };

	for (size_t i = 0; i < nd->nys; i++) {
		v.mean += nd->ys[i];
		v.lo = fmin(v.lo, nd->ys[i]);
		v.hi = fmax(v.hi, nd->ys[i]);
	}
	v.mean /= (double)(nd->nys ? nd->nys : 1);
	return v;
}

static bool agrees(const struct node_view *v, double tolerance)
{
	return v->n >= 2 && v->hi <= v->lo * (1 + tolerance);
}

/* Seconds in a unit a reader takes in at a glance. */
static const char *human(double s, char *buf, size_t len)
{
	if (s < 1e-3)
		snprintf(buf, len, "%.3g us", s * 1e6);
	else if (s < 1)
		snprintf(buf, len, "%.3g ms", s * 1e3);
	else
		snprintf(buf, len, "%.3g s", s);
	return buf;
}

/* +1 for a jump up, -1 down, 0 none, between neighbours a and b. */
static int jump(const struct node_view *a, const struct node_view *b)
{
	if (!(a->x > 0) || b->x / a->x - 1 > NEAR || !(a->mean > 0))
		return 0;
	double r = b->mean / a->mean, step = b->x / a->x;

	return r > JUMP * step * step ? 1 : r < 1 / JUMP ? -1 : 0;
}

static void metric_verdict(struct sibyl_diagnosis *d, const struct node_view *a,
			   const struct node_view *b, size_t ups, size_t downs)
{
	char ta[32], tb[32];

	d->verdict = SIBYL_VERDICT_METRIC;
	snprintf(d->why, sizeof(d->why), "the work metric does not predict time: repeats at one "
		 "metric agree, yet near metrics differ far more, up %zu and down %zu times (%g: "
		 "%s, %g: %s)", ups, downs, a->x, human(a->mean, ta, sizeof(ta)), b->x,
		 human(b->mean, tb, sizeof(tb)));
}

static void scatter_verdict(struct sibyl_diagnosis *d, const struct node_view *v,
			    size_t scattered, size_t repeated)
{
	char lo[32], hi[32];

	d->verdict = SIBYL_VERDICT_SCATTER;
	snprintf(d->why, sizeof(d->why), "repeats at one work metric disagree far beyond "
		 "--sample-error at %zu of %zu metrics measured more than once (%g: %zu samples "
		 "from %s to %s)", scattered, repeated, v->x, v->n, human(v->lo, lo, sizeof(lo)),
		 human(v->hi, hi, sizeof(hi)));
}

void sibyl_diagnose(const struct sibyl_matrix *m, double sample_error,
		    struct sibyl_diagnosis *d)
{
	size_t ups = 0, downs = 0, scattered = 0, repeated = 0;
	struct node_view prev = { 0 }, shown[2] = { 0 }, worst = { 0 };

	memset(d, 0, sizeof(*d));
	d->verify = -1;
	for (size_t i = 0; i < m->count; i++) {
		struct node_view v = view(&m->nodes[i]);

		repeated += v.n >= 2;
		if (v.n >= 2 && v.hi > v.lo * (1 + fmax(3 * sample_error, 0.3))) {
			scattered++;
			if (v.hi / v.lo > worst.hi / fmax(worst.lo, 1e-300) || !worst.n)
				worst = v;
		}
		int j = i ? jump(&prev, &v) : 0;

		if (j && agrees(&prev, sample_error) && agrees(&v, sample_error)) {
			ups += j > 0;
			downs += j < 0;
			if (!shown[0].n)
				shown[0] = prev, shown[1] = v;
		} else if (j && d->verify < 0 && (prev.n == 1 || v.n == 1)) {
			d->verify = prev.n == 1 ? prev.x : v.x;
		}
		prev = v;
	}
	if (ups >= MIN_JUMPS && downs >= MIN_JUMPS)
		metric_verdict(d, &shown[0], &shown[1], ups, downs);
	else if (scattered >= MIN_SCATTERED && 2 * scattered >= repeated)
		scatter_verdict(d, &worst, scattered, repeated);
}
