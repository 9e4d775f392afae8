#include "docgen/internal.h"
#include "core/log.h"
#include "core/output.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void docgen_text_open(struct docgen_text *t)
{
	t->data = NULL;
	t->len = 0;
	t->f = open_memstream(&t->data, &t->len);
	if (!t->f) {
		fputs("sibyl: out of memory\n", stderr);
		abort();
	}
}

int docgen_text_save(struct docgen_text *t, const char *path, char *err, size_t errlen)
{
	int r = fclose(t->f) ? -1 : sibyl_output_write(path, t->data, t->len, 0644);

	if (r)
		sibyl_seterr(err, errlen, "%s: %s", path, strerror(errno));
	free(t->data);
	t->data = NULL;
	return r;
}
