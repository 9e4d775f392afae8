/* sibyl plan: placeholder until the component lands. */
#include "cli/commands.h"
#include "core/log.h"

int cmd_plan(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return sibyl_err("plan: not built yet") ? 2 : 2;
}
