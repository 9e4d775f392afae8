/*
 * Adapters for the plan integration tests, built into a .so at test time
 * (cc -shared): "spin" waits metric microseconds on the planner's clock
 * and reports the nominal time (a noise-free linear profile), "flicker"
 * reports 1.5 times that on two runs of every three (which two depends
 * on the metric, so the fast one is not always a sample's last), "crash"
 * dies with SIGSEGV and "hang" never returns from metric 50 on;
 * "badinit" fails in init; "kink" reports a time with a bend and spends
 * none.  With -DBAD_ABI the object claims a future ABI version.
 */
#include <sibyl/adapter.h>

#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#ifdef BAD_ABI
#define ABI (SIBYL_ADAPTER_ABI_VERSION + 1)
#else
#define ABI SIBYL_ADAPTER_ABI_VERSION
#endif

static double (*now)(void);

static int init(void **state, const struct sibyl_adapter_config *c, char *err, size_t len)
{
	(void)err;
	(void)len;
	now = c->now;
	*state = NULL;
	return 0;
}

static int bad_init(void **state, const struct sibyl_adapter_config *c, char *err, size_t len)
{
	(void)state;
	(void)c;
	snprintf(err, len, "no such device");
	return -1;
}

/* Busy for 2 + metric microseconds, but report exactly that nominal time:
 * the planner then sees a synthetic clock, so its samples, profile and
 * errors are the same on a busy machine as on a quiet one. */
static double spin(void *state, void *sample, uint64_t metric)
{
	(void)state;
	(void)sample;
	double t0 = now(), nominal = 2e-6 + (double)metric * 1e-6;

	while (now() - t0 < nominal)
		;
	return nominal;
}

/* A machine slowed on two runs of every three, on the same clock. */
static double flicker(void *state, void *sample, uint64_t metric)
{
	static unsigned long calls;

	return spin(state, sample, metric) * (calls++ % 3 == metric % 3 ? 1 : 1.5);
}

/* 2 + metric microseconds up to metric 500, ten times as steep beyond,
 * reported without spending them: the golden tests
 * (tests/integration/golden) pin the planner's text, which is then the
 * same on any machine, and a bend gives the profile two segments. */
static double kink(void *state, void *sample, uint64_t metric)
{
	double m = (double)metric;

	(void)state;
	(void)sample;
	return 2e-6 + (m <= 500 ? m : 500 + 10 * (m - 500)) * 1e-6;
}

static double crash(void *state, void *sample, uint64_t metric)
{
	if (metric >= 50)
		raise(SIGSEGV);
	return spin(state, sample, metric);
}

static double hang(void *state, void *sample, uint64_t metric)
{
	while (metric >= 50)
		pause();
	return spin(state, sample, metric);
}

#define ADAPTER(NAME, INIT, RUN) { .abi_version = ABI, .name = NAME, \
	.description = "test " NAME, .work_metric = "microseconds", .min_metric = 1, \
	.max_metric = 2000, .init = INIT, .run = RUN }

static const struct sibyl_adapter adapters[] = {
	ADAPTER("spin", init, spin), ADAPTER("crash", init, crash), ADAPTER("hang", init, hang),
	ADAPTER("badinit", bad_init, spin), ADAPTER("flicker", init, flicker),
	ADAPTER("kink", init, kink),
};
#define NADAPTERS (sizeof(adapters) / sizeof(adapters[0]))

/* The ABI wants a list of pointers: made from the array, so an adapter
 * is added in one place. */
const struct sibyl_adapter *const *sibyl_adapters(size_t *count)
{
	static const struct sibyl_adapter *list[NADAPTERS];

	for (size_t i = 0; i < NADAPTERS; i++)
		list[i] = &adapters[i];
	*count = NADAPTERS;
	return list;
}
