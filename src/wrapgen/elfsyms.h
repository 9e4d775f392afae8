/*
 * Dynamic symbols of a shared library (what a wrapper may interpose) and
 * of an application (what it actually imports), read with libelf.
 */
#ifndef SIBYL_WRAPGEN_ELFSYMS_H
#define SIBYL_WRAPGEN_ELFSYMS_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>

enum wg_sym_kind {
	WG_SYM_FUNC,	/* STT_FUNC or STT_GNU_IFUNC */
	WG_SYM_DATA,	/* STT_OBJECT, STT_TLS, STT_COMMON */
};

struct wg_sym {
	char *name;
	enum wg_sym_kind kind;
	char *version;	/* default version (foo@@V) or NULL if unversioned */
};

struct wg_symtab {
	struct wg_sym *v;	/* sorted by name, one entry per name */
	size_t n;
	char *soname;		/* DT_SONAME, NULL if absent */
	char **needed;		/* DT_NEEDED, in order */
	size_t nneeded;
	char *runpath;		/* DT_RUNPATH, else DT_RPATH, else NULL */
};

/* Defined GLOBAL/WEAK default-visibility symbols of .dynsym.  0, or -1
 * with "wrap: <path>: <why>" in err. */
int wg_elf_exports(const char *path, struct wg_symtab *out, char *err, size_t errlen);
/* Undefined function/notype symbols of .dynsym (an executable's imports). */
int wg_elf_imports(const char *path, struct wg_symtab *out, char *err, size_t errlen);
const struct wg_sym *wg_symtab_find(const struct wg_symtab *t, const char *name);
void wg_symtab_free(struct wg_symtab *t);

/* The one way here to read an ELF file's dynamic symbols (the symbol
 * tables above, and wrapper_check.h's marks). */

/* Open a regular file with libelf: 0 with *e (elf_end it) and *fd (close
 * it), or -1 with the reason ("not an ELF file", ...) in err. */
int wg_elf_open(const char *path, int *fd, Elf **e, char *err, size_t errlen);
/* fn on each symbol of .dynsym after the null one, until it returns
 * true; true when one did.  sh is the .dynsym header (sh_link: names). */
typedef bool wg_dynsym_fn(void *ctx, Elf *e, const GElf_Shdr *sh, size_t index,
			  const GElf_Sym *sym);
bool wg_elf_each_dynsym(Elf *e, wg_dynsym_fn *fn, void *ctx);

#endif
