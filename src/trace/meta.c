/*
 * meta.json (docs/trace-meta.md).  Optional fields may be absent (a
 * command still running, a killed tracer); a present field with the wrong
 * type is an error, because guessing would give wrong times silently.
 */
#define _GNU_SOURCE
#include "trace/internal.h"
#include "core/log.h"

#include "core/alloc.h"
#include "core/strbuf.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 1: found and valid, 0: absent, -1: wrong type (message set). */
static int get_u64(json_t *obj, const char *key, uint64_t *out, char *err, size_t errlen)
{
	json_t *v = json_object_get(obj, key);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return sibyl_seterr(err, errlen, "field '%s' must be a non-negative integer",
				    key);
	*out = (uint64_t)json_integer_value(v);
	return 1;
}

static int get_str(json_t *obj, const char *key, char **out, char *err, size_t errlen)
{
	json_t *v = json_object_get(obj, key);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return sibyl_seterr(err, errlen, "field '%s' must be a string", key);
	free(*out);
	*out = sibyl_xstrdup(json_string_value(v));
	return 1;
}

static int parse_version(json_t *root, struct trace_meta_doc *doc, char *err, size_t errlen)
{
	json_t *fmt = json_object_get(root, "format");
	uint64_t version = 0, min_version;

	if (!json_is_string(fmt) || strcmp(json_string_value(fmt), "sibyl-trace"))
		return sibyl_seterr(err, errlen, "\"format\" is not \"sibyl-trace\"");
	if (get_u64(root, "version", &version, err, errlen) < 0)
		return -1;
	if (version == 0)
		return sibyl_seterr(err, errlen, "missing or zero \"version\"");
	min_version = version;
	if (get_u64(root, "min_version", &min_version, err, errlen) < 0)
		return -1;
	if (min_version > SIBYL_TRACE_READER_VERSION)
		return sibyl_seterr(err, errlen,
				    "unsupported format version %llu (needs a reader >= %llu, "
				    "this sibyl reads version %u)",
				    (unsigned long long)version, (unsigned long long)min_version,
				    SIBYL_TRACE_READER_VERSION);
	doc->meta.version = (int)(version > 1000000 ? 1000000 : version);
	return 0;
}

/* A list of strings: NULL-terminated owned copies in *out, *n of them. */
static int parse_strings(json_t *root, const char *key, char ***out, size_t *n, char *err,
			 size_t errlen)
{
	json_t *list = json_object_get(root, key);

	if (!list || json_is_null(list))
		return 0;
	if (!json_is_array(list))
		return sibyl_seterr(err, errlen, "field '%s' must be a list of strings", key);
	*out = sibyl_xcalloc(json_array_size(list) + 1, sizeof(char *));
	for (size_t i = 0; i < json_array_size(list); i++) {
		json_t *a = json_array_get(list, i);

		if (!json_is_string(a))
			return sibyl_seterr(err, errlen, "field '%s' must be a list of strings",
					    key);
		(*out)[i] = sibyl_xstrdup(json_string_value(a));
		*n = i + 1;
	}
	return 0;
}

static int parse_command(json_t *root, struct trace_meta_doc *doc, char *err, size_t errlen)
{
	struct sibyl_strbuf b = { 0 };

	if (parse_strings(root, "command", &doc->argv, &doc->meta.argc, err, errlen) < 0 ||
	    parse_strings(root, "wrappers", &doc->wrappers, &doc->meta.nwrappers, err, errlen) < 0 ||
	    parse_strings(root, "environment", &doc->environ, &doc->meta.nenviron, err,
			  errlen) < 0)
		return -1;
	for (size_t i = 0; i < doc->meta.argc; i++)
		sibyl_strbuf_printf(&b, "%s%s", i ? " " : "", doc->argv[i]);
	free(doc->command);
	doc->command = sibyl_strbuf_take(&b);
	return 0;
}

static int parse_clock(json_t *root, struct trace_meta_doc *doc, char *err, size_t errlen)
{
	json_t *clk = json_object_get(root, "clock");
	struct sibyl_trace_clock *c = &doc->meta.clock;
	json_t *rate;

	if (!clk || json_is_null(clk))
		return 0;
	if (!json_is_object(clk))
		return sibyl_seterr(err, errlen, "field 'clock' must be an object");
	if (get_u64(clk, "ref_tsc", &c->ref_tsc, err, errlen) != 1 ||
	    get_u64(clk, "ref_ns", &c->ref_ns, err, errlen) != 1)
		return sibyl_seterr(err, errlen, "clock: 'ref_tsc' and 'ref_ns' must be "
				    "non-negative integers");
	rate = json_object_get(clk, "tsc_per_ns");
	if (!json_is_number(rate) || !(json_number_value(rate) > 0) ||
	    json_number_value(rate) > 1e6)
		return sibyl_seterr(err, errlen, "clock: 'tsc_per_ns' must be a positive number");
	c->tsc_per_ns = json_number_value(rate);
	c->invariant = json_is_true(json_object_get(clk, "invariant"));
	c->source = SIBYL_CLOCK_META;
	doc->has_clock = true;
	return 0;
}

static int parse_exit(json_t *root, struct trace_meta_doc *doc, char *err, size_t errlen)
{
	json_t *ex = json_object_get(root, "exit");
	uint64_t v = 0;
	int r;

	if (!ex || json_is_null(ex))
		return 0;
	if (!json_is_object(ex))
		return sibyl_seterr(err, errlen, "field 'exit' must be an object");
	if ((r = get_u64(ex, "status", &v, err, errlen)) < 0)
		return -1;
	if (r == 1) {
		doc->meta.exit_kind = SIBYL_EXIT_STATUS;
		doc->meta.exit_code = (int)(v & 0xff);
		return 0;
	}
	if ((r = get_u64(ex, "signal", &v, err, errlen)) < 0)
		return -1;
	if (r == 1) {
		doc->meta.exit_kind = SIBYL_EXIT_SIGNAL;
		doc->meta.exit_code = (int)(v & 0xff);
		return 0;
	}
	return sibyl_seterr(err, errlen, "field 'exit' has neither 'status' nor 'signal'");
}

/* Version 2 writes "complete" only after `sibyl trace` drained the trace
 * and lost nothing; version 1 had no such field: a finished run counts. */
static int parse_complete(json_t *root, struct trace_meta_doc *doc, char *err, size_t errlen)
{
	json_t *v = json_object_get(root, "complete");
	struct sibyl_trace_meta *m = &doc->meta;

	m->finished = m->exit_kind != SIBYL_EXIT_UNKNOWN;
	if (!v || json_is_null(v)) {
		m->complete = m->version < 2 && m->finished;
		return 0;
	}
	if (!json_is_boolean(v))
		return sibyl_seterr(err, errlen, "field 'complete' must be true or false");
	m->complete = json_is_true(v) && m->finished;
	return 0;
}

/* Optional costs: traces that do not record one leave it unknown (NAN). */
static int get_cost(json_t *obj, const char *key, const char *name, double *out, char *err,
		    size_t errlen)
{
	json_t *v = json_object_get(obj, key);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_number(v) || !(json_number_value(v) >= 0) || !isfinite(json_number_value(v)))
		return sibyl_seterr(err, errlen, "field '%s' must be a number >= 0", name);
	*out = json_number_value(v);
	return 0;
}

/* Why the start-up probe failed, when it did (interposition.startup_error). */
static int startup_error(json_t *i, struct sibyl_trace_meta *m, char *err, size_t errlen)
{
	json_t *why = json_object_get(i, "startup_error");

	if (!why)
		return 0;
	if (!json_is_string(why))
		return sibyl_seterr(err, errlen, "field 'interposition.startup_error' must be a "
				    "string");
	snprintf(m->startup_why, sizeof(m->startup_why), "%s", json_string_value(why));
	return 0;
}

static int parse_costs(json_t *root, struct sibyl_trace_meta *m, char *err, size_t errlen)
{
	json_t *i = json_object_get(root, "interposition");

	return get_cost(i, "per_call_ns", "interposition.per_call_ns", &m->interposition_ns,
			err, errlen) ||
	       get_cost(i, "counters_per_call_ns", "interposition.counters_per_call_ns",
			&m->counters_ns, err, errlen) ||
	       get_cost(i, "startup_ns", "interposition.startup_ns", &m->startup_ns, err,
			errlen) ||
	       get_cost(root, "page_fault_ns", "page_fault_ns", &m->page_fault_ns, err, errlen) ?
	       -1 : startup_error(i, m, err, errlen);
}

static int parse_fields(json_t *root, struct trace_meta_doc *doc, char *err, size_t errlen)
{
	struct sibyl_trace_meta *m = &doc->meta;
	json_t *host = json_object_get(root, "host");
	uint64_t pid = 0;
	int wall;

	if (parse_version(root, doc, err, errlen) || parse_command(root, doc, err, errlen) ||
	    parse_clock(root, doc, err, errlen) || parse_exit(root, doc, err, errlen) ||
	    parse_complete(root, doc, err, errlen))
		return -1;
	if (get_str(root, "cwd", &doc->cwd, err, errlen) < 0 ||
	    (json_is_object(host) && get_str(host, "hostname", &doc->hostname, err, errlen) < 0) ||
	    get_u64(root, "root_pid", &pid, err, errlen) < 0 ||
	    get_u64(root, "start_ns", &m->start_ns, err, errlen) < 0 ||
	    get_u64(root, "end_ns", &m->end_ns, err, errlen) < 0 ||
	    (wall = get_u64(root, "wall_ns", &m->wall_ns, err, errlen)) < 0)
		return -1;
	m->root_pid = (uint32_t)pid;
	doc->has_wall = wall == 1;
	return parse_costs(root, m, err, errlen);
}

/* Point the public view at the owned strings ("" when absent). */
static void publish(struct trace_meta_doc *doc)
{
	if (!doc->argv)
		doc->argv = sibyl_xcalloc(1, sizeof(char *));
	if (!doc->wrappers)
		doc->wrappers = sibyl_xcalloc(1, sizeof(char *));
	if (!doc->command)
		doc->command = sibyl_xstrdup("");
	if (!doc->cwd)
		doc->cwd = sibyl_xstrdup("");
	if (!doc->hostname)
		doc->hostname = sibyl_xstrdup("");
	doc->meta.argv = (const char *const *)doc->argv;
	doc->meta.wrappers = (const char *const *)doc->wrappers;
	doc->meta.environ = (const char *const *)doc->environ;
	doc->meta.command = doc->command;
	doc->meta.cwd = doc->cwd;
	doc->meta.hostname = doc->hostname;
}

void meta_default(struct trace_meta_doc *doc)
{
	memset(doc, 0, sizeof(*doc));
	doc->meta.interposition_ns = doc->meta.counters_ns = doc->meta.page_fault_ns =
		doc->meta.startup_ns = NAN;
	publish(doc);
}

int meta_parse(const char *text, size_t len, struct trace_meta_doc *doc, char *err,
	       size_t errlen)
{
	json_error_t jerr;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	int ret;

	memset(doc, 0, sizeof(*doc));
	doc->meta.interposition_ns = doc->meta.counters_ns = doc->meta.page_fault_ns =
		doc->meta.startup_ns = NAN;
	if (!root) {
		publish(doc);
		return sibyl_seterr(err, errlen, "malformed JSON at line %d: %s", jerr.line,
				    jerr.text);
	}
	ret = json_is_object(root) ? parse_fields(root, doc, err, errlen)
				   : sibyl_seterr(err, errlen, "top level is not an object");
	json_decref(root);
	doc->meta.present = true;
	publish(doc);
	return ret;
}

static void free_strings(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void meta_free(struct trace_meta_doc *doc)
{
	free_strings(doc->argv);
	free_strings(doc->wrappers);
	free_strings(doc->environ);
	free(doc->command);
	free(doc->cwd);
	free(doc->hostname);
	memset(doc, 0, sizeof(*doc));
}
