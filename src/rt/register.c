/*
 * Function names and work metrics.  Ids are computed when the wrapper is
 * generated, so the hot path never looks anything up; each wrapper
 * library announces its (id, library, name) triples once per process
 * image by appending lines to functions.tsv, and the metric its `work`
 * counts, where a definition file declared one, to work_metrics.tsv.
 * Lines may repeat across images; readers dedupe.
 */
#include "rt/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Open dir/file for appending with the thread guard taken; -1 when not
 * tracing (or re-entered), the guard untouched. */
static int open_table(struct sibyl_rt_thread *t, const char *file)
{
	char path[PATH_MAX];

	if (!rt_proc.enabled || t->in_runtime)
		return -1;
	t->in_runtime = 1;
	size_t n = rt_strlcpy(path, rt_proc.dir, sizeof(path));

	rt_append(path, rt_append(path, n, sizeof(path), "/"), sizeof(path), file);
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, rt_proc.file_mode);

	if (fd < 0)
		t->in_runtime = 0;
	return fd;
}

static void close_table(struct sibyl_rt_thread *t, int fd)
{
	close(fd);
	t->in_runtime = 0;
}

/* Constructors run inside the program's own start-up: leave its errno. */
#define KEEP_ERRNO(stmt) do { int saved_errno = errno; stmt; errno = saved_errno; } while (0)

/* "<id>\t<a>[\t<b>]\n" in one write: O_APPEND keeps concurrent writers'
 * lines whole.  Returns false when the write failed. */
static bool write_line(int fd, uint32_t id, const char *a, const char *b)
{
	char line[1024];
	size_t len = rt_u32_hex(line, id);

	len = rt_append(line, rt_append(line, len, sizeof(line), "\t"), sizeof(line), a);
	if (b)
		len = rt_append(line, rt_append(line, len, sizeof(line), "\t"), sizeof(line), b);
	len = rt_append(line, len, sizeof(line), "\n");
	return write(fd, line, len) == (ssize_t)len;
}

static void register_names(const char *library, const char *const *names,
				 const uint32_t *ids, unsigned count)
{
	struct sibyl_rt_thread *t = sibyl_rt_self();
	int fd = open_table(t, "functions.tsv");

	if (fd < 0)
		return;
	for (unsigned i = 0; i < count && write_line(fd, ids[i], library, names[i]); i++)
		;
	close_table(t, fd);
}

static void declare_work(const struct sibyl_rt_work_metric *metrics, unsigned count)
{
	struct sibyl_rt_thread *t = sibyl_rt_self();
	int fd = open_table(t, "work_metrics.tsv");

	if (fd < 0)
		return;
	for (unsigned i = 0; i < count && write_line(fd, metrics[i].id, metrics[i].metric, NULL); i++)
		;
	close_table(t, fd);
}

RT_EXPORT void sibyl_rt_register(const char *library, const char *const *names,
				 const uint32_t *ids, unsigned count)
{
	KEEP_ERRNO(register_names(library, names, ids, count));
}

RT_EXPORT void sibyl_rt_declare_work(const struct sibyl_rt_work_metric *metrics, unsigned count)
{
	KEEP_ERRNO(declare_work(metrics, count));
}
