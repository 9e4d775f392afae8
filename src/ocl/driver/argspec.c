/* Arguments the user controls (argspec.h). */
#define _GNU_SOURCE
#include "ocl/driver/argspec.h"
#include "ocl/driver/args.h"
#include "core/alloc.h"
#include "core/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const gens[] = { "random", "zeros", "ones", "arange", "file", "value", "size",
				     "index" };

static const char *const images[] = { "CL_RGBA, CL_FLOAT", "CL_RGBA, CL_SIGNED_INT32",
				       "CL_RGBA, CL_UNSIGNED_INT32" };

const char *sibyl_image_format_name(enum sibyl_image_type t)
{
	return images[(unsigned)t < 3 ? t : SIBYL_IMAGE_FLOAT];
}

static bool is_int_scalar(const struct sibyl_karg *a)
{
	return a->kind == SIBYL_KARG_VALUE && a->type->kind == SIBYL_KT_INT && !a->type->is_bool;
}

/* Names that say "the length of every buffer". */
static bool general_size(const char *n)
{
	static const char *const names[] = { "n", "size", "len", "length", "count", "num",
		"nelem", "nelems", "nelements", "num_elements", "numelements", "elements",
		"n_elements", "num_items", "nitems", "total", NULL };

	for (size_t i = 0; names[i]; i++)
		if (!strcasecmp(n, names[i]))
			return true;
	return false;
}

/* "X_size", "n_X", ... for buffer X: that buffer's index, else -1. */
static long buffer_size(const struct sibyl_kernel *k, const char *n)
{
	static const char *const pre[] = { "n_", "num_", "size_", "len_", NULL };
	static const char *const post[] = { "_size", "_len", "_length", "_count", "_n", NULL };
	size_t len = strlen(n);

	for (size_t b = 0; b < k->nargs; b++) {
		const char *x = k->args[b].name;
		size_t xl = strlen(x);

		if (k->args[b].kind != SIBYL_KARG_BUFFER)
			continue;
		for (size_t i = 0; pre[i]; i++)
			if (len == strlen(pre[i]) + xl && !strncasecmp(n, pre[i], strlen(pre[i])) &&
			    !strcasecmp(n + strlen(pre[i]), x))
				return (long)b;
		for (size_t i = 0; post[i]; i++)
			if (len == xl + strlen(post[i]) && !strncasecmp(n, x, xl) &&
			    !strcasecmp(n + xl, post[i]))
				return (long)b;
	}
	return -1;
}

int sibyl_value_parse(const struct sibyl_ktype *t, const char *text, void *p)
{
	char *end;

	errno = 0;
	if (t->kind == SIBYL_KT_FLOAT) {
		double v = strtod(text, &end);
		float f = (float)v;
		uint16_t h = sibyl_float_to_half(f);

		if (errno || end == text || *end)
			return -1;
		memcpy(p, t->bits == 64 ? (void *)&v : t->bits == 32 ? (void *)&f : (void *)&h,
		       t->bits / 8);
		return 0;
	}
	if (t->kind != SIBYL_KT_INT)
		return -1;
	int64_t s = 0;
	uint64_t u = 0;
	bool neg = text[strspn(text, " ")] == '-';

	if (neg)
		s = strtoll(text, &end, 0);
	else
		u = strtoull(text, &end, 0);
	if (errno || end == text || *end || (neg && !t->is_signed))
		return -1;
	/* Within the type: a bits-wide two's complement value. */
	if (t->bits < 64 && (neg ? s < -(1ll << (t->bits - 1))
			     : u > (t->is_signed ? (1ull << (t->bits - 1)) - 1 : (1ull << t->bits) - 1)))
		return -1;
	uint64_t v = neg ? (uint64_t)s : u;

	memcpy(p, &v, t->size < 8 ? t->size : 8);	/* little-endian */
	return 0;
}

/* One "NAME=SPEC" into s[]: 0, or -1 with err. */
static int apply(const struct sibyl_kernel *k, const char *opt, struct sibyl_argspec *s, char *err,
		 size_t errlen)
{
	const char *eq = strchr(opt, '=');
	size_t i;

	for (i = 0; eq && i < k->nargs; i++)
		if (strlen(k->args[i].name) == (size_t)(eq - opt) &&
		    !strncmp(k->args[i].name, opt, (size_t)(eq - opt)))
			break;
	if (!eq || i == k->nargs)
		return sibyl_seterr(err, errlen, "kernel: -a %s: expected NAME=VALUE with NAME an "
				    "argument of %s", opt, k->name);
	const struct sibyl_karg *a = &k->args[i];
	const char *v = eq + 1;
	unsigned char scratch[16];

	if (a->kind == SIBYL_KARG_BUFFER) {
		for (int g = SIBYL_GEN_RANDOM; g <= SIBYL_GEN_ARANGE; g++)
			if (!strcmp(v, gens[g])) {
				s[i].gen = (enum sibyl_gen)g;
				return 0;
			}
		if (!strncmp(v, "file:", 5) && v[5]) {
			s[i].gen = SIBYL_GEN_FILE;
			s[i].text = sibyl_xstrdup(v + 5);
			return 0;
		}
		return sibyl_seterr(err, errlen, "kernel: -a %s: a buffer takes random, zeros, "
				    "ones, arange or file:PATH", opt);
	}
	if (a->kind != SIBYL_KARG_VALUE || (a->type->kind != SIBYL_KT_INT &&
					    a->type->kind != SIBYL_KT_FLOAT) ||
	    sibyl_value_parse(a->type, v, scratch) < 0)
		return sibyl_seterr(err, errlen, "kernel: -a %s: '%s' (%s) takes %s", opt, a->name,
				    a->type_name, a->kind == SIBYL_KARG_VALUE &&
				    a->type->kind <= SIBYL_KT_FLOAT ? "a number of its type"
				    : "no value (scalars and buffers only)");
	s[i].gen = SIBYL_GEN_VALUE;
	s[i].text = sibyl_xstrdup(v);
	return 0;
}

/* Sizes the names give: unfixed, the buffers' length; fixed, a floor. */
static void relate(const struct sibyl_kernel *k, struct sibyl_argspec *s)
{
	for (size_t i = 0; i < k->nargs; i++) {
		const struct sibyl_karg *a = &k->args[i];
		long b = is_int_scalar(a) ? buffer_size(k, a->name) : -1;

		if (!is_int_scalar(a) || (b < 0 && !general_size(a->name)))
			continue;
		if (s[i].gen != SIBYL_GEN_VALUE) {
			s[i].gen = SIBYL_GEN_SIZE;
			s[i].size_of = b;
			continue;
		}
		long long v = strtoll(s[i].text, NULL, 0);

		for (size_t j = 0; v > 0 && j < k->nargs; j++)
			if (k->args[j].kind == SIBYL_KARG_BUFFER && (b < 0 || (size_t)b == j) &&
			    (uint64_t)v > s[j].min_count)
				s[j].min_count = (uint64_t)v;
	}
}

int sibyl_argspecs_make(const struct sibyl_kernel *k, const struct sibyl_strlist *a,
			struct sibyl_argspec **out, char *err, size_t errlen)
{
	struct sibyl_argspec *s = sibyl_xcalloc(k->nargs + 1, sizeof(*s));

	for (size_t i = 0; i < k->nargs; i++)
		s[i].size_of = -1;
	for (size_t i = 0; a && i < a->count; i++)
		if (apply(k, a->items[i], s, err, errlen) < 0) {
			sibyl_argspecs_free(s, k->nargs);
			return -1;
		}
	relate(k, s);
	*out = s;
	return 0;
}

json_t *sibyl_argspecs_json(const struct sibyl_argspec *s, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s, s:s?, s:I, s:I, s:i, s:i, s:i}", "gen",
						   gens[s[i].gen], "text", s[i].text, "size_of",
						   (json_int_t)s[i].size_of, "min",
						   (json_int_t)s[i].min_count, "root", (int)s[i].root,
						   "div", (int)s[i].div, "image", (int)s[i].image));
	return a;
}

struct sibyl_argspec *sibyl_argspecs_from_json(json_t *j, size_t n)
{
	struct sibyl_argspec *s = sibyl_xcalloc(n + 1, sizeof(*s));

	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(j, i);
		const char *g = json_string_value(json_object_get(e, "gen")), *t;

		for (size_t k = 0; g && k < sizeof(gens) / sizeof(gens[0]); k++)
			if (!strcmp(g, gens[k]))
				s[i].gen = (enum sibyl_gen)k;
		if ((t = json_string_value(json_object_get(e, "text"))))
			s[i].text = sibyl_xstrdup(t);
		s[i].size_of = (long)json_integer_value(json_object_get(e, "size_of"));
		s[i].min_count = (uint64_t)json_integer_value(json_object_get(e, "min"));
		s[i].root = (unsigned)json_integer_value(json_object_get(e, "root"));
		s[i].div = (unsigned)json_integer_value(json_object_get(e, "div"));
		json_int_t im = json_integer_value(json_object_get(e, "image"));

		s[i].image = im == SIBYL_IMAGE_INT ? SIBYL_IMAGE_INT
			   : im == SIBYL_IMAGE_UINT ? SIBYL_IMAGE_UINT : SIBYL_IMAGE_FLOAT;
	}
	return s;
}

void sibyl_argspecs_free(struct sibyl_argspec *s, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		free(s[i].text), free(s[i].why), free(s[i].reach_why);
	free(s);
}
