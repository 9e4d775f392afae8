/* Adapter lookup and loading of user adapter objects (dlopen). */
#define _GNU_SOURCE
#include "planner/loader.h"
#include "planner/adapters/builtin.h"
#include "core/alloc.h"
#include "core/log.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sibyl_adapters_builtin(struct sibyl_adapter_list *l)
{
	memset(l, 0, sizeof(*l));
	l->items = sibyl_builtin_adapters(&l->count);
	l->source = sibyl_xstrdup("builtin");
}

static int check_adapter(const struct sibyl_adapter *a, size_t i, const char *path,
			 char *err, size_t errlen)
{
	if (!a)
		return sibyl_seterr(err, errlen, "%s: adapter %zu is NULL", path, i);
	if (a->abi_version != SIBYL_ADAPTER_ABI_VERSION)
		return sibyl_seterr(err, errlen, "%s: adapter %zu has ABI version %u, this sibyl "
				    "speaks version %u (rebuild it against include/sibyl/adapter.h)",
				    path, i, a->abi_version, SIBYL_ADAPTER_ABI_VERSION);
	if (!a->name || !*a->name)
		return sibyl_seterr(err, errlen, "%s: adapter %zu has no name", path, i);
	if (!a->run)
		return sibyl_seterr(err, errlen, "%s: adapter %s has no run function", path,
				    a->name);
	if (a->min_metric > a->max_metric)
		return sibyl_seterr(err, errlen, "%s: adapter %s has an empty range", path,
				    a->name);
	return 0;
}

int sibyl_adapters_open(struct sibyl_adapter_list *l, const char *path, char *err,
			size_t errlen)
{
	memset(l, 0, sizeof(*l));
	/* A bare name would search the library path: make it a file path. */
	char *file = strchr(path, '/') ? sibyl_xstrdup(path) : sibyl_xasprintf("./%s", path);

	l->dl = dlopen(file, RTLD_NOW | RTLD_LOCAL);
	free(file);
	if (!l->dl)
		return sibyl_seterr(err, errlen, "%s", dlerror());
	sibyl_adapters_fn fn;
	void *sym = dlsym(l->dl, SIBYL_ADAPTERS_SYMBOL);

	memcpy(&fn, &sym, sizeof(fn));
	l->source = sibyl_xstrdup(path);
	if (!fn) {
		sibyl_seterr(err, errlen, "%s: does not export %s() (see include/sibyl/adapter.h)",
			     path, SIBYL_ADAPTERS_SYMBOL);
		sibyl_adapters_close(l);
		return -1;
	}
	l->items = fn(&l->count);
	if (!l->items || l->count == 0) {
		sibyl_seterr(err, errlen, "%s: %s() returned no adapter", path, SIBYL_ADAPTERS_SYMBOL);
		sibyl_adapters_close(l);
		return -1;
	}
	for (size_t i = 0; i < l->count; i++)
		if (check_adapter(l->items[i], i, path, err, errlen)) {
			sibyl_adapters_close(l);
			return -1;
		}
	return 0;
}

void sibyl_adapters_close(struct sibyl_adapter_list *l)
{
	if (l->dl)
		dlclose(l->dl);
	free(l->source);
	memset(l, 0, sizeof(*l));
}

const struct sibyl_adapter *sibyl_adapters_find(const struct sibyl_adapter_list *l,
						const char *name, char *err, size_t errlen)
{
	size_t off = 0;

	for (size_t i = 0; i < l->count; i++)
		if (!strcmp(l->items[i]->name, name))
			return l->items[i];
	off += (size_t)snprintf(err, errlen, "no adapter '%s' in %s (known:", name, l->source);
	for (size_t i = 0; i < l->count && off < errlen; i++)
		off += (size_t)snprintf(err + off, errlen - off, " %s", l->items[i]->name);
	if (off < errlen)
		snprintf(err + off, errlen - off, ")");
	return NULL;
}

const struct sibyl_adapter *sibyl_adapters_resolve(struct sibyl_adapter_list *l,
						   const char *builtin, const char *so_spec,
						   char *err, size_t errlen)
{
	memset(l, 0, sizeof(*l));
	/* A path is obviously a shared object: --adapter ./lib.so[:NAME]. */
	if (builtin && !so_spec && (strchr(builtin, '/') || strstr(builtin, ".so"))) {
		so_spec = builtin;
		builtin = NULL;
	}
	if (!builtin == !so_spec)
		return sibyl_seterr(err, errlen, "name a built-in adapter or an adapter object, "
				    "one of the two"), NULL;
	if (builtin) {
		sibyl_adapters_builtin(l);
		return sibyl_adapters_find(l, builtin, err, errlen);
	}
	char *path = sibyl_xstrdup(so_spec), *colon = strrchr(path, ':');
	const char *name = colon ? colon + 1 : NULL;
	const struct sibyl_adapter *a = NULL;

	if (colon)
		*colon = '\0';
	if (sibyl_adapters_open(l, path, err, errlen) == 0) {
		if (!name && l->count == 1)
			name = l->items[0]->name;
		if (name)
			a = sibyl_adapters_find(l, name, err, errlen);
		else
			sibyl_seterr(err, errlen, "%s holds several adapters: name one as FILE.so:NAME",
				     path);
	}
	free(path);
	return a;
}
