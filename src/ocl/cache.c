/* Instrumented binaries on disk, keyed by a 64-bit FNV-1a hash. */
#define _GNU_SOURCE
#include "ocl/cache.h"
#include "core/fs.h"
#include "core/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

char *sibyl_cache_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *d;

	if (xdg && *xdg)
		return sibyl_path_join(xdg, "sibyl");
	if (asprintf(&d, "%s/.cache/sibyl", home && *home ? home : "/tmp") < 0)
		abort();
	return d;
}

static char *entry_path(const struct sibyl_cache_key *k)
{
	char *dir = sibyl_cache_dir(), *p;

	if (asprintf(&p, "%s/%s.bin", dir, k->hex) < 0)
		abort();
	free(dir);
	return p;
}

int sibyl_cache_load(const struct sibyl_cache_key *k, void **data, size_t *size)
{
	char *p = entry_path(k);

	*data = sibyl_read_file(p, size);
	free(p);
	return *data && *size ? 0 : -1;
}

int sibyl_cache_store(const struct sibyl_cache_key *k, const void *data, size_t size)
{
	char *dir = sibyl_cache_dir(), *p = entry_path(k);
	int r = 0;

	if (sibyl_mkdirs(dir, 0755) < 0 || sibyl_write_file_atomic(p, data, size) < 0) {
		sibyl_warn("kernel: cannot write the cache entry %s: %s", p, strerror(errno));
		r = -1;
	}
	free(dir);
	free(p);
	return r;
}
