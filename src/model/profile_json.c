/* Performance profile files: JSON, versioned (docs/profile-format.md). */
#include "model/profile.h"
#include "core/alloc.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/output.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *points_json(const struct sibyl_point *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_pack("[ff]", v[i].x, v[i].y));
	return a;
}

static json_t *segments_json(const struct sibyl_profile *p)
{
	json_t *a = json_array();

	for (size_t i = 0; i < p->nsegments; i++) {
		const struct sibyl_segment *s = &p->segments[i];

		json_array_append_new(a, json_pack("{sfsfsfsfsIsI}", "from", s->from, "to", s->to,
						   "intercept", s->a, "slope", s->b,
						   "samples", (json_int_t)s->samples,
						   "out_of_range", (json_int_t)s->out_of_range));
	}
	return a;
}

json_t *sibyl_profile_to_json(const struct sibyl_profile *p)
{
	json_t *j = json_pack("{sssisisssss[ff]sb}", "format", SIBYL_PROFILE_FORMAT,
			      "version", SIBYL_PROFILE_VERSION, "min_version", 1,
			      "name", p->name ? p->name : "",
			      "work_metric", p->work_metric ? p->work_metric : "",
			      "range", p->lo, p->hi, "complete", p->complete);

	json_object_set_new(j, "points", points_json(p->points, p->npoints));
	if (p->nsegments)
		json_object_set_new(j, "segments", segments_json(p));
	if (p->npieces) {
		json_t *a = json_array();

		for (size_t i = 0; i < p->npieces; i++)
			json_array_append_new(a, json_pack("{sfsfss}", "from", p->pieces[i].from,
							   "to", p->pieces[i].to, "implementation",
							   p->pieces[i].name));
		json_object_set_new(j, "pieces", a);
	}
	if (p->nsamples)
		json_object_set_new(j, "samples", points_json(p->samples, p->nsamples));
	if (p->provenance)
		json_object_set(j, "provenance", p->provenance);
	if (p->stats)
		json_object_set(j, "stats", p->stats);
	if (p->coverage)
		json_object_set(j, "coverage", p->coverage);
	return j;
}

int sibyl_profile_save(const struct sibyl_profile *p, const char *path, bool force,
		       char *err, size_t errlen)
{
	if (sibyl_refuse_overwrite(path, force, err, errlen))
		return -1;
	json_t *j = sibyl_profile_to_json(p);
	char *text = json_dumps(j, JSON_INDENT(1) | JSON_REAL_PRECISION(10));

	json_decref(j);
	if (!text) {
		sibyl_seterr(err, errlen, "%s: out of memory", path);
		return -1;
	}
	int r = sibyl_output_write(path, text, strlen(text), 0666);
	int e = errno;

	free(text);
	if (r) {
		sibyl_seterr(err, errlen, "%s: %s", path, strerror(e));
		return -1;
	}
	return 0;
}

/* [x, y] with finite numbers. */
static int read_point(json_t *v, void *item)
{
	struct sibyl_point *pt = item;
	json_t *x = json_array_get(v, 0), *y = json_array_get(v, 1);

	if (!json_is_array(v) || json_array_size(v) != 2 || !json_is_number(x) ||
	    !json_is_number(y))
		return -1;
	pt->x = json_number_value(x);
	pt->y = json_number_value(y);
	return isfinite(pt->x) && isfinite(pt->y) ? 0 : -1;
}

static int read_segment(json_t *v, void *item)
{
	struct sibyl_segment *s = item;
	json_int_t n = 0, oor = 0;

	if (json_unpack(v, "{sFsFsFsF s?I s?I}", "from", &s->from, "to", &s->to, "intercept",
			&s->a, "slope", &s->b, "samples", &n, "out_of_range", &oor))
		return -1;
	s->samples = (unsigned)n;
	s->out_of_range = (unsigned)oor;
	return 0;
}

static int read_piece(json_t *v, void *item)
{
	struct sibyl_piece *q = item;
	const char *name;

	if (json_unpack(v, "{sFsFss}", "from", &q->from, "to", &q->to, "implementation", &name))
		return -1;
	q->name = sibyl_xstrdup(name);
	return 0;
}

/* An optional array of items, each read by `one` into items of `size`
 * bytes; `what_each` says what an item must be, for the error message. */
static int read_array(json_t *a, const char *what, const char *what_each, size_t size,
		      int (*one)(json_t *v, void *item), void **items, size_t *n,
		      char *err, size_t errlen)
{
	size_t i;
	json_t *v;

	if (!a)
		return 0;
	if (!json_is_array(a))
		return sibyl_seterr(err, errlen, "\"%s\" is not an array", what);
	*items = calloc(json_array_size(a) + 1, size);
	if (!*items)
		return sibyl_seterr(err, errlen, "\"%s\": out of memory", what);
	json_array_foreach(a, i, v) {
		if (one(v, (char *)*items + i * size))
			return sibyl_seterr(err, errlen, "\"%s\"[%zu] is not %s", what, i, what_each);
		*n = i + 1;
	}
	return 0;
}

/* Profile points must not go backwards. */
static int check_sorted(const struct sibyl_point *v, size_t n, char *err, size_t errlen)
{
	for (size_t i = 1; i < n; i++)
		if (v[i].x < v[i - 1].x)
			return sibyl_seterr(err, errlen, "\"points\" are not sorted by work metric");
	return 0;
}

/* A guided plan's sampled metrics: ascending numbers, so that a
 * prediction can tell a sampled metric from one between two. */
static int read_coverage(json_t *c, struct sibyl_profile *p, char *err, size_t errlen)
{
	json_t *metrics = json_object_get(c, "metrics"), *v;
	double last = -INFINITY;
	size_t i;

	if (!c)
		return 0;
	if (!json_is_object(c) || (metrics && !json_is_array(metrics)))
		return sibyl_seterr(err, errlen, "\"coverage\" is not an object with a "
				    "\"metrics\" array");
	json_array_foreach(metrics, i, v) {
		if (!json_is_number(v) || !(json_number_value(v) > last))
			return sibyl_seterr(err, errlen, "\"coverage\".metrics[%zu] is not a number "
					    "above the one before", i);
		last = json_number_value(v);
	}
	p->coverage = json_incref(c);
	return 0;
}

static int read_body(json_t *j, struct sibyl_profile *p, char *err, size_t errlen)
{
	const char *format = NULL, *name = "", *metric = "";
	json_int_t version = 0, min_version = 0;
	int complete = 1;

	if (!json_is_object(j) ||
	    json_unpack(j, "{ss}", "format", &format) || strcmp(format, SIBYL_PROFILE_FORMAT))
		return sibyl_seterr(err, errlen, "not a performance profile (no \"format\": \"%s\")",
				    SIBYL_PROFILE_FORMAT);
	if (json_unpack(j, "{sIsI}", "version", &version, "min_version", &min_version))
		return sibyl_seterr(err, errlen, "profile has no version/min_version");
	if (min_version > SIBYL_PROFILE_VERSION)
		return sibyl_seterr(err, errlen, "unsupported profile version %lld (needs a reader >= %lld, "
				    "this sibyl reads version %d)", (long long)version,
				    (long long)min_version, SIBYL_PROFILE_VERSION);
	if (json_unpack(j, "{s?ss?s s[FF] s?b}", "name", &name, "work_metric", &metric,
			"range", &p->lo, &p->hi, "complete", &complete))
		return sibyl_seterr(err, errlen, "profile lacks a valid \"range\" [lo, hi]");
	if (!(p->lo <= p->hi))
		return sibyl_seterr(err, errlen, "profile range is empty");
	p->name = sibyl_xstrdup(name);
	p->work_metric = sibyl_xstrdup(metric);
	p->complete = complete;
	void *points = NULL, *samples = NULL, *segments = NULL, *pieces = NULL;
	int rc = read_array(json_object_get(j, "points"), "points", "a pair of finite numbers",
			    sizeof(*p->points), read_point, &points, &p->npoints, err, errlen) ||
		 read_array(json_object_get(j, "samples"), "samples", "a pair of finite numbers",
			    sizeof(*p->samples), read_point, &samples, &p->nsamples, err,
			    errlen) ||
		 read_array(json_object_get(j, "segments"), "segments",
			    "an object with from/to/intercept/slope", sizeof(*p->segments),
			    read_segment, &segments, &p->nsegments, err, errlen) ||
		 read_array(json_object_get(j, "pieces"), "pieces",
			    "an object with from/to/implementation", sizeof(*p->pieces),
			    read_piece, &pieces, &p->npieces, err, errlen);

	p->points = points;        /* owned by p even when reading failed */
	p->samples = samples;
	p->segments = segments;
	p->pieces = pieces;
	rc = rc || check_sorted(p->points, p->npoints, err, errlen);
	if (rc)
		return -1;
	/* A planner stopped before its first segment keeps its samples in a
	 * partial profile without points; a complete one always has some. */
	if (p->npoints == 0 && p->complete)
		return sibyl_seterr(err, errlen, "profile has no points");
	json_t *o = json_object_get(j, "provenance");

	p->provenance = json_is_object(o) ? json_incref(o) : NULL;
	o = json_object_get(j, "stats");
	p->stats = json_is_object(o) ? json_incref(o) : NULL;
	return read_coverage(json_object_get(j, "coverage"), p, err, errlen);
}

struct sibyl_profile *sibyl_profile_from_json(json_t *j, char *err, size_t errlen)
{
	struct sibyl_profile *p = sibyl_xcalloc(1, sizeof(*p));

	if (read_body(j, p, err, errlen)) {
		sibyl_profile_free(p);
		return NULL;
	}
	return p;
}

struct sibyl_profile *sibyl_profile_load(const char *path, char *err, size_t errlen)
{
	json_error_t je;
	char why[512];
	size_t len;
	char *text = sibyl_read_file(path, SIBYL_PROFILE_MAX_BYTES, &len, why, sizeof(why));
	json_t *j;

	if (!text) {
		sibyl_seterr(err, errlen, "%s: %s", path, why);
		return NULL;
	}
	j = json_loadb(text, len, 0, &je);
	free(text);
	if (!j) {
		sibyl_seterr(err, errlen, "%s: not JSON: %s (line %d)", path, je.text, je.line);
		return NULL;
	}
	struct sibyl_profile *p = sibyl_profile_from_json(j, why, sizeof(why));

	json_decref(j);
	if (!p)
		sibyl_seterr(err, errlen, "%s: %s", path, why);
	return p;
}
