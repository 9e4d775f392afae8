/*
 * A helper program and sibyl: one way for both sides (core/run.h starts
 * it, core/message.h carries its JSON lines on SIBYL_RUN_REPORT_FD).
 *
 * In the helper, nothing is printed: an error is one message
 * {"event":"error","text":"<kernel: why>"} sent before exiting non-zero,
 * and the notices library code emits (core/log.h) are relayed as
 * {"event":"notice","kind":"warning"|"error"|"info","text":...} once
 * sibyl_helper_report_to() is called.  The helper's own stdout and
 * stderr stay its own (a library such as PoCL may print there).
 *
 * In sibyl, sibyl_helper_run reads the lines as they come: notices go
 * to this process's notice handler at once, the error into err, every
 * other message to the caller's callback.
 */
#ifndef SIBYL_CORE_HELPER_H
#define SIBYL_CORE_HELPER_H

#include "core/run.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* --- in the helper --------------------------------------------------------- */

/* From now on, notices go to the parent on fd. */
void sibyl_helper_report_to(int fd);
/* Send the error line (a helper then exits non-zero). */
void sibyl_helper_error(int fd, const char *text);

/* --- in sibyl -------------------------------------------------------------- */

/* Each other message (borrowed).  Returns the seconds the next line
 * may take (the helper is killed past them), <= 0: no limit. */
typedef double (*sibyl_helper_line_fn)(void *ctx, json_t *msg);

struct sibyl_helper {
	char *const *argv;		/* argv[0]: the helper (sibyl_run_helper_path) */
	sibyl_helper_line_fn line;	/* NULL: no other message expected */
	void *ctx;
	double first_timeout_s;		/* before the first line; <= 0: none */
	int stderr_fd;			/* > 2: the helper's stderr goes there */
};

/*
 * Run it to its end (killed past a deadline; killed too when sibyl
 * dies, core/run.h die_with_parent).  0 with how it ended in
 * *st, the helper's error line (if it sent one) in err, else "" there;
 * or -1 with the reason in err when it could not start.
 */
int sibyl_helper_run(const struct sibyl_helper *h, struct sibyl_run_status *st, char *err,
		     size_t errlen);

/* The error for a helper that failed without sending one: "<helper>
 * exited with status 3", "... killed by SIGSEGV" (err untouched when it
 * holds the helper's own line or the helper ended well); -1 when it
 * failed. */
int sibyl_helper_failed(const char *what, const struct sibyl_run_status *st, char *err,
			size_t errlen);

#endif
