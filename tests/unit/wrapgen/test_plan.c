/* Generator composition: requirements, order, cycles, templates. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "wrapgen/plan.h"
#include "core/output.h"

static char dir[PATH_MAX];

static void write_gen(const char *name, const char *text)
{
	char *path;
	FILE *f;

	assert_true(asprintf(&path, "%s/%s.gen", dir, name) > 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(path);
}

static int index_of(const struct wg_plan *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].gen->name, name))
			return (int)i;
	return -1;
}

/* The error line of the last plan that failed. */
static char err[1024];

static int build(const char *const *names, size_t n, struct wg_plan *p)
{
	struct sibyl_strlist specs = { 0 }, dirs = { 0 };
	int rc;

	for (size_t i = 0; i < n; i++)
		sibyl_strlist_add(&specs, names[i]);
	sibyl_strlist_add(&dirs, dir);
	rc = wg_plan_build(&specs, &dirs, p, err, sizeof(err));
	sibyl_strlist_free(&specs);
	sibyl_strlist_free(&dirs);
	return rc;
}

static void default_order(void **state)
{
	(void)state;
	static const char *const names[] = { "time", "trace" };
	struct wg_plan p;

	assert_int_equal(build(names, 2, &p), 0);
	assert_int_equal(p.n, 5);
	/* Requirements first; time innermost (last). */
	assert_true(index_of(&p, "funcptr") < index_of(&p, "loader"));
	assert_true(index_of(&p, "loader") < index_of(&p, "caller"));
	assert_true(index_of(&p, "caller") < index_of(&p, "trace"));
	assert_int_equal(index_of(&p, "time"), 4);
	wg_plan_free(&p);
}

static void before_keeps_time_innermost(void **state)
{
	(void)state;
	static const char *const names[] = { "time", "counters:events=task-clock+page-faults",
					     "worksize.manual" };
	struct wg_plan p;

	assert_int_equal(build(names, 3, &p), 0);
	assert_int_equal(index_of(&p, "time"), (int)p.n - 1);
	assert_true(index_of(&p, "trace") < index_of(&p, "counters"));
	assert_string_equal(wg_param(&p.v[index_of(&p, "counters")], "events"),
			    "task-clock+page-faults");
	wg_plan_free(&p);
}

static void templates_and_errors(void **state)
{
	(void)state;
	struct wg_plan p;
	static const char *const user[] = { "hello:greeting=hi" };
	static const char *const cyc[] = { "cyc_a" };
	static const char *const miss[] = { "needs_missing" };
	static const char *const unknown[] = { "no_such_gen" };
	static const char *const badkey[] = { "time:x=1" };
	static const char *const badph[] = { "bad_placeholder" };

	write_gen("hello", "# a comment\nrequires: trace\nbefore: time\nhelp: say hi\n"
		  "[prefix]\n\tputs(\"${param:greeting} ${function}\");\n");
	write_gen("cyc_a", "requires: cyc_b\n");
	write_gen("cyc_b", "requires: cyc_a\n");
	write_gen("needs_missing", "requires: trace, nowhere\n");
	write_gen("bad_placeholder", "[prefix]\n${nope}\n");

	assert_int_equal(build(user, 1, &p), 0);
	assert_int_equal(index_of(&p, "hello"), (int)p.n - 1);
	assert_true(index_of(&p, "trace") >= 0);
	wg_plan_free(&p);
	assert_int_equal(build(cyc, 1, &p), -1);
	/* One line: where the cycle closes, and the way back to it. */
	assert_string_equal(err, "wrap: generators form a cycle through 'cyc_a' ... needed by "
			    "'cyc_b' ... needed by 'cyc_a'");
	wg_plan_free(&p);
	assert_int_equal(build(miss, 1, &p), -1);
	wg_plan_free(&p);
	assert_int_equal(build(unknown, 1, &p), -1);
	wg_plan_free(&p);
	assert_int_equal(build(badkey, 1, &p), -1);
	wg_plan_free(&p);
	assert_int_equal(build(badph, 1, &p), -1);
	wg_plan_free(&p);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "%s/sibyl-test-gens-XXXXXX", sibyl_tmpdir());
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char *cmd;

	(void)state;
	if (asprintf(&cmd, "rm -rf '%s'", dir) > 0) {
		if (system(cmd) != 0)
			fprintf(stderr, "cleanup of %s failed\n", dir);
		free(cmd);
	}
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(default_order),
		cmocka_unit_test(before_keeps_time_innermost),
		cmocka_unit_test(templates_and_errors),
	};
	unsetenv("SIBYL_GEN_PATH");
	return cmocka_run_group_tests(tests, setup, teardown);
}
