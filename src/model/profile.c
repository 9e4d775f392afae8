/* Piecewise-linear profile evaluation. */
#include "model/profile.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void sibyl_profile_free(struct sibyl_profile *p)
{
	if (!p)
		return;
	free(p->name);
	free(p->work_metric);
	free(p->points);
	free(p->samples);
	free(p->segments);
	for (size_t i = 0; i < p->npieces; i++)
		free(p->pieces[i].name);
	free(p->pieces);
	json_decref(p->provenance);
	json_decref(p->stats);
	json_decref(p->coverage);
	free(p);
}

double sibyl_profile_eval(const struct sibyl_profile *p, double x)
{
	const struct sibyl_point *v = p->points;
	size_t n = p->npoints;

	if (n == 0)
		return NAN;
	if (n == 1)
		return v[0].y;
	/* Binary search for the first point with v[k].x >= x, then use the
	 * piece ending there (the first/last piece outside the points). */
	size_t lo = 1, hi = n - 1;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v[mid].x < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct sibyl_point *p0 = &v[lo - 1], *p1 = &v[lo];

	if (p1->x == p0->x)
		return p1->y;
	return p0->y + (p1->y - p0->y) * (x - p0->x) / (p1->x - p0->x);
}

long sibyl_profile_piece_at(const struct sibyl_profile *p, double x)
{
	for (size_t i = 0; i < p->npieces; i++)
		if (x >= p->pieces[i].from && x <= p->pieces[i].to)
			return (long)i;
	return -1;
}

bool sibyl_profile_covered(const struct sibyl_profile *p, double *a, double *b)
{
	if (!p->npoints)
		return false;
	*a = p->points[0].x;
	*b = p->points[p->npoints - 1].x;
	return true;
}

/* Whether x is one of the ascending metrics of a guided plan. */
static bool sampled(json_t *metrics, double x)
{
	size_t lo = 0, hi = json_array_size(metrics);

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		double m = json_number_value(json_array_get(metrics, mid));

		if (m == x)
			return true;
		if (m < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

enum sibyl_cover sibyl_profile_cover(const struct sibyl_profile *p, double x)
{
	double a, b;
	json_t *metrics = json_object_get(p->coverage, "metrics");

	if (!sibyl_profile_covered(p, &a, &b) || x < a)
		return SIBYL_COVER_BELOW;
	if (x > b)
		return SIBYL_COVER_ABOVE;
	if (json_is_array(metrics) && !sampled(metrics, x))
		return SIBYL_COVER_BETWEEN;
	return SIBYL_COVER_INSIDE;
}

double sibyl_profile_first_call_excess(const struct sibyl_profile *p)
{
	json_t *o = p->stats ? json_object_get(p->stats, "one_time") : NULL;
	json_t *first = json_object_get(o, "first_call_seconds");
	json_t *warm = json_object_get(o, "first_call_sample_seconds");

	if (!json_is_number(first) || !json_is_number(warm))
		return -1;
	return fmax(0, json_number_value(first) - json_number_value(warm));
}

bool sibyl_profile_first_calls_in_points_base(const struct sibyl_profile *p)
{
	json_t *o = p->stats ? json_object_get(p->stats, "one_time") : NULL;
	json_t *base = json_object_get(json_object_get(o, "first_calls"), "base");

	return json_is_string(base) && !strcmp(json_string_value(base), "points");
}

double sibyl_profile_first_call_at(const struct sibyl_profile *p, double x)
{
	json_t *o = p->stats ? json_object_get(p->stats, "one_time") : NULL;
	json_t *metrics = json_object_get(json_object_get(o, "first_calls"), "metrics");
	size_t lo = 0, hi = json_array_size(metrics);

	while (lo < hi) {	/* ascending by metric */
		size_t mid = lo + (hi - lo) / 2;
		json_t *r = json_array_get(metrics, mid);
		double m = json_number_value(json_array_get(r, 0));

		if (m == x) {
			double first = json_number_value(json_array_get(r, 1));
			double warm = json_number_value(json_array_get(r, 2));

			return warm > 0 ? fmax(0, sibyl_profile_eval(p, x)) * (first / warm - 1) : NAN;
		}
		if (m < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NAN;
}
