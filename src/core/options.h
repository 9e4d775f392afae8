/*
 * Declarative command-line options: each command declares one array of
 * options next to the fields they fill, with their help text; parsing
 * and --help are generated from it (the perf parse-options idea).
 */
#ifndef SIBYL_CORE_OPTIONS_H
#define SIBYL_CORE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

/* A growable list of strings; the list owns (and frees) every item. */
struct sibyl_strlist {
	const char **items;
	size_t count;
};

/* Add a copy of s. */
void sibyl_strlist_add(struct sibyl_strlist *l, const char *s);
/* Add s itself, a malloc'd string the list now owns. */
void sibyl_strlist_take(struct sibyl_strlist *l, char *s);
/* Split "a,b,c" and add each non-empty piece (the pieces are copies). */
void sibyl_strlist_add_split(struct sibyl_strlist *l, const char *csv);
void sibyl_strlist_free(struct sibyl_strlist *l);

enum sibyl_opt_kind {
	SIBYL_OPT_FLAG,		/* bool */
	SIBYL_OPT_STRING,	/* const char * */
	SIBYL_OPT_LIST,		/* struct sibyl_strlist, option may repeat */
	SIBYL_OPT_CSV,		/* struct sibyl_strlist, comma lists, may repeat */
	SIBYL_OPT_LONG,		/* long */
	SIBYL_OPT_DOUBLE,	/* double */
};

struct sibyl_option {
	const char *name;	/* long name, without "--" */
	char short_name;	/* 0 for none */
	enum sibyl_opt_kind kind;
	void *value;
	const char *metavar;	/* shown in --help, e.g. "DIR" */
	const char *help;	/* NULL: an old spelling kept working, not shown */
};

#define SIBYL_OPT_END { NULL, 0, SIBYL_OPT_FLAG, NULL, NULL, NULL }

struct sibyl_command_help {
	const char *name;	/* "wrap" */
	const char *usage;	/* "LIB [options] -o OUT.so" */
	const char *summary;	/* one paragraph */
};

/*
 * Parse argv[1..] (argv[0] is the command name).  Options stop at "--" or
 * at the first operand when stop_at_operand is set (for `trace -- CMD`).
 * Operands are moved to argv[1..*operands] in order.  Long options are
 * taken by their whole name only.  Returns 0; 1 when --help or --version
 * was printed (exit 0); or -1 with the usage error in err, "<command>:
 * <why>" (exit 2).
 */
int sibyl_options_parse(const struct sibyl_command_help *cmd,
			const struct sibyl_option *opts, int argc, char **argv,
			bool stop_at_operand, int *operands, char *err, size_t errlen);
/* --help: the synopsis, the summary and the options, filled to the
 * width of standard output (core/textfill.h). */
void sibyl_options_usage(const struct sibyl_command_help *cmd,
			 const struct sibyl_option *opts);

/*
 * The man pages and the shell completion are generated from the commands'
 * option tables (`sibyl gen-docs`, run by the build).  While a describer
 * is set, sibyl_options_parse hands it the command's help and table
 * instead of parsing, and returns 1 as after --help; the table lives only
 * during the call.  NULL unsets it.
 */
typedef void sibyl_options_describer(void *ctx, const struct sibyl_command_help *cmd,
				     const struct sibyl_option *opts);
void sibyl_options_set_describer(sibyl_options_describer *fn, void *ctx);

#endif
