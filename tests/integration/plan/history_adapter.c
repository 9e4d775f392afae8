/*
 * An adapter whose run time depends on the call before it, as a real
 * library's small call does when a larger one has just filled the cache
 * (docs/plan.md, "The calling context"), made plain for plan_replay.sh:
 * a run spins one microsecond per value of the previous run's work
 * metric (and 20 µs more), whatever its own.  Its work metric is
 * testlib_sum's ("values summed"), so a trace of order_calls guides it.
 * "history-hang" is the same but never returns from its second run at
 * work metric 2010 (a replay's second pass, in the middle of a sequence).
 */
#include <sibyl/adapter.h>

#include <stdint.h>
#include <unistd.h>

static double (*now)(void);
static uint64_t previous;      /* the worker's previous run's work metric */

static int init(void **state, const struct sibyl_adapter_config *c, char *err, size_t len)
{
	(void)err;
	(void)len;
	now = c->now;
	*state = NULL;
	return 0;
}

static double run(void *state, void *sample, uint64_t metric)
{
	double t0 = now(), spin = 20e-6 + 1e-6 * (double)previous;

	(void)state;
	(void)sample;
	while (now() - t0 < spin)
		;
	previous = metric;
	return now() - t0;
}

static double run_or_hang(void *state, void *sample, uint64_t metric)
{
	static unsigned at_2010;

	while (metric == 2010 && ++at_2010 >= 2)
		pause();
	return run(state, sample, metric);
}

#define HISTORY(NAME, RUN) { .abi_version = SIBYL_ADAPTER_ABI_VERSION, .name = NAME, \
	.description = "spins as long as the previous run's work metric says", \
	.work_metric = "values summed", .min_metric = 1, .max_metric = 100000, .init = init, \
	.run = RUN }

static const struct sibyl_adapter history = HISTORY("history", run),
				  hang = HISTORY("history-hang", run_or_hang);

const struct sibyl_adapter *const *sibyl_adapters(size_t *count)
{
	static const struct sibyl_adapter *list[] = { &history, &hang };

	*count = 2;
	return list;
}
