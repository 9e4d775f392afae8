/*
 * `sibyl kmodel dataset`: sweep every kernel of a training suite and
 * append what was measured to a JSON-lines file (docs/kmodel.md):
 *   {"type":"dataset", "format":"sibyl-kmodel-dataset", "version":3,
 *    "suite", "sibyl", "platform", "device", "opt_level"}  first line
 *   {"type":"kernel", "kernel", "file", "category", "static": counts}
 *   {"type":"sample", "kernel", "gsize", "lsize", "sample", "seed",
 *    "device_ns", "counts": counts}
 * where counts are records [{"name": "load global", "count": n}, ...]
 * (names are data, never keys: docs/formats.md).
 * Counts are the dynamic LLVM instruction counts of the instrumented
 * run (the thesis' coarse names: "load global", "call", "br"); the time
 * is the device time of the plain kernel built from source with the
 * same arguments (same seed), after one unreported warm-up launch per
 * global size, since the instrumented kernel is slower than the one a
 * user runs.
 *
 * The file is appended to one global size at a time (all its samples),
 * so an interruption loses at most the size being measured; a run on an
 * existing file skips every (kernel, global size) already in it, drops
 * a torn last line, and refuses a file of another device or -O level.
 */
#ifndef SIBYL_KMODEL_DATASET_H
#define SIBYL_KMODEL_DATASET_H

/* Version 3 names a call by what it calls ("call workitem", "call
 * barrier", "call atomic", "call sqrt", "call transcendental", "call
 * math" (the cheap rest: fabs, min, floor...), "call intrinsic", "call
 * builtin", "call function"); version 2 had one "call math" for all
 * math built-ins, version 1 one "call" for every call. Both are still
 * read, never appended to. */
#define SIBYL_KMODEL_DATASET_VERSION 3

#include "kmodel/suite.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

struct sibyl_kmodel_dataset_opts {
	const char *out;		/* DATA.jsonl, created or resumed */
	const char *platform, *device;	/* clutil.h choice */
	const char *only;		/* one kernel of the suite, or NULL */
	const char *opt_level;		/* clang -O of the counted IR; NULL: 0 */
	long samples;			/* per global size; 0: the suite's */
	double timeout_s;		/* per sample */
};

/* 0 when every kernel was measured, 1 when some failed (each an error
 * notice), -1 with the line in err. */
int sibyl_kmodel_dataset(const struct sibyl_kmodel_suite *s,
			 const struct sibyl_kmodel_dataset_opts *o, char *err, size_t errlen);

struct sibyl_kernels;
struct sibyl_kernel;
/* The kernel `name` of `file`: its SPIR bitcode, counted at clang -O
 * `level` (NULL: 0), and its signature *k (one of ks).  0, or -1 with
 * the line in err; free bc and ks either way. */
int sibyl_kmodel_kernel_open(const char *file, const char *name, const char *level, void **bc,
			     size_t *size, struct sibyl_kernels *ks, const struct sibyl_kernel **k,
			     char *err, size_t errlen);

/* --- the file (dataset_file.c) ---------------------------------------- */

struct sibyl_kmodel_data {
	json_t *header;		/* the "dataset" line, or NULL */
	json_t *kernels;	/* name -> its "kernel" line */
	json_t *samples;	/* the "sample" lines, in order */
};

/* Read a dataset (a missing file reads as empty when missing_ok). A
 * torn last line (no newline: an interrupted append) is ignored. */
int sibyl_kmodel_data_read(const char *path, bool missing_ok, struct sibyl_kmodel_data *d,
			   char *err, size_t errlen);
void sibyl_kmodel_data_free(struct sibyl_kmodel_data *d);
/* Whether the file holds every sample of (kernel, gsize) up to `samples`. */
bool sibyl_kmodel_data_has(const struct sibyl_kmodel_data *d, const char *kernel,
			   long long gsize, long samples);
/* Open for appending, cutting a torn last line first. */
FILE *sibyl_kmodel_data_append(const char *path, char *err, size_t errlen);

/* Coarse counts [{"name": "load global", "count": n}, ...] of
 * instcounts records (summary.h's sibyl_instcounts_json), in their
 * order, bytes and callees merged. */
json_t *sibyl_kmodel_counts(json_t *records);
/* The dataset version whose naming the counts names[0..n) of model j
 * follow: its "dataset_version", or, in a model saved before it was
 * recorded (before version 3), 1 when a call is counted as plain "call",
 * else 2. */
int sibyl_kmodel_counts_version(json_t *j, char *const *names, size_t n);

#endif
