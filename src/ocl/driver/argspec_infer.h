/*
 * Sizes the IR shows (docs/kernel.md, "Sizes the IR shows"): an integer
 * scalar left to sibyl that multiplies a buffer index by another
 * variable (a stride: `a[size * row + col]`) gets the square root of the
 * buffers' length (the cube root with three such sizes), so that the
 * product stays inside; one only added to an index (an offset: `a[gid +
 * t]`) gets 0; one that bounds a loop or the work-items (`i < n`), or
 * divides, gets the buffers' length, or the same root as the strides
 * when there are some.  A stride the user fixes (-a n=100) makes every
 * buffer at least 100^2 (100^3) long instead.  An image read or written
 * by integer builtins only (read_imagei, write_imageui...) gets integer
 * channels of that signedness.
 */
#ifndef SIBYL_OCL_ARGSPEC_INFER_H
#define SIBYL_OCL_ARGSPEC_INFER_H

#include "ocl/driver/arg_roles.h"
#include "ocl/driver/argspec.h"

#include <jansson.h>
#include <stdint.h>

/* Apply roles r (one per argument of k) to specs s (argspec.h): each
 * inferred spec gets its `why`; fixed ones stay, only floors change. */
void sibyl_argspecs_infer(const struct sibyl_kernel *k, const struct sibyl_arg_role *r,
			  struct sibyl_argspec *s);

/* Buffers whose bounded accesses (arg_extent.h) reach past `length`
 * elements (__local ones: `elements` if not 0, else the work-group's)
 * under the launch g, l (the largest sample's), with the
 * scalars as s decides them: at least that long (min_count), the reason
 * in reach_why.  Not past SIBYL_REACH_MAX bytes, nor a file's buffer or
 * one whose length a scalar takes.  0, or -1 with one line in err. */
#define SIBYL_REACH_MAX ((uint64_t)64 << 20)
int sibyl_argspecs_reach(const struct sibyl_kernel *k, const void *bc, size_t size,
			 const uint64_t g[3], const uint64_t l[3], uint64_t length, uint64_t elements,
			 struct sibyl_argspec *s, char *err, size_t errlen);

/* The inferred arguments, [{"name", "value", "why"}] ("below" instead
 * of "value" for a buffer of indices, "elements" for a buffer's length
 * its accesses need, "format" for an image its builtins decided), their values for buffers `length` elements long. */
json_t *sibyl_argspecs_inferred_json(const struct sibyl_kernel *k, const struct sibyl_argspec *s,
				     uint64_t length);

#endif
