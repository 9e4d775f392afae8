#include "cli/commands.h"
#include "core/log.h"

int cmd_trace(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return -sibyl_err("trace: not implemented yet");
}
