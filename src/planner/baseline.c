/* Baselines for --evaluate: uniform sampling, a power-law fit, per-size history. */
#include "planner/evaluate.h"
#include "core/alloc.h"

#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

uint64_t *sibyl_uniform_metrics(uint64_t lo, uint64_t hi, size_t budget, size_t *n)
{
	uint64_t *v = sibyl_xmalloc((budget + 2) * sizeof(*v));
	size_t k = 0;

	if (budget < 2)
		budget = 2;
	for (size_t i = 0; i < budget; i++) {
		uint64_t x = lo + (uint64_t)llround((double)(hi - lo) * (double)i / (double)(budget - 1));

		if (k == 0 || x > v[k - 1])
			v[k++] = x;
	}
	*n = k;
	return v;
}

/* The fit is made on u = x / xmax and v = y / ymax so the three
 * parameters have similar scales; residuals are relative to y. */
struct power_data {
	const double *u, *v;
	size_t n;
};

static int residuals(const gsl_vector *q, void *data, gsl_vector *f)
{
	const struct power_data *d = data;
	double a = gsl_vector_get(q, 0), b = gsl_vector_get(q, 1), c = gsl_vector_get(q, 2);

	for (size_t i = 0; i < d->n; i++)
		gsl_vector_set(f, i, (a * pow(d->u[i], b) + c - d->v[i]) / d->v[i]);
	return GSL_SUCCESS;
}

/* Starting point: c at half the smallest time, then log(v - c) against
 * log(u) by ordinary least squares gives b and a. */
static void log_space_start(const struct power_data *d, double q[3])
{
	double vmin = INFINITY, sx = 0, sy = 0, sxx = 0, sxy = 0, m = 0;

	for (size_t i = 0; i < d->n; i++)
		vmin = fmin(vmin, d->v[i]);
	q[2] = vmin / 2;
	for (size_t i = 0; i < d->n; i++) {
		if (d->v[i] <= q[2] || d->u[i] <= 0)
			continue;
		double lx = log(d->u[i]), ly = log(d->v[i] - q[2]);

		sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly, m++;
	}
	double den = m * sxx - sx * sx;

	q[1] = m >= 2 && den > 0 ? (m * sxy - sx * sy) / den : 1;
	q[0] = m >= 2 ? exp((sy - q[1] * sx) / m) : 1;
}

int sibyl_power_fit(const double *x, const double *y, size_t n, double *a, double *b,
		    double *c)
{
	double xmax = 0, ymax = 0, q0[3];

	for (size_t i = 0; i < n; i++) {
		xmax = fmax(xmax, x[i]);
		ymax = fmax(ymax, y[i]);
		if (!(y[i] > 0))
			return -1;
	}
	if (n < 3 || !(xmax > 0))
		return -1;
	double *u = sibyl_xmalloc(n * sizeof(*u)), *v = sibyl_xmalloc(n * sizeof(*v));

	for (size_t i = 0; i < n; i++)
		u[i] = x[i] / xmax, v[i] = y[i] / ymax;
	struct power_data d = { u, v, n };
	gsl_multifit_nlinear_fdf fdf = { residuals, NULL, NULL, n, 3, &d, 0, 0, 0 };
	gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
	gsl_multifit_nlinear_workspace *w =
		gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, n, 3);
	gsl_vector_view start = gsl_vector_view_array(q0, 3);
	int info, rc;

	log_space_start(&d, q0);
	gsl_set_error_handler_off();
	rc = gsl_multifit_nlinear_init(&start.vector, &fdf, w);
	if (rc == GSL_SUCCESS)
		rc = gsl_multifit_nlinear_driver(500, 1e-10, 1e-10, 1e-10, NULL, NULL, &info, w);
	const gsl_vector *q = gsl_multifit_nlinear_position(w);
	double qa = gsl_vector_get(q, 0), qb = gsl_vector_get(q, 1), qc = gsl_vector_get(q, 2);

	/* Keep the log-space start if the iteration wandered off. */
	if (!isfinite(qa) || !isfinite(qb) || !isfinite(qc))
		qa = q0[0], qb = q0[1], qc = q0[2];
	*a = qa * ymax / pow(xmax, qb);
	*b = qb;
	*c = qc * ymax;
	gsl_multifit_nlinear_free(w);
	free(u);
	free(v);
	return 0;
}

static int by_x(const void *a, const void *b)
{
	double u = ((const struct sibyl_point *)a)->x, v = ((const struct sibyl_point *)b)->x;

	return (u > v) - (u < v);
}

/*
 * StarPU keys its history on a footprint of the task's data sizes, so
 * only an exact repeat of a size is predicted from history; the means
 * of the sizes seen are what its regression is then fitted to.
 */
void sibyl_history_build(struct sibyl_history *h, const struct sibyl_point *m, size_t n)
{
	struct sibyl_point *s = sibyl_xmalloc((n ? n : 1) * sizeof(*s));

	memset(h, 0, sizeof(*h));
	memcpy(s, m, n * sizeof(*s));
	qsort(s, n, sizeof(*s), by_x);
	h->x = sibyl_xmalloc((n ? n : 1) * sizeof(*h->x));
	h->mean = sibyl_xmalloc((n ? n : 1) * sizeof(*h->mean));
	h->samples = n;
	for (size_t i = 0, j; i < n; i = j) {
		double sum = 0;

		for (j = i; j < n && s[j].x == s[i].x; j++)
			sum += s[j].y;
		h->x[h->n] = s[i].x;
		h->mean[h->n++] = sum / (double)(j - i);
	}
	h->have_fit = sibyl_power_fit(h->x, h->mean, h->n, &h->a, &h->b, &h->c) == 0;
	free(s);
}

double sibyl_history_predict(const struct sibyl_history *h, double x, bool *seen)
{
	size_t lo = 0, hi = h->n;

	while (lo < hi) {	/* the first metric >= x */
		size_t mid = lo + (hi - lo) / 2;

		if (h->x[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	*seen = lo < h->n && h->x[lo] == x;
	if (*seen)
		return h->mean[lo];
	if (h->have_fit)
		return h->a * pow(x, h->b) + h->c;
	if (!h->n)
		return NAN;
	/* Nearest of the two neighbours. */
	if (lo == h->n || (lo > 0 && x - h->x[lo - 1] < h->x[lo] - x))
		lo--;
	return h->mean[lo];
}

void sibyl_history_free(struct sibyl_history *h)
{
	free(h->x);
	free(h->mean);
	h->x = h->mean = NULL;
	h->n = 0;
}
