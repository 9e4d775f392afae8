/*
 * By default (audit mode, docs/trace.md) the runtime and the region
 * tracker are preloaded, the audit module goes in LD_AUDIT, and the
 * wrappers are named in SIBYL_WRAPPERS for the runtime to load
 * RTLD_LOCAL; in preload mode the wrappers are preloaded too.
 * ld.so splits LD_PRELOAD at spaces and colons, so a library whose path
 * holds one would be cut into names that do not exist and the trace would
 * be silently empty.  Such a library is preloaded through a symbolic link
 * in a private directory instead.  A --wrap that is not a wrapper made by
 * `sibyl wrap` (e.g. /etc/passwd) is refused before anything runs.
 * The region tracker (libsibyl-regions.so) is preloaded only for
 * wrappers that want it.
 */
#define _GNU_SOURCE
#include "cli/trace_preload.h"
#include "core/alloc.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/output.h"
#include "core/strbuf.h"
#include "wrapgen/wrapper_check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char separators[] = " :\t\n";

/* `lib` itself, or a link to it that ld.so can take whole. */
static int preload_name(struct trace_preload *p, const char *lib, struct sibyl_strbuf *out)
{
	static unsigned n;

	if (!lib[strcspn(lib, separators)]) {
		sibyl_strbuf_printf(out, "%s%s", out->len ? ":" : "", lib);
		return 0;
	}
	if (!p->links && !(p->links = sibyl_private_tmpdir("sibyl-preload")))
		return sibyl_err_errno("trace: %s: cannot make a link without spaces or ':'", lib);
	if (p->links[strcspn(p->links, separators)])
		return sibyl_err("trace: %s: its path holds a space or ':', and so does $TMPDIR: "
				 "cannot preload it", lib);
	char *link = sibyl_xasprintf("%s/%u.so", p->links, n++);
	int r = symlink(lib, link);

	if (r < 0)
		sibyl_err_errno("trace: cannot link %s", link);
	else
		sibyl_strbuf_printf(out, "%s%s", out->len ? ":" : "", link);
	free(link);
	return r;
}

/* A library installed next to the runtime: the region tracker
 * (docs/worksize.md), the audit module. */
static char *sibling_library(const char *runtime, const char *name)
{
	const char *slash = strrchr(runtime, '/');

	return sibyl_xasprintf("%.*s%s", slash ? (int)(slash - runtime + 1) : 0, runtime, name);
}

static char *regions_library(const char *runtime, const char *wanted_by)
{
	char *lib = sibling_library(runtime, "libsibyl-regions.so");

	if (access(lib, R_OK) == 0)
		return lib;
	sibyl_err_errno("trace: --wrap %s wants the region tracker, but %s", wanted_by, lib);
	free(lib);
	return NULL;
}

/* LD_AUDIT: the audit module first, then the caller's auditors. */
static int audit_list(struct trace_preload *p, const char *runtime)
{
	const char *old = getenv("LD_AUDIT");
	char *lib = sibling_library(runtime, "libsibyl-audit.so");
	struct sibyl_strbuf list = { 0 };
	int r = access(lib, R_OK);

	if (r < 0)
		sibyl_err_errno("trace: the audit module %s (use --interpose preload without it)", lib);
	else
		r = preload_name(p, lib, &list);
	free(lib);
	if (r < 0)
		return sibyl_strbuf_free(&list), -1;
	if (old && *old)
		sibyl_strbuf_printf(&list, ":%s", old);
	p->audit = sibyl_strbuf_take(&list);
	return 0;
}

/* Every --wrap, checked; *wants_regions: the first that wants them;
 * p->counters: one of them counts. */
static int check_wrappers(struct trace_preload *p, const struct sibyl_strlist *wraps,
			  const char **wants_regions)
{
	char err[256];

	for (size_t i = 0; i < wraps->count; i++) {
		char *abs = realpath(wraps->items[i], NULL);
		struct wg_wrapper_wants wants = { false, false };

		if (!abs)
			return sibyl_err_errno("trace: wrapper library %s", wraps->items[i]);
		sibyl_strlist_take(&p->wrappers, abs);
		if (wg_check_wrapper(abs, &wants, err, sizeof(err)) < 0)
			return sibyl_err("trace: --wrap %s: %s", wraps->items[i], err);
		if (wants.regions && !*wants_regions)
			*wants_regions = wraps->items[i];
		p->counters |= wants.counters;
	}
	return 0;
}

int trace_preload_make(struct trace_preload *p, const char *runtime,
		       const struct sibyl_strlist *wraps, bool audit)
{
	const char *old = getenv("LD_PRELOAD");
	const char *wants_regions = NULL;
	struct sibyl_strbuf list = { 0 }, wrappers = { 0 };

	memset(p, 0, sizeof(*p));
	if (check_wrappers(p, wraps, &wants_regions) < 0 || (audit && audit_list(p, runtime) < 0))
		return -1;
	/* Only then: it replaces the program's allocator entry points. */
	if (wants_regions && !(p->regions = regions_library(runtime, wants_regions)))
		return -1;
	if (preload_name(p, runtime, &list) < 0 ||
	    (p->regions && preload_name(p, p->regions, &list) < 0))
		return sibyl_strbuf_free(&list), -1;
	for (size_t i = 0; i < p->wrappers.count; i++)
		if (preload_name(p, p->wrappers.items[i], audit ? &wrappers : &list) < 0)
			return sibyl_strbuf_free(&list), sibyl_strbuf_free(&wrappers), -1;
	if (old && *old)
		sibyl_strbuf_printf(&list, ":%s", old);
	p->value = sibyl_strbuf_take(&list);
	if (audit)
		p->wrapper_list = sibyl_strbuf_take(&wrappers);
	return 0;
}

void trace_preload_done(struct trace_preload *p)
{
	if (p->links)
		sibyl_remove_tree(p->links);
	free(p->links);
	free(p->regions);
	free(p->value);
	free(p->audit);
	free(p->wrapper_list);
	sibyl_strlist_free(&p->wrappers);
}
