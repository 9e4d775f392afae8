#include "core/progress.h"
#include "core/clock.h"

#include <stdarg.h>
#include <unistd.h>

#define REDRAW_S 0.1

void sibyl_progress_start(struct sibyl_progress *p, FILE *out, const char *what,
			  const char *unit)
{
	sibyl_seconds_init();
	*p = (struct sibyl_progress){ .out = out, .on = isatty(fileno(out)), .what = what,
				      .unit = unit, .start = sibyl_seconds(), .last = -1 };
}

/* "1:05" or "2:03:07". */
static void print_eta(FILE *out, double s)
{
	long t = (long)(s + 0.5);

	if (t >= 3600)
		fprintf(out, "  ETA %ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		fprintf(out, "  ETA %ld:%02ld", t / 60, t % 60);
}

/* The line, drawn unless throttled (force: a new phase, or the end). */
static void draw(struct sibyl_progress *p, double done, double total, bool force,
		 const char *fmt, va_list ap)
{
	double now = sibyl_seconds(), elapsed = now - p->start;

	if (!p->on || (!force && p->last >= 0 && now - p->last < REDRAW_S))
		return;
	p->last = now;
	p->drawn = true;
	fprintf(p->out, "\rsibyl: %s: ", p->what);
	vfprintf(p->out, fmt, ap);
	if (total > 0)
		fprintf(p->out, "  %.0f%%", 100 * done / total);
	if (p->unit && elapsed > 0 && done > 0)
		fprintf(p->out, "  %.3g %s/s", done / elapsed, p->unit);
	if (total > 0 && done > 0 && done < total)
		print_eta(p->out, elapsed * (total - done) / done);
	fputs("\033[K", p->out);
	fflush(p->out);
}

void sibyl_progress_update(struct sibyl_progress *p, double done, double total,
			   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	draw(p, done, total, total > 0 && done >= total, fmt, ap);	/* the end is always shown */
	va_end(ap);
}

void sibyl_progress_phase(struct sibyl_progress *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	draw(p, 0, 0, true, fmt, ap);
	va_end(ap);
}

void sibyl_progress_done(struct sibyl_progress *p)
{
	if (p->on && p->drawn) {
		fputs("\r\033[K", p->out);
		fflush(p->out);
	}
	p->drawn = false;
}
