#define _GNU_SOURCE
#include "model/plot_file.h"
#include "core/fs.h"
#include "core/log.h"

#include <errno.h>
#include <plplot.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const char *device_for(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (dot && !strcasecmp(dot, ".png"))
		return "pngcairo";
	if (dot && !strcasecmp(dot, ".svg"))
		return "svg";
	return NULL;
}

int sibyl_plot_begin(struct sibyl_plot_file *f, const char *path, bool force, char *err,
		     size_t errlen)
{
	const char *dev = device_for(path);

	if (!dev)
		return sibyl_seterr(err, errlen, "%s: the plot must end in .png or .svg", path);
	if (sibyl_refuse_overwrite(path, force, err, errlen))
		return -1;
	if (sibyl_output_open(&f->out, path, 0666) < 0) {
		sibyl_seterr(err, errlen, "%s: cannot write there: %s", path, strerror(errno));
		return -1;
	}
	close(f->out.fd);	/* PLplot writes the temporary by name */
	f->out.fd = -1;
	plsdev(dev);
	plsfnam(f->out.tmp);
	plscolbg(255, 255, 255);
	plscol0(15, 0, 0, 0);   /* axes and labels: black on white */
	plscol0(2, 0, 140, 0);  /* dark green, not yellow */
	plspage(0, 0, 1000, 700, 0, 0);
	plinit();
	return 0;
}

int sibyl_plot_end(struct sibyl_plot_file *f, const char *path, char *err, size_t errlen)
{
	plend();
	if (sibyl_output_commit(&f->out)) {
		sibyl_seterr(err, errlen, "%s: cannot put the plot into place: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

const char *sibyl_plot_label(struct sibyl_plot_label *l, const char *text)
{
	size_t n = 0, chars = 0;

	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		bool starts_char = (*p & 0xc0) != 0x80;

		if ((starts_char && chars++ == SIBYL_PLOT_LABEL_CHARS) || n + 4 + 4 > sizeof(l->s)) {
			memcpy(l->s + n, "...", 3);
			n += 3;
			break;
		}
		if (*p == '#')
			l->s[n++] = '#';
		l->s[n++] = *p < 0x20 || *p == 0x7f ? ' ' : (char)*p;
	}
	l->s[n] = '\0';
	return l->s;
}

double sibyl_plot_time_unit(double ymax, const char **name)
{
	if (ymax < 1e-3) {
		*name = "microseconds";
		return 1e6;
	}
	if (ymax < 1) {
		*name = "milliseconds";
		return 1e3;
	}
	*name = "seconds";
	return 1;
}
