/* Device profile: statistics, the transfer fit, the JSON round trip and
 * every way a profile file can be refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "ocl/device/device.h"
#include "core/alloc.h"
#include "core/output.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void assert_close(double expected, double actual, double rel)
{
	if (fabs(expected - actual) > rel * fabs(expected)) {
		print_error("expected %.17g, got %.17g (rel %g)\n", expected, actual, rel);
		fail();
	}
}

static void test_stat(void **state)
{
	(void)state;
	double s[] = { 3, 1, 2, 10 };
	struct sibyl_stat st = sibyl_stat_of(s, 4);

	/* mean 4, squared deviations 1+9+4+36 = 50, 50/3 */
	assert_close(2.5, st.median, 1e-15);
	assert_close(1, st.min, 0);
	assert_close(sqrt(50.0 / 3), st.stdev, 1e-12);
	assert_int_equal(st.n, 4);
	double one[] = { 7 };

	st = sibyl_stat_of(one, 1);
	assert_close(7, st.median, 0);
	assert_close(0, st.stdev, 0);
	assert_int_equal(sibyl_stat_of(NULL, 0).n, 0);
}

static void test_fit_exact_line(void **state)
{
	(void)state;
	double x[8], t[8];

	for (int i = 0; i < 8; i++) {
		x[i] = 64.0 * pow(4, i);
		t[i] = 1e-5 + x[i] / 1e10;
	}
	struct sibyl_transfer_model m = sibyl_transfer_fit(x, t, 8);

	assert_close(1e-5, m.latency_s, 1e-9);
	assert_close(1e10, m.bytes_per_s, 1e-9);
	assert_true(m.max_rel_error < 1e-9);
	assert_int_equal(m.points, 8);
}

/* Worked by hand: x = 1, 2, 4 and t = 2, 3, 8 with weights 1/t^2.
 * sw = 1/4 + 1/9 + 1/64, sx = 1/4 + 2/9 + 4/64, sy = 1/2 + 1/3 + 1/8,
 * sxx = 1/4 + 4/9 + 16/64, sxy = 1/2 + 2/3 + 4/8; then
 * b = (sw sxy - sx sy) / (sw sxx - sx^2), a = (sy - b sx) / sw. */
static void test_fit_weighted_by_hand(void **state)
{
	(void)state;
	double x[] = { 1, 2, 4 }, t[] = { 2, 3, 8 };
	double sw = 1 / 4. + 1 / 9. + 1 / 64., sx = 1 / 4. + 2 / 9. + 4 / 64.;
	double sy = 1 / 2. + 1 / 3. + 1 / 8., sxx = 1 / 4. + 4 / 9. + 16 / 64.;
	double sxy = 1 / 2. + 2 / 3. + 4 / 8.;
	double b = (sw * sxy - sx * sy) / (sw * sxx - sx * sx), a = (sy - b * sx) / sw;
	struct sibyl_transfer_model m = sibyl_transfer_fit(x, t, 3);

	assert_true(a > 0 && b > 0);
	assert_close(a, m.latency_s, 1e-12);
	assert_close(1 / b, m.bytes_per_s, 1e-12);
}

/* A line with a negative intercept is refitted through the origin:
 * b = sum(w x t) / sum(w x^2) = sum(x/t) / sum(x^2/t^2). */
static void test_fit_negative_latency(void **state)
{
	(void)state;
	double x[] = { 1e4, 1e5, 1e6 }, t[3], num = 0, den = 0;

	for (int i = 0; i < 3; i++) {
		t[i] = -1e-6 + x[i] * 1e-9;
		num += x[i] / t[i];
		den += x[i] * x[i] / (t[i] * t[i]);
	}
	struct sibyl_transfer_model m = sibyl_transfer_fit(x, t, 3);

	assert_close(0, m.latency_s, 0);
	assert_close(den / num, m.bytes_per_s, 1e-12);
}

/* Time not growing with size: a constant (weighted mean), bandwidth 0. */
static void test_fit_flat(void **state)
{
	(void)state;
	double x[] = { 64, 256, 1024 }, t[] = { 3e-5, 2e-5, 2e-5 };
	struct sibyl_transfer_model m = sibyl_transfer_fit(x, t, 3);
	double sw = 1 / 9e-10 + 2 / 4e-10, swt = 1 / 3e-5 + 2 / 2e-5;

	assert_close(swt / sw, m.latency_s, 1e-12);
	assert_close(0, m.bytes_per_s, 0);
	assert_int_equal(sibyl_transfer_fit(x, t, 0).points, 0);
	m = sibyl_transfer_fit(x, t, 1);	/* one point: through the origin */
	assert_close(0, m.latency_s, 0);
	assert_close(64 / 3e-5, m.bytes_per_s, 1e-12);
}

/* A profile with a distinct value in every field. */
static void fill(struct sibyl_device_profile *p)
{
	double v = 1.25e-6;

	memset(p, 0, sizeof(*p));
	snprintf(p->platform, sizeof(p->platform), "Test \"Platform\" é");
	snprintf(p->platform_version, sizeof(p->platform_version), "OpenCL 3.0 test");
	snprintf(p->device, sizeof(p->device), "dev0");
	snprintf(p->device_version, sizeof(p->device_version), "OpenCL 1.2");
	snprintf(p->driver_version, sizeof(p->driver_version), "9.9");
	snprintf(p->host, sizeof(p->host), "h");
	snprintf(p->date, sizeof(p->date), "2026-01-01T00:00:00Z");
	snprintf(p->sibyl_version, sizeof(p->sibyl_version), "0.1.0");
	p->repeat = 7;
	p->max_bytes = 1ull << 30;
	p->quick = true;
	p->max_alloc_bytes = 1ull << 31;
	p->global_mem_bytes = 3ull << 31;
	struct sibyl_timing *t[] = { &p->command, &p->transfer[0], &p->transfer[1],
				     &p->transfer[2], &p->launch };

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		t[i]->host = (struct sibyl_stat){ v, v / 2, v / 3, 35 };
		t[i]->device = (struct sibyl_stat){ v / 7, v / 11, v / 13, 35 };
		v *= 1.1;
	}
	p->launch_exec = (struct sibyl_stat){ 3e-7, 2e-7, 1e-8, 35 };
	p->with_profiling = (struct sibyl_stat){ 2.2e-5, 2e-5, 1e-6, 35 };
	p->without_profiling = (struct sibyl_stat){ 2.1e-5, 1.9e-5, 1e-6, 35 };
	p->profiling_overhead_s = 1e-6;
	p->profiling_overhead_pct = 100.0 / 21;
	for (int d = 0; d < SIBYL_DIR_COUNT; d++) {
		p->curve[d].count = 5;
		for (int i = 0; i < 5; i++) {
			struct sibyl_bw_point *pt = &p->curve[d].points[i];

			pt->bytes = 64ull << (2 * i);
			pt->t.host = (struct sibyl_stat){ 1e-5 * (i + 1) + d * 1e-7, 9e-6, 1e-7, 7 };
			pt->t.device = (struct sibyl_stat){ 1e-6 * (i + 1), 8e-7, 1e-8, 7 };
			pt->gbps = (double)pt->bytes / pt->t.host.median / 1e9;
		}
	}
	p->skipped_from = 1ull << 30;
	snprintf(p->skipped_reason, sizeof(p->skipped_reason), "above CL_DEVICE_MAX_MEM_ALLOC_SIZE");
	sibyl_device_profile_fit(p);
}

/* Equal in every serialised field: the dumps (%.17g doubles, exact)
 * match.  memcmp would also compare struct padding. */
static void assert_same(const struct sibyl_device_profile *a, const struct sibyl_device_profile *b)
{
	char *x = sibyl_device_profile_dump(a), *y = sibyl_device_profile_dump(b);

	assert_non_null(x);
	assert_non_null(y);
	assert_string_equal(x, y);
	free(x);
	free(y);
}

static void test_round_trip(void **state)
{
	(void)state;
	struct sibyl_device_profile *p = calloc(2, sizeof(*p)), *q = p + 1;
	char err[256] = "";

	fill(p);
	char *text = sibyl_device_profile_dump(p);

	assert_non_null(text);
	if (sibyl_device_profile_parse(text, strlen(text), q, err, sizeof(err)))
		fail_msg("parse: %s", err);
	assert_string_equal(p->platform, q->platform);
	assert_int_equal(q->curve[SIBYL_D2H].count, 5);
	assert_true(q->quick);
	assert_int_equal(q->skipped_from, 1ull << 30);
	assert_true(q->curve[SIBYL_D2D].points[4].t.host.median ==
		    p->curve[SIBYL_D2D].points[4].t.host.median);
	assert_true(q->model[SIBYL_H2D].bytes_per_s == p->model[SIBYL_H2D].bytes_per_s);
	assert_same(p, q);
	/* Not measured (n == 0) is written as null and read back as such. */
	p->launch.device.n = 0;
	p->launch.device.median = p->launch.device.min = p->launch.device.stdev = 0;
	p->skipped_from = 0;
	p->skipped_reason[0] = '\0';
	free(text);
	text = sibyl_device_profile_dump(p);
	assert_int_equal(sibyl_device_profile_parse(text, strlen(text), q, err, sizeof(err)), 0);
	assert_same(p, q);
	free(text);
	free(p);
}

static void test_save_load(void **state)
{
	(void)state;
	struct sibyl_device_profile *p = calloc(2, sizeof(*p)), *q = p + 1;
	char *path = sibyl_xasprintf("%s/sibyl-devprof-XXXXXX", sibyl_tmpdir());
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	fill(p);
	char err[512];

	assert_int_equal(sibyl_device_profile_save(path, p, err, sizeof(err)), 0);
	assert_int_equal(sibyl_device_profile_load(path, q, err, sizeof(err)), 0);
	assert_same(p, q);
	unlink(path);
	assert_int_equal(sibyl_device_profile_load(path, q, err, sizeof(err)), -1);	/* gone */
	assert_non_null(strstr(err, "No such file"));
	free(path);
	free(p);
}

/* Parse `root` after `edit`; the error must contain `want`. */
static void expect_refused(json_t *root, const char *want)
{
	struct sibyl_device_profile *q = malloc(sizeof(*q));
	char err[256] = "";
	char *text = json_dumps(root, 0);

	assert_int_equal(sibyl_device_profile_parse(text, strlen(text), q, err, sizeof(err)), -1);
	if (!strstr(err, want))
		fail_msg("error '%s' does not say '%s'", err, want);
	assert_null(strchr(err, '\n'));
	free(text);
	free(q);
	json_decref(root);
}

static json_t *good_json(void)
{
	struct sibyl_device_profile *p = malloc(sizeof(*p));

	fill(p);
	char *text = sibyl_device_profile_dump(p);
	json_t *root = json_loads(text, 0, NULL);

	free(text);
	free(p);
	return root;
}

static void test_refuse(void **state)
{
	(void)state;
	json_t *r;

	r = good_json();
	json_object_set_new(r, "version", json_integer(2));
	expect_refused(r, "version 2 is not supported");
	r = good_json();
	json_object_set_new(r, "format", json_string("sibyl-model"));
	expect_refused(r, "not a device profile");
	r = good_json();
	json_object_del(json_object_get(r, "latencies"), "command");
	expect_refused(r, "missing field 'latencies.command'");
	r = good_json();
	json_object_del(json_object_get(json_object_get(r, "transfer_model"), "d2d"),
			"bytes_per_second");
	expect_refused(r, "missing field 'transfer_model.d2d.bytes_per_second'");
	r = good_json();
	json_object_set_new(json_object_get(r, "provenance"), "repeat", json_string("7"));
	expect_refused(r, "'provenance.repeat' has the wrong type");
	r = good_json();
	json_t *h2d = json_object_get(json_object_get(r, "bandwidth"), "h2d");
	json_object_set_new(json_array_get(h2d, 2), "bytes", json_integer(64));
	expect_refused(r, "bandwidth.h2d: sizes are not increasing");
	r = good_json();
	h2d = json_object_get(json_object_get(r, "bandwidth"), "h2d");
	json_object_set_new(json_array_get(h2d, 0), "seconds_median", json_real(-1));
	expect_refused(r, "non-positive");
	r = good_json();
	json_object_del(r, "skipped");
	expect_refused(r, "missing field 'skipped'");
	expect_refused(json_array(), "not a device profile");
}

static void test_refuse_text(void **state)
{
	(void)state;
	struct sibyl_device_profile *p = malloc(sizeof(*p));
	char err[256];

	fill(p);
	char *text = sibyl_device_profile_dump(p);

	assert_int_equal(sibyl_device_profile_parse(text, strlen(text) / 2, p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not valid JSON"));
	assert_int_equal(sibyl_device_profile_parse("", 0, p, err, sizeof(err)), -1);
	free(text);
	free(p);
}

static void test_predict(void **state)
{
	(void)state;
	struct sibyl_device_profile *p = malloc(sizeof(*p));

	fill(p);
	p->model[SIBYL_H2D] = (struct sibyl_transfer_model){ 1e-5, 1e10, 0, 5 };
	assert_close(1e-5 + 1e6 / 1e10, sibyl_device_transfer_seconds(p, SIBYL_H2D, 1000000), 1e-15);
	assert_close(0, sibyl_device_transfer_seconds(p, SIBYL_H2D, 0), 0);
	p->model[SIBYL_D2D].points = 0;
	assert_true(sibyl_device_transfer_seconds(p, SIBYL_D2D, 64) < 0);
	assert_true(sibyl_device_transfer_seconds(p, SIBYL_DIR_COUNT, 64) < 0);
	/* measured: points at 64 B * 4^i taking 1e-5 (i+1) s on h2d */
	assert_close(1e-5, sibyl_device_transfer_seconds_measured(p, SIBYL_H2D, 1), 1e-15);
	assert_close(1.5e-5, sibyl_device_transfer_seconds_measured(p, SIBYL_H2D, 160), 1e-12);
	assert_close(5e-5 * 2, sibyl_device_transfer_seconds_measured(p, SIBYL_H2D, 2 * 16384), 1e-12);
	free(p);
}

static void test_parse_bytes(void **state)
{
	(void)state;
	uint64_t v;

	assert_int_equal(sibyl_parse_bytes("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(sibyl_parse_bytes("64M", &v), 0);
	assert_int_equal(v, 64ull << 20);
	assert_int_equal(sibyl_parse_bytes("1G", &v), 0);
	assert_int_equal(v, 1ull << 30);
	assert_int_equal(sibyl_parse_bytes("16KiB", &v), 0);
	assert_int_equal(v, 16384);
	assert_int_equal(sibyl_parse_bytes("1.5G", &v), -1);
	assert_int_equal(sibyl_parse_bytes("", &v), -1);
	assert_int_equal(sibyl_parse_bytes("-1", &v), -1);
	assert_int_equal(sibyl_parse_bytes("12X", &v), -1);
	assert_int_equal(sibyl_parse_bytes("99999999999999999999", &v), -1);
	assert_int_equal(sibyl_parse_bytes("17179869184G", &v), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat),
		cmocka_unit_test(test_fit_exact_line),
		cmocka_unit_test(test_fit_weighted_by_hand),
		cmocka_unit_test(test_fit_negative_latency),
		cmocka_unit_test(test_fit_flat),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_save_load),
		cmocka_unit_test(test_refuse),
		cmocka_unit_test(test_refuse_text),
		cmocka_unit_test(test_predict),
		cmocka_unit_test(test_parse_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
