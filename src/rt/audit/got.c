/*
 * Code compiled with -fno-plt calls a library through a GOT slot filled
 * by an R_X86_64_GLOB_DAT relocation at load time, a table of callbacks
 * holds function addresses filled by R_X86_64_64 relocations, and glibc
 * reports only PLT (JUMP_SLOT) relocations to la_symbind.  So when a
 * wrapper becomes ready, such slots of the objects already loaded that
 * hold one of the wrapped library's functions are rewritten to the
 * wrapper's function, as preloading it would have bound them.  RELRO
 * pages are made writable for the store and read-only again.  Objects
 * loaded later keep theirs (docs/trace.md says so).
 */
#define _GNU_SOURCE
#include "rt/audit/audit.h"

#include <dlfcn.h>
#include <elf.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

struct dyn {
	const Elf64_Rela *rela;
	size_t nrela;
	const Elf64_Sym *symtab;
	const char *strtab;
};

/* ld.so relocates the dynamic section's addresses in place, except
 * where it is read-only; then they are still relative to the base. */
static uintptr_t dyn_addr(const struct link_map *map, uintptr_t v)
{
	return v < map->l_addr ? v + map->l_addr : v;
}

static bool read_dynamic(const struct link_map *map, struct dyn *d)
{
	size_t relasz = 0, relaent = sizeof(Elf64_Rela);

	memset(d, 0, sizeof(*d));
	for (const ElfW(Dyn) *e = map->l_ld; e && e->d_tag != DT_NULL; e++) {
		if (e->d_tag == DT_RELA)
			d->rela = (const Elf64_Rela *)dyn_addr(map, e->d_un.d_ptr);
		else if (e->d_tag == DT_RELASZ)
			relasz = e->d_un.d_val;
		else if (e->d_tag == DT_RELAENT)
			relaent = e->d_un.d_val;
		else if (e->d_tag == DT_SYMTAB)
			d->symtab = (const Elf64_Sym *)dyn_addr(map, e->d_un.d_ptr);
		else if (e->d_tag == DT_STRTAB)
			d->strtab = (const char *)dyn_addr(map, e->d_un.d_ptr);
	}
	d->nrela = relaent == sizeof(Elf64_Rela) ? relasz / relaent : 0;
	return d->rela && d->symtab && d->strtab;
}

struct relro {
	const struct link_map *map;
	uintptr_t start, end;
};

/* The object's program headers (dl_iterate_phdr reports only the
 * caller's namespace): the program's from the auxiliary vector, a
 * library's after its ELF header, mapped at its load address. */
static bool find_relro(const struct link_map *map, struct relro *r)
{
	const Elf64_Phdr *ph = NULL;
	size_t n = 0;
	uintptr_t bias = map->l_addr;

	*r = (struct relro){ map, 0, 0 };
	if (!map->l_name || !*map->l_name) {
		ph = (const Elf64_Phdr *)getauxval(AT_PHDR);
		n = getauxval(AT_PHNUM);
	} else if (map->l_addr && !memcmp((const void *)map->l_addr, ELFMAG, SELFMAG)) {
		const Elf64_Ehdr *eh = (const Elf64_Ehdr *)map->l_addr;

		ph = (const Elf64_Phdr *)(map->l_addr + eh->e_phoff);
		n = eh->e_phnum;
	}
	if (!ph)
		return false;
	for (size_t i = 0; i < n; i++)
		if (ph[i].p_type == PT_PHDR && !map->l_name[0])
			bias = (uintptr_t)ph - ph[i].p_vaddr;
	for (size_t i = 0; i < n; i++)
		if (ph[i].p_type == PT_GNU_RELRO) {
			r->start = bias + ph[i].p_vaddr;
			r->end = r->start + ph[i].p_memsz;
		}
	return true;
}

/* Store v at slot; a RELRO slot is unprotected for it.  */
static void store(uintptr_t *slot, uintptr_t v, const struct relro *relro)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), at = (uintptr_t)slot;
	void *p = (void *)(at & ~(page - 1));
	bool ro = at >= relro->start && at < relro->end;

	if (ro && mprotect(p, page, PROT_READ | PROT_WRITE) < 0) {
		au_debug("cannot unprotect a GOT slot", relro->map->l_name);
		return;
	}
	__atomic_store_n(slot, v, __ATOMIC_RELEASE);
	if (ro)
		mprotect(p, page, PROT_READ);
}

/* Does addr belong to the wrapped library? */
static bool in_library(uintptr_t addr, const struct au_wrapper *w)
{
	Dl_info info;
	struct link_map *owner = NULL;

	return w->lib_map && dladdr1((void *)addr, &info, (void **)&owner, RTLD_DL_LINKMAP) &&
	       owner == w->lib_map;
}

void au_got_redirect(struct link_map *map, struct au_wrapper *w)
{
	struct relro relro = { map, 0, 0 };
	int searched = 0;	/* 1: found, -1: no program headers */
	struct dyn d;

	if (!read_dynamic(map, &d))
		return;
	for (size_t i = 0; i < d.nrela && searched >= 0; i++) {
		unsigned type = ELF64_R_TYPE(d.rela[i].r_info);

		/* A function's address in data (a table of callbacks) too. */
		if (type != R_X86_64_GLOB_DAT && (type != R_X86_64_64 || d.rela[i].r_addend))
			continue;
		const Elf64_Sym *sym = &d.symtab[ELF64_R_SYM(d.rela[i].r_info)];
		struct au_fn *fn = au_wrapper_find(w, d.strtab + sym->st_name);
		uintptr_t *slot = (uintptr_t *)(map->l_addr + d.rela[i].r_offset);

		if (!fn || !*slot || !in_library(*slot, w))
			continue;
		if (!searched)
			searched = find_relro(map, &relro) ? 1 : -1;
		if (searched > 0)
			store(slot, w->base + fn->offset, &relro);
		else
			au_debug("no program headers: its GOT is left alone", map->l_name);
	}
}
