/*
 * The sample matrix (Wernsing & Stitt 2010, section III.B, Figs 2-3): one
 * row and column per unique sampled work metric, in ascending order; cell
 * (row, col) holds the regression over samples row..col, its validity as
 * a segment and its sample out-of-range count, plus the chain fields that
 * profile generation (chain.c) fills.  Samples with the same work metric
 * share a node.
 */
#ifndef SIBYL_PLANNER_MATRIX_H
#define SIBYL_PLANNER_MATRIX_H

#include "model/ols.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sibyl_node {
	double x;
	struct sibyl_ols_sums s;   /* the samples measured at x */
	double *ys;                /* each measured time, for out-of-range counts */
	size_t nys, cap;
};

struct sibyl_cell {
	struct sibyl_ols_sums s;   /* samples of nodes row..col */
	uint32_t oor;              /* sample out-of-range count (valid cells) */
	bool valid;                /* a usable segment */
	bool chained;              /* a chain from row 0 ends with this segment */
	int32_t pred_row, pred_col;/* best predecessor, -1 for none */
	uint32_t chain_oor, chain_segs;
	/* Kept for the next update (chain.c): the best chained cell of this
	 * column among rows 0..row, and the best predecessor candidate met
	 * in this row up to this column; -1 for none. */
	int32_t col_best_row;
	int32_t run_row, run_col;
};

struct sibyl_matrix_params {
	double segment_error;      /* max CI width / predicted time, e.g. 0.10 */
	double sample_error;       /* |measured - predicted| / measured, e.g. 0.10 */
	double confidence;         /* e.g. 0.95 */
	double time_floor;         /* seconds the clock cannot resolve (see below) */
	/* How far a segment's line may miss the mean time of each third of
	 * its samples (sibyl's addition, see fits_thirds; 0 = the paper). */
	double fit_error;
	/* Fit relative residuals (weights 1 / y^2, sibyl's default) instead
	 * of absolute ones (the paper's ordinary least squares). */
	bool relative;
};

struct sibyl_matrix {
	struct sibyl_matrix_params p;
	size_t count, cap;         /* unique work metrics */
	size_t samples;            /* all samples */
	struct sibyl_node *nodes;
	struct sibyl_cell **rows;  /* rows[r][c - r] is cell (r, c) */
	size_t *rowcap;
	double *tq;                /* t quantiles by degrees of freedom */
	size_t ntq;
};

void sibyl_matrix_init(struct sibyl_matrix *m, const struct sibyl_matrix_params *p);
void sibyl_matrix_free(struct sibyl_matrix *m);

static inline struct sibyl_cell *sibyl_cell_at(const struct sibyl_matrix *m, size_t row,
					       size_t col)
{
	return &m->rows[row][col - row];
}

/* Add one sample (Fig 3): insert a row and column for a new work metric
 * or merge into the existing one, then regenerate only the rectangle of
 * cells bounded by that row and column.  *index receives the node. */
int sibyl_matrix_insert(struct sibyl_matrix *m, double x, double y, size_t *index);
/* Regenerate every cell from the nodes (tests compare it with insert). */
void sibyl_matrix_rebuild(struct sibyl_matrix *m);
/* Index of the node at x, or -1. */
long sibyl_matrix_find(const struct sibyl_matrix *m, double x);

/* The fit of cell (row, col); false when the slope is undefined. */
bool sibyl_matrix_fit(const struct sibyl_matrix *m, size_t row, size_t col,
		      struct sibyl_ols_fit *f);

#endif
