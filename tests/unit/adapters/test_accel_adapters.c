/* The matrix-product adapters of examples/accel, loaded as `sibyl plan
 * --adapter-so` loads them: clblast-dgemm (CLBlast on the OpenCL device),
 * openblas-dgemm and reference-dgemm.  Each runs at several work
 * metrics through init/setup/run/teardown/fini; its C is checked against
 * the textbook product of the sample's pristine A and B (but for
 * clblast-dgemm-compute, which leaves C on the device), its work metric
 * against the sample's shape; bad configurations are refused with a
 * reason.  No timing is asserted beyond "run returned a time". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "blas_product.h"
#include <sibyl/adapter.h>

#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct sibyl_adapter *load(const char *library, const char *name)
{
	void *h = dlopen(library, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		fail_msg("%s", dlerror());
	sibyl_adapters_fn list = (sibyl_adapters_fn)dlsym(h, SIBYL_ADAPTERS_SYMBOL);

	assert_non_null(list);
	size_t n = 0;
	const struct sibyl_adapter *const *a = list(&n);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(a[i]->name, name))
			return a[i];
	fail_msg("%s: no adapter %s", library, name);
	return NULL;
}

/* C = A B from the sample's pristine copies, in long double. */
static void check_product(const struct blas_product *p)
{
	const double *a = p->pristine, *b = a + (size_t)p->m * p->k;

	for (int j = 0; j < p->n; j++)
		for (int i = 0; i < p->m; i++) {
			long double sum = 0;

			for (int l = 0; l < p->k; l++)
				sum += (long double)a[i + (size_t)l * p->m] * b[l + (size_t)j * p->k];
			double got = p->c[i + (size_t)j * p->m];

			if (fabsl(got - sum) > 1e-13L * p->k)
				fail_msg("%dx%dx%d: C[%d,%d] = %.17g, want %.17Lg", p->m, p->n, p->k, i,
					 j, got, sum);
		}
}

/* result_on_host: false for an adapter leaving C on the device. */
static void check_adapter(const struct sibyl_adapter *a, bool result_on_host)
{
	struct sibyl_adapter_config config = { .threads = 1, .seed = 5 };
	const uint64_t metrics[] = { BLAS_PRODUCT_MIN_METRIC, 2 * 40 * 40 * 40, 2 * 97 * 64 * 64,
				     2 * 300 * 300 * 300 };
	char err[256] = "";
	void *state = NULL;

	assert_string_equal(a->work_metric, "floating-point operations (2mnk)");
	if (a->init(&state, &config, err, sizeof(err)))
		fail_msg("%s: init: %s", a->name, err);
	for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++) {
		void *sample = NULL;

		assert_int_equal(a->setup(state, metrics[i], &sample), 0);
		struct blas_product *p = sample;
		const double params[] = { p->m, p->n, p->k };
		double metric = a->metric_of(params, 3);

		/* The shape holds the metric within a row of the product. */
		assert_true(fabs(metric - (double)metrics[i]) <= 2.0 * p->n * p->k);
		for (int again = 0; again < 2; again++) {	/* the second from pristine */
			assert_true(a->run(state, sample, metrics[i]) > 0);
			if (result_on_host)
				check_product(p);
		}
		a->teardown(state, sample);
	}
	a->fini(state);
	assert_true(a->metric_of((double[]){ 2, 3, 0 }, 3) < 0);
	assert_true(a->metric_of((double[]){ 2, 3 }, 2) < 0);
}

static void test_clblast(void **unused)
{
	(void)unused;
	const struct sibyl_adapter *a = load(ACCEL_LIB_DIR "/libsibyl-accel-clblast.so",
					     "clblast-dgemm");

	assert_true(a->flags & SIBYL_ADAPTER_OPENCL);
	check_adapter(a, true);
	check_adapter(a, true);	/* fini released the device; init opens it again */
	check_adapter(load(ACCEL_LIB_DIR "/libsibyl-accel-clblast.so", "clblast-dgemm-compute"),
		      false);
}

static void test_clblast_refuses_a_device(void **unused)
{
	(void)unused;
	const struct sibyl_adapter *a = load(ACCEL_LIB_DIR "/libsibyl-accel-clblast.so",
					     "clblast-dgemm");
	struct sibyl_adapter_config config = { .threads = 1, .device = "1" };
	char err[256] = "";
	void *state = NULL;

	assert_int_equal(a->init(&state, &config, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--device do not apply"));
}

static void test_openblas(void **unused)
{
	(void)unused;
	check_adapter(load(ACCEL_LIB_DIR "/libsibyl-accel-blas.so", "openblas-dgemm"), true);
}

static void test_reference(void **unused)
{
	(void)unused;
	check_adapter(load(ACCEL_LIB_DIR "/libsibyl-accel-blas.so", "reference-dgemm"), true);
}

static void test_missing_library(void **unused)
{
	(void)unused;
	const struct sibyl_adapter *a = load(ACCEL_LIB_DIR "/libsibyl-accel-blas.so",
					     "openblas-dgemm");
	struct sibyl_adapter_config config = { .threads = 1 };
	char err[256] = "";
	void *state = NULL;

	setenv("SIBYL_ACCEL_BLAS", "/nonexistent/libblas.so.3", 1);
	assert_int_equal(a->init(&state, &config, err, sizeof(err)), -1);
	unsetenv("SIBYL_ACCEL_BLAS");
	assert_non_null(strstr(err, "/nonexistent/libblas.so.3"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clblast),
		cmocka_unit_test(test_clblast_refuses_a_device),
		cmocka_unit_test(test_openblas),
		cmocka_unit_test(test_reference),
		cmocka_unit_test(test_missing_library),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
