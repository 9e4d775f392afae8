/* Every sibyl command: one entry point each, in cmd_<name>.c. */
#ifndef SIBYL_CLI_COMMANDS_H
#define SIBYL_CLI_COMMANDS_H

/* argv[0] is the command name; return the process exit status. */
int cmd_wrap(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_kernel(int argc, char **argv);
int cmd_device(int argc, char **argv);
int cmd_predict(int argc, char **argv);

#endif
