/* sibyl report: per-function, per-thread and per-process summary of a trace. */
#include "cli/commands.h"
#include "core/log.h"
#include "core/options.h"
#include "sibyl/trace.h"

#include <stdio.h>
#include <string.h>

static const struct sibyl_command_help help = {
	"report", "DIR [--json] [--sort total|calls|mean|name] [--functions] [--threads] "
	"[--processes] [--worksize-check [--plot FILE.png|svg [--force]]]",
	"Summarise a trace directory: per function the calls, total/mean/min/max time, "
	"share of the wall time, input/output bytes and work; per thread and per process "
	"the calls and top-level busy time.  Without a section option all three tables "
	"are printed.  --json prints one object (docs/report.md).  --worksize-check compares "
	"automatic work sizes with manual ones instead (docs/worksize.md).",
};

static int parse_sort(const char *s, enum sibyl_sort_key *key)
{
	static const struct { const char *name; enum sibyl_sort_key key; } keys[] = {
		{ "total", SIBYL_SORT_TOTAL }, { "calls", SIBYL_SORT_CALLS },
		{ "mean", SIBYL_SORT_MEAN }, { "name", SIBYL_SORT_NAME },
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(s, keys[i].name)) {
			*key = keys[i].key;
			return 0;
		}
	return sibyl_err("report: --sort: '%s' is not one of total, calls, mean, name", s);
}

/* --worksize-check: automatic against manual sizes, optionally plotted. */
static int worksize_check(const struct sibyl_trace *t, bool json, const char *plot, bool force)
{
	struct sibyl_ws_check *c = sibyl_worksize_check(t);
	char err[1024];
	int r = 0;

	if (plot && sibyl_worksize_check_plot(c, plot, force, err, sizeof(err)))
		r = sibyl_err("report: --plot: %s", err);
	else if (json)
		r = sibyl_worksize_check_print_json(stdout, c);
	else
		sibyl_worksize_check_print_text(stdout, c);
	sibyl_worksize_check_free(c);
	return r;
}

int cmd_report(int argc, char **argv)
{
	bool json = false, functions = false, threads = false, processes = false;
	bool ws_check = false, force = false;
	const char *plot = NULL;
	const char *sort = "total";
	struct sibyl_option opts[] = {
		{ "json", 0, SIBYL_OPT_FLAG, &json, NULL, "print one JSON object" },
		{ "sort", 's', SIBYL_OPT_STRING, &sort, "KEY", "total (default), calls, mean or name" },
		{ "functions", 0, SIBYL_OPT_FLAG, &functions, NULL, "print the per-function table" },
		{ "threads", 0, SIBYL_OPT_FLAG, &threads, NULL, "print the per-thread table" },
		{ "processes", 0, SIBYL_OPT_FLAG, &processes, NULL, "print the per-process table" },
		{ "worksize-check", 0, SIBYL_OPT_FLAG, &ws_check, NULL,
		  "automatic against manual work sizes: RMSE per function and method" },
		{ "plot", 0, SIBYL_OPT_STRING, &plot, "FILE", "with --worksize-check: scatter plot (.png, .svg)" },
		{ "force", 0, SIBYL_OPT_FLAG, &force, NULL, "replace an existing --plot file" },
		SIBYL_OPT_END,
	};
	enum sibyl_sort_key key = SIBYL_SORT_TOTAL;
	int operands, r;
	char err[1024];

	r = sibyl_options_parse(&help, opts, argc, argv, false, &operands);
	if (r)
		return r > 0 ? 0 : 2;
	if (operands != 1)
		return sibyl_err("report: expected one trace directory (see --help)"), 2;
	if (parse_sort(sort, &key))
		return 2;
	if (plot && !ws_check)
		return sibyl_err("report: --plot needs --worksize-check"), 2;
	struct sibyl_trace *t = sibyl_trace_open(argv[1], err, sizeof(err));

	if (!t)
		return sibyl_err("report: %s", err), 1;
	if (ws_check) {
		r = worksize_check(t, json, plot, force);
		if (!r && fflush(stdout))
			r = sibyl_err_errno("report: writing the report");
		sibyl_trace_close(t);
		return r ? 1 : 0;
	}
	struct sibyl_trace_summary *s = sibyl_trace_summarize(t, key);
	unsigned sections = (functions ? SIBYL_REPORT_FUNCTIONS : 0) |
			    (threads ? SIBYL_REPORT_THREADS : 0) |
			    (processes ? SIBYL_REPORT_PROCESSES : 0);

	r = 0;
	if (json)
		r = sibyl_report_print_json(stdout, t, s);
	else
		sibyl_report_print_text(stdout, t, s, sections ? sections : ~0u);
	if (fflush(stdout) || r)
		r = sibyl_err_errno("report: writing the report");
	sibyl_trace_summary_free(s);
	sibyl_trace_close(t);
	return r ? 1 : 0;
}
