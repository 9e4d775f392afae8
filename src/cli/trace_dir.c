/*
 * Preparing the trace directory.  `--force` once deleted any directory
 * holding a meta.json, so a directory is replaced only when its
 * meta.json says it is a sibyl trace, and then only the files a trace
 * consists of (docs/formats.md) are removed: notes, plots or a project
 * around it stay.  The directory is replaced in place, never removed,
 * so `-o .` and `-o LINK` work and the lock taken on it before looking
 * inside holds for the whole run.
 */
#define _GNU_SOURCE
#include "cli/trace_dir.h"
#include "core/alloc.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/options.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Past one run of decimal digits, or NULL when there is none. */
static const char *digits(const char *s)
{
	if (*s < '0' || *s > '9')
		return NULL;
	while (*s >= '0' && *s <= '9')
		s++;
	return s;
}

/* meta.json, functions.tsv, drain.ctl, <pid>.<gen>.proc and
 * <pid>.<gen>-<tid>.events|.ring; meta.json.tmp* is a rewrite of
 * meta.json that a killed sibyl left. */
static bool is_trace_file(const char *name)
{
	const char *s = name;

	if (!strcmp(name, "meta.json") || !strcmp(name, "functions.tsv") ||
	    !strcmp(name, "work_metrics.tsv") ||
	    !strcmp(name, "drain.ctl") || !strncmp(name, "meta.json.tmp", 13))
		return true;
	if (!(s = digits(s)) || *s++ != '.' || !(s = digits(s)))
		return false;
	if (!strcmp(s, ".proc"))
		return true;
	if (*s++ != '-' || !(s = digits(s)))
		return false;
	return !strcmp(s, ".events") || !strcmp(s, ".ring");
}

/* Its meta.json is a regular file saying "format": "sibyl-trace". */
static bool is_sibyl_trace(int dirfd)
{
	int fd = openat(dirfd, "meta.json", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	bool yes = false;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < (1 << 24)) {
		/* Through stdio: json_loadfd reads a byte per read(). */
		FILE *f = fdopen(fd, "r");
		json_t *meta = f ? json_loadf(f, 0, NULL) : NULL;

		yes = meta && !strcmp(json_string_value(json_object_get(meta, "format")) ?: "",
				      "sibyl-trace");
		json_decref(meta);
		if (f) {
			fclose(f);	/* and fd with it */
			return yes;
		}
	}
	close(fd);
	return yes;
}

/* The names of the trace's own files in the directory (regular files
 * only); *others counts every other entry. */
static int trace_files(int dirfd, struct sibyl_strlist *ours, size_t *others)
{
	DIR *d = fdopendir(dup(dirfd));
	struct dirent *e;
	struct stat st;

	*others = 0;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (is_trace_file(e->d_name) && fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode))
			sibyl_strlist_add(ours, e->d_name);
		else
			(*others)++;
	}
	closedir(d);
	return 0;
}

/* Remove the old trace from the locked, existing directory. */
static int replace(int dirfd, const char *dir, bool force)
{
	struct sibyl_strlist ours = { 0 };
	size_t others;
	int r = -1;

	if (trace_files(dirfd, &ours, &others) < 0) {
		sibyl_err_errno("trace: cannot read %s", dir);
	} else if (ours.count + others == 0) {
		r = 0;		/* an empty directory is free to use */
	} else if (!force) {
		sibyl_err("trace: %s: exists (use --force to replace it)", dir);
	} else if (!is_sibyl_trace(dirfd)) {
		sibyl_err("trace: %s: exists and is not a sibyl trace; not replacing it", dir);
	} else if (faccessat(dirfd, ".", W_OK | X_OK, AT_EACCESS) < 0) {
		sibyl_err_errno("trace: cannot write into %s", dir);
	} else {
		r = 0;
		for (size_t i = 0; i < ours.count && !r; i++)
			if (unlinkat(dirfd, ours.items[i], 0) < 0 && errno != ENOENT)
				r = sibyl_err_errno("trace: cannot remove %s/%s", dir, ours.items[i]);
	}
	sibyl_strlist_free(&ours);
	return r;
}

/* 1 when we made `dir`, 0 when it existed, -1 (errno) on failure. */
static int make_dir(const char *dir)
{
	if (mkdir(dir, 0700) == 0)
		return 1;
	if (errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return -1;
	char *parent = sibyl_xstrdup(dir);
	int r = sibyl_mkdirs(dirname(parent), 0777);

	free(parent);
	if (r < 0)
		return -1;
	return mkdir(dir, 0700) == 0 ? 1 : errno == EEXIST ? 0 : -1;
}

int trace_dir_prepare(const char *dir, bool force, bool shared)
{
	int made = make_dir(dir), fd = -1;
	mode_t mask = umask(0);

	umask(mask);
	if (made < 0)
		return sibyl_err_errno("trace: cannot create %s", dir);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno == ENOTDIR)
		return sibyl_err("trace: %s: exists and is not a directory", dir);
	if (fd < 0)
		return sibyl_err_errno("trace: cannot open %s", dir);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK)
			sibyl_err("trace: %s: another sibyl trace is recording into it", dir);
		else
			sibyl_err_errno("trace: cannot lock %s", dir);
	} else if (!made && replace(fd, dir, force) < 0) {
		/* said why */
	} else if (fchmod(fd, shared ? 0755 & ~mask : 0700) < 0) {
		sibyl_err_errno("trace: cannot set the permissions of %s", dir);
	} else {
		return fd;
	}
	close(fd);
	return -1;
}

const char *trace_dir_operand(const char *command, int operands, char **argv)
{
	if (operands == 1)
		return argv[1];
	if (operands == 0)
		return SIBYL_DEFAULT_TRACE_DIR;
	sibyl_err("%s: expected one trace directory, or none for ./%s (see --help)", command,
		  SIBYL_DEFAULT_TRACE_DIR);
	return NULL;
}
