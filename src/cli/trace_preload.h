/* LD_PRELOAD for `sibyl trace`: the runtime and the checked wrappers. */
#ifndef SIBYL_CLI_TRACE_PRELOAD_H
#define SIBYL_CLI_TRACE_PRELOAD_H

#include "core/options.h"

struct trace_preload {
	char *value;			/* for LD_PRELOAD */
	struct sibyl_strlist wrappers;	/* absolute paths, for meta.json */
	char *links;			/* private directory of links, or NULL */
	char *regions;			/* libsibyl-regions.so when a wrapper wants it */
};

/* Check that every one of `wraps` is a sibyl wrapper library and build
 * the list: runtime, the region tracker if a wrapper wants it, wrappers,
 * then the caller's LD_PRELOAD.  0, or -1
 * after one error line; call trace_preload_done either way. */
int trace_preload_make(struct trace_preload *p, const char *runtime,
		       const struct sibyl_strlist *wraps);
/* Free it and remove the links. */
void trace_preload_done(struct trace_preload *p);

#endif
