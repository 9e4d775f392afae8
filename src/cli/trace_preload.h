/* The environment `sibyl trace` interposes through: LD_PRELOAD (the
 * runtime, and in preload mode the checked wrappers), or in audit mode
 * LD_AUDIT and SIBYL_WRAPPERS too. */
#ifndef SIBYL_CLI_TRACE_PRELOAD_H
#define SIBYL_CLI_TRACE_PRELOAD_H

#include "core/options.h"

#include <stdbool.h>

struct trace_preload {
	char *value;			/* for LD_PRELOAD */
	struct sibyl_strlist wrappers;	/* absolute paths, for meta.json */
	char *links;			/* private directory of links, or NULL */
	char *regions;			/* libsibyl-regions.so when a wrapper wants it */
	char *audit;			/* audit mode: for LD_AUDIT, else NULL */
	char *wrapper_list;		/* audit mode: for SIBYL_WRAPPERS, else NULL */
	bool counters;			/* a wrapper reads perf counters */
};

/* Check that every one of `wraps` is a sibyl wrapper library and build
 * the lists: LD_PRELOAD holds the runtime, the region tracker if a
 * wrapper wants it, the wrappers unless `audit`, then the caller's
 * LD_PRELOAD; with `audit`, LD_AUDIT holds the audit module (next to the
 * runtime) before the caller's, and SIBYL_WRAPPERS the wrappers.  0, or
 * -1 after one error line; call trace_preload_done either way. */
int trace_preload_make(struct trace_preload *p, const char *runtime,
		       const struct sibyl_strlist *wraps, bool audit);
/* Free it and remove the links. */
void trace_preload_done(struct trace_preload *p);

#endif
