/* Profile plots with PLplot: samples as points, the profile as lines. */
#ifndef SIBYL_PLANNER_PLOT_H
#define SIBYL_PLANNER_PLOT_H

#include "model/profile.h"

#include <stdbool.h>
#include <stddef.h>

/* PNG (cairo) or SVG by the extension of path; written to a temporary
 * file, then renamed.  Axes whose data span two decades or more are
 * logarithmic unless linear.  -1 with a one-line reason. */
int sibyl_plot_profile(const struct sibyl_profile *p, const char *path, bool force,
		       bool linear, char *err, size_t errlen);

#endif
