/*
 * Instrumented binaries on disk, keyed by a 64-bit FNV-1a hash. The
 * runner hands a cached binary to the OpenCL runtime as it is, so only
 * a private directory is trusted, and an entry is used only when its
 * header says it is whole: PoCL asserts on a truncated binary, and
 * would do so on every later run.
 */
#define _GNU_SOURCE
#include "ocl/driver/cache.h"
#include "core/alloc.h"
#include "core/fs.h"
#include "core/output.h"
#include "core/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Far above any device binary of one kernel (PoCL's are ~50 KB). */
#define ENTRY_MAX (256ull << 20)

/* What an entry starts with; the binary follows. */
struct entry_header {
	char magic[8];		/* ENTRY_MAGIC: this format */
	uint64_t key;		/* the key, so a renamed entry is no hit */
	uint64_t size;		/* bytes of the binary */
	uint64_t hash;		/* their FNV-1a hash */
};

static const char ENTRY_MAGIC[8] = "sibylbn1";

void sibyl_cache_key_init(struct sibyl_cache_key *k)
{
	k->h = 14695981039346656037ull;
	k->hex[0] = '\0';
}

void sibyl_cache_key_add(struct sibyl_cache_key *k, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++) {
		k->h ^= p[i];
		k->h *= 1099511628211ull;
	}
	/* A separator, so ("ab","c") and ("a","bc") differ. */
	k->h ^= 0xff;
	k->h *= 1099511628211ull;
}

void sibyl_cache_key_add_str(struct sibyl_cache_key *k, const char *s)
{
	sibyl_cache_key_add(k, s ? s : "", s ? strlen(s) : 0);
}

void sibyl_cache_key_done(struct sibyl_cache_key *k)
{
	snprintf(k->hex, sizeof(k->hex), "%016llx", (unsigned long long)k->h);
}

static uint64_t content_hash(const void *data, size_t size)
{
	struct sibyl_cache_key h;

	sibyl_cache_key_init(&h);
	sibyl_cache_key_add(&h, data, size);
	return h.h;
}

/* XDG wants absolute paths (a relative one is ignored). Without a home,
 * a directory of this user's own under the temporary directory: the
 * name is only a hint, private_dir() decides whether it is ours. */
static char *dir_path(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && *xdg == '/')
		return sibyl_path_join(xdg, "sibyl");
	if (home && *home == '/')
		return sibyl_path_join(home, ".cache/sibyl");
	return sibyl_xasprintf("%s/sibyl-cache-%u", sibyl_tmpdir(), (unsigned)geteuid());
}

/* Another user who owns or may write to the directory can plant a
 * binary that we would run: such a directory is not used. */
static const char *not_private(const char *dir, char *why, size_t len)
{
	struct stat st;

	if (sibyl_mkdirs(dir, 0700) < 0 || stat(dir, &st) < 0)
		return strerror(errno);
	if (!S_ISDIR(st.st_mode))
		return "not a directory";
	if (st.st_uid != geteuid())
		snprintf(why, len, "owned by uid %u, not by uid %u", (unsigned)st.st_uid,
			 (unsigned)geteuid());
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		snprintf(why, len, "writable by others (mode %04o)", (unsigned)st.st_mode & 07777);
	else
		return NULL;
	return why;
}

char *sibyl_cache_dir(void)
{
	char *dir = dir_path(), buf[128];
	const char *why = not_private(dir, buf, sizeof(buf));

	if (!why)
		return dir;
	sibyl_warn("kernel: cache directory %s: %s: running without the cache", dir, why);
	free(dir);
	return NULL;
}

static char *entry_path(const char *dir, const struct sibyl_cache_key *k)
{
	char *p;

	/* ".e1": entries with a header (ENTRY_MAGIC).  Bare ".bin" files of
	 * older sibyls are never read, so they cannot trip the damage
	 * warning of every kernel a user had cached. */
	p = sibyl_xasprintf("%s/%s.e1", dir, k->hex);
	return p;
}

/* Read all of fd's st_size bytes; a short read is damage too. */
static unsigned char *read_all(int fd, size_t size)
{
	unsigned char *buf = sibyl_xmalloc(size ? size : 1);
	size_t done = 0;

	while (done < size) {
		ssize_t n = read(fd, buf + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(buf);
			return NULL;
		}
		done += (size_t)n;
	}
	return buf;
}

/* The binary of a sound entry (malloc'd), or NULL with why (NULL why:
 * no entry). Only a regular file of bounded size is opened and read: a
 * FIFO would block, /dev/zero never end. */
static void *read_entry(const char *path, const struct sibyl_cache_key *k, size_t *size,
			const char **why)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct entry_header h;
	struct stat st;
	unsigned char *buf = NULL;

	*why = NULL;
	if (fd < 0) {
		if (errno != ENOENT)
			*why = errno == ELOOP ? "a symbolic link" : strerror(errno);
		return NULL;
	}
	if (fstat(fd, &st) < 0)
		*why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		*why = "not a regular file";
	else if ((uint64_t)st.st_size <= sizeof(h) || (uint64_t)st.st_size > ENTRY_MAX)
		*why = "no binary of a plausible size";
	else if (!(buf = read_all(fd, (size_t)st.st_size)))
		*why = "unreadable";
	close(fd);
	if (*why)
		return NULL;
	memcpy(&h, buf, sizeof(h));
	*size = (size_t)st.st_size - sizeof(h);
	if (memcmp(h.magic, ENTRY_MAGIC, sizeof(h.magic)) || h.key != k->h)
		*why = "not an entry of this key";
	else if (h.size != *size)
		*why = "truncated or extended";
	else if (h.hash != content_hash(buf + sizeof(h), *size))
		*why = "its content does not match its hash";
	if (*why) {
		free(buf);
		return NULL;
	}
	memmove(buf, buf + sizeof(h), *size);
	return buf;
}

int sibyl_cache_load(const char *dir, const struct sibyl_cache_key *k, void **data,
		     size_t *size)
{
	char *p = entry_path(dir, k);
	const char *why;

	*data = read_entry(p, k, size, &why);
	if (why) {
		/* Removed now, replaced by the rebuilt binary. */
		sibyl_warn("kernel: cache entry %s is damaged (%s): rebuilding it", p, why);
		unlink(p);
	}
	free(p);
	return *data ? 0 : -1;
}

int sibyl_cache_store(const char *dir, const struct sibyl_cache_key *k, const void *data,
		      size_t size)
{
	struct entry_header h = { .key = k->h, .size = size, .hash = content_hash(data, size) };
	char *p;
	unsigned char *buf;
	int r = 0;

	if (size > ENTRY_MAX - sizeof(h))	/* never read back: not kept */
		return -1;
	buf = sibyl_xmalloc(sizeof(h) + size);
	memcpy(h.magic, ENTRY_MAGIC, sizeof(h.magic));
	p = entry_path(dir, k);
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), data, size);
	if (sibyl_output_write(p, buf, sizeof(h) + size, 0666) < 0) {
		sibyl_warn("kernel: cannot write the cache entry %s: %s", p, strerror(errno));
		r = -1;
	}
	free(buf);
	free(p);
	return r;
}
