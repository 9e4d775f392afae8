/*
 * Help text filled to the reader's width: the width of the terminal the
 * text goes to, as GNU tools find it (COLUMNS when set, else the
 * terminal's own width, else 80 columns).
 */
#ifndef SIBYL_CORE_TEXTFILL_H
#define SIBYL_CORE_TEXTFILL_H

#include <stdio.h>

/* Narrower than this, help would be one word a line: fill to this. */
#define SIBYL_TEXT_MIN_WIDTH 40

/* The columns to fill text written to `fd` to: $COLUMNS when it is a
 * positive number, else the terminal's width when fd is a terminal,
 * else 80; never less than SIBYL_TEXT_MIN_WIDTH. */
int sibyl_text_width(int fd);

/*
 * Print `text` filled to `width` columns and end it with a newline.  The
 * first line continues at column `col` (what is already printed on it);
 * every further line is indented by `indent` spaces.  Words are never
 * split: a word longer than the room gets a line of its own.  A single
 * newline in `text` is a space; an empty line starts a new paragraph.
 */
void sibyl_text_fill(FILE *out, const char *text, int col, int indent, int width);

#endif
