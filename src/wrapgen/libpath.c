#define _GNU_SOURCE
#include "wrapgen/libpath.h"
#include "core/alloc.h"
#include "core/strbuf.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/run.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const std_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
	"/lib", "/usr/lib", "/usr/local/lib",
};

/* A line of `ldconfig -p`: "\tlibz.so.1 (libc6,x86-64) => /lib/.../libz.so.1". */
static char *match_cache_line(const char *line, const char *name)
{
	size_t n = strlen(name);
	const char *arrow;

	while (*line == ' ' || *line == '\t')
		line++;
	if (strncmp(line, name, n) || line[n] != ' ')
		return NULL;
	/* Only libraries the 64-bit loader can use. */
	if (!strstr(line, "x86-64"))
		return NULL;
	arrow = strstr(line, "=> ");
	if (!arrow)
		return NULL;
	arrow += 3;
	return sibyl_xstrndup(arrow, strcspn(arrow, "\n"));
}

/* The cache is a few hundred kilobytes; more is not a cache listing. */
#define LDCONFIG_MAX ((size_t)64 << 20)

/* `ldconfig -p`, run once per process: --app resolves dozens of names. */
static const char *ldconfig_cache(void)
{
	static const char *const tools[] = { "/sbin/ldconfig", "/usr/sbin/ldconfig", "ldconfig" };
	static char *cache;

	for (size_t t = 0; !cache && t < sizeof(tools) / sizeof(tools[0]); t++) {
		char *argv[] = { (char *)tools[t], "-p", NULL };
		struct sibyl_run_fd quiet = { SIBYL_RUN_DEVNULL, 2 };
		struct sibyl_run_spec spec = { .argv = argv, .fds = &quiet, .nfds = 1 };
		struct sibyl_run_status st;
		size_t len;

		sibyl_run_capture(&spec, 1, LDCONFIG_MAX, &cache, &len, &st);
		if (st.outcome != SIBYL_RUN_OK) {
			free(cache);
			cache = NULL;
		}
	}
	return cache ? cache : "";
}

/* One line at a time: a match must not run into the next line. */
static char *from_ldconfig(const char *name)
{
	for (const char *p = ldconfig_cache(); *p;) {
		size_t n = strcspn(p, "\n");
		char *line = sibyl_xstrndup(p, n), *found = match_cache_line(line, name);

		free(line);
		if (found)
			return found;
		p += n + (p[n] == '\n');
	}
	return NULL;
}

static char *from_std_dirs(const char *name)
{
	for (size_t i = 0; i < sizeof(std_dirs) / sizeof(std_dirs[0]); i++) {
		char *p = sibyl_path_join(std_dirs[i], name);

		if (access(p, R_OK) == 0)
			return p;
		free(p);
	}
	return NULL;
}

char *wg_find_library(const char *name, char *err, size_t errlen)
{
	char *path;

	/* A file in the current directory is meant as one: `sibyl wrap
	 * libtiny.so` beside it. */
	if (strchr(name, '/') || access(name, F_OK) == 0) {
		char abs[PATH_MAX];

		if (!realpath(name, abs)) {
			sibyl_seterr_errno(err, errlen, "wrap: %s", name);
			return NULL;
		}
		/* Keep the name the user gave (a symlink like libblas.so.3)
		 * but absolute, so that it still works from another cwd. */
		if (name[0] == '/')
			return sibyl_xstrdup(name);
		char *cwd = getcwd(NULL, 0);

		path = sibyl_path_join(cwd ? cwd : ".", name);
		free(cwd);
		return path;
	}
	path = wg_lookup_library(name);
	if (!path)
		sibyl_seterr(err, errlen, "wrap: %s: library not found (not in the ldconfig cache "
			     "nor the standard directories)", name);
	return path;
}

char *wg_lookup_library(const char *name)
{
	char *path = from_ldconfig(name);

	if (path && access(path, R_OK) == 0)
		return path;
	free(path);
	return from_std_dirs(name);
}

char *wg_find_program(const char *name, char *err, size_t errlen)
{
	const char *path = getenv("PATH");

	if (strchr(name, '/')) {
		if (access(name, F_OK) == 0)
			return sibyl_xstrdup(name);
		sibyl_seterr_errno(err, errlen, "wrap: --app %s", name);
		return NULL;
	}
	for (const char *p = path ? path : ""; *p;) {
		size_t n = strcspn(p, ":");
		char *dir = n ? sibyl_xstrndup(p, n) : sibyl_xstrdup(".");
		char *file = sibyl_path_join(dir, name);

		free(dir);
		if (access(file, X_OK) == 0)
			return file;
		free(file);
		p += n + (p[n] == ':');
	}
	sibyl_seterr(err, errlen, "wrap: --app %s: no such program in $PATH (give its path)", name);
	return NULL;
}
