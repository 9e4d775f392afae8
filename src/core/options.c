#include "core/options.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/textfill.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void sibyl_strlist_add(struct sibyl_strlist *l, const char *s)
{
	sibyl_strlist_take(l, sibyl_xstrdup(s));
}

void sibyl_strlist_take(struct sibyl_strlist *l, char *s)
{
	l->items = sibyl_xreallocarray(l->items, l->count + 1, sizeof(*l->items));
	l->items[l->count++] = s;
}

void sibyl_strlist_add_split(struct sibyl_strlist *l, const char *csv)
{
	const char *p = csv;

	while (*p) {
		size_t n = strcspn(p, ",");

		if (n > 0)
			sibyl_strlist_take(l, sibyl_xstrndup(p, n));
		p += n;
		if (*p == ',')
			p++;
	}
}

void sibyl_strlist_free(struct sibyl_strlist *l)
{
	for (size_t i = 0; i < l->count; i++)
		free((char *)l->items[i]);
	free(l->items);
	l->items = NULL;
	l->count = 0;
}

static size_t count_options(const struct sibyl_option *opts)
{
	size_t n = 0;

	while (opts[n].name)
		n++;
	return n;
}

/* Where the options' help starts; below NARROW columns, each help has
 * lines of its own, indented by NARROW_COL. */
#define HELP_COL 31
#define NARROW 60
#define NARROW_COL 8

static void print_option(FILE *out, const char *left, const char *help, int width)
{
	int col = width < NARROW ? NARROW_COL : HELP_COL;
	int n = fprintf(out, "  %s", left);

	if (n + 1 > col) {
		fputc('\n', out);
		n = 0;
	}
	fprintf(out, "%*s", col - n, "");
	sibyl_text_fill(out, help, col, col, width);
}

void sibyl_options_usage(const struct sibyl_command_help *cmd,
			 const struct sibyl_option *opts)
{
	int width = sibyl_text_width(STDOUT_FILENO);
	int col = printf("usage: sibyl %s ", cmd->name), indent = col < width / 2 ? col : 4;

	/* One synopsis per line of cmd->usage ("...\n       sibyl plan ..."),
	 * each filled; continuation lines line up after the command. */
	for (const char *line = cmd->usage, *end; line; line = *end ? end + 1 : NULL) {
		char *one;

		end = line + strcspn(line, "\n");
		while (line != cmd->usage && *line == ' ')
			line++;
		one = sibyl_xstrndup(line, (size_t)(end - line));
		if (line != cmd->usage)
			col = printf("%*s", 7, "");
		sibyl_text_fill(stdout, one, col, indent, width);
		free(one);
	}
	putchar('\n');
	sibyl_text_fill(stdout, cmd->summary, 0, 0, width);
	printf("\noptions:\n");
	for (const struct sibyl_option *o = opts; o->name; o++) {
		char left[96];
		int n = 0;

		if (!o->help)
			continue;	/* an old spelling, kept working */
		if (o->short_name)
			n = snprintf(left, sizeof(left), "-%c, ", o->short_name);
		snprintf(left + n, sizeof(left) - n, "--%s%s%s", o->name,
			 o->metavar ? " " : "", o->metavar ? o->metavar : "");
		print_option(stdout, left, o->help, width);
	}
	print_option(stdout, "-h, --help", "show this help and exit", width);
	print_option(stdout, "--version", "show sibyl's version and exit", width);
}

static sibyl_options_describer *describer;
static void *describer_ctx;

void sibyl_options_set_describer(sibyl_options_describer *fn, void *ctx)
{
	describer = fn;
	describer_ctx = ctx;
}

static int store(const struct sibyl_command_help *cmd, const struct sibyl_option *o,
		 const char *arg, char *err, size_t errlen)
{
	char *end;

	switch (o->kind) {
	case SIBYL_OPT_FLAG:
		*(bool *)o->value = true;
		return 0;
	case SIBYL_OPT_STRING:
		*(const char **)o->value = arg;
		return 0;
	case SIBYL_OPT_LIST:
		sibyl_strlist_add(o->value, arg);
		return 0;
	case SIBYL_OPT_CSV:
		sibyl_strlist_add_split(o->value, arg);
		return 0;
	case SIBYL_OPT_LONG:
		errno = 0;
		*(long *)o->value = strtol(arg, &end, 0);
		if (errno || end == arg || *end)
			return sibyl_seterr(err, errlen, "%s: --%s: not an integer: '%s'", cmd->name,
					    o->name, arg);
		return 0;
	case SIBYL_OPT_DOUBLE:
		errno = 0;
		*(double *)o->value = strtod(arg, &end);
		if (errno || end == arg || *end)
			return sibyl_seterr(err, errlen, "%s: --%s: not a number: '%s'", cmd->name,
					    o->name, arg);
		return 0;
	}
	return -1;
}

/* getopt_long's code for --version: neither an operand (1), a short
 * option (a letter) nor one of the table's (256 + index). */
#define VERSION_CODE 2

/*
 * getopt_long takes any unique prefix of a long option ("--func" for
 * "--functions"); a prefix that means one option today means another
 * when an option is added, so only whole names are accepted.  The token
 * getopt just read is the last argv entry it passed, or the one before
 * when the option's argument came as its own word.
 */
static bool abbreviated(const struct sibyl_command_help *cmd, const struct option *o, int argc,
			char **argv, char *err, size_t errlen)
{
	int at = optind - 1;

	if (optarg && at >= 2 && at < argc && optarg == argv[at])
		at--;
	if (at < 1 || at >= argc || strncmp(argv[at], "--", 2))
		return false;
	const char *name = argv[at] + 2;
	size_t len = strcspn(name, "=");

	if (len == strlen(o->name) && !strncmp(name, o->name, len))
		return false;
	sibyl_seterr(err, errlen, "%s: unknown option '--%.*s' (did you mean --%s?)", cmd->name,
		     (int)len, name, o->name);
	return true;
}

/* getopt_long's tables for `opts`: long options with codes 256 + index,
 * then --help and --version; the short letters in `shorts`. */
static struct option *getopt_tables(const struct sibyl_option *opts, size_t n,
				    bool stop_at_operand, char *shorts, size_t size)
{
	struct option *longs = sibyl_xcalloc(n + 3, sizeof(*longs));
	size_t s = 0;

	/* '-': operands come back in order as option 1; '+': stop at the
	 * first; ':': a missing argument is told from an unknown option. */
	shorts[s++] = stop_at_operand ? '+' : '-';
	shorts[s++] = ':';
	for (size_t i = 0; i < n; i++) {
		bool has_arg = opts[i].kind != SIBYL_OPT_FLAG;

		longs[i] = (struct option){ opts[i].name, has_arg ? required_argument : no_argument,
					    NULL, 256 + (int)i };
		if (opts[i].short_name && s + 4 < size) {
			shorts[s++] = opts[i].short_name;
			if (has_arg)
				shorts[s++] = ':';
		}
	}
	longs[n] = (struct option){ "help", no_argument, NULL, 'h' };
	longs[n + 1] = (struct option){ "version", no_argument, NULL, VERSION_CODE };
	shorts[s++] = 'h';
	shorts[s] = '\0';
	return longs;
}

/* Whether the long option `o` is shown: old spellings are not offered. */
static bool listed(const struct sibyl_option *opts, const struct option *o)
{
	return o->val < 256 || opts[o->val - 256].help;
}

/* An unknown option, or one without its argument: one line, naming the
 * options a prefix could have meant (getopt calls it ambiguous). */
static int bad_option(const struct sibyl_command_help *cmd, const struct sibyl_option *opts,
		      const struct option *longs, int c, const char *word, char *err, size_t errlen)
{
	const char *what = c == ':' ? "missing argument for" : "unknown option";
	size_t len = strncmp(word, "--", 2) ? 0 : strcspn(word + 2, "=");
	char maybe[256] = "";
	size_t used = 0;

	if (optopt && optopt < 256)
		return sibyl_seterr(err, errlen, "%s: %s '-%c' (see --help)", cmd->name, what,
				    optopt);
	for (const struct option *o = longs; c == '?' && len && o->name; o++) {
		if (strncmp(o->name, word + 2, len) || !listed(opts, o) ||
		    used + strlen(o->name) + 8 >= sizeof(maybe))
			continue;
		used += (size_t)snprintf(maybe + used, sizeof(maybe) - used, "%s--%s",
					 used ? " or " : "", o->name);
	}
	if (used)
		return sibyl_seterr(err, errlen, "%s: %s '%s' (did you mean %s?)", cmd->name, what,
				    word, maybe);
	return sibyl_seterr(err, errlen, "%s: %s '%s' (see --help)", cmd->name, what, word);
}

/* The table entry getopt_long's code `c` stands for. */
static const struct sibyl_option *option_of(const struct sibyl_option *opts, size_t n, int c)
{
	if (c >= 256)
		return &opts[c - 256];
	for (size_t i = 0; i < n; i++)
		if (opts[i].short_name == c)
			return &opts[i];
	return NULL;
}

int sibyl_options_parse(const struct sibyl_command_help *cmd,
			const struct sibyl_option *opts, int argc, char **argv,
			bool stop_at_operand, int *noperands, char *err, size_t errlen)
{
	if (describer) {
		describer(describer_ctx, cmd, opts);
		return 1;
	}
	size_t n = count_options(opts);
	char shorts[2 * 64 + 4];
	struct option *longs = getopt_tables(opts, n, stop_at_operand, shorts, sizeof(shorts));
	int operands = 1, ret = 0;	/* collected at the front: argv[1..] */

	optind = 1;
	opterr = 0;
	for (;;) {
		int index = -1, c = getopt_long(argc, argv, shorts, longs, &index);
		const struct sibyl_option *o;

		if (c == -1)
			break;
		if (index >= 0 && abbreviated(cmd, &longs[index], argc, argv, err, errlen)) {
			ret = -1;
		} else if (c == VERSION_CODE) {
			printf("sibyl %s\n", SIBYL_VERSION);
			ret = 1;
		} else if (c == 'h') {
			sibyl_options_usage(cmd, opts);
			ret = 1;
		} else if (c == '?' || c == ':') {
			ret = bad_option(cmd, opts, longs, c, argv[optind - 1], err, errlen);
		} else if (c == 1) {
			argv[operands++] = optarg;
		} else if (!(o = option_of(opts, n, c)) || store(cmd, o, optarg, err, errlen) < 0) {
			ret = -1;
		}
		if (ret)
			break;
	}
	free(longs);
	if (ret)
		return ret;
	/* Whatever getopt left (after "--", or all with stop_at_operand). */
	for (int i = optind; i < argc; i++)
		argv[operands++] = argv[i];
	*noperands = operands - 1;
	/* Operands now occupy argv[1..operands-1]; terminate the vector. */
	if (operands < argc)
		argv[operands] = NULL;
	return 0;
}
