/* Recognising a sibyl wrapper library before it is preloaded. */
#include "wrapgen/wrapper_check.h"
#include "core/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The mark is a defined, global, default-visibility symbol of .dynsym. */
static bool exports_mark(Elf *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = sh.sh_size / sh.sh_entsize;

		for (size_t i = 1; d && i < n; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF ||
			    GELF_ST_BIND(s.st_info) != STB_GLOBAL ||
			    GELF_ST_VISIBILITY(s.st_other) != STV_DEFAULT)
				continue;
			name = elf_strptr(e, sh.sh_link, s.st_name);
			if (name && !strcmp(name, WG_WRAPPER_MARK))
				return true;
		}
	}
	return false;
}

int wg_check_wrapper(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd = sibyl_open_regular(path, SIZE_MAX, &st, err, errlen);	/* a FIFO never hangs */
	const char *why = NULL;
	GElf_Ehdr eh;
	Elf *e = NULL;

	if (fd < 0)
		return -1;
	if (elf_version(EV_CURRENT) == EV_NONE ||
		 !(e = elf_begin(fd, ELF_C_READ, NULL)) || elf_kind(e) != ELF_K_ELF)
		why = "not an ELF file";
	else if (!gelf_getehdr(e, &eh) || eh.e_type != ET_DYN)
		why = "not a shared library";
	else if (!exports_mark(e))
		why = "not a wrapper library made by sibyl wrap (rebuild it with this sibyl)";
	if (e)
		elf_end(e);
	close(fd);
	if (why)
		snprintf(err, errlen, "%s", why);
	return why ? -1 : 0;
}
