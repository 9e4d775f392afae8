/* Finding the original implementation of a wrapped function. */
#define _GNU_SOURCE
#include "rt/internal.h"

#include <dlfcn.h>
#include <errno.h>

static int same_object(void *a, void *b)
{
	Dl_info ia, ib;

	return dladdr(a, &ia) && dladdr(b, &ib) && ia.dli_fbase == ib.dli_fbase;
}

RT_EXPORT void *sibyl_rt_resolve(const char *name, const char *library,
				 void *(*next)(const char *name))
{
	struct sibyl_rt_thread *t = sibyl_rt_self();
	uint32_t saved = t->in_runtime;
	int saved_errno = errno;
	void *fn = NULL;

	/* dlsym and dlopen may allocate: if malloc itself is wrapped, those
	 * calls must pass straight through. */
	t->in_runtime = 1;
	if (next)
		fn = next(name);
	if (fn && same_object(fn, (void *)next)) {
		/* The callback was compiled as a tail call, so RTLD_NEXT was
		 * taken relative to the runtime and found the wrapper itself:
		 * calling it would recurse forever. */
		rt_debug("RTLD_NEXT returned the wrapper itself; using the library");
		fn = NULL;
	}
	if (!fn && library) {
		/* The library may be loaded RTLD_LOCAL (Python extensions):
		 * RTLD_NEXT cannot see it, but its own handle can.  The handle
		 * is kept for the life of the process on purpose. */
		void *h = dlopen(library, RTLD_LAZY | RTLD_NOLOAD);

		if (!h)
			h = dlopen(library, RTLD_LAZY | RTLD_LOCAL);
		if (h)
			fn = dlsym(h, name);
	}
	if (!fn)
		rt_debug("cannot resolve a wrapped function");
	t->in_runtime = saved;
	errno = saved_errno;
	return fn;
}
