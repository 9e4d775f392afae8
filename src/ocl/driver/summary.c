/* Statistics over samples (GSL) and averaged instruction counts. */
#define _GNU_SOURCE
#include "ocl/driver/summary.h"
#include "core/alloc.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <stdlib.h>
#include <string.h>

static const char *const time_fields[] = {
	"host_ns", "device_ns", "queue_ns", "submit_ns", "transfer_ns",
};
#define NFIELDS (sizeof(time_fields) / sizeof(time_fields[0]))

static json_t *stats(json_t *samples, const char *field)
{
	size_t n = json_array_size(samples), i;
	double *v = sibyl_xcalloc(n + 1, sizeof(*v));
	json_t *s;

	for (i = 0; i < n; i++)
		v[i] = json_number_value(json_object_get(json_array_get(samples, i), field));
	gsl_sort(v, 1, n);
	s = json_pack("{s:f, s:f, s:f}", "mean", n ? gsl_stats_mean(v, 1, n) : 0.0,
		      "median", n ? gsl_stats_median_from_sorted_data(v, 1, n) : 0.0,
		      "stdev", n > 1 ? gsl_stats_sd(v, 1, n) : 0.0);
	free(v);
	return s;
}

json_t *sibyl_times_summary(json_t *samples)
{
	json_t *s = json_object();

	for (size_t i = 0; i < NFIELDS; i++)
		json_object_set_new(s, time_fields[i], stats(samples, time_fields[i]));
	return s;
}

void sibyl_times_print(FILE *out, const char *kernel, size_t n, json_t *summary)
{
	static const char *labels[NFIELDS] = { "host", "device", "queue", "submit", "transfer" };

	fprintf(out, "Time per sample for kernel '%s' (%zu sample%s, milliseconds):\n", kernel, n,
		n == 1 ? "" : "s");
	fprintf(out, "  %-10s %14s %14s %14s\n", "", "mean", "median", "stdev");
	for (size_t i = 0; i < NFIELDS; i++) {
		json_t *s = json_object_get(summary, time_fields[i]);

		fprintf(out, "  %-10s %14.6f %14.6f %14.6f\n", labels[i],
			json_number_value(json_object_get(s, "mean")) / 1e6,
			json_number_value(json_object_get(s, "median")) / 1e6,
			json_number_value(json_object_get(s, "stdev")) / 1e6);
	}
}

/* "load global (768 bytes)" -> "load global": samples moving different
 * bytes are the same line of the mean. */
static char *base_name(const char *name)
{
	const char *p = strstr(name, " (");

	return p && strstr(p, " bytes)") ? sibyl_xstrndup(name, (size_t)(p - name)) : sibyl_xstrdup(name);
}

static struct sibyl_instcount *find_or_add(struct sibyl_instcounts *c, char *base)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->items[i].name, base)) {
			free(base);
			return &c->items[i];
		}
	c->items = sibyl_xreallocarray(c->items, c->n + 1, sizeof(*c->items));
	c->items[c->n] = (struct sibyl_instcount){ base, 0, 0 };
	return &c->items[c->n++];
}

static int by_count_then_name(const void *pa, const void *pb)
{
	const struct sibyl_instcount *a = pa, *b = pb;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return strcmp(a->name, b->name);
}

void sibyl_instcounts_mean(json_t *samples, struct sibyl_instcounts *out)
{
	size_t n = json_array_size(samples), i, j;
	json_t *list, *e;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++) {
		list = json_object_get(json_array_get(samples, i), "instcounts");
		json_array_foreach(list, j, e) {
			struct sibyl_instcount *c = find_or_add(out,
				base_name(json_string_value(json_array_get(e, 0))));

			c->count += (uint64_t)json_integer_value(json_array_get(e, 1));
			c->bytes += (uint64_t)json_integer_value(json_array_get(e, 2));
		}
	}
	for (i = 0; i < out->n; i++) {
		struct sibyl_instcount *c = &out->items[i];
		char *name;

		if (n > 1) {
			c->count = (c->count + n / 2) / n;
			c->bytes = (c->bytes + n / 2) / n;
		}
		if (!c->bytes)
			continue;
		/* Oclgrind's name carries the bytes moved. */
		name = sibyl_xasprintf("%s (%llu bytes)", c->name, (unsigned long long)c->bytes);
		free(c->name);
		c->name = name;
	}
	if (out->n)
		qsort(out->items, out->n, sizeof(*out->items), by_count_then_name);
}

/* The " (N bytes)" that ends a load's or store's name, or NULL. */
static const char *bytes_suffix(const char *name)
{
	const char *p = strrchr(name, '(');
	size_t digits = p ? strspn(p + 1, "0123456789") : 0;

	if (!p || p == name || p[-1] != ' ' || !digits || strcmp(p + 1 + digits, " bytes)"))
		return NULL;
	return p - 1;
}

/*
 * One listing item as a record, so that no data ends up in a key: the
 * name's parts (counts.c makes them: "load SPACE (N bytes)", "store
 * SPACE", "call F()", "call", or the opcode) become fields.
 */
static json_t *instcount_record(const struct sibyl_instcount *c)
{
	const char *name = c->name, *rest;
	size_t op_len = strcspn(name, " ");
	bool memop = (op_len == 4 && !strncmp(name, "load", 4)) ||
		     (op_len == 5 && !strncmp(name, "store", 5));
	json_t *r = json_object();

	json_object_set_new(r, "op", json_stringn(name, op_len));
	rest = name[op_len] ? name + op_len + 1 : NULL;
	if (memop && rest) {
		const char *suffix = bytes_suffix(rest);

		json_object_set_new(r, "space",
				    json_stringn(rest, suffix ? (size_t)(suffix - rest) : strlen(rest)));
	} else if (rest && op_len == 4 && !strncmp(name, "call", 4)) {
		size_t len = strlen(rest);

		if (len > 2 && !strcmp(rest + len - 2, "()"))
			len -= 2;
		json_object_set_new(r, "callee", json_stringn(rest, len));
	}
	json_object_set_new(r, "count", json_integer((json_int_t)c->count));
	if (memop)
		json_object_set_new(r, "bytes", json_integer((json_int_t)c->bytes));
	return r;
}

json_t *sibyl_instcounts_json(const struct sibyl_instcounts *c)
{
	json_t *a = json_array();

	for (size_t i = 0; i < c->n; i++)
		json_array_append_new(a, instcount_record(&c->items[i]));
	return a;
}

json_t *sibyl_sample_json(json_t *msg, bool coarse)
{
	json_t *s = json_deep_copy(msg), *one = json_array();
	struct sibyl_instcounts c;

	json_object_del(s, "event");
	if (json_object_get(s, "instcounts")) {
		json_array_append(one, msg);
		sibyl_instcounts_mean(one, &c);
		if (coarse)
			sibyl_instcounts_coarsen(&c);
		json_object_set_new(s, "instcounts", sibyl_instcounts_json(&c));
		sibyl_instcounts_free(&c);
	}
	json_decref(one);
	return s;
}
