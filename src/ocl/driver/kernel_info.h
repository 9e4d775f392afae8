/*
 * The kernels of a program and their arguments, read from the SPIR
 * bitcode clang-14 produced: names, address spaces, type names and
 * qualifiers from the kernel_arg_* metadata; sizes, offsets and padding
 * from the module's DataLayout (never guessed from the source).
 */
#ifndef SIBYL_OCL_KERNEL_INFO_H
#define SIBYL_OCL_KERNEL_INFO_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The memory layout of one value: a tree mirroring the LLVM type. */
enum sibyl_ktype_kind {
	SIBYL_KT_INT,		/* bits 1..64 */
	SIBYL_KT_FLOAT,		/* bits 16 (half), 32, 64 */
	SIBYL_KT_VECTOR,	/* n elements at elem->size strides */
	SIBYL_KT_ARRAY,
	SIBYL_KT_STRUCT,	/* n members at offsets[] */
	SIBYL_KT_OPAQUE,	/* images, samplers, events: no layout */
};

struct sibyl_ktype {
	enum sibyl_ktype_kind kind;
	unsigned bits;
	bool is_signed;		/* known for kernel arguments, not for members */
	bool is_bool;
	bool is_padding;	/* a struct member clang added for alignment */
	size_t size;		/* allocation size in bytes (a float3 takes 16) */
	size_t n;
	struct sibyl_ktype *elem;	/* VECTOR, ARRAY */
	struct sibyl_ktype **members;	/* STRUCT */
	size_t *offsets;		/* STRUCT */
};

enum sibyl_karg_kind {
	SIBYL_KARG_VALUE,	/* scalar, vector or struct passed by value */
	SIBYL_KARG_BUFFER,	/* __global or __constant pointer */
	SIBYL_KARG_LOCAL,	/* __local pointer: only a size */
	SIBYL_KARG_UNSUPPORTED,	/* image arrays and buffers, events, ... */
	SIBYL_KARG_IMAGE,	/* image1d_t, image2d_t, image3d_t */
	SIBYL_KARG_SAMPLER,	/* sampler_t */
};

struct sibyl_karg {
	char *name;
	char *type_name;	/* as written, e.g. "float4", "outer_t*" */
	char *qualifiers;	/* "const", "restrict", "volatile", "" */
	const char *space;	/* "private", "global", "constant", "local" */
	enum sibyl_karg_kind kind;
	struct sibyl_ktype *type;	/* the value, or what the pointer points to */
};

struct sibyl_kernel {
	char *name;
	struct sibyl_karg *args;
	size_t nargs;
	uint64_t reqd_wg[3];	/* reqd_work_group_size; 0: none */
};

struct sibyl_kernels {
	struct sibyl_kernel *items;
	size_t n;
};

/* Read every kernel of SPIR bitcode (kernel_info.c, the only part that
 * needs LLVM). Returns 0, or -1 after one error line. */
int sibyl_kernels_read(const void *bc, size_t size, struct sibyl_kernels *out, char *err,
		       size_t errlen);

/* Signedness and bool of struct members, from the source through
 * libclang (kernel_types.c); `args` are clang's front-end options. */
void sibyl_kernels_refine(struct sibyl_kernels *ks, const char *file, const char *const *args,
			  int nargs);

/* The rest (kernel_sig.c) is plain C, shared with sibyl-kernel-run. */
struct sibyl_ktype *sibyl_ktype_new(enum sibyl_ktype_kind kind, size_t size);
void sibyl_ktype_free(struct sibyl_ktype *t);
void sibyl_kernels_free(struct sibyl_kernels *k);
const struct sibyl_kernel *sibyl_kernels_find(const struct sibyl_kernels *k, const char *name);

/* An image argument's dimensions (1, 2, 3), from its type name. */
unsigned sibyl_image_dims(const struct sibyl_karg *a);

/* First unsupported argument of a kernel, or NULL. */
const struct sibyl_karg *sibyl_kernel_unsupported(const struct sibyl_kernel *k);

/* "name (type, space)" lines, as the thesis lists them. */
void sibyl_kernel_print(FILE *out, const struct sibyl_kernel *k);
json_t *sibyl_kernel_json(const struct sibyl_kernel *k);

/* The full signature with every layout, and back (for the runner). */
json_t *sibyl_kernel_to_json(const struct sibyl_kernel *k);
int sibyl_kernel_from_json(json_t *j, struct sibyl_kernel *out);
void sibyl_kernel_free(struct sibyl_kernel *k);

#endif
