/*
 * The cache of instrumented device binaries, $XDG_CACHE_HOME/sibyl
 * (default ~/.cache/sibyl; without a home $TMPDIR/sibyl-cache-UID), one
 * file per key. The key hashes the instrumented bitcode (hence the
 * source, every included file and the -D/-I/-O options that shaped
 * it), the build options, sibyl's version and the device name. The
 * directory must be the user's own and not writable by others; an
 * entry records its key, size and content hash, and one that does not
 * match them (or is no regular file of bounded size) is removed, to be
 * rebuilt. Writes are atomic (temp file + rename), so concurrent runs
 * never see half a binary.
 */
#ifndef SIBYL_OCL_CACHE_H
#define SIBYL_OCL_CACHE_H

#include <stddef.h>
#include <stdint.h>

struct sibyl_cache_key {
	uint64_t h;
	char hex[17];
};

void sibyl_cache_key_init(struct sibyl_cache_key *k);
void sibyl_cache_key_add(struct sibyl_cache_key *k, const void *data, size_t len);
void sibyl_cache_key_add_str(struct sibyl_cache_key *k, const char *s);
/* Fills k->hex. */
void sibyl_cache_key_done(struct sibyl_cache_key *k);

/* The malloc'd cache directory, created (0700) when missing; NULL after
 * one warning line when it cannot be made or is not private: the run
 * goes on without the cache. */
char *sibyl_cache_dir(void);
/* 0 and a malloc'd copy on a hit, -1 on a miss (a damaged entry is
 * removed after a warning). */
int sibyl_cache_load(const char *dir, const struct sibyl_cache_key *k, void **data,
		     size_t *size);
/* 0, or -1 (after a warning when writing failed: a cache that cannot be
 * written is not fatal). */
int sibyl_cache_store(const char *dir, const struct sibyl_cache_key *k, const void *data,
		      size_t size);

#endif
