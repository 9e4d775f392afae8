/* A dataset as matrices. */
#include "kmodel/table.h"
#include "core/alloc.h"
#include "core/log.h"

#include <stdlib.h>
#include <string.h>

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The union of the instruction names of every sample and static line. */
static void collect_names(const struct sibyl_kmodel_data *d, struct sibyl_kmodel_table *t)
{
	json_t *seen = json_object(), *s, *kl, *rec;
	const char *name, *kname;
	size_t i, j;

	json_array_foreach(d->samples, i, s)
		json_array_foreach(json_object_get(s, "counts"), j, rec)
			if ((name = json_string_value(json_object_get(rec, "name"))))
				json_object_set(seen, name, json_true());
	json_object_foreach(d->kernels, kname, kl)
		json_array_foreach(json_object_get(kl, "static"), j, rec)
			if ((name = json_string_value(json_object_get(rec, "name"))))
				json_object_set(seen, name, json_true());
	t->names = sibyl_xcalloc(json_object_size(seen) + 1, sizeof(*t->names));
	json_object_foreach(seen, name, s)
		t->names[t->nf++] = sibyl_xstrdup(name);
	qsort(t->names, t->nf, sizeof(*t->names), by_name);
	json_decref(seen);
}

static void fill_counts(json_t *counts, const struct sibyl_kmodel_table *t, double *row)
{
	json_t *rec;
	size_t i;

	json_array_foreach(counts, i, rec) {
		const char *name = json_string_value(json_object_get(rec, "name"));
		const char **at = name ? bsearch(&name, t->names, t->nf, sizeof(*t->names),
						 by_name) : NULL;

		if (at)
			row[at - t->names] += (double)json_integer_value(json_object_get(rec, "count"));
	}
}

static struct sibyl_kmodel_kernel *kernel_of(struct sibyl_kmodel_table *t, const char *name,
					     size_t cap)
{
	for (size_t i = 0; i < t->nk; i++)
		if (!strcmp(t->k[i].name, name))
			return &t->k[i];
	struct sibyl_kmodel_kernel *k = &t->k[t->nk++];

	k->name = name;
	k->rows = sibyl_xcalloc(cap, sizeof(*k->rows));
	k->stat = sibyl_xcalloc(t->nf + 1, sizeof(*k->stat));
	return k;
}

const char *sibyl_kmodel_clock_name(enum sibyl_kmodel_clock c)
{
	return c == SIBYL_CLOCK_CPU ? "cpu" : "device";
}

int sibyl_kmodel_clock_of(const char *name, enum sibyl_kmodel_clock *c)
{
	if (name && !strcmp(name, "device"))
		return *c = SIBYL_CLOCK_DEVICE, 0;
	if (name && !strcmp(name, "cpu"))
		return *c = SIBYL_CLOCK_CPU, 0;
	return -1;
}

int sibyl_kmodel_table_build(const struct sibyl_kmodel_data *d, enum sibyl_kmodel_clock clock,
			     struct sibyl_kmodel_table *t, char *err, size_t errlen)
{
	size_t n = json_array_size(d->samples), i;
	const char *field = clock == SIBYL_CLOCK_CPU ? "cpu_ns" : "device_ns";
	json_t *s;

	memset(t, 0, sizeof(*t));
	if (!n)
		return sibyl_seterr(err, errlen, "kmodel: the dataset has no samples");
	collect_names(d, t);
	t->g = sibyl_xcalloc(n, sizeof(*t->g));
	t->t = sibyl_xcalloc(n, sizeof(*t->t));
	t->C = sibyl_xcalloc(n * t->nf + 1, sizeof(*t->C));
	t->k = sibyl_xcalloc(n, sizeof(*t->k));
	json_array_foreach(d->samples, i, s) {
		const char *name = json_string_value(json_object_get(s, "kernel"));
		struct sibyl_kmodel_kernel *k = kernel_of(t, name, n);
		json_t *kl = json_object_get(d->kernels, name);

		t->g[i] = (double)json_integer_value(json_object_get(s, "gsize"));
		json_t *ns = json_object_get(s, field);

		/* A dataset of before cpu_ns was recorded has no CPU time. */
		if (!json_is_number(ns)) {
			sibyl_kmodel_table_free(t);
			return sibyl_seterr(err, errlen, "kmodel: a sample of %s (global size %lld) "
					    "has no %s: measure the dataset again for the %s clock",
					    name ? name : "?", (long long)json_integer_value(
						    json_object_get(s, "gsize")), field,
					    sibyl_kmodel_clock_name(clock));
		}
		t->t[i] = json_number_value(ns) * 1e-9;
		fill_counts(json_object_get(s, "counts"), t, t->C + i * t->nf);
		if (!k->n && kl)
			fill_counts(json_object_get(kl, "static"), t, k->stat);
		k->rows[k->n++] = i;
	}
	t->ns = n;
	t->clock = clock;
	return 0;
}

void sibyl_kmodel_table_free(struct sibyl_kmodel_table *t)
{
	for (size_t i = 0; i < t->nk; i++) {
		free(t->k[i].rows);
		free(t->k[i].stat);
	}
	for (size_t j = 0; j < t->nf; j++)
		free((char *)t->names[j]);
	free(t->names);
	free(t->g), free(t->t), free(t->C), free(t->k);
	memset(t, 0, sizeof(*t));
}
