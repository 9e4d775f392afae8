/*
 * functions.tsv: "<id hex>\t<library>\t<function>\n" lines appended by
 * every wrapper library as it loads, so the same line may repeat (one
 * per process).  The table stays sorted by id for lookups.
 * work_metrics.tsv: "<id hex>\t<work metric>\n", what `work` counts for
 * the functions a definition file declared it for.
 */
#define _GNU_SOURCE
#include "trace/internal.h"
#include "core/alloc.h"
#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Index of id, or of where it would be inserted. */
static size_t lower_bound(const struct function_table *ft, uint32_t id)
{
	size_t lo = 0, hi = ft->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ft->items[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct sibyl_trace_function *functions_find(const struct function_table *ft,
						  uint32_t id)
{
	size_t i = lower_bound(ft, id);

	return i < ft->count && ft->items[i].id == id ? &ft->items[i] : NULL;
}

static void insert_at(struct function_table *ft, size_t i, uint32_t id, char *lib, char *name)
{
	if (ft->count == ft->cap) {
		ft->cap = ft->cap ? ft->cap * 2 : 64;
		ft->items = sibyl_xreallocarray(ft->items, ft->cap, sizeof(*ft->items));
	}
	memmove(&ft->items[i + 1], &ft->items[i], (ft->count - i) * sizeof(*ft->items));
	ft->items[i] = (struct sibyl_trace_function){ .id = id, .library = lib, .name = name };
	ft->count++;
}

void functions_add_unknown(struct function_table *ft, uint32_t id)
{
	char *name;

	if (functions_find(ft, id))
		return;
	name = sibyl_xasprintf("0x%08x", id);
	insert_at(ft, lower_bound(ft, id), id, sibyl_xstrdup("?"), name);
}

static int parse_id(const char *s, size_t n, uint32_t *id)
{
	uint32_t v = 0;

	if (n == 0 || n > 8)
		return -1;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9' ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

		if (d < 0)
			return -1;
		v = v << 4 | (uint32_t)d;
	}
	*id = v;
	return v ? 0 : -1;
}

/* One line without its newline; fields must be non-empty, exactly three. */
static int parse_line(struct function_table *ft, const char *s, size_t n, size_t lineno,
		      char *err, size_t errlen)
{
	const char *tab1 = memchr(s, '\t', n), *tab2, *end = s + n;
	uint32_t id;

	if (memchr(s, '\0', n))
		return sibyl_seterr(err, errlen, "line %zu: NUL byte", lineno);
	tab2 = tab1 ? memchr(tab1 + 1, '\t', (size_t)(end - tab1 - 1)) : NULL;
	if (!tab2 || memchr(tab2 + 1, '\t', (size_t)(end - tab2 - 1)) || tab2 == tab1 + 1 ||
	    tab2 + 1 == end)
		return sibyl_seterr(err, errlen,
				    "line %zu: expected '<id hex>\\t<library>\\t<function>'",
				    lineno);
	if (parse_id(s, (size_t)(tab1 - s), &id))
		return sibyl_seterr(err, errlen, "line %zu: bad function id '%.*s'", lineno,
				    (int)(tab1 - s > 16 ? 16 : tab1 - s), s);
	char *lib = sibyl_xstrndup(tab1 + 1, (size_t)(tab2 - tab1 - 1));
	char *name = sibyl_xstrndup(tab2 + 1, (size_t)(end - tab2 - 1));
	size_t at = lower_bound(ft, id);

	if (at < ft->count && ft->items[at].id == id) {
		const struct sibyl_trace_function *f = &ft->items[at];
		int same = !strcmp(f->library, lib) && !strcmp(f->name, name);

		if (!same)
			sibyl_seterr(err, errlen,
				     "line %zu: function id 0x%08x names both %s:%s and %s:%s",
				     lineno, id, f->library, f->name, lib, name);
		free(lib);
		free(name);
		return same ? 0 : -1;
	}
	insert_at(ft, at, id, lib, name);
	return 0;
}

/* "<id>\t<metric>": the metric goes to a function already named; a
 * function declared with two metrics has none (work_metric_conflict). */
static int parse_metric_line(struct function_table *ft, const char *s, size_t n, size_t lineno,
			     char *err, size_t errlen)
{
	const char *tab = memchr(s, '\t', n), *end = s + n;
	uint32_t id;

	if (memchr(s, '\0', n))
		return sibyl_seterr(err, errlen, "line %zu: NUL byte", lineno);
	if (!tab || tab + 1 == end || memchr(tab + 1, '\t', (size_t)(end - tab - 1)))
		return sibyl_seterr(err, errlen, "line %zu: expected '<id hex>\\t<work metric>'",
				    lineno);
	if (parse_id(s, (size_t)(tab - s), &id))
		return sibyl_seterr(err, errlen, "line %zu: bad function id '%.*s'", lineno,
				    (int)(tab - s > 16 ? 16 : tab - s), s);
	size_t at = lower_bound(ft, id);

	if (at == ft->count || ft->items[at].id != id)
		return 0;	/* a function no wrapper named: nothing to describe */
	struct sibyl_trace_function *f = &ft->items[at];
	size_t len = (size_t)(end - tab - 1);

	if (f->work_metric_conflict)
		return 0;
	if (!f->work_metric) {
		f->work_metric = sibyl_xstrndup(tab + 1, len);
	} else if (strlen(f->work_metric) != len || memcmp(f->work_metric, tab + 1, len)) {
		free((char *)f->work_metric);
		f->work_metric = NULL;
		f->work_metric_conflict = true;
	}
	return 0;
}

/* Calls `line` for each non-empty line of text, without its newline. */
static int parse_lines(struct function_table *ft, const char *text, size_t len, char *err,
		       size_t errlen,
		       int (*line)(struct function_table *, const char *, size_t, size_t, char *, size_t))
{
	size_t lineno = 0;

	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t raw = nl ? (size_t)(nl - p) : (size_t)(end - p), n = raw;

		lineno++;
		if (n && p[n - 1] == '\r')
			n--;
		if (n && line(ft, p, n, lineno, err, errlen))
			return -1;
		p += raw + (nl != NULL);
	}
	return 0;
}

int functions_parse(struct function_table *ft, const char *text, size_t len, char *err,
		    size_t errlen)
{
	return parse_lines(ft, text, len, err, errlen, parse_line);
}

int functions_parse_metrics(struct function_table *ft, const char *text, size_t len, char *err,
			    size_t errlen)
{
	return parse_lines(ft, text, len, err, errlen, parse_metric_line);
}

void functions_free(struct function_table *ft)
{
	for (size_t i = 0; i < ft->count; i++) {
		free((char *)ft->items[i].library);
		free((char *)ft->items[i].name);
		free((char *)ft->items[i].work_metric);
	}
	free(ft->items);
	memset(ft, 0, sizeof(*ft));
}
