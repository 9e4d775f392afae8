/* sibyl plan: adaptive performance profiles of an implementation (docs/plan.md). */
#include "cli/commands.h"
#include "core/log.h"
#include "core/options.h"
#include "planner/envelope.h"
#include "planner/plot.h"
#include "planner/report.h"
#include "planner/session.h"

#include <stdio.h>
#include <string.h>

static const struct sibyl_command_help help = {
	"plan", "COMMAND ... (run, evaluate, envelope, show or list: sibyl plan COMMAND --help)\n"
	"       sibyl plan --adapter NAME|--adapter-so FILE.so[:NAME] [options] -o PROFILE.json\n"
	"       sibyl plan --list-adapters [--adapter-so FILE.so] [--json]\n"
	"       sibyl plan --adapter NAME --evaluate N [--evaluate-metrics] [--json]\n"
	"       sibyl plan --adapter NAME --profile PROFILE.json --evaluate N [--json]",
	"Sample an implementation through its adapter with the planner heuristic of "
	"Wernsing & Stitt (2010) and write its piecewise-linear performance profile "
	"(docs/profile-format.md).  Percentages are given in percent (10 = 10%).  "
	"--evaluate N plans, then measures N random work metrics and compares the profile "
	"and three baselines with the same sample budget each against them; adapters that can draw "
	"random invocation parameters (--list-adapters) are measured at those instead, "
	"predicted through their work metric, as in the paper.  With --profile it evaluates "
	"a profile planned before instead of planning.  Sampling runs in a "
	"worker process: a crashing or hanging adapter stops the planner with one line, "
	"keeping the part of the profile already found.  Without a command, the options "
	"say which: `plan run`, `plan evaluate` (--evaluate, --profile) or `plan list` "
	"(--list-adapters).",
};

static const struct sibyl_command_help run_help = {
	"plan run", "--adapter NAME|--adapter-so FILE.so[:NAME] [options] -o PROFILE.json",
	"Plan a profile of an implementation (sibyl plan --help), and evaluate it too with "
	"--evaluate N.",
};

static const struct sibyl_command_help evaluate_help = {
	"plan evaluate", "--adapter NAME|--adapter-so FILE.so[:NAME] [--profile PROFILE.json] "
	"[-e N] [options]",
	"Measure N random work metrics (100 unless -e N; or random invocation parameters) "
	"against a profile: one planned now (and saved with -o), or a stored one "
	"(--profile), and against three baselines with the same sample budget each "
	"(sibyl plan --help).",
};

struct plan_opts {
	bool list, json;
	const char *adapter, *adapter_so;
	struct sibyl_plan_settings set;   /* as the user gives them (planner/request.h) */
	struct sibyl_plan_job job;
};

static void print_failure(void *ctx, const char *why)
{
	(void)ctx;
	sibyl_err("plan: %s", why);
}

/* plan run and plan evaluate: the session does the work. */
static int plan_profile(struct plan_opts *o)
{
	struct sibyl_plan_session s = { 0 };
	char err[1024];
	int status = 2;

	if (!o->adapter == !o->adapter_so)
		return sibyl_err("plan: name one adapter with --adapter or --adapter-so "
				 "(see --list-adapters)"), 2;
	o->job.range_given = o->set.range != NULL;
	if (sibyl_plan_job_check(&o->job, err, sizeof(err)) ||
	    sibyl_plan_session_open(&s, o->adapter, o->adapter_so, &o->set, err, sizeof(err))) {
		sibyl_err("plan: %s", err);
	} else {
		sibyl_plan_stop_on_signals();
		status = sibyl_plan_session_run(&s, &o->job, print_failure, NULL);
		if (sibyl_plan_session_has_result(&s))
			sibyl_plan_print_result(stdout, &s, o->json);
	}
	sibyl_plan_session_close(&s);
	return status;
}

static int list_adapters(const char *adapter_so, bool json)
{
	struct sibyl_adapter_list l;
	char err[1024];

	if (adapter_so && sibyl_adapters_open(&l, adapter_so, err, sizeof(err)))
		return sibyl_err("plan: %s", err), 1;
	if (!adapter_so)
		sibyl_adapters_builtin(&l);
	sibyl_plan_print_adapters(stdout, &l, json);
	sibyl_adapters_close(&l);
	return 0;
}

/* The planner settings' options (planner/request.h checks the values). */
#define SETTINGS_OPTIONS(set) \
	{ "threads", 't', SIBYL_OPT_LONG, &(set).threads, "N", \
	  "threads for a threaded adapter (1)" }, \
	{ "range", 'r', SIBYL_OPT_STRING, &(set).range, "LO:HI", \
	  "work metric range (the adapter's by default)" }, \
	{ "seed", 0, SIBYL_OPT_LONG, &(set).seed, "S", "random seed (1): same seed, same samples" }, \
	{ "segment-error", 0, SIBYL_OPT_DOUBLE, &(set).segment_error, "P", \
	  "max confidence-interval width of a segment, % of its time (10)" }, \
	{ "sample-error", 0, SIBYL_OPT_DOUBLE, &(set).sample_error, "P", \
	  "error beyond which a sample is out of range, % (10)" }, \
	{ "growth", 0, SIBYL_OPT_DOUBLE, &(set).growth, "P", "interval growth factor, % (10)" }, \
	{ "confidence", 0, SIBYL_OPT_DOUBLE, &(set).confidence, "P", "confidence level, % (95)" }, \
	{ "timeout", 0, SIBYL_OPT_DOUBLE, &(set).timeout, "SEC", \
	  "time limit of one run of a sample (10)" }, \
	{ "repeat", 0, SIBYL_OPT_LONG, &(set).repeat, "K", \
	  "runs per sample at least, spread over the rounds (3; the paper: 1)" }, \
	{ "rounds", 0, SIBYL_OPT_LONG, &(set).rounds, "N", \
	  "a sample is N rounds of its runs, 2 ms apart, and takes the fastest round's " \
	  "time (3; 1 = one round, as in the paper)" }, \
	{ "sample-time", 0, SIBYL_OPT_DOUBLE, &(set).sample_ms, "MS", \
	  "more runs per round until they add up to MS (1; 0 = just --repeat)" }, \
	{ "speed-guard", 0, SIBYL_OPT_DOUBLE, &(set).speed_guard, "SEC", \
	  "drop runs timed while the CPU is slower than its best (a VM sharing its core) " \
	  "and run them again, spending at most SEC per sample on waiting and dropped " \
	  "runs (2; 0 = off, as in the paper)" }, \
	{ "speed-guard-tolerance", 0, SIBYL_OPT_DOUBLE, &(set).guard_tolerance, "P", \
	  "the speed guard's reference counts as calm up to P% above its best (10)" }, \
	{ "fit-error", 0, SIBYL_OPT_DOUBLE, &(set).fit_error, "P", \
	  "a segment's line must pass this close to the mean of each third of its " \
	  "samples, % (2; 0 = off, as in the paper)" }, \
	{ "fit", 0, SIBYL_OPT_STRING, &(set).fit, "KIND", \
	  "least squares of each segment: 'relative' residuals (weights 1/time^2; the " \
	  "default) or 'ols', ordinary, as in the paper" }, \
	{ "max-samples", 0, SIBYL_OPT_LONG, &(set).max_samples, "N", \
	  "safety stop after N samples (2000; with --from-trace or --metrics, the " \
	  "budget: 400; 0 = none)" }, \
	{ "max-seconds", 0, SIBYL_OPT_DOUBLE, &(set).max_seconds, "SEC", \
	  "safety stop after SEC seconds of planning (600; 0 = none)" }, \
	{ "device", 0, SIBYL_OPT_STRING, &(set).device, "NAME", \
	  "OpenCL device for OpenCL adapters" }, \
	{ "platform", 0, SIBYL_OPT_STRING, &(set).platform, "NAME", "OpenCL platform" }

/* What to do with the profile (planner/session.h). */
#define JOB_OPTIONS(job) \
	{ "evaluate", 'e', SIBYL_OPT_LONG, &(job).evaluate, "N", \
	  "after planning, measure N random work metrics (or parameters) against the " \
	  "profile" }, \
	{ "evaluate-csv", 0, SIBYL_OPT_STRING, &(job).evaluate_csv, "FILE", \
	  "write every evaluation point (its two measurements and the three predictions) " \
	  "as CSV" }, \
	{ "profile", 0, SIBYL_OPT_STRING, &(job).profile, "FILE", \
	  "evaluate this profile, planned before for the same adapter, instead of " \
	  "planning (its range, unless --range)" }, \
	{ "evaluate-metrics", 0, SIBYL_OPT_FLAG, &(job).evaluate_metrics, NULL, \
	  "evaluate at random work metrics even where the adapter can draw random " \
	  "parameters" }, \
	{ "from-trace", 0, SIBYL_OPT_STRING, &(job).from_trace, "TRACE", \
	  "plan where a traced program calls: sample the work metrics its calls of " \
	  "--function used, by their share of its time, and check the profile against " \
	  "those calls (with --profile: check a stored profile)" }, \
	{ "function", 0, SIBYL_OPT_STRING, &(job).function, "NAME", \
	  "the traced function --from-trace plans for" }, \
	{ "replay", 0, SIBYL_OPT_FLAG, &(job).replay, NULL, \
	  "with --from-trace: run the traced calls in the order the program made them, " \
	  "each timed once, so each meets the cache and heap its predecessors left" }, \
	{ "metrics", 0, SIBYL_OPT_STRING, &(job).metrics, "FILE", \
	  "plan at the work metrics listed in FILE, one a line: METRIC [WEIGHT]" }, \
	{ "output", 'o', SIBYL_OPT_STRING, &(job).output, "FILE", "the profile to write" }, \
	{ "force", 'f', SIBYL_OPT_FLAG, &(job).force, NULL, "replace an existing output" }

/*
 * Today's spellings (`sibyl plan -a NAME ...`, --list-adapters), plan run
 * and plan evaluate share one table; only the first takes --list-adapters.
 * evaluate is the default for -e.
 */
static int plan_with(const struct sibyl_command_help *h, int argc, char **argv, long evaluate)
{
	bool legacy = h == &help;	/* only `sibyl plan` still takes --list-adapters */
	struct plan_opts o = { .job.evaluate = evaluate };
	const struct sibyl_option opts[] = {
		{ "list-adapters", 0, SIBYL_OPT_FLAG, &o.list, NULL, "list the adapters and exit" },
		{ "adapter", 'a', SIBYL_OPT_STRING, &o.adapter, "NAME", "a built-in adapter" },
		{ "adapter-so", 0, SIBYL_OPT_STRING, &o.adapter_so, "FILE.so[:NAME]",
		  "an adapter exported by a shared object (include/sibyl/adapter.h)" },
		SETTINGS_OPTIONS(o.set),
		JOB_OPTIONS(o.job),
		{ "json", 0, SIBYL_OPT_FLAG, &o.json, NULL, "print one JSON object" },
		SIBYL_OPT_END,
	};
	int operands, r;

	sibyl_plan_settings_defaults(&o.set);
	r = sibyl_cli_options(h, legacy ? opts : opts + 1, argc, argv, false, &operands);
	if (r)
		return r > 0 ? 0 : 2;
	if (operands)
		return sibyl_err("%s: unexpected operand '%s' (see --help)", h->name, argv[1]), 2;
	if (o.list)
		return list_adapters(o.adapter_so, o.json);
	return plan_profile(&o);
}

static int plan_main(int argc, char **argv)
{
	return plan_with(&help, argc, argv, 0);
}

static int plan_run(int argc, char **argv)
{
	return plan_with(&run_help, argc, argv, 0);
}

static int plan_evaluate(int argc, char **argv)
{
	return plan_with(&evaluate_help, argc, argv, 100);
}

static const struct sibyl_command_help list_help = {
	"plan list", "[--adapter-so FILE.so] [--json]",
	"List the built-in adapters, or those a shared object exports: name, work metric "
	"range, kind (serial, threads, opencl), description and work metric.",
};

static int plan_list(int argc, char **argv)
{
	const char *adapter_so = NULL;
	bool json = false;
	struct sibyl_option opts[] = {
		{ "adapter-so", 0, SIBYL_OPT_STRING, &adapter_so, "FILE.so",
		  "the adapters a shared object exports (include/sibyl/adapter.h)" },
		{ "json", 0, SIBYL_OPT_FLAG, &json, NULL, "print a JSON array" },
		SIBYL_OPT_END,
	};
	int n, r = sibyl_cli_options(&list_help, opts, argc, argv, false, &n);

	if (r)
		return r > 0 ? 0 : 2;
	if (n)
		return sibyl_err("plan list: unexpected operand '%s' (see --help)", argv[1]), 2;
	return list_adapters(adapter_so, json);
}

static const struct sibyl_command_help envelope_help = {
	"plan envelope", "A.json B.json ... -o OUT.json [--force] [--json]",
	"Overlay performance profiles of implementations of the same function and keep the "
	"lowest envelope: the fastest implementation at each work metric.  The output is a "
	"profile whose \"pieces\" say which implementation wins where.",
};

static int plan_envelope(int argc, char **argv)
{
	const char *output = NULL;
	bool force = false, json = false;
	struct sibyl_option opts[] = {
		{ "output", 'o', SIBYL_OPT_STRING, &output, "FILE", "the envelope profile to write" },
		{ "force", 'f', SIBYL_OPT_FLAG, &force, NULL, "replace an existing output" },
		{ "json", 0, SIBYL_OPT_FLAG, &json, NULL, "print the pieces as JSON" },
		SIBYL_OPT_END,
	};
	int n, r = sibyl_cli_options(&envelope_help, opts, argc, argv, false, &n);
	char err[1024];

	if (r)
		return r > 0 ? 0 : 2;
	if (n < 1 || !output)
		return sibyl_err("plan envelope: expected profiles and -o OUT.json (see --help)"), 2;
	struct sibyl_profile *env = sibyl_envelope_files((const char *const *)argv + 1, (size_t)n,
							 output, force, err, sizeof(err));

	if (!env)
		return sibyl_err("plan envelope: %s", err), 1;
	sibyl_envelope_print(stdout, env, json);
	sibyl_profile_free(env);
	return 0;
}

static const struct sibyl_command_help show_help = {
	"plan show", "PROFILE.json [-o PLOT.png|PLOT.svg [--force] [--linear]]",
	"Show a profile: as text (what it is of, its range, points, segments and an "
	"envelope's pieces), or with -o as a plot: its samples as points and its "
	"piecewise-linear profile as lines (an envelope: one colour per implementation), "
	"with a legend; an axis whose data span two decades or more is logarithmic, and "
	"an incomplete profile is plotted over the range it covers.  The plot's format "
	"follows the extension.",
};

static int plan_show(int argc, char **argv)
{
	const char *output = NULL;
	bool force = false, linear = false;
	struct sibyl_option opts[] = {
		{ "output", 'o', SIBYL_OPT_STRING, &output, "FILE", "PNG or SVG file to write" },
		{ "force", 'f', SIBYL_OPT_FLAG, &force, NULL, "replace an existing output" },
		{ "linear", 0, SIBYL_OPT_FLAG, &linear, NULL,
		  "linear axes even where the data span decades" },
		SIBYL_OPT_END,
	};
	int n, r = sibyl_cli_options(&show_help, opts, argc, argv, false, &n);
	char err[1024];

	if (r)
		return r > 0 ? 0 : 2;
	if (n != 1)
		return sibyl_err("plan show: expected one profile (see --help)"), 2;
	if (linear && !output)
		return sibyl_err("plan show: --linear is for a plot: give -o PLOT.png"), 2;
	struct sibyl_profile *p = sibyl_profile_load(argv[1], err, sizeof(err));

	if (!p)
		return sibyl_err("plan show: %s", err), 1;
	r = output ? sibyl_plot_profile(p, output, force, linear, err, sizeof(err)) : 0;
	if (r)
		sibyl_err("plan show: %s", err);
	else if (!output)
		sibyl_plan_print_profile(stdout, p);
	sibyl_profile_free(p);
	return r ? 1 : 0;
}

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} subcommands[] = {
	{ "run", plan_run }, { "evaluate", plan_evaluate }, { "envelope", plan_envelope },
	{ "show", plan_show }, { "list", plan_list },
};

int cmd_plan(int argc, char **argv)
{
	for (size_t i = 0; argc > 1 && i < sizeof(subcommands) / sizeof(*subcommands); i++)
		if (!strcmp(argv[1], subcommands[i].name))
			return subcommands[i].run(argc - 1, argv + 1);
	return plan_main(argc, argv);
}
