/*
 * The planner on synthetic timing functions shaped like Table I's
 * implementations, with seeded noise (gaussian, 2% by default, plus 1% of
 * samples 50% slow) and a 10 ns clock quantum: the algorithm's samples,
 * points and error free of this machine's interference.  Errors are
 * against the noise-free function at 100 random work metrics, for the
 * planner and for the two --evaluate baselines given the same samples.
 * Usage: bench_plan_synthetic [NOISE [GROWTH [SEEDS [FIT_ERROR [relative|ols]]]]]
 */
#include "planner/evaluate.h"
#include "planner/planner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct shape {
	const char *name;
	uint64_t hi;
	double (*f)(double x);
};

static double isort(double x) { return 15e-9 + 0.25e-9 * x * x; }
static double qsort_(double x) { return 20e-9 + 4e-9 * x * log2(x + 1); }
static double inner(double x) { return 5e-6 + 0.5e-9 * x; }
static double floyd(double x) { return 50e-9 + 1e-9 * x * x * x; }
static double cache(double x) { return 1e-6 + (x < 20000 ? 1e-9 * x : 20e-6 + 3e-9 * (x - 20000)); }
static double rows(double x) { return 3e-6 + 2e-6 * x + (x > 4000 ? 1e-6 * (x - 4000) : 0); }

static const struct shape shapes[] = {
	{ "quadratic (insertion sort)", 60000, isort },
	{ "n log n (quick sort)", 10000000, qsort_ },
	{ "overhead + linear (inner product)", 10000000, inner },
	{ "cubic (Floyd-Warshall)", 600, floyd },
	{ "linear, cache kink", 100000, cache },
	{ "image rows, cache kink", 10000, rows },
};

struct noisy {
	double (*f)(double);
	double noise;
	uint64_t rng;
};

static double uniform(uint64_t *rng)
{
	return ((double)(sibyl_random(rng) >> 11) + 0.5) / 9007199254740992.0;
}

static int measure(void *ctx, uint64_t m, double *s, char *err, size_t errlen)
{
	struct noisy *n = ctx;
	double g = sqrt(-2 * log(uniform(&n->rng))) * cos(2 * M_PI * uniform(&n->rng));
	double q = 1 + n->noise * g;

	(void)err;
	(void)errlen;
	if (uniform(&n->rng) < 0.01)
		q *= 1.5;
	*s = fmax(10e-9, round(n->f((double)m) * q / 10e-9) * 10e-9);
	return 0;
}

/* Uniform samples with the planner's budget: interpolated, and a*n^b+c. */
static void baselines(struct noisy *n, uint64_t hi, size_t budget, uint64_t seed, double out[2])
{
	size_t k;
	uint64_t *xs = sibyl_uniform_metrics(1, hi, budget, &k), er = seed;
	struct sibyl_profile u = { .npoints = k };
	double *x = malloc(k * sizeof(*x)), *y = malloc(k * sizeof(*y)), a, b, c;

	u.points = malloc(k * sizeof(*u.points));
	for (size_t i = 0; i < k; i++) {
		x[i] = (double)xs[i];
		measure(n, xs[i], &y[i], NULL, 0);
		u.points[i] = (struct sibyl_point){ x[i], y[i] };
	}
	int fit = sibyl_power_fit(x, y, k, &a, &b, &c);

	out[0] = out[1] = 0;
	for (int i = 0; i < 100; i++) {
		double v = (double)sibyl_random_between(&er, 1, hi), t = n->f(v);

		out[0] += fabs(sibyl_profile_eval(&u, v) - t) / t;
		out[1] += fit ? 100 : fabs(a * pow(v, b) + c - t) / t;
	}
	free(xs);
	free(x);
	free(y);
	free(u.points);
}

int main(int argc, char **argv)
{
	double noise = argc > 1 ? atof(argv[1]) : 0.02, growth = argc > 2 ? atof(argv[2]) : 0.10;
	int seeds = argc > 3 ? atoi(argv[3]) : 3;
	double tot[6] = { 0 };
	size_t nshapes = sizeof(shapes) / sizeof(shapes[0]);

	printf("noise %.1f%%, growth %.0f%%, %d seeds each\n", 100 * noise, 100 * growth, seeds);
	printf("%-36s %8s %7s %8s %8s %9s %9s\n", "shape", "samples", "points", "mean", "RMSE",
	       "uni mean", "pow mean");
	for (size_t s = 0; s < nshapes; s++) {
		double sum[6] = { 0 };

		for (int seed = 1; seed <= seeds; seed++) {
			struct noisy n = { shapes[s].f, noise, (uint64_t)seed * 1000 + s };
			struct sibyl_plan_params p;
			struct sibyl_plan_result r;
			uint64_t er = (uint64_t)seed;
			double e1 = 0, e2 = 0;

			sibyl_plan_defaults(&p);
			p.lo = 1;
			p.hi = shapes[s].hi;
			p.seed = (uint64_t)seed;
			p.growth = growth;
			p.time_floor = 40e-9;
			if (argc > 4)
				p.fit_error = atof(argv[4]);
			if (argc > 5)
				p.relative_fit = strcmp(argv[5], "ols") != 0;
			sibyl_plan_run(&p, measure, &n, NULL, NULL, &r);
			for (int i = 0; i < 100 && r.profile; i++) {
				double x = (double)sibyl_random_between(&er, 1, shapes[s].hi);
				double t = shapes[s].f(x), e = (sibyl_profile_eval(r.profile, x) - t) / t;

				e1 += fabs(e);
				e2 += e * e;
			}
			sum[0] += (double)r.samples;
			sum[1] += r.profile ? (double)r.profile->npoints : 0;
			sum[2] += e1;          /* /100 * 100 % */
			sum[3] += 100 * sqrt(e2 / 100);
			double base[2];

			baselines(&n, shapes[s].hi, r.samples, (uint64_t)seed, base);
			sum[4] += base[0];
			sum[5] += base[1];
			sibyl_plan_result_free(&r);
		}
		for (int k = 0; k < 6; k++) {
			sum[k] /= seeds;
			tot[k] += sum[k] / (double)nshapes;
		}
		printf("%-36s %8.0f %7.1f %7.2f%% %7.2f%% %8.2f%% %8.2f%%\n", shapes[s].name, sum[0],
		       sum[1], sum[2], sum[3], sum[4], sum[5]);
	}
	printf("%-36s %8.0f %7.1f %7.2f%% %7.2f%% %8.2f%% %8.2f%%\n", "average", tot[0], tot[1],
	       tot[2], tot[3], tot[4], tot[5]);
	return 0;
}
