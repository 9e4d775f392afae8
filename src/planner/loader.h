/* Finding adapters: built in, or exported by a user shared object. */
#ifndef SIBYL_PLANNER_LOADER_H
#define SIBYL_PLANNER_LOADER_H

#include <sibyl/adapter.h>

#include <stddef.h>

struct sibyl_adapter_list {
	const struct sibyl_adapter *const *items;
	size_t count;
	void *dl;                  /* dlopen handle of a user object, or NULL */
	char *source;              /* "builtin" or the object's path */
};

/* The built-in adapters. */
void sibyl_adapters_builtin(struct sibyl_adapter_list *l);
/* dlopen FILE.so and call its SIBYL_ADAPTERS_SYMBOL; every adapter is
 * checked (ABI version, name, run).  -1 with a one-line reason. */
int sibyl_adapters_open(struct sibyl_adapter_list *l, const char *path, char *err,
			size_t errlen);
void sibyl_adapters_close(struct sibyl_adapter_list *l);

/* The adapter called name, or NULL with the known names in err. */
const struct sibyl_adapter *sibyl_adapters_find(const struct sibyl_adapter_list *l,
						const char *name, char *err, size_t errlen);

/* The adapter a command names: a built-in called builtin, or one exported
 * by so_spec, "FILE.so:NAME" or "FILE.so" exporting one adapter (give one
 * of the two).  l holds what was loaded: close it either way.  NULL with
 * a one-line reason. */
const struct sibyl_adapter *sibyl_adapters_resolve(struct sibyl_adapter_list *l,
						   const char *builtin, const char *so_spec,
						   char *err, size_t errlen);

#endif
