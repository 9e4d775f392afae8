#include "core/textfill.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define DEFAULT_WIDTH 80
/* A COLUMNS beyond this is a mistake, not a terminal. */
#define MAX_WIDTH 10000

int sibyl_text_width(int fd)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;
	long width = DEFAULT_WIDTH;
	char *end;

	if (env && *env) {
		errno = 0;
		long v = strtol(env, &end, 10);

		if (!errno && !*end && v > 0 && v <= MAX_WIDTH)
			return v < SIBYL_TEXT_MIN_WIDTH ? SIBYL_TEXT_MIN_WIDTH : (int)v;
	}
	if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		width = ws.ws_col;
	return width < SIBYL_TEXT_MIN_WIDTH ? SIBYL_TEXT_MIN_WIDTH : (int)width;
}

static void spaces(FILE *out, int n)
{
	while (n-- > 0)
		fputc(' ', out);
}

static size_t newlines(const char *p, size_t n)
{
	size_t count = 0;

	for (size_t i = 0; i < n; i++)
		count += p[i] == '\n';
	return count;
}

void sibyl_text_fill(FILE *out, const char *text, int col, int indent, int width)
{
	const char *p = text;
	bool line_empty = true;	/* nothing of the text on this line yet */

	while (*p) {
		size_t gap = strspn(p, " \t\n");

		if (newlines(p, gap) >= 2 && p != text && p[gap]) {	/* a new paragraph */
			fputs("\n\n", out);
			spaces(out, indent);
			col = indent;
			line_empty = true;
		}
		p += gap;
		if (!*p)
			break;
		size_t len = strcspn(p, " \t\n");

		if (!line_empty && col + 1 + (int)len > width) {
			fputc('\n', out);
			spaces(out, indent);
			col = indent;
			line_empty = true;
		}
		if (!line_empty) {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, len, out);
		col += (int)len;
		line_empty = false;
		p += len;
	}
	fputc('\n', out);
}
