#include "cli/commands.h"
#include "core/log.h"

int cmd_report(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return -sibyl_err("report: not implemented yet");
}
