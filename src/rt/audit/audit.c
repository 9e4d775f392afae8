/*
 * The audit entry points (rtld-audit(7)); see audit.h for the design.
 *
 * la_objopen tells the objects apart: sibyl's own (the runtime, the
 * region tracker, the wrappers, a redirect wrapper's alternative
 * library) bind where they would anyway, so that a
 * wrapper's own call reaches the real function; a wrapped library gets
 * LA_FLG_BINDTO, every other object of the main namespace
 * LA_FLG_BINDFROM.  la_symbind64 then sees each binding to a wrapped
 * library exactly once: PLT slots (lazily, or at start-up under BIND_NOW
 * since glibc 2.35) and dlsym.  No la_pltenter/la_pltexit is defined, so
 * ld.so installs no profiling trampoline: once bound, a call costs what
 * a preloaded wrapper's does.
 *
 * The runtime says a wrapper is ready (loaded, relocated, constructed)
 * by calling dlsym(handle, SIBYL_WRAPPER_MARK_SYMBOL) on it: the one
 * binding from a sibyl object to a wrapper the auditor ever sees.
 */
#define _GNU_SOURCE
#include "rt/audit/audit.h"

#include <sibyl/wrap_rt.h>

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

static struct au_wrapper *wrappers;
static struct au_cookie own = { AU_OWN, NULL };
static struct { dev_t dev; ino_t ino; } own_files[2];
static bool initialised, debug;

/* Objects whose GOT may call a wrapped library (la_objopen order). */
static struct link_map **callers;
static size_t ncallers, callers_cap;

static const char *env(const char *name)
{
	return getauxval(AT_SECURE) ? NULL : getenv(name);
}

void au_debug(const char *msg, const char *arg)
{
	if (!debug)
		return;
	ssize_t r = write(2, "sibyl-audit: ", 13);

	if (arg) {
		r = write(2, arg, strlen(arg));
		r = write(2, ": ", 2);
	}
	r = write(2, msg, strlen(msg));
	r = write(2, "\n", 1);
	(void)r;
}

/* The runtime and the region tracker are installed beside the auditor. */
static void find_own_files(void)
{
	static const char *const names[] = { "libsibyl-rt.so", "libsibyl-regions.so" };
	Dl_info info;
	char self[PATH_MAX], path[PATH_MAX + 32];
	struct stat st;

	if (!dladdr((void *)find_own_files, &info) || !info.dli_fname ||
	    !realpath(info.dli_fname, self) || !strrchr(self, '/'))
		return au_debug("cannot find the auditor's own directory", NULL);
	*strrchr(self, '/') = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", self, names[i]);
		if (stat(path, &st) == 0)
			own_files[i].dev = st.st_dev, own_files[i].ino = st.st_ino;
	}
}

/* SIBYL_WRAPPERS: the wrappers' paths, separated by ':'.  Kept in that
 * order: of two wrappers of one function, the first is bound, as the
 * first of two preloaded ones would be. */
static void init(void)
{
	const char *list = env("SIBYL_WRAPPERS");
	const char *dbg = env("SIBYL_DEBUG");
	struct au_wrapper **tail = &wrappers;

	initialised = true;
	debug = dbg && *dbg && strcmp(dbg, "0");
	find_own_files();
	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, ":");
		char path[PATH_MAX];

		if (n && n < sizeof(path)) {
			memcpy(path, p, n);
			path[n] = '\0';
			struct au_wrapper *w = au_wrapper_read(path);

			if (w) {
				au_thunks_make(w);
				*tail = w;
				tail = &w->next;
			}
		}
		p += n + (p[n] == ':');
	}
}

static void add_caller(struct link_map *map)
{
	if (ncallers == callers_cap) {
		size_t cap = callers_cap ? 2 * callers_cap : 64;
		struct link_map **m = realloc(callers, cap * sizeof(*m));

		if (!m)
			return;
		callers = m;
		callers_cap = cap;
	}
	callers[ncallers++] = map;
}

static bool is_alternative(const struct au_wrapper *w, const char *path, const struct stat *st)
{
	const char *base = strrchr(path, '/');

	if (!w->alt_name)
		return false;
	if (w->alt_ino)
		return st->st_dev == w->alt_dev && st->st_ino == w->alt_ino;
	return !strcmp(base ? base + 1 : path, w->alt_name);
}

/* Which cookie `st` deserves, and its flags. */
static unsigned classify(struct link_map *map, const struct stat *st, uintptr_t *cookie)
{
	for (size_t i = 0; i < sizeof(own_files) / sizeof(own_files[0]); i++)
		if (own_files[i].ino && st->st_dev == own_files[i].dev && st->st_ino == own_files[i].ino)
			return *cookie = (uintptr_t)&own, 0;
	for (struct au_wrapper *w = wrappers; w; w = w->next)
		if (st->st_dev == w->dev && st->st_ino == w->ino) {
			w->base = map->l_addr;
			return *cookie = (uintptr_t)&w->self, LA_FLG_BINDTO;
		}
	for (struct au_wrapper *w = wrappers; w; w = w->next)
		if (is_alternative(w, map->l_name, st))
			return *cookie = (uintptr_t)&own, 0;
	unsigned flags = LA_FLG_BINDFROM;

	*cookie = (uintptr_t)map | 1;	/* a program object: tagged */
	for (struct au_wrapper *w = wrappers; w; w = w->next)
		if (st->st_dev == w->lib_dev && st->st_ino == w->lib_ino) {
			w->lib_map = map;
			if (!(flags & LA_FLG_BINDTO))
				*cookie = (uintptr_t)&w->lib;
			flags |= LA_FLG_BINDTO;
		}
	add_caller(map);
	return flags;
}

AU_EXPORT unsigned int la_version(unsigned int version)
{
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}

AU_EXPORT unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	struct stat st;

	if (!initialised)
		init();
	*cookie = 0;
	/* Other namespaces (dlmopen) have their own copy of every library. */
	if (lmid != LM_ID_BASE || !wrappers)
		return 0;
	if (!map->l_name || !*map->l_name || stat(map->l_name, &st) < 0) {
		*cookie = (uintptr_t)map | 1;	/* the program itself, the vDSO */
		add_caller(map);
		return LA_FLG_BINDFROM;
	}
	return classify(map, &st, cookie);
}

static void remove_caller(struct link_map *map)
{
	for (size_t i = 0; i < ncallers; i++)
		if (callers[i] == map) {
			callers[i] = callers[--ncallers];
			return;
		}
}

AU_EXPORT unsigned int la_objclose(uintptr_t *cookie)
{
	const struct au_cookie *c = (const struct au_cookie *)*cookie;

	if (*cookie & 1) {
		remove_caller((struct link_map *)(*cookie & ~(uintptr_t)1));
	} else if (c && c->kind == AU_LIBRARY) {
		remove_caller(c->w->lib_map);
		for (struct au_wrapper *w = wrappers; w; w = w->next)
			if (w->lib_dev == c->w->lib_dev && w->lib_ino == c->w->lib_ino)
				w->lib_map = NULL;
	}
	return 0;
}

/* The runtime's dlsym of the mark: point everything at the wrapper. */
static void wrapper_ready(struct au_wrapper *w)
{
	if (w->ready)
		return;
	au_thunks_retarget(w);
	__atomic_store_n(&w->ready, true, __ATOMIC_RELEASE);
	for (size_t i = 0; i < ncallers; i++)
		au_got_redirect(callers[i], w);
	au_debug("wrapper ready", w->lib_path);
}

/* The binding of `name` in the library of `first`, from a program object. */
static uintptr_t redirect(struct au_wrapper *first, const char *name, uintptr_t real)
{
	for (struct au_wrapper *w = first; w; w = w->next) {
		struct au_fn *fn;

		if (w->lib_dev != first->lib_dev || w->lib_ino != first->lib_ino ||
		    !(fn = au_wrapper_find(w, name)))
			continue;
		return au_bind(w, fn, real);
	}
	return real;
}

AU_EXPORT uintptr_t la_symbind64(Elf64_Sym *sym, unsigned int ndx, uintptr_t *refcook,
				 uintptr_t *defcook, unsigned int *flags, const char *symname)
{
	const struct au_cookie *def = (const struct au_cookie *)*defcook;
	const struct au_cookie *ref = *refcook & 1 ? NULL : (const struct au_cookie *)*refcook;

	(void)ndx;
	if (!def || (*defcook & 1))
		return sym->st_value;
	if (def->kind == AU_WRAPPER && ref && ref->kind == AU_OWN && (*flags & LA_SYMB_DLSYM) &&
	    !strcmp(symname, SIBYL_WRAPPER_MARK_SYMBOL))
		wrapper_ready(def->w);
	/* Sibyl's own objects and the wrappers call the real function. */
	if (def->kind != AU_LIBRARY || (ref && ref->kind != AU_LIBRARY))
		return sym->st_value;
	return redirect(def->w, symname, sym->st_value);
}
