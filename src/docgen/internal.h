/* What the man page and completion writers share. */
#ifndef SIBYL_DOCGEN_INTERNAL_H
#define SIBYL_DOCGEN_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

/* A text built in memory, then written to its file in one piece. */
struct docgen_text {
	FILE *f;
	char *data;
	size_t len;
};

void docgen_text_open(struct docgen_text *t);
/* Close the stream and write the text to `path` (mode 0644 less the
 * umask, atomically); frees the text.  0, or -1 with "PATH: <why>". */
int docgen_text_save(struct docgen_text *t, const char *path, char *err, size_t errlen);

#endif
