/* `sibyl kernel --check`: findings from the runner's digests (check.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ocl/driver/check.h"

#include <string.h>

/* kernel k(__global const float *in, __global float *out, int n
 *          [, image2d_t img]) */
static struct sibyl_karg args[] = {
	{ "in", "float*", "const", "global", SIBYL_KARG_BUFFER, NULL },
	{ "out", "float*", "", "global", SIBYL_KARG_BUFFER, NULL },
	{ "n", "int", "", "private", SIBYL_KARG_VALUE, NULL },
	{ "img", "image2d_t", "", "global", SIBYL_KARG_IMAGE, NULL },
};
static struct sibyl_kernel k = { "k", args, 3, { 0 } };

/* One sample's message: seed, input digest, out's digests (in and n are
 * not writable: null). */
static json_t *sample(int seed, const char *input, const char *before, const char *after,
		      const char *again)
{
	return json_pack("{s:i, s:{s:s, s:[n, s, n], s:[n, s, n], s:[n, s, n]}}", "seed", seed,
			 "check", "input", input, "before", before, "after", after,
			 "again", again);
}

/* The findings' kinds, comma separated, for samples a and b. */
static char *kinds(const struct sibyl_kernel *kn, json_t *a, json_t *b)
{
	json_t *samples = json_pack("[o, o]", a, b), *f = sibyl_check_findings(kn, samples), *e;
	static char buf[256];
	size_t i;

	buf[0] = '\0';
	json_array_foreach(f, i, e) {
		strcat(buf, i ? "," : "");
		strcat(buf, json_string_value(json_object_get(e, "kind")));
	}
	json_decref(f);
	json_decref(samples);
	return buf;
}

static void clean(void **state)
{
	(void)state;
	assert_string_equal(kinds(&k, sample(0, "i0", "b0", "a0", "a0"),
				  sample(1, "i1", "b1", "a1", "a1")), "");
}

static void no_output(void **state)
{
	(void)state;
	assert_string_equal(kinds(&k, sample(0, "i0", "b0", "b0", "b0"),
				  sample(1, "i1", "b1", "b1", "b1")), "no-output");
}

static void independent(void **state)
{
	(void)state;
	assert_string_equal(kinds(&k, sample(0, "i0", "b0", "a", "a"),
				  sample(1, "i1", "b1", "a", "a")), "input-independent");
	/* The same input twice (every argument fixed): nothing to compare. */
	assert_string_equal(kinds(&k, sample(0, "i0", "b0", "a", "a"),
				  sample(1, "i0", "b0", "a", "a")), "");
}

static void nondeterministic(void **state)
{
	json_t *samples = json_pack("[o, o]", sample(0, "i0", "b0", "a0", "a0"),
				    sample(1, "i1", "b1", "a1", "x1"));
	json_t *f = sibyl_check_findings(&k, samples), *one = json_array_get(f, 0);

	(void)state;
	assert_int_equal(json_array_size(f), 1);
	assert_string_equal(json_string_value(json_object_get(one, "kind")), "nondeterministic");
	assert_string_equal(json_string_value(json_object_get(one, "arg")), "out");
	assert_int_equal(json_integer_value(json_object_get(one, "seed")), 1);
	assert_string_equal(json_string_value(json_object_get(one, "message")),
			    "nondeterministic output: buffer 'out' differs between two runs "
			    "with seed 1");
	json_decref(f);
	json_decref(samples);
}

/* Images are not read back: their kernel's output may be there. */
static void images_unseen(void **state)
{
	struct sibyl_kernel with_image = { "k", args, 4, { 0 } };

	(void)state;
	assert_string_equal(kinds(&with_image, sample(0, "i0", "b0", "b0", "b0"),
				  sample(1, "i1", "b1", "b1", "b1")), "");
}

/* sibyl_check_barriers finds `message` in counts of cfg's 8 work-items. */
static void expect_divergence(const struct sibyl_run_cfg *cfg, const uint64_t *counts,
			      const char *message)
{
	json_t *f = sibyl_check_barriers(cfg, counts, 8, NULL);

	assert_non_null(f);
	assert_string_equal(json_string_value(json_object_get(f, "message")), message);
	json_decref(f);
}

/* Work-items 2 and 7 (rows): the barrier of line 12. */
static unsigned line_12(void *ctx, uint64_t a, uint64_t b)
{
	(void)ctx;
	return a == 2 && b == 7 ? 12 : 0;
}

/* Barrier counts per work-item, compared within each work-group. */
static void barrier_groups(void **state)
{
	struct sibyl_run_cfg cfg = { .gsize = 8, .lsize = 4 };
	uint64_t uniform[8] = { 1, 1, 1, 1, 2, 2, 2, 2 }, diverge[8] = { 1, 1, 1, 1, 2, 2, 2, 1 };
	uint64_t grid[8] = { 0, 0, 0, 0, 0, 0, 0, 3 };

	(void)state;
	assert_null(sibyl_check_barriers(&cfg, uniform, 8, NULL));	/* groups may differ */
	expect_divergence(&cfg, diverge, "barrier divergence: work-items 4 and 7 of work-group 1 "
			  "reached 2 and 1 barriers (1 of 2 groups diverge)");
	/* 2-D: 4 x 2 in groups of 2 x 2; the second group's (3,1) differs. */
	cfg = (struct sibyl_run_cfg){ .file = "k.cl", .gsize = 8, .lsize = 4, .dims = 2,
				      .gdim = { 4, 2, 1 }, .ldim = { 2, 2, 1 } };
	expect_divergence(&cfg, grid, "barrier divergence: work-items 2,0 and 3,1 of work-group 1 "
			  "reached 0 and 3 barriers (1 of 2 groups diverge)");
	/* The barrier's line, when the probe's debug information has it. */
	struct sibyl_barrier_where where = { line_12, NULL };
	json_t *f = sibyl_check_barriers(&cfg, grid, 8, &where);

	assert_string_equal(json_string_value(json_object_get(f, "message")),
			    "barrier divergence at k.cl:12: work-items 2,0 and 3,1 of work-group 1 "
			    "reached 0 and 3 barriers (1 of 2 groups diverge)");
	assert_int_equal(json_integer_value(json_object_get(f, "line")), 12);
	json_decref(f);
	cfg = (struct sibyl_run_cfg){ .gsize = 8, .lsize = 0 };	/* the runtime's groups */
	assert_null(sibyl_check_barriers(&cfg, diverge, 8, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(clean),
		cmocka_unit_test(no_output),
		cmocka_unit_test(independent),
		cmocka_unit_test(nondeterministic),
		cmocka_unit_test(images_unseen),
		cmocka_unit_test(barrier_groups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
