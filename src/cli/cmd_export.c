/*
 * sibyl export: a trace as CSV (one row per call), SQLite, a Chrome trace
 * or folded stacks.  The output
 * is written to a temporary next to OUT and renamed over it only when
 * complete, so a failure never leaves a half-written or clobbered OUT.
 */
#define _GNU_SOURCE
#include "cli/commands.h"
#include "cli/trace_dir.h"
#include "core/output.h"
#include "core/log.h"
#include "core/options.h"
#include "sibyl/trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct sibyl_command_help help = {
	"export", "[DIR] [--format csv|sqlite|chrome|folded] -o OUT [--force]",
	"Convert a trace directory (default: ./" SIBYL_DEFAULT_TRACE_DIR ") to CSV (one row per call, with its parent and self "
	"time), an SQLite database (tables meta, processes, threads, functions, calls; "
	"docs/formats.md), a Chrome trace (JSON timeline for Perfetto UI and "
	"chrome://tracing) or folded stacks (flamegraph.pl, inferno).  Without --format, "
	"OUT's name says which: .csv, .db/.sqlite/.sqlite3, .json or .folded.  OUT is never "
	"overwritten without --force; '-o -' writes a text format to standard output.",
};

typedef int stream_writer(const struct sibyl_trace *, FILE *, char *, size_t);

static const struct {
	const char *name;
	stream_writer *write;		/* NULL: SQLite, a file only */
	const char *ext[3];		/* names of OUT that imply it */
} formats[] = {
	{ "csv", sibyl_export_csv, { ".csv" } },
	{ "sqlite", NULL, { ".db", ".sqlite", ".sqlite3" } },
	{ "chrome", sibyl_export_chrome, { ".json" } },
	{ "folded", sibyl_export_folded, { ".folded" } },
};

/* The format --format names, else the one OUT's extension implies (CSV
 * for '-'); NULL when neither says. */
static const char *format_of(const char *format, const char *out)
{
	const char *dot = strrchr(out, '.');

	if (format)
		return format;
	if (!strcmp(out, "-"))
		return "csv";
	for (size_t i = 0; dot && i < sizeof(formats) / sizeof(formats[0]); i++)
		for (size_t k = 0; k < 3 && formats[i].ext[k]; k++)
			if (!strcasecmp(dot, formats[i].ext[k]))
				return formats[i].name;
	return NULL;
}

static int write_stream(const struct sibyl_trace *t, stream_writer *write, int fd, char *err,
			size_t errlen)
{
	FILE *f = fdopen(fd, "w");
	int r;

	if (!f) {
		sibyl_seterr(err, errlen, "%s", strerror(errno));
		close(fd);
		return -1;
	}
	r = write(t, f, err, errlen);
	if (fclose(f) && !r) {
		sibyl_seterr(err, errlen, "%s", strerror(errno));
		r = -1;
	}
	return r;
}

/* Export into a fresh temporary beside `out`, then rename it into place. */
static int export_to(const struct sibyl_trace *t, stream_writer *write, const char *out)
{
	struct sibyl_output o;
	char err[1024] = "";
	int r;

	if (sibyl_output_open(&o, out, 0666) < 0)
		return sibyl_err_errno("export: %s: cannot create a temporary file", out);
	if (!write) {
		close(o.fd);
		o.fd = -1;
		r = sibyl_export_sqlite(t, o.tmp, err, sizeof(err));
	} else {
		r = write_stream(t, write, o.fd, err, sizeof(err));
		o.fd = -1;	/* closed with its stream */
	}
	if (r)
		sibyl_output_discard(&o);
	else if ((r = sibyl_output_commit(&o)))
		snprintf(err, sizeof(err), "%s", strerror(errno));
	if (r)
		sibyl_err("export: %s: %s", out, err);
	return r;
}

int cmd_export(int argc, char **argv)
{
	const char *format = NULL, *out = NULL;
	bool force = false;
	struct sibyl_option opts[] = {
		{ "format", 0, SIBYL_OPT_STRING, &format, "FMT",
		  "csv, sqlite, chrome or folded (default: from OUT's extension)" },
		{ "output", 'o', SIBYL_OPT_STRING, &out, "OUT", "output file ('-': standard output, not for sqlite)" },
		{ "force", 'f', SIBYL_OPT_FLAG, &force, NULL, "replace an existing OUT" },
		SIBYL_OPT_END,
	};
	int operands, r;
	char err[1024];

	r = sibyl_cli_options(&help, opts, argc, argv, false, &operands);
	if (r)
		return r > 0 ? 0 : 2;
	const char *dir = trace_dir_operand("export", operands, argv);
	size_t fi = 0;

	if (!dir)
		return 2;
	if (!out)
		return sibyl_err("export: -o OUT is required"), 2;
	if (!(format = format_of(format, out)))
		return sibyl_err("export: %s: cannot tell the format from the name (.csv, .db, "
				 ".sqlite, .sqlite3, .json, .folded): give --format", out), 2;
	while (fi < sizeof(formats) / sizeof(formats[0]) && strcmp(format, formats[fi].name))
		fi++;
	if (fi == sizeof(formats) / sizeof(formats[0]))
		return sibyl_err("export: --format %s: expected csv, sqlite, chrome or folded",
				 format), 2;
	stream_writer *write = formats[fi].write;
	bool to_stdout = !strcmp(out, "-");

	if (to_stdout && !write)
		return sibyl_err("export: sqlite needs a file for -o, not '-'"), 2;
	const char *inputs[] = { dir, NULL };

	if (!to_stdout && sibyl_output_check(out, force, inputs, err, sizeof(err)))
		return sibyl_err("export: %s", err), 1;
	struct sibyl_trace *t = sibyl_trace_open(dir, err, sizeof(err));

	if (!t)
		return sibyl_err("export: %s", err), 1;
	if (to_stdout) {
		r = write(t, stdout, err, sizeof(err));
		if (r)
			sibyl_err("export: standard output: %s", err);
	} else {
		r = export_to(t, write, out);
	}
	sibyl_trace_close(t);
	return r ? 1 : 0;
}
