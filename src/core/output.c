/*
 * Writing outputs safely (core/output.h).  The temporaries of outputs in
 * progress are tracked by core/cleanup.h, so that an interrupted command
 * leaves no OUT.tmp-* behind.
 */
#define _GNU_SOURCE
#include "core/alloc.h"
#include "core/cleanup.h"
#include "core/log.h"
#include "core/output.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* "dir-of-path/name": the path's directory resolved, so that two names
 * of one file compare equal.  NULL when the directory does not exist. */
static char *resolved(const char *path)
{
	char *copy1 = sibyl_xstrdup(path), *copy2 = sibyl_xstrdup(path), *dir, *out = NULL;

	dir = realpath(dirname(copy1), NULL);
	if (dir)
		out = sibyl_xasprintf("%s/%s", strcmp(dir, "/") ? dir : "", basename(copy2));
	free(dir);
	free(copy1);
	free(copy2);
	return out;
}

static bool is_input(const char *path, const struct stat *st, const char *input)
{
	struct stat in;
	char *out = resolved(path), *dir = realpath(input, NULL);
	bool hit = false;

	if (st && stat(input, &in) == 0 && in.st_dev == st->st_dev && in.st_ino == st->st_ino)
		hit = true;
	else if (out && dir) {
		size_t n = strlen(dir);

		hit = !strcmp(out, dir) || (!strncmp(out, dir, n) && out[n] == '/');
	}
	free(out);
	free(dir);
	return hit;
}

/* The directory a new output goes into must be there: said before any
 * work is done, not when the result is written. */
static int check_parent(const char *path, char *err, size_t errlen)
{
	char *copy = sibyl_xstrdup(path), *dir = dirname(copy);
	struct stat st;
	int r = 0;

	if (stat(dir, &st) < 0)
		r = sibyl_seterr(err, errlen, "%s: directory %s: %s", path, dir, strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		r = sibyl_seterr(err, errlen, "%s: %s is not a directory", path, dir);
	else if (access(dir, W_OK | X_OK) < 0)
		r = sibyl_seterr(err, errlen, "%s: directory %s: %s", path, dir, strerror(errno));
	free(copy);
	return r;
}

int sibyl_output_check(const char *path, bool force, const char *const *inputs,
		       char *err, size_t errlen)
{
	struct stat st;
	bool exists = lstat(path, &st) == 0;

	if (!exists && errno != ENOENT && errno != ENOTDIR)
		return sibyl_seterr(err, errlen, "%s: %s", path, strerror(errno));
	if (!exists && check_parent(path, err, errlen))
		return -1;
	if (exists && !S_ISREG(st.st_mode))
		return sibyl_seterr(err, errlen, "%s: exists and is not a regular file; not replacing it",
				    path);
	if (exists && !force)
		return sibyl_seterr(err, errlen, "%s: exists (use --force to replace it)", path);
	for (size_t i = 0; inputs && inputs[i]; i++)
		if (is_input(path, exists ? &st : NULL, inputs[i]))
			return sibyl_seterr(err, errlen, "%s: is or is inside this command's input %s; "
					    "not writing there", path, inputs[i]);
	return 0;
}

int sibyl_output_open(struct sibyl_output *o, const char *path, mode_t mode)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	size_t n = strlen(path);

	o->path = sibyl_xstrdup(path);
	o->tmp = sibyl_xmalloc(n + sizeof(".tmp-XXXXXX"));
	for (int attempt = 0; attempt < 100; attempt++) {
		unsigned char r[6];

		if (getrandom(r, sizeof(r), 0) != sizeof(r))
			break;
		memcpy(o->tmp, path, n);
		memcpy(o->tmp + n, ".tmp-", 5);
		for (size_t i = 0; i < sizeof(r); i++)
			o->tmp[n + 5 + i] = digits[r[i] % (sizeof(digits) - 1)];
		o->tmp[n + 5 + sizeof(r)] = '\0';
		o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (o->fd >= 0) {
			sibyl_cleanup_file(o->tmp, true);
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	int saved = errno;

	free(o->path);
	free(o->tmp);
	o->path = o->tmp = NULL;
	errno = saved;
	return -1;
}

static void release(struct sibyl_output *o, bool remove)
{
	int saved = errno;

	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->tmp) {
		if (remove)
			unlink(o->tmp);
		sibyl_cleanup_file(o->tmp, false);
	}
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	errno = saved;
}

int sibyl_output_commit(struct sibyl_output *o)
{
	struct stat st;

	if (o->fd >= 0 && close(o->fd) < 0) {
		o->fd = -1;
		goto fail;
	}
	o->fd = -1;
	/* Checked when the command started; a FIFO, device or link that has
	 * appeared since is still not ours to replace. */
	if (lstat(o->path, &st) == 0 && !S_ISREG(st.st_mode)) {
		errno = EEXIST;
		goto fail;
	}
	if (rename(o->tmp, o->path) < 0)
		goto fail;
	release(o, false);
	return 0;
fail:
	release(o, true);
	return -1;
}

void sibyl_output_discard(struct sibyl_output *o)
{
	release(o, true);
}

int sibyl_output_write(const char *path, const void *data, size_t len, mode_t mode)
{
	struct sibyl_output o;

	if (sibyl_output_open(&o, path, mode) < 0)
		return -1;
	for (size_t done = 0; done < len;) {
		ssize_t n = write(o.fd, (const char *)data + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			sibyl_output_discard(&o);
			return -1;
		}
		done += (size_t)n;
	}
	return sibyl_output_commit(&o);
}

const char *sibyl_tmpdir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && dir[0] == '/' ? dir : "/tmp";
}

char *sibyl_private_tmpdir(const char *prefix)
{
	char *dir = sibyl_xasprintf("%s/%s-XXXXXX", sibyl_tmpdir(), prefix);

	if (!mkdtemp(dir)) {
		int saved = errno;

		free(dir);
		errno = saved;
		return NULL;
	}
	return dir;
}

mode_t sibyl_dir_file_mode(const char *dir)
{
	struct stat st;

	return stat(dir, &st) == 0 ? st.st_mode & 0666 : 0600;
}
