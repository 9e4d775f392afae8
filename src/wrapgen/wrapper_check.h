/*
 * What makes a library a sibyl wrapper: every library `sibyl wrap`
 * generates defines and exports WG_WRAPPER_MARK (an unsigned holding
 * WG_WRAPPER_ABI), and `sibyl trace` preloads nothing else.
 */
#ifndef SIBYL_WRAPGEN_WRAPPER_CHECK_H
#define SIBYL_WRAPGEN_WRAPPER_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include <sibyl/wrap_rt.h>

#define WG_WRAPPER_MARK SIBYL_WRAPPER_MARK_SYMBOL
/* 2: exports SIBYL_WRAPPED_LIBRARY_SYMBOL, which the audit module needs.
 * 3: the thread state holds the frames of the calls in progress.
 * 4: worksize.full's carry may be about another thread's call (carry_tid). */
#define WG_WRAPPER_ABI 4

/* What a wrapper needs of `sibyl trace`: the region tracker (it exports
 * SIBYL_WS_WANTED_SYMBOL, sibyl/wrap_rt.h), perf counters (it calls the
 * runtime's SIBYL_COUNTERS_SYMBOL: the counters generator). */
struct wg_wrapper_wants {
	bool regions, counters;
};
#define SIBYL_COUNTERS_SYMBOL "sibyl_rt_counters_emit"

/* 0 when `path` is a regular file holding an ELF shared object that
 * exports WG_WRAPPER_MARK; else -1 with the reason in err.  On success,
 * *wants (if not NULL) says what it needs. */
int wg_check_wrapper(const char *path, struct wg_wrapper_wants *wants, char *err,
		     size_t errlen);

#endif
