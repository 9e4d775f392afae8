/*
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

/* The region tracker, next to the runtime (docs/worksize.md). */
static char *regions_library(const char *runtime, const char *wanted_by)
{
	const char *slash = strrchr(runtime, '/');
	char *lib = sibyl_xasprintf("%.*slibsibyl-regions.so",
				    slash ? (int)(slash - runtime + 1) : 0, runtime);

	if (access(lib, R_OK) == 0)
		return lib;
	sibyl_err_errno("trace: --wrap %s wants the region tracker, but %s", wanted_by, lib);
	free(lib);
	return NULL;
}

int trace_preload_make(struct trace_preload *p, const char *runtime,
		       const struct sibyl_strlist *wraps)
{
	const char *old = getenv("LD_PRELOAD");
	const char *wants_regions = NULL;
	struct sibyl_strbuf list = { 0 };
	char err[256];

	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < wraps->count; i++) {
		char *abs = realpath(wraps->items[i], NULL);
		bool wants = false;

		if (!abs)
			return sibyl_err_errno("trace: wrapper library %s", wraps->items[i]);
		sibyl_strlist_take(&p->wrappers, abs);
		if (wg_check_wrapper(abs, &wants, err, sizeof(err)) < 0)
			return sibyl_err("trace: --wrap %s: %s", wraps->items[i], err);
		if (wants && !wants_regions)
			wants_regions = wraps->items[i];
	}
	/* Only then: it replaces the program's allocator entry points. */
	if (wants_regions && !(p->regions = regions_library(runtime, wants_regions)))
		return -1;
	if (preload_name(p, runtime, &list) < 0 ||
	    (p->regions && preload_name(p, p->regions, &list) < 0))
		return sibyl_strbuf_free(&list), -1;
	for (size_t i = 0; i < p->wrappers.count; i++)
		if (preload_name(p, p->wrappers.items[i], &list) < 0)
			return sibyl_strbuf_free(&list), -1;
	if (old && *old)
		sibyl_strbuf_printf(&list, ":%s", old);
	p->value = sibyl_strbuf_take(&list);
	return 0;
}

void trace_preload_done(struct trace_preload *p)
{
	if (p->links)
		sibyl_remove_tree(p->links);
	free(p->links);
	free(p->regions);
	free(p->value);
	sibyl_strlist_free(&p->wrappers);
}
