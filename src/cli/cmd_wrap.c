#include "cli/commands.h"
#include "core/log.h"

int cmd_wrap(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return -sibyl_err("wrap: not implemented yet");
}
