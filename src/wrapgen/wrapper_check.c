/* Recognising a sibyl wrapper library before it is preloaded. */
#include "wrapgen/wrapper_check.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
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
	/* O_NONBLOCK: a FIFO must not hang the check. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	const char *why = NULL;
	struct stat st;
	GElf_Ehdr eh;
	Elf *e = NULL;

	if (fd < 0)
		return snprintf(err, errlen, "%s", strerror(errno)), -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		why = "not a regular file";
	else if (elf_version(EV_CURRENT) == EV_NONE ||
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
