/* Piecewise-linear profiles: evaluation and the JSON file round trip. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "model/profile.h"
#include "core/alloc.h"
#include "core/output.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct sibyl_profile *three_points(void)
{
	struct sibyl_profile *p = calloc(1, sizeof(*p));

	p->name = strdup("demo");
	p->work_metric = strdup("elements");
	p->lo = 1;
	p->hi = 100;
	p->complete = true;
	p->npoints = 3;
	p->points = calloc(3, sizeof(*p->points));
	p->points[0] = (struct sibyl_point){ 1, 1 };
	p->points[1] = (struct sibyl_point){ 50, 10 };
	p->points[2] = (struct sibyl_point){ 100, 110 };
	return p;
}

static void test_eval(void **state)
{
	(void)state;
	struct sibyl_profile *p = three_points();

	assert_float_equal(sibyl_profile_eval(p, 1), 1, 1e-12);
	assert_float_equal(sibyl_profile_eval(p, 50), 10, 1e-12);
	assert_float_equal(sibyl_profile_eval(p, 75), 60, 1e-12);
	assert_float_equal(sibyl_profile_eval(p, 100), 110, 1e-12);
	/* Outside the points the end pieces extend. */
	assert_float_equal(sibyl_profile_eval(p, 110), 130, 1e-12);
	assert_float_equal(sibyl_profile_eval(p, 0), 1 - 9.0 / 49, 1e-12);
	sibyl_profile_free(p);
}

static char *temp_path(void)
{
	char *path = sibyl_xasprintf("%s/sibyl-profile-XXXXXX", sibyl_tmpdir());
	int fd = mkstemp(path);

	close(fd);
	unlink(path);
	return path;
}

static void test_round_trip(void **state)
{
	(void)state;
	struct sibyl_profile *p = three_points();
	char err[512], *path = temp_path();

	p->nsamples = 1;
	p->samples = calloc(1, sizeof(*p->samples));
	p->samples[0] = (struct sibyl_point){ 3, 0.5 };
	p->provenance = json_pack("{ss}", "machine", "here");
	assert_int_equal(sibyl_profile_save(p, path, false, err, sizeof(err)), 0);
	/* An existing file is kept without force. */
	assert_int_equal(sibyl_profile_save(p, path, false, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--force"));
	struct sibyl_profile *q = sibyl_profile_load(path, err, sizeof(err));

	assert_non_null(q);
	assert_string_equal(q->name, "demo");
	assert_int_equal(q->npoints, 3);
	assert_int_equal(q->nsamples, 1);
	assert_float_equal(q->points[2].y, 110, 1e-9);
	assert_string_equal(json_string_value(json_object_get(q->provenance, "machine")), "here");
	unlink(path);
	free(path);
	sibyl_profile_free(p);
	sibyl_profile_free(q);
}

/* A planner stopped before its first segment keeps its samples. */
static void test_samples_only(void **state)
{
	(void)state;
	struct sibyl_profile *p = calloc(1, sizeof(*p));
	char err[512], *path = temp_path();

	p->lo = 1;
	p->hi = 100;
	p->nsamples = 2;
	p->samples = calloc(2, sizeof(*p->samples));
	p->samples[0] = (struct sibyl_point){ 3, 0.5 };
	p->samples[1] = (struct sibyl_point){ 1, 0.25 };
	assert_int_equal(sibyl_profile_save(p, path, false, err, sizeof(err)), 0);
	struct sibyl_profile *q = sibyl_profile_load(path, err, sizeof(err));

	assert_non_null(q);
	assert_false(q->complete);
	assert_int_equal(q->npoints, 0);
	assert_int_equal(q->nsamples, 2);
	assert_true(isnan(sibyl_profile_eval(q, 3)));
	unlink(path);
	free(path);
	sibyl_profile_free(p);
	sibyl_profile_free(q);
}

static void expect_rejected(const char *text, const char *why)
{
	char err[512], *path = temp_path();
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
	assert_null(sibyl_profile_load(path, err, sizeof(err)));
	if (!strstr(err, why))
		fail_msg("'%s' does not say '%s'", err, why);
	unlink(path);
	free(path);
}

static void test_rejects(void **state)
{
	(void)state;
	expect_rejected("{\"points\": [", "not JSON");
	expect_rejected("{\"format\": \"other\"}", "not a performance profile");
	expect_rejected("{\"format\": \"sibyl-profile\", \"version\": 9, \"min_version\": 7, "
			"\"range\": [1, 2], \"points\": [[1, 2]]}", "unsupported profile version 9");
	expect_rejected("{\"format\": \"sibyl-profile\", \"version\": 1, \"min_version\": 1, "
			"\"range\": [1, 2], \"points\": [[2, 1], [1, 2]]}", "not sorted");
	expect_rejected("{\"format\": \"sibyl-profile\", \"version\": 1, \"min_version\": 1, "
			"\"range\": [1, 2], \"points\": []}", "no points");
	expect_rejected("{\"format\": \"sibyl-profile\", \"version\": 1, \"min_version\": 1, "
			"\"range\": [1, 2], \"points\": [[1, 2]], \"samples\": [[1, 2], [3]]}",
			"\"samples\"[1] is not a pair of finite numbers");
	expect_rejected("{\"format\": \"sibyl-profile\", \"version\": 1, \"min_version\": 1, "
			"\"range\": [1, 2], \"complete\": true, \"points\": []}", "no points");
	expect_rejected("{\"format\": \"sibyl-profile\", \"version\": 1, \"min_version\": 1, "
			"\"points\": [[1, 1]]}", "range");
	expect_rejected("{\"format\": \"sibyl-profile\", \"version\": 1, \"min_version\": 1, "
			"\"range\": [1, 2], \"points\": [[1, 2]], \"segments\": [{\"from\": 1}]}",
			"\"segments\"[0] is not an object with from/to/intercept/slope");
	expect_rejected("{\"format\": \"sibyl-profile\", \"version\": 1, \"min_version\": 1, "
			"\"range\": [1, 2], \"points\": [[1, 2]], \"pieces\": [{\"from\": 1, "
			"\"to\": 2, \"implementation\": \"a\"}, {\"to\": 3}]}",
			"\"pieces\"[1] is not an object with from/to/implementation");
}

/* Why a stored profile cannot stand for an implementation: its name,
 * work metric, threads, device, range and recorded samples. */
static void expect_unfit(struct sibyl_profile *p, const struct sibyl_profile_want *w,
			 const char *why)
{
	char buf[256];
	const char *got = sibyl_profile_unfit(p, w, buf, sizeof(buf));

	if (!why)
		assert_null(got);
	else if (!got || strcmp(got, why))
		fail_msg("expected '%s', got '%s'", why, got ? got : "(fit)");
}

static void test_unfit(void **state)
{
	(void)state;
	struct sibyl_profile *p = three_points();
	struct sibyl_profile_want w = { "demo", "elements", 1, NULL, NULL, 1, 1000 };

	expect_unfit(p, &w, NULL);
	w.name = "other";
	expect_unfit(p, &w, "a profile of demo, not of other");
	w.name = "demo";
	w.work_metric = "bytes";
	expect_unfit(p, &w, "planned for the work metric 'elements', and demo's is now 'bytes'");
	w.work_metric = "elements";
	p->provenance = json_pack("{sisssn}", "threads", 4, "device", "gpu", "platform");
	expect_unfit(p, &w, "planned with 4 threads: give --threads 4");
	w.threads = 4;
	expect_unfit(p, &w, "planned on platform '' device 'gpu': give the same --platform "
		     "and --device");
	w.device = "gpu";
	expect_unfit(p, &w, NULL);
	w.max_metric = 99;
	expect_unfit(p, &w, "its range 1:100 is not within demo's 1:99");
	w.max_metric = 100;
	p->stats = json_pack("{si}", "samples", 0);
	expect_unfit(p, &w, "stats.samples is not a sample count between 1 and 1000000");
	json_object_set_new(p->stats, "samples", json_integer(30));
	expect_unfit(p, &w, NULL);
	/* A hand-written profile naming no work metric is taken as the
	 * implementation's; one without points has nothing to stand for. */
	free(p->work_metric);
	p->work_metric = NULL;
	expect_unfit(p, &w, NULL);
	p->npoints = 0;
	expect_unfit(p, &w, "no profile points to evaluate");
	sibyl_profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eval),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_samples_only),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_unfit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
