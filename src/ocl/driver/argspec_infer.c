/* Sizes the IR shows (argspec_infer.h). */
#define _GNU_SOURCE
#include "ocl/driver/argspec_infer.h"
#include "ocl/driver/arg_extent.h"
#include "ocl/driver/args.h"
#include "core/alloc.h"

#include <stdbool.h>
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

/* An image's channels from its builtins: integers when only integer
 * ones use it.  Both signednesses (a kernel choosing by an argument:
 * `type == 1 ? read_imagei(...) : read_imageui(...)`) get unsigned
 * channels, which the path taken most often reads defined; floats and
 * integers together are undefined whichever is made, and keep CL_FLOAT. */
static void image_channels(struct sibyl_argspec *s, const struct sibyl_arg_role *r)
{
	unsigned f = r->flags & (SIBYL_ROLE_IMAGE_FLOAT | SIBYL_ROLE_IMAGE_INT |
				 SIBYL_ROLE_IMAGE_UINT);
	bool ints = !(f & SIBYL_ROLE_IMAGE_FLOAT);
	const char *by = f == SIBYL_ROLE_IMAGE_FLOAT ? "read_imagef/write_imagef"
		       : f == SIBYL_ROLE_IMAGE_INT ? "read_imagei/write_imagei"
		       : f == SIBYL_ROLE_IMAGE_UINT ? "read_imageui/write_imageui"
		       : ints ? "both read_imagei/write_imagei and read_imageui/write_imageui"
		       : NULL;

	if (!f)
		return;
	s->image = f == SIBYL_ROLE_IMAGE_INT ? SIBYL_IMAGE_INT
		 : ints ? SIBYL_IMAGE_UINT : SIBYL_IMAGE_FLOAT;
	free(s->why);
	s->why = by ? sibyl_xasprintf("its builtins are %s", by)
		    : sibyl_xstrdup("builtins of float and integer channels use it (undefined "
				    "behaviour whatever the format)");
}

void sibyl_argspecs_infer(const struct sibyl_kernel *k, const struct sibyl_arg_role *r,
			  struct sibyl_argspec *s)
{
	unsigned d = dimensions(k, r);

	for (size_t i = 0; i < k->nargs; i++) {
		if (k->args[i].kind == SIBYL_KARG_BUFFER)
			indices(&s[i], &r[i], d);
		if (k->args[i].kind == SIBYL_KARG_IMAGE)
			image_channels(&s[i], &r[i]);
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

/* The integer scalars' values decided before the run (fixed, or sizes)
 * for buffers `length` elements long; random ones are not. */
static void decided(const struct sibyl_kernel *k, const struct sibyl_argspec *s, uint64_t length,
		    bool *known, int64_t *value)
{
	for (size_t i = 0; i < k->nargs; i++) {
		const struct sibyl_karg *a = &k->args[i];
		char *end;

		if (a->kind != SIBYL_KARG_VALUE || a->type->kind != SIBYL_KT_INT || a->type->is_bool)
			continue;
		if (s[i].gen == SIBYL_GEN_VALUE) {
			value[i] = strtoll(s[i].text, &end, 0);
			known[i] = !*end;
		} else if (s[i].gen == SIBYL_GEN_SIZE) {
			uint64_t n = s[i].size_of >= 0 && s[s[i].size_of].min_count > length
				     ? s[s[i].size_of].min_count : length;

			value[i] = (int64_t)sibyl_size_value(n, &s[i]);
			known[i] = true;
		}
	}
}

/* A size or offset s that values up to v - 1 are subtracted from (it was `was`):
 * at least v, so that the difference is never negative. */
static void raise(struct sibyl_argspec *s, int64_t v, int64_t was)
{
	char *why = sibyl_xasprintf("%s, and at least %lld (not %lld): values up to %lld are "
				    "subtracted from it", s->why ? s->why : "is a length",
				    (long long)v, (long long)was, (long long)v - 1);

	if (s->gen == SIBYL_GEN_VALUE) {	/* an offset: 0 */
		free(s->text);
		s->text = sibyl_xasprintf("%lld", (long long)v);
	} else {
		s->min_count = (uint64_t)v;
	}
	free(s->why);
	s->why = why;
}

/* "-g 1024 -l 64", "-g 64,16" (no -l: the runtime's local size). */
static const char *launch_text(const uint64_t g[3], const uint64_t l[3], char *buf, size_t len)
{
	unsigned d = g[2] > 1 || l[2] > 1 ? 3 : g[1] > 1 || l[1] > 1 ? 2 : 1;
	int n = 0;

	for (unsigned i = 0; i < d; i++)
		n += snprintf(buf + n, len - (size_t)n, "%s%llu", i ? "," : "-g ",
			      (unsigned long long)g[i]);
	for (unsigned i = 0; l[0] && i < d; i++)
		n += snprintf(buf + n, len - (size_t)n, "%s%llu", i ? "," : " -l ",
			      (unsigned long long)l[i]);
	return buf;
}

/* Whether buffer j may grow: not a file's, and no scalar is its length. */
static bool may_grow(const struct sibyl_kernel *k, const struct sibyl_argspec *s, size_t j)
{
	if (s[j].gen == SIBYL_GEN_FILE)
		return false;
	for (size_t i = 0; i < k->nargs; i++)
		if (s[i].gen == SIBYL_GEN_SIZE && s[i].size_of == (long)j)
			return false;
	return true;
}

int sibyl_argspecs_reach(const struct sibyl_kernel *k, const void *bc, size_t size,
			 const uint64_t g[3], const uint64_t l[3], uint64_t length, uint64_t elements,
			 struct sibyl_argspec *s, char *err, size_t errlen)
{
	bool *known = sibyl_xcalloc(k->nargs + 1, sizeof(*known));
	int64_t *value = sibyl_xcalloc(k->nargs + 1, sizeof(*value));
	uint64_t *reach = sibyl_xcalloc(k->nargs + 1, sizeof(*reach));
	int64_t *raised = sibyl_xcalloc(k->nargs + 1, sizeof(*raised));
	bool *raisable = sibyl_xcalloc(k->nargs + 1, sizeof(*raisable));
	struct sibyl_extent_cfg cfg = { { g[0], g[1], g[2] }, { l[0], l[1], l[2] }, known, value,
					raisable };
	/* __local: --elements, else one per work-item of a group (args.h) */
	uint64_t local = elements ? elements : l[0] * l[1] * l[2];
	char shape[128];
	int rc;

	decided(k, s, length, known, value);
	for (size_t i = 0; i < k->nargs; i++)	/* sizes and offsets, never the user's values */
		raisable[i] = known[i] && (s[i].gen == SIBYL_GEN_SIZE || s[i].why);
	rc = sibyl_arg_extents(bc, size, k, &cfg, reach, raised, err, errlen);
	for (size_t i = 0; rc == 0 && i < k->nargs; i++)	/* a size, at most what a buffer may hold */
		if (raised[i] > 0 && raised[i] <= (int64_t)SIBYL_REACH_MAX)
			raise(&s[i], raised[i], value[i]);
	for (size_t j = 0; rc == 0 && j < k->nargs; j++) {
		size_t esz = k->args[j].type && k->args[j].type->size ? k->args[j].type->size : 1;

		if (reach[j] <= (k->args[j].kind == SIBYL_KARG_LOCAL ? local : length) ||
		    reach[j] <= s[j].min_count || !may_grow(k, s, j) ||
		    reach[j] > SIBYL_REACH_MAX / esz)
			continue;
		s[j].min_count = reach[j];
		free(s[j].reach_why);
		s[j].reach_why = sibyl_xasprintf("is indexed up to element %llu (%s, the scalars' "
						  "values above)", (unsigned long long)reach[j] - 1,
						  launch_text(g, l, shape, sizeof(shape)));
	}
	free(known), free(value), free(reach), free(raised), free(raisable);
	return rc;
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
		else if (k->args[i].kind == SIBYL_KARG_IMAGE)
			json_object_set_new(o, "format",
					    json_string(sibyl_image_format_name(s[i].image)));
		json_array_append_new(a, o);
	}
	for (size_t i = 0; i < k->nargs; i++)
		if (s[i].reach_why)
			json_array_append_new(a, json_pack("{s:s, s:I, s:s}", "name", k->args[i].name,
				"elements", (json_int_t)s[i].min_count, "why", s[i].reach_why));
	return a;
}
