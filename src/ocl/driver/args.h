/*
 * Kernel arguments generated from the signature (thesis ch. 17.3.3 and
 * appendix A): integers signed in [-g, g], unsigned in [0, g) (g the
 * global size, clamped to the type), floats uniform in [-g, g], bool 0/1;
 * buffers of `elements` items (default g) filled the same way; __local
 * pointers get a size only. Everything follows from one seed, so the
 * plain and the instrumented run see the very same values.
 */
#ifndef SIBYL_OCL_ARGS_H
#define SIBYL_OCL_ARGS_H

#include "ocl/driver/kernel_info.h"

#include <jansson.h>
#include <stdint.h>

struct sibyl_argbuf {
	void *data;	/* VALUE: bytes for clSetKernelArg; BUFFER: initial contents */
	size_t size;	/* bytes */
	size_t count;	/* BUFFER, LOCAL: elements; IMAGE: pixels (RGBA) */
	size_t extent[3];	/* IMAGE: width, height, depth */
	unsigned image;		/* IMAGE: its channels, enum sibyl_image_type (argspec.h) */
};

struct sibyl_args {
	size_t n;
	struct sibyl_argbuf *a;
};

struct sibyl_argspec;

struct sibyl_args_cfg {
	uint64_t gsize;		/* the value range */
	uint64_t elements;	/* buffer elements; 0: gsize */
	uint64_t seed;
	uint64_t local_elements;	/* __local elements; 0: as buffers */
	const struct sibyl_argspec *specs;	/* per argument (argspec.h); NULL: random */
	uint64_t gdim[3];	/* the range's shape: images take its extent */
};

/* Images are CL_RGBA of 32-bit channels: CL_FLOAT (pixels uniform in
 * [0, 1)), or CL_SIGNED_INT32, CL_UNSIGNED_INT32 when integer builtins
 * use them (argspec.h): formats every device with images reads and
 * writes (OpenCL 1.2, 5.3.2.1). */
#define SIBYL_IMAGE_PIXEL 16

/* Whether every buffer of `k` under cfg has a size (elements * element
 * size) that size_t holds: 0, or -1 after one line naming the argument. */
int sibyl_args_check(const struct sibyl_kernel *k, const struct sibyl_args_cfg *cfg, char *err,
		     size_t errlen);
/* Generate every argument of `k` (none may be unsupported): 0, or -1
 * after one line (a size sibyl_args_check refuses, out of memory). */
int sibyl_args_generate(const struct sibyl_kernel *k, const struct sibyl_args_cfg *cfg,
			struct sibyl_args *out, char *err, size_t errlen);
void sibyl_args_free(struct sibyl_args *a);

/* The value of a size (SIBYL_GEN_SIZE, argspec.h) for buffers n
 * elements long: the largest r >= 1 with r^root <= n, divided by div
 * (at least 1, and at least the size's min_count). */
uint64_t sibyl_size_value(uint64_t n, const struct sibyl_argspec *sp);

/* One value decoded back to JSON: numbers, arrays for vectors, arrays
 * and structs (members in order). */
json_t *sibyl_value_json(const struct sibyl_ktype *t, const void *p);
/* Every argument: {"name", "value"} for values, {"name", "data"} with
 * the buffer's elements for buffers, {"name", "bytes"} for __local. */
json_t *sibyl_args_json(const struct sibyl_kernel *k, const struct sibyl_args *a);

/* IEEE half <-> float (for half buffers and the JSON dump). */
uint16_t sibyl_float_to_half(float f);
float sibyl_half_to_float(uint16_t h);

#endif
