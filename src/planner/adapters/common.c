/* Per-process state every built-in adapter starts from. */
#include "planner/adapters/adapters.h"
#include "core/clock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The clock when the planner passes none (adapters run by tests). */
static double monotonic_seconds(void)
{
	return (double)sibyl_mono_ns() * 1e-9;
}

int adapter_common_init(void **state, const struct sibyl_adapter_config *config,
			char *errbuf, size_t errlen)
{
	struct adapter_common *c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(errbuf, errlen, "out of memory");
		return -1;
	}
	c->config = *config;
	if (!c->config.now)
		c->config.now = monotonic_seconds;
	if (c->config.threads == 0)
		c->config.threads = 1;
	c->rng = config->seed ? config->seed : 0x9e3779b97f4a7c15ull;
	*state = c;
	return 0;
}

int adapter_threaded_init(void **state, const struct sibyl_adapter_config *config,
			  char *errbuf, size_t errlen)
{
	if (adapter_common_init(state, config, errbuf, errlen) < 0)
		return -1;
	struct adapter_common *c = *state;
	c->pool = adapter_pool_create(c->config.threads);
	if (!c->pool) {
		snprintf(errbuf, errlen, "cannot start %u threads", c->config.threads);
		free(c);
		*state = NULL;
		return -1;
	}
	return 0;
}

void adapter_common_fini(void *state)
{
	struct adapter_common *c = state;
	if (c && c->pool)
		adapter_pool_destroy(c->pool);
	free(c);
}

double adapter_now(void *state)
{
	return ((struct adapter_common *)state)->config.now();
}

unsigned adapter_threads(void *state)
{
	return ((struct adapter_common *)state)->config.threads;
}

uint64_t adapter_random(void *state)
{
	struct adapter_common *c = state;
	c->rng ^= c->rng >> 12;
	c->rng ^= c->rng << 25;
	c->rng ^= c->rng >> 27;
	return c->rng * 0x2545f4914f6cdd1dull;
}

double adapter_random_unit(void *state)
{
	return (adapter_random(state) >> 11) * 0x1.0p-53;
}

void adapter_fill_random_ints(void *state, int *values, size_t n)
{
	for (size_t i = 0; i < n; i++)
		values[i] = (int)(adapter_random(state) >> 33);
}

void adapter_fill_random_floats(void *state, float *values, size_t n)
{
	for (size_t i = 0; i < n; i++)
		values[i] = (float)(2 * adapter_random_unit(state) - 1);
}

void *adapter_alloc(size_t n, size_t size)
{
	if (n == 0)
		n = 1;
	if (size && n > SIZE_MAX / size)
		return NULL;
	return malloc(n * size);
}

void *adapter_alloc_output(size_t n, size_t size)
{
	void *p = adapter_alloc(n, size);
	if (p)
		memset(p, 0, (n ? n : 1) * size);
	return p;
}

bool adapter_params_ok(const double *params, size_t nparams, size_t want, double min)
{
	if (!params || nparams != want)
		return false;
	for (size_t i = 0; i < nparams; i++)
		if (!isfinite(params[i]) || params[i] < min)
			return false;
	return true;
}

double adapter_count_metric_of(const double *params, size_t nparams)
{
	return adapter_params_ok(params, nparams, 1, 0) ? params[0] : -1;
}
