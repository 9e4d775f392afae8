/*
 * sibyl_rt_register and sibyl_rt_declare_work run in a wrapper's
 * constructor, inside the traced program's start-up: whatever they do,
 * the program's errno must be what it was.  Here they cannot even write
 * their tables (a directory stands where each file goes), the case most
 * sure to leave a failed call's errno behind.  Run under `sibyl trace`,
 * which preloads the runtime and names the trace directory.
 *
 *   register_errno   -> "errno kept", exit 0; "errno N (was M)", exit 1
 */
#include <sibyl/wrap_rt.h>

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef void register_fn(const char *library, const char *const *names, const uint32_t *ids,
			 unsigned count);
typedef void declare_fn(const struct sibyl_rt_work_metric *metrics, unsigned count);

/* A directory where the runtime will open `file`: its open fails. */
static char *block(const char *dir, const char *file)
{
	char *path = malloc(strlen(dir) + strlen(file) + 2);

	if (!path)
		exit(3);
	sprintf(path, "%s/%s", dir, file);
	if (mkdir(path, 0700) != 0)
		exit(3);
	return path;
}

static int check(const char *what, int before)
{
	int after = errno;

	if (after == before)
		return 0;
	printf("%s: errno %d (was %d)\n", what, after, before);
	return 1;
}

int main(void)
{
	const char *dir = getenv("SIBYL_TRACE_DIR");
	register_fn *reg = (register_fn *)dlsym(RTLD_DEFAULT, "sibyl_rt_register");
	declare_fn *declare = (declare_fn *)dlsym(RTLD_DEFAULT, "sibyl_rt_declare_work");
	static const char *const names[] = { "f" };
	static const uint32_t ids[] = { 0x1234 };
	static const struct sibyl_rt_work_metric metrics[] = { { 0x1234, "bytes" } };
	int bad = 0;

	if (!dir || !reg || !declare) {
		puts("not traced");
		return 2;
	}
	char *functions = block(dir, "functions.tsv"), *work = block(dir, "work_metrics.tsv");

	errno = EDOM;
	reg("libregister-errno.so", names, ids, 1);
	bad |= check("sibyl_rt_register", EDOM);
	errno = ERANGE;
	declare(metrics, 1);
	bad |= check("sibyl_rt_declare_work", ERANGE);
	rmdir(functions);
	rmdir(work);
	free(functions);
	free(work);
	if (!bad)
		puts("errno kept");
	return bad;
}
