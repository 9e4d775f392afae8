#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/progress.h"

/* Not a terminal: nothing at all, however often it is called. */
static void quiet_off_a_terminal(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct sibyl_progress p;

	sibyl_progress_start(&p, f, "job", "items");
	sibyl_progress_update(&p, 1, 2, "half");
	sibyl_progress_done(&p);
	fclose(f);
	assert_int_equal(len, 0);
	free(buf);
}

/* On a terminal (forced here): the line, its share, rate and ETA, drawn
 * in place; a redraw within 0.1 s is skipped; done erases it. */
static void one_line_in_place(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct sibyl_progress p;

	sibyl_progress_start(&p, f, "job", "items");
	p.on = true;
	p.start -= 10;	/* as if it had run 10 s */
	sibyl_progress_update(&p, 25, 100, "step %d", 3);
	sibyl_progress_update(&p, 26, 100, "step %d", 4);
	fflush(f);
	assert_non_null(strstr(buf, "\rsibyl: job: step 3  25%  2.5 items/s  ETA 0:30\033[K"));
	assert_null(strstr(buf, "step 4"));
	sibyl_progress_done(&p);
	fclose(f);
	assert_string_equal(buf + len - 4, "\r\033[K");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(quiet_off_a_terminal),
		cmocka_unit_test(one_line_in_place),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
