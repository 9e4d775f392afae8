/* OCLMan for a new kernel: its OCLBoi, the time model, an interval. */
#include "kmodel/predict.h"
#include "core/alloc.h"
#include "core/clock.h"
#include "core/log.h"
#include "model/ols.h"

#include <gsl/gsl_multifit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Beyond this factor of the profiled sizes a prediction extrapolates
 * far: the thesis' kernel 2 failed there (ch. 21.4.2). */
#define FAR 4.0
/* The interval's level: 5%..95%, as the time model's ratio spread. */
#define LEVEL 0.90

/* OCLBoi's features of global size g: 1, x and, for a polynomial kind,
 * x^2, with x = g / gmax (g^2 is 10^8 times g otherwise); 1 and ln g
 * for the power law's line in log-log (`logs`). */
static size_t features(const struct sibyl_kmodel_boi *b, bool logs, double g, double *f)
{
	double x = g / b->gmax;

	f[0] = 1, f[1] = logs ? log(g) : x, f[2] = x * x;
	return b->spec.poly2 && !logs ? 3 : 2;
}

/* The kernel's time-weighted count u = w.c of each sample (the launch
 * cost is constant, it has no uncertainty); whether every one is > 0. */
static bool weighted(const struct sibyl_kmodel_device *m, const struct sibyl_kmodel_kfit *k,
		     double *u)
{
	bool positive = true;

	for (size_t i = 0; i < k->ns; i++) {
		u[i] = sibyl_kmodel_device_time(m, k->C + i * k->nf, (const char *const *)k->names,
						k->nf) - m->tm.b;
		positive &= u[i] > 0;
	}
	return positive;
}

/* Half-width of the prediction interval at g of y regressed on
 * OCLBoi's features. */
static double half(const struct sibyl_kmodel_kfit *k, bool logs, const double *y, double g)
{
	double f[3], yhat, yerr, chisq;
	size_t p = features(&k->b, logs, g, f), n = k->ns;

	/* n > p: sibyl_kmodel_predict refused fewer samples. */
	gsl_matrix *X = gsl_matrix_alloc(n, p), *cov = gsl_matrix_alloc(p, p);
	gsl_vector *c = gsl_vector_alloc(p);
	gsl_vector_const_view yv = gsl_vector_const_view_array(y, n);
	gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(n, p);
	gsl_vector_view at = gsl_vector_view_array(f, p);

	for (size_t i = 0; i < n; i++) {
		double fi[3];

		features(&k->b, logs, k->g[i], fi);
		for (size_t j = 0; j < p; j++)
			gsl_matrix_set(X, i, j, fi[j]);
	}
	gsl_multifit_linear(X, &yv.vector, c, cov, &chisq, w);
	gsl_multifit_linear_est(&at.vector, c, cov, &yhat, &yerr);
	double s2 = chisq / (double)(n - p);

	gsl_multifit_linear_free(w);
	gsl_matrix_free(X), gsl_matrix_free(cov);
	gsl_vector_free(c);
	return sibyl_t_quantile(LEVEL, (double)(n - p)) * sqrt(s2 + yerr * yerr);
}

/* OCLBoi's share of the interval around the estimate e at g, as bounds
 * *a <= e <= *z; s scales the time model (the calibration).  Least
 * squares on OCLBoi's features for u; for the power law, ln u on ln g,
 * the line its counts were fitted on (a quadratic in g would follow
 * neither its shape nor its spread, which grows with g), so the bounds
 * are e exp(-h) and e exp(h), unless a u is 0 (no logarithm): then a
 * line in g, the power law's rule for counts that are sometimes 0. */
static void boi_band(const struct sibyl_kmodel_device *m, const struct sibyl_kmodel_kfit *k,
		     double g, double e, double s, double *a, double *z)
{
	double *u = sibyl_xcalloc(k->ns + 1, sizeof(*u));
	bool logs = weighted(m, k, u) && k->b.power;

	for (size_t i = 0; logs && i < k->ns; i++)
		u[i] = log(u[i]);
	double h = half(k, logs, u, g);

	*a = logs ? e * exp(-h) : e - s * h;
	*z = logs ? e * exp(h) : e + s * h;
	free(u);
}

/* The time model's scale for this kernel, from its profiled times
 * (sibyl_kmodel_profile_scale: at the largest profiled size, of the time
 * above the launch; 0 when the device model has no calibrated cross
 * validation, or no profiled time was measured, or the times are
 * another device's, or of the same at another thread count). */
static double calibration(const struct sibyl_kmodel_device *m, const struct sibyl_kmodel_kfit *k)
{
	double *p = sibyl_xcalloc(k->ns + 1, sizeof(*p));
	bool timed = false;

	for (size_t i = 0; i < k->ns; i++) {
		p[i] = sibyl_kmodel_device_time(m, k->C + i * k->nf, (const char *const *)k->names,
						k->nf);
		timed |= k->t[i] > 0 && p[i] > 0;
	}
	double s = timed && m->cv.cal_hi > 0 &&
		   sibyl_kmodel_same_device(k->device, k->compute_units, m->device,
					    m->compute_units) ?
		   sibyl_kmodel_profile_scale(k->g, k->t, p, k->ns, fmax(0, m->tm.b)) : 0;

	free(p);
	return s;
}

static void estimate(const struct sibyl_kmodel_device *m, const struct sibyl_kmodel_kfit *k,
		     double g, struct sibyl_kmodel_prediction *p)
{
	double *c = sibyl_xcalloc(k->nf + 1, sizeof(*c)), s = calibration(m, k);
	/* Calibrated, the spread is that of calibrated held-out kernels. */
	double lo = s > 0 ? m->cv.cal_lo : m->cv.lo, hi = s > 0 ? m->cv.cal_hi : m->cv.hi;

	sibyl_kmodel_boi_predict(&k->b, g, c);
	p->uncalibrated = sibyl_kmodel_device_time(m, c, (const char *const *)k->names, k->nf);
	p->calibration = s;
	s = s > 0 ? s : 1;
	/* No negative time, whatever a linear model's weights say. */
	p->seconds = fmax(0, sibyl_kmodel_calibrated(p->uncalibrated, s, fmax(0, m->tm.b)));
	double a, z;

	boi_band(m, k, g, p->seconds, s, &a, &z);
	p->oclboi_half = (z - a) / 2;
	/* No time is negative, whatever a ratio of a poor fit says. */
	a = fmax(0, a);

	p->low = fmax(0, fmin(a * lo, a * hi));
	p->high = fmax(0, fmax(z * lo, z * hi));
	p->gmin = k->b.gmin;
	p->gmax = k->b.gmax;
	p->oclboi = k->b.kind;
	p->oclboi_cv_r2 = k->b.score;
	p->far = g > FAR * p->gmax || g < p->gmin / FAR;
	free(c);
}

int sibyl_kmodel_predict(const struct sibyl_kmodel_device *m, const struct sibyl_kmodel_kfit *k,
			 double g, struct sibyl_kmodel_prediction *p, char *err, size_t errlen)
{
	uint64_t t0 = sibyl_mono_ns();

	double f[3];
	size_t terms = features(&k->b, k->b.power, 1, f);

	memset(p, 0, sizeof(*p));
	/* With no more samples than OCLBoi has terms, its fit leaves no
	 * residual to estimate its uncertainty from: the interval would be
	 * infinite. */
	if (k->ns <= terms)
		return sibyl_seterr(err, errlen, "kmodel: the kernel's OCLBoi (%s) has %zu terms "
				    "and needs at least %zu samples, not %zu: profile more sizes "
				    "(--profile) or samples (-n)", k->b.kind, terms, terms + 1, k->ns);
	if (k->dataset_version != m->dataset_version)
		return sibyl_seterr(err, errlen, "kmodel: the kernel's counts are named as in "
				    "dataset version %d, the device model's as in version %d: %s",
				    k->dataset_version, m->dataset_version,
				    k->dataset_version < m->dataset_version ?
				    "fit the kernel again (kmodel fit)" :
				    "train the device model on a new dataset (kmodel dataset, "
				    "kmodel train-device)");
	if (k->clock != m->clock)
		return sibyl_seterr(err, errlen, "kmodel: the kernel's profile has %s times, the "
				    "device model predicts %s time: fit the kernel with --clock %s",
				    sibyl_kmodel_clock_name(k->clock),
				    sibyl_kmodel_clock_name(m->clock),
				    sibyl_kmodel_clock_name(m->clock));
	if (strcmp(k->opt_level, m->opt_level))
		return sibyl_seterr(err, errlen, "kmodel: the kernel's counts are of -O%s IR, the "
				    "device model's of -O%s: profile the kernel at -O%s",
				    k->opt_level, m->opt_level, m->opt_level);
	estimate(m, k, g, p);
	p->fit_seconds = k->fit_seconds + (double)(sibyl_mono_ns() - t0) * 1e-9;
	return 0;
}
