/*
 * The device-profile JSON file (docs/device.md): writing it, and reading
 * it back with every field checked, so that `sibyl predict` never models
 * transfers from a file it misunderstood.
 */
#include "ocl/device/device_profile.h"
#include "core/fs.h"
#include "core/output.h"
#include "core/log.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- writing ---- */

static json_t *stat_json(const struct sibyl_stat *s)
{
	if (s->n == 0)
		return json_null();
	return json_pack("{s:f, s:f, s:f, s:I}", "median", s->median, "min", s->min,
			 "stdev", s->stdev, "n", (json_int_t)s->n);
}

static json_t *timing_json(const struct sibyl_timing *t)
{
	return json_pack("{s:o, s:o}", "host", stat_json(&t->host), "device",
			 stat_json(&t->device));
}

static json_t *real_or_null(bool have, double v)
{
	return have ? json_real(v) : json_null();
}

static json_t *point_json(const struct sibyl_bw_point *pt)
{
	const struct sibyl_stat *h = &pt->t.host, *d = &pt->t.device;

	return json_pack("{s:I, s:f, s:f, s:f, s:I, s:o, s:o, s:o, s:f}",
			 "bytes", (json_int_t)pt->bytes, "seconds_median", h->median,
			 "seconds_min", h->min, "seconds_stdev", h->stdev,
			 "repeats", (json_int_t)h->n,
			 "device_seconds_median", real_or_null(d->n, d->median),
			 "device_seconds_min", real_or_null(d->n, d->min),
			 "device_seconds_stdev", real_or_null(d->n, d->stdev),
			 "gbps", pt->gbps);
}

static json_t *per_dir(const struct sibyl_device_profile *p, int what)
{
	json_t *o = json_object();

	for (int d = 0; d < SIBYL_DIR_COUNT; d++) {
		json_t *v;

		if (what == 0) {
			v = json_array();
			for (size_t i = 0; i < p->curve[d].count; i++)
				json_array_append_new(v, point_json(&p->curve[d].points[i]));
		} else {
			const struct sibyl_transfer_model *m = &p->model[d];

			v = json_pack("{s:f, s:f, s:f, s:f, s:I}", "latency_seconds", m->latency_s,
				      "bytes_per_second", m->bytes_per_s,
				      "bandwidth_gbps", m->bytes_per_s / 1e9,
				      "max_relative_error", m->max_rel_error,
				      "points", (json_int_t)m->points);
		}
		json_object_set_new(o, sibyl_transfer_dir_name(d), v);
	}
	return o;
}

static json_t *profile_json(const struct sibyl_device_profile *p)
{
	json_t *prov = json_pack(
		"{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:b}",
		"platform", p->platform, "platform_version", p->platform_version,
		"device", p->device, "device_version", p->device_version,
		"driver_version", p->driver_version, "host", p->host, "date", p->date,
		"sibyl_version", p->sibyl_version, "repeat", (json_int_t)p->repeat,
		"max_bytes", (json_int_t)p->max_bytes, "quick", p->quick);
	json_t *lat = json_pack("{s:o}", "command", timing_json(&p->command));

	for (int d = 0; d < SIBYL_DIR_COUNT; d++)
		json_object_set_new(lat, sibyl_transfer_dir_name(d), timing_json(&p->transfer[d]));
	json_object_set_new(lat, "kernel_launch", timing_json(&p->launch));
	json_object_set_new(lat, "kernel_exec", stat_json(&p->launch_exec));
	json_t *prof = json_pack("{s:o, s:o, s:f, s:f}",
				 "with_profiling", stat_json(&p->with_profiling),
				 "without_profiling", stat_json(&p->without_profiling),
				 "seconds", p->profiling_overhead_s,
				 "percent", p->profiling_overhead_pct);
	json_t *skipped = p->skipped_from
		? json_pack("{s:I, s:s}", "from_bytes", (json_int_t)p->skipped_from,
			    "reason", p->skipped_reason)
		: json_null();

	return json_pack("{s:s, s:i, s:o, s:{s:I, s:I}, s:o, s:o, s:o, s:o, s:o}",
			 "format", SIBYL_DEVICE_PROFILE_FORMAT,
			 "version", SIBYL_DEVICE_PROFILE_VERSION, "provenance", prov,
			 "limits", "max_alloc_bytes", (json_int_t)p->max_alloc_bytes,
			 "global_mem_bytes", (json_int_t)p->global_mem_bytes,
			 "latencies", lat, "profiling_overhead", prof,
			 "bandwidth", per_dir(p, 0), "skipped", skipped,
			 "transfer_model", per_dir(p, 1));
}

char *sibyl_device_profile_dump(const struct sibyl_device_profile *p)
{
	json_t *root = profile_json(p);
	char *text;

	if (!root)
		return NULL;
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	return text;
}

int sibyl_device_profile_save(const char *path, const struct sibyl_device_profile *p,
			      char *err, size_t errlen)
{
	char *text = sibyl_device_profile_dump(p);
	int r;

	if (!text)
		return sibyl_seterr(err, errlen, "%s: cannot encode the device profile", path);
	size_t len = strlen(text);

	text[len] = '\n';	/* json_dumps leaves room for its NUL only: rewrite */
	r = sibyl_output_write(path, text, len + 1, 0666);
	free(text);
	return r ? sibyl_seterr_errno(err, errlen, "%s: writing the device profile", path) : 0;
}

/* ---- reading ---- */

struct reader {
	char *err;
	size_t errlen;
	bool failed;
};

static void fail(struct reader *r, const char *fmt, ...)
{
	va_list ap;

	if (r->failed)
		return;
	r->failed = true;
	va_start(ap, fmt);
	sibyl_vseterr(r->err, r->errlen, fmt, ap);
	va_end(ap);
}

/* obj[key], checked for presence and type; NULL after recording why. */
static json_t *field(struct reader *r, json_t *obj, const char *where, const char *key,
		     json_type type)
{
	json_t *v = obj ? json_object_get(obj, key) : NULL;

	if (!obj || r->failed)
		return NULL;
	if (!v) {
		fail(r, "missing field '%s%s'", where, key);
		return NULL;
	}
	bool ok = json_typeof(v) == type ||
		  (type == JSON_REAL && json_typeof(v) == JSON_INTEGER) ||
		  (type == JSON_TRUE && json_typeof(v) == JSON_FALSE);
	if (!ok) {
		fail(r, "field '%s%s' has the wrong type", where, key);
		return NULL;
	}
	return v;
}

static double num(struct reader *r, json_t *obj, const char *where, const char *key)
{
	json_t *v = field(r, obj, where, key, JSON_REAL);

	return v ? json_number_value(v) : 0;
}

static uint64_t count(struct reader *r, json_t *obj, const char *where, const char *key)
{
	json_t *v = field(r, obj, where, key, JSON_INTEGER);

	if (v && json_integer_value(v) < 0)
		fail(r, "field '%s%s' is negative", where, key);
	return v && !r->failed ? (uint64_t)json_integer_value(v) : 0;
}

static void str(struct reader *r, json_t *obj, const char *where, const char *key, char *out)
{
	json_t *v = field(r, obj, where, key, JSON_STRING);

	snprintf(out, SIBYL_PROFILE_STR, "%s", v ? json_string_value(v) : "");
}

static json_t *object(struct reader *r, json_t *obj, const char *where, const char *key)
{
	return field(r, obj, where, key, JSON_OBJECT);
}

/* A stat object, or null for "not measured". */
static struct sibyl_stat read_stat(struct reader *r, json_t *obj, const char *where,
				   const char *key)
{
	struct sibyl_stat s = { 0, 0, 0, 0 };
	char path[128];
	json_t *v = obj ? json_object_get(obj, key) : NULL;

	if (v && json_is_null(v))
		return s;
	v = object(r, obj, where, key);
	snprintf(path, sizeof(path), "%s%s.", where, key);
	s.median = num(r, v, path, "median");
	s.min = num(r, v, path, "min");
	s.stdev = num(r, v, path, "stdev");
	s.n = (unsigned)count(r, v, path, "n");
	return s;
}

static struct sibyl_timing read_timing(struct reader *r, json_t *obj, const char *where,
				       const char *key)
{
	struct sibyl_timing t;
	char path[128];
	json_t *v = object(r, obj, where, key);

	snprintf(path, sizeof(path), "%s%s.", where, key);
	t.host = read_stat(r, v, path, "host");
	t.device = read_stat(r, v, path, "device");
	return t;
}

static void read_point(struct reader *r, json_t *v, const char *where, struct sibyl_bw_point *pt)
{
	memset(pt, 0, sizeof(*pt));
	pt->bytes = count(r, v, where, "bytes");
	pt->t.host.median = num(r, v, where, "seconds_median");
	pt->t.host.min = num(r, v, where, "seconds_min");
	pt->t.host.stdev = num(r, v, where, "seconds_stdev");
	pt->t.host.n = (unsigned)count(r, v, where, "repeats");
	pt->gbps = num(r, v, where, "gbps");
	if (v && !json_is_null(json_object_get(v, "device_seconds_median"))) {
		pt->t.device.median = num(r, v, where, "device_seconds_median");
		pt->t.device.min = num(r, v, where, "device_seconds_min");
		pt->t.device.stdev = num(r, v, where, "device_seconds_stdev");
		pt->t.device.n = pt->t.host.n;
	}
	if (!r->failed && (pt->t.host.median <= 0 || pt->bytes == 0))
		fail(r, "%s has a non-positive size or time", where);
}

static void read_curves(struct reader *r, json_t *root, struct sibyl_device_profile *p)
{
	json_t *bw = object(r, root, "", "bandwidth");

	for (int d = 0; d < SIBYL_DIR_COUNT && !r->failed; d++) {
		const char *name = sibyl_transfer_dir_name(d);
		json_t *a = field(r, bw, "bandwidth.", name, JSON_ARRAY);
		size_t n = a ? json_array_size(a) : 0;

		if (n > SIBYL_BW_MAX_POINTS)
			fail(r, "bandwidth.%s has %zu points (at most %d)", name, n,
			     SIBYL_BW_MAX_POINTS);
		for (size_t i = 0; i < n && !r->failed; i++) {
			char where[64];
			json_t *v = json_array_get(a, i);

			snprintf(where, sizeof(where), "bandwidth.%s[%zu].", name, i);
			if (!json_is_object(v))
				fail(r, "%s is not an object", where);
			read_point(r, v, where, &p->curve[d].points[i]);
			if (i && p->curve[d].points[i].bytes <= p->curve[d].points[i - 1].bytes)
				fail(r, "bandwidth.%s: sizes are not increasing", name);
		}
		p->curve[d].count = r->failed ? 0 : n;
	}
}

static void read_models(struct reader *r, json_t *root, struct sibyl_device_profile *p)
{
	json_t *tm = object(r, root, "", "transfer_model");

	for (int d = 0; d < SIBYL_DIR_COUNT; d++) {
		char where[64];
		json_t *m = object(r, tm, "transfer_model.", sibyl_transfer_dir_name(d));

		snprintf(where, sizeof(where), "transfer_model.%s.", sibyl_transfer_dir_name(d));
		p->model[d].latency_s = num(r, m, where, "latency_seconds");
		p->model[d].bytes_per_s = num(r, m, where, "bytes_per_second");
		p->model[d].max_rel_error = num(r, m, where, "max_relative_error");
		p->model[d].points = (unsigned)count(r, m, where, "points");
		if (!r->failed && (p->model[d].latency_s < 0 || p->model[d].bytes_per_s < 0))
			fail(r, "%s has a negative latency or bandwidth", where);
	}
}

static void read_provenance(struct reader *r, json_t *root, struct sibyl_device_profile *p)
{
	json_t *v = object(r, root, "", "provenance");
	const char *w = "provenance.";

	str(r, v, w, "platform", p->platform);
	str(r, v, w, "platform_version", p->platform_version);
	str(r, v, w, "device", p->device);
	str(r, v, w, "device_version", p->device_version);
	str(r, v, w, "driver_version", p->driver_version);
	str(r, v, w, "host", p->host);
	str(r, v, w, "date", p->date);
	str(r, v, w, "sibyl_version", p->sibyl_version);
	p->repeat = (unsigned)count(r, v, w, "repeat");
	p->max_bytes = count(r, v, w, "max_bytes");
	json_t *q = field(r, v, w, "quick", JSON_TRUE);
	p->quick = q && json_is_true(q);
	v = object(r, root, "", "limits");
	p->max_alloc_bytes = count(r, v, "limits.", "max_alloc_bytes");
	p->global_mem_bytes = count(r, v, "limits.", "global_mem_bytes");
}

static void read_latencies(struct reader *r, json_t *root, struct sibyl_device_profile *p)
{
	json_t *v = object(r, root, "", "latencies");
	const char *w = "latencies.";

	p->command = read_timing(r, v, w, "command");
	for (int d = 0; d < SIBYL_DIR_COUNT; d++)
		p->transfer[d] = read_timing(r, v, w, sibyl_transfer_dir_name(d));
	p->launch = read_timing(r, v, w, "kernel_launch");
	p->launch_exec = read_stat(r, v, w, "kernel_exec");
	v = object(r, root, "", "profiling_overhead");
	w = "profiling_overhead.";
	p->with_profiling = read_stat(r, v, w, "with_profiling");
	p->without_profiling = read_stat(r, v, w, "without_profiling");
	p->profiling_overhead_s = num(r, v, w, "seconds");
	p->profiling_overhead_pct = num(r, v, w, "percent");
}

static void read_skipped(struct reader *r, json_t *root, struct sibyl_device_profile *p)
{
	json_t *v = json_object_get(root, "skipped");

	if (!v) {
		fail(r, "missing field 'skipped'");
		return;
	}
	if (json_is_null(v))
		return;
	p->skipped_from = count(r, v, "skipped.", "from_bytes");
	str(r, v, "skipped.", "reason", p->skipped_reason);
}

static void read_header(struct reader *r, json_t *root)
{
	json_t *f = json_object_get(root, "format");
	json_t *v = json_object_get(root, "version");

	if (!json_is_string(f) || strcmp(json_string_value(f), SIBYL_DEVICE_PROFILE_FORMAT))
		fail(r, "not a device profile (\"format\" is not \"%s\")",
		     SIBYL_DEVICE_PROFILE_FORMAT);
	else if (!json_is_integer(v))
		fail(r, "device profile without an integer \"version\"");
	else if (json_integer_value(v) != SIBYL_DEVICE_PROFILE_VERSION)
		fail(r, "device profile version %lld is not supported (this sibyl reads "
		     "version %d)", (long long)json_integer_value(v),
		     SIBYL_DEVICE_PROFILE_VERSION);
}

int sibyl_device_profile_parse(const char *text, size_t len,
			       struct sibyl_device_profile *p, char *err, size_t errlen)
{
	struct reader r = { err, errlen, false };
	json_error_t jerr;
	json_t *root = json_loadb(text, len, 0, &jerr);

	memset(p, 0, sizeof(*p));
	if (!root) {
		sibyl_seterr(err, errlen, "not valid JSON (line %d: %s)", jerr.line, jerr.text);
		return -1;
	}
	if (!json_is_object(root))
		fail(&r, "not a device profile (not a JSON object)");
	read_header(&r, root);
	read_provenance(&r, root, p);
	read_latencies(&r, root, p);
	read_curves(&r, root, p);
	read_skipped(&r, root, p);
	read_models(&r, root, p);
	json_decref(root);
	if (r.failed)
		memset(p, 0, sizeof(*p));
	return r.failed ? -1 : 0;
}

int sibyl_device_profile_load(const char *path, struct sibyl_device_profile *p, char *err,
			      size_t errlen)
{
	char why[512];
	size_t len;
	char *text = sibyl_read_file(path, SIBYL_DEVICE_PROFILE_MAX_BYTES, &len, why, sizeof(why));

	memset(p, 0, sizeof(*p));
	if (!text)
		return sibyl_seterr(err, errlen, "%s: %s", path, why);
	int r = sibyl_device_profile_parse(text, len, p, why, sizeof(why));

	free(text);
	return r ? sibyl_seterr(err, errlen, "%s: %s", path, why) : 0;
}
