/* Shared by the built-in adapters: common per-process state (the
 * planner's clock and a seeded random stream) and the adapter list. */
#ifndef SIBYL_PLANNER_ADAPTERS_ADAPTERS_H
#define SIBYL_PLANNER_ADAPTERS_ADAPTERS_H

#include <sibyl/adapter.h>

#include <stddef.h>
#include <stdint.h>

struct adapter_common {
	struct sibyl_adapter_config config;
	uint64_t rng;              /* xorshift64* state, never 0 */
};

int adapter_common_init(void **state, const struct sibyl_adapter_config *config,
			char *errbuf, size_t errlen);
void adapter_common_fini(void *state);

double adapter_now(void *state);
uint64_t adapter_random(void *state);
void adapter_fill_random_ints(void *state, int *values, size_t n);

extern const struct sibyl_adapter adapter_insertion_sort;

#endif
