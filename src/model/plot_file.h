/*
 * A PLplot figure written to PNG or SVG (by the path's extension) the
 * way every sibyl output is written: refused over an existing file
 * without --force, drawn into a private temporary, renamed into place.
 * Shared by `plan show` and `predict --plot`.
 */
#ifndef SIBYL_MODEL_PLOT_FILE_H
#define SIBYL_MODEL_PLOT_FILE_H

#include "core/output.h"

#include <stdbool.h>
#include <stddef.h>

struct sibyl_plot_file {
	struct sibyl_output out;
};

/* Start a 1000x700 figure, white background, black axes (colour 15);
 * 0, or -1 with a one-line reason. */
int sibyl_plot_begin(struct sibyl_plot_file *f, const char *path, bool force, char *err,
		     size_t errlen);
/* Finish the figure and put it into place; 0, or -1 with a reason. */
int sibyl_plot_end(struct sibyl_plot_file *f, const char *path, char *err, size_t errlen);

/*
 * Text from a file (a profile's name, a work metric) is untrusted:
 * PLplot keeps text in fixed buffers (its SVG driver crashed on 1,500
 * characters) and reads '#' as an escape.  A label is cut to
 * SIBYL_PLOT_LABEL_CHARS characters ("..." marks the cut), '#' doubled,
 * control characters made spaces; jansson gives valid UTF-8, so a
 * character is cut whole.
 */
#define SIBYL_PLOT_LABEL_CHARS 60
struct sibyl_plot_label {
	char s[SIBYL_PLOT_LABEL_CHARS * 4 + 8];	/* 4 bytes a character ('##' is 2) */
};
const char *sibyl_plot_label(struct sibyl_plot_label *l, const char *text);

/* Seconds, milliseconds or microseconds, whichever reads best for
 * values up to ymax: the factor to multiply by, and the unit's name. */
double sibyl_plot_time_unit(double ymax, const char **name);

#endif
