/* Writing outputs (core/output.h): what is never written through or
 * over, and what an interrupted writer leaves behind (nothing). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/fs.h"
#include "core/output.h"

#include <dirent.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[PATH_MAX];

static char *at(const char *name)
{
	return sibyl_path_join(dir, name);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *get(const char *path)
{
	char *text = sibyl_read_file(path, 1 << 20, NULL, NULL, 0);

	assert_non_null(text);
	return text;
}

static size_t entries(void)
{
	DIR *d = opendir(dir);
	size_t n = 0;

	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d));)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "%s/sibyl-test-output-XXXXXX", sibyl_tmpdir());
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return sibyl_remove_tree(dir);
}

/* A symbolic link planted where a temporary used to be named (OUT.tmp.PID)
 * is never written through. */
static void planted_link_is_not_followed(void **state)
{
	(void)state;
	char *out = at("out.json"), *victim = at("victim"), *planted;

	put(victim, "secret");
	assert_true(asprintf(&planted, "%s.tmp.%d", out, (int)getpid()) > 0);
	assert_int_equal(symlink(victim, planted), 0);
	assert_int_equal(sibyl_output_write(out, "new", 3, 0666), 0);
	char *v = get(victim), *o = get(out);

	assert_string_equal(v, "secret");
	assert_string_equal(o, "new");
	unlink(planted);
	unlink(out);
	unlink(victim);
	free(v), free(o), free(planted), free(out), free(victim);
}

static void refuses_what_is_not_ours(void **state)
{
	(void)state;
	char *fifo = at("fifo"), *slink = at("link"), *file = at("file"), *sub = at("in");
	char *inside = sibyl_path_join(sub, "meta.json"), *hard = at("hard"), err[512];
	const char *inputs[] = { sub, file, NULL };

	assert_int_equal(mkfifo(fifo, 0600), 0);
	put(file, "x");
	assert_int_equal(symlink(file, slink), 0);
	assert_int_equal(link(file, hard), 0);
	assert_int_equal(mkdir(sub, 0700), 0);
	put(inside, "{}");
	assert_int_equal(sibyl_output_check(fifo, true, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a regular file"));
	assert_int_equal(sibyl_output_check(slink, true, NULL, err, sizeof(err)), -1);
	assert_int_equal(sibyl_output_check(file, false, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--force"));
	assert_int_equal(sibyl_output_check(file, true, NULL, err, sizeof(err)), 0);
	/* The inputs: the file itself, another name of it, a file in an
	 * input directory (existing or not). */
	assert_int_equal(sibyl_output_check(file, true, inputs, err, sizeof(err)), -1);
	assert_int_equal(sibyl_output_check(hard, true, inputs, err, sizeof(err)), -1);
	assert_int_equal(sibyl_output_check(inside, true, inputs, err, sizeof(err)), -1);
	char *fresh = sibyl_path_join(sub, "new.csv");

	assert_int_equal(sibyl_output_check(fresh, false, inputs, err, sizeof(err)), -1);
	assert_int_equal(sibyl_refuse_overwrite(fifo, true, err, sizeof(err)), -1);
	unlink(inside), rmdir(sub), unlink(fifo), unlink(slink), unlink(hard), unlink(file);
	free(fresh), free(inside), free(fifo), free(slink), free(file), free(sub), free(hard);
}

/* A FIFO that appears while the output is written is not replaced. */
static void commit_rechecks_the_target(void **state)
{
	(void)state;
	char *out = at("late");
	struct sibyl_output o;

	assert_int_equal(sibyl_output_open(&o, out, 0600), 0);
	assert_int_equal(mkfifo(out, 0600), 0);
	assert_int_equal(sibyl_output_commit(&o), -1);
	struct stat st;

	assert_int_equal(lstat(out, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	unlink(out);
	assert_int_equal(entries(), 0);
	free(out);
}

/* SIGTERM, SIGINT or SIGHUP between open and commit: the process dies of
 * the signal and the temporary is gone. */
static void signal_removes_the_temporary(void **state)
{
	(void)state;
	const int sigs[] = { SIGTERM, SIGINT, SIGHUP };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		char *out = at("interrupted");
		pid_t pid = fork();
		int status;

		assert_true(pid >= 0);
		if (pid == 0) {
			struct sibyl_output o;

			if (sibyl_output_open(&o, out, 0600) == 0 && write(o.fd, "part", 4) == 4)
				raise(sigs[i]);
			_exit(1);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSIGNALED(status));
		assert_int_equal(WTERMSIG(status), sigs[i]);
		assert_int_equal(entries(), 0);
		free(out);
	}
}

static void private_tmpdir_honours_tmpdir(void **state)
{
	(void)state;
	char *old = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
	struct stat st;

	setenv("TMPDIR", dir, 1);
	char *t = sibyl_private_tmpdir("sibyl-x");

	assert_non_null(t);
	assert_int_equal(strncmp(t, dir, strlen(dir)), 0);
	assert_int_equal(stat(t, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(sibyl_dir_file_mode(t), 0600);
	assert_int_equal(chmod(t, 0755), 0);
	assert_int_equal(sibyl_dir_file_mode(t), 0644);
	rmdir(t);
	free(t);
	/* A relative TMPDIR would depend on the working directory. */
	setenv("TMPDIR", "relative/dir", 1);
	assert_string_equal(sibyl_tmpdir(), "/tmp");
	unsetenv("TMPDIR");
	assert_string_equal(sibyl_tmpdir(), "/tmp");
	if (old)
		setenv("TMPDIR", old, 1);
	else
		unsetenv("TMPDIR");
	free(old);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(planted_link_is_not_followed),
		cmocka_unit_test(refuses_what_is_not_ours),
		cmocka_unit_test(commit_rechecks_the_target),
		cmocka_unit_test(signal_removes_the_temporary),
		cmocka_unit_test(private_tmpdir_honours_tmpdir),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
