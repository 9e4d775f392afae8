#define _GNU_SOURCE
#include "core/fs.h"
#include "core/output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *sibyl_path_join(const char *dir, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		abort();
	return p;
}

int sibyl_write_file_atomic(const char *path, const void *data, size_t len)
{
	return sibyl_output_write(path, data, len, 0666);
}

char *sibyl_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t size = 0, cap = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (cap - size < 4096) {
			cap = cap ? cap * 2 : 8192;
			char *grown = realloc(buf, cap + 1);

			if (!grown)
				abort();
			buf = grown;
		}
		size_t n = fread(buf + size, 1, cap - size, f);

		size += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		int saved = errno;

		fclose(f);
		free(buf);
		errno = saved ? saved : EIO;
		return NULL;
	}
	fclose(f);
	if (!buf)
		buf = malloc(1);
	buf[size] = '\0';
	if (len)
		*len = size;
	return buf;
}

int sibyl_mkdirs(const char *path, int mode)
{
	char *copy = strdup(path);

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
	return strdup(dirname(buf));
}

int sibyl_refuse_overwrite(const char *path, bool force, char *err, size_t errlen)
{
	return sibyl_output_check(path, force, NULL, err, errlen);
}
