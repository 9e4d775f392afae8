/*
 * Arguments the user controls (`-a NAME=SPEC`, docs/kernel.md): a
 * scalar fixed to a number; a buffer's generator (random, zeros, ones,
 * arange, file:PATH); and the sizes the signature names: an integer
 * scalar called n, size, len, count, ... (or X_size, n_X, ... for a
 * buffer X) is the length of the buffers (of X): unless fixed it gets
 * their length, and when fixed they get at least that many elements.
 * Random sizes from [-g, g] were what crashed most kernels.
 * Decided in sibyl, carried to the runner in the run configuration.
 */
#ifndef SIBYL_OCL_ARGSPEC_H
#define SIBYL_OCL_ARGSPEC_H

#include "core/options.h"
#include "ocl/driver/kernel_info.h"

#include <jansson.h>
#include <stdint.h>

enum sibyl_gen {
	SIBYL_GEN_RANDOM,	/* the default: from the seed (args.h) */
	SIBYL_GEN_ZEROS,
	SIBYL_GEN_ONES,
	SIBYL_GEN_ARANGE,	/* 0, 1, 2, ... */
	SIBYL_GEN_FILE,		/* the file's bytes; its length sets the buffer's */
	SIBYL_GEN_VALUE,	/* a scalar fixed to `text` */
	SIBYL_GEN_SIZE,		/* a scalar: the length of buffer size_of, its root-th root */
	SIBYL_GEN_INDEX,	/* a buffer of indices: integers in [0, the size as SIZE) */
};

/* An image's channel data type (CL_RGBA always), from the builtins
 * that read or write it (arg_roles.h): CL_FLOAT unless integer ones. */
enum sibyl_image_type {
	SIBYL_IMAGE_FLOAT,	/* CL_FLOAT: pixels uniform in [0, 1) */
	SIBYL_IMAGE_INT,	/* CL_SIGNED_INT32: in [-g, g] as int buffers */
	SIBYL_IMAGE_UINT,	/* CL_UNSIGNED_INT32: in [0, g) as uint buffers */
};

/* "CL_RGBA, CL_FLOAT" and the like. */
const char *sibyl_image_format_name(enum sibyl_image_type t);

struct sibyl_argspec {
	enum sibyl_gen gen;
	char *text;		/* VALUE: the number as given; FILE: the path */
	long size_of;		/* SIZE: that buffer's index; -1: the default length */
	uint64_t min_count;	/* a buffer: at least this many elements; SIZE: at least this */
	unsigned root;		/* SIZE: 2, 3: the square, cube root of the length; 0, 1: it */
	unsigned div;		/* SIZE: that divided by div (0, 1: not divided) */
	enum sibyl_image_type image;	/* an image argument: its channels */
	char *why;		/* inferred from the IR (argspec_infer.c): the reason; sibyl only */
	char *reach_why;	/* a buffer its accesses made longer (arg_extent.h): why; sibyl only */
};

/* One spec per argument of k from the -a list: 0, or -1 with one line
 * in err (an unknown argument, a generator for a scalar, not a number). */
int sibyl_argspecs_make(const struct sibyl_kernel *k, const struct sibyl_strlist *a,
			struct sibyl_argspec **out, char *err, size_t errlen);
json_t *sibyl_argspecs_json(const struct sibyl_argspec *s, size_t n);
struct sibyl_argspec *sibyl_argspecs_from_json(json_t *j, size_t n);
void sibyl_argspecs_free(struct sibyl_argspec *s, size_t n);

/* A number as a value of the scalar type t into p: 0, or -1. */
int sibyl_value_parse(const struct sibyl_ktype *t, const char *text, void *p);

#endif
