/* The training suite's manifest. */
#include "kmodel/suite.h"
#include "core/alloc.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/output.h"

#include <jansson.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

#define SUITE_MAX ((size_t)16 << 20)

static char *resolve(const char *manifest, const char *file)
{
	if (file[0] == '/')
		return sibyl_xstrdup(file);
	char *copy = sibyl_xstrdup(manifest), *p = sibyl_path_join(dirname(copy), file);

	free(copy);
	return p;
}

static int read_entry(const char *path, json_t *k, size_t i, struct sibyl_kmodel_entry *e,
		      char *err, size_t errlen)
{
	const char *name = NULL, *file = NULL, *cat = "", *gsize = NULL;
	json_int_t lsize = 0;

	if (json_unpack(k, "{s:s, s:s, s?:s, s:s, s?:I}", "name", &name, "file", &file,
			"category", &cat, "gsize", &gsize, "lsize", &lsize) < 0 || lsize < 0)
		return sibyl_seterr(err, errlen, "kmodel: %s: kernel %zu needs \"name\", \"file\" "
				    "and \"gsize\" strings (and a non-negative \"lsize\")", path, i + 1);
	e->name = sibyl_xstrdup(name);
	e->file = resolve(path, file);
	e->category = sibyl_xstrdup(cat);
	e->gsize = sibyl_xstrdup(gsize);
	e->lsize = (long)lsize;
	return 0;
}

static int check_unique(const struct sibyl_kmodel_suite *s, char *err, size_t errlen)
{
	for (size_t i = 0; i < s->n; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(s->items[i].name, s->items[j].name))
				return sibyl_seterr(err, errlen, "kmodel: %s: kernel '%s' is "
						    "listed twice", s->path, s->items[i].name);
	return 0;
}

json_t *sibyl_kmodel_json_load(const char *path, char *err, size_t errlen)
{
	char why[256];
	size_t len;
	char *text = sibyl_read_file(path, SUITE_MAX, &len, why, sizeof(why));
	json_error_t je;
	json_t *j;

	if (!text)
		return sibyl_seterr(err, errlen, "kmodel: %s: %s", path, why), NULL;
	j = json_loadb(text, len, 0, &je);
	free(text);
	if (!j)
		sibyl_seterr(err, errlen, "kmodel: %s:%d: %s", path, je.line, je.text);
	return j;
}

json_t *sibyl_kmodel_json_load_upto(const char *path, const char *format, const char *what,
				    int max, char *err, size_t errlen)
{
	json_t *j = sibyl_kmodel_json_load(path, err, errlen);
	const char *fmt = json_string_value(json_object_get(j, "format"));
	json_int_t v = json_integer_value(json_object_get(j, "version"));

	if (j && (!fmt || strcmp(fmt, format)))
		sibyl_seterr(err, errlen, "kmodel: %s: not a kmodel %s", path, what);
	else if (j && (v < 1 || v > max))
		sibyl_seterr(err, errlen, max > 1 ? "kmodel: %s: %s version %lld is not 1 to %d"
				       : "kmodel: %s: %s version %lld is not %d", path, what,
			     (long long)v, max);
	else
		return j;
	json_decref(j);
	return NULL;
}

json_t *sibyl_kmodel_json_load_v1(const char *path, const char *format, const char *what,
				  char *err, size_t errlen)
{
	return sibyl_kmodel_json_load_upto(path, format, what, 1, err, errlen);
}

char *sibyl_kmodel_json_dup(json_t *j, const char *key, const char *absent)
{
	const char *s = json_string_value(json_object_get(j, key));

	return sibyl_xstrdup(s ? s : absent);
}

int sibyl_kmodel_json_save(json_t *j, const char *path, bool force, char *err, size_t errlen)
{
	char *text = j ? json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) : NULL;
	int r = -1;

	json_decref(j);
	if (!text)	/* a NaN or an infinity, which JSON cannot hold */
		sibyl_seterr(err, errlen, "kmodel: %s: the model has non-finite numbers", path);
	else if (sibyl_output_check(path, force, NULL, err, errlen) == 0 &&
		 (r = sibyl_output_write(path, text, strlen(text), 0666)) < 0)
		sibyl_seterr_errno(err, errlen, "kmodel: %s", path);
	free(text);
	return r < 0 ? -1 : 0;
}

int sibyl_kmodel_suite_read(const char *path, struct sibyl_kmodel_suite *s, char *err,
			    size_t errlen)
{
	json_t *j, *ks;
	int r = -1;

	memset(s, 0, sizeof(*s));
	if (!(j = sibyl_kmodel_json_load(path, err, errlen)))
		return -1;
	s->path = sibyl_xstrdup(path);
	const char *fmt = json_string_value(json_object_get(j, "format"));
	json_int_t samples = json_integer_value(json_object_get(j, "samples"));

	ks = json_object_get(j, "kernels");
	if (!fmt || strcmp(fmt, "sibyl-kmodel-suite"))
		sibyl_seterr(err, errlen, "kmodel: %s: not a kmodel suite (no \"format\": "
			     "\"sibyl-kmodel-suite\")", path);
	else if (json_integer_value(json_object_get(j, "version")) != 1)
		sibyl_seterr(err, errlen, "kmodel: %s: suite version %lld is not 1", path,
			     (long long)json_integer_value(json_object_get(j, "version")));
	else if (!json_is_array(ks) || !json_array_size(ks))
		sibyl_seterr(err, errlen, "kmodel: %s: \"kernels\" is not a non-empty list", path);
	else
		r = 0;
	s->samples = samples > 0 ? (long)samples : 3;
	s->items = r ? NULL : sibyl_xcalloc(json_array_size(ks), sizeof(*s->items));
	for (size_t i = 0; !r && i < json_array_size(ks); i++, s->n++)
		r = read_entry(path, json_array_get(ks, i), i, &s->items[i], err, errlen);
	if (!r)
		r = check_unique(s, err, errlen);
	json_decref(j);
	if (r)
		sibyl_kmodel_suite_free(s);
	return r;
}

void sibyl_kmodel_suite_free(struct sibyl_kmodel_suite *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->items[i].name);
		free(s->items[i].file);
		free(s->items[i].category);
		free(s->items[i].gsize);
	}
	free(s->items);
	free(s->path);
	memset(s, 0, sizeof(*s));
}
