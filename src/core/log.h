/* One-line diagnostics in the form "sibyl: <what>: <why>". */
#ifndef SIBYL_CORE_LOG_H
#define SIBYL_CORE_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* Print "sibyl: <fmt>\n" to stderr; always returns -1 for `return err(...)`. */
int sibyl_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Like sibyl_err, with ": <strerror(errno)>" appended. */
int sibyl_err_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sibyl_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Progress and chatter: printed only when verbose is on. */
void sibyl_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sibyl_set_verbose(bool on);

/* Library code does not print: it writes its one line into the caller's
 * err buffer (the caller prints it as "sibyl: <what>: <err>"; a NULL err
 * or an errlen of 0 takes nothing).  Always returns -1 for
 * `return sibyl_seterr(...)`. */
int sibyl_seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same, for helpers that take a va_list. */
int sibyl_vseterr(char *err, size_t errlen, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

#endif
