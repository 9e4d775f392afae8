#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/options.h"

static const struct sibyl_command_help help = { "t", "[opts]", "test" };
/* Where a usage error goes: the caller prints it. */
static char err[256];

static int parse(const struct sibyl_option *opts, int argc, char **argv, bool stop,
		 int *operands)
{
	return sibyl_options_parse(&help, opts, argc, argv, stop, operands, err, sizeof(err));
}

static void mixes_options_and_operands(void **state)
{
	(void)state;
	const char *out = NULL;
	bool force = false;
	long n = 0;
	struct sibyl_strlist gens = { 0 };
	struct sibyl_option opts[] = {
		{ "output", 'o', SIBYL_OPT_STRING, &out, "FILE", "output" },
		{ "force", 0, SIBYL_OPT_FLAG, &force, NULL, "force" },
		{ "count", 'n', SIBYL_OPT_LONG, &n, "N", "count" },
		{ "gen", 0, SIBYL_OPT_CSV, &gens, "G,...", "generators" },
		SIBYL_OPT_END,
	};
	char *argv[] = { "t", "lib.so", "-o", "x.so", "--gen", "time,trace", "--force",
			 "-n", "7", "extra", "--gen", "counters", NULL };
	int operands = 0;

	assert_int_equal(parse(opts, 12, argv, false, &operands), 0);
	assert_int_equal(operands, 2);
	assert_string_equal(argv[1], "lib.so");
	assert_string_equal(argv[2], "extra");
	assert_string_equal(out, "x.so");
	assert_true(force);
	assert_int_equal(n, 7);
	assert_int_equal(gens.count, 3);
	assert_string_equal(gens.items[2], "counters");
	sibyl_strlist_free(&gens);
}

static void stops_at_command(void **state)
{
	(void)state;
	const char *out = NULL;
	struct sibyl_option opts[] = {
		{ "output", 'o', SIBYL_OPT_STRING, &out, "DIR", "output" },
		SIBYL_OPT_END,
	};
	char *argv[] = { "t", "-o", "d", "--", "ls", "-l", "-o", NULL };
	int operands = 0;

	assert_int_equal(parse(opts, 7, argv, true, &operands), 0);
	assert_int_equal(operands, 3);
	assert_string_equal(argv[1], "ls");
	assert_string_equal(argv[2], "-l");
	assert_string_equal(argv[3], "-o");
	assert_string_equal(out, "d");
}

static void rejects_bad_input(void **state)
{
	(void)state;
	long n = 0;
	struct sibyl_option opts[] = {
		{ "count", 'n', SIBYL_OPT_LONG, &n, "N", "count" },
		SIBYL_OPT_END,
	};
	char *bad_number[] = { "t", "-n", "12x", NULL };
	char *unknown[] = { "t", "--nope", NULL };
	char *missing[] = { "t", "--count", NULL };
	int operands;

	assert_int_equal(parse(opts, 3, bad_number, false, &operands), -1);
	assert_string_equal(err, "t: --count: not an integer: '12x'");
	assert_int_equal(parse(opts, 2, unknown, false, &operands), -1);
	assert_int_equal(parse(opts, 2, missing, false, &operands), -1);
	assert_string_equal(err, "t: missing argument for '--count' (see --help)");
}

/* A prefix of a long option is an error, not a guess; --version stops
 * parsing like --help. */
static void whole_names_only(void **state)
{
	(void)state;
	struct sibyl_strlist fns = { 0 };
	const char *out = NULL;
	struct sibyl_option opts[] = {
		{ "functions", 0, SIBYL_OPT_CSV, &fns, "F", "functions" },
		{ "output", 'o', SIBYL_OPT_STRING, &out, "FILE", "output" },
		SIBYL_OPT_END,
	};
	char *prefix[] = { "t", "--func", "x", NULL };
	char *prefix_eq[] = { "t", "--out=y", NULL };
	char *whole[] = { "t", "--output", "z", "--functions=a,b", NULL };
	char *version[] = { "t", "--version", NULL };
	int operands;

	assert_int_equal(parse(opts, 3, prefix, false, &operands), -1);
	assert_int_equal(fns.count, 0);
	assert_int_equal(parse(opts, 2, prefix_eq, false, &operands), -1);
	assert_int_equal(parse(opts, 4, whole, false, &operands), 0);
	assert_string_equal(out, "z");
	assert_int_equal(fns.count, 2);
	assert_int_equal(parse(opts, 2, version, false, &operands), 1);
	sibyl_strlist_free(&fns);
}

/* An entry without help is an old spelling: it parses, --help hides it. */
static void old_spelling_works_unlisted(void **state)
{
	(void)state;
	const char *out = NULL;
	struct sibyl_option opts[] = {
		{ "output", 'o', SIBYL_OPT_STRING, &out, "FILE", "output" },
		{ "out", 0, SIBYL_OPT_STRING, &out, "FILE", NULL },
		SIBYL_OPT_END,
	};
	char *old[] = { "t", "--out", "x", NULL };
	char *prefix[] = { "t", "--outp", "y", NULL };
	int operands;

	assert_int_equal(parse(opts, 3, old, false, &operands), 0);
	assert_string_equal(out, "x");
	/* "--outp" is neither name, though a prefix of one. */
	assert_int_equal(parse(opts, 3, prefix, false, &operands), -1);
	assert_string_equal(out, "x");
}

struct described {
	const struct sibyl_command_help *cmd;
	size_t count;
};

static void count_options(void *ctx, const struct sibyl_command_help *cmd,
			  const struct sibyl_option *opts)
{
	struct described *d = ctx;

	d->cmd = cmd;
	while (opts[d->count].name)
		d->count++;
}

/* With a describer set, the table is described and nothing parsed. */
static void describer_gets_the_table(void **state)
{
	(void)state;
	bool force = false;
	struct sibyl_option opts[] = {
		{ "force", 'f', SIBYL_OPT_FLAG, &force, NULL, "force" },
		{ "json", 0, SIBYL_OPT_FLAG, &force, NULL, "json" },
		SIBYL_OPT_END,
	};
	char *argv[] = { "t", "--force", NULL };
	struct described d = { 0 };
	int operands = -1;

	sibyl_options_set_describer(count_options, &d);
	assert_int_equal(parse(opts, 2, argv, false, &operands), 1);
	sibyl_options_set_describer(NULL, NULL);
	assert_ptr_equal(d.cmd, &help);
	assert_int_equal(d.count, 2);
	assert_false(force);
	assert_int_equal(parse(opts, 2, argv, false, &operands), 0);
	assert_true(force);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mixes_options_and_operands),
		cmocka_unit_test(stops_at_command),
		cmocka_unit_test(rejects_bad_input),
		cmocka_unit_test(whole_names_only),
		cmocka_unit_test(old_spelling_works_unlisted),
		cmocka_unit_test(describer_gets_the_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
