/* The per-device time model file. */
#include "kmodel/devmodel.h"
#include "kmodel/suite.h"
#include "core/alloc.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/output.h"

#include <stdlib.h>
#include <string.h>

#define FORMAT "sibyl-kmodel-device"
#define CV_FOLDS 5

int sibyl_kmodel_device_train(const struct sibyl_kmodel_data *d, const char *dataset,
			      const struct sibyl_kmodel_table *t, struct sibyl_kmodel_device *m,
			      char *err, size_t errlen)
{
	bool *use = sibyl_xcalloc(t->nk + 1, sizeof(*use));
	int r;

	memset(m, 0, sizeof(*m));
	for (size_t k = 0; k < t->nk; k++)
		use[k] = true;
	r = sibyl_kmodel_tm_choose(t, use, CV_FOLDS, &m->cv, err, errlen);
	if (!r)
		r = sibyl_kmodel_tm_fit(m->cv.kind, t, use, &m->tm, err, errlen);
	free(use);
	if (r)
		return r;
	m->device = sibyl_kmodel_json_dup(d->header, "device", "");
	m->platform = sibyl_kmodel_json_dup(d->header, "platform", "");
	m->suite = sibyl_kmodel_json_dup(d->header, "suite", "");
	m->opt_level = sibyl_kmodel_json_dup(d->header, "opt_level", "0");
	m->compute_units = sibyl_kmodel_units(d->header);
	m->clock = t->clock;
	m->dataset_version = (int)json_integer_value(json_object_get(d->header, "version"));
	m->sibyl = sibyl_xstrdup(SIBYL_VERSION);
	m->dataset = sibyl_xstrdup(dataset);
	m->kernels = t->nk;
	m->names = sibyl_xcalloc(t->nf + 1, sizeof(*m->names));
	for (size_t j = 0; j < t->nf; j++)
		m->names[j] = sibyl_xstrdup(t->names[j]);
	return 0;
}

int sibyl_kmodel_device_save(const struct sibyl_kmodel_device *m, const char *path, bool force,
			     char *err, size_t errlen)
{
	json_t *costs = json_array();

	for (size_t j = 0; j < m->tm.nf; j++)
		json_array_append_new(costs, json_pack("{s:s, s:f}", "name", m->names[j],
						       "seconds", m->tm.w[j]));
	json_t *j = json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:I, "
			      "s:{s:s, s:f, s:o}, s:{s:f, s:f, s:f, s:f, s:f, s:f, s:f}}",
		"format", FORMAT, "version", 1, "device", m->device, "platform", m->platform,
		"suite", m->suite, "sibyl", m->sibyl, "dataset", m->dataset, "dataset_version",
		m->dataset_version, "opt_level", m->opt_level,
		"kernels", (json_int_t)m->kernels, "time_model", "kind",
		sibyl_kmodel_tkind_name(m->tm.kind), "launch_seconds", m->tm.b,
		"instructions", costs, "cv", "median_r2", m->cv.median_r2,
		"ratio_low", m->cv.lo, "ratio_high", m->cv.hi, "median_error", m->cv.err, "calibrated_median_error",
		m->cv.cal_err, "calibrated_ratio_low", m->cv.cal_lo, "calibrated_ratio_high",
		m->cv.cal_hi);

	sibyl_kmodel_identity_put(j, m->compute_units, m->clock);
	return sibyl_kmodel_json_save(j, path, force, err, errlen);
}

static int kind_of(const char *s, enum sibyl_kmodel_tkind *k)
{
	for (int i = 0; s && i < SIBYL_TM_KINDS; i++)
		if (!strcmp(s, sibyl_kmodel_tkind_name((enum sibyl_kmodel_tkind)i)))
			return *k = (enum sibyl_kmodel_tkind)i, 0;
	return -1;
}

static int from_json(json_t *j, const char *path, struct sibyl_kmodel_device *m, char *err,
		     size_t errlen)
{
	json_t *tm = json_object_get(j, "time_model"), *cv = json_object_get(j, "cv");
	json_t *costs = json_object_get(tm, "instructions"), *v;
	size_t i;

	if (!json_is_array(costs) || kind_of(json_string_value(json_object_get(tm, "kind")),
					      &m->tm.kind) < 0)
		return sibyl_seterr(err, errlen, "kmodel: %s: no valid \"time_model\"", path);
	m->device = sibyl_kmodel_json_dup(j, "device", "");
	m->platform = sibyl_kmodel_json_dup(j, "platform", "");
	m->suite = sibyl_kmodel_json_dup(j, "suite", "");
	m->opt_level = sibyl_kmodel_json_dup(j, "opt_level", "0");
	if (sibyl_kmodel_identity_get(j, path, &m->compute_units, &m->clock, err, errlen))
		return -1;
	m->sibyl = sibyl_kmodel_json_dup(j, "sibyl", "");
	m->dataset = sibyl_kmodel_json_dup(j, "dataset", "");
	m->kernels = (size_t)json_integer_value(json_object_get(j, "kernels"));
	m->tm.b = json_number_value(json_object_get(tm, "launch_seconds"));
	m->names = sibyl_xcalloc(json_array_size(costs) + 1, sizeof(*m->names));
	m->tm.w = sibyl_xcalloc(json_array_size(costs) + 1, sizeof(*m->tm.w));
	json_array_foreach(costs, i, v) {
		const char *name = json_string_value(json_object_get(v, "name"));

		if (!name)
			continue;
		m->names[m->tm.nf] = sibyl_xstrdup(name);
		m->tm.w[m->tm.nf++] = json_number_value(json_object_get(v, "seconds"));
	}
	m->dataset_version = sibyl_kmodel_counts_version(j, m->names, m->tm.nf);
	m->cv.kind = m->tm.kind;
	m->cv.median_r2 = json_number_value(json_object_get(cv, "median_r2"));
	m->cv.lo = json_number_value(json_object_get(cv, "ratio_low"));
	m->cv.hi = json_number_value(json_object_get(cv, "ratio_high"));
	m->cv.err = json_number_value(json_object_get(cv, "median_error"));
	/* 0 in a model of before calibration: predict does not calibrate. */
	m->cv.cal_err = json_number_value(json_object_get(cv, "calibrated_median_error"));
	m->cv.cal_lo = json_number_value(json_object_get(cv, "calibrated_ratio_low"));
	m->cv.cal_hi = json_number_value(json_object_get(cv, "calibrated_ratio_high"));
	return 0;
}

int sibyl_kmodel_device_load(const char *path, struct sibyl_kmodel_device *m, char *err,
			     size_t errlen)
{
	json_t *j;

	memset(m, 0, sizeof(*m));
	if (!(j = sibyl_kmodel_json_load_v1(path, FORMAT, "device model", err, errlen)))
		return -1;
	int r = from_json(j, path, m, err, errlen);

	json_decref(j);
	if (r)
		sibyl_kmodel_device_free(m);
	return r;
}

double sibyl_kmodel_device_time(const struct sibyl_kmodel_device *m, const double *counts,
				const char *const *names, size_t n)
{
	double s = m->tm.b;

	/* An instruction the suite never ran has no cost to weigh it by. */
	for (size_t j = 0; j < m->tm.nf; j++)
		for (size_t i = 0; i < n; i++)
			if (!strcmp(m->names[j], names[i]))
				s += m->tm.w[j] * counts[i];
	return s;
}

void sibyl_kmodel_device_free(struct sibyl_kmodel_device *m)
{
	for (size_t j = 0; m->names && j < m->tm.nf; j++)
		free(m->names[j]);
	free(m->names);
	free(m->device), free(m->platform), free(m->suite), free(m->sibyl), free(m->dataset);
	free(m->opt_level);
	sibyl_kmodel_tm_free(&m->tm);
	memset(m, 0, sizeof(*m));
}

long sibyl_kmodel_units(json_t *j)
{
	json_int_t u = json_integer_value(json_object_get(j, "compute_units"));

	return u > 0 ? (long)u : 0;
}

void sibyl_kmodel_identity_put(json_t *j, long units, enum sibyl_kmodel_clock clock)
{
	if (units > 0)
		json_object_set_new(j, "compute_units", json_integer(units));
	json_object_set_new(j, "clock", json_string(sibyl_kmodel_clock_name(clock)));
}

int sibyl_kmodel_identity_get(json_t *j, const char *path, long *units,
			      enum sibyl_kmodel_clock *clock, char *err, size_t errlen)
{
	json_t *c = json_object_get(j, "clock");

	*units = sibyl_kmodel_units(j);
	if (c && sibyl_kmodel_clock_of(json_string_value(c), clock))
		return sibyl_seterr(err, errlen, "kmodel: %s: \"clock\" is not \"device\" or "
				    "\"cpu\"", path);
	return 0;
}

bool sibyl_kmodel_same_device(const char *a, long ua, const char *b, long ub)
{
	return !strcmp(a, b) && (ua <= 0 || ub <= 0 || ua == ub);
}
