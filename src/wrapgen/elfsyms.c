#include "wrapgen/elfsyms.h"
#include "core/alloc.h"
#include "core/strbuf.h"
#include "core/fs.h"
#include "core/log.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Version index -> name, from .gnu.version_d (index 1 is the base, skip). */
struct verdefs {
	char **names;
	size_t n;
};

static void read_verdefs(Elf *e, Elf_Scn *scn, GElf_Shdr *sh, struct verdefs *vd)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0;

	for (size_t i = 0; d && i < sh->sh_info; i++) {
		GElf_Verdef def;
		GElf_Verdaux aux;

		if (!gelf_getverdef(d, (int)off, &def) ||
		    !gelf_getverdaux(d, (int)(off + def.vd_aux), &aux))
			break;
		if (def.vd_ndx >= vd->n) {
			size_t n = def.vd_ndx + 1u;

			vd->names = sibyl_xreallocarray(vd->names, n, sizeof(*vd->names));
			memset(vd->names + vd->n, 0, (n - vd->n) * sizeof(*vd->names));
			vd->n = n;
		}
		if (!(def.vd_flags & VER_FLG_BASE))
			vd->names[def.vd_ndx] = elf_strptr(e, sh->sh_link, aux.vda_name);
		if (!def.vd_next)
			break;
		off += def.vd_next;
	}
}

static void read_dynamic(Elf *e, Elf_Scn *scn, GElf_Shdr *sh, struct wg_symtab *out)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	bool have_runpath = false;

	for (size_t i = 0; d && i < n; i++) {
		GElf_Dyn dyn;
		const char *s;

		if (!gelf_getdyn(d, (int)i, &dyn) ||
		    !(s = elf_strptr(e, sh->sh_link, dyn.d_un.d_val)))
			continue;
		if (dyn.d_tag == DT_SONAME && !out->soname) {
			out->soname = sibyl_xstrdup(s);
		} else if (dyn.d_tag == DT_NEEDED) {
			out->needed = sibyl_xreallocarray(out->needed, out->nneeded + 1,
							  sizeof(*out->needed));
			out->needed[out->nneeded++] = sibyl_xstrdup(s);
		} else if (dyn.d_tag == DT_RUNPATH || (dyn.d_tag == DT_RPATH && !have_runpath)) {
			/* The loader ignores DT_RPATH when DT_RUNPATH is there. */
			free(out->runpath);
			out->runpath = sibyl_xstrdup(s);
			have_runpath |= dyn.d_tag == DT_RUNPATH;
		}
	}
}

static bool wanted(const GElf_Sym *s, bool imports, enum wg_sym_kind *kind)
{
	int type = GELF_ST_TYPE(s->st_info), bind = GELF_ST_BIND(s->st_info);

	if (bind != STB_GLOBAL && bind != STB_WEAK)
		return false;
	if (imports) {
		*kind = WG_SYM_FUNC;
		return s->st_shndx == SHN_UNDEF &&
		       (type == STT_FUNC || type == STT_NOTYPE || type == STT_GNU_IFUNC);
	}
	if (s->st_shndx == SHN_UNDEF || GELF_ST_VISIBILITY(s->st_other) != STV_DEFAULT)
		return false;
	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		*kind = WG_SYM_FUNC;
	else if (type == STT_OBJECT || type == STT_TLS || type == STT_COMMON)
		*kind = WG_SYM_DATA;
	else
		return false;
	return true;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct wg_sym *)a)->name, ((const struct wg_sym *)b)->name);
}

/* Keep one entry per name: foo@V1 and foo@@V2 both appear in .dynsym. */
static void sort_unique(struct wg_symtab *t)
{
	size_t w = 0;

	qsort(t->v, t->n, sizeof(*t->v), by_name);
	for (size_t r = 0; r < t->n; r++) {
		if (w && !strcmp(t->v[w - 1].name, t->v[r].name)) {
			if (!t->v[w - 1].version) {
				t->v[w - 1].version = t->v[r].version;
				t->v[r].version = NULL;
			}
			free(t->v[r].name);
			free(t->v[r].version);
			continue;
		}
		t->v[w++] = t->v[r];
	}
	t->n = w;
}

int wg_elf_open(const char *path, int *fd, Elf **e, char *err, size_t errlen)
{
	struct stat st;

	*e = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return sibyl_seterr(err, errlen, "libelf: %s", elf_errmsg(-1));
	*fd = sibyl_open_regular(path, SIZE_MAX, &st, err, errlen);	/* a FIFO never hangs */
	if (*fd < 0)
		return -1;
	*e = elf_begin(*fd, ELF_C_READ, NULL);
	if (*e && elf_kind(*e) == ELF_K_ELF)
		return 0;
	if (*e)
		elf_end(*e);
	close(*fd);
	return sibyl_seterr(err, errlen, "not an ELF file");
}

bool wg_elf_each_dynsym(Elf *e, wg_dynsym_fn *fn, void *ctx)
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

			if (gelf_getsym(d, (int)i, &s) && fn(ctx, e, &sh, i, &s))
				return true;
		}
	}
	return false;
}

/* What collecting a symbol table needs besides the symbols. */
struct collecting {
	Elf_Data *versym;
	struct verdefs vd;
	bool imports;
	struct wg_symtab *out;
	size_t cap;
};

static bool collect_one(void *ctx, Elf *e, const GElf_Shdr *sh, size_t i, const GElf_Sym *s)
{
	struct collecting *c = ctx;
	GElf_Versym ver = 1;
	enum wg_sym_kind kind;
	const char *name;

	if (!wanted(s, c->imports, &kind))
		return false;
	name = elf_strptr(e, sh->sh_link, s->st_name);
	if (!name || !*name)
		return false;
	if (c->versym)
		gelf_getversym(c->versym, (int)i, &ver);
	/* A hidden (non-default) version is an old ABI kept for old
	 * binaries; new links bind to the @@ default. */
	if (!c->imports && (ver & 0x8000))
		return false;
	if (c->out->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 256;
		c->out->v = sibyl_xreallocarray(c->out->v, c->cap, sizeof(*c->out->v));
	}
	struct wg_sym *o = &c->out->v[c->out->n++];

	o->name = sibyl_xstrdup(name);
	o->kind = kind;
	ver &= 0x7fff;
	o->version = !c->imports && ver < c->vd.n && c->vd.names[ver] ?
		     sibyl_xstrdup(c->vd.names[ver]) : NULL;
	return false;
}

/* The sections besides .dynsym that name things: versions, DT_SONAME. */
static bool read_sections(Elf *e, struct collecting *c)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	bool dynsym = false;

	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_DYNSYM)
			dynsym = true;
		else if (sh.sh_type == SHT_GNU_versym)
			c->versym = elf_getdata(scn, NULL);
		else if (sh.sh_type == SHT_GNU_verdef)
			read_verdefs(e, scn, &sh, &c->vd);
		else if (sh.sh_type == SHT_DYNAMIC)
			read_dynamic(e, scn, &sh, c->out);
	}
	return dynsym;
}

static int read_symbols(const char *path, bool imports, struct wg_symtab *out, char *err,
			size_t errlen)
{
	struct collecting c = { .imports = imports, .out = out };
	char why[256];
	int fd, rc = 0;
	Elf *e;

	memset(out, 0, sizeof(*out));
	if (wg_elf_open(path, &fd, &e, why, sizeof(why)) < 0)
		return sibyl_seterr(err, errlen, "wrap: %s: %s", path, why);
	if (!read_sections(e, &c))
		rc = sibyl_seterr(err, errlen, "wrap: %s: no dynamic symbol table (not a shared "
				  "object?)", path);
	else
		wg_elf_each_dynsym(e, collect_one, &c);
	if (!out->v)
		out->v = sibyl_xcalloc(1, sizeof(*out->v));
	sort_unique(out);
	free(c.vd.names);
	elf_end(e);
	close(fd);
	return rc;
}

int wg_elf_exports(const char *path, struct wg_symtab *out, char *err, size_t errlen)
{
	return read_symbols(path, false, out, err, errlen);
}

int wg_elf_imports(const char *path, struct wg_symtab *out, char *err, size_t errlen)
{
	return read_symbols(path, true, out, err, errlen);
}

const struct wg_sym *wg_symtab_find(const struct wg_symtab *t, const char *name)
{
	struct wg_sym key = { .name = (char *)name };

	if (!t->n)
		return NULL;
	return bsearch(&key, t->v, t->n, sizeof(*t->v), by_name);
}

void wg_symtab_free(struct wg_symtab *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].name);
		free(t->v[i].version);
	}
	free(t->v);
	free(t->soname);
	for (size_t i = 0; i < t->nneeded; i++)
		free(t->needed[i]);
	free(t->needed);
	free(t->runpath);
	memset(t, 0, sizeof(*t));
}
