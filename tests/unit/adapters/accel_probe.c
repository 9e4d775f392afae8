/* accel_probe: adapters from shared objects timed side by side in one
 * process, through the adapter ABI as `sibyl plan` runs them, for the
 * figures of docs/predict.md (CLBlast on PoCL against reference BLAS and
 * OpenBLAS).  Not a test: it prints timings.
 *
 *   accel_probe [-r ROUNDS] METRIC[,METRIC...] LIB.so:NAME...
 *
 * Per adapter: init's seconds, then per metric the first run (a fresh
 * process's: device programs built, caches cold) and the median of
 * ROUNDS runs (default 7).  Rounds alternate between the adapters and
 * metrics, so a slow phase of the shared machine hits all of them; the
 * last column is each median over the first adapter's.
 */
#include <sibyl/adapter.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_ADAPTERS 8
#define MAX_METRICS 16
#define MAX_ROUNDS 99

struct probe {
	const struct sibyl_adapter *a;
	void *state;
	double init_s;
	double first[MAX_METRICS];
	double runs[MAX_METRICS][MAX_ROUNDS];
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void die(const char *what, const char *why)
{
	fprintf(stderr, "accel_probe: %s: %s\n", what, why);
	exit(1);
}

static const struct sibyl_adapter *load(char *spec)
{
	char *colon = strrchr(spec, ':');

	if (!colon)
		die(spec, "give LIB.so:NAME");
	*colon = '\0';
	void *h = dlopen(spec, RTLD_NOW | RTLD_LOCAL);
	sibyl_adapters_fn list = h ? (sibyl_adapters_fn)dlsym(h, SIBYL_ADAPTERS_SYMBOL) : NULL;

	if (!list)
		die(spec, h ? "exports no sibyl_adapters" : dlerror());
	size_t n = 0;
	const struct sibyl_adapter *const *a = list(&n);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(a[i]->name, colon + 1))
			return a[i];
	die(colon + 1, "no such adapter");
	return NULL;
}

static double run_once(struct probe *p, uint64_t metric)
{
	void *sample = NULL;

	if (p->a->setup && p->a->setup(p->state, metric, &sample))
		die(p->a->name, "setup failed");
	double t = p->a->run(p->state, sample, metric);

	if (p->a->teardown)
		p->a->teardown(p->state, sample);
	if (t < 0)
		die(p->a->name, "run failed");
	return t;
}

static int by_value(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void start(struct probe *p)
{
	struct sibyl_adapter_config config = { .threads = 1, .seed = 1, .now = now };
	char err[256] = "";
	double t0 = now();

	if (p->a->init && p->a->init(&p->state, &config, err, sizeof(err)))
		die(p->a->name, err);
	p->init_s = now() - t0;
}

int main(int argc, char **argv)
{
	static struct probe probes[MAX_ADAPTERS];
	uint64_t metrics[MAX_METRICS];
	int rounds = 7, nm = 0, np = 0, i = 1;

	if (argc > 2 && !strcmp(argv[1], "-r")) {
		rounds = atoi(argv[2]);
		i = 3;
	}
	if (argc - i < 2 || rounds < 1 || rounds > MAX_ROUNDS)
		die("usage", "accel_probe [-r ROUNDS] METRIC[,METRIC...] LIB.so:NAME...");
	for (char *m = strtok(argv[i], ","); m && nm < MAX_METRICS; m = strtok(NULL, ","))
		metrics[nm++] = strtoull(m, NULL, 10);
	for (i++; i < argc && np < MAX_ADAPTERS; i++)
		probes[np++].a = load(argv[i]);
	for (int a = 0; a < np; a++) {
		start(&probes[a]);
		for (int m = 0; m < nm; m++)
			probes[a].first[m] = run_once(&probes[a], metrics[m]);
	}
	for (int r = 0; r < rounds; r++)
		for (int m = 0; m < nm; m++)
			for (int a = 0; a < np; a++)
				probes[a].runs[m][r] = run_once(&probes[a], metrics[m]);
	printf("%-22s %9s %14s %11s %11s %9s\n", "adapter", "init s", "metric", "first s",
	       "median s", "/ first");
	for (int m = 0; m < nm; m++) {
		double base = median(probes[0].runs[m], rounds);

		for (int a = 0; a < np; a++) {
			double med = median(probes[a].runs[m], rounds);

			printf("%-22s %9.4f %14llu %11.6f %11.6f %9.3f\n", probes[a].a->name,
			       probes[a].init_s, (unsigned long long)metrics[m], probes[a].first[m],
			       med, med / base);
		}
	}
	for (int a = 0; a < np; a++)
		if (probes[a].a->fini)
			probes[a].a->fini(probes[a].state);
	return 0;
}
