/* Kernel signatures: printing, JSON both ways, freeing (no LLVM here). */
#define _GNU_SOURCE
#include "ocl/driver/kernel_info.h"
#include "core/alloc.h"

#include <stdlib.h>
#include <string.h>

static const char *const kinds[] = { "value", "buffer", "local", "unsupported", "image",
				     "sampler" };
static const char *const tkinds[] = { "int", "float", "vector", "array", "struct", "opaque" };

struct sibyl_ktype *sibyl_ktype_new(enum sibyl_ktype_kind kind, size_t size)
{
	struct sibyl_ktype *t = sibyl_xcalloc(1, sizeof(*t));

	t->kind = kind;
	t->size = size;
	return t;
}

void sibyl_ktype_free(struct sibyl_ktype *t)
{
	if (!t)
		return;
	sibyl_ktype_free(t->elem);
	for (size_t i = 0; t->members && i < t->n; i++)
		sibyl_ktype_free(t->members[i]);
	free(t->members);
	free(t->offsets);
	free(t);
}

void sibyl_kernel_free(struct sibyl_kernel *k)
{
	for (size_t j = 0; j < k->nargs; j++) {
		free(k->args[j].name);
		free(k->args[j].type_name);
		free(k->args[j].qualifiers);
		sibyl_ktype_free(k->args[j].type);
	}
	free(k->args);
	free(k->name);
	memset(k, 0, sizeof(*k));
}

void sibyl_kernels_free(struct sibyl_kernels *k)
{
	for (size_t i = 0; i < k->n; i++)
		sibyl_kernel_free(&k->items[i]);
	free(k->items);
	memset(k, 0, sizeof(*k));
}

const struct sibyl_kernel *sibyl_kernels_find(const struct sibyl_kernels *k, const char *name)
{
	for (size_t i = 0; i < k->n; i++)
		if (!strcmp(k->items[i].name, name))
			return &k->items[i];
	return NULL;
}

unsigned sibyl_image_dims(const struct sibyl_karg *a)
{
	const char *d = strstr(a->type_name, "image");

	return d && d[5] >= '1' && d[5] <= '3' ? (unsigned)(d[5] - '0') : 2;
}

const struct sibyl_karg *sibyl_kernel_unsupported(const struct sibyl_kernel *k)
{
	for (size_t i = 0; i < k->nargs; i++)
		if (k->args[i].kind == SIBYL_KARG_UNSUPPORTED)
			return &k->args[i];
	return NULL;
}

void sibyl_kernel_print(FILE *out, const struct sibyl_kernel *k)
{
	fprintf(out, "%s\n", k->name);
	for (size_t i = 0; i < k->nargs; i++) {
		const struct sibyl_karg *a = &k->args[i];

		fprintf(out, "  arg %zu: %s (%s%s%s, %s)%s\n", i, a->name, a->qualifiers,
			*a->qualifiers ? " " : "", a->type_name, a->space,
			a->kind == SIBYL_KARG_UNSUPPORTED ? " [unsupported]" : "");
	}
}

json_t *sibyl_kernel_json(const struct sibyl_kernel *k)
{
	json_t *args = json_array();

	for (size_t i = 0; i < k->nargs; i++) {
		const struct sibyl_karg *a = &k->args[i];

		json_array_append_new(args, json_pack("{s:s, s:s, s:s, s:s, s:s, s:I}",
			"name", a->name, "type", a->type_name, "qualifiers", a->qualifiers,
			"space", a->space, "kind", kinds[a->kind], "size", (json_int_t)a->type->size));
	}
	json_t *j = json_pack("{s:s, s:o}", "name", k->name, "args", args);

	if (k->reqd_wg[0])
		json_object_set_new(j, "reqd_work_group_size",
				    json_pack("[I, I, I]", (json_int_t)k->reqd_wg[0],
					      (json_int_t)k->reqd_wg[1], (json_int_t)k->reqd_wg[2]));
	return j;
}

static json_t *ktype_json(const struct sibyl_ktype *t)
{
	json_t *j = json_pack("{s:s, s:I, s:i, s:b, s:b, s:b}", "k", tkinds[t->kind],
			      "size", (json_int_t)t->size, "bits", (int)t->bits,
			      "signed", t->is_signed, "bool", t->is_bool, "padding", t->is_padding);

	if (t->elem) {
		json_object_set_new(j, "n", json_integer((json_int_t)t->n));
		json_object_set_new(j, "elem", ktype_json(t->elem));
	}
	if (t->members) {
		json_t *m = json_array();

		for (size_t i = 0; i < t->n; i++)
			json_array_append_new(m, json_pack("{s:I, s:o}", "offset",
				(json_int_t)t->offsets[i], "type", ktype_json(t->members[i])));
		json_object_set_new(j, "members", m);
	}
	return j;
}

static struct sibyl_ktype *ktype_from(json_t *j)
{
	const char *k = json_string_value(json_object_get(j, "k"));
	struct sibyl_ktype *t = sibyl_ktype_new(SIBYL_KT_OPAQUE,
		(size_t)json_integer_value(json_object_get(j, "size")));
	json_t *m = json_object_get(j, "members"), *e;
	size_t i;

	for (i = 0; k && i < sizeof(tkinds) / sizeof(tkinds[0]); i++)
		if (!strcmp(k, tkinds[i]))
			t->kind = (enum sibyl_ktype_kind)i;
	t->bits = (unsigned)json_integer_value(json_object_get(j, "bits"));
	t->is_signed = json_is_true(json_object_get(j, "signed"));
	t->is_bool = json_is_true(json_object_get(j, "bool"));
	t->is_padding = json_is_true(json_object_get(j, "padding"));
	if (json_object_get(j, "elem")) {
		t->n = (size_t)json_integer_value(json_object_get(j, "n"));
		t->elem = ktype_from(json_object_get(j, "elem"));
	}
	if (m) {
		t->n = json_array_size(m);
		t->members = sibyl_xcalloc(t->n + 1, sizeof(*t->members));
		t->offsets = sibyl_xcalloc(t->n + 1, sizeof(*t->offsets));
		json_array_foreach(m, i, e) {
			t->offsets[i] = (size_t)json_integer_value(json_object_get(e, "offset"));
			t->members[i] = ktype_from(json_object_get(e, "type"));
		}
	}
	return t;
}

json_t *sibyl_kernel_to_json(const struct sibyl_kernel *k)
{
	json_t *j = sibyl_kernel_json(k), *args = json_object_get(j, "args");

	for (size_t i = 0; i < k->nargs; i++)
		json_object_set_new(json_array_get(args, i), "layout", ktype_json(k->args[i].type));
	return j;
}

static const char *space_of(const char *s)
{
	static const char *const spaces[] = { "private", "global", "constant", "local" };

	for (size_t i = 0; s && i < 4; i++)
		if (!strcmp(s, spaces[i]))
			return spaces[i];
	return "generic";
}

int sibyl_kernel_from_json(json_t *j, struct sibyl_kernel *out)
{
	json_t *args = json_object_get(j, "args"), *a;
	const char *name = json_string_value(json_object_get(j, "name"));
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!name || !json_is_array(args))
		return -1;
	out->name = sibyl_xstrdup(name);
	for (size_t d = 0; d < 3; d++)
		out->reqd_wg[d] = (uint64_t)json_integer_value(
			json_array_get(json_object_get(j, "reqd_work_group_size"), d));
	out->nargs = json_array_size(args);
	out->args = sibyl_xcalloc(out->nargs + 1, sizeof(*out->args));
	json_array_foreach(args, i, a) {
		struct sibyl_karg *g = &out->args[i];
		const char *kind = json_string_value(json_object_get(a, "kind"));

		g->name = sibyl_xstrdup(json_string_value(json_object_get(a, "name")) ?: "?");
		g->type_name = sibyl_xstrdup(json_string_value(json_object_get(a, "type")) ?: "?");
		g->qualifiers = sibyl_xstrdup(json_string_value(json_object_get(a, "qualifiers")) ?: "");
		g->space = space_of(json_string_value(json_object_get(a, "space")));
		g->kind = SIBYL_KARG_UNSUPPORTED;
		for (size_t n = 0; kind && n < sizeof(kinds) / sizeof(kinds[0]); n++)
			if (!strcmp(kind, kinds[n]))
				g->kind = (enum sibyl_karg_kind)n;
		g->type = ktype_from(json_object_get(a, "layout"));
	}
	return 0;
}
