#include "core/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static bool verbose;

void sibyl_set_verbose(bool on)
{
	verbose = on;
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

void sibyl_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint("sibyl: warning: ", fmt, ap, NULL);
	va_end(ap);
}

void sibyl_info(const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	va_start(ap, fmt);
	vprint("sibyl: ", fmt, ap, NULL);
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
