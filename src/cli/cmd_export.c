/*
 * sibyl export: a trace as CSV (one row per call) or SQLite.  The output
 * is written to a temporary next to OUT and renamed over it only when
 * complete, so a failure never leaves a half-written or clobbered OUT.
 */
#define _GNU_SOURCE
#include "cli/commands.h"
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
	"export", "DIR --format csv|sqlite -o OUT [--force]",
	"Convert a trace directory to CSV (one row per call) or to an SQLite database "
	"(tables meta, processes, threads, functions, calls; docs/formats.md).  OUT is "
	"never overwritten without --force; '-o -' writes CSV to standard output.",
};

static int write_csv(const struct sibyl_trace *t, int fd, char *err, size_t errlen)
{
	FILE *f = fdopen(fd, "w");
	int r;

	if (!f) {
		sibyl_seterr(err, errlen, "%s", strerror(errno));
		close(fd);
		return -1;
	}
	r = sibyl_export_csv(t, f, err, errlen);
	if (fclose(f) && !r) {
		sibyl_seterr(err, errlen, "%s", strerror(errno));
		r = -1;
	}
	return r;
}

/* Export into a fresh temporary beside `out`, then rename it into place. */
static int export_to(const struct sibyl_trace *t, bool sqlite, const char *out)
{
	struct sibyl_output o;
	char err[1024] = "";
	int r;

	if (sibyl_output_open(&o, out, 0666) < 0)
		return sibyl_err_errno("export: %s: cannot create a temporary file", out);
	if (sqlite) {
		close(o.fd);
		o.fd = -1;
		r = sibyl_export_sqlite(t, o.tmp, err, sizeof(err));
	} else {
		r = write_csv(t, o.fd, err, sizeof(err));
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
		{ "format", 0, SIBYL_OPT_STRING, &format, "FMT", "csv or sqlite" },
		{ "output", 'o', SIBYL_OPT_STRING, &out, "OUT", "output file ('-': CSV to stdout)" },
		{ "force", 'f', SIBYL_OPT_FLAG, &force, NULL, "replace an existing OUT" },
		SIBYL_OPT_END,
	};
	int operands, r;
	char err[1024];

	r = sibyl_options_parse(&help, opts, argc, argv, false, &operands);
	if (r)
		return r > 0 ? 0 : 2;
	if (operands != 1)
		return sibyl_err("export: expected one trace directory (see --help)"), 2;
	if (!format || (strcmp(format, "csv") && strcmp(format, "sqlite")))
		return sibyl_err("export: --format csv or --format sqlite is required"), 2;
	if (!out)
		return sibyl_err("export: -o OUT is required"), 2;
	bool sqlite = !strcmp(format, "sqlite"), to_stdout = !strcmp(out, "-");

	if (to_stdout && sqlite)
		return sibyl_err("export: sqlite needs a file for -o, not '-'"), 2;
	const char *inputs[] = { argv[1], NULL };

	if (!to_stdout && sibyl_output_check(out, force, inputs, err, sizeof(err)))
		return sibyl_err("export: %s", err), 1;
	struct sibyl_trace *t = sibyl_trace_open(argv[1], err, sizeof(err));

	if (!t)
		return sibyl_err("export: %s", err), 1;
	if (to_stdout) {
		r = sibyl_export_csv(t, stdout, err, sizeof(err));
		if (r)
			sibyl_err("export: standard output: %s", err);
	} else {
		r = export_to(t, sqlite, out);
	}
	sibyl_trace_close(t);
	return r ? 1 : 0;
}
