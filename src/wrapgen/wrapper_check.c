/* Recognising a sibyl wrapper library before it is preloaded. */
#include "wrapgen/wrapper_check.h"
#include "wrapgen/elfsyms.h"
#include "core/fs.h"
#include "core/log.h"

#include <sibyl/wrap_rt.h>

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The value of a symbol holding an unsigned, from the section that
 * contains its address; false when it is not in the file's data. */
static bool read_unsigned(Elf *e, const GElf_Sym *sym, unsigned *value)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    sym->st_value < sh.sh_addr || sym->st_value + sizeof(*value) > sh.sh_addr + sh.sh_size)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t at = sym->st_value - sh.sh_addr;

		if (!d || !d->d_buf || at + sizeof(*value) > d->d_size)
			return false;
		memcpy(value, (const char *)d->d_buf + at, sizeof(*value));
		return true;
	}
	return false;
}

struct finding {
	const char *name;
	bool defined;		/* an export; else an import */
	GElf_Sym *sym;
};

static bool is_named(void *ctx, Elf *e, const GElf_Shdr *sh, size_t index, const GElf_Sym *s)
{
	struct finding *f = ctx;
	const char *name;

	(void)index;
	if ((s->st_shndx != SHN_UNDEF) != f->defined || GELF_ST_BIND(s->st_info) != STB_GLOBAL ||
	    GELF_ST_VISIBILITY(s->st_other) != STV_DEFAULT)
		return false;
	name = elf_strptr(e, sh->sh_link, s->st_name);
	if (!name || strcmp(name, f->name))
		return false;
	*f->sym = *s;
	return true;
}

/* A global, default-visibility symbol of .dynsym named `name`, defined
 * (an export) or not (an import). */
static bool find_symbol(Elf *e, const char *name, bool defined, GElf_Sym *out)
{
	struct finding f = { name, defined, out };

	return wg_elf_each_dynsym(e, is_named, &f);
}

/* The mark's value is the wrapper <-> runtime interface version it was
 * built for (0 when it cannot be read). */
static bool exports_mark(Elf *e, unsigned *abi)
{
	GElf_Sym s;

	if (!find_symbol(e, WG_WRAPPER_MARK, true, &s))
		return false;
	if (!read_unsigned(e, &s, abi))
		*abi = 0;
	return true;
}

int wg_check_wrapper(const char *path, struct wg_wrapper_wants *wants, char *err,
		     size_t errlen)
{
	GElf_Sym ws;
	const char *why = NULL;
	unsigned abi = 0;
	GElf_Ehdr eh;
	Elf *e;
	int fd;

	if (wg_elf_open(path, &fd, &e, err, errlen) < 0)
		return -1;
	if (!gelf_getehdr(e, &eh) || eh.e_type != ET_DYN)
		why = "not a shared library";
	else if (!exports_mark(e, &abi))
		why = "not a wrapper library made by sibyl wrap (rebuild it with this sibyl)";
	else if (wants) {
		wants->regions = find_symbol(e, SIBYL_WS_WANTED_SYMBOL, true, &ws);
		wants->counters = find_symbol(e, SIBYL_COUNTERS_SYMBOL, false, &ws);
	}
	elf_end(e);
	close(fd);
	if (why)
		return sibyl_seterr(err, errlen, "%s", why);
	if (abi != WG_WRAPPER_ABI)
		return sibyl_seterr(err, errlen, "made by another sibyl for wrapper interface %u; "
				    "this sibyl's runtime speaks %u (rebuild it with this sibyl's "
				    "wrap)", abi, WG_WRAPPER_ABI);
	return 0;
}
