/*
 * A wrapper's table, read from its file before it is loaded: every
 * defined, default-visibility function of .dynsym is a wrapped function
 * (sibyl_* and the _init/_fini stubs excepted), the exported string
 * SIBYL_WRAPPED_LIBRARY_SYMBOL names the library it wraps, and a redirect
 * wrapper's SIBYL_REDIRECT_LIBRARY_SYMBOL its alternative library.  The file
 * stays mapped for the life of the process image: the names point into it.
 */
#include "rt/audit/audit.h"

#include <sibyl/wrap_rt.h>

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct image {
	const unsigned char *p;
	size_t size;
	const Elf64_Shdr *sh;
	size_t nsh;
};

/* p + off holds n bytes. */
static bool within(const struct image *im, uint64_t off, uint64_t n)
{
	return off <= im->size && n <= im->size - off;
}

static const Elf64_Shdr *section(const struct image *im, size_t i)
{
	return i < im->nsh ? &im->sh[i] : NULL;
}

/* A NUL-terminated string at offset `at` of section `s`, or NULL. */
static const char *string_at(const struct image *im, const Elf64_Shdr *s, uint64_t at)
{
	if (!s || at >= s->sh_size || !within(im, s->sh_offset, s->sh_size))
		return NULL;
	const char *str = (const char *)im->p + s->sh_offset + at;

	return memchr(str, '\0', s->sh_size - at) ? str : NULL;
}

static bool exported(const Elf64_Sym *s)
{
	unsigned bind = ELF64_ST_BIND(s->st_info);

	return s->st_shndx != SHN_UNDEF && s->st_shndx < SHN_LORESERVE &&
	       (bind == STB_GLOBAL || bind == STB_WEAK) &&
	       ELF64_ST_VISIBILITY(s->st_other) == STV_DEFAULT;
}

static bool wrapped_function(const Elf64_Sym *s, const char *name)
{
	unsigned type = ELF64_ST_TYPE(s->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) && strncmp(name, "sibyl_", 6) &&
	       strcmp(name, "_init") && strcmp(name, "_fini");
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct au_fn *)a)->name, ((const struct au_fn *)b)->name);
}

/* The string an exported symbol holds, or NULL. */
static const char *string_value(const struct image *im, const Elf64_Sym *s)
{
	const Elf64_Shdr *sec = section(im, s->st_shndx);

	if (sec && s->st_value >= sec->sh_addr && sec->sh_type != SHT_NOBITS)
		return string_at(im, sec, s->st_value - sec->sh_addr);
	return NULL;
}

static bool read_symbols(const struct image *im, const Elf64_Shdr *dynsym, struct au_wrapper *w)
{
	const Elf64_Shdr *strtab = section(im, dynsym->sh_link);
	size_t n = dynsym->sh_size / sizeof(Elf64_Sym);

	if (dynsym->sh_entsize != sizeof(Elf64_Sym) || !within(im, dynsym->sh_offset, dynsym->sh_size))
		return false;
	const Elf64_Sym *syms = (const Elf64_Sym *)(im->p + dynsym->sh_offset);

	w->fns = calloc(n ? n : 1, sizeof(*w->fns));
	if (!w->fns)
		return false;
	for (size_t i = 1; i < n; i++) {
		const char *name = string_at(im, strtab, syms[i].st_name);

		if (!name || !exported(&syms[i]))
			continue;
		if (!strcmp(name, SIBYL_WRAPPED_LIBRARY_SYMBOL))
			w->lib_path = string_value(im, &syms[i]);
		else if (!strcmp(name, SIBYL_REDIRECT_LIBRARY_SYMBOL))
			w->alt_name = string_value(im, &syms[i]);
		else if (wrapped_function(&syms[i], name))
			w->fns[w->nfns++] = (struct au_fn){ .name = name, .offset = syms[i].st_value };
	}
	qsort(w->fns, w->nfns, sizeof(*w->fns), by_name);
	return w->lib_path != NULL;
}

static bool read_image(const struct image *im, struct au_wrapper *w)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)im->p;

	if (im->size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !within(im, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
		return false;
	struct image sections = *im;

	sections.sh = (const Elf64_Shdr *)(im->p + eh->e_shoff);
	sections.nsh = eh->e_shnum;
	for (size_t i = 0; i < sections.nsh; i++)
		if (sections.sh[i].sh_type == SHT_DYNSYM)
			return read_symbols(&sections, &sections.sh[i], w);
	return false;
}

struct au_wrapper *au_wrapper_read(const char *path)
{
	struct au_wrapper *w = calloc(1, sizeof(*w));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st, lib;
	struct image im = { 0 };

	if (!w || fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !st.st_size)
		goto fail;
	im.size = (size_t)st.st_size;
	im.p = mmap(NULL, im.size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (im.p == MAP_FAILED || !read_image(&im, w) || stat(w->lib_path, &lib) < 0)
		goto fail;
	close(fd);
	w->dev = st.st_dev;
	w->ino = st.st_ino;
	w->lib_dev = lib.st_dev;
	w->lib_ino = lib.st_ino;
	/* A path is the file; a bare soname is matched by name. */
	if (w->alt_name && strchr(w->alt_name, '/') && stat(w->alt_name, &lib) == 0)
		w->alt_dev = lib.st_dev, w->alt_ino = lib.st_ino;
	w->self = (struct au_cookie){ AU_WRAPPER, w };
	w->lib = (struct au_cookie){ AU_LIBRARY, w };
	return w;
fail:
	au_debug("cannot read the wrapper's functions or its library; not interposing", path);
	if (im.p && im.p != MAP_FAILED)
		munmap((void *)im.p, im.size);
	if (fd >= 0)
		close(fd);
	if (w)
		free(w->fns);
	free(w);
	return NULL;
}

struct au_fn *au_wrapper_find(const struct au_wrapper *w, const char *name)
{
	struct au_fn key = { .name = name };

	return bsearch(&key, w->fns, w->nfns, sizeof(*w->fns), by_name);
}
