/*
 * Documentation generated from the commands' option tables, so that the
 * man pages and the shell completion never disagree with --help: written
 * by `sibyl gen-docs` at build time (src/cli/cmd_gen_docs.c).
 */
#ifndef SIBYL_DOCGEN_H
#define SIBYL_DOCGEN_H

#include "core/options.h"

#include <stddef.h>

/* One command or subcommand as --help describes it. */
struct sibyl_doc_command {
	const char *name;	/* "kernel", "plan envelope" */
	const char *summary;	/* one line */
	const char *usage;	/* the synopsis after "sibyl NAME " */
	const char *description;	/* a paragraph */
	const struct sibyl_option *opts;	/* ends with SIBYL_OPT_END */
};

/* A man page per command, DIR/sibyl-NAME.1 (spaces as '-'), and
 * DIR/sibyl.1 listing them.  0, or -1 with "PATH: <why>" in err. */
int sibyl_docgen_man(const struct sibyl_doc_command *cmds, size_t n, const char *version,
		     const char *dir, char *err, size_t errlen);

/* The bash completion script for every command, written to `path`.
 * 0, or -1 with "PATH: <why>" in err. */
int sibyl_docgen_bash(const struct sibyl_doc_command *cmds, size_t n, const char *path,
		      char *err, size_t errlen);

#endif
