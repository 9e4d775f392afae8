/* Per-process state every built-in adapter starts from. */
#include "planner/adapters/adapters.h"

#include <stdlib.h>
#include <time.h>

static double monotonic_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int adapter_common_init(void **state, const struct sibyl_adapter_config *config,
			char *errbuf, size_t errlen)
{
	(void)errbuf;
	(void)errlen;
	struct adapter_common *c = calloc(1, sizeof(*c));
	if (!c)
		return -1;
	c->config = *config;
	if (!c->config.now)
		c->config.now = monotonic_seconds;
	if (c->config.threads == 0)
		c->config.threads = 1;
	c->rng = config->seed ? config->seed : 0x9e3779b97f4a7c15ull;
	*state = c;
	return 0;
}

void adapter_common_fini(void *state)
{
	free(state);
}

double adapter_now(void *state)
{
	return ((struct adapter_common *)state)->config.now();
}

uint64_t adapter_random(void *state)
{
	struct adapter_common *c = state;
	c->rng ^= c->rng >> 12;
	c->rng ^= c->rng << 25;
	c->rng ^= c->rng >> 27;
	return c->rng * 0x2545f4914f6cdd1dull;
}

void adapter_fill_random_ints(void *state, int *values, size_t n)
{
	for (size_t i = 0; i < n; i++)
		values[i] = (int)(adapter_random(state) >> 33);
}
