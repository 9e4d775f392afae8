/*
 * Planner adapter for AES-256-CBC encryption through OpenSSL's EVP
 * interface, the kernel `openssl enc` calls (EVP_EncryptUpdate), so that
 * `sibyl plan` measures on this machine the implementation a prediction
 * swaps in.  Which implementation runs is OpenSSL's choice at start-up:
 * with OPENSSL_ia32cap="~0x200000200000000" in the environment AES-NI is
 * masked (the "original" of the OpenSSL scenarios), without it AES-NI is
 * used (the "accelerated" one); the profile's description records which.
 *
 * The work metric is the call's input bytes, the byte metric every traced
 * call records (docs/predict.md), so no metric declaration is needed.
 */
#include <sibyl/adapter.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct aes_state {
	EVP_CIPHER_CTX *ctx;
	double (*now)(void);
};

struct buffers {
	unsigned char *in, *out;
};

static double monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int init(void **state, const struct sibyl_adapter_config *config, char *errbuf,
		size_t errlen)
{
	static const unsigned char key[32] = { 1, 2, 3, 4, 5, 6, 7, 8 }, iv[16] = { 9 };
	struct aes_state *s = calloc(1, sizeof(*s));

	if (!s || !(s->ctx = EVP_CIPHER_CTX_new()) ||
	    EVP_EncryptInit_ex(s->ctx, EVP_aes_256_cbc(), NULL, key, iv) != 1) {
		snprintf(errbuf, errlen, "cannot set up AES-256-CBC");
		if (s)
			EVP_CIPHER_CTX_free(s->ctx);
		free(s);
		return -1;
	}
	s->now = config->now ? config->now : monotonic;
	*state = s;
	return 0;
}

static void fini(void *state)
{
	struct aes_state *s = state;

	EVP_CIPHER_CTX_free(s->ctx);
	free(s);
}

static int setup(void *state, uint64_t metric, void **sample)
{
	struct buffers *b = calloc(1, sizeof(*b));

	(void)state;
	if (!b)
		return -1;
	b->in = malloc(metric ? metric : 1);
	b->out = malloc(metric + 32);	/* one block more, as EVP asks */
	*sample = b;
	if (!b->in || !b->out)
		return -1;
	for (uint64_t i = 0; i < metric; i++)
		b->in[i] = (unsigned char)(i * 2654435761u >> 24);
	return 0;
}

static void teardown(void *state, void *sample)
{
	struct buffers *b = sample;

	(void)state;
	free(b->in);
	free(b->out);
	free(b);
}

static double run(void *state, void *sample, uint64_t metric)
{
	struct aes_state *s = state;
	struct buffers *b = sample;
	int outl = 0;
	double t0 = s->now();
	int ok = EVP_EncryptUpdate(s->ctx, b->out, &outl, b->in, (int)metric);

	return ok == 1 ? s->now() - t0 : -1;
}

static const struct sibyl_adapter aes = {
	.abi_version = SIBYL_ADAPTER_ABI_VERSION,
	.name = "openssl-aes-256-cbc",
	.description = "EVP_EncryptUpdate, AES-256-CBC (AES-NI unless OPENSSL_ia32cap masks it)",
	.work_metric = "input bytes",
	.min_metric = 16,
	.max_metric = 1 << 20,
	/* init (OpenSSL's provider and cipher fetch, ~2.5 ms here) is what
	 * `openssl enc` did before its first EVP_EncryptUpdate either way:
	 * AES-NI is chosen inside the library, not swapped in. */
	.flags = SIBYL_ADAPTER_INIT_SHARED,
	.init = init,
	.fini = fini,
	.setup = setup,
	.run = run,
	.teardown = teardown,
};

__attribute__((visibility("default"))) const struct sibyl_adapter *const *
sibyl_adapters(size_t *count)
{
	static const struct sibyl_adapter *const list[] = { &aes };

	*count = 1;
	return list;
}
