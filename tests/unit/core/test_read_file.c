/* Reading inputs (sibyl_read_file, sibyl_open_regular): regular files
 * only, within a size limit, and never blocking on a FIFO. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/fs.h"
#include "core/output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[PATH_MAX];

static char *at(const char *name)
{
	return sibyl_path_join(dir, name);
}

static void put(const char *name, const char *text)
{
	char *path = at(name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(path);
}

/* sibyl_read_file(name, max) must fail with errno e and a reason
 * containing `why`. */
static void refused(const char *path, size_t max, int e, const char *why)
{
	char reason[128] = "";
	size_t len = 99;

	errno = 0;
	assert_null(sibyl_read_file(path, max, &len, reason, sizeof(reason)));
	assert_int_equal(errno, e);
	if (!strstr(reason, why))
		fail_msg("%s: reason '%s', expected '%s'", path, reason, why);
	assert_int_equal(len, 99);	/* untouched on failure */
}

static void reads_a_regular_file(void **state)
{
	(void)state;
	char *path = at("text"), why[128];
	size_t len = 0;

	put("text", "hello\n");
	char *text = sibyl_read_file(path, 6, &len, why, sizeof(why));

	assert_non_null(text);
	assert_int_equal(len, 6);
	assert_string_equal(text, "hello\n");
	free(text);
	put("empty", "");
	free(path);
	path = at("empty");
	text = sibyl_read_file(path, 6, &len, NULL, 0);
	assert_non_null(text);
	assert_int_equal(len, 0);
	assert_string_equal(text, "");
	free(text);
	free(path);
}

/* A FIFO without a writer: open(2) without O_NONBLOCK waits forever
 * (the CTest timeout catches that). */
static void refuses_a_fifo_without_blocking(void **state)
{
	(void)state;
	char *path = at("fifo");
	struct stat st;

	assert_int_equal(mkfifo(path, 0600), 0);
	refused(path, 1 << 20, EINVAL, "not a regular file");
	assert_int_equal(sibyl_open_regular(path, 1 << 20, &st, NULL, 0), -1);
	free(path);
}

static void refuses_devices_and_directories(void **state)
{
	(void)state;
	refused("/dev/zero", 1 << 20, EINVAL, "not a regular file");
	refused("/dev/null", 1 << 20, EINVAL, "not a regular file");
	refused(dir, 1 << 20, EISDIR, "is a directory");
	refused("/nonexistent/sibyl", 1 << 20, ENOENT, strerror(ENOENT));
}

static void refuses_more_than_the_limit(void **state)
{
	(void)state;
	char *path = at("big");

	put("big", "1234567");
	refused(path, 6, EFBIG, "too large (7 bytes, at most 6 bytes)");
	assert_int_equal(truncate(path, (off_t)3 << 20), 0);
	refused(path, 2 << 20, EFBIG, "at most 2 MiB");
	free(path);
}

/* A file that reports size 0 yet has content (as in /proc): the limit
 * holds on what is read, not on what stat said. */
static void limits_what_is_read(void **state)
{
	(void)state;
	size_t len;
	char *text = sibyl_read_file("/proc/self/status", 1 << 20, &len, NULL, 0);

	assert_non_null(text);
	assert_true(len > 0);
	assert_int_equal(strlen(text), len);
	free(text);
	refused("/proc/self/status", 16, EFBIG, "more than 16 bytes");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_a_regular_file),
		cmocka_unit_test(refuses_a_fifo_without_blocking),
		cmocka_unit_test(refuses_devices_and_directories),
		cmocka_unit_test(refuses_more_than_the_limit),
		cmocka_unit_test(limits_what_is_read),
	};

	snprintf(dir, sizeof(dir), "%s/sibyl-test-read-XXXXXX", sibyl_tmpdir());
	if (!mkdtemp(dir))
		return 1;
	int r = cmocka_run_group_tests(tests, NULL, NULL);

	sibyl_remove_tree(dir);
	return r;
}
