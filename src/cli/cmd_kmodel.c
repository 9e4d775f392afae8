/* sibyl kmodel: predict an OpenCL kernel's time from small runs (docs/kmodel.md). */
#include "cli/commands.h"
#include "core/log.h"
#include "core/json.h"
#include "core/options.h"
#include "core/output.h"
#include "kmodel/dataset.h"
#include "kmodel/devmodel.h"
#include "kmodel/evaluate.h"
#include "kmodel/kfit.h"
#include "kmodel/predict.h"
#include "kmodel/table.h"
#include "kmodel/timemodel.h"
#include "kmodel/suite.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct sibyl_command_help dataset_help = {
	"kmodel dataset", "SUITE.json -o DATA.jsonl [-n SAMPLES] [-k NAME] [-O LEVEL] "
	"[--platform P --device D] "
	"[--timeout S]",
	"Sweep every kernel of a training suite (a manifest of OpenCL kernels and global sizes, "
	"e.g. tests/kernels/suite/suite.json) and append one JSON line per sample to DATA.jsonl: "
	"the dynamic LLVM instruction counts of an instrumented run and the device time of the "
	"plain kernel with the same arguments.  Resumable: global sizes already in DATA.jsonl "
	"are skipped, so an interrupted run carries on where it stopped.  See docs/kmodel.md.",
};

static int kmodel_dataset(int argc, char **argv)
{
	struct sibyl_kmodel_dataset_opts o = { .timeout_s = 60 };
	struct sibyl_kmodel_suite s;
	struct sibyl_option opts[] = {
		{ "output", 'o', SIBYL_OPT_STRING, &o.out, "DATA.jsonl",
		  "the dataset, created or carried on" },
		{ "samples", 'n', SIBYL_OPT_LONG, &o.samples, "N",
		  "samples per global size (the suite's, else 3)" },
		{ "kernel", 'k', SIBYL_OPT_STRING, &o.only, "NAME", "only this kernel of the suite" },
		{ "opt-level", 'O', SIBYL_OPT_STRING, &o.opt_level, "LEVEL",
		  "clang optimisation level of the counted IR (0)" },
		{ "platform", 'p', SIBYL_OPT_STRING, &o.platform, "P", "platform: index or name" },
		{ "device", 'd', SIBYL_OPT_STRING, &o.device, "D", "device: index or name" },
		{ "timeout", 0, SIBYL_OPT_DOUBLE, &o.timeout_s, "S",
		  "seconds a sample may run, 0: no limit (60)" },
		SIBYL_OPT_END,
	};
	int n, r = sibyl_cli_options(&dataset_help, opts, argc, argv, false, &n);
	char err[1024];

	if (r)
		return r > 0 ? 0 : 2;
	if (n != 1 || !o.out)
		return sibyl_err("kmodel dataset: expected SUITE.json and -o DATA.jsonl (see --help)"), 2;
	if (o.samples < 0 || o.samples > 1000 || !(o.timeout_s >= 0 && o.timeout_s <= 86400))
		return sibyl_err("kmodel dataset: -n must be in 0..1000 and --timeout in 0..86400"), 2;
	if (sibyl_kmodel_suite_read(argv[1], &s, err, sizeof(err)) < 0)
		return sibyl_err("%s", err), 1;
	r = sibyl_kmodel_dataset(&s, &o, err, sizeof(err));
	if (r < 0)
		sibyl_err("%s", err);
	sibyl_kmodel_suite_free(&s);
	return r ? 1 : 0;
}

static const struct sibyl_command_help evaluate_help = {
	"kmodel evaluate", "DATA.jsonl [--folds K] [--clock device|cpu] [--json] "
	"[--plot FILE.png [--force]]",
	"The thesis' experiment (Table 21.1), split by kernel: for each held-out kernel of a "
	"dataset, R^2 and RMSE of OCLMan (the time model trained on the other kernels, applied "
	"to the counts the kernel's own OCLBoi predicts) and of OCLBase (degree-2 polynomial of "
	"the global size and static counts).  See docs/kmodel.md.",
};

/* A level error R^2 >= 0.9 tolerates (the median kernel of the suite's
 * sweeps: docs/kmodel.md). */
#define LEVEL_CLOSE 0.15

/* predict's case (extrap): the median error, and R^2 at the sizes not
 * profiled of OCLMan and OCLBase, both calibrated on the profiled ones. */
static void print_extrap(const struct sibyl_kmodel_eval *e)
{
	double *ex = calloc(3 * e->n + 1, sizeof(*ex)), *man = ex + e->n, *base = man + e->n;
	size_t n = 0, better = 0;

	for (size_t i = 0; i < e->n; i++) {
		const struct sibyl_kmodel_eval_row *r = &e->rows[i];

		if (isnan(r->extrap_err) || isnan(r->extrap_r2))
			continue;
		man[n] = r->extrap_r2;
		base[n] = r->extrap_r2_base;
		/* A NaN OCLBase R^2 (one size left) is no better. */
		better += !(r->extrap_r2 <= r->extrap_r2_base);
		ex[n++] = r->extrap_err;
	}
	if (n)
		printf("extrap: from a profile chosen by time, calibrated: median error %.1f%% over "
		       "%zu kernels; R2 at the larger sizes: OCLMan %.4g, OCLBase %.4g, OCLMan "
		       "better on %zu\n", 100 * sibyl_kmodel_median(ex, n),
		       n, sibyl_kmodel_median(man, n), sibyl_kmodel_median(base, n), better);
	free(ex);
}

static void print_eval(const struct sibyl_kmodel_eval *e)
{
	double *man = calloc(e->n + 1, sizeof(*man)), *base = calloc(e->n + 1, sizeof(*base));
	double *own = calloc(e->n + 1, sizeof(*own));
	double *ce = calloc(e->n + 1, sizeof(*ce)), *te = calloc(e->n + 1, sizeof(*te));
	double *lv = calloc(e->n + 1, sizeof(*lv));
	size_t better = 0, nex = 0, close = 0;

	printf("%-16s %12s %12s %12s %12s %8s %9s  %-20s %s\n", "kernel", "OCLMan R2",
	       "OCLBase R2", "OCLMan RMSE", "OCLBase RMSE", "extrap", "extrap R2", "OCLBoi",
	       "time model");
	for (size_t i = 0; i < e->n; i++) {
		const struct sibyl_kmodel_eval_row *r = &e->rows[i];

		printf("%-16s %12.4g %12.4g %10.4g ms %10.4g ms %7.1f%% %9.4g  %-20s %s\n",
		       r->name, r->r2_oclman, r->r2_oclbase, r->rmse_oclman * 1e3,
		       r->rmse_oclbase * 1e3, 100 * r->extrap_err, r->extrap_r2, r->boi_kind,
		       r->time_kind);
		man[i] = r->r2_oclman;
		base[i] = r->r2_oclbase;
		own[i] = r->r2_counts;
		lv[i] = r->level;
		close += fabs(r->level - 1) <= LEVEL_CLOSE;
		better += r->r2_oclman > r->r2_oclbase;
		if (!isnan(r->extrap_err)) {
			ce[nex] = r->extrap_count_err;
			te[nex] = r->extrap_time_err;
			nex++;
		}
	}
	printf("median R2: OCLMan %.4g, OCLBase %.4g; OCLMan better on %zu of %zu kernels\n",
	       sibyl_kmodel_median(man, e->n), sibyl_kmodel_median(base, e->n), better, e->n);
	print_extrap(e);
	/* Which half errs: OCLBoi's counts or the time model. */
	printf("time model on measured counts: median R2 %.4g", sibyl_kmodel_median(own, e->n));
	if (nex)
		printf("; extrap error from OCLBoi's counts %.1f%%, from the calibrated time model "
		       "%.1f%%", 100 * sibyl_kmodel_median(ce, nex), 100 * sibyl_kmodel_median(te, nex));
	putchar('\n');
	sibyl_kmodel_median(lv, e->n);	/* sorts */
	printf("time model's level (measured / predicted on measured counts): %.3g..%.3g, "
	       "within %.0f%% on %zu of %zu kernels\n", lv[0], lv[e->n ? e->n - 1 : 0],
	       100 * LEVEL_CLOSE, close, e->n);
	free(man), free(base), free(own), free(ce), free(te), free(lv);
}

static void print_eval_json(const struct sibyl_kmodel_eval *e)
{
	json_t *ks = json_array();

	for (size_t i = 0; i < e->n; i++) {
		const struct sibyl_kmodel_eval_row *r = &e->rows[i];

		json_array_append_new(ks, json_pack("{s:s, s:f, s:f, s:f, s:f, s:s, s:f, s:s, s:f, "
			"s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "name", r->name, "r2_oclman", r->r2_oclman, "r2_oclbase",
			r->r2_oclbase, "rmse_oclman", r->rmse_oclman, "rmse_oclbase",
			r->rmse_oclbase, "oclboi", r->boi_kind, "oclboi_cv_r2", r->boi_score,
			"time_model", r->time_kind, "fit_seconds", r->fit_seconds, "extrap_error",
			sibyl_json_real_or_null(r->extrap_err), "extrap_r2",
			sibyl_json_real_or_null(r->extrap_r2), "extrap_r2_oclbase",
			sibyl_json_real_or_null(r->extrap_r2_base), "r2_counts", sibyl_json_real_or_null(r->r2_counts),
			"extrap_count_error", sibyl_json_real_or_null(r->extrap_count_err),
			"extrap_time_error", sibyl_json_real_or_null(r->extrap_time_err), "level",
			sibyl_json_real_or_null(r->level)));
	}
	json_t *top = json_pack("{s:o}", "kernels", ks);

	json_dumpf(top, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(top);
}

#define CLOCK_OPTION(v) { "clock", 0, SIBYL_OPT_STRING, &(v), "device|cpu", \
	"the time learnt: the device's, or the launch's CPU time (device)" }

/* --clock's name as a clock; 2 (said why) when it is neither. */
static int clock_arg(const char *cmd, const char *name, enum sibyl_kmodel_clock *c)
{
	if (!name)
		return *c = SIBYL_CLOCK_DEVICE, 0;
	if (sibyl_kmodel_clock_of(name, c) < 0)
		return sibyl_err("kmodel %s: --clock: '%s' is not device or cpu", cmd, name), 2;
	return 0;
}

static int kmodel_evaluate(int argc, char **argv)
{
	long folds = 5;
	bool json = false, force = false;
	const char *plot = NULL, *clock = NULL;
	enum sibyl_kmodel_clock c;
	struct sibyl_option opts[] = {
		{ "folds", 0, SIBYL_OPT_LONG, &folds, "K", "folds of kernels (5)" },
		CLOCK_OPTION(clock),
		{ "json", 0, SIBYL_OPT_FLAG, &json, NULL, "print one JSON object" },
		{ "plot", 0, SIBYL_OPT_STRING, &plot, "FILE.png|svg",
		  "measured and predicted times per held-out kernel" },
		{ "force", 'f', SIBYL_OPT_FLAG, &force, NULL, "replace an existing plot" },
		SIBYL_OPT_END,
	};
	int n, r = sibyl_cli_options(&evaluate_help, opts, argc, argv, false, &n);
	struct sibyl_kmodel_data d;
	struct sibyl_kmodel_table t;
	struct sibyl_kmodel_eval e;
	char err[1024];

	if (r)
		return r > 0 ? 0 : 2;
	if (n != 1)
		return sibyl_err("kmodel evaluate: expected DATA.jsonl (see --help)"), 2;
	if (folds < 2 || folds > 1000)
		return sibyl_err("kmodel evaluate: --folds: %ld is not in 2..1000", folds), 2;
	if (clock_arg("evaluate", clock, &c))
		return 2;
	r = sibyl_kmodel_data_read(argv[1], false, &d, err, sizeof(err));
	if (!r && !(r = sibyl_kmodel_table_build(&d, c, &t, err, sizeof(err)))) {
		r = sibyl_kmodel_evaluate(&t, (size_t)folds, &e, err, sizeof(err));
		if (!r && plot && (r = sibyl_kmodel_eval_plot(&e, plot, force, err, sizeof(err))))
			sibyl_kmodel_eval_free(&e);
		if (!r && json)
			print_eval_json(&e);
		else if (!r)
			print_eval(&e);
		if (!r)
			sibyl_kmodel_eval_free(&e);
		sibyl_kmodel_table_free(&t);
	}
	if (r)
		sibyl_err("%s", err);
	sibyl_kmodel_data_free(&d);
	return r ? 1 : 0;
}

static const struct sibyl_command_help train_help = {
	"kmodel train-device", "DATA.jsonl -o DEV.json [--clock device|cpu] [--force]",
	"Train the device's time model (instruction counts -> device time) on a dataset of the "
	"suite: its kind (linear, nonneg, nonneg-relative) chosen by 5-fold cross validation "
	"across kernels, then fitted on every kernel.  DEV.json keeps the device, the suite, "
	"sibyl's version and the cross validation's figures.  See docs/kmodel.md.",
};

static void print_device(const char *out, const struct sibyl_kmodel_device *m)
{
	printf("%s: %s time model of %s, %zu kernels; held-out median R^2 %.3f, "
	       "measured/predicted %.2f..%.2f (5%%..95%%); median error beyond each kernel's "
	       "profile %.0f%%, calibrated on it %.0f%%\n", out, sibyl_kmodel_tkind_name(m->tm.kind),
	       m->device, m->kernels, m->cv.median_r2, m->cv.lo, m->cv.hi,
	       100 * m->cv.err, 100 * m->cv.cal_err);
}

static int kmodel_train(int argc, char **argv)
{
	const char *out = NULL, *clock = NULL;
	bool force = false;
	enum sibyl_kmodel_clock c;
	struct sibyl_option opts[] = {
		{ "output", 'o', SIBYL_OPT_STRING, &out, "DEV.json", "the device model to write" },
		CLOCK_OPTION(clock),
		{ "force", 'f', SIBYL_OPT_FLAG, &force, NULL, "replace an existing DEV.json" },
		SIBYL_OPT_END,
	};
	int n, r = sibyl_cli_options(&train_help, opts, argc, argv, false, &n);
	struct sibyl_kmodel_data d;
	struct sibyl_kmodel_table t;
	struct sibyl_kmodel_device m;
	char err[1024];

	if (r)
		return r > 0 ? 0 : 2;
	if (n != 1 || !out)
		return sibyl_err("kmodel train-device: expected DATA.jsonl and -o DEV.json (see "
				 "--help)"), 2;
	if (clock_arg("train-device", clock, &c))
		return 2;
	r = sibyl_kmodel_data_read(argv[1], false, &d, err, sizeof(err));
	if (!r && !(r = sibyl_kmodel_table_build(&d, c, &t, err, sizeof(err)))) {
		r = sibyl_kmodel_device_train(&d, argv[1], &t, &m, err, sizeof(err));
		if (!r) {
			r = sibyl_kmodel_device_save(&m, out, force, err, sizeof(err));
			if (!r)
				print_device(out, &m);
			sibyl_kmodel_device_free(&m);
		}
		sibyl_kmodel_table_free(&t);
	}
	if (r)
		sibyl_err("%s", err);
	sibyl_kmodel_data_free(&d);
	return r ? 1 : 0;
}

/* The options of a kernel's profile, fit and predict alike: o is a
 * struct sibyl_kmodel_kfit_opts. */
#define PROFILE_OPTIONS(o)                                                                    \
	{ "file", 0, SIBYL_OPT_STRING, &(o).file, "FILE.cl",                                  \
	  "the OpenCL C file (or give it as the operand)" },                                  \
	{ "kernel", 'k', SIBYL_OPT_STRING, &(o).kernel, "NAME", "the kernel" },               \
	{ "profile", 0, SIBYL_OPT_STRING, &(o).profile, "FROM:TO:STEP",                       \
	  "global sizes profiled (default: chosen by the kernel's time)" },                   \
	{ "launch-factor", 0, SIBYL_OPT_DOUBLE, &(o).factor, "F",                             \
	  "profile up to a size that runs F times the launch (30)" },                         \
	{ "profile-budget", 0, SIBYL_OPT_DOUBLE, &(o).budget_s, "S",                          \
	  "seconds the chosen profile may take, 0: no limit (10)" },                          \
	{ "verbose", 'v', SIBYL_OPT_FLAG, &verbose, NULL, "say which sizes were profiled and why" }, \
	{ "lsize", 'l', SIBYL_OPT_LONG, &(o).lsize, "L", "local size (default: the runtime's)" }, \
	{ "samples", 'n', SIBYL_OPT_LONG, &(o).samples, "N", "samples per profiled size (3)" }, \
	{ "platform", 'p', SIBYL_OPT_STRING, &(o).platform, "P", "platform: index or name" }, \
	{ "device", 'd', SIBYL_OPT_STRING, &(o).device, "D", "device: index or name" },       \
	{ "timeout", 0, SIBYL_OPT_DOUBLE, &(o).timeout_s, "S",                                \
	  "seconds a sample may run, 0: no limit (60)" }

#define PROFILE_DEFAULTS .samples = 3, .timeout_s = 60, .factor = SIBYL_KMODEL_LAUNCH_FACTOR, \
	.budget_s = SIBYL_KMODEL_PROFILE_BUDGET

/* The operand as FILE.cl, then the profile's options checked. */
static int check_profile(const char *cmd, struct sibyl_kmodel_kfit_opts *o, int *n, char **argv)
{
	if (*n == 1 && !o->file)
		o->file = argv[1], *n = 0;
	if (o->samples < 1 || o->samples > 1000 || o->lsize < 0 ||
	    !(o->timeout_s >= 0 && o->timeout_s <= 86400))
		return sibyl_err("kmodel %s: -n must be in 1..1000, -l >= 0 and --timeout in "
				 "0..86400", cmd), 2;
	if (!(o->factor >= 1 && o->factor <= 1e6) || !(o->budget_s >= 0 && o->budget_s <= 86400))
		return sibyl_err("kmodel %s: --launch-factor must be in 1..1e6 and "
				 "--profile-budget in 0..86400", cmd), 2;
	return 0;
}

/* -v: the sizes profiled, and how they were chosen (sizes.h). */
static void print_choice(const struct sibyl_kmodel_kfit *k)
{
	const struct sibyl_kmodel_sizes *s = &k->sizes;
	char timed[1024] = "";
	size_t at = 0;

	if (!k->chosen) {
		sibyl_info("kmodel: %s profiled at %s (given)", k->kernel, k->profile);
		return;
	}
	for (size_t i = 0; i < s->n && at < sizeof(timed); i++)
		at += (size_t)snprintf(timed + at, sizeof(timed) - at, "%s%llu %.3g us",
				       i ? ", " : "", (unsigned long long)s->g[i], s->t[i] * 1e6);
	sibyl_info("kmodel: %s timed at %s (%.2f s); stopped by %s (launch %.3g us x %g, budget "
		   "%g s): profiled at %s", k->kernel, timed, s->spent_s,
		   sibyl_kmodel_stop_name(s->stop), s->launch_s * 1e6, s->factor, s->budget_s,
		   k->profile);
}

static const struct sibyl_command_help fit_help = {
	"kmodel fit", "FILE.cl -k NAME -o KERNEL.json [--profile FROM:TO:STEP | --launch-factor F] "
	"[--profile-budget S] [-l L] [-n SAMPLES] [-O LEVEL] [--clock device|cpu] [-v] [--force]",
	"Profile a kernel at small global sizes (instruction counts and device time, as kmodel "
	"dataset measures them; by default the sizes up to one where it runs 30 times the launch, "
	"found by timing it at doubling sizes) and write its OCLBoi, chosen by cross validation, to KERNEL.json "
	"with the samples and their provenance, for predict --kernel-model.  Count at the "
	"device model's -O level.  See docs/kmodel.md.",
};

static int kmodel_fit(int argc, char **argv)
{
	struct sibyl_kmodel_kfit_opts o = { PROFILE_DEFAULTS, .opt_level = "0" };
	const char *out = NULL, *clock = NULL;
	bool force = false, verbose = false;
	struct sibyl_option opts[] = {
		PROFILE_OPTIONS(o),
		{ "opt-level", 'O', SIBYL_OPT_STRING, &o.opt_level, "LEVEL",
		  "clang optimisation level of the counted IR (0)" },
		{ "output", 'o', SIBYL_OPT_STRING, &out, "KERNEL.json", "the kernel model to write" },
		CLOCK_OPTION(clock),
		{ "force", 'f', SIBYL_OPT_FLAG, &force, NULL, "replace an existing KERNEL.json" },
		SIBYL_OPT_END,
	};
	int n, r = sibyl_cli_options(&fit_help, opts, argc, argv, false, &n);
	struct sibyl_kmodel_kfit k;
	char err[1024];

	if (r)
		return r > 0 ? 0 : 2;
	if ((r = check_profile("fit", &o, &n, argv)) || (r = clock_arg("fit", clock, &o.clock)))
		return r;
	sibyl_set_verbose(verbose);
	if (n || !o.file || !o.kernel || !out)
		return sibyl_err("kmodel fit: expected FILE.cl, -k NAME and -o KERNEL.json (see "
				 "--help)"), 2;
	if (sibyl_output_check(out, force, NULL, err, sizeof(err)) < 0 ||
	    sibyl_kmodel_kfit_profile(&o, &k, err, sizeof(err)) < 0)
		return (err[0] ? sibyl_err("%s", err) : 0), 1;
	print_choice(&k);
	r = sibyl_kmodel_kfit_save(&k, out, force, err, sizeof(err));
	if (r)
		sibyl_err("%s", err);
	else
		printf("%s: %s of %s, OCLBoi %s (CV R^2 %.4f) from %zu samples at gsizes "
		       "%.0f..%.0f, -O%s on %s\n", out, k.kernel, k.file, k.b.kind, k.b.score, k.ns,
		       k.b.gmin, k.b.gmax, k.opt_level, k.device);
	sibyl_kmodel_kfit_free(&k);
	return r ? 1 : 0;
}

static const struct sibyl_command_help predict_help = {
	"kmodel predict", "--model DEV.json (FILE.cl -k NAME | --kernel-model KERNEL.json) "
	"--gsize N [--profile FROM:TO:STEP | --launch-factor F] [--profile-budget S] [-l L] "
	"[-n SAMPLES] [-v] [--json]",
	"OCLMan for any kernel: its OCLBoi (fitted on the fly from a profile at small global "
	"sizes, or read from kmodel fit's KERNEL.json) predicts its instruction counts at global "
	"size N, and the device's time model turns them into seconds.  The 5%..95% interval "
	"propagates OCLBoi's fit uncertainty through the time model and scales it by the time "
	"model's cross-validated error; a size far outside the profiled ones is warned about.  "
	"See docs/kmodel.md.",
};

/* 0, or -1 when the prediction could not be printed (said why). */
static int print_prediction(const struct sibyl_kmodel_prediction *p, double g, bool json)
{
	if (json) {
		json_t *j = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:f, s:f, s:f, s:b, s:s, s:o, "
				      "s:f}", "seconds", sibyl_json_real_or_null(p->seconds), "low",
				      sibyl_json_real_or_null(p->low), "high",
				      sibyl_json_real_or_null(p->high), "uncalibrated_seconds",
				      sibyl_json_real_or_null(p->uncalibrated), "calibration",
				      sibyl_json_real_or_null(p->calibration), "oclboi_half",
				      sibyl_json_real_or_null(p->oclboi_half), "gsize", g,
				      "profiled_min", p->gmin, "profiled_max", p->gmax, "far", p->far,
				      "oclboi", p->oclboi, "oclboi_cv_r2",
				      sibyl_json_real_or_null(p->oclboi_cv_r2), "fit_seconds",
				      p->fit_seconds);

		if (!j)
			return sibyl_err("kmodel: the prediction could not be written as JSON"), -1;
		json_dumpf(j, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(j);
		return 0;
	}
	printf("gsize %.0f: %.4g ms (%.4g .. %.4g ms); OCLBoi %s (CV R^2 %.4f) from gsizes "
	       "%.0f..%.0f\n", g, p->seconds * 1e3, p->low * 1e3, p->high * 1e3, p->oclboi,
	       p->oclboi_cv_r2, p->gmin, p->gmax);
	return 0;
}

/* The kernel's model: read from kfile, else profiled now on the device
 * model's device at its -O level. */
static int kernel_model(const struct sibyl_kmodel_device *m, const char *kfile,
			struct sibyl_kmodel_kfit_opts *o, struct sibyl_kmodel_kfit *k)
{
	char err[1024];

	o->opt_level = m->opt_level;
	o->clock = m->clock;	/* the profile's times calibrate the model's */
	/* The rule's launch reference, when the time at its first size is
	 * less (sizes.h). */
	o->launch_s = fmax(0, m->tm.b);
	if (kfile ? sibyl_kmodel_kfit_load(kfile, k, err, sizeof(err)) :
		    sibyl_kmodel_kfit_profile(o, k, err, sizeof(err)))
		return (err[0] ? sibyl_err("%s", err) : 0), -1;
	/* Counts are the device's own only when profiled now: a kernel
	 * model's OCLBoi is device-agnostic (the thesis' point). */
	if (!kfile && !sibyl_kmodel_same_device(k->device, k->compute_units, m->device,
						 m->compute_units)) {
		sibyl_err("kmodel: the model was trained on %s (%ld compute units), the kernel ran "
			  "on %s (%ld): train one for this device (kmodel train-device)",
			  m->device, m->compute_units, k->device, k->compute_units);
		sibyl_kmodel_kfit_free(k);
		return -1;
	}
	return 0;
}

static int kmodel_predict(int argc, char **argv)
{
	struct sibyl_kmodel_kfit_opts o = { PROFILE_DEFAULTS };
	const char *model = NULL, *kfile = NULL;
	bool json = false, force = false, verbose = false;
	double g = 0;
	struct sibyl_option opts[] = {
		{ "model", 'm', SIBYL_OPT_STRING, &model, "DEV.json", "the device model" },
		{ "kernel-model", 0, SIBYL_OPT_STRING, &kfile, "KERNEL.json",
		  "the kernel's model (kmodel fit) instead of a profile now" },
		PROFILE_OPTIONS(o),
		/* -f is --force in every command; `-f FILE.cl` thus still
		 * names the file, as the operand (docs/cli.md). */
		{ "force", 'f', SIBYL_OPT_FLAG, &force, NULL, "accepted; predict writes no file" },
		{ "gsize", 'g', SIBYL_OPT_DOUBLE, &g, "N", "the global size to predict" },
		{ "json", 0, SIBYL_OPT_FLAG, &json, NULL, "print {seconds, low, high, ...}" },
		SIBYL_OPT_END,
	};
	int n, r = sibyl_cli_options(&predict_help, opts, argc, argv, false, &n);
	struct sibyl_kmodel_device m;
	struct sibyl_kmodel_kfit k;
	struct sibyl_kmodel_prediction p;
	char err[1024];

	if (r)
		return r > 0 ? 0 : 2;
	if ((r = check_profile("predict", &o, &n, argv)))
		return r;
	sibyl_set_verbose(verbose);
	if (n || !model || !(kfile ? !o.file && !o.kernel : o.file && o.kernel) || !(g >= 1))
		return sibyl_err("kmodel predict: expected --model, either -f FILE.cl and -k NAME "
				 "or --kernel-model KERNEL.json, and --gsize N >= 1 (see --help)"), 2;
	if (sibyl_kmodel_device_load(model, &m, err, sizeof(err)) < 0)
		return sibyl_err("%s", err), 1;
	if (kernel_model(&m, kfile, &o, &k) < 0)
		return sibyl_kmodel_device_free(&m), 1;
	print_choice(&k);
	r = sibyl_kmodel_predict(&m, &k, g, &p, err, sizeof(err));
	if (r)
		sibyl_err("%s", err);
	else if (!(r = print_prediction(&p, g, json)) && p.far)
		sibyl_warn("kmodel: global size %.0f is far outside the profiled %.0f..%.0f: the "
			   "prediction extrapolates (profile larger sizes with --profile)", g,
			   p.gmin, p.gmax);
	sibyl_kmodel_kfit_free(&k);
	sibyl_kmodel_device_free(&m);
	return r ? 1 : 0;
}

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} subcommands[] = {
	{ "dataset", kmodel_dataset }, { "evaluate", kmodel_evaluate },
	{ "train-device", kmodel_train }, { "fit", kmodel_fit }, { "predict", kmodel_predict },
};

static const struct sibyl_command_help kmodel_help = {
	"kmodel", "dataset|evaluate|train-device|fit|predict ...",
	"Predict an OpenCL kernel's device time at any global size from small runs (OCLMan, "
	"Niarchos 2020 Part VII).  Subcommands: dataset (sweep a training suite into counts and "
	"times), evaluate (OCLMan against OCLBase on held-out kernels), train-device (the device's "
	"time model), fit (a kernel's OCLBoi, saved), predict (a kernel's time at any global size).  See docs/kmodel.md.",
};

int cmd_kmodel(int argc, char **argv)
{
	struct sibyl_option opts[] = { SIBYL_OPT_END };
	int n, r;

	for (size_t i = 0; argc > 1 && i < sizeof(subcommands) / sizeof(*subcommands); i++)
		if (!strcmp(argv[1], subcommands[i].name))
			return subcommands[i].run(argc - 1, argv + 1);
	r = sibyl_cli_options(&kmodel_help, opts, argc, argv, true, &n);
	if (r)
		return r > 0 ? 0 : 2;
	if (n)
		return sibyl_err("kmodel: '%s' is not a subcommand: dataset, evaluate, train-device, fit, predict (see --help)", argv[1]), 2;
	return sibyl_err("kmodel: expected a subcommand: dataset, evaluate, train-device, fit, predict (see --help)"), 2;
}
