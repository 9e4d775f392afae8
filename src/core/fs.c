#define _GNU_SOURCE
#include "core/alloc.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *sibyl_path_join(const char *dir, const char *name)
{
	return sibyl_xasprintf("%s/%s", dir, name);
}

/* "16 MiB" when the limit is a whole number of MiB, else bytes. */
static void format_limit(char *out, size_t size, size_t max)
{
	if (max >= (1u << 20) && max % (1u << 20) == 0)
		snprintf(out, size, "%zu MiB", max >> 20);
	else
		snprintf(out, size, "%zu bytes", max);
}

static int read_failed(int e, char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Set errno and, when the caller wants it, the reason; returns -1. */
static int read_failed(int e, char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sibyl_vseterr(why, whylen, fmt, ap);
	va_end(ap);
	errno = e;
	return -1;
}

int sibyl_open_regular(const char *path, size_t max, struct stat *st, char *why,
		       size_t whylen)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer; it has no
	 * effect on the reads of a regular file. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	char limit[32];

	if (fd < 0)
		return read_failed(errno, why, whylen, "%s", strerror(errno));
	if (fstat(fd, st) < 0) {
		int e = errno;

		close(fd);
		return read_failed(e, why, whylen, "%s", strerror(e));
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		if (S_ISDIR(st->st_mode))
			return read_failed(EISDIR, why, whylen, "is a directory");
		return read_failed(EINVAL, why, whylen, "not a regular file");
	}
	if ((uintmax_t)st->st_size > max) {
		close(fd);
		format_limit(limit, sizeof(limit), max);
		return read_failed(EFBIG, why, whylen, "too large (%jd bytes, at most %s)",
				   (intmax_t)st->st_size, limit);
	}
	return fd;
}

/* Read fd to its end, at most max bytes (a file may grow after fstat, and
 * some report size 0); the buffer has room for a NUL after the data. */
static char *read_all(int fd, size_t hint, size_t max, size_t *size, char *why,
		      size_t whylen)
{
	size_t cap = hint < 4096 ? 4096 : hint + 1, n = 0;
	char *buf = sibyl_xmalloc(cap + 1), limit[32];

	for (;;) {
		if (n == cap) {
			cap = cap > max / 2 ? max + 1 : cap * 2;
			buf = sibyl_xreallocarray(buf, cap + 1, 1);
		}
		ssize_t got = read(fd, buf + n, cap - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			read_failed(errno, why, whylen, "%s", strerror(errno));
			break;
		}
		if (got == 0) {
			*size = n;
			return buf;
		}
		n += (size_t)got;
		if (n > max) {
			format_limit(limit, sizeof(limit), max);
			read_failed(EFBIG, why, whylen, "too large (more than %s)", limit);
			break;
		}
	}
	int e = errno;

	free(buf);
	errno = e;
	return NULL;
}

char *sibyl_read_file(const char *path, size_t max, size_t *len, char *why, size_t whylen)
{
	struct stat st;
	int fd = sibyl_open_regular(path, max, &st, why, whylen);
	size_t size = 0;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = read_all(fd, (size_t)st.st_size, max, &size, why, whylen);
	int e = errno;

	close(fd);
	if (!buf) {
		errno = e;
		return NULL;
	}
	buf[size] = '\0';
	if (len)
		*len = size;
	return buf;
}

int sibyl_mkdirs(const char *path, int mode)
{
	char *copy = sibyl_xstrdup(path);

	for (char *p = copy + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, mode) < 0 && errno != EEXIST) {
			free(copy);
			return -1;
		}
		*p = '/';
	}
	free(copy);
	if (mkdir(path, mode) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

int sibyl_remove_tree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int ret = 0;

	if (!d)
		return unlink(path);
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *child = sibyl_path_join(path, e->d_name);
		struct stat st;

		if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
			ret |= sibyl_remove_tree(child);
		else
			ret |= unlink(child);
		free(child);
	}
	closedir(d);
	return ret | rmdir(path);
}

char *sibyl_self_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return sibyl_xstrdup(dirname(buf));
}

int sibyl_refuse_overwrite(const char *path, bool force, char *err, size_t errlen)
{
	return sibyl_output_check(path, force, NULL, err, errlen);
}
