/* Sizes the IR shows (argspec_infer.h). */
#define _GNU_SOURCE
#include "ocl/driver/argspec_infer.h"
#include "ocl/driver/args.h"
#include "core/alloc.h"

#include <stdio.h>
#include <stdlib.h>

/* The dimensions of the buffers' index space: 1 without strides, else
 * as many as the size-like scalars (2 or 3), so that their product
 * stays within the buffers. */
static unsigned dimensions(const struct sibyl_kernel *k, const struct sibyl_arg_role *r)
{
	unsigned sizes = 0, deg = 0;
	bool strided = false;

	for (size_t i = 0; i < k->nargs; i++) {
		if (k->args[i].kind != SIBYL_KARG_VALUE)
			continue;
		strided |= r[i].flags & SIBYL_ROLE_STRIDE;
		sizes += r[i].flags & SIBYL_ROLE_STRIDE ||
			 (r[i].flags & (SIBYL_ROLE_BOUND | SIBYL_ROLE_DIVISOR) &&
			  !(r[i].flags & SIBYL_ROLE_OFFSET));
		if (r[i].degree > deg)
			deg = r[i].degree;
	}
	if (!strided)
		return 1;
	if (deg + 1 > sizes)
		sizes = deg + 1;
	return sizes < 2 ? 2 : sizes > 3 ? 3 : sizes;
}

static const char *root_name(unsigned d)
{
	return d == 2 ? "the square root of " : d == 3 ? "the cube root of " : "";
}

static void size_of_all(struct sibyl_argspec *s, unsigned d, unsigned scale, char *why)
{
	s->gen = SIBYL_GEN_SIZE;
	s->size_of = -1;
	s->root = d;
	s->div = 1u << scale;
	free(s->why);
	s->why = why;
}

/* A stride the user fixed to v: every buffer at least v^d long. */
static void floor_buffers(const struct sibyl_kernel *k, struct sibyl_argspec *s, const char *v,
			  unsigned d)
{
	long long x = strtoll(v, NULL, 0);
	uint64_t need = 1;

	if (x <= 0)
		return;
	for (unsigned i = 0; i < d; i++)
		if (__builtin_mul_overflow(need, (uint64_t)x, &need))
			need = UINT64_MAX;
	for (size_t j = 0; j < k->nargs; j++)
		if (k->args[j].kind == SIBYL_KARG_BUFFER && need > s[j].min_count)
			s[j].min_count = need;
}

/* "'a_dev'", or "a buffer" when the access does not name one. */
static const char *quoted(const struct sibyl_arg_role *r, char *buf, size_t len)
{
	if (!r->buffer)
		return "a buffer";
	snprintf(buf, len, "'%s'", r->buffer);
	return buf;
}

/* One scalar left to sibyl, with roles r: its generator and why. */
static void infer_one(struct sibyl_argspec *s, const struct sibyl_arg_role *r, unsigned d)
{
	char name[256];

	if (r->flags & SIBYL_ROLE_STRIDE) {
		size_of_all(s, d, 0, sibyl_xasprintf("multiplies an index of %s: %sthe "
						     "buffers' length", quoted(r, name, sizeof(name)), root_name(d)));
	} else if (r->flags & SIBYL_ROLE_OFFSET) {
		if (s->gen == SIBYL_GEN_SIZE)	/* the name says a length: a[n - 1 - i] */
			return;
		s->gen = SIBYL_GEN_VALUE;
		free(s->text);
		s->text = sibyl_xstrdup("0");
		free(s->why);
		s->why = sibyl_xasprintf("offsets an index of %s: 0", quoted(r, name, sizeof(name)));
	} else if (d > 1 || s->gen != SIBYL_GEN_SIZE || r->scale) {
		char by[48] = "";

		if (r->scale)	/* i < 4 * n: a quarter */
			snprintf(by, sizeof(by), " over %u (it is multiplied by that)",
				 1u << r->scale);
		size_of_all(s, d, r->scale, sibyl_xasprintf("%s: %sthe buffers' length%s",
			r->flags & SIBYL_ROLE_BOUND ? "bounds a loop or the work-items"
						    : "divides", root_name(d), by));
	}
}

/* A buffer whose integers reach an index holds indices: small ones,
 * as a quarter of the sizes, so that added to an id they stay inside. */
static void indices(struct sibyl_argspec *s, const struct sibyl_arg_role *r, unsigned d)
{
	char name[256];

	if (s->gen != SIBYL_GEN_RANDOM || !(r->flags & (SIBYL_ROLE_OFFSET | SIBYL_ROLE_STRIDE)))
		return;
	s->gen = SIBYL_GEN_INDEX;
	s->root = d;
	s->div = 4;
	s->why = sibyl_xasprintf("holds indices of %s: integers from 0 to a quarter of %sthe "
				 "buffers' length", quoted(r, name, sizeof(name)), root_name(d));
}

void sibyl_argspecs_infer(const struct sibyl_kernel *k, const struct sibyl_arg_role *r,
			  struct sibyl_argspec *s)
{
	unsigned d = dimensions(k, r);

	for (size_t i = 0; i < k->nargs; i++) {
		if (k->args[i].kind == SIBYL_KARG_BUFFER)
			indices(&s[i], &r[i], d);
		if (!r[i].flags || k->args[i].kind != SIBYL_KARG_VALUE)
			continue;
		if (s[i].gen == SIBYL_GEN_VALUE && !s[i].why) {	/* the user's -a */
			if (r[i].flags & SIBYL_ROLE_STRIDE)
				floor_buffers(k, s, s[i].text, d);
			continue;
		}
		infer_one(&s[i], &r[i], d);
	}
}

json_t *sibyl_argspecs_inferred_json(const struct sibyl_kernel *k, const struct sibyl_argspec *s,
				     uint64_t length)
{
	json_t *a = json_array();

	for (size_t i = 0; i < k->nargs; i++) {
		if (!s[i].why)
			continue;
		json_t *o = json_pack("{s:s, s:s}", "name", k->args[i].name, "why", s[i].why);

		if ((s[i].gen == SIBYL_GEN_SIZE || s[i].gen == SIBYL_GEN_INDEX) && s[i].size_of < 0)
			json_object_set_new(o, s[i].gen == SIBYL_GEN_INDEX ? "below" : "value",
				json_integer((json_int_t)sibyl_size_value(length, &s[i])));
		else if (s[i].gen == SIBYL_GEN_VALUE)
			json_object_set_new(o, "value", json_integer(strtoll(s[i].text, NULL, 0)));
		json_array_append_new(a, o);
	}
	return a;
}
