/*
 * libsibyl-audit.so: the dynamic linker's audit interface (rtld-audit(7))
 * redirects the program's bindings to a wrapped library's functions, and
 * only those, to the wrapper's functions.  The wrappers themselves are
 * loaded RTLD_LOCAL by the runtime (src/rt/wrappers.c), so no symbol of
 * theirs enters the global scope: a weak reference that was NULL stays
 * NULL, dlsym(RTLD_DEFAULT) finds what it found before, and what
 * dlsym(handle) returns for a wrapped function is the wrapper's.
 *
 * The auditor runs in a link-map namespace of its own (with its own
 * libc); the wrapper code runs in the program's.  They meet only through
 * addresses: the auditor reads each wrapper's exported functions from its
 * file and adds the load address the dynamic linker reports.
 *
 * Built with hidden visibility: only the la_* entry points are exported.
 */
#ifndef SIBYL_RT_AUDIT_H
#define SIBYL_RT_AUDIT_H

#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define AU_EXPORT __attribute__((visibility("default")))

/* What an object is to the auditor; its cookie points to one of these
 * (0 for every other object). */
enum au_kind { AU_OWN = 1, AU_LIBRARY, AU_WRAPPER };

struct au_wrapper;

struct au_cookie {
	enum au_kind kind;
	struct au_wrapper *w;	/* AU_LIBRARY, AU_WRAPPER */
};

/* One exported function of a wrapper. */
struct au_fn {
	const char *name;	/* in the wrapper file's mapping */
	uintptr_t offset;	/* st_value: add the wrapper's load address */
	bool thunk_used;	/* a binding got the thunk: keep giving it */
};

/* Bindings made before the wrapper is loaded (BIND_NOW relocations,
 * calls from constructors that run before the runtime's) get a thunk,
 * `jmp *slot`, whose slot holds the real function until the wrapper is
 * ready and its function from then on. */
struct au_thunks {
	unsigned char *code;	/* 8 bytes per function, read+exec */
	uintptr_t *slot;	/* one per function, read+write */
};

struct au_wrapper {
	struct au_wrapper *next;
	dev_t dev, lib_dev;	/* the wrapper and the library it wraps */
	ino_t ino, lib_ino;
	const char *lib_path;
	/* A redirect wrapper's alternative library: it is sibyl's, so its
	 * calls to the wrapped library reach the original (no recursion). */
	const char *alt_name;	/* path or soname, NULL: none */
	dev_t alt_dev;		/* alt_ino 0: match alt_name by file name */
	ino_t alt_ino;
	struct au_fn *fns;	/* sorted by name */
	size_t nfns;
	struct au_thunks thunks;	/* code NULL: none could be made */
	struct au_cookie self, lib;
	uintptr_t base;		/* load address, once the runtime loaded it */
	struct link_map *lib_map;	/* the wrapped library, while loaded */
	bool ready;		/* loaded, relocated and constructed */
};

/* wrapper_file.c: the exported functions of the wrapper at `path` and
 * the library it wraps; NULL when it is not a readable sibyl wrapper. */
struct au_wrapper *au_wrapper_read(const char *path);
struct au_fn *au_wrapper_find(const struct au_wrapper *w, const char *name);

/* thunk.c */
void au_thunks_make(struct au_wrapper *w);
/* The address a binding of fn (real: the library's) gets. */
uintptr_t au_bind(struct au_wrapper *w, struct au_fn *fn, uintptr_t real);
/* The wrapper is ready: point its thunks at its functions. */
void au_thunks_retarget(struct au_wrapper *w);

/* got.c: GOT slots filled without a PLT (-fno-plt, R_X86_64_GLOB_DAT)
 * and function addresses in data (R_X86_64_64) in `map`, pointing at a
 * function of w's library, now point at the wrapper's function. */
void au_got_redirect(struct link_map *map, struct au_wrapper *w);

/* audit.c */
void au_debug(const char *msg, const char *arg);

#endif
