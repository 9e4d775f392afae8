/* sibyl: predict what an accelerator would bring, then check it. */
#include "cli/commands.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/textfill.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_COL 18

static void usage(FILE *out)
{
	int width = sibyl_text_width(fileno(out));

	fprintf(out, "usage: sibyl [--version] [--help] COMMAND [ARGS]\n\ncommands:\n");
	for (const struct sibyl_command *c = sibyl_commands; c->name; c++) {
		if (c->hidden)
			continue;
		int n = fprintf(out, "  %s", c->name);

		fprintf(out, "%*s", n < NAME_COL ? NAME_COL - n : 1, "");
		sibyl_text_fill(out, c->summary, n < NAME_COL ? NAME_COL : n + 1, NAME_COL, width);
	}
	fprintf(out, "\n");
	sibyl_text_fill(out, "Run 'sibyl COMMAND --help' or 'sibyl help COMMAND' for the options "
			"of one command.", 0, 0, width);
}

static int run(int argc, char **argv)
{
	const struct sibyl_command *c = sibyl_command_find(argv[0]);

	if (!c)
		return sibyl_err("'%s' is not a sibyl command (see 'sibyl --help')", argv[0]), 2;
	return c->run(argc, argv);
}

/* `sibyl help CMD [SUB]` is `sibyl CMD [SUB] --help`. */
static int help(int argc, char **argv)
{
	char **args = sibyl_xcalloc((size_t)argc + 1, sizeof(*args));
	int r;

	for (int i = 0; i < argc; i++)
		args[i] = argv[i];
	args[argc] = "--help";
	r = run(argc + 1, args);
	free(args);
	return r;
}

int main(int argc, char **argv)
{
	/* What library code says and carries on past, printed here. */
	sibyl_set_notice_handler(sibyl_notice_print, NULL);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "help") && argc > 2)
		return help(argc - 2, argv + 2);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("sibyl %s\n", SIBYL_VERSION);
		return 0;
	}
	return run(argc - 1, argv + 1);
}
