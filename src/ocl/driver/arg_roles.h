/*
 * What a kernel does with its integer scalars, read from its IR (LLVM 14,
 * so sibyl's side only): whether one reaches the index of a buffer
 * access (__global, __constant or __local), multiplied by another
 * variable on the way (a stride: `size * row + col`) or only added
 * (an offset: `a[gid + t]`), whether it is compared with a variable (a
 * bound: `gid < n`, `i < n`) and whether it divides.  argspec_infer.c
 * turns that into values; random sizes from [-g, g] were what crashed
 * most kernels.  Followed through casts, arithmetic, selects, phis and
 * the kernel's own functions, after mem2reg on a private copy.  Images
 * the same way: which builtins read or write them.
 */
#ifndef SIBYL_OCL_ARG_ROLES_H
#define SIBYL_OCL_ARG_ROLES_H

#include "ocl/driver/kernel_info.h"

#include <stddef.h>

enum {
	SIBYL_ROLE_STRIDE = 1,	/* multiplied by a variable into an index */
	SIBYL_ROLE_OFFSET = 2,	/* added into an index, or the index itself */
	SIBYL_ROLE_BOUND = 4,	/* compared with a variable */
	SIBYL_ROLE_DIVISOR = 8,	/* divides (or is the modulus of) a variable */
	/* An image read or written by read_imagef/h, write_imagef/h (float
	 * channels), read_imagei, write_imagei (signed integers), or
	 * read_imageui, write_imageui (unsigned): an image of another
	 * channel type is undefined behaviour (OpenCL 1.2, 6.12.14.2). */
	SIBYL_ROLE_IMAGE_FLOAT = 16,
	SIBYL_ROLE_IMAGE_INT = 32,
	SIBYL_ROLE_IMAGE_UINT = 64,
};

struct sibyl_arg_role {
	unsigned flags;
	unsigned degree;	/* STRIDE: variables multiplied in, at most 3 */
	unsigned scale;		/* BOUND: log2 of the constant it is multiplied by */
	char *buffer;		/* the first buffer whose index it reaches */
};

/* One role per argument of kernel k (out[k->nargs]): integer scalars
 * as above; a buffer, what the integers loaded from it do (an OFFSET or
 * STRIDE buffer holds indices: `a[idx[i]]`); an image, its IMAGE_ flags.  0, or -1 with one line in
 * err (unreadable bitcode, no such kernel). */
int sibyl_arg_roles(const void *bc, size_t size, const struct sibyl_kernel *k,
		    struct sibyl_arg_role *out, char *err, size_t errlen);
void sibyl_arg_roles_free(struct sibyl_arg_role *r, size_t n);

#endif
