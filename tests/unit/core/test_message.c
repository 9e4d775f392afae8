/* JSON lines on a pipe (core/message.h): round trip, lines split across
 * reads, junk skipped, deadline, wake-up, end of file. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/clock.h"
#include "core/message.h"

#include <string.h>
#include <unistd.h>

static void round_trip(void **state)
{
	(void)state;
	int p[2];
	struct sibyl_msg_reader r;
	json_t *msg, *sent = json_pack("{sfsIss}", "seconds", 0.1 + 0.2, "metric",
				       (json_int_t)123456789012, "msg", "a\nb");

	assert_int_equal(pipe(p), 0);
	assert_int_equal(sibyl_msg_send(p[1], sent), 0);
	/* junk, then a message in two writes */
	assert_int_equal(write(p[1], "not json\n[1]\n{\"a\":", 18), 18);
	assert_int_equal(write(p[1], "1}\n{\"cut\"", 9), 9);
	close(p[1]);
	sibyl_msg_reader_init(&r, p[0]);
	assert_int_equal(sibyl_msg_next(&r, 0, -1, &msg), SIBYL_MSG_ONE);
	assert_true(json_equal(msg, sent));	/* doubles come back exact */
	json_decref(msg);
	assert_int_equal(sibyl_msg_next(&r, 0, -1, &msg), SIBYL_MSG_ONE);
	assert_int_equal(json_integer_value(json_object_get(msg, "a")), 1);
	json_decref(msg);
	assert_int_equal(sibyl_msg_next(&r, 0, -1, &msg), SIBYL_MSG_EOF);
	sibyl_msg_reader_free(&r);
	close(p[0]);
	json_decref(sent);
}

static void deadline_and_wake(void **state)
{
	(void)state;
	int p[2], wake[2];
	struct sibyl_msg_reader r;
	json_t *msg;

	assert_int_equal(pipe(p), 0);
	assert_int_equal(pipe(wake), 0);
	sibyl_msg_reader_init(&r, p[0]);
	uint64_t start = sibyl_mono_ns();

	assert_int_equal(sibyl_msg_next(&r, start + 50000000, wake[0], &msg), SIBYL_MSG_TIMEOUT);
	assert_true(sibyl_mono_ns() >= start + 50000000);
	assert_int_equal(write(wake[1], "", 1), 1);
	assert_int_equal(sibyl_msg_next(&r, 0, wake[0], &msg), SIBYL_MSG_WOKEN);
	sibyl_msg_reader_free(&r);
	for (int i = 0; i < 2; i++) {
		close(p[i]);
		close(wake[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(deadline_and_wake),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
