/*
 * The trace reader: the only way analysis components read a trace
 * directory written by the runtime (format: sibyl/trace_format.h and
 * docs/formats.md).
 *
 * sibyl_trace_open() validates the whole directory up front (versions,
 * magic, byte order, record size, truncation, function-id collisions) so
 * that later iteration cannot fail half-way; every failure is reported as
 * one line in the caller's buffer, e.g.
 *   "t/12.0-12.events: truncated: 40 records committed, room for 3".
 * Times are CLOCK_MONOTONIC nanoseconds, converted from TSC with the
 * calibration of meta.json, or from the .proc files when it is missing.
 */
#ifndef SIBYL_TRACE_H
#define SIBYL_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sibyl/trace_format.h"

/* The newest format version this reader understands. */
#define SIBYL_TRACE_READER_VERSION SIBYL_TRACE_VERSION

struct sibyl_trace;

enum sibyl_exit_kind {
	SIBYL_EXIT_UNKNOWN,	/* still running, killed tracer, or no meta.json */
	SIBYL_EXIT_STATUS,	/* exit_code is the exit status */
	SIBYL_EXIT_SIGNAL,	/* exit_code is the signal number */
};

enum sibyl_clock_source {
	SIBYL_CLOCK_META,	/* meta.json "clock" */
	SIBYL_CLOCK_PROC,	/* calibrated from .proc (tsc, ns) pairs */
};

enum sibyl_wall_source {
	SIBYL_WALL_META,	/* meta.json "wall_ns" */
	SIBYL_WALL_PROC,	/* first process start .. last known end */
	SIBYL_WALL_EVENTS,	/* span of the recorded calls only */
};

struct sibyl_trace_clock {
	uint64_t ref_tsc;
	uint64_t ref_ns;
	double tsc_per_ns;
	bool invariant;
	enum sibyl_clock_source source;
};

struct sibyl_trace_meta {
	bool present;			/* meta.json existed */
	int version;			/* format version of meta.json (0: absent) */
	const char *const *argv;	/* command line; argc may be 0 */
	size_t argc;
	const char *command;		/* argv joined with spaces ("" if unknown) */
	const char *cwd;		/* "" if unknown */
	const char *const *wrappers;	/* the preloaded wrapper libraries */
	size_t nwrappers;
	/* The environment the command ran in, NULL-terminated; NULL when the
	 * trace did not record it (older traces). */
	const char *const *environ;
	size_t nenviron;
	const char *hostname;		/* "" if unknown */
	uint32_t root_pid;		/* 0 if unknown */
	uint64_t start_ns, end_ns;	/* of the whole command, see wall_source */
	uint64_t wall_ns;		/* always set (> 0 unless the trace is empty) */
	enum sibyl_wall_source wall_source;
	enum sibyl_exit_kind exit_kind;
	int exit_code;
	struct sibyl_trace_clock clock;
	/* `sibyl trace` finished: it drained every record it could reach and
	 * wrote the end of meta.json (exit_kind is known). */
	bool finished;
	/* ... and nothing was lost on the way: no thread without a buffer,
	 * no record it failed to save.  False without meta.json. */
	bool complete;
	/* Measured by `sibyl trace` when the command ended, ns, NAN if not
	 * recorded: what one intercepted call cost the program beyond the
	 * call, more per call with the counters generator, and the first
	 * touch of a fresh page (docs/trace-meta.md). */
	double interposition_ns, counters_ns, page_fault_ns;
	/* What a process's start and exit cost it traced (ns, NAN if not
	 * recorded): loading the runtime and wrappers, and their setup. */
	double startup_ns;
	char startup_why[160];	/* why startup_ns is NAN, when known */
};

/* How a process image ended (docs/runtime.md, "How a process ended"). */
enum sibyl_proc_end {
	SIBYL_END_UNKNOWN,	/* nothing recorded it: killed with no traced parent, a
				   trace older than version 4, or still running */
	SIBYL_END_EXIT,		/* end_code: the exit status */
	SIBYL_END_SIGNAL,	/* end_code: the signal that killed it */
	SIBYL_END_EXEC,		/* it exec'd: the image (pid, gen + 1) follows */
};

struct sibyl_trace_process {
	uint32_t pid, ppid, gen;
	const char *exe;		/* "" when the .proc file is missing */
	uint64_t start_ns;
	uint64_t end_ns;		/* last known time when !exited */
	bool exited;			/* end_ns comes from the runtime's exit hook */
	bool has_proc_file;
	uint64_t lost_threads;		/* threads whose buffer could not be created */
	uint64_t lost_calls;		/* calls they made: in no .events file */
	enum sibyl_proc_end end;
	int end_code;
	bool core_dumped;		/* SIBYL_END_SIGNAL only */
};

/* "exit 5", "killed by SIGABRT", "exec'd", "exited" (status unknown),
 * "end unknown": how report labels the image. */
const char *sibyl_trace_process_end(const struct sibyl_trace_process *p, char *buf, size_t len);

struct sibyl_trace_thread {
	size_t process;			/* index for sibyl_trace_process() */
	uint32_t pid, gen, tid;
	uint64_t records;		/* committed records in the file */
	uint64_t calls;			/* call records */
	uint64_t dropped;		/* records the runtime could not store */
	uint64_t torn;			/* reserved but never written (crash) */
	uint64_t skipped;		/* unknown kinds and orphan counters */
	uint64_t first_ns, last_ns;	/* span of its calls (0,0 if none) */
};

struct sibyl_trace_function {
	uint32_t id;
	const char *library;		/* "?" for ids missing from functions.tsv */
	const char *name;		/* "0x<id>" for ids missing from functions.tsv */
	const char *work_metric;	/* what `work` counts (work_metrics.tsv), or NULL */
	bool work_metric_conflict;	/* declared with two different metrics */
};

struct sibyl_trace_call {
	size_t thread;			/* index for sibyl_trace_thread() */
	const struct sibyl_trace_function *function;	/* never NULL */
	uint16_t depth;			/* 0: not inside another wrapped call */
	uint64_t id;			/* 1, 2, ...: the call's place in iteration order */
	/* The id of the recorded call enclosing this one on its thread, 0 if
	 * none; only from an iterator asked for it (sibyl_trace_iter_parents). */
	uint64_t parent;
	/* The call never returned (longjmp, exception, exit): it ended when
	 * the runtime noticed, at end_ns (docs/runtime.md). */
	bool abandoned;
	uint64_t start_ns, end_ns, duration_ns;
	uint64_t self_ns;		/* duration less the calls it encloses */
	uint64_t in_bytes, out_bytes;
	double work;
	uint16_t counter_mask;		/* bit i: counters[i] valid (enum sibyl_counter) */
	uint64_t counters[SIBYL_CNT_MAX];
	/* Automatic work sizes (docs/worksize.md): the call record's own
	 * (size_method) or worksize records'. */
	uint8_t size_method;		/* method of in/out_bytes (enum sibyl_ws_method); 0: other */
	uint64_t inout_bytes;		/* of in_bytes and out_bytes, with size_method */
	uint8_t ws_mask;		/* bit m: ws[m] valid (enum sibyl_ws_method) */
	bool ws_manual;			/* in/out_bytes come from a manual expression */
	struct {
		uint64_t in_bytes, out_bytes, inout_bytes;
	} ws[SIBYL_WS_METHODS];
};

/* Which number of a call record a profile's work metric is: the declared
 * `work` (the definition file's `metric` names it), or bytes when the
 * profile is measured in "input bytes", "output bytes" or
 * "input+output bytes" (docs/predict.md). */
enum sibyl_work_source {
	SIBYL_WORK_DECLARED,	/* `work`, as the definition file's metric declares */
	SIBYL_WORK_IN_BYTES,	/* profile metric "input bytes" */
	SIBYL_WORK_OUT_BYTES,	/* "output bytes" */
	SIBYL_WORK_INOUT_BYTES,	/* "input+output bytes" */
};

/* The byte metrics by name; false for any other metric. */
bool sibyl_work_byte_metric(const char *metric, enum sibyl_work_source *source);
/* Whether the trace recorded f's calls in `metric` (a profile's
 * work_metric; `what` names the profile in messages): 0 and *source, or
 * -1 with one line in err.  Nothing is guessed: an undeclared or
 * different metric is refused. */
int sibyl_work_source_of(const struct sibyl_trace_function *f, const char *metric,
			 const char *what, enum sibyl_work_source *source, char *err,
			 size_t errlen);
/* A call's work in that metric. */
double sibyl_call_work(const struct sibyl_trace_call *c, enum sibyl_work_source source);

/* Threads of a trace that could not be recorded and their calls, summed
 * over the .proc files only (cheap: no .events file is read).  0, or -1
 * with errno when the directory cannot be read. */
int sibyl_trace_lost(const char *dir, uint64_t *threads, uint64_t *calls);

/* Open and validate a trace directory.  NULL with a one-line message. */
struct sibyl_trace *sibyl_trace_open(const char *dir, char *err, size_t errlen);
void sibyl_trace_close(struct sibyl_trace *t);

const struct sibyl_trace_meta *sibyl_trace_meta(const struct sibyl_trace *t);
/* Processes sorted by (pid, gen); threads by (pid, gen, tid); functions by id. */
size_t sibyl_trace_process_count(const struct sibyl_trace *t);
const struct sibyl_trace_process *sibyl_trace_process(const struct sibyl_trace *t, size_t i);
size_t sibyl_trace_thread_count(const struct sibyl_trace *t);
const struct sibyl_trace_thread *sibyl_trace_thread(const struct sibyl_trace *t, size_t i);
size_t sibyl_trace_function_count(const struct sibyl_trace *t);
const struct sibyl_trace_function *sibyl_trace_function(const struct sibyl_trace *t, size_t i);
const struct sibyl_trace_function *sibyl_trace_function_by_id(const struct sibyl_trace *t,
							      uint32_t id);
/* Total call records over all threads. */
uint64_t sibyl_trace_call_count(const struct sibyl_trace *t);
/* TSC value to CLOCK_MONOTONIC ns with the trace's calibration. */
uint64_t sibyl_trace_tsc_to_ns(const struct sibyl_trace *t, uint64_t tsc);

/*
 * Call records, thread by thread (in sibyl_trace_thread order), in file
 * order within a thread.  Counters and worksize records are attached to
 * the call just before them.  next() returns 1 with *out filled, 0 at the end.
 */
struct sibyl_trace_iter;
struct sibyl_trace_iter *sibyl_trace_iter_new(const struct sibyl_trace *t);
/* Fill sibyl_trace_call.parent too (derived from depths and times: a call
 * is written when it returns, after the calls it made).  Each thread's
 * file is then read twice, and 8 bytes per call of the thread being read
 * are held.  Call before the first next(). */
void sibyl_trace_iter_parents(struct sibyl_trace_iter *it);
int sibyl_trace_iter_next(struct sibyl_trace_iter *it, struct sibyl_trace_call *out);
void sibyl_trace_iter_free(struct sibyl_trace_iter *it);

/*
 * Pure parser of one events file held in memory (the fuzzing entry
 * point; the reader uses the same code).  Validates the header and
 * counts the records.  Returns 0, or -1 with a one-line message.
 */
struct sibyl_events_info {
	uint32_t pid, gen, tid;
	uint64_t committed, dropped, start_tsc;
	uint64_t calls, counters, torn, skipped;
	uint64_t first_tsc, last_tsc;	/* min start / max end of calls */
};
int sibyl_events_parse(const void *buf, size_t len, struct sibyl_events_info *info,
		       char *err, size_t errlen);

/* ---- Selecting calls (report's filters, docs/report.md) --------------- */

struct sibyl_call_filter {
	/* FUNC[@LIB] fnmatch globs: a call is kept when its function matches
	 * one of `keep` (or keep is empty) and none of `hide`. */
	const char *const *keep;
	size_t nkeep;
	const char *const *hide;
	size_t nhide;
	const uint32_t *pids, *tids;	/* empty: any */
	size_t npids, ntids;
	uint64_t from_ns, to_ns;	/* the call lies within [from, to]; to 0: no end */
	uint64_t min_ns;		/* duration at least this */
};

/* "START~END" (either may be empty): a time with a unit (ns, us, ms, s,
 * 1.5ms) is elapsed since the trace's start, a bare number is a
 * CLOCK_MONOTONIC time in ns as exports print them.  0, or -1 with a message. */
int sibyl_time_range_parse(const struct sibyl_trace *t, const char *text, uint64_t *from_ns,
			   uint64_t *to_ns, char *err, size_t errlen);
/* A duration with a unit ("10us"; a bare number is ns).  0 or -1. */
int sibyl_duration_parse(const char *text, uint64_t *ns, char *err, size_t errlen);
/* A bad glob ("a@" with no library) or an empty one: -1 with a message. */
int sibyl_call_filter_check(const struct sibyl_call_filter *f, char *err, size_t errlen);
/* Whether the function passes keep/hide. */
bool sibyl_call_filter_function(const struct sibyl_call_filter *f,
				const struct sibyl_trace_function *fn);
/* Everything but the function (processes, threads, times). */
bool sibyl_call_filter_call(const struct sibyl_call_filter *f, const struct sibyl_trace *t,
			    const struct sibyl_trace_call *c);
bool sibyl_call_filter_match(const struct sibyl_call_filter *f, const struct sibyl_trace *t,
			     const struct sibyl_trace_call *c);

/* ---- Summaries (what `sibyl report` prints) ---------------------------- */

struct sibyl_func_stats {
	const struct sibyl_trace_function *function;
	uint64_t calls;
	uint64_t total_ns, min_ns, max_ns;
	uint64_t self_ns;		/* total less the wrapped calls made inside */
	double mean_ns;
	double median_ns, p90_ns, p99_ns;	/* of the call durations */
	double stddev_ns;		/* sample standard deviation (0 for one call) */
	double share_pct;		/* total_ns / wall_ns * 100 (eq. 2's P) */
	uint64_t in_bytes, out_bytes;
	double work;
	double bytes_per_s, work_per_s;	/* (in + out) and work over total time; NAN if 0 ns */
	/* Counters (the counters generator): the calls that measured counter
	 * i and the sum over them; counter_calls[i] == 0: not measured. */
	uint64_t counter_calls[SIBYL_CNT_MAX];
	uint64_t counters[SIBYL_CNT_MAX];
	uint64_t abandoned;		/* calls left abnormally (sibyl_trace_call) */
};

struct sibyl_thread_stats {
	const struct sibyl_trace_thread *thread;
	uint64_t calls;
	uint64_t toplevel_ns;		/* depth-0 calls only: no double counting */
	double share_pct;		/* toplevel_ns / wall_ns * 100 */
};

struct sibyl_process_stats {
	const struct sibyl_trace_process *process;
	size_t threads;
	uint64_t calls;
	uint64_t toplevel_ns;
	uint64_t lifetime_ns;		/* end_ns - start_ns */
	double share_pct;		/* toplevel_ns / lifetime_ns * 100 */
};

struct sibyl_trace_summary {
	uint64_t wall_ns;
	uint64_t calls;
	uint64_t abandoned;		/* calls left abnormally */
	uint64_t toplevel_ns;		/* sum of depth-0 call durations */
	double toplevel_share_pct;	/* toplevel_ns / wall_ns * 100 */
	struct sibyl_func_stats *functions;	/* only functions that were called */
	size_t nfunctions;
	size_t nfunctions_all;		/* before --top cut the list */
	struct sibyl_thread_stats *threads;
	size_t nthreads;
	struct sibyl_process_stats *processes;
	size_t nprocesses;
	uint64_t lost_threads, lost_calls;	/* over all processes */
	bool filtered;			/* a filter selected the calls */
	uint16_t counters_seen;		/* bit i: some call measured counter i */
	uint64_t counter_records;	/* calls with any counter */
};

/* The columns of the function table, and the keys it sorts by. */
enum sibyl_sort_key {
	SIBYL_SORT_TOTAL, SIBYL_SORT_CALLS, SIBYL_SORT_MEAN, SIBYL_SORT_NAME,
	SIBYL_SORT_SELF, SIBYL_SORT_MEDIAN, SIBYL_SORT_P90, SIBYL_SORT_P99,
	SIBYL_SORT_STDDEV, SIBYL_SORT_MIN, SIBYL_SORT_MAX, SIBYL_SORT_SHARE,
	SIBYL_SORT_IN, SIBYL_SORT_OUT, SIBYL_SORT_WORK, SIBYL_SORT_BYTES_RATE,
	SIBYL_SORT_WORK_RATE, SIBYL_SORT_LIBRARY,
	SIBYL_SORT_COUNTER,		/* + enum sibyl_counter: a counter's mean per call */
	SIBYL_SORT_KEYS = SIBYL_SORT_COUNTER + SIBYL_CNT_MAX
};

/* "p99" -> SIBYL_SORT_P99; -1 if unknown.  sibyl_sort_key_name() back. */
int sibyl_sort_key_parse(const char *name);
const char *sibyl_sort_key_name(int key);
/* The counter's column name ("cycles"). */
const char *sibyl_counter_name(int counter);

struct sibyl_summary_opts {
	const struct sibyl_call_filter *filter;	/* NULL: every call */
	int sort[4];			/* keys, the first deciding first; -1 ends */
	size_t top;			/* 0: every function */
};

/* Aggregate every call; functions sorted by `key` (largest first). */
struct sibyl_trace_summary *sibyl_trace_summarize(const struct sibyl_trace *t,
						  enum sibyl_sort_key key);
/* The same with filters, several sort keys and a top-N cut. */
struct sibyl_trace_summary *sibyl_trace_summarize_opts(const struct sibyl_trace *t,
						       const struct sibyl_summary_opts *o);
void sibyl_trace_summary_free(struct sibyl_trace_summary *s);

/* `sibyl report`'s selection options as typed (NULL/0: not given). */
struct sibyl_report_query {
	const char *const *keep, *const *hide;	/* -F, -N globs */
	size_t nkeep, nhide;
	const char *const *pids, *const *tids;	/* decimal ids */
	size_t npids, ntids;
	const char *time_range, *min_duration, *sort;
	long top;
};

/* The query made a filter and summary options (owned). */
struct sibyl_report_selection {
	struct sibyl_call_filter filter;
	uint32_t *pids, *tids;
	struct sibyl_summary_opts opts;	/* opts.filter NULL when nothing filters */
};

/* t NULL checks the syntax only (a time range is then resolved against
 * time 0).  0, or -1 with a message. */
int sibyl_report_selection_init(struct sibyl_report_selection *sel, const struct sibyl_trace *t,
				const struct sibyl_report_query *q, char *err, size_t errlen);
void sibyl_report_selection_free(struct sibyl_report_selection *sel);

/* Output of `sibyl report` (docs/report.md). */
enum sibyl_report_sections {
	SIBYL_REPORT_FUNCTIONS = 1,
	SIBYL_REPORT_THREADS = 2,
	SIBYL_REPORT_PROCESSES = 4,
	/* List process images without wrapped calls (shells, launchers)
	 * one by one instead of folding them into one line. */
	SIBYL_REPORT_ALL_PROCESSES = 8,
};
/* The function table's columns: sort keys (name and library excepted),
 * NULL for the default set (with the counters some call measured). */
struct sibyl_report_columns {
	int key[SIBYL_SORT_KEYS];
	size_t n;
};
/* A comma list of key names, or "all".  0, or -1 with a message. */
int sibyl_report_columns_parse(const char *list, struct sibyl_report_columns *c, char *err,
			       size_t errlen);
void sibyl_report_print_text(FILE *out, const struct sibyl_trace *t,
			     const struct sibyl_trace_summary *s, unsigned sections,
			     const struct sibyl_report_columns *columns);
/* One JSON object; returns 0 or -1. */
int sibyl_report_print_json(FILE *out, const struct sibyl_trace *t,
			    const struct sibyl_trace_summary *s);

/* `report --diff A B`: per function (by library and name) the calls and
 * total time in each and B's time over A's, largest change first; the
 * first `top` functions (0: all).  The summaries should not be cut by
 * their own top. */
void sibyl_report_diff_print_text(FILE *out, const struct sibyl_trace_summary *a,
				  const struct sibyl_trace_summary *b, const char *name_a,
				  const char *name_b, size_t top);
/* {"a": {calls, wall_ns}, "b": {...}, "functions": [{name, library,
 * calls_a, calls_b, total_ns_a, total_ns_b, ratio}]}; 0 or -1. */
int sibyl_report_diff_print_json(FILE *out, const struct sibyl_trace_summary *a,
				 const struct sibyl_trace_summary *b, size_t top);

/* ---- report --worksize-check (docs/worksize.md) ----------------------- */

struct sibyl_ws_check_entry {
	const struct sibyl_trace_function *function;
	int method;			/* enum sibyl_ws_method */
	uint64_t automatic;		/* calls with this method's sizes */
	uint64_t calls;			/* of them, calls with manual sizes too */
	double sum_sq;			/* squared errors, input and output */
	double rmse_bytes;		/* NAN when calls == 0 */
};

/* One compared call: the manual sizes and one method's. */
struct sibyl_ws_check_point {
	int method;
	uint64_t manual_in, manual_out, auto_in, auto_out;
};

struct sibyl_ws_check {
	struct sibyl_ws_check_entry *entries;	/* by function name, then method */
	size_t nentries;
	struct sibyl_ws_check_point *points;
	size_t npoints, points_cap;
};

const char *sibyl_ws_method_name(int method);
/* Where a call's in/out_bytes come from: "fast" or "full" (that method
 * measured them), "manual" (an expression, beside automatic sizes), or
 * NULL (not known: an expression or nothing, no automatic method). */
const char *sibyl_trace_call_size_source(const struct sibyl_trace_call *c);
struct sibyl_ws_check *sibyl_worksize_check(const struct sibyl_trace *t);
void sibyl_worksize_check_free(struct sibyl_ws_check *c);
void sibyl_worksize_check_print_text(FILE *out, const struct sibyl_ws_check *c);
/* {"worksize_check": [{function, calls, method, rmse_bytes}, ...]}; 0 or -1. */
int sibyl_worksize_check_print_json(FILE *out, const struct sibyl_ws_check *c);
/* The paper's scatter (Figures 5-7): automatic against manual, input and
 * output of every compared call, log-log; PNG or SVG by extension. */
int sibyl_worksize_check_plot(const struct sibyl_ws_check *c, const char *path, bool force,
			      char *err, size_t errlen);

/* ---- Exports (docs/export.md, docs/formats.md) ------------------------- */

/* One header row then one row per call.  Returns 0, or -1 with a message. */
int sibyl_export_csv(const struct sibyl_trace *t, FILE *out, char *err, size_t errlen);
/* Chrome's Trace Event JSON (Perfetto UI, chrome://tracing): one complete
 * event per call on its process and thread.  0, or -1 with a message. */
int sibyl_export_chrome(const struct sibyl_trace *t, FILE *out, char *err, size_t errlen);
/* Folded stacks ("prog;f;g 1234", self ns) for flamegraph.pl and inferno. */
int sibyl_export_folded(const struct sibyl_trace *t, FILE *out, char *err, size_t errlen);
/* Create a new SQLite database at `path` (which must not exist or be empty). */
int sibyl_export_sqlite(const struct sibyl_trace *t, const char *path, char *err,
			size_t errlen);

#endif
