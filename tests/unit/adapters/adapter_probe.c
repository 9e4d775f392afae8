/* adapter_probe: the measurements behind the built-in adapters' ranges
 * and the matrix-multiply metric (docs/adapter.md). Not a test: it prints
 * timings, which on a shared machine are only indicative.
 *
 *   adapter_probe top [NAME] [THREADS]   time one sample at max_metric
 *   adapter_probe fit COUNT [drawn|planned]  least-squares cost of "matmul" (drawn:
 *       over the shapes --evaluate draws; planned: over those the planner
 *       samples); prints each shape's "m,n,p,time"
 *   adapter_probe refit FILE             the same fit over shapes printed before
 *   adapter_probe ratio NAME COUNT       time per metric unit, random shapes
 *   adapter_probe shapes NAME COUNT [THREADS]  paper-style check: COUNT random
 *       (m,n,p) against the adapter's own sample at the same metric
 */
#include "planner/adapters/adapters.h"
#include "planner/adapters/matmul.h"
#include "planner/adapters/opencl.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_multifit.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static const struct adapter_internal *find(const char *name)
{
	size_t n;
	const struct adapter_internal *const *in = adapter_internals(&n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(in[i]->adapter->name, name))
			return in[i];
	fprintf(stderr, "adapter_probe: no adapter %s\n", name);
	exit(2);
}

static void *start(const struct sibyl_adapter *a, unsigned threads)
{
	struct sibyl_adapter_config config = { .threads = threads, .seed = 1, .now = now };
	char err[256];
	void *state = NULL;
	if (a->init && a->init(&state, &config, err, sizeof(err)) != 0) {
		fprintf(stderr, "adapter_probe: %s: %s\n", a->name, err);
		exit(1);
	}
	return state;
}

/* The fastest of REPS runs, each on fresh inputs: on a shared machine
 * the minimum is the least disturbed. */
#define REPS 5
static double time_metric(const struct sibyl_adapter *a, void *state, uint64_t m)
{
	double best = INFINITY;
	for (int r = 0; r < REPS; r++) {
		void *sample = NULL;
		if (a->setup && a->setup(state, m, &sample) != 0)
			return -1;
		best = fmin(best, a->run(state, sample, m));
		if (a->teardown)
			a->teardown(state, sample);
	}
	return best;
}

static double run_metric(const struct sibyl_adapter *a, void *state, uint64_t m)
{
	void *sample;
	if (a->setup(state, m, &sample) != 0)
		exit(1);
	double t = a->run(state, sample, m);
	a->teardown(state, sample);
	return t;
}

static double run_params(const struct adapter_internal *in, void *state, const double *d)
{
	void *sample;
	if (in->params.setup(state, d, 3, &sample) != 0)
		exit(1);
	double t = in->adapter->run(state, sample, 0);
	in->adapter->teardown(state, sample);
	return t;
}

static double time_params(const struct adapter_internal *in, void *state,
			  const double *params, size_t np)
{
	double best = INFINITY;
	for (int r = 0; r < REPS; r++) {
		void *sample;
		if (in->params.setup(state, params, np, &sample) != 0)
			return -1;
		best = fmin(best, in->adapter->run(state, sample, 0));
		in->adapter->teardown(state, sample);
	}
	return best;
}

static void top(const char *only, unsigned threads)
{
	size_t n;
	const struct adapter_internal *const *in = adapter_internals(&n);
	printf("%-16s %12s %8s %10s\n", "adapter", "max_metric", "threads", "seconds");
	for (size_t i = 0; i < n; i++) {
		const struct sibyl_adapter *a = in[i]->adapter;
		if (only && strcmp(only, a->name))
			continue;
		unsigned t = a->flags & SIBYL_ADAPTER_THREADED ? threads : 1;
		void *state = start(a, t);
		double s = time_metric(a, state, a->max_metric);
		printf("%-16s %12llu %8u %10.4f\n", a->name,
		       (unsigned long long)a->max_metric, t, s);
		fflush(stdout);
		if (a->fini)
			a->fini(state);
	}
}

/* A random realistic shape: each dimension log-uniform in [1, 4096],
 * each matrix at most 2^22 floats, at most `max_macs` multiply-adds. */
static void random_shape(double *d, double max_macs)
{
	for (;;) {
		for (int i = 0; i < 3; i++)
			d[i] = floor(exp(log(4096.0) * (rand() / (RAND_MAX + 1.0)))) + 1;
		if (d[0] * d[1] <= 1 << 22 && d[1] * d[2] <= 1 << 22 &&
		    d[0] * d[2] <= 1 << 22 && d[0] * d[1] * d[2] <= max_macs)
			return;
	}
}

#define NF (MATMUL_NF + 1) /* and a constant */

/* The features of the shapes d at one streaming threshold, one row per
 * shape, with a constant 1 last: built once, fitted for every subset. */
static gsl_matrix *features(int count, const double (*d)[3], double cache_floats)
{
	gsl_matrix *x = gsl_matrix_alloc(count, NF);
	for (int i = 0; i < count; i++) {
		double f[NF];
		matmul_features_at(d[i], cache_floats, f);
		f[MATMUL_NF] = 1;
		for (int j = 0; j < NF; j++)
			gsl_matrix_set(x, i, j, f[j]);
	}
	return x;
}

/* Weighted least squares of the times t over the columns `on` of the
 * features x (the others' coefficients are 0): c gets the coefficients.
 * -1 when GSL cannot fit. */
static int fit_features(const gsl_matrix *x, const double *t, const bool *on, gsl_vector *c)
{
	int count = (int)x->size1, k = 0, rc;
	for (int j = 0; j < NF; j++)
		k += on[j];
	gsl_matrix *xk = gsl_matrix_alloc(count, k), *cov = gsl_matrix_alloc(k, k);
	gsl_vector *y = gsl_vector_alloc(count), *w = gsl_vector_alloc(count);
	gsl_vector *ck = gsl_vector_alloc(k);
	gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(count, k);
	double chisq;
	for (int j = 0, col = 0; j < NF; j++)
		if (on[j]) {
			gsl_vector_const_view from = gsl_matrix_const_column(x, j);
			gsl_matrix_set_col(xk, col++, &from.vector);
		}
	for (int i = 0; i < count; i++) {
		gsl_vector_set(y, i, t[i]);
		/* Relative error is what the planner is judged on. */
		gsl_vector_set(w, i, 1 / (t[i] * t[i]));
	}
	rc = gsl_multifit_wlinear(xk, w, y, ck, cov, &chisq, ws) ? -1 : 0;
	for (int j = 0, col = 0; j < NF; j++)
		gsl_vector_set(c, j, on[j] ? gsl_vector_get(ck, col++) : 0);
	gsl_multifit_linear_free(ws);
	gsl_matrix_free(xk);
	gsl_matrix_free(cov);
	gsl_vector_free(y);
	gsl_vector_free(w);
	gsl_vector_free(ck);
	return rc;
}

/* Mean relative residual of the coefficients c over the features x. */
static double residual(const gsl_matrix *x, const double *t, const gsl_vector *c)
{
	gsl_vector *pred = gsl_vector_alloc(x->size1);
	double err = 0;
	gsl_blas_dgemv(CblasNoTrans, 1, x, c, 0, pred);
	for (size_t i = 0; i < x->size1; i++)
		err += fabs(gsl_vector_get(pred, i) - t[i]) / t[i];
	gsl_vector_free(pred);
	return err / (double)x->size1;
}

/* The fit at one streaming threshold with every coefficient >= 0: a
 * negative cost per tile or per streamed element is not physical and
 * makes the metric of shapes far from the fitted ones negative.  Every
 * subset of the overhead features (2^7, with the constant) is fitted
 * and the best fit whose coefficients are all >= 0 kept: exact, unlike
 * dropping the most negative one at a time, and cheap at seven
 * features.  The MAC's weight is always in, as the unit.  Returns the
 * mean relative residual, NAN when nothing fits. */
static double fit_at(int count, const double (*d)[3], const double *t, double cache_floats,
		     gsl_vector *c)
{
	gsl_matrix *x = features(count, d, cache_floats);
	gsl_vector *trial = gsl_vector_alloc(NF);
	double best = NAN;
	for (unsigned mask = 0; mask < 1u << (NF - 1); mask++) {
		bool on[NF] = { true }, ok = true;
		for (int j = 1; j < NF; j++)
			on[j] = mask >> (j - 1) & 1;
		if (fit_features(x, t, on, trial))
			continue;
		for (int j = 0; j < NF; j++)
			ok = ok && gsl_vector_get(trial, j) >= (j ? 0 : DBL_MIN);
		double err = ok ? residual(x, t, trial) : NAN;
		if (ok && !(err >= best)) {
			best = err;
			gsl_vector_memcpy(c, trial);
		}
	}
	gsl_vector_free(trial);
	gsl_matrix_free(x);
	return best;
}

/* The work metric "matmul" gives the shape d, with the weights in use. */
static double metric_of(const double d[3])
{
	return find("matmul")->adapter->metric_of(d, 3);
}

/* Fit matmul_weights to the relative times t of the shapes d: each
 * streaming threshold in `caches` is tried; the best is printed last. */
static void fit_weights(int count, const double (*d)[3], const double *t)
{
	static const double caches[] = { 1 << 16, 1 << 17, 1 << 18 };
	gsl_vector *c = gsl_vector_alloc(NF), *best_c = gsl_vector_alloc(NF);
	double best = INFINITY, best_cache = 0, num = 0, den = 0, now = 0;
	/* The weights in use, scaled by relative least squares, to compare. */
	for (int i = 0; i < count; i++) {
		double q = metric_of(d[i]) / t[i];
		num += q, den += q * q;
	}
	for (int i = 0; i < count; i++)
		now += fabs(num / den * metric_of(d[i]) / t[i] - 1);
	printf("# weights in use: mean relative residual %.2f%%\n", 100 * now / count);
	for (size_t k = 0; k < sizeof(caches) / sizeof(*caches); k++) {
		double err = fit_at(count, d, t, caches[k], c);
		printf("# streaming beyond %.0f floats: mean relative residual %.2f%%\n", caches[k],
		       100 * err);
		if (err < best) {
			best = err, best_cache = caches[k];
			gsl_vector_memcpy(best_c, c);
		}
	}
	gsl_vector_free(c);
	if (!(best < INFINITY)) {
		fprintf(stderr, "adapter_probe: no fit (a shape timed at 0?)\n");
		exit(1);
	}
	double mac = gsl_vector_get(best_c, 0);
	printf("# threshold %.0f floats; MAC / (256x128x128 product) %.3g; weights in MACs:",
	       best_cache, mac);
	for (int j = 1; j < MATMUL_NF; j++)
		printf(" %.2f", gsl_vector_get(best_c, j) / mac);
	printf("; constant %.1f MACs\n", gsl_vector_get(best_c, MATMUL_NF) / mac);
	gsl_vector_free(best_c);
}

enum fit_shapes { LOG_UNIFORM, DRAWN, PLANNED, NOT_A_SET };

/* The shape the planner samples at the i-th metric of a low-discrepancy
 * sequence over the adapter's range (its own setup): spread evenly
 * whatever the count, and not the evaluation's metrics. */
static void planned_shape(const struct adapter_internal *in, void *state, int i, double *d)
{
	const struct sibyl_adapter *a = in->adapter;
	double golden = 0.6180339887498949, u = fmod(golden * (i + 1), 1.0);
	uint64_t metric = a->min_metric + (uint64_t)(u * (double)(a->max_metric - a->min_metric));
	void *sample;
	if (a->setup(state, metric, &sample) != 0)
		exit(1);
	in->params_of(sample, d);
	a->teardown(state, sample);
}

/* Fit matmul_weights over COUNT shapes: log-uniform ones of at most 1e8
 * multiply-accumulates (random_shape), the shapes the evaluation draws
 * (DRAWN: the adapter's own draw over its whole range, from a seed
 * stream of its own so they are not the evaluation's; the draw solves
 * one dimension through the current weights, which only decides which
 * shapes are drawn), or the shapes the planner samples (PLANNED), which
 * a fit must get right: every other shape is predicted through them.
 * Each shape is printed as it is timed, so `refit` can fit the same
 * measurements again. */
static void fit(int count, enum fit_shapes which)
{
	const struct adapter_internal *in = find("matmul");
	const struct sibyl_adapter *a = in->adapter;
	void *state = start(a, 1);
	double (*d)[3] = calloc((size_t)count, sizeof(*d)), *t = calloc((size_t)count, sizeof(*t));
	if (!d || !t) {
		fprintf(stderr, "adapter_probe: out of memory\n");
		exit(1);
	}
	for (int i = 0; i < count; i++) {
		if (which == DRAWN)
			in->params.draw(0xf17f17ull + 7919ull * (uint64_t)i, a->min_metric,
					a->max_metric, d[i]);
		else if (which == PLANNED)
			planned_shape(in, state, i, d[i]);
		else
			random_shape(d[i], 1e8);
		/* Time relative to a fixed reference product run alternately:
		 * a machine that slows down for seconds slows both. */
		static const double ref_shape[3] = { 256, 128, 128 };
		double ti = INFINITY, ref = INFINITY;
		for (int r = 0; r < REPS; r++) {
			ti = fmin(ti, run_params(in, state, d[i]));
			ref = fmin(ref, run_params(in, state, ref_shape));
		}
		t[i] = ti / ref;
		printf("%.0f,%.0f,%.0f,%.9g\n", d[i][0], d[i][1], d[i][2], t[i]);
		fflush(stdout);
		fprintf(stderr, "\r%d/%d shapes", i + 1, count);
	}
	fprintf(stderr, "\n");
	a->fini(state);
	fit_weights(count, (const double (*)[3])d, t);
	free(d);
	free(t);
}

/* The fit over the "m,n,p,time" lines `fit` printed (lines starting with
 * '#' are skipped). */
static int refit(const char *path)
{
	FILE *f = fopen(path, "r");
	double (*d)[3] = NULL, *t = NULL;
	int count = 0, cap = 0, rc = 1;
	char line[256];
	if (!f) {
		fprintf(stderr, "adapter_probe: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (count == cap) {
			cap = cap ? 2 * cap : 256;
			double (*nd)[3] = realloc(d, (size_t)cap * sizeof(*d));
			if (nd)
				d = nd;
			double *nt = realloc(t, (size_t)cap * sizeof(*t));
			if (nt)
				t = nt;
			if (!nd || !nt) {
				fprintf(stderr, "adapter_probe: out of memory\n");
				goto out;
			}
		}
		double *s = d[count];
		if (sscanf(line, "%lf,%lf,%lf,%lf", &s[0], &s[1], &s[2], &t[count]) != 4 ||
		    !(s[0] >= 1 && s[1] >= 1 && s[2] >= 1 && s[0] * s[1] * s[2] < 1e15 &&
		      t[count] > 0 && t[count] < 1e15)) {
			fprintf(stderr, "adapter_probe: %s: not m,n,p,time: %s", path, line);
			goto out;
		}
		count++;
	}
	if (count < 2 * NF)
		fprintf(stderr, "adapter_probe: %s: %d shapes, a fit needs %d\n", path, count, 2 * NF);
	else
		fit_weights(count, (const double (*)[3])d, t), rc = 0;
out:
	fclose(f);
	free(d);
	free(t);
	return rc;
}

/* The paper's evaluation without the planner's interpolation: for each
 * random (m, n, p), the time of that call against the time of the
 * adapter's own sample at the same metric (what a perfect profile would
 * predict). Runs alternate between the two and keep the fastest of each,
 * so a machine that slows down for a while slows both. */
static void shapes(const char *name, int count, unsigned threads)
{
	const struct adapter_internal *in = find(name);
	const struct sibyl_adapter *a = in->adapter;
	void *state = start(a, threads);
	double sum = 0, sq = 0, noise = 0;
	int used = 0;
	while (used < count) {
		double d[3];
		random_shape(d, 1e8);
		double m = a->metric_of(d, 3);
		if (m < a->min_metric || m > a->max_metric)
			continue;
		double t = INFINITY, ref = INFINITY, again = INFINITY;
		for (int r = 0; r < REPS; r++) {
			t = fmin(t, run_params(in, state, d));
			ref = fmin(ref, run_metric(a, state, (uint64_t)llround(m)));
			again = fmin(again, run_metric(a, state, (uint64_t)llround(m)));
		}
		double err = fabs(ref - t) / t * 100;
		double floor_err = fabs(again - ref) / ref * 100;
		printf("%6.0f %6.0f %6.0f metric %12.0f measured %10.6f predicted %10.6f err %6.1f%%"
		       " (same metric twice: %5.1f%%)\n", d[0], d[1], d[2], m, t, ref, err, floor_err);
		sum += err;
		sq += err * err;
		noise += floor_err;
		used++;
	}
	printf("%s: %d random shapes: mean error %.1f%%, RMSE %.1f%%; "
	       "noise floor (the adapter's own sample timed twice) %.1f%%\n", name, count,
	       sum / count, sqrt(sq / count), noise / count);
	a->fini(state);
}

/* Time per metric unit over random shapes: constant for a good metric. */
static void ratio(const char *name, int count)
{
	const struct adapter_internal *in = find(name);
	void *state = start(in->adapter, 1);
	double sum = 0, sq = 0, msum = 0, msq = 0;
	for (int i = 0; i < count; i++) {
		double d[3];
		random_shape(d, 1e8);
		double m = in->adapter->metric_of(d, 3);
		double t = time_params(in, state, d, 3);
		double r = t / m * 1e9, rm = t / (d[0] * d[1] * d[2]) * 1e9;
		printf("%6.0f %6.0f %6.0f metric %12.0f ns/unit %8.4f ns/MAC %8.4f\n",
		       d[0], d[1], d[2], m, r, rm);
		sum += r;
		sq += r * r;
		msum += rm;
		msq += rm * rm;
	}
	double mean = sum / count, mmean = msum / count;
	printf("%s: ns per metric unit %.4f, coefficient of variation %.1f%%; "
	       "per m*n*p %.4f, coefficient of variation %.1f%%\n", name,
	       mean, 100 * sqrt(fmax(0, sq / count - mean * mean)) / mean,
	       mmean, 100 * sqrt(fmax(0, msq / count - mmean * mmean)) / mmean);
	in->adapter->fini(state);
}

/* fit COUNT [drawn|planned] */
static int fit_command(int argc, char **argv)
{
	enum fit_shapes which = argc == 3 ? LOG_UNIFORM :
		!strcmp(argv[3], "drawn") ? DRAWN :
		!strcmp(argv[3], "planned") ? PLANNED : NOT_A_SET;

	if (atoi(argv[2]) < 2 * NF || which == NOT_A_SET) {
		fprintf(stderr, "adapter_probe: fit COUNT [drawn|planned], COUNT >= %d\n", 2 * NF);
		return 2;
	}
	fit(atoi(argv[2]), which);
	return 0;
}

int main(int argc, char **argv)
{
	sibyl_adapters_opencl_enable();
	if (argc == 4 && !strcmp(argv[1], "ratio")) {
		ratio(argv[2], atoi(argv[3]));
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "top")) {
		top(argc > 2 && strcmp(argv[2], "all") ? argv[2] : NULL,
		    argc > 3 ? (unsigned)atoi(argv[3]) : 1);
		return 0;
	}
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "fit"))
		return fit_command(argc, argv);
	if (argc == 3 && !strcmp(argv[1], "refit"))
		return refit(argv[2]);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "shapes")) {
		shapes(argv[2], atoi(argv[3]), argc == 5 ? (unsigned)atoi(argv[4]) : 1);
		return 0;
	}
	fprintf(stderr, "usage: adapter_probe top [NAME|all] [THREADS] | fit COUNT [drawn|planned] | refit FILE |"
		" ratio NAME COUNT |"
		" shapes NAME COUNT [THREADS]\n");
	return 2;
}
