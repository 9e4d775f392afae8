/* Piecewise-linear profile evaluation. */
#include "model/profile.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>

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
