/* Longest common subsequence (Table I): work metric = length of string a;
 * string b is fixed at 256 characters, so time ~ |a| * 256. Dynamic
 * programming over one rolling row of |b| + 1 lengths. */
#include "planner/adapters/adapters.h"

#include <stdlib.h>
#include <string.h>

#define FIXED_B 256

struct lcs_sample {
	char *a, *b;
	size_t na, nb;
	size_t result;
};

static void fill_dna(void *state, char *s, size_t n)
{
	/* A 4-letter alphabet keeps the common subsequence long, so the
	 * max/equal branches are both exercised. */
	for (size_t i = 0; i < n; i++)
		s[i] = "ACGT"[adapter_random(state) >> 62];
}

static int setup(void *state, uint64_t metric, void **sample)
{
	struct lcs_sample *s = calloc(1, sizeof(*s));
	if (!s)
		return -1;
	s->na = metric;
	s->nb = FIXED_B;
	s->a = adapter_alloc(s->na, 1);
	s->b = adapter_alloc(s->nb, 1);
	if (!s->a || !s->b) {
		free(s->a);
		free(s->b);
		free(s);
		return -1;
	}
	fill_dna(state, s->a, s->na);
	fill_dna(state, s->b, s->nb);
	*sample = s;
	return 0;
}

/* row[j] = LCS(a[0..i), b[0..j)); `diag` carries row[j - 1] of the
 * previous i. */
static size_t lcs_length(const char *a, size_t na, const char *b, size_t nb,
			 unsigned *row)
{
	memset(row, 0, (nb + 1) * sizeof(*row));
	for (size_t i = 0; i < na; i++) {
		unsigned diag = 0;
		char ai = a[i];
		for (size_t j = 1; j <= nb; j++) {
			unsigned up = row[j];
			unsigned best = ai == b[j - 1] ? diag + 1
				       : (up > row[j - 1] ? up : row[j - 1]);
			diag = up;
			row[j] = best;
		}
	}
	return row[nb];
}

static double run(void *state, void *sample, uint64_t metric)
{
	struct lcs_sample *s = sample;
	unsigned row[FIXED_B + 1];
	(void)metric;
	double t0 = adapter_now(state);
	s->result = lcs_length(s->a, s->na, s->b, s->nb, row);
	return adapter_now(state) - t0;
}

static void teardown(void *state, void *sample)
{
	struct lcs_sample *s = sample;
	(void)state;
	free(s->a);
	free(s->b);
	free(s);
}

/* Reference: the textbook full (na + 1) x (nb + 1) table, filled with b
 * in the outer loop (the transpose of run's order). */
static int verify(void *state, void *sample, uint64_t metric)
{
	struct lcs_sample *s = sample;
	(void)state;
	size_t w = s->na + 1;
	unsigned *t = calloc((s->nb + 1) * w, sizeof(*t));
	if (!t || s->na != metric)
		return free(t), -1;
	for (size_t j = 1; j <= s->nb; j++)
		for (size_t i = 1; i <= s->na; i++) {
			unsigned *c = &t[j * w + i];
			if (s->a[i - 1] == s->b[j - 1])
				*c = t[(j - 1) * w + i - 1] + 1;
			else
				*c = t[(j - 1) * w + i] > t[j * w + i - 1]
					     ? t[(j - 1) * w + i] : t[j * w + i - 1];
		}
	size_t want = t[s->nb * w + s->na];
	free(t);
	return want == s->result ? 0 : -1;
}

/* Time ~ |a| * |b|: the metric of any pair is that product over 256. */
static double metric_of(const double *params, size_t nparams)
{
	if (!adapter_params_ok(params, nparams, 2, 0))
		return -1;
	return params[0] * params[1] / FIXED_B;
}

static size_t params_of(void *sample, double *params)
{
	struct lcs_sample *s = sample;
	params[0] = (double)s->na;
	params[1] = (double)s->nb;
	return 2;
}

const struct sibyl_adapter adapter_lcs = {
	.abi_version = SIBYL_ADAPTER_ABI_VERSION,
	.name = "lcs",
	.description = "longest common subsequence, dynamic programming, |b| = 256",
	.work_metric = "length of string a (b has 256 characters)",
	.min_metric = 1,
	.max_metric = 1000000,
	.init = adapter_common_init,
	.fini = adapter_common_fini,
	.setup = setup,
	.run = run,
	.teardown = teardown,
	.params_doc = "len_a,len_b",
	.metric_of = metric_of,
};

const struct adapter_internal adapter_lcs_internal = {
	.adapter = &adapter_lcs,
	.verify = verify,
	.params_of = params_of,
};
