/*
 * The runtime reads its configuration only through this table, so every
 * variable it honours is documented in one place (docs/runtime.md).  The
 * traced program may be setuid; then nothing is read at all.
 */
#include "rt/internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

static const char *const known[] = {
	"SIBYL_TRACE_DIR",	/* absolute trace directory; unset = pass-through */
	"SIBYL_BUFFER_KB",	/* largest per-thread buffer window (default 8192) */
	"SIBYL_DEBUG",		/* nonzero: runtime diagnostics on stderr */
	"SIBYL_WRAPPERS",	/* wrappers to load RTLD_LOCAL (audit mode), ':'-separated */
};

const char *rt_getenv(const char *name)
{
	if (getauxval(AT_SECURE))
		return NULL;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(known[i], name))
			return getenv(name);
	return NULL;
}
