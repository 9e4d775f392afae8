/* Reader internals shared by the files of src/trace (and the fuzzer). */
#ifndef SIBYL_TRACE_INTERNAL_H
#define SIBYL_TRACE_INTERNAL_H

#include "sibyl/trace.h"

#include <stddef.h>

/* The most a reader reads of each small file of a trace: far above what
 * sibyl writes (a .proc file is one 512-byte header), far below what
 * would exhaust memory. */
#define TRACE_META_MAX ((size_t)16 << 20)
#define TRACE_TABLE_MAX ((size_t)64 << 20)	/* functions.tsv, work_metrics.tsv */
#define TRACE_PROC_MAX ((size_t)1 << 20)

/* ---- events.c ---- */
/* A carry record about a call on another thread (version 6): `bytes` of
 * thread tid's call (func, start_tsc) were read by a later call. */
struct foreign_carry {
	uint32_t tid, func;
	uint64_t start_tsc, bytes;
};

/* Orders foreign carries by thread, function and start. */
int foreign_carry_cmp(const void *a, const void *b);

struct events_cursor {
	const unsigned char *rec;	/* first record */
	uint64_t n, i;			/* committed records, next index */
	uint16_t version;		/* the file's: what its call records hold */
	uint32_t tid;			/* the file's thread */
	/* Every file's foreign carries, sorted (reader.c); NULL: none. */
	const struct foreign_carry *foreign;
	size_t nforeign;
};

/* Check the header of an events file; fills the header fields of info. */
int events_header_check(const void *buf, size_t len, struct sibyl_events_info *info,
			struct events_cursor *cur, char *err, size_t errlen);

/* The records that belong to a call; a kind of 0 means absent. */
struct events_attached {
	struct sibyl_counters_record cnt;
	struct sibyl_worksize_record ws[SIBYL_WS_METHODS];	/* by method */
};

/* Next call (with its counters and worksize records, if any).  1, or 0
 * at the end; torn and skipped records are added to info. */
int events_next(struct events_cursor *cur, struct sibyl_call_record *call,
		struct events_attached *att, struct sibyl_events_info *info);

/* ---- calltree.c ---- */
struct calltree_pending {
	uint64_t id, start_ns, end_ns, duration_ns;
	uint16_t depth;
};

struct calltree {
	struct calltree_pending *v;
	size_t n, cap;
};

/* Feed one thread's calls in file order.  Returns c's self time; when
 * parent_of is not NULL, parent_of[child id - parent_base] = id for each
 * waiting call that c encloses. */
uint64_t calltree_feed(struct calltree *ct, const struct sibyl_trace_call *c, uint64_t id,
		       uint64_t *parent_of, uint64_t parent_base);
void calltree_reset(struct calltree *ct);
void calltree_free(struct calltree *ct);

/* ---- stat_keys.c ---- */
enum trace_key_kind { KEY_COUNT, KEY_TIME, KEY_PCT, KEY_BYTES, KEY_NUMBER, KEY_BYTE_RATE,
		      KEY_RATE, KEY_TEXT };

struct trace_key {
	const char *name;		/* for --sort and --columns */
	const char *header;		/* in the text table */
	enum trace_key_kind kind;
};

/* NULL for an unknown key. */
const struct trace_key *trace_key(int key);
/* A function's figure for a key (not name or library); *present false
 * when it has none (a rate over no time, a counter never measured). */
double trace_key_value(const struct sibyl_func_stats *f, int key, bool *present);

/* ---- report.c ---- */
/* "12.345 ms": three decimals in the largest unit that keeps >= 1. */
const char *trace_human_ns(char *buf, size_t len, double ns);

/* ---- report_json.c ---- */
/* A JSON string of any bytes (invalid UTF-8 becomes '?'). */
struct json_t *trace_jstr(const char *s);

/* ---- meta.c ---- */
struct trace_meta_doc {
	struct sibyl_trace_meta meta;
	bool has_clock, has_wall;
	char **argv;			/* owned copies */
	char **wrappers;		/* owned copies */
	char **environ;			/* owned copies, NULL if not recorded */
	char *command, *cwd, *hostname;
};

/* Parse meta.json text; meta.present is set.  0 or -1 with a message. */
int meta_parse(const char *text, size_t len, struct trace_meta_doc *doc, char *err,
	       size_t errlen);
/* The view of a trace without meta.json. */
void meta_default(struct trace_meta_doc *doc);
void meta_free(struct trace_meta_doc *doc);

/* Exports redraw their progress line every this many calls. */
#define EXPORT_PROGRESS_EVERY 4096

/* ---- functions.c ---- */
struct function_table {
	struct sibyl_trace_function *items;	/* sorted by id; strings owned */
	size_t count, cap;
};

/* Parse functions.tsv text, adding to the table (dedupes; id collision is
 * an error).  0 or -1 with a message naming the line. */
int functions_parse(struct function_table *ft, const char *text, size_t len, char *err,
		    size_t errlen);
/* Parse work_metrics.tsv text into the functions it names. */
int functions_parse_metrics(struct function_table *ft, const char *text, size_t len, char *err,
			    size_t errlen);
/* Add a placeholder entry for an id not named in functions.tsv. */
void functions_add_unknown(struct function_table *ft, uint32_t id);
const struct sibyl_trace_function *functions_find(const struct function_table *ft,
						  uint32_t id);
void functions_free(struct function_table *ft);

/* ---- proc.c ---- */
struct proc_file {
	struct sibyl_trace_process info;	/* exe is owned */
	uint64_t start_tsc, end_tsc;		/* end_tsc 0 unless exited */
	uint32_t flags;				/* SIBYL_PROC_*, as far as its version has them */
};

/* Validate a .proc file held in memory and fill *p. */
int proc_parse(const void *buf, size_t len, struct proc_file *p, char *err, size_t errlen);
/* How each image ended, from its flags, the images after it and meta.json
 * (the root's status); procs sorted by (pid, gen). */
void proc_ends(struct proc_file *procs, size_t n, const struct sibyl_trace_meta *meta);

/* ---- reader.c ---- */
struct trace_thread_file {
	struct sibyl_trace_thread info;
	const unsigned char *map;
	size_t maplen;
	uint64_t first_tsc, last_tsc;
	struct events_cursor records;	/* as validated at open */
};

struct sibyl_trace {
	struct trace_meta_doc meta;
	struct proc_file *procs;
	size_t nprocs, procs_cap;
	struct trace_thread_file *threads;
	size_t nthreads, threads_cap;
	struct function_table functions;
	uint64_t ncalls;
	struct foreign_carry *foreign;	/* of all files, sorted once all are read */
	size_t nforeign, foreign_cap;
};

/* ---- timebase.c ---- */
/* Choose the TSC calibration (meta.json, else .proc pairs). */
int timebase_clock(struct sibyl_trace *t, const char *dir, char *err, size_t errlen);
/* Fill ns fields of threads/processes and the wall time. */
void timebase_spans(struct sibyl_trace *t);

#endif
