/*
 * The instruction-count listing in Oclgrind's format: header line,
 * then "%16llu - name" sorted by count (descending) and name, then an
 * empty line, exactly as `LC_ALL=C oclgrind --inst-counts` prints it.
 */
#include "ocl/instrument/instrument_internal.h"

#include "core/alloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void push(struct sibyl_instcounts *c, const char *name, uint64_t count, uint64_t bytes)
{
	c->items = sibyl_xreallocarray(c->items, c->n + 1, sizeof(*c->items));
	c->items[c->n++] = (struct sibyl_instcount){ sibyl_xstrdup(name), count, bytes };
}

void ic_listing_from_sums(const struct ic_layout *layout, const uint64_t *sums,
			 struct sibyl_instcounts *out)
{
	*out = (struct sibyl_instcounts){ 0 };
	for (size_t i = 0; i < layout->n; i++) {
		const struct ic_slot *s = &layout->slots[i];
		char name[128];
		uint64_t bytes = 0;

		if (s->kind == IC_BYTES || !sums[i])
			continue;
		if (s->kind == IC_MEMOP) {
			bytes = sums[s->bytes_slot];
			snprintf(name, sizeof(name), "%s (%" PRIu64 " bytes)", s->name, bytes);
		}
		push(out, s->kind == IC_MEMOP ? name : s->name, sums[i], bytes);
	}
	ic_listing_sort(out);
}

static int by_count_then_name(const void *pa, const void *pb)
{
	const struct sibyl_instcount *a = pa, *b = pb;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return strcmp(a->name, b->name);
}

void ic_listing_sort(struct sibyl_instcounts *counts)
{
	if (counts->n)
		qsort(counts->items, counts->n, sizeof(*counts->items), by_count_then_name);
}

static void print_listing(FILE *out, const char *title, const char *kernel,
			  const struct sibyl_instcounts *c)
{
	fprintf(out, "%s for kernel '%s':\n", title, kernel);
	for (size_t i = 0; i < c->n; i++)
		fprintf(out, "%16" PRIu64 " - %s\n", c->items[i].count, c->items[i].name);
	fputc('\n', out);
}

void sibyl_instcounts_print(FILE *out, const char *kernel, const struct sibyl_instcounts *c)
{
	print_listing(out, "Instructions executed", kernel, c);
}

void sibyl_instcounts_print_static(FILE *out, const char *kernel,
				   const struct sibyl_instcounts *c)
{
	print_listing(out, "Static instruction counts", kernel, c);
}

/* The thesis' name for an item: "load global (8 bytes)" -> "load
 * global", "call f()" -> "call"; NULL when the name stays. */
static char *coarse_name(const char *name)
{
	if (!strncmp(name, "call ", 5))
		return sibyl_xstrdup("call");
	const char *paren = strstr(name, " (");
	if ((!strncmp(name, "load ", 5) || !strncmp(name, "store ", 6)) && paren &&
	    strstr(paren, " bytes)"))
		return sibyl_xstrndup(name, (size_t)(paren - name));
	return NULL;
}

void sibyl_instcounts_coarsen(struct sibyl_instcounts *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++) {
		char *coarse = coarse_name(c->items[i].name);
		if (coarse) {
			free(c->items[i].name);
			c->items[i].name = coarse;
		}
		size_t j = 0;
		while (j < n && strcmp(c->items[j].name, c->items[i].name))
			j++;
		if (j < n) {
			c->items[j].count += c->items[i].count;
			c->items[j].bytes += c->items[i].bytes;
			free(c->items[i].name);
		} else {
			c->items[n++] = c->items[i];
		}
	}
	c->n = n;
	ic_listing_sort(c);
}

void sibyl_instcounts_free(struct sibyl_instcounts *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->items[i].name);
	free(c->items);
	*c = (struct sibyl_instcounts){ 0 };
}
