/* sibyl wrap: generate an LD_PRELOAD wrapper library for a shared library. */
#include "cli/commands.h"
#include "core/log.h"
#include "core/options.h"
#include "wrapgen/plan.h"
#include "core/strbuf.h"
#include "wrapgen/wrap.h"

#include <stdio.h>
#include <stdlib.h>

static const struct sibyl_command_help help = {
	"wrap",
	"LIB [--header H]... [-I DIR]... [-D M[=V]]... [--app EXE] [--functions GLOB,...] "
	"[--gen GEN,...] [--defs FILE]... -o OUT.so [--force]",
	"Generate and compile a wrapper library that interposes every function of LIB "
	"(a path or a soname such as libblas.so.3) that is declared in the headers, "
	"composing the micro-generators given with --gen (default time,trace). "
	"An existing OUT.so is replaced only with --force. "
	"Skipped symbols and why are listed in OUT.so.skipped.txt.",
};

static char *joined(int argc, char **argv)
{
	struct sibyl_strbuf b = { 0 };

	sibyl_strbuf_puts(&b, "sibyl");
	for (int i = 0; i < argc; i++)
		sibyl_strbuf_printf(&b, " %s", argv[i]);
	return sibyl_strbuf_take(&b);
}

int cmd_wrap(int argc, char **argv)
{
	struct sibyl_wrap_opts o = { 0 };
	bool list = false;
	int operands = 0, rc, status = 0;
	char *cmdline = joined(argc, argv);
	struct sibyl_option opts[] = {
		{ "header", 0, SIBYL_OPT_LIST, &o.headers, "H", "header declaring the functions (repeat, in include order)" },
		{ "include", 'I', SIBYL_OPT_LIST, &o.incdirs, "DIR", "include directory for the headers and the build" },
		{ "define", 'D', SIBYL_OPT_LIST, &o.defines, "M[=V]", "macro for the headers and the build" },
		{ "app", 0, SIBYL_OPT_STRING, &o.app, "EXE", "wrap only what this executable imports" },
		{ "functions", 0, SIBYL_OPT_CSV, &o.functions, "GLOB,...", "functions to wrap (fnmatch; !GLOB excludes)" },
		{ "gen", 0, SIBYL_OPT_CSV, &o.gens, "GEN[:K=V],...", "micro-generators (default time,trace)" },
		{ "defs", 0, SIBYL_OPT_LIST, &o.defs, "FILE", "definition file: lib::function::prefix|postfix { C }" },
		{ "gen-path", 0, SIBYL_OPT_LIST, &o.gen_path, "DIR", "directory of NAME.gen template generators" },
		{ "output", 'o', SIBYL_OPT_STRING, &o.output, "OUT.so", "wrapper library to write" },
		{ "force", 'f', SIBYL_OPT_FLAG, &o.force, NULL, "replace an existing OUT.so (and --emit-c FILE)" },
		{ "emit-c", 0, SIBYL_OPT_STRING, &o.emit_c, "FILE", "also keep the generated C source" },
		{ "list-gens", 0, SIBYL_OPT_FLAG, &list, NULL, "list the available generators and exit" },
		{ "verbose", 'v', SIBYL_OPT_FLAG, &o.verbose, NULL, "print the compiler command and every skipped symbol" },
		SIBYL_OPT_END,
	};

	rc = sibyl_cli_options(&help, opts, argc, argv, false, &operands);
	if (rc)
		status = rc > 0 ? 0 : 2;
	else if (list)
		wg_plan_list(stdout, &o.gen_path);
	else if (operands != 1)
		status = 2, sibyl_err("wrap: expected exactly one library (see 'sibyl wrap --help')");
	else if (!o.output)
		status = 2, sibyl_err("wrap: no output given (-o OUT.so)");
	else {
		sibyl_set_verbose(o.verbose);
		o.library = argv[1];
		o.command_line = cmdline;
		char err[1024];

		status = sibyl_wrap(&o, err, sizeof(err)) ? -sibyl_err("%s", err) : 0;
	}
	struct sibyl_strlist *lists[] = { &o.headers, &o.incdirs, &o.defines, &o.functions,
					  &o.gens, &o.defs, &o.gen_path };
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		sibyl_strlist_free(lists[i]);
	free(cmdline);
	return status;
}
