/*
 * sibyl gen-docs (hidden; run by the build): the man pages and the bash
 * completion, from the option tables every command hands to the parser.
 */
#include "cli/commands.h"
#include "core/alloc.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/options.h"
#include "docgen/docgen.h"

#include <stdlib.h>
#include <string.h>

static const struct sibyl_command_help help = {
	"gen-docs", "[--man DIR] [--completion FILE]",
	"Write a man page per command into DIR and the bash completion script to FILE, "
	"from the commands' option tables, so that neither can disagree with --help.  "
	"Run by the build (build/share/).",
};

struct catalog {
	struct sibyl_doc_command *items;
	size_t n;
	const struct sibyl_command *current;
};

/* The parser hands over the table of the command being described; it
 * lives on that command's stack, so it is copied (its strings are
 * literals). */
static void describe(void *ctx, const struct sibyl_command_help *h,
		     const struct sibyl_option *opts)
{
	struct catalog *cat = ctx;
	struct sibyl_doc_command *d = &cat->items[cat->n++];
	size_t n = 0;

	while (opts[n].name)
		n++;
	struct sibyl_option *copy = sibyl_xcalloc(n + 1, sizeof(*copy));

	memcpy(copy, opts, n * sizeof(*copy));
	for (size_t i = 0; i < n; i++)
		copy[i].value = NULL;
	*d = (struct sibyl_doc_command){ cat->current->name, cat->current->summary, h->usage,
					 h->summary, copy };
}

/* Run every listed command as if for --help, the describer set. */
static int collect(struct catalog *cat)
{
	size_t count = 0;

	for (const struct sibyl_command *c = sibyl_commands; c->name; c++)
		count++;
	cat->items = sibyl_xcalloc(count, sizeof(*cat->items));
	sibyl_options_set_describer(describe, cat);
	for (const struct sibyl_command *c = sibyl_commands; c->name; c++) {
		char *name = sibyl_xstrdup(c->name), *sub = strchr(name, ' ');
		char *argv[] = { name, sub ? sub + 1 : NULL, NULL };
		size_t before = cat->n;

		if (sub)
			*sub = '\0';
		cat->current = c;
		if (!c->hidden)
			c->run(sub ? 2 : 1, argv);
		free(name);
		if (!c->hidden && cat->n != before + 1) {
			sibyl_options_set_describer(NULL, NULL);
			return sibyl_err("gen-docs: '%s' described no option table", c->name);
		}
	}
	sibyl_options_set_describer(NULL, NULL);
	return 0;
}

int cmd_gen_docs(int argc, char **argv)
{
	const char *man = NULL, *completion = NULL;
	struct sibyl_option opts[] = {
		{ "man", 0, SIBYL_OPT_STRING, &man, "DIR", "write the man pages into DIR" },
		{ "completion", 0, SIBYL_OPT_STRING, &completion, "FILE",
		  "write the bash completion script" },
		SIBYL_OPT_END,
	};
	struct catalog cat = { 0 };
	char err[1024];
	int operands, r = sibyl_cli_options(&help, opts, argc, argv, false, &operands);

	if (r)
		return r > 0 ? 0 : 2;
	if (operands || (!man && !completion))
		return sibyl_err("gen-docs: expected --man DIR and/or --completion FILE"), 2;
	r = collect(&cat);
	if (!r && man && sibyl_mkdirs(man, 0755) < 0)
		r = sibyl_err_errno("gen-docs: %s", man);
	if (!r && man && sibyl_docgen_man(cat.items, cat.n, SIBYL_VERSION, man, err, sizeof(err)))
		r = sibyl_err("gen-docs: %s", err);
	if (!r && completion &&
	    sibyl_docgen_bash(cat.items, cat.n, completion, err, sizeof(err)))
		r = sibyl_err("gen-docs: %s", err);
	for (size_t i = 0; i < cat.n; i++)
		free((void *)cat.items[i].opts);
	free(cat.items);
	return r ? 1 : 0;
}
