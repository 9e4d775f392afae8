/* sibyl kernel: placeholder until the component lands. */
#include "cli/commands.h"
#include "core/log.h"

int cmd_kernel(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return sibyl_err("kernel: not built yet") ? 2 : 2;
}
