/* A kernel's model: its profile at small sizes and its OCLBoi. */
#include "kmodel/kfit.h"
#include "kmodel/dataset.h"
#include "kmodel/devmodel.h"
#include "kmodel/table.h"
#include "core/alloc.h"
#include "core/clock.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/output.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FORMAT "sibyl-kmodel-kernel"

/* The kernel's counts at the profiled sizes, in a private temporary
 * dataset (its device and -O level in d's header). */
static int profile(const struct sibyl_kmodel_kfit_opts *o, struct sibyl_kmodel_data *d,
		   char *err, size_t errlen)
{
	struct sibyl_kmodel_entry e = { (char *)o->kernel, (char *)o->file, (char *)"",
					(char *)o->profile, o->lsize };
	struct sibyl_kmodel_suite s = { (char *)"(profile)", o->samples, &e, 1 };
	char *dir = sibyl_private_tmpdir("sibyl-kmodel");

	if (!dir)
		return sibyl_seterr_errno(err, errlen, "kmodel: temporary directory");
	char *path = sibyl_path_join(dir, "profile.jsonl");
	struct sibyl_kmodel_dataset_opts dop = {
		.out = path, .platform = o->platform, .device = o->device,
		.opt_level = o->opt_level, .samples = o->samples, .timeout_s = o->timeout_s,
	};
	int r = sibyl_kmodel_dataset(&s, &dop, err, errlen);

	/* The dataset's error notice said why, in the one line it needs. */
	if (r > 0 && errlen)
		r = -1, err[0] = '\0';
	if (!r)
		r = sibyl_kmodel_data_read(path, false, d, err, errlen);
	sibyl_remove_tree(dir);
	free(path);
	free(dir);
	return r;
}

/* The table's samples, owned by k. */
static void take(struct sibyl_kmodel_kfit *k, const struct sibyl_kmodel_table *t)
{
	k->nf = t->nf;
	k->ns = t->ns;
	k->clock = t->clock;
	k->names = sibyl_xcalloc(t->nf + 1, sizeof(*k->names));
	for (size_t j = 0; j < t->nf; j++)
		k->names[j] = sibyl_xstrdup(t->names[j]);
	k->g = sibyl_xcalloc(t->ns + 1, sizeof(*k->g));
	k->t = sibyl_xcalloc(t->ns + 1, sizeof(*k->t));
	k->C = sibyl_xcalloc(t->ns * t->nf + 1, sizeof(*k->C));
	memcpy(k->g, t->g, t->ns * sizeof(*k->g));
	memcpy(k->t, t->t, t->ns * sizeof(*k->t));
	memcpy(k->C, t->C, t->ns * t->nf * sizeof(*k->C));
}

/* o's profile: the user's sizes, or sizes chosen by the kernel's time
 * (into k, and as FROM:TO:STEP into range). */
static int sizes_of(struct sibyl_kmodel_kfit_opts *o, struct sibyl_kmodel_kfit *k, char *range,
		    size_t len, char *err, size_t errlen)
{
	const struct sibyl_kmodel_sizes *s = &k->sizes;

	if (o->profile)
		return 0;
	if (sibyl_kmodel_kfit_choose(o, &k->sizes, err, errlen) < 0)
		return -1;
	/* A walk that a failing size or the cap ended within 2 sizes leaves
	 * too few for OCLBoi: say why here rather than in its words. */
	if (s->n < 3)
		return sibyl_seterr(err, errlen, "kmodel: %s: its sizes (%s) stopped after %zu "
				    "(%llu work-items): %s; give them with --profile", o->kernel,
				    sibyl_kmodel_stop_name(s->stop), s->n,
				    (unsigned long long)s->g[s->n - 1],
				    s->stop == SIBYL_STOP_FAILED ? "the next size failed" :
				    "no larger size is allowed");
	k->chosen = true;
	snprintf(range, len, "%llu:%llu:%llu", (unsigned long long)s->from,
		 (unsigned long long)s->to, (unsigned long long)s->step);
	o->profile = range;
	return 0;
}

int sibyl_kmodel_kfit_profile(const struct sibyl_kmodel_kfit_opts *opts,
			      struct sibyl_kmodel_kfit *k, char *err, size_t errlen)
{
	struct sibyl_kmodel_kfit_opts o = *opts;
	struct sibyl_kmodel_data d = { 0 };
	struct sibyl_kmodel_table t;
	char range[96];
	int r;

	memset(k, 0, sizeof(*k));
	if ((r = sizes_of(&o, k, range, sizeof(range), err, errlen)) ||
	    (r = profile(&o, &d, err, errlen)) ||
	    (r = sibyl_kmodel_table_build(&d, o.clock, &t, err, errlen)))
		return sibyl_kmodel_data_free(&d), r;
	take(k, &t);
	sibyl_kmodel_table_free(&t);
	k->kernel = sibyl_xstrdup(o.kernel);
	k->file = sibyl_xstrdup(o.file);
	k->profile = sibyl_xstrdup(o.profile);
	k->lsize = o.lsize;
	k->samples = o.samples;
	k->device = sibyl_kmodel_json_dup(d.header, "device", "");
	k->platform = sibyl_kmodel_json_dup(d.header, "platform", "");
	k->opt_level = sibyl_kmodel_json_dup(d.header, "opt_level", "");
	k->compute_units = sibyl_kmodel_units(d.header);
	k->dataset_version = (int)json_integer_value(json_object_get(d.header, "version"));
	k->sibyl = sibyl_xstrdup(SIBYL_VERSION);
	sibyl_kmodel_data_free(&d);
	uint64_t t0 = sibyl_mono_ns();

	r = sibyl_kmodel_boi_fit(k->g, k->C, k->ns, k->nf, &k->b, err, errlen);
	k->fit_seconds = (double)(sibyl_mono_ns() - t0) * 1e-9;
	if (r)
		sibyl_kmodel_kfit_free(k);
	return r;
}

/* --- the file -------------------------------------------------------- */

static json_t *doubles(const double *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_real(v[i]));
	return a;
}

static json_t *boi_json(const struct sibyl_kmodel_kfit *k)
{
	const struct sibyl_kmodel_boi *b = &k->b;
	json_t *counts = json_array();

	for (size_t j = 0; j < k->nf; j++) {
		const struct sibyl_reg_model *m = &b->m[j];

		json_t *c = json_pack("{s:s, s:f, s:o, s:o, s:o}", "name", k->names[j],
			"intercept", m->b, "coef", doubles(m->w, m->p), "mean",
			doubles(m->mean, m->p), "sd", doubles(m->sd, m->p));

		if (b->power)
			json_object_set_new(c, "law", json_string(sibyl_kmodel_law_name(b->law[j])));
		json_array_append_new(counts, c);
	}
	return json_pack("{s:s, s:f, s:f, s:f, s:b, s:b, s:b, s:f, s:f, s:o}", "kind", b->kind,
			 "cv_r2", b->score, "gsize_min", b->gmin, "gsize_max", b->gmax,
			 "power", b->power, "poly2", b->spec.poly2, "scale", b->spec.scale, "alpha", b->spec.alpha,
			 "l1_ratio", b->spec.l1_ratio, "counts", counts);
}

static json_t *samples_json(const struct sibyl_kmodel_kfit *k)
{
	json_t *a = json_array();

	for (size_t i = 0; i < k->ns; i++) {
		json_t *c = json_array();

		for (size_t j = 0; j < k->nf; j++)
			json_array_append_new(c, json_pack("{s:s, s:I}", "name", k->names[j],
				"count", (json_int_t)k->C[i * k->nf + j]));
		json_array_append_new(a, json_pack("{s:I, s:f, s:o}", "gsize", (json_int_t)k->g[i],
						   "seconds", k->t[i], "counts", c));
	}
	return a;
}

/* How the profile sizes were chosen (sizes.h): the sizes timed and
 * why the walk stopped. */
static json_t *choice_json(const struct sibyl_kmodel_sizes *s)
{
	json_t *timed = json_array();

	for (size_t i = 0; i < s->n; i++)
		json_array_append_new(timed, json_pack("{s:I, s:f}", "gsize", (json_int_t)s->g[i],
						       "seconds", s->t[i]));
	return json_pack("{s:s, s:f, s:f, s:f, s:f, s:o}", "stop", sibyl_kmodel_stop_name(s->stop),
			 "factor", s->factor, "launch_seconds", s->launch_s, "budget_seconds",
			 s->budget_s, "spent_seconds", s->spent_s, "timed", timed);
}

int sibyl_kmodel_kfit_save(const struct sibyl_kmodel_kfit *k, const char *path, bool force,
			   char *err, size_t errlen)
{
	/* Version 3 holds a power-law OCLBoi, which a version 1 reader would
	 * take for a straight line, and a version 2 reader for ln(1 + count)
	 * with no law per count: both refuse the file instead. */
	json_t *j = json_pack("{s:s, s:i, s:s, s:s, s:s, s:I, s:I, s:s, s:s, s:s, s:i, s:s, s:o, "
			      "s:o}",
		"format", FORMAT, "version", k->b.power ? 3 : 1, "kernel", k->kernel, "file",
		k->file, "profile",
		k->profile, "lsize", (json_int_t)k->lsize, "samples_per_size",
		(json_int_t)k->samples, "device", k->device, "platform", k->platform,
		"opt_level", k->opt_level, "dataset_version", k->dataset_version, "sibyl", k->sibyl, "oclboi", boi_json(k), "samples",
		samples_json(k));

	if (k->chosen)
		json_object_set_new(j, "profile_choice", choice_json(&k->sizes));
	sibyl_kmodel_identity_put(j, k->compute_units, k->clock);
	return sibyl_kmodel_json_save(j, path, force, err, errlen);
}

/* n numbers of array a into a new array; -1 when a is not that. */
static int numbers(json_t *a, size_t n, double **out)
{
	size_t i;
	json_t *v;

	if (!json_is_array(a) || json_array_size(a) != n)
		return -1;
	*out = sibyl_xcalloc(n + 1, sizeof(**out));
	json_array_foreach(a, i, v) {
		if (!json_is_number(v))
			return -1;
		(*out)[i] = json_number_value(v);
	}
	return 0;
}

/* One count's regression; -1 when malformed. */
static int reg_of(json_t *c, const struct sibyl_reg_spec *spec, struct sibyl_reg_model *m)
{
	memset(m, 0, sizeof(*m));
	m->spec = *spec;
	m->p_in = 1;
	m->p = spec->poly2 ? sibyl_poly2_count(1) : 1;
	m->b = json_number_value(json_object_get(c, "intercept"));
	if (numbers(json_object_get(c, "coef"), m->p, &m->w) ||
	    numbers(json_object_get(c, "mean"), m->p, &m->mean) ||
	    numbers(json_object_get(c, "sd"), m->p, &m->sd))
		return -1;
	return 0;
}

/* A power law's law of count c: a version 2 file's are all ln(1 +
 * count), a version 3 file names each; -1 when it does not. */
static int law_of(json_t *c, int version, enum sibyl_kmodel_law *law)
{
	if (version < 3)
		return *law = SIBYL_LAW_POWER1P, 0;
	return sibyl_kmodel_law_of(json_string_value(json_object_get(c, "law")), law);
}

/* The instruction name of record i of every sample and OCLBoi count
 * must be names[i]: the samples are read by position. */
static int boi_of(json_t *o, int version, struct sibyl_kmodel_kfit *k)
{
	struct sibyl_kmodel_boi *b = &k->b;
	json_t *counts = json_object_get(o, "counts"), *c;
	size_t j;

	memset(&b->spec, 0, sizeof(b->spec));
	b->spec.poly2 = json_is_true(json_object_get(o, "poly2"));
	b->spec.scale = json_is_true(json_object_get(o, "scale"));
	b->spec.alpha = json_number_value(json_object_get(o, "alpha"));
	b->spec.l1_ratio = json_number_value(json_object_get(o, "l1_ratio"));
	b->spec.kind = b->spec.alpha > 0 ? SIBYL_REG_ENET : SIBYL_REG_OLS;
	b->power = json_is_true(json_object_get(o, "power"));
	b->kind = b->power ? SIBYL_KMODEL_POWER_KIND : sibyl_kmodel_boi_kind(&b->spec);
	b->score = json_number_value(json_object_get(o, "cv_r2"));
	b->gmin = json_number_value(json_object_get(o, "gsize_min"));
	b->gmax = json_number_value(json_object_get(o, "gsize_max"));
	if (!json_is_array(counts) || !json_array_size(counts))
		return -1;
	k->nf = b->nf = json_array_size(counts);
	k->names = sibyl_xcalloc(k->nf + 1, sizeof(*k->names));
	b->m = sibyl_xcalloc(k->nf + 1, sizeof(*b->m));
	b->law = b->power ? sibyl_xcalloc(k->nf + 1, sizeof(*b->law)) : NULL;
	json_array_foreach(counts, j, c) {
		const char *name = json_string_value(json_object_get(c, "name"));

		if (!name || reg_of(c, &b->spec, &b->m[j]) ||
		    (b->power && law_of(c, version, &b->law[j])))
			return -1;
		k->names[j] = sibyl_xstrdup(name);
	}
	return 0;
}

static int samples_of(json_t *a, struct sibyl_kmodel_kfit *k)
{
	size_t i, j;
	json_t *s, *c;

	if (!json_is_array(a) || json_array_size(a) < 2)
		return -1;
	k->ns = json_array_size(a);
	k->g = sibyl_xcalloc(k->ns + 1, sizeof(*k->g));
	k->t = sibyl_xcalloc(k->ns + 1, sizeof(*k->t));
	k->C = sibyl_xcalloc(k->ns * k->nf + 1, sizeof(*k->C));
	json_array_foreach(a, i, s) {
		json_t *counts = json_object_get(s, "counts");

		json_t *t = json_object_get(s, "seconds");

		k->g[i] = json_number_value(json_object_get(s, "gsize"));
		k->t[i] = json_number_value(t);
		/* A NaN, negative or missing time would calibrate the
		 * prediction by nonsense. */
		if (json_array_size(counts) != k->nf || !(k->g[i] >= 1 && isfinite(k->g[i])) ||
		    !json_is_number(t) || !(k->t[i] >= 0 && isfinite(k->t[i])))
			return -1;
		json_array_foreach(counts, j, c) {
			const char *name = json_string_value(json_object_get(c, "name"));
			json_t *n = json_object_get(c, "count");

			if (!name || strcmp(name, k->names[j]) || !json_is_integer(n) ||
			    json_integer_value(n) < 0)
				return -1;
			k->C[i * k->nf + j] = (double)json_integer_value(n);
		}
	}
	return 0;
}

/* How a profile was chosen, when the file says (provenance only). */
static void choice_of(json_t *c, struct sibyl_kmodel_kfit *k)
{
	struct sibyl_kmodel_sizes *s = &k->sizes;
	const char *stop = json_string_value(json_object_get(c, "stop"));
	json_t *v;
	size_t i;

	if (!json_is_object(c))
		return;
	k->chosen = true;
	for (int w = 0; stop && w <= SIBYL_STOP_FAILED; w++)
		if (!strcmp(stop, sibyl_kmodel_stop_name((enum sibyl_kmodel_stop)w)))
			s->stop = (enum sibyl_kmodel_stop)w;
	s->factor = json_number_value(json_object_get(c, "factor"));
	s->launch_s = json_number_value(json_object_get(c, "launch_seconds"));
	s->budget_s = json_number_value(json_object_get(c, "budget_seconds"));
	s->spent_s = json_number_value(json_object_get(c, "spent_seconds"));
	json_array_foreach(json_object_get(c, "timed"), i, v) {
		if (s->n == SIBYL_KMODEL_WALK_MAX)
			break;
		s->g[s->n] = (uint64_t)json_integer_value(json_object_get(v, "gsize"));
		s->t[s->n++] = json_number_value(json_object_get(v, "seconds"));
	}
}

static int from_json(json_t *j, const char *path, struct sibyl_kmodel_kfit *k, char *err,
		     size_t errlen)
{
	k->kernel = sibyl_kmodel_json_dup(j, "kernel", "");
	k->file = sibyl_kmodel_json_dup(j, "file", "");
	k->profile = sibyl_kmodel_json_dup(j, "profile", "");
	k->device = sibyl_kmodel_json_dup(j, "device", "");
	k->platform = sibyl_kmodel_json_dup(j, "platform", "");
	k->opt_level = sibyl_kmodel_json_dup(j, "opt_level", "");
	if (sibyl_kmodel_identity_get(j, path, &k->compute_units, &k->clock, err, errlen))
		return -1;
	k->sibyl = sibyl_kmodel_json_dup(j, "sibyl", "");
	k->lsize = (long)json_integer_value(json_object_get(j, "lsize"));
	k->samples = (long)json_integer_value(json_object_get(j, "samples_per_size"));
	int version = (int)json_integer_value(json_object_get(j, "version"));

	if (boi_of(json_object_get(j, "oclboi"), version, k))
		return sibyl_seterr(err, errlen, "kmodel: %s: no valid \"oclboi\"", path);
	/* OCLBoi's features divide the global size by gsize_max. */
	if (!(k->b.gmin >= 1 && k->b.gmax >= k->b.gmin && isfinite(k->b.gmax)))
		return sibyl_seterr(err, errlen, "kmodel: %s: \"oclboi\" gsize_min %g and "
				    "gsize_max %g are not 1 <= min <= max", path, k->b.gmin,
				    k->b.gmax);
	if (samples_of(json_object_get(j, "samples"), k))
		return sibyl_seterr(err, errlen, "kmodel: %s: no valid \"samples\" (2 or more, "
				    "each of a gsize >= 1, finite seconds >= 0 and counts >= 0 "
				    "with OCLBoi's instruction names in order)", path);
	k->dataset_version = sibyl_kmodel_counts_version(j, k->names, k->nf);
	choice_of(json_object_get(j, "profile_choice"), k);
	return 0;
}

int sibyl_kmodel_kfit_load(const char *path, struct sibyl_kmodel_kfit *k, char *err,
			   size_t errlen)
{
	json_t *j;

	memset(k, 0, sizeof(*k));
	if (!(j = sibyl_kmodel_json_load_upto(path, FORMAT, "kernel model", 3, err, errlen)))
		return -1;
	int r = from_json(j, path, k, err, errlen);

	json_decref(j);
	if (r)
		sibyl_kmodel_kfit_free(k);
	return r;
}

void sibyl_kmodel_kfit_free(struct sibyl_kmodel_kfit *k)
{
	for (size_t j = 0; k->names && j < k->nf; j++)
		free(k->names[j]);
	free(k->names);
	free(k->kernel), free(k->file), free(k->profile), free(k->device), free(k->platform);
	free(k->opt_level), free(k->sibyl);
	free(k->g), free(k->t), free(k->C);
	sibyl_kmodel_boi_free(&k->b);
	memset(k, 0, sizeof(*k));
}
