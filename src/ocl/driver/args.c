/* Deterministic argument generation from the kernel signature. */
#include "ocl/driver/args.h"
#include "ocl/driver/argspec.h"
#include "core/fs.h"
#include "core/alloc.h"
#include "core/log.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* splitmix64: small, fast, and good enough for test inputs. */
static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint16_t sibyl_float_to_half(float f)
{
	uint32_t x;

	memcpy(&x, &f, 4);
	uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
	int exp = (int)((x >> 23) & 0xff) - 127 + 15;
	uint32_t mant = x & 0x7fffff;

	if (((x >> 23) & 0xff) == 0xff)
		return sign | 0x7c00 | (mant ? 0x200 : 0);
	if (exp >= 31)
		return sign | 0x7c00;
	if (exp <= 0) {
		if (exp < -10)
			return sign;
		mant |= 0x800000;
		uint32_t shift = (uint32_t)(14 - exp);
		uint32_t h = mant >> shift;
		uint32_t rest = mant & ((1u << shift) - 1), half = 1u << (shift - 1);

		if (rest > half || (rest == half && (h & 1)))
			h++;
		return sign | (uint16_t)h;
	}
	uint32_t h = ((uint32_t)exp << 10) | (mant >> 13);
	uint32_t rest = mant & 0x1fff;

	if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
		h++;		/* may carry into the exponent, which is right */
	return sign | (uint16_t)h;
}

float sibyl_half_to_float(uint16_t h)
{
	int exp = (h >> 10) & 0x1f;
	float m = (float)(h & 0x3ff);
	float v = exp == 0 ? ldexpf(m, -24) :
		  exp == 31 ? (m ? NAN : INFINITY) : ldexpf(m + 1024.0f, exp - 25);

	return (h & 0x8000) ? -v : v;
}

/* The range of generated values: g the global size, or for a buffer
 * of indices (argspec.h) integers in [0, g) whatever their sign. */
struct range {
	uint64_t g;
	bool index;
};

static void gen_int(const struct sibyl_ktype *t, struct range r, uint64_t *s, void *p)
{
	uint64_t v, g = r.g;

	if (t->is_bool || t->bits == 1) {
		v = next(s) & 1;
	} else if (r.index) {
		uint64_t max = t->bits >= 64 ? UINT64_MAX : (1ull << (t->bits - t->is_signed)) - 1;

		v = next(s) % (g - 1 > max ? max : g);
	} else if (t->is_signed) {
		int64_t max = t->bits >= 64 ? INT64_MAX : (int64_t)((1ull << (t->bits - 1)) - 1);
		int64_t lim = g > (uint64_t)max ? max : (int64_t)g;
		/* uniform in [-lim, lim]: 2*lim+1 values */
		v = (uint64_t)(-lim + (int64_t)(next(s) % (2 * (uint64_t)lim + 1)));
	} else {
		uint64_t max = t->bits >= 64 ? UINT64_MAX : (1ull << t->bits) - 1;
		uint64_t lim = g - 1 > max ? max : g - 1;	/* [0, g) */

		v = lim == UINT64_MAX ? next(s) : next(s) % (lim + 1);
	}
	memcpy(p, &v, t->size < 8 ? t->size : 8);	/* little-endian */
}

static void gen_float(const struct sibyl_ktype *t, struct range r, uint64_t *s, void *p)
{
	uint64_t g = r.g;
	double u = (double)(next(s) >> 11) * 0x1p-53;
	double lim = t->bits == 16 && g > 65504 ? 65504.0 : (double)g;
	double v = -lim + 2.0 * lim * u;

	if (t->bits == 64) {
		memcpy(p, &v, 8);
	} else if (t->bits == 32) {
		float f = (float)v;

		memcpy(p, &f, 4);
	} else {
		uint16_t h = sibyl_float_to_half((float)v);

		memcpy(p, &h, 2);
	}
}

static void gen_value(const struct sibyl_ktype *t, struct range g, uint64_t *s, unsigned char *p)
{
	switch (t->kind) {
	case SIBYL_KT_INT:
		gen_int(t, g, s, p);
		break;
	case SIBYL_KT_FLOAT:
		gen_float(t, g, s, p);
		break;
	case SIBYL_KT_VECTOR:
	case SIBYL_KT_ARRAY:
		/* A 3-vector has 3 values and one zero element of padding. */
		for (size_t i = 0; i < t->n; i++)
			gen_value(t->elem, g, s, p + i * t->elem->size);
		break;
	case SIBYL_KT_STRUCT:
		for (size_t i = 0; i < t->n; i++)
			if (!t->members[i]->is_padding)
				gen_value(t->members[i], g, s, p + t->offsets[i]);
		break;
	case SIBYL_KT_OPAQUE:
		break;
	}
}

static size_t elem_size(const struct sibyl_karg *arg)
{
	if (arg->kind == SIBYL_KARG_IMAGE)
		return SIBYL_IMAGE_PIXEL;
	return arg->type->size ? arg->type->size : 1;
}

/* An image as large as the range, in its own dimensions (a 2-D image
 * of a 1-D range is one row). */
static void image_extent(const struct sibyl_karg *arg, const struct sibyl_args_cfg *cfg,
			 size_t ext[3])
{
	unsigned d = sibyl_image_dims(arg);

	for (unsigned i = 0; i < 3; i++)
		ext[i] = i >= d ? 1 : cfg->gdim[i] ? (size_t)cfg->gdim[i]
		       : i ? 1 : (size_t)(cfg->gsize ? cfg->gsize : 1);
}

static uint64_t default_count(const struct sibyl_args_cfg *cfg)
{
	return cfg->elements ? cfg->elements : cfg->gsize ? cfg->gsize : 1;
}

/* Elements of argument i: a file's buffer is as long as the file; a
 * buffer a fixed size names is at least that long. */
static uint64_t arg_count(const struct sibyl_kernel *k, size_t i, const struct sibyl_args_cfg *cfg)
{
	const struct sibyl_karg *arg = &k->args[i];
	const struct sibyl_argspec *sp = cfg->specs ? &cfg->specs[i] : NULL;
	uint64_t n = default_count(cfg);
	struct stat st;

	if (arg->kind == SIBYL_KARG_VALUE)
		return 1;
	if (arg->kind == SIBYL_KARG_SAMPLER)
		return 0;
	if (arg->kind == SIBYL_KARG_IMAGE) {
		size_t e[3];

		image_extent(arg, cfg, e);
		return (uint64_t)e[0] * e[1] * e[2];	/* each at most 2^63 / the others' */
	}
	if (arg->kind == SIBYL_KARG_LOCAL && cfg->local_elements)	/* its accesses' reach */
		return sp && sp->min_count > cfg->local_elements ? sp->min_count : cfg->local_elements;
	if (sp && sp->gen == SIBYL_GEN_FILE)
		return stat(sp->text, &st) == 0 ? (uint64_t)st.st_size / elem_size(arg) : 0;
	return sp && sp->min_count > n ? sp->min_count : n;
}

int sibyl_args_check(const struct sibyl_kernel *k, const struct sibyl_args_cfg *cfg, char *err,
		     size_t errlen)
{
	for (size_t i = 0; i < k->nargs; i++) {
		const struct sibyl_karg *arg = &k->args[i];
		uint64_t count = arg_count(k, i, cfg);
		size_t bytes;

		struct stat st;

		if (cfg->specs && cfg->specs[i].gen == SIBYL_GEN_FILE &&
		    stat(cfg->specs[i].text, &st) < 0)
			return sibyl_seterr_errno(err, errlen, "kernel: argument '%s': %s",
						  arg->name, cfg->specs[i].text);
		if (!count && cfg->specs && cfg->specs[i].gen == SIBYL_GEN_FILE)
			return sibyl_seterr(err, errlen, "kernel: argument '%s': %s holds not one "
					    "element of %zu bytes", arg->name, cfg->specs[i].text,
					    elem_size(arg));
		/* count * elem wrapping made a tiny buffer for a huge count. */
		if (count > SIZE_MAX || __builtin_mul_overflow((size_t)count, elem_size(arg), &bytes))
			return sibyl_seterr(err, errlen, "kernel: argument '%s': %llu elements of "
					    "%zu bytes do not fit in memory (see -g, --elements)",
					    arg->name, (unsigned long long)count, elem_size(arg));
	}
	return 0;
}

/* The buffer's contents as its generator says (random: from *s). */
static int fill(const struct sibyl_karg *arg, const struct sibyl_argspec *sp, struct range r,
		uint64_t *s, struct sibyl_argbuf *b, char *err, size_t errlen)
{
	size_t elem = elem_size(arg), len;
	enum sibyl_gen gen = sp ? sp->gen : SIBYL_GEN_RANDOM;
	char why[128], num[32];

	if (gen == SIBYL_GEN_FILE) {
		void *data = sibyl_read_file(sp->text, b->size, &len, why, sizeof(why));

		if (!data)
			return sibyl_seterr(err, errlen, "kernel: argument '%s': %s: %s", arg->name,
					    sp->text, why);
		memcpy(b->data, data, len < b->size ? len : b->size);
		free(data);
		return 0;
	}
	for (size_t e = 0; e < b->count; e++) {
		unsigned char *p = (unsigned char *)b->data + e * elem;

		if (gen == SIBYL_GEN_RANDOM || gen == SIBYL_GEN_INDEX ||
		    arg->type->kind > SIBYL_KT_FLOAT) {
			gen_value(arg->type, r, s, p);	/* vectors and structs: random */
		} else if (gen != SIBYL_GEN_ZEROS) {
			snprintf(num, sizeof(num), "%zu", gen == SIBYL_GEN_ONES ? (size_t)1 : e);
			if (sibyl_value_parse(arg->type, num, p) < 0)	/* arange past the type */
				memset(p, 0, elem);
		}
	}
	return 0;
}

/* The largest r >= 1 with r^root <= n (root 0, 1: n). */
static uint64_t size_root(uint64_t n, unsigned root)
{
	uint64_t r = root < 2 ? n : (uint64_t)pow((double)n, 1.0 / root);

	/* pow's rounding either way: the largest r with r^root <= n */
	while (root == 2 ? r && r > n / r : root == 3 && r && r > n / r / r)
		r--;
	while (root == 2 ? (r + 1) <= n / (r + 1) : root == 3 && (r + 1) <= n / (r + 1) / (r + 1))
		r++;
	return r ? r : 1;
}

uint64_t sibyl_size_value(uint64_t n, const struct sibyl_argspec *sp)
{
	uint64_t v = size_root(n, sp->root) / (sp->div > 1 ? sp->div : 1);

	if (sp->gen == SIBYL_GEN_SIZE && sp->min_count > v)	/* raised (argspec_infer.c) */
		v = sp->min_count;
	return v ? v : 1;
}

/* A buffer's values: from g, or indices below the size its spec says. */
static struct range range_of(const struct sibyl_args_cfg *cfg, const struct sibyl_argspec *sp,
			     uint64_t g)
{
	if (sp && sp->gen == SIBYL_GEN_INDEX)
		return (struct range){ sibyl_size_value(default_count(cfg), sp), true };
	return (struct range){ g, false };
}

/* A scalar: fixed, the length of the buffers it sizes, or random. */
static void scalar(const struct sibyl_kernel *k, size_t i, const struct sibyl_args_cfg *cfg,
		   const struct sibyl_args *out, uint64_t g, uint64_t *s)
{
	const struct sibyl_argspec *sp = cfg->specs ? &cfg->specs[i] : NULL;
	struct sibyl_argbuf *b = &out->a[i];
	char num[32];

	if (sp && sp->gen == SIBYL_GEN_VALUE && !sibyl_value_parse(k->args[i].type, sp->text, b->data))
		return;
	if (sp && sp->gen == SIBYL_GEN_SIZE) {
		size_t of = sp->size_of >= 0 ? out->a[sp->size_of].count : default_count(cfg);

		of = (size_t)sibyl_size_value(of, sp);

		snprintf(num, sizeof(num), "%zu", of);
		if (!sibyl_value_parse(k->args[i].type, num, b->data))
			return;
	}
	gen_value(k->args[i].type, (struct range){ g, false }, s, b->data);
}

/* An image's channels as its spec says (argspec.h): floats in [0, 1),
 * or 32-bit integers drawn as those of an int or uint buffer. */
static void pixels(const struct sibyl_argspec *sp, uint64_t g, uint64_t *s,
		   struct sibyl_argbuf *b)
{
	enum sibyl_image_type t = sp ? sp->image : SIBYL_IMAGE_FLOAT;
	struct sibyl_ktype i32 = { .kind = SIBYL_KT_INT, .bits = 32, .size = 4,
				   .is_signed = t == SIBYL_IMAGE_INT };

	b->image = t;

	for (size_t c = 0; c < b->size / 4; c++) {
		unsigned char *p = (unsigned char *)b->data + 4 * c;
		float f;

		if (t != SIBYL_IMAGE_FLOAT) {
			gen_int(&i32, (struct range){ g, false }, s, p);
			continue;
		}
		f = (float)((double)(next(s) >> 11) * 0x1p-53);
		memcpy(p, &f, 4);
	}
}

int sibyl_args_generate(const struct sibyl_kernel *k, const struct sibyl_args_cfg *cfg,
			struct sibyl_args *out, char *err, size_t errlen)
{
	uint64_t s = cfg->seed, g = cfg->gsize ? cfg->gsize : 1;

	memset(out, 0, sizeof(*out));
	if (sibyl_args_check(k, cfg, err, errlen) < 0)
		return -1;
	out->n = k->nargs;
	out->a = sibyl_xcalloc(k->nargs + 1, sizeof(*out->a));
	for (size_t i = 0; i < k->nargs; i++) {	/* lengths first: sizes follow them */
		struct sibyl_argbuf *b = &out->a[i];

		b->count = (size_t)arg_count(k, i, cfg);
		b->size = b->count * elem_size(&k->args[i]);
		if (k->args[i].kind == SIBYL_KARG_IMAGE)
			image_extent(&k->args[i], cfg, b->extent);
	}
	for (size_t i = 0; i < k->nargs; i++) {
		const struct sibyl_karg *arg = &k->args[i];
		const struct sibyl_argspec *sp = cfg->specs ? &cfg->specs[i] : NULL;
		struct sibyl_argbuf *b = &out->a[i];

		if (arg->kind == SIBYL_KARG_LOCAL || arg->kind == SIBYL_KARG_UNSUPPORTED ||
		    arg->kind == SIBYL_KARG_SAMPLER)
			continue;
		if (!(b->data = calloc(1, b->size ? b->size : 1))) {
			sibyl_seterr(err, errlen, "kernel: argument '%s': cannot allocate %zu "
				     "bytes", arg->name, b->size);
			sibyl_args_free(out);
			return -1;
		}
		if (arg->kind == SIBYL_KARG_VALUE)
			scalar(k, i, cfg, out, g, &s);
		else if (arg->kind == SIBYL_KARG_IMAGE)
			pixels(sp, g, &s, b);
		else if (fill(arg, sp, range_of(cfg, sp, g), &s, b, err, errlen) < 0) {
			sibyl_args_free(out);
			return -1;
		}
	}
	return 0;
}

void sibyl_args_free(struct sibyl_args *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->a[i].data);
	free(a->a);
	memset(a, 0, sizeof(*a));
}

static json_t *int_json(const struct sibyl_ktype *t, const void *p)
{
	uint64_t v = 0;

	memcpy(&v, p, t->size < 8 ? t->size : 8);
	if (t->bits < 64 && t->is_signed && (v >> (t->bits - 1)) & 1)
		v |= ~0ull << t->bits;		/* sign-extend */
	if (t->is_signed || v <= INT64_MAX)
		return json_integer((json_int_t)v);
	return json_real((double)v);		/* ulong beyond JSON integers */
}

json_t *sibyl_value_json(const struct sibyl_ktype *t, const void *p)
{
	const unsigned char *b = p;
	json_t *a;

	switch (t->kind) {
	case SIBYL_KT_INT:
		return int_json(t, p);
	case SIBYL_KT_FLOAT:
		if (t->bits == 64)
			return json_real(*(const double *)p);
		if (t->bits == 32)
			return json_real(*(const float *)p);
		return json_real(sibyl_half_to_float(*(const uint16_t *)p));
	case SIBYL_KT_VECTOR:
	case SIBYL_KT_ARRAY:
		a = json_array();
		for (size_t i = 0; i < t->n; i++)
			json_array_append_new(a, sibyl_value_json(t->elem, b + i * t->elem->size));
		return a;
	case SIBYL_KT_STRUCT:
		a = json_array();
		for (size_t i = 0; i < t->n; i++)
			if (!t->members[i]->is_padding)
				json_array_append_new(a, sibyl_value_json(t->members[i],
									  b + t->offsets[i]));
		return a;
	case SIBYL_KT_OPAQUE:
		break;
	}
	return json_null();
}

json_t *sibyl_args_json(const struct sibyl_kernel *k, const struct sibyl_args *a)
{
	json_t *out = json_array();

	for (size_t i = 0; i < k->nargs && i < a->n; i++) {
		const struct sibyl_karg *arg = &k->args[i];
		const struct sibyl_argbuf *b = &a->a[i];
		json_t *o = json_pack("{s:s}", "name", arg->name);

		if (arg->kind == SIBYL_KARG_VALUE) {
			json_object_set_new(o, "value", sibyl_value_json(arg->type, b->data));
		} else if (arg->kind == SIBYL_KARG_BUFFER) {
			json_t *d = json_array();

			for (size_t e = 0; e < b->count; e++)
				json_array_append_new(d, sibyl_value_json(arg->type,
					(const unsigned char *)b->data + e * arg->type->size));
			json_object_set_new(o, "data", d);
		} else if (arg->kind == SIBYL_KARG_IMAGE) {
			json_object_set_new(o, "image", json_pack("{s:I, s:I, s:I, s:s}",
				"width", (json_int_t)b->extent[0], "height", (json_int_t)b->extent[1],
				"depth", (json_int_t)b->extent[2], "format",
				sibyl_image_format_name(b->image)));
		} else if (arg->kind == SIBYL_KARG_SAMPLER) {
			json_object_set_new(o, "sampler", json_string("CLK_NORMALIZED_COORDS_FALSE | "
				"CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST"));
		} else {
			json_object_set_new(o, "bytes", json_integer((json_int_t)b->size));
		}
		json_array_append_new(out, o);
	}
	return out;
}
