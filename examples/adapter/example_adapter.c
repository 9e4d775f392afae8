/*
 * A user adapter for `sibyl plan`, built as its own shared object. It
 * needs only <sibyl/adapter.h> and exports one symbol, sibyl_adapters.
 *
 * Two implementations of one job, so their profiles can be compared
 * (`sibyl plan envelope`): find every occurrence of an 8-byte needle in
 * a random haystack, naively and with memchr + memcmp. The work metric
 * is the haystack length in bytes.
 *
 *   cmake --build build --target example-adapter
 *   sibyl plan --adapter-so build/lib/libexample-adapter.so:naive-search -o naive.json
 */
#include <sibyl/adapter.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NEEDLE 8

struct search_state {
	const struct sibyl_adapter_config *config;
	double (*now)(void);
	unsigned long long rng;
};

struct search_sample {
	char *haystack;
	size_t n;
	char needle[NEEDLE];
	size_t found;
};

static double monotonic(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int init(void **state, const struct sibyl_adapter_config *config,
		char *errbuf, size_t errlen)
{
	struct search_state *s = calloc(1, sizeof(*s));
	if (!s) {
		strncpy(errbuf, "out of memory", errlen);
		return -1;
	}
	/* Time with the planner's clock when it gives one. */
	s->now = config->now ? config->now : monotonic;
	s->rng = config->seed | 1;
	*state = s;
	return 0;
}

static void fini(void *state)
{
	free(state);
}

static char random_letter(struct search_state *s)
{
	s->rng = s->rng * 6364136223846793005ull + 1442695040888963407ull;
	return "abcd"[s->rng >> 62];
}

/* Untimed: the random haystack and needle. */
static int setup(void *state, uint64_t metric, void **sample)
{
	struct search_sample *p = calloc(1, sizeof(*p));
	if (!p || !(p->haystack = malloc(metric ? metric : 1))) {
		free(p);
		return -1;
	}
	p->n = metric;
	for (size_t i = 0; i < p->n; i++)
		p->haystack[i] = random_letter(state);
	for (size_t i = 0; i < NEEDLE; i++)
		p->needle[i] = random_letter(state);
	*sample = p;
	return 0;
}

static void teardown(void *state, void *sample)
{
	struct search_sample *p = sample;
	(void)state;
	free(p->haystack);
	free(p);
}

static size_t naive_search(const struct search_sample *p)
{
	size_t found = 0;
	for (size_t i = 0; i + NEEDLE <= p->n; i++) {
		size_t j = 0;
		while (j < NEEDLE && p->haystack[i + j] == p->needle[j])
			j++;
		found += j == NEEDLE;
	}
	return found;
}

static size_t memchr_search(const struct search_sample *p)
{
	size_t found = 0;
	const char *at = p->haystack, *end = p->haystack + p->n;
	while (end - at >= NEEDLE && (at = memchr(at, p->needle[0], end - at - NEEDLE + 1))) {
		found += !memcmp(at, p->needle, NEEDLE);
		at++;
	}
	return found;
}

/* Timed: only the search itself. */
static double run_naive(void *state, void *sample, uint64_t metric)
{
	struct search_state *s = state;
	struct search_sample *p = sample;
	(void)metric;
	double t0 = s->now();
	p->found = naive_search(p);
	return s->now() - t0;
}

static double run_memchr(void *state, void *sample, uint64_t metric)
{
	struct search_state *s = state;
	struct search_sample *p = sample;
	(void)metric;
	double t0 = s->now();
	p->found = memchr_search(p);
	return s->now() - t0;
}

/* Inverse mapping: one parameter, the haystack length. */
static double metric_of(const double *params, size_t nparams)
{
	if (!params || nparams != 1 || !(params[0] >= 0))
		return -1;
	return params[0];
}

/* Both adapters share everything but their name and run(). */
#define SEARCH_ADAPTER(NAME, DESCRIPTION, RUN) {                      \
	.abi_version = SIBYL_ADAPTER_ABI_VERSION,                      \
	.name = NAME,                                                  \
	.description = DESCRIPTION,                                    \
	.work_metric = "haystack bytes",                               \
	.min_metric = 1,                                               \
	.max_metric = 50000000,                                        \
	.init = init,                                                  \
	.fini = fini,                                                  \
	.setup = setup,                                                \
	.run = RUN,                                                    \
	.teardown = teardown,                                          \
	.params_doc = "haystack_bytes",                                \
	.metric_of = metric_of,                                        \
}

static const struct sibyl_adapter naive = SEARCH_ADAPTER(
	"naive-search", "naive search of an 8-byte needle in random text", run_naive);
static const struct sibyl_adapter with_memchr = SEARCH_ADAPTER(
	"memchr-search", "memchr + memcmp search of an 8-byte needle in random text",
	run_memchr);

static const struct sibyl_adapter *const adapters[] = { &naive, &with_memchr };

/* The one exported symbol (the object is built with hidden visibility). */
__attribute__((visibility("default")))
const struct sibyl_adapter *const *sibyl_adapters(size_t *count)
{
	*count = sizeof(adapters) / sizeof(adapters[0]);
	return adapters;
}
