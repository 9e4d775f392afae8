/* sibyl: predict what an accelerator would bring, then check it. */
#include "cli/commands.h"
#include "core/log.h"

#include <stdio.h>
#include <string.h>

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "wrap", cmd_wrap, "generate an LD_PRELOAD wrapper library for a shared library" },
	{ "trace", cmd_trace, "run a program with the runtime and wrappers, record a trace" },
	{ "report", cmd_report, "summarise a trace per function, thread and process" },
	{ "export", cmd_export, "convert a trace to CSV or SQLite" },
	{ "plan", cmd_plan, "build a piecewise-linear performance profile of an implementation" },
	{ "kernel", cmd_kernel, "run, time and count instructions of a standalone OpenCL kernel" },
	{ "device", cmd_device, "measure an OpenCL device's latencies and bandwidth" },
	{ "predict", cmd_predict, "predict the whole program's speedup from a trace and profiles" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: sibyl [--version] [--help] COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nRun 'sibyl COMMAND --help' for the options of one command.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "help") && argc > 2) {
		/* `sibyl help CMD` is `sibyl CMD --help`. */
		char *help_argv[] = { argv[2], "--help", NULL };

		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(argv[2], commands[i].name))
				return commands[i].run(2, help_argv);
		sibyl_err("'%s' is not a sibyl command (see 'sibyl --help')", argv[2]);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("sibyl %s\n", SIBYL_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	sibyl_err("'%s' is not a sibyl command (see 'sibyl --help')", argv[1]);
	return 2;
}
