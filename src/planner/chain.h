/*
 * Profile generation (section III.C, Figs 4-5): the best chain of
 * overlapping segments from the lowest sampled work metric, and the
 * profile points it yields.
 */
#ifndef SIBYL_PLANNER_CHAIN_H
#define SIBYL_PLANNER_CHAIN_H

#include "model/profile.h"
#include "planner/matrix.h"

/* Reconsider predecessors after node i changed (Fig 5); i = 0 redoes all. */
void sibyl_chain_update(struct sibyl_matrix *m, size_t i);

/* The best chain's last cell: furthest end, then fewest out-of-range
 * samples, then fewest segments.  False when no chain exists. */
bool sibyl_chain_best(const struct sibyl_matrix *m, size_t *row, size_t *col);

/* The chain ending at (row, col), first segment first (malloc'd). */
struct sibyl_segment *sibyl_chain_segments(const struct sibyl_matrix *m, size_t row,
					   size_t col, size_t *n);

/* Profile points of a chain: the first segment at `lo`, the intersection
 * of each consecutive pair, the last segment at `hi` (malloc'd). */
struct sibyl_point *sibyl_chain_points(const struct sibyl_segment *s, size_t n, double lo,
				       double hi, size_t *npoints);

#endif
