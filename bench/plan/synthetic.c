/*
 * The planner on synthetic timing functions shaped like Table I's
 * implementations, with seeded noise (gaussian, 2% by default, plus 1% of
 * samples 50% slow) and a 10 ns clock quantum: the algorithm's samples,
 * points and error free of this machine's interference.  Errors are
 * against the noise-free function at 100 random work metrics, for the
 * planner and for the two --evaluate baselines given the same samples.
 * Usage: bench_plan_synthetic [NOISE [GROWTH [SEEDS [FIT_ERROR [relative|ols]]]]]
 *                             [--profile PROFILE.json ...]
 * With --profile, the shapes are those profiles' points over their
 * ranges instead: a real plan planned again without the machine, to
 * tell the samples its shape costs from those its noise cost.
 */
#include "planner/evaluate.h"
#include "planner/planner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct shape {
	const char *name;
	uint64_t hi;
	double (*f)(double x);
	struct sibyl_profile *profile;   /* instead of f, over its own range */
	uint64_t lo;
};

static double isort(double x) { return 15e-9 + 0.25e-9 * x * x; }
static double qsort_(double x) { return 20e-9 + 4e-9 * x * log2(x + 1); }
static double inner(double x) { return 5e-6 + 0.5e-9 * x; }
static double floyd(double x) { return 50e-9 + 1e-9 * x * x * x; }
static double cache(double x) { return 1e-6 + (x < 20000 ? 1e-9 * x : 20e-6 + 3e-9 * (x - 20000)); }
static double rows(double x) { return 3e-6 + 2e-6 * x + (x > 4000 ? 1e-6 * (x - 4000) : 0); }

static const struct shape shapes[] = {
	{ "quadratic (insertion sort)", 60000, isort, NULL, 1 },
	{ "n log n (quick sort)", 10000000, qsort_, NULL, 1 },
	{ "overhead + linear (inner product)", 10000000, inner, NULL, 1 },
	{ "cubic (Floyd-Warshall)", 600, floyd, NULL, 1 },
	{ "linear, cache kink", 100000, cache, NULL, 1 },
	{ "image rows, cache kink", 10000, rows, NULL, 1 },
};

struct noisy {
	const struct shape *shape;
	double noise;
	uint64_t rng;
};

static double truth(const struct shape *s, double x)
{
	return s->profile ? sibyl_profile_eval(s->profile, x) : s->f(x);
}

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
	*s = fmax(10e-9, round(truth(n->shape, (double)m) * q / 10e-9) * 10e-9);
	return 0;
}

/* Uniform samples with the planner's budget: interpolated, and a*n^b+c. */
static void baselines(struct noisy *n, uint64_t lo, uint64_t hi, size_t budget, uint64_t seed,
		      double out[2])
{
	size_t k;
	uint64_t *xs = sibyl_uniform_metrics(lo, hi, budget, &k), er = seed;
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
		double v = (double)sibyl_random_between(&er, lo, hi), t = truth(n->shape, v);

		out[0] += fabs(sibyl_profile_eval(&u, v) - t) / t;
		out[1] += fit ? 100 : fabs(a * pow(v, b) + c - t) / t;
	}
	free(xs);
	free(x);
	free(y);
	free(u.points);
}

static double cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The profiles named after --profile as shapes; argc is cut to the
 * positional arguments before it. */
static struct shape *profile_shapes(int *argc, char **argv, size_t *n)
{
	int at = 1;

	while (at < *argc && strcmp(argv[at], "--profile") != 0)
		at++;
	if (at >= *argc)
		return NULL;
	struct shape *sh = calloc((unsigned)*argc, sizeof(*sh));   /* more than enough */

	*n = 0;
	for (int i = at + 1; i < *argc; i++) {
		char err[256];
		struct sibyl_profile *p = sibyl_profile_load(argv[i], err, sizeof(err));

		if (!p || p->npoints < 2) {
			fprintf(stderr, "bench_plan_synthetic: %s: %s\n", argv[i],
				p ? "no profile points" : err);
			exit(2);
		}
		sh[(*n)++] = (struct shape){ p->name ? p->name : argv[i], (uint64_t)p->hi, NULL, p,
					    (uint64_t)p->lo };
	}
	*argc = at;
	return sh;
}

/* What the command line asks of every run. */
struct run_opts {
	double noise, growth;
	int argc;
	char **argv;		/* argv[4]: fit error, argv[5]: "ols" */
	double planner_cpu, all_samples;	/* summed over the runs */
};

/* One plan of shape s with one seed, added to sum[]: samples, points,
 * mean and RMS error in %, then the two baselines' mean errors. */
static void one_run(const struct shape *sh, size_t s, int seed, struct run_opts *o,
		    double sum[6])
{
	struct noisy n = { sh, o->noise, (uint64_t)seed * 1000 + s };
	struct sibyl_plan_params p;
	struct sibyl_plan_result r;
	uint64_t er = (uint64_t)seed;
	double e1 = 0, e2 = 0, base[2];

	sibyl_plan_defaults(&p);
	p.lo = sh->lo;
	p.hi = sh->hi;
	p.seed = (uint64_t)seed;
	p.growth = o->growth;
	p.time_floor = 40e-9;
	if (o->argc > 4)
		p.fit_error = atof(o->argv[4]);
	if (o->argc > 5)
		p.relative_fit = strcmp(o->argv[5], "ols") != 0;
	double cpu0 = cpu_seconds();

	sibyl_plan_run(&p, measure, &n, NULL, NULL, &r);
	o->planner_cpu += cpu_seconds() - cpu0;
	o->all_samples += (double)r.samples;
	for (int i = 0; i < 100 && r.profile; i++) {
		double x = (double)sibyl_random_between(&er, sh->lo, sh->hi);
		double t = truth(sh, x), e = (sibyl_profile_eval(r.profile, x) - t) / t;

		e1 += fabs(e);
		e2 += e * e;
	}
	sum[0] += (double)r.samples;
	sum[1] += r.profile ? (double)r.profile->npoints : 0;
	sum[2] += e1;          /* /100 * 100 % */
	sum[3] += 100 * sqrt(e2 / 100);
	baselines(&n, sh->lo, sh->hi, r.samples, (uint64_t)seed, base);
	sum[4] += base[0];
	sum[5] += base[1];
	sibyl_plan_result_free(&r);
}

int main(int argc, char **argv)
{
	size_t nshapes = sizeof(shapes) / sizeof(shapes[0]);
	struct shape *loaded = profile_shapes(&argc, argv, &nshapes);
	const struct shape *list = loaded ? loaded : shapes;
	struct run_opts o = { argc > 1 ? atof(argv[1]) : 0.02, argc > 2 ? atof(argv[2]) : 0.10,
			      argc, argv, 0, 0 };
	int seeds = argc > 3 ? atoi(argv[3]) : 3;
	double tot[6] = { 0 };

	printf("noise %.1f%%, growth %.0f%%, %d seeds each\n", 100 * o.noise, 100 * o.growth,
	       seeds);
	printf("%-36s %8s %7s %8s %8s %9s %9s\n", "shape", "samples", "points", "mean", "RMSE",
	       "uni mean", "pow mean");
	for (size_t s = 0; s < nshapes; s++) {
		double sum[6] = { 0 };

		for (int seed = 1; seed <= seeds; seed++)
			one_run(&list[s], s, seed, &o, sum);
		for (int k = 0; k < 6; k++) {
			sum[k] /= seeds;
			tot[k] += sum[k] / (double)nshapes;
		}
		printf("%-36s %8.0f %7.1f %7.2f%% %7.2f%% %8.2f%% %8.2f%%\n", list[s].name, sum[0],
		       sum[1], sum[2], sum[3], sum[4], sum[5]);
	}
	printf("%-36s %8.0f %7.1f %7.2f%% %7.2f%% %8.2f%% %8.2f%%\n", "average", tot[0], tot[1],
	       tot[2], tot[3], tot[4], tot[5]);
	/* The planner's own work (sample matrix, chains), the synthetic
	 * measurements being nearly free: what a real plan adds to its
	 * samples' run time. */
	printf("planner CPU time: %.1f us per sample (%.0f samples)\n",
	       1e6 * o.planner_cpu / o.all_samples, o.all_samples);
	for (size_t s = 0; loaded && s < nshapes; s++)
		sibyl_profile_free(loaded[s].profile);
	free(loaded);
	return 0;
}
