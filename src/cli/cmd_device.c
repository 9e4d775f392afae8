/* sibyl device: placeholder until the component lands. */
#include "cli/commands.h"
#include "core/log.h"

int cmd_device(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return sibyl_err("device: not built yet") ? 2 : 2;
}
