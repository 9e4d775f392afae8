/*
 * Adapters for the plan integration tests, built into a .so at test time
 * (cc -shared): "spin" waits metric microseconds on the planner's clock
 * and reports the nominal time (a noise-free linear profile), "flicker"
 * reports 1.5 times that on two runs of every three (which two depends
 * on the metric, so the fast one is not always a sample's last), "crash"
 * dies with SIGSEGV and "hang" never returns from metric 50 on;
 * "badinit" fails in init; "kink" reports a time with a bend and spends
 * as much; "staircase" makes prime metrics ten times slower than their
 * neighbours, "bimodal" takes 40 or 130 us by turns, "millis" reports
 * milliseconds for seconds, "wobble" is spin within 3% up and down
 * from one metric to the next (a profile as noisy as a real one, on the
 * synthetic clock), "failrun" returns -2 and "failsetup" fails its
 * setup with 7 from metric 50 on; "device" is an OpenCL adapter whose
 * runs fail (-3) when the worker keeps it off some of the CPUs (a CPU
 * device's runtime starts threads of its own).  With -DBAD_ABI the
 * object claims a future ABI version.
 */
#define _GNU_SOURCE
#include <sibyl/adapter.h>

#include <sched.h>
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

/* Busy for `nominal` seconds, but report exactly that: the planner then
 * sees a synthetic clock, so its samples, profile and errors are the
 * same on a busy machine as on a quiet one. */
static double busy(double nominal)
{
	double t0 = now();

	while (now() - t0 < nominal)
		;
	return nominal;
}

/* 2 + metric microseconds. */
static double spin(void *state, void *sample, uint64_t metric)
{
	(void)state;
	(void)sample;
	return busy(2e-6 + (double)metric * 1e-6);
}

static int prime(uint64_t n)
{
	if (n < 2)
		return 0;
	for (uint64_t d = 2; d * d <= n; d++)
		if (n % d == 0)
			return 0;
	return 1;
}

/* A staircase like FFTW's: prime metrics ten times slower than their
 * neighbours; repeats agree exactly. */
static double staircase(void *state, void *sample, uint64_t metric)
{
	(void)state;
	(void)sample;
	return busy((2 + (double)metric * (prime(metric) ? 1.0 : 0.1)) * 1e-6);
}

/* Bimodal like a worker thread's wake-up on PoCL: 40 or 130 us whatever
 * the metric, alternating with the runs. */
static double bimodal(void *state, void *sample, uint64_t metric)
{
	static unsigned long calls;

	(void)state;
	(void)sample;
	return busy((calls++ % 2 ? 130 : 40) * 1e-6 + (double)metric * 1e-9);
}

/* Reports milliseconds instead of seconds: a unit slip. */
static double millis(void *state, void *sample, uint64_t metric)
{
	return 1e3 * spin(state, sample, metric);
}

/* Spin within 3% up and down: repeats agree, neighbours scatter. */
static double wobble(void *state, void *sample, uint64_t metric)
{
	(void)state;
	(void)sample;
	double step = (double)(metric * 2654435761u % 7) - 3;	/* -3..3, scattered */

	return busy((2 + (double)metric) * 1e-6 * (1 + 0.01 * step));
}

static double failrun(void *state, void *sample, uint64_t metric)
{
	return metric >= 50 ? -2 : spin(state, sample, metric);
}

static int failsetup(void *state, uint64_t metric, void **sample)
{
	(void)state;
	*sample = NULL;
	return metric >= 50 ? 7 : 0;
}

/* A machine slowed on two runs of every three, on the same clock. */
static double flicker(void *state, void *sample, uint64_t metric)
{
	static unsigned long calls;

	return spin(state, sample, metric) * (calls++ % 3 == metric % 3 ? 1 : 1.5);
}

/* 2 + metric microseconds up to metric 500, ten times as steep beyond,
 * on the synthetic clock: the golden tests
 * (tests/integration/golden) pin the planner's text, which is then the
 * same on any machine, and a bend gives the profile two segments. */
static double kink(void *state, void *sample, uint64_t metric)
{
	double m = (double)metric;

	(void)state;
	(void)sample;
	return busy(2e-6 + (m <= 500 ? m : 500 + 10 * (m - 500)) * 1e-6);
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

static double all_cpus(void *state, void *sample, uint64_t metric)
{
	cpu_set_t mask;

	if (sched_getaffinity(0, sizeof(mask), &mask) ||
	    CPU_COUNT(&mask) < sysconf(_SC_NPROCESSORS_ONLN))
		return -3;
	return spin(state, sample, metric);
}

#define ADAPTER(NAME, INIT, RUN) { .abi_version = ABI, .name = NAME, \
	.description = "test " NAME, .work_metric = "microseconds", .min_metric = 1, \
	.max_metric = 2000, .init = INIT, .run = RUN }

static const struct sibyl_adapter adapters[] = {
	ADAPTER("spin", init, spin), ADAPTER("crash", init, crash), ADAPTER("hang", init, hang),
	ADAPTER("badinit", bad_init, spin), ADAPTER("flicker", init, flicker),
	ADAPTER("kink", init, kink), ADAPTER("staircase", init, staircase),
	ADAPTER("bimodal", init, bimodal), ADAPTER("millis", init, millis),
	ADAPTER("wobble", init, wobble), ADAPTER("failrun", init, failrun),
	{ .abi_version = ABI, .name = "failsetup", .description = "test failsetup",
	  .work_metric = "microseconds", .min_metric = 1, .max_metric = 2000, .init = init,
	  .setup = failsetup, .run = spin },
	{ .abi_version = ABI, .name = "device", .description = "test device",
	  .work_metric = "microseconds", .min_metric = 1, .max_metric = 2000,
	  .flags = SIBYL_ADAPTER_OPENCL, .init = init, .run = all_cpus },
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
