/* --check: digests of the arguments, and what their changes say (check.h). */
#include "ocl/driver/check.h"
#include "core/alloc.h"
#include "core/strbuf.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static uint64_t fnv1a64(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 1099511628211ull;
	}
	return h;
}

static json_t *hex(uint64_t h)
{
	char s[17];

	snprintf(s, sizeof(s), "%016" PRIx64, h);
	return json_string(s);
}

/* A buffer the kernel may write: not __constant, not const. */
static bool writable(const struct sibyl_karg *a)
{
	return a->kind == SIBYL_KARG_BUFFER && strcmp(a->space, "constant") &&
	       !(a->qualifiers && strstr(a->qualifiers, "const"));
}

json_t *sibyl_check_digests(const struct sibyl_kernel *k, const struct sibyl_args *a)
{
	json_t *d = json_array();

	for (size_t i = 0; i < k->nargs; i++)
		json_array_append_new(d, writable(&k->args[i])
			? hex(fnv1a64(14695981039346656037ull, a->a[i].data, a->a[i].size))
			: json_null());
	return d;
}

json_t *sibyl_check_input(const struct sibyl_kernel *k, const struct sibyl_args *a)
{
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < k->nargs; i++)
		if (k->args[i].kind != SIBYL_KARG_LOCAL && a->a[i].data)
			h = fnv1a64(h ^ i, a->a[i].data, a->a[i].size);
	return hex(h);
}

/* The digest of argument i in the sample's list `key`. */
static const char *digest(json_t *sample, const char *key, size_t i)
{
	json_t *c = json_object_get(sample, "check");
	const char *s = json_string_value(json_array_get(json_object_get(c, key), i));

	return s ? s : "";
}

static void add(json_t *findings, const char *kind, const char *arg, json_t *seed,
		const char *message)
{
	json_t *f = json_pack("{s:s, s:s}", "kind", kind, "message", message);

	if (arg)
		json_object_set_new(f, "arg", json_string(arg));
	if (seed)
		json_object_set(f, "seed", seed);
	json_array_append_new(findings, f);
}

/* Two runs of one seed that leave a buffer differently. */
static bool nondeterministic(const struct sibyl_kernel *k, json_t *samples, json_t *findings)
{
	bool any = false;
	char msg[512];

	for (size_t i = 0; i < k->nargs; i++) {
		json_t *s;
		size_t j;

		json_array_foreach(samples, j, s) {
			if (!writable(&k->args[i]) || !strcmp(digest(s, "after", i), digest(s, "again", i)))
				continue;
			json_t *seed = json_object_get(s, "seed");

			snprintf(msg, sizeof(msg), "nondeterministic output: buffer '%s' differs "
				 "between two runs with seed %" JSON_INTEGER_FORMAT, k->args[i].name,
				 json_integer_value(seed));
			add(findings, "nondeterministic", k->args[i].name, seed, msg);
			any = true;
			break;
		}
	}
	return any;
}

/* The writable buffers' names, quoted, for a message. */
static void names(const struct sibyl_kernel *k, const bool *which, struct sibyl_strbuf *b)
{
	const char *sep = "";

	for (size_t i = 0; i < k->nargs; i++)
		if (which[i]) {
			sibyl_strbuf_printf(b, "%s'%s'", sep, k->args[i].name);
			sep = ", ";
		}
}

static const char *input(json_t *sample)
{
	return json_string_value(json_object_get(json_object_get(sample, "check"), "input"));
}

/* The first sample after the first whose input differs from it (0: none). */
static size_t other_input(json_t *samples)
{
	const char *first = input(json_array_get(samples, 0));

	for (size_t j = 1; first && j < json_array_size(samples); j++) {
		const char *in = input(json_array_get(samples, j));

		if (in && strcmp(in, first))
			return j;
	}
	return 0;
}

/* The written buffers equal after two different inputs. */
static void independent(const struct sibyl_kernel *k, json_t *samples, const bool *written,
			json_t *findings)
{
	size_t j = other_input(samples);
	json_t *a = json_array_get(samples, 0), *b = json_array_get(samples, j);

	if (!j)
		return;	/* every input alike (-A fixed them all): nothing to compare */
	for (size_t i = 0; i < k->nargs; i++)
		if (written[i] && strcmp(digest(a, "after", i), digest(b, "after", i)))
			return;
	struct sibyl_strbuf m = { 0 };

	sibyl_strbuf_printf(&m, "output does not depend on input: ");
	names(k, written, &m);
	sibyl_strbuf_printf(&m, " equal after seeds %" JSON_INTEGER_FORMAT " and %"
			    JSON_INTEGER_FORMAT, json_integer_value(json_object_get(a, "seed")),
			    json_integer_value(json_object_get(b, "seed")));
	add(findings, "input-independent", NULL, NULL, sibyl_strbuf_str(&m));
	sibyl_strbuf_free(&m);
}

static json_int_t seed(json_t *samples, size_t i)
{
	return json_integer_value(json_object_get(json_array_get(samples, i), "seed"));
}

static bool has_images(const struct sibyl_kernel *k)
{
	for (size_t i = 0; i < k->nargs; i++)
		if (k->args[i].kind == SIBYL_KARG_IMAGE)
			return true;
	return false;
}

/* The shape as dims sizes of global and local: 1-D or n-D alike. */
static unsigned shape(const struct sibyl_run_cfg *cfg, uint64_t g[3], uint64_t l[3])
{
	unsigned dims = cfg->dims > 1 ? cfg->dims : 1;

	for (unsigned d = 0; d < 3; d++) {
		g[d] = dims > 1 ? cfg->gdim[d] : d ? 1 : cfg->gsize;
		l[d] = dims > 1 ? cfg->ldim[d] : d ? 1 : cfg->lsize;
		if (d >= dims)
			g[d] = l[d] = 1;
	}
	return dims;
}

/* Work-item r's (linear global id) group, as a linear id. */
static uint64_t group_of(uint64_t r, const uint64_t g[3], const uint64_t l[3])
{
	uint64_t x = r % g[0], y = r / g[0] % g[1], z = r / g[0] / g[1];

	return x / l[0] + g[0] / l[0] * (y / l[1] + g[1] / l[1] * (z / l[2]));
}

/* "5" in 1-D, "5,2" in 2-D: work-item r's global id. */
static void item_name(uint64_t r, const uint64_t g[3], unsigned dims, char *buf, size_t len)
{
	uint64_t id[3] = { r % g[0], r / g[0] % g[1], r / g[0] / g[1] };
	int n = 0;

	for (unsigned d = 0; d < dims && n >= 0 && (size_t)n < len; d++)
		n += snprintf(buf + n, len - (size_t)n, d ? ",%llu" : "%llu",
			      (unsigned long long)id[d]);
}

/* "barrier divergence[ at FILE:LINE]: work-items ..." */
static json_t *divergence(const struct sibyl_run_cfg *cfg, const uint64_t *counts, uint64_t a,
			  uint64_t b, size_t group, size_t diverging, size_t ngroups,
			  const struct sibyl_barrier_where *where)
{
	uint64_t g[3], l[3];
	unsigned dims = shape(cfg, g, l), line = where ? where->line(where->ctx, a, b) : 0;
	char na[64], nb[64], at[512] = "", msg[1024];

	item_name(a, g, dims, na, sizeof(na));
	item_name(b, g, dims, nb, sizeof(nb));
	if (line)
		snprintf(at, sizeof(at), " at %s:%u", cfg->file, line);
	snprintf(msg, sizeof(msg), "barrier divergence%s: work-items %s and %s of work-group %zu "
		 "reached %llu and %llu barriers (%zu of %zu groups diverge)", at, na, nb, group,
		 (unsigned long long)counts[a], (unsigned long long)counts[b], diverging, ngroups);
	json_t *f = json_pack("{s:s, s:s}", "kind", "barrier-divergence", "message", msg);

	if (line)
		json_object_set_new(f, "line", json_integer(line));
	return f;
}

/* "FILE:12 (write)", or "(write)" when the line is unknown. */
static void access_at(const struct sibyl_run_cfg *cfg, const struct sibyl_race_access *a,
		      struct sibyl_strbuf *m)
{
	if (a->line)
		sibyl_strbuf_printf(m, "%s:%u ", cfg->file, a->line);
	sibyl_strbuf_printf(m, "(%s)", a->what);
}

/* "5" in 1-D, "5,2" in 2-D, or "the group's async copy". */
static void item_of(const struct sibyl_run_cfg *cfg, uint64_t item, char *buf, size_t len)
{
	uint64_t g[3], l[3];
	unsigned dims = shape(cfg, g, l);

	if (item == SIBYL_RACE_GROUP)
		snprintf(buf, len, "the group's async copy");
	else
		item_name(item, g, dims, buf, len);
}

/* "work-items 3 and 4", "work-item 3 and the group's async copy". */
static void items_of(const struct sibyl_run_cfg *cfg, uint64_t a, uint64_t b,
		     struct sibyl_strbuf *m)
{
	char na[64], nb[64];

	item_of(cfg, a, na, sizeof(na));
	item_of(cfg, b, nb, sizeof(nb));
	if (a == SIBYL_RACE_GROUP || b == SIBYL_RACE_GROUP)
		sibyl_strbuf_printf(m, "%s%s and %s%s", a == SIBYL_RACE_GROUP ? "" : "work-item ", na,
				    b == SIBYL_RACE_GROUP ? "" : "work-item ", nb);
	else
		sibyl_strbuf_printf(m, "work-items %s and %s", na, nb);
}

/* "work-item 5 of work-group 0", "the group's async copy of work-group 1". */
static void item_in_group(const struct sibyl_run_cfg *cfg, const struct sibyl_race_access *a,
			  struct sibyl_strbuf *m)
{
	char name[64];

	item_of(cfg, a->item, name, sizeof(name));
	sibyl_strbuf_printf(m, "%s%s of work-group %llu", a->item == SIBYL_RACE_GROUP ? "" :
			    "work-item ", name, (unsigned long long)a->group);
}

/* A race on `memory` ("local", "global"), within a group or across two. */
static void race_json(const struct sibyl_run_cfg *cfg, const struct sibyl_race_finding *f,
		      const char *memory, bool across, json_t *out)
{
	struct sibyl_strbuf m = { 0 };

	sibyl_strbuf_printf(&m, "data race on __%s%s at ", memory, across ? " across work-groups" : "");
	access_at(cfg, &f->a, &m);
	sibyl_strbuf_printf(&m, " and ");
	access_at(cfg, &f->b, &m);
	sibyl_strbuf_printf(&m, ": ");
	if (across) {
		item_in_group(cfg, &f->a, &m);
		sibyl_strbuf_printf(&m, " and ");
		item_in_group(cfg, &f->b, &m);
	} else {
		items_of(cfg, f->a.item, f->b.item, &m);
		sibyl_strbuf_printf(&m, " of work-group %llu", (unsigned long long)f->group);
	}
	if (f->lines > 1)
		sibyl_strbuf_printf(&m, " (%zu pairs of lines race)", f->lines);
	json_t *j = json_pack("{s:s, s:s, s:s}", "kind", "data-race", "memory", memory, "message",
			      sibyl_strbuf_str(&m));

	if (f->a.line && f->b.line)
		json_object_set_new(j, "lines", json_pack("[i, i]", (int)f->a.line, (int)f->b.line));
	if (across)
		json_object_set_new(j, "groups", json_pack("[I, I]", (json_int_t)f->a.group,
							   (json_int_t)f->b.group));
	json_array_append_new(out, j);
	sibyl_strbuf_free(&m);
}

static void uninit_json(const struct sibyl_run_cfg *cfg, const struct sibyl_race_finding *f,
			json_t *out)
{
	struct sibyl_strbuf m = { 0 };
	char item[64];

	item_of(cfg, f->a.item, item, sizeof(item));
	sibyl_strbuf_printf(&m, "uninitialised read of __local at ");
	access_at(cfg, &f->a, &m);
	sibyl_strbuf_printf(&m, ": %s%s of work-group %llu reads what nothing wrote",
			    f->a.item == SIBYL_RACE_GROUP ? "" : "work-item ", item,
			    (unsigned long long)f->group);
	if (f->lines > 1)
		sibyl_strbuf_printf(&m, " (%zu lines do)", f->lines);
	json_t *j = json_pack("{s:s, s:s}", "kind", "uninitialised-read", "message",
			      sibyl_strbuf_str(&m));

	if (f->a.line)
		json_object_set_new(j, "line", json_integer(f->a.line));
	json_array_append_new(out, j);
	sibyl_strbuf_free(&m);
}

json_t *sibyl_check_races(const struct sibyl_run_cfg *cfg, const struct sibyl_races *r)
{
	json_t *out = json_array();

	if (r->race.found)
		race_json(cfg, &r->race, "local", false, out);
	if (r->uninit.found)
		uninit_json(cfg, &r->uninit, out);
	if (r->global.found)
		race_json(cfg, &r->global, "global", false, out);
	if (r->across.found)
		race_json(cfg, &r->across, "global", true, out);
	return out;
}

json_t *sibyl_check_barriers(const struct sibyl_run_cfg *cfg, const uint64_t *counts,
			     size_t rows, const struct sibyl_barrier_where *where)
{
	uint64_t g[3], l[3];

	shape(cfg, g, l);

	if (!l[0] || !l[1] || !l[2] || rows != g[0] * g[1] * g[2])
		return NULL;	/* groups the runtime chose: unknown */
	size_t ngroups = (size_t)(rows / (l[0] * l[1] * l[2])), diverging = 0, first = 0;
	uint64_t *leader = sibyl_xcalloc(ngroups + 1, sizeof(*leader)), bad = 0;
	bool *seen = sibyl_xcalloc(ngroups + 1, sizeof(*seen)), *div = sibyl_xcalloc(ngroups + 1, 1);

	for (uint64_t r = 0; r < rows; r++) {
		uint64_t grp = group_of(r, g, l);

		if (!seen[grp]) {
			seen[grp] = true;
			leader[grp] = r;
			continue;
		}
		if (counts[r] == counts[leader[grp]] || div[grp])
			continue;
		div[grp] = true;
		if (!diverging++) {
			first = (size_t)grp;
			bad = r;
		}
	}
	json_t *f = diverging ? divergence(cfg, counts, leader[first], bad, first, diverging,
					   ngroups, where) : NULL;

	free(leader);
	free(seen);
	free(div);
	return f;
}

json_t *sibyl_check_findings(const struct sibyl_kernel *k, json_t *samples)
{
	json_t *findings = json_array(), *s;
	bool written[k->nargs + 1], buffers[k->nargs + 1], any = false;
	size_t j;

	for (size_t i = 0; i < k->nargs; i++) {
		buffers[i] = writable(&k->args[i]);
		written[i] = false;
		json_array_foreach(samples, j, s)
			written[i] |= buffers[i] && strcmp(digest(s, "before", i), digest(s, "after", i));
		any |= written[i];
	}
	bool nondet = nondeterministic(k, samples, findings);

	/* Images are not read back: a kernel may write its output there. */
	if (has_images(k) || !json_array_size(samples))
		return findings;
	if (!any) {
		struct sibyl_strbuf m = { 0 };

		/* The seeds: a size drawn at random may have skipped every write. */
		sibyl_strbuf_printf(&m, "no output written: ");
		size_t prefix = m.len;

		names(k, buffers, &m);
		if (m.len == prefix)
			sibyl_strbuf_printf(&m, "the kernel has no writable buffer");
		else
			sibyl_strbuf_printf(&m, " as generated after seeds %" JSON_INTEGER_FORMAT
					    " to %" JSON_INTEGER_FORMAT, seed(samples, 0),
					    seed(samples, json_array_size(samples) - 1));
		add(findings, "no-output", NULL, NULL, sibyl_strbuf_str(&m));
		sibyl_strbuf_free(&m);
	} else if (!nondet) {
		independent(k, samples, written, findings);
	}
	return findings;
}
