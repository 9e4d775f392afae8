#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/alloc.h"
#include "core/strbuf.h"

#include <stdlib.h>
#include <string.h>

static void empty_buffer_reads_as_empty_string(void **state)
{
	(void)state;
	struct sibyl_strbuf b = { 0 };
	char *s;

	assert_string_equal(sibyl_strbuf_str(&b), "");
	s = sibyl_strbuf_take(&b);
	assert_string_equal(s, "");
	free(s);
}

static void grows_past_its_first_capacity(void **state)
{
	(void)state;
	struct sibyl_strbuf b = { 0 };
	char *s;

	/* 1000 x "ab" crosses the 256-byte start several times. */
	for (int i = 0; i < 1000; i++)
		sibyl_strbuf_puts(&b, "ab");
	sibyl_strbuf_add(&b, "xyz", 1);
	sibyl_strbuf_printf(&b, "[%d %s]", 42, "end");
	assert_int_equal(b.len, 2000 + 1 + 8);
	assert_int_equal(strlen(sibyl_strbuf_str(&b)), b.len);
	assert_memory_equal(b.s + 1998, "abx[42 end]", 12);
	s = sibyl_strbuf_take(&b);
	assert_null(b.s);
	assert_int_equal(b.len, 0);
	free(s);
	sibyl_strbuf_free(&b);
}

static void formats_a_string_longer_than_any_guess(void **state)
{
	(void)state;
	char *s = sibyl_xasprintf("%s-%0*d", "n", 500, 7);

	assert_int_equal(strlen(s), 502);
	assert_memory_equal(s, "n-000", 5);
	assert_int_equal(s[501], '7');
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(empty_buffer_reads_as_empty_string),
		cmocka_unit_test(grows_past_its_first_capacity),
		cmocka_unit_test(formats_a_string_longer_than_any_guess),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
