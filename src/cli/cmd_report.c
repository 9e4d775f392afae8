/* sibyl report: per-function, per-thread and per-process summary of a trace. */
#include "cli/commands.h"
#include "cli/trace_dir.h"
#include "core/log.h"
#include "core/options.h"
#include "sibyl/trace.h"

#include <stdio.h>
#include <string.h>

static const struct sibyl_command_help help = {
	"report", "[DIR] [--json] [-s KEY[,KEY]] [--columns LIST] [-F GLOB] [-N GLOB] "
	"[--pid PID] [--tid TID] [--time-range START~END] [--min-duration TIME] [--top N] "
	"[--functions] [--threads] [--processes [--all-processes]] [--worksize-check [--plot FILE.png|svg "
	"[--force]]] | --diff A B",
	"Summarise a trace directory (default: ./" SIBYL_DEFAULT_TRACE_DIR ", where sibyl trace "
	"records without -o): per function the calls, total and self time, "
	"mean, median, p90, p99, stddev, min and max, share of the wall time, bytes, "
	"work and their rates, and the counters recorded; per thread and per process "
	"the calls and top-level busy time.  Without a section option all three tables "
	"are printed.  The filters select calls (globs FUNC or FUNC@LIB as uftrace's "
	"-F/-N).  --diff compares two traces function by function.  --json prints one "
	"object (docs/report.md).  --worksize-check compares automatic work sizes with "
	"manual ones instead (docs/worksize.md).",
};

/* Options of the report proper (not --worksize-check). */
struct report_args {
	bool json, functions, threads, processes, all_processes, diff;
	const char *columns;
	struct sibyl_strlist keep, hide, pids, tids;
	struct sibyl_report_query q;
};

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

/* Open a trace and summarise the calls the query selects; NULL after a message. */
static struct sibyl_trace_summary *summarize(const char *dir, const struct report_args *a,
					     struct sibyl_trace **t)
{
	struct sibyl_report_selection sel;
	struct sibyl_trace_summary *s;
	char err[1024];

	if (!(*t = sibyl_trace_open(dir, err, sizeof(err)))) {
		sibyl_err("report: %s", err);
		return NULL;
	}
	if (sibyl_report_selection_init(&sel, *t, &a->q, err, sizeof(err))) {
		sibyl_err("report: %s: %s", dir, err);
		sibyl_trace_close(*t);
		return NULL;
	}
	if (a->diff)
		sel.opts.top = 0;	/* it cuts the compared list instead */
	s = sibyl_trace_summarize_opts(*t, &sel.opts);
	sibyl_report_selection_free(&sel);
	return s;
}

/* One report, or the difference of two, as text or JSON. */
static int print(char **dirs, struct sibyl_trace *const *t, struct sibyl_trace_summary *const *s,
		 const struct report_args *a, const struct sibyl_report_columns *cols)
{
	unsigned sections = (a->functions ? SIBYL_REPORT_FUNCTIONS : 0) |
			    (a->threads ? SIBYL_REPORT_THREADS : 0) |
			    (a->processes ? SIBYL_REPORT_PROCESSES : 0);

	if (a->diff && a->json)
		return sibyl_report_diff_print_json(stdout, s[0], s[1], (size_t)a->q.top);
	if (a->diff)
		sibyl_report_diff_print_text(stdout, s[0], s[1], dirs[0], dirs[1],
					     (size_t)a->q.top);
	else if (a->json)
		return sibyl_report_print_json(stdout, t[0], s[0]);
	else
		sibyl_report_print_text(stdout, t[0], s[0], (sections ? sections : ~0u &
					~SIBYL_REPORT_ALL_PROCESSES) |
					(a->all_processes ? SIBYL_REPORT_ALL_PROCESSES : 0),
					cols->n ? cols : NULL);
	return 0;
}

static int report(char **dirs, const struct report_args *a,
		  const struct sibyl_report_columns *cols)
{
	struct sibyl_trace *t[2] = { NULL, NULL };
	struct sibyl_trace_summary *s[2] = { NULL, NULL };
	int n = a->diff ? 2 : 1, r = 0;

	for (int i = 0; i < n; i++)
		if (!(s[i] = summarize(dirs[i], a, &t[i])))
			r = 1;
	if (!r)
		r = print(dirs, t, s, a, cols);
	if (!r && (fflush(stdout) || ferror(stdout)))
		r = sibyl_err_errno("report: writing the report");
	for (int i = 0; i < n; i++) {
		sibyl_trace_summary_free(s[i]);
		if (t[i])
			sibyl_trace_close(t[i]);
	}
	return r;
}

/* Checks that need no trace: a typo is a usage error (exit 2). */
static int check_usage(int operands, const struct report_args *a, bool ws_check,
		       const char *plot, struct sibyl_report_columns *cols)
{
	struct sibyl_report_selection sel;
	char err[1024];

	if (a->diff && operands != 2)
		return sibyl_err("report: --diff takes two trace directories, A and B");
	if (!a->diff && operands > 1)
		return sibyl_err("report: expected one trace directory, or none for ./%s (see --help)",
				 SIBYL_DEFAULT_TRACE_DIR);
	if (plot && !ws_check)
		return sibyl_err("report: --plot needs --worksize-check");
	if (ws_check && a->diff)
		return sibyl_err("report: --worksize-check and --diff do not combine");
	if (a->columns && sibyl_report_columns_parse(a->columns, cols, err, sizeof(err)))
		return sibyl_err("report: --columns: %s", err);
	if (sibyl_report_selection_init(&sel, NULL, &a->q, err, sizeof(err)))
		return sibyl_err("report: %s", err);
	sibyl_report_selection_free(&sel);
	return 0;
}

static void query_lists(struct report_args *a)
{
	a->q.keep = a->keep.items;
	a->q.nkeep = a->keep.count;
	a->q.hide = a->hide.items;
	a->q.nhide = a->hide.count;
	a->q.pids = a->pids.items;
	a->q.npids = a->pids.count;
	a->q.tids = a->tids.items;
	a->q.ntids = a->tids.count;
}

static void args_free(struct report_args *a)
{
	sibyl_strlist_free(&a->keep);
	sibyl_strlist_free(&a->hide);
	sibyl_strlist_free(&a->pids);
	sibyl_strlist_free(&a->tids);
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { .q.sort = "total" };
	bool ws_check = false, force = false;
	const char *plot = NULL;
	struct sibyl_option opts[] = {
		{ "json", 0, SIBYL_OPT_FLAG, &a.json, NULL, "print one JSON object" },
		{ "sort", 's', SIBYL_OPT_STRING, &a.q.sort, "KEY[,KEY]", "order functions by these columns, largest first (default total; name and library alphabetical)" },
		{ "columns", 0, SIBYL_OPT_STRING, &a.columns, "LIST", "the function table's columns: calls, total, self, mean, median, p90, p99, stddev, min, max, share, in, out, work, bytes/s, work/s, task-clock, page-faults, context-switches, cpu-migrations, cycles, instructions, or all" },
		{ "filter", 'F', SIBYL_OPT_LIST, &a.keep, "GLOB", "only functions matching FUNC or FUNC@LIB (repeatable)" },
		{ "notrace", 'N', SIBYL_OPT_LIST, &a.hide, "GLOB", "leave out functions matching FUNC or FUNC@LIB (repeatable)" },
		{ "pid", 0, SIBYL_OPT_CSV, &a.pids, "PID,...", "only calls of these processes" },
		{ "tid", 0, SIBYL_OPT_CSV, &a.tids, "TID,...", "only calls of these threads" },
		{ "time-range", 0, SIBYL_OPT_STRING, &a.q.time_range, "START~END", "only calls within this time (10ms~2s since the start, or ns as exported)" },
		{ "min-duration", 0, SIBYL_OPT_STRING, &a.q.min_duration, "TIME", "only calls lasting at least TIME (e.g. 10us)" },
		{ "top", 0, SIBYL_OPT_LONG, &a.q.top, "N", "only the first N functions" },
		{ "functions", 0, SIBYL_OPT_FLAG, &a.functions, NULL, "print the per-function table" },
		{ "threads", 0, SIBYL_OPT_FLAG, &a.threads, NULL, "print the per-thread table" },
		{ "processes", 0, SIBYL_OPT_FLAG, &a.processes, NULL, "print the per-process table" },
		{ "all-processes", 0, SIBYL_OPT_FLAG, &a.all_processes, NULL,
		  "list images without wrapped calls (shells, launchers) one by one" },
		{ "diff", 0, SIBYL_OPT_FLAG, &a.diff, NULL, "compare two traces A and B: calls, time and B/A per function" },
		{ "worksize-check", 0, SIBYL_OPT_FLAG, &ws_check, NULL,
		  "automatic against manual work sizes: RMSE per function and method" },
		{ "plot", 0, SIBYL_OPT_STRING, &plot, "FILE", "with --worksize-check: scatter plot (.png, .svg)" },
		{ "force", 0, SIBYL_OPT_FLAG, &force, NULL, "replace an existing --plot file" },
		SIBYL_OPT_END,
	};
	struct sibyl_report_columns cols = { .n = 0 };
	int operands, r;
	char err[1024];

	r = sibyl_cli_options(&help, opts, argc, argv, false, &operands);
	query_lists(&a);
	if (!r && check_usage(operands, &a, ws_check, plot, &cols))
		r = -1;
	if (r) {
		args_free(&a);
		return r > 0 ? 0 : 2;
	}
	/* Without DIR, where sibyl trace records by default (perf.data-like). */
	char *dirs[2] = { operands ? argv[1] : (char *)SIBYL_DEFAULT_TRACE_DIR,
			  operands > 1 ? argv[2] : NULL };

	if (ws_check) {
		struct sibyl_trace *t = sibyl_trace_open(dirs[0], err, sizeof(err));

		r = t ? worksize_check(t, a.json, plot, force) : sibyl_err("report: %s", err);
		if (!r && fflush(stdout))
			r = sibyl_err_errno("report: writing the report");
		if (t)
			sibyl_trace_close(t);
	} else {
		r = report(dirs, &a, &cols);
	}
	args_free(&a);
	return r ? 1 : 0;
}
