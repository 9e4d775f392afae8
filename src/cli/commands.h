/* Every sibyl command: one entry point each, in cmd_<name>.c. */
#ifndef SIBYL_CLI_COMMANDS_H
#define SIBYL_CLI_COMMANDS_H

#include "core/options.h"

#include <stdbool.h>

/* argv[0] is the command name; return the process exit status: 0, 1 when
 * the work failed, 2 for a usage error. */
int cmd_wrap(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_kernel(int argc, char **argv);
int cmd_device(int argc, char **argv);
int cmd_kmodel(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_gen_docs(int argc, char **argv);

/*
 * The command table: `sibyl NAME` runs `run`.  A name of two words is a
 * subcommand ("plan envelope"), run by its command with the second word
 * as argv[1]; it is listed for --help, `sibyl help`, the man pages and
 * the completion.  The table ends with a NULL name.
 */
struct sibyl_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;	/* one line */
	bool hidden;		/* run by the build, not listed */
};

extern const struct sibyl_command sibyl_commands[];

/* sibyl_options_parse (core/options.h) for a command: 0; 1 after --help
 * or --version; -1 after printing the usage error. */
int sibyl_cli_options(const struct sibyl_command_help *cmd, const struct sibyl_option *opts,
		      int argc, char **argv, bool stop_at_operand, int *operands);

/* The command (not a subcommand) called `name`, or NULL. */
const struct sibyl_command *sibyl_command_find(const char *name);

#endif
