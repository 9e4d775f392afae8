/* sibyl predict: whole-program speedup if modelled calls ran accelerated. */
#include "cli/commands.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/options.h"
#include "model/profile.h"
#include "ocl/device/device_profile.h"
#include "predict/predict.h"
#include "sibyl/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct sibyl_command_help help = {
	"predict", "TRACE... --model FUNC=PROFILE.json... [--transfer DEVICE.json] [--best-of] "
	"[--outside extrapolate|keep] [--actual TRACE2 | --verify [--wrap ACCEL.so]...] [--plot FILE] "
	"[--json]",
	"Predict the whole program's speedup if the calls of FUNC (a glob on traced function "
	"names; repeat --model for several kernels) ran in the implementation PROFILE measures "
	"(sibyl plan), each call's work read in the profile's work metric.  --transfer adds "
	"each call's host<->device transfers from a device profile (sibyl device).  --verify "
	"runs the traced command again, in its directory and in this environment, under "
	"sibyl trace with the --wrap libraries (a redirect wrapper; default: the traced "
	"run's), and compares; before each such run the original runs again as it was "
	"traced (TRACE.original), so each pair meets the machine alike and their medians "
	"are compared.  Several TRACEs, runs of one command, give the median prediction, "
	"their spread in its interval; the other options apply to the median one.  Docs: "
	"docs/predict.md.",
};

struct loaded {
	struct sibyl_predict_model *models;
	size_t n;
	struct sibyl_device_profile device;
};

static void unload(struct loaded *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free((char *)l->models[i].pattern);
		sibyl_profile_free((struct sibyl_profile *)l->models[i].profile);
	}
	free(l->models);
}

/* "FUNC=PROFILE.json" each; the pattern before the first '='. */
static int load_models(const struct sibyl_strlist *specs, struct loaded *l)
{
	char err[1024];

	l->models = sibyl_xcalloc(specs->count, sizeof(*l->models));
	for (size_t i = 0; i < specs->count; i++) {
		const char *spec = specs->items[i], *eq = strchr(spec, '=');

		if (!eq || eq == spec || !eq[1])
			return sibyl_err("predict: --model %s: expected FUNC=PROFILE.json", spec);
		struct sibyl_predict_model *m = &l->models[l->n++];

		m->pattern = sibyl_xstrndup(spec, (size_t)(eq - spec));
		m->path = eq + 1;
		m->profile = sibyl_profile_load(m->path, err, sizeof(err));
		if (!m->profile)
			return sibyl_err("predict: %s", err);
	}
	return 0;
}

static int parse_outside(const char *s, enum sibyl_outside_rule *rule)
{
	if (!strcmp(s, "extrapolate"))
		*rule = SIBYL_OUTSIDE_EXTRAPOLATE;
	else if (!strcmp(s, "keep"))
		*rule = SIBYL_OUTSIDE_KEEP;
	else
		return sibyl_err("predict: --outside: '%s' is neither extrapolate nor keep", s);
	return 0;
}

/* --actual: the same kernels in the accelerated run's trace. */
static int compare(const char *dir, const struct sibyl_predict_options *o,
		   struct sibyl_prediction *p)
{
	char err[1024];
	struct sibyl_trace *t = sibyl_trace_open(dir, err, sizeof(err));
	int rc;

	if (!t)
		return sibyl_err("predict: --actual: %s", err);
	rc = sibyl_predict_compare(t, o, p, err, sizeof(err));
	sibyl_trace_close(t);
	return rc < 0 ? sibyl_err("predict: --actual %s: %s", dir, err) : 0;
}

struct outputs {
	const char *actual;	/* --actual TRACE2, or NULL */
	bool verify;		/* --verify: run the accelerated program */
	bool accelerated_only;	/* --verify without the original's re-runs */
	struct sibyl_verify run;
	const char *plot;	/* --plot FILE, or NULL */
	bool force, json;
};

/* One trace opened and predicted: 0, or 1 after one line (*t NULL). */
static int predict_one(const char *dir, const struct sibyl_predict_options *o,
		       struct sibyl_trace **t, struct sibyl_prediction *p)
{
	char err[1024];

	if (!(*t = sibyl_trace_open(dir, err, sizeof(err))))
		return sibyl_err("predict: %s", err), 1;
	if (sibyl_predict(*t, o, p, err, sizeof(err)) == 0)
		return 0;
	sibyl_trace_close(*t);
	*t = NULL;
	return sibyl_err("predict: %s", err), 1;
}

/* Each trace predicted; several must be runs of one command, and the
 * one of median global speedup speaks for them (sibyl_predict_runs):
 * it stays open in *t, its prediction in *p, its directory in *chosen.
 * 0, or 1 after one line. */
static int predict_all(char **dirs, size_t n, const struct sibyl_predict_options *o,
		       struct sibyl_trace **t, struct sibyl_prediction *p, const char **chosen)
{
	struct sibyl_trace **ts = sibyl_xcalloc(n, sizeof(*ts));
	struct sibyl_prediction *ps = sibyl_xcalloc(n, sizeof(*ps));
	size_t m = 0;
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		rc = predict_one(dirs[i], o, &ts[i], &ps[i]);
		if (!rc && i && strcmp(sibyl_trace_meta(ts[i])->command,
				       sibyl_trace_meta(ts[0])->command))
			rc = sibyl_err("predict: %s traced '%s', %s '%s': several traces must be "
				       "runs of one command", dirs[0], sibyl_trace_meta(ts[0])->command,
				       dirs[i], sibyl_trace_meta(ts[i])->command);
	}
	if (!rc)
		m = sibyl_predict_runs(ps, n);
	for (size_t i = 0; i < n; i++)
		if (ts[i] && (rc || i != m)) {
			sibyl_prediction_free(&ps[i]);
			sibyl_trace_close(ts[i]);
		}
	*t = rc ? NULL : ts[m];
	*p = ps[m];
	*chosen = dirs[m];
	free(ts);
	free(ps);
	return rc ? 1 : 0;
}

static char *verify_out, *original_out;	/* the default trace directories, malloc'd */

/* TRACE.suffix, whatever slashes end TRACE; malloc'd. */
static char *sibling(const char *trace, const char *suffix)
{
	size_t n = strlen(trace);

	while (n > 1 && trace[n - 1] == '/')
		n--;
	return sibyl_xasprintf("%.*s%s", (int)n, trace, suffix);
}

/* --verify's default directories sit beside the trace that is verified:
 * of several, the one whose prediction is reported. */
static void verify_defaults(const char *trace, struct outputs *w)
{
	if (!w->verify)
		return;
	if (!w->run.out)
		w->run.out = verify_out = sibling(trace, ".accelerated");
	if (!w->accelerated_only)
		w->run.original_out = original_out = sibling(trace, ".original");
}

static int run(char **dirs, size_t n, struct outputs *w, const struct sibyl_predict_options *o)
{
	char err[1024];
	struct sibyl_trace *t;
	struct sibyl_prediction p;
	const char *chosen;
	int rc = 0;

	if (predict_all(dirs, n, o, &t, &p, &chosen))
		return 1;
	verify_defaults(chosen, w);
	if (w->actual && compare(w->actual, o, &p) < 0)
		rc = 1;
	else if (w->verify && sibyl_predict_verify(t, &w->run, o, &p, err, sizeof(err)) < 0)
		rc = 1, sibyl_err("predict: %s", err);
	else if (w->plot && sibyl_prediction_plot(o, &p, w->plot, w->force, err, sizeof(err)) < 0)
		rc = 1, sibyl_err("predict: %s", err);
	if (rc) {
		sibyl_prediction_free(&p);
		sibyl_trace_close(t);
		return 1;
	}
	if (w->json)
		rc = sibyl_prediction_print_json(stdout, t, &p);
	else
		sibyl_prediction_print_text(stdout, t, &p);
	if (fflush(stdout) || rc)
		rc = sibyl_err_errno("predict: writing the prediction");
	sibyl_prediction_free(&p);
	sibyl_trace_close(t);
	return rc ? 1 : 0;
}

/* --verify's settings; -1 after one line on a usage error. */
static int verify_setup(const struct sibyl_strlist *wraps, long runs, struct outputs *w)
{
	if (!w->verify)
		return wraps->count || w->run.out || w->run.show_output || w->accelerated_only ?
		       sibyl_err("predict: --wrap, --verify-trace, --show-output and "
				 "--accelerated-only go with --verify") : 0;
	if (w->actual)
		return sibyl_err("predict: --actual compares with a trace, --verify makes one: "
				 "give one of them");
	if (runs < 1 || runs > 1000)
		return sibyl_err("predict: --runs must be between 1 and 1000");
	w->run.sibyl = "/proc/self/exe";
	w->run.wrappers = wraps->count ? wraps->items : NULL;
	w->run.nwrappers = wraps->count;
	w->run.runs = (unsigned)runs;
	w->run.replace = w->force;
	return 0;
}

int cmd_predict(int argc, char **argv)
{
	struct sibyl_strlist specs = { 0 }, wraps = { 0 };
	long runs = 3;
	const char *transfer = NULL, *outside = "extrapolate";
	struct outputs w = { 0 };
	bool best_of = false, other_machine = false, no_one_time = false;
	char err[1024];
	struct sibyl_option opts[] = {
		{ "model", 'm', SIBYL_OPT_LIST, &specs, "FUNC=PROFILE", "predict FUNC's calls with this profile (repeatable; FUNC is a glob)" },
		{ "transfer", 0, SIBYL_OPT_STRING, &transfer, "DEVICE.json", "add host<->device transfers from this device profile" },
		{ "best-of", 0, SIBYL_OPT_FLAG, &best_of, NULL, "per call, the faster of measured and predicted" },
		{ "outside", 0, SIBYL_OPT_STRING, &outside, "RULE", "calls outside a profile's points: extrapolate (default) or keep" },
		{ "no-one-time", 0, SIBYL_OPT_FLAG, &no_one_time, NULL, "leave the accelerated path's one-time costs out" },
		{ "other-machine", 0, SIBYL_OPT_FLAG, &other_machine, NULL, "accept profiles measured on another host (a what-if)" },
		{ "actual", 0, SIBYL_OPT_STRING, &w.actual, "TRACE2", "compare with this trace of the accelerated run" },
		{ "verify", 0, SIBYL_OPT_FLAG, &w.verify, NULL, "run the traced command accelerated and compare" },
		{ "wrap", 'w', SIBYL_OPT_LIST, &wraps, "LIB.so", "--verify: interpose this wrapper (repeatable; default: the traced run's)" },
		{ "runs", 0, SIBYL_OPT_LONG, &runs, "N", "--verify: compare with the median of N runs (default 3)" },
		{ "accelerated-only", 0, SIBYL_OPT_FLAG, &w.accelerated_only, NULL, "--verify: do not run the original again before each accelerated run" },
		{ "verify-trace", 0, SIBYL_OPT_STRING, &w.run.out, "DIR", "--verify: trace the accelerated runs here (default: TRACE.accelerated)" },
		{ "show-output", 0, SIBYL_OPT_FLAG, &w.run.show_output, NULL, "--verify: let the program's standard output through" },
		{ "plot", 0, SIBYL_OPT_STRING, &w.plot, "FILE", "plot each call's measured and predicted time (.png or .svg)" },
		{ "force", 'f', SIBYL_OPT_FLAG, &w.force, NULL, "replace an existing plot or accelerated trace" },
		{ "json", 0, SIBYL_OPT_FLAG, &w.json, NULL, "print one JSON object" },
		SIBYL_OPT_END,
	};
	struct sibyl_predict_options o = { .best_of = false };
	struct loaded l = { 0 };
	int operands, r = sibyl_cli_options(&help, opts, argc, argv, false, &operands);

	if (r)
		return r > 0 ? 0 : 2;
	if (operands < 1 || !specs.count) {
		sibyl_err("predict: expected a trace directory and at least one --model (see --help)");
		sibyl_strlist_free(&specs);
		return 2;
	}
	r = parse_outside(outside, &o.outside) < 0 || verify_setup(&wraps, runs, &w) < 0 ?
	    2 : 0;
	if (!r && load_models(&specs, &l) < 0)
		r = 1;
	if (!r && transfer && sibyl_device_profile_load(transfer, &l.device, err, sizeof(err)) < 0)
		r = -sibyl_err("%s", err);
	if (!r) {
		o.models = l.models;
		o.nmodels = l.n;
		o.transfer = transfer ? &l.device : NULL;
		o.best_of = best_of;
		o.other_machine = other_machine;
		o.no_one_time = no_one_time;
		r = run(argv + 1, (size_t)operands, &w, &o);
	}
	unload(&l);
	free(verify_out);
	free(original_out);
	sibyl_strlist_free(&specs);
	sibyl_strlist_free(&wraps);
	return r;
}
