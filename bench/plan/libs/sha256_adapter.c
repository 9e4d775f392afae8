/*
 * OpenSSL's SHA-256 through EVP_Digest as a `sibyl plan` adapter: work
 * metric = input bytes, as each traced call of EVP_Digest records
 * (bench/plan/libs/sha256.defs).  Its time is a staircase of 64-byte
 * blocks (and one more block where the padding does not fit) over a
 * fixed cost per call.  Build with -lcrypto.
 */
#include <sibyl/adapter.h>

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_BYTES (4u << 20)

struct state {
	double (*now)(void);
	unsigned char *data;
};

static int init(void **state, const struct sibyl_adapter_config *c, char *err, size_t len)
{
	struct state *s = calloc(1, sizeof(*s));
	uint64_t x = c->seed | 1;

	if (!s || !(s->data = malloc(MAX_BYTES))) {
		free(s);
		snprintf(err, len, "out of memory for %u bytes", MAX_BYTES);
		return -1;
	}
	for (size_t i = 0; i < MAX_BYTES; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		s->data[i] = (unsigned char)x;
	}
	s->now = c->now;	/* config lives only during init */
	*state = s;
	return 0;
}

static void fini(void *state)
{
	struct state *s = state;

	free(s->data);
	free(s);
}

static double run(void *state, void *sample, uint64_t metric)
{
	struct state *s = state;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen;

	(void)sample;
	double t0 = s->now();
	int ok = EVP_Digest(s->data, (size_t)metric, md, &mdlen, EVP_sha256(), NULL);
	double t = s->now() - t0;

	return ok ? t : -1;
}

static double metric_of(const double *params, size_t n)
{
	return n == 1 && params[0] >= 0 ? params[0] : -1;
}

static const struct sibyl_adapter sha256 = {
	.abi_version = SIBYL_ADAPTER_ABI_VERSION, .name = "openssl-sha256",
	.description = "OpenSSL EVP_Digest with SHA-256", .work_metric = "input bytes",
	.min_metric = 0, .max_metric = MAX_BYTES, .flags = SIBYL_ADAPTER_INIT_SHARED,
	.init = init, .fini = fini, .run = run, .params_doc = "count", .metric_of = metric_of,
};

__attribute__((visibility("default")))
const struct sibyl_adapter *const *sibyl_adapters(size_t *count)
{
	static const struct sibyl_adapter *const list[] = { &sha256 };

	*count = 1;
	return list;
}
