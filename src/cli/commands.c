#include "cli/commands.h"
#include "core/log.h"

#include <string.h>

const struct sibyl_command sibyl_commands[] = {
	{ "wrap", cmd_wrap, "generate an LD_PRELOAD wrapper library for a shared library", false },
	{ "trace", cmd_trace, "run a program with the runtime and wrappers, record a trace", false },
	{ "report", cmd_report, "summarise a trace per function, thread and process", false },
	{ "export", cmd_export, "convert a trace to CSV or SQLite", false },
	{ "plan", cmd_plan, "build a piecewise-linear performance profile of an implementation",
	  false },
	{ "plan run", cmd_plan, "plan a profile (what `sibyl plan -a ADAPTER` does)", false },
	{ "plan evaluate", cmd_plan, "measure a profile's error against fresh measurements",
	  false },
	{ "plan list", cmd_plan, "list the built-in planner adapters", false },
	{ "plan envelope", cmd_plan, "keep the fastest of several performance profiles at each "
	  "work metric", false },
	{ "plan show", cmd_plan, "print a performance profile, or plot its samples and pieces", false },
	{ "kernel", cmd_kernel, "run, time and count instructions of a standalone OpenCL kernel",
	  false },
	/* Only its subcommands do work; `sibyl kmodel --help` lists them. */
	{ "kmodel", cmd_kmodel, "predict an OpenCL kernel's time at any size from small runs",
	  true },
	{ "kmodel dataset", cmd_kmodel, "sweep a kernel suite into a dataset of instruction "
	  "counts and device times", false },
	{ "kmodel evaluate", cmd_kmodel, "OCLMan against OCLBase on held-out kernels of a dataset "
	  "(R^2, RMSE)", false },
	{ "kmodel train-device", cmd_kmodel, "train a device's time model (counts -> time) on a "
	  "dataset", false },
	{ "kmodel fit", cmd_kmodel, "profile a kernel at small sizes and save its OCLBoi model",
	  false },
	{ "kmodel predict", cmd_kmodel, "predict a kernel's device time at a global size (OCLMan)",
	  false },
	{ "device", cmd_device, "measure an OpenCL device's latencies and bandwidth", false },
	{ "predict", cmd_predict, "predict the whole program's speedup from a trace and profiles",
	  false },
	{ "gen-docs", cmd_gen_docs, "write the man pages and the bash completion", true },
	{ NULL, NULL, NULL, false },
};

const struct sibyl_command *sibyl_command_find(const char *name)
{
	for (const struct sibyl_command *c = sibyl_commands; c->name; c++)
		if (!strchr(c->name, ' ') && !strcmp(c->name, name))
			return c;
	return NULL;
}

int sibyl_cli_options(const struct sibyl_command_help *cmd, const struct sibyl_option *opts,
		      int argc, char **argv, bool stop_at_operand, int *operands)
{
	char err[1024];
	int r = sibyl_options_parse(cmd, opts, argc, argv, stop_at_operand, operands, err,
				    sizeof(err));

	return r < 0 ? sibyl_err("%s", err) : r;
}
