/*
 * Several traces of one command (predict.h, sibyl_predict_runs).  One
 * traced run fixes the time outside the modelled calls, and with it most
 * of the prediction, at what that run met: on this VM the same program
 * ran up to 20% apart from one run to the next (bench/predict), which
 * no profile's interval holds.  With n traces, each is predicted alone;
 * the one of median global speedup speaks for them, and the spread of
 * their totals gives what a further run adds to the interval: the
 * interval is centred on one draw (that trace's total), so a further
 * run differs from it by two draws' scatter, t(n-1) * s * sqrt(2), in
 * quadrature with the profile's (the fit and the implementation's
 * scatter, measured apart).
 */
#include "predict/predict.h"

#include "core/alloc.h"
#include "model/ols.h"

#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>

/* {the chosen trace's, min, max} of x[0..n) (x is sorted). */
static void summary(double *x, size_t n, double chosen, double out[3])
{
	gsl_sort(x, 1, n);
	out[0] = chosen;
	out[1] = x[0];
	out[2] = x[n - 1];
}

size_t sibyl_predict_runs(struct sibyl_prediction *p, size_t n)
{
	if (n < 2)
		return 0;
	double *total = sibyl_xcalloc(n, sizeof(*total)), *speedup = sibyl_xcalloc(n, sizeof(*speedup));
	size_t *order = sibyl_xcalloc(n, sizeof(*order));

	for (size_t i = 0; i < n; i++) {
		total[i] = p[i].predicted_total_s;
		speedup[i] = p[i].global_speedup;
	}
	/* The trace of median S_G (the lower of the two middle ones): the
	 * totals predicted agree closely (the accelerated calls' times come
	 * from the profile), S_G follows each run's own T. */
	gsl_sort_index(order, speedup, 1, n);
	struct sibyl_prediction *m = &p[order[(n - 1) / 2]];
	double s = gsl_stats_sd(total, 1, n);

	m->runs.n = (unsigned)n;
	m->runs.half_s = sibyl_t_quantile(0.95, (double)(n - 1)) * s * sqrt(2);
	summary(total, n, m->predicted_total_s, m->runs.total);
	summary(speedup, n, m->global_speedup, m->runs.speedup);
	m->runs.profile_half_s = m->half_s;
	m->half_s = hypot(m->half_s, m->runs.half_s);
	/* The dominant group's share is now of a larger variance. */
	if (m->half_s > 0)
		m->dominant_share *= pow(m->runs.profile_half_s / m->half_s, 2);
	size_t median = order[(n - 1) / 2];

	free(total);
	free(speedup);
	free(order);
	return median;
}
