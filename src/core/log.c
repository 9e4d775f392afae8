#define _GNU_SOURCE
#include "core/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool verbose;
static sibyl_notice_fn *notice_fn;
static void *notice_ctx;

void sibyl_set_verbose(bool on)
{
	verbose = on;
}

bool sibyl_verbose(void)
{
	return verbose;
}

static void vprint(const char *prefix, const char *fmt, va_list ap, const char *suffix)
{
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	if (suffix)
		fprintf(stderr, ": %s", suffix);
	fputc('\n', stderr);
}

int sibyl_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint("sibyl: ", fmt, ap, NULL);
	va_end(ap);
	return -1;
}

int sibyl_err_errno(const char *fmt, ...)
{
	const char *why = strerror(errno);
	va_list ap;

	va_start(ap, fmt);
	vprint("sibyl: ", fmt, ap, why);
	va_end(ap);
	return -1;
}

void sibyl_notice_print(enum sibyl_notice kind, const char *text, void *ctx)
{
	(void)ctx;
	if (kind == SIBYL_NOTICE_INFO && !verbose)
		return;
	if (kind == SIBYL_NOTICE_DIAG)
		fprintf(stderr, "%s\n", text);
	else
		fprintf(stderr, "sibyl: %s%s\n", kind == SIBYL_NOTICE_WARNING ? "warning: " : "",
			text);
}

void sibyl_set_notice_handler(sibyl_notice_fn *fn, void *ctx)
{
	notice_fn = fn;
	notice_ctx = ctx;
}

sibyl_notice_fn *sibyl_notice_handler(void **ctx)
{
	*ctx = notice_ctx;
	return notice_fn;
}

/* A diagnostic (a compiler's whole log) may be long: never cut. */
static void vnotice(enum sibyl_notice kind, const char *fmt, va_list ap)
{
	char text[2048], *big = NULL;
	va_list again;

	if (!notice_fn)
		return;
	va_copy(again, ap);
	if (vsnprintf(text, sizeof(text), fmt, ap) >= (int)sizeof(text) &&
	    vasprintf(&big, fmt, again) < 0)
		big = NULL;
	va_end(again);
	notice_fn(kind, big ? big : text, notice_ctx);
	free(big);
}

void sibyl_notice(enum sibyl_notice kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnotice(kind, fmt, ap);
	va_end(ap);
}

void sibyl_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnotice(SIBYL_NOTICE_WARNING, fmt, ap);
	va_end(ap);
}

void sibyl_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnotice(SIBYL_NOTICE_INFO, fmt, ap);
	va_end(ap);
}

int sibyl_vseterr(char *err, size_t errlen, const char *fmt, va_list ap)
{
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
	return -1;
}

int sibyl_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sibyl_vseterr(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

int sibyl_seterr_errno(char *err, size_t errlen, const char *fmt, ...)
{
	const char *why = strerror(errno);
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	sibyl_vseterr(err, errlen, fmt, ap);
	va_end(ap);
	if (err && errlen && (n = strlen(err)) < errlen)
		snprintf(err + n, errlen - n, ": %s", why);
	return -1;
}
