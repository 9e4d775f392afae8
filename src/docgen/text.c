#include "docgen/internal.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/output.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void docgen_text_open(struct docgen_text *t)
{
	t->f = sibyl_xmemstream(&t->data, &t->len);
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
