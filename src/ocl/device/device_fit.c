/*
 * Statistics of repeated measurements and the transfer model fitted to a
 * bandwidth curve: seconds(bytes) = latency + bytes / bandwidth.
 *
 * The curve spans 64 B .. 1 GiB, seven orders of magnitude, so an
 * ordinary least-squares fit would be decided by the largest sizes alone
 * and its intercept (the latency) would be noise, often negative.  We
 * minimise the *relative* residuals instead, sum(((a + b x - t) / t)^2),
 * which is weighted least squares with weights 1/t^2 (numpy:
 * polyfit(x, t, 1, w=1/t)).  Every size then counts equally.
 */
#include "ocl/device/device_profile.h"

#include <gsl/gsl_fit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>

struct sibyl_stat sibyl_stat_of(double *samples, unsigned n)
{
	struct sibyl_stat s = { 0, 0, 0, n };

	if (n == 0)
		return s;
	gsl_sort(samples, 1, n);
	s.median = gsl_stats_median_from_sorted_data(samples, 1, n);
	s.min = samples[0];
	s.stdev = n > 1 ? gsl_stats_sd(samples, 1, n) : 0.0;
	return s;
}

static double max_rel_error(const struct sibyl_transfer_model *m, const double *x,
			    const double *t, size_t n)
{
	double worst = 0;

	for (size_t i = 0; i < n; i++) {
		double pred = m->latency_s + (m->bytes_per_s > 0 ? x[i] / m->bytes_per_s : 0);
		double e = fabs(pred - t[i]) / t[i];

		if (e > worst)
			worst = e;
	}
	return worst;
}

struct sibyl_transfer_model sibyl_transfer_fit(const double *x, const double *t, size_t n)
{
	struct sibyl_transfer_model m = { 0, 0, 0, (unsigned)n };
	double a = 0, b = 0, c00, c01, c11, chisq;
	double *w = malloc((n ? n : 1) * sizeof(*w));

	if (n == 0 || !w) {
		free(w);
		m.points = 0;
		return m;
	}
	for (size_t i = 0; i < n; i++)
		w[i] = 1.0 / (t[i] * t[i]);
	if (n >= 2)
		gsl_fit_wlinear(x, 1, w, 1, t, 1, n, &a, &b, &c00, &c01, &c11, &chisq);
	if (n < 2 || a < 0) {
		/* A negative latency is meaningless: fit through the origin. */
		a = 0;
		gsl_fit_wmul(x, 1, w, 1, t, 1, n, &b, &c11, &chisq);
	}
	if (b <= 0) {
		/* Time does not grow with size (noise over a short range): a
		 * constant cost, recorded as bandwidth 0 = unbounded. */
		double sw = 0, swt = 0;

		for (size_t i = 0; i < n; i++) {
			sw += w[i];
			swt += w[i] * t[i];
		}
		a = swt / sw;
		b = 0;
	}
	free(w);
	m.latency_s = a;
	m.bytes_per_s = b > 0 ? 1.0 / b : 0;
	m.max_rel_error = max_rel_error(&m, x, t, n);
	return m;
}

void sibyl_device_profile_fit(struct sibyl_device_profile *p)
{
	for (int d = 0; d < SIBYL_DIR_COUNT; d++) {
		const struct sibyl_bw_curve *c = &p->curve[d];
		double x[SIBYL_BW_MAX_POINTS], t[SIBYL_BW_MAX_POINTS];
		size_t n = 0;

		for (size_t i = 0; i < c->count; i++) {
			if (c->points[i].t.host.n == 0 || c->points[i].t.host.median <= 0)
				continue;
			x[n] = (double)c->points[i].bytes;
			t[n++] = c->points[i].t.host.median;
		}
		p->model[d] = sibyl_transfer_fit(x, t, n);
	}
}

double sibyl_device_transfer_seconds(const struct sibyl_device_profile *p,
				     enum sibyl_transfer_dir dir, uint64_t bytes)
{
	if ((unsigned)dir >= SIBYL_DIR_COUNT || p->model[dir].points == 0)
		return -1;
	if (bytes == 0)
		return 0;
	const struct sibyl_transfer_model *m = &p->model[dir];

	return m->latency_s + (m->bytes_per_s > 0 ? (double)bytes / m->bytes_per_s : 0);
}

double sibyl_device_transfer_seconds_measured(const struct sibyl_device_profile *p,
					      enum sibyl_transfer_dir dir, uint64_t bytes)
{
	if ((unsigned)dir >= SIBYL_DIR_COUNT || p->curve[dir].count == 0)
		return sibyl_device_transfer_seconds(p, dir, bytes);
	if (bytes == 0)
		return 0;
	const struct sibyl_bw_point *pt = p->curve[dir].points;
	size_t n = p->curve[dir].count;

	if (bytes <= pt[0].bytes)	/* latency-bound: no faster than the smallest */
		return pt[0].t.host.median;
	if (bytes >= pt[n - 1].bytes)	/* beyond the curve: the largest size's rate */
		return pt[n - 1].t.host.median * ((double)bytes / (double)pt[n - 1].bytes);
	size_t i = 1;

	while (pt[i].bytes < bytes)
		i++;
	double f = (double)(bytes - pt[i - 1].bytes) / (double)(pt[i].bytes - pt[i - 1].bytes);

	return pt[i - 1].t.host.median + f * (pt[i].t.host.median - pt[i - 1].t.host.median);
}

const char *sibyl_transfer_dir_name(enum sibyl_transfer_dir dir)
{
	static const char *names[SIBYL_DIR_COUNT] = { "h2d", "d2h", "d2d", "h2d_map",
						       "d2h_map" };

	return (unsigned)dir < SIBYL_DIR_COUNT ? names[dir] : "?";
}
