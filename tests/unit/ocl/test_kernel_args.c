/* sibyl kernel's host-side pieces: argument generation (ranges, seeds,
 * layouts), half conversion, gsize ranges, signature JSON round trip,
 * cache keys. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "ocl/driver/args.h"
#include "ocl/driver/argspec.h"
#include "ocl/driver/cache.h"
#include "ocl/driver/kernel_info.h"
#include "ocl/driver/sweep.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static struct sibyl_ktype *scalar(enum sibyl_ktype_kind kind, unsigned bits, bool is_signed)
{
	struct sibyl_ktype *t = sibyl_ktype_new(kind, bits / 8);

	t->bits = bits;
	t->is_signed = is_signed;
	return t;
}

/* struct { char c; int a[3]; float3 v; } as clang lays it out for spir64. */
static struct sibyl_ktype *record(void)
{
	struct sibyl_ktype *t = sibyl_ktype_new(SIBYL_KT_STRUCT, 32);
	struct sibyl_ktype *a = sibyl_ktype_new(SIBYL_KT_ARRAY, 12);
	struct sibyl_ktype *v = sibyl_ktype_new(SIBYL_KT_VECTOR, 16);

	a->n = 3;
	a->elem = scalar(SIBYL_KT_INT, 32, false);
	v->n = 3;
	v->elem = scalar(SIBYL_KT_FLOAT, 32, true);
	t->n = 3;
	t->members = calloc(3, sizeof(*t->members));
	t->offsets = calloc(3, sizeof(*t->offsets));
	t->members[0] = scalar(SIBYL_KT_INT, 8, false);
	t->members[1] = a;
	t->members[2] = v;
	t->offsets[0] = 0;
	t->offsets[1] = 4;
	t->offsets[2] = 16;
	return t;
}

static void kernel_init(struct sibyl_kernel *k)
{
	static const char *names[] = { "c", "u", "f", "rec", "buf", "tmp" };

	k->name = strdup("k");
	k->nargs = 6;
	k->args = calloc(6, sizeof(*k->args));
	for (size_t i = 0; i < 6; i++) {
		k->args[i].name = strdup(names[i]);
		k->args[i].type_name = strdup("t");
		k->args[i].qualifiers = strdup("");
		k->args[i].space = i < 4 ? "private" : i == 4 ? "global" : "local";
		k->args[i].kind = i < 4 ? SIBYL_KARG_VALUE : i == 4 ? SIBYL_KARG_BUFFER
								 : SIBYL_KARG_LOCAL;
	}
	k->args[0].type = scalar(SIBYL_KT_INT, 8, true);
	k->args[1].type = scalar(SIBYL_KT_INT, 32, false);
	k->args[2].type = scalar(SIBYL_KT_FLOAT, 64, true);
	k->args[3].type = record();
	k->args[4].type = record();
	k->args[5].type = scalar(SIBYL_KT_INT, 16, true);
}

/* The error line a failing call gives back. */
static char err[512];

static void test_ranges(void **state)
{
	struct sibyl_kernel k;
	(void)state;

	kernel_init(&k);
	for (uint64_t seed = 0; seed < 200; seed++) {
		struct sibyl_args_cfg cfg = { 1000, 0, seed, 0, NULL, { 0, 0, 0 } };
		struct sibyl_args a;

		assert_int_equal(sibyl_args_generate(&k, &cfg, &a, err, sizeof(err)), 0);
		int8_t c = *(int8_t *)a.a[0].data;	/* [-g, g] clamped to char */
		uint32_t u = *(uint32_t *)a.a[1].data;
		double f = *(double *)a.a[2].data;

		assert_true(c != -128);	/* clamped to [-127, 127] */
		assert_true(u < 1000);
		assert_true(f >= -1000.0 && f <= 1000.0);
		const unsigned char *r = a.a[3].data;

		assert_int_equal(a.a[3].size, 32);
		assert_int_equal(r[1] | r[2] | r[3], 0);	/* padding */
		assert_int_equal(*(const uint32_t *)(r + 28), 0);	/* float3's 4th */
		assert_int_equal(a.a[4].count, 1000);
		assert_int_equal(a.a[4].size, 32000);
		assert_null(a.a[5].data);
		assert_int_equal(a.a[5].size, 2000);
		sibyl_args_free(&a);
	}
	sibyl_kernel_free(&k);
}

static void test_seeds(void **state)
{
	struct sibyl_kernel k;
	struct sibyl_args a, b, c;
	struct sibyl_args_cfg ca = { 64, 8, 42, 0, NULL, { 0, 0, 0 } }, cc = { 64, 8, 43, 0, NULL, { 0, 0, 0 } };
	(void)state;

	kernel_init(&k);
	assert_int_equal(sibyl_args_generate(&k, &ca, &a, err, sizeof(err)), 0);
	assert_int_equal(sibyl_args_generate(&k, &ca, &b, err, sizeof(err)), 0);
	assert_int_equal(sibyl_args_generate(&k, &cc, &c, err, sizeof(err)), 0);
	assert_int_equal(a.a[4].count, 8);
	assert_memory_equal(a.a[4].data, b.a[4].data, a.a[4].size);
	assert_memory_not_equal(a.a[4].data, c.a[4].data, a.a[4].size);
	json_t *ja = sibyl_args_json(&k, &a);

	assert_int_equal(json_array_size(json_object_get(json_array_get(ja, 3), "value")), 3);
	assert_int_equal(json_array_size(json_object_get(json_array_get(ja, 4), "data")), 8);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(ja, 5), "bytes")), 16);
	json_decref(ja);
	struct sibyl_args l;
	struct sibyl_args_cfg cl = { 64, 8, 42, 5, NULL, { 0, 0, 0 } };	/* __local: 5 items */

	assert_int_equal(sibyl_args_generate(&k, &cl, &l, err, sizeof(err)), 0);
	assert_int_equal(l.a[5].size, 10);
	assert_int_equal(l.a[4].count, 8);
	sibyl_args_free(&l);
	sibyl_args_free(&a);
	sibyl_args_free(&b);
	sibyl_args_free(&c);
	sibyl_kernel_free(&k);
}

/* Buffer sizes are count * element size: a product that overflowed was
 * a 1-byte buffer filled with 2^62 elements (a heap overflow). */
static void test_sizes_overflow(void **state)
{
	struct sibyl_kernel k;
	struct sibyl_args a;
	struct sibyl_args_cfg big = { 64, 1ull << 62, 0, 0, NULL, { 0, 0, 0 } };	/* x 32 bytes */
	struct sibyl_args_cfg wide = { UINT64_MAX, 0, 0, 0, NULL, { 0, 0, 0 } };	/* the gsize counts */
	struct sibyl_args_cfg local = { 64, 8, 0, 1ull << 63, NULL, { 0, 0, 0 } };	/* x 2 bytes */
	struct sibyl_args_cfg edge = { 64, SIZE_MAX / 32, 0, 0, NULL, { 0, 0, 0 } };
	(void)state;

	kernel_init(&k);
	assert_int_equal(sibyl_args_generate(&k, &big, &a, err, sizeof(err)), -1);
	assert_null(a.a);
	assert_int_equal(sibyl_args_check(&k, &wide, err, sizeof(err)), -1);
	assert_int_equal(sibyl_args_check(&k, &local, err, sizeof(err)), -1);
	assert_int_equal(sibyl_args_check(&k, &edge, err, sizeof(err)), 0);	/* fits, if not in memory */
	sibyl_kernel_free(&k);
}

static void test_half(void **state)
{
	static const float exact[] = { 0.0f, 1.0f, -2.5f, 65504.0f, 0x1p-14f, 0x1p-24f, 1000.5f };
	(void)state;

	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		assert_true(sibyl_half_to_float(sibyl_float_to_half(exact[i])) == exact[i]);
	assert_int_equal(sibyl_float_to_half(1.0f), 0x3c00);
	assert_int_equal(sibyl_float_to_half(-2.0f), 0xc000);
	assert_int_equal(sibyl_float_to_half(1e6f), 0x7c00);		/* overflow: inf */
	assert_int_equal(sibyl_float_to_half(1.0f + 1.0f / 4096), 0x3c00);	/* to even */
}

static void test_range_parse(void **state)
{
	struct sibyl_range r;
	(void)state;

	assert_int_equal(sibyl_range_parse("64", &r, err, sizeof(err)), 0);
	assert_true(r.from == 64 && r.to == 64);
	assert_int_equal(sibyl_range_parse("64:1024:64", &r, err, sizeof(err)), 0);
	assert_true(r.from == 64 && r.to == 1024 && r.step == 64);
	assert_int_equal(sibyl_range_parse("16:32", &r, err, sizeof(err)), 0);
	assert_true(r.step == 16);
	assert_int_equal(sibyl_range_parse("0", &r, err, sizeof(err)), -1);
	assert_string_equal(err, "kernel: --gsize: '0' is empty or has a zero size or step");
	assert_int_equal(sibyl_range_parse("10:2", &r, err, sizeof(err)), -1);
	assert_int_equal(sibyl_range_parse("-4", &r, err, sizeof(err)), -1);
	assert_int_equal(sibyl_range_parse("4:x", &r, err, sizeof(err)), -1);
}

static void test_signature_round_trip(void **state)
{
	struct sibyl_kernel k, back;
	(void)state;

	kernel_init(&k);
	json_t *j = sibyl_kernel_to_json(&k);

	assert_int_equal(sibyl_kernel_from_json(j, &back), 0);
	json_t *again = sibyl_kernel_to_json(&back);

	assert_true(json_equal(j, again));
	assert_int_equal(back.args[3].type->offsets[2], 16);
	assert_int_equal(back.args[4].kind, SIBYL_KARG_BUFFER);
	json_decref(j);
	json_decref(again);
	sibyl_kernel_free(&k);
	sibyl_kernel_free(&back);
}

static void test_cache_key(void **state)
{
	struct sibyl_cache_key a, b;
	(void)state;

	sibyl_cache_key_init(&a);
	sibyl_cache_key_add_str(&a, "ab");
	sibyl_cache_key_add_str(&a, "c");
	sibyl_cache_key_done(&a);
	sibyl_cache_key_init(&b);
	sibyl_cache_key_add_str(&b, "a");
	sibyl_cache_key_add_str(&b, "bc");
	sibyl_cache_key_done(&b);
	assert_int_equal(strlen(a.hex), 16);
	assert_string_not_equal(a.hex, b.hex);
}

/* Inferred sizes (argspec_infer.h): exact integer roots, divided, at
 * least 1, and the spec's root and divisor through the runner's JSON. */
static void test_size_value(void **state)
{
	(void)state;
	struct sibyl_argspec sp[2] = { { .gen = SIBYL_GEN_SIZE, .size_of = -1, .root = 2 },
				       { .gen = SIBYL_GEN_INDEX, .size_of = -1, .root = 3, .div = 4 } };
	static const uint64_t n[] = { 1, 3, 4, 1023, 1024, 1025, 999999, 1000000, 1ull << 62 };
	static const uint64_t sq[] = { 1, 1, 2, 31, 32, 32, 999, 1000, 1ull << 31 };
	static const uint64_t cb[] = { 1, 1, 1, 10, 10, 10, 99, 100, 1664510 };

	for (size_t i = 0; i < sizeof(n) / sizeof(n[0]); i++) {
		sp[0].div = 0;
		assert_int_equal(sibyl_size_value(n[i], &sp[0]), sq[i]);
		sp[0].root = 3;
		assert_int_equal(sibyl_size_value(n[i], &sp[0]), cb[i]);
		sp[0].root = 1, sp[0].div = 16;
		assert_int_equal(sibyl_size_value(n[i], &sp[0]), n[i] / 16 ? n[i] / 16 : 1);
		sp[0].root = 2;
	}
	json_t *j = sibyl_argspecs_json(sp, 2);
	struct sibyl_argspec *back = sibyl_argspecs_from_json(j, 2);

	assert_int_equal(back[1].gen, SIBYL_GEN_INDEX);
	assert_int_equal(back[1].root, 3);
	assert_int_equal(back[1].div, 4);
	assert_int_equal(sibyl_size_value(1000, &back[1]), 2);	/* 10 / 4 */
	json_decref(j);
	sibyl_argspecs_free(back, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_seeds),
		cmocka_unit_test(test_sizes_overflow),
		cmocka_unit_test(test_half),
		cmocka_unit_test(test_range_parse),
		cmocka_unit_test(test_signature_round_trip),
		cmocka_unit_test(test_cache_key),
		cmocka_unit_test(test_size_value),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
