/*
 * Diagnostics.  One convention (issue 25):
 *  - library code never prints: a failure goes back to the caller as one
 *    line in the caller's err buffer (sibyl_seterr), and only src/cli
 *    prints it, as "sibyl: <what>: <why>" (sibyl_err);
 *  - what library code must say and carry on past (a warning, a sample
 *    of a sweep that crashed, verbose chatter) is a notice, handed to
 *    the one handler the program installed: the CLI prints it, a helper
 *    program sends it to sibyl (core/message.h), and with no handler
 *    (unit tests, benchmarks) it is dropped.
 */
#ifndef SIBYL_CORE_LOG_H
#define SIBYL_CORE_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* --- the CLI's printer: src/cli only ----------------------------------- */

/* Print "sibyl: <fmt>\n" to stderr; always returns -1 for `return err(...)`. */
int sibyl_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Like sibyl_err, with ": <strerror(errno)>" appended. */
int sibyl_err_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The notice handler that prints: "sibyl: <text>" for an error or a
 * note, "sibyl: warning: <text>" for a warning, "sibyl: <text>" for
 * chatter when verbose is on, and a diagnostic as it is. */
enum sibyl_notice {
	SIBYL_NOTICE_ERROR,	/* a failure the work carried on past */
	SIBYL_NOTICE_WARNING,
	SIBYL_NOTICE_NOTE,	/* what happened, always said */
	SIBYL_NOTICE_INFO,	/* progress and chatter: only when verbose */
	SIBYL_NOTICE_DIAG,	/* about the user's input, as a compiler says it:
				 * "FILE:LINE: error: why" */
};
void sibyl_notice_print(enum sibyl_notice kind, const char *text, void *ctx);
void sibyl_set_verbose(bool on);
bool sibyl_verbose(void);

/* --- library code -------------------------------------------------------- */

/* Write the one line into the caller's err buffer (the caller prints it
 * as "sibyl: <what>: <err>"; a NULL err or an errlen of 0 takes nothing).
 * Always returns -1 for `return sibyl_seterr(...)`. */
int sibyl_seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same, with ": <strerror(errno)>" appended. */
int sibyl_seterr_errno(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same, for helpers that take a va_list. */
int sibyl_vseterr(char *err, size_t errlen, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

typedef void sibyl_notice_fn(enum sibyl_notice kind, const char *text, void *ctx);
/* The program's handler (NULL: notices are dropped). */
void sibyl_set_notice_handler(sibyl_notice_fn *fn, void *ctx);
/* The handler in place and its ctx: to put back after a spell of
 * dropped notices (a probe whose failures are not the user's). */
sibyl_notice_fn *sibyl_notice_handler(void **ctx);
void sibyl_notice(enum sibyl_notice kind, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sibyl_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sibyl_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
