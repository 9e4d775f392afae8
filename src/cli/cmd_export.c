#include "cli/commands.h"
#include "core/log.h"

int cmd_export(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return -sibyl_err("export: not implemented yet");
}
