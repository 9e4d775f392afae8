/*
 * The kmodel training suite: a JSON manifest (tests/kernels/suite/
 * suite.json, docs/kmodel.md) naming OpenCL kernels, their files
 * (relative to the manifest) and the global sizes to sweep.
 */
#ifndef SIBYL_KMODEL_SUITE_H
#define SIBYL_KMODEL_SUITE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct sibyl_kmodel_entry {
	char *name;	/* the kernel, unique in the suite */
	char *file;	/* the .cl file, resolved against the manifest */
	char *category;
	char *gsize;	/* FROM:TO:STEP, as `sibyl kernel -g` */
	long lsize;	/* 0: the runtime chooses */
};

struct sibyl_kmodel_suite {
	char *path;
	long samples;	/* per global size */
	struct sibyl_kmodel_entry *items;
	size_t n;
};

/* Read and check a manifest. 0, or -1 with the line in err. */
int sibyl_kmodel_suite_read(const char *path, struct sibyl_kmodel_suite *s, char *err,
			    size_t errlen);
void sibyl_kmodel_suite_free(struct sibyl_kmodel_suite *s);

/* A kmodel JSON file (suite, device model) of at most 16 MiB, parsed;
 * NULL with "kmodel: PATH[:LINE]: why" in err. */
json_t *sibyl_kmodel_json_load(const char *path, char *err, size_t errlen);
/* The same, refused unless its "format" is `format` and its "version"
 * 1 ("kmodel: PATH: not a kmodel WHAT", "WHAT version N is not 1"). */
json_t *sibyl_kmodel_json_load_v1(const char *path, const char *format, const char *what,
				  char *err, size_t errlen);
/* The same for versions 1 to max ("WHAT version N is not 1 to MAX"). */
json_t *sibyl_kmodel_json_load_upto(const char *path, const char *format, const char *what,
				    int max, char *err, size_t errlen);
/* A copy of j's string `key`, or of `absent` when it has none. */
char *sibyl_kmodel_json_dup(json_t *j, const char *key, const char *absent);
/* Write j (a reference taken) to path, refusing to replace a file
 * unless force. 0, or -1 with the line in err. */
int sibyl_kmodel_json_save(json_t *j, const char *path, bool force, char *err, size_t errlen);

#endif
