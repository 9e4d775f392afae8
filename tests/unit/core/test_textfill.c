#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/textfill.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* sibyl_text_fill into a string (the caller frees it). */
static char *fill(const char *text, int col, int indent, int width)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	sibyl_text_fill(f, text, col, indent, width);
	fclose(f);
	return out;
}

static void fills_to_the_width(void **state)
{
	(void)state;
	char *s = fill("one two three four five six", 0, 2, 12);

	assert_string_equal(s, "one two\n  three four\n  five six\n");
	free(s);
	/* The first line continues after what is already printed. */
	s = fill("alpha beta gamma", 10, 10, 22);
	assert_string_equal(s, "alpha beta\n          gamma\n");
	free(s);
}

static void never_splits_a_word(void **state)
{
	(void)state;
	char *s = fill("a extraordinarily b", 0, 0, 6);

	assert_string_equal(s, "a\nextraordinarily\nb\n");
	free(s);
}

static void newlines_and_paragraphs(void **state)
{
	(void)state;
	char *s = fill("one\ntwo  three\n\nfour\n", 0, 0, 40);

	assert_string_equal(s, "one two three\n\nfour\n");
	free(s);
}

static void width_from_columns(void **state)
{
	(void)state;
	/* The tests' standard output is a file or a pipe, not a terminal. */
	int fd = STDERR_FILENO;

	if (isatty(fd))
		skip();
	unsetenv("COLUMNS");
	assert_int_equal(sibyl_text_width(fd), 80);
	setenv("COLUMNS", "132", 1);
	assert_int_equal(sibyl_text_width(fd), 132);
	setenv("COLUMNS", "12", 1);
	assert_int_equal(sibyl_text_width(fd), SIBYL_TEXT_MIN_WIDTH);
	setenv("COLUMNS", "wide", 1);
	assert_int_equal(sibyl_text_width(fd), 80);
	setenv("COLUMNS", "-5", 1);
	assert_int_equal(sibyl_text_width(fd), 80);
	unsetenv("COLUMNS");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fills_to_the_width),
		cmocka_unit_test(never_splits_a_word),
		cmocka_unit_test(newlines_and_paragraphs),
		cmocka_unit_test(width_from_columns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
