/*
 * The audit mode's half in the runtime (docs/trace.md, src/rt/audit):
 * the wrappers named in SIBYL_WRAPPERS are loaded RTLD_LOCAL, so that
 * they run in the program's namespace, beside this runtime, without
 * putting a symbol of theirs in the global scope.  Looking up each one's
 * mark afterwards tells the audit module that the wrapper is ready: from
 * then on it binds the wrapped library's functions to the wrapper's.
 * The handles are kept for the life of the process image on purpose.
 */
#define _GNU_SOURCE
#include "rt/internal.h"

#include <dlfcn.h>
#include <string.h>

void rt_load_wrappers(void)
{
	const char *list = rt_getenv("SIBYL_WRAPPERS");
	char path[PATH_MAX];

	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, ":");

		if (n && n < sizeof(path)) {
			memcpy(path, p, n);
			path[n] = '\0';
			void *h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);

			if (!h || !dlsym(h, SIBYL_WRAPPER_MARK_SYMBOL))
				rt_debug("cannot load a wrapper named in SIBYL_WRAPPERS");
		}
		p += n + (p[n] == ':');
	}
}
