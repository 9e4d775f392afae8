/* Profile generation: chain selection by dynamic programming (Figs 4-5). */
#include "planner/chain.h"
#include "core/alloc.h"

#include <math.h>
#include <stdlib.h>

/* A predecessor is better with fewer out-of-range samples over its chain,
 * then with fewer segments; ties keep the one found first. */
static bool better_pred(const struct sibyl_cell *a, const struct sibyl_cell *b)
{
	if (!b)
		return true;
	if (a->chain_oor != b->chain_oor)
		return a->chain_oor < b->chain_oor;
	return a->chain_segs < b->chain_segs;
}

static void set_chain(struct sibyl_cell *c, bool root, const struct sibyl_cell *pred,
		      int32_t prow, int32_t pcol)
{
	c->pred_row = c->pred_col = -1;
	c->chained = false;
	if (!c->valid)
		return;
	if (root) {
		c->chained = true;
		c->chain_oor = c->oor;
		c->chain_segs = 1;
	} else if (pred) {
		c->chained = true;
		c->pred_row = prow;
		c->pred_col = pcol;
		c->chain_oor = c->oor + pred->chain_oor;
		c->chain_segs = 1 + pred->chain_segs;
	}
}

/* The cell at (row, col), or NULL for a row of -1 (none; col is not read). */
static struct sibyl_cell *cell_or_null(const struct sibyl_matrix *m, int32_t row, size_t col)
{
	return row < 0 ? NULL : sibyl_cell_at(m, (size_t)row, col);
}

/*
 * Fig 5 with the running best the paper mentions: a predecessor of
 * (row, col) is a chained cell (row2, col2) with row2 < row and
 * row < col2 < col, i.e. it starts earlier and ends inside the current
 * segment, overlapping it by at least two samples.  Going down the rows,
 * the best chained cell of each column among the rows passed so far
 * (col_best_row) and, along a row, the best of those over its columns
 * so far (run_row, run_col) make each cell cost O(1).
 *
 * Cells with col < i keep their chains, and so both running bests they
 * hold (those depend only on cells of columns up to theirs, which did not
 * change; inserting node i moves only columns from i on): each row picks
 * them up at column i - 1, so an update costs the cells of columns i and
 * after, not the whole matrix (the planner's samples land near the
 * chain's end, so i is mostly near the last column).
 */
void sibyl_chain_update(struct sibyl_matrix *m, size_t i)
{
	size_t n = m->count;

	for (size_t row = 0; row < n; row++) {
		size_t first = row > i ? row : i;
		int32_t prow = -1, pcol = -1;

		if (first > row) {   /* the running best as column first - 1 left it */
			const struct sibyl_cell *at = sibyl_cell_at(m, row, first - 1);

			prow = at->run_row;
			pcol = at->run_col;
		}
		for (size_t col = first; col < n; col++) {
			struct sibyl_cell *c = sibyl_cell_at(m, row, col);
			/* Column col - 1's best among the rows above: a candidate
			 * once it ends inside this segment (col - 1 > row). */
			int32_t above = row > 0 && col >= row + 2 ?
					sibyl_cell_at(m, row - 1, col - 1)->col_best_row : -1;
			const struct sibyl_cell *cand = cell_or_null(m, above, col - 1);
			const struct sibyl_cell *pred = cell_or_null(m, prow, (size_t)pcol);

			if (cand && (!pred || better_pred(cand, pred))) {
				pred = cand;
				prow = above;
				pcol = (int32_t)col - 1;
			}
			set_chain(c, row == 0, pred, prow, pcol);
			c->run_row = prow;
			c->run_col = pcol;
			/* This column's best among rows 0..row (the diagonal, a
			 * single work metric, is never a segment). */
			int32_t best = row > 0 && col > row ?
				       sibyl_cell_at(m, row - 1, col)->col_best_row : -1;
			const struct sibyl_cell *b = cell_or_null(m, best, col);

			if (col > row && c->chained && (!b || better_pred(c, b)))
				best = (int32_t)row;
			c->col_best_row = best;
		}
	}
}

bool sibyl_chain_best(const struct sibyl_matrix *m, size_t *brow, size_t *bcol)
{
	const struct sibyl_cell *b = NULL;

	for (size_t col = m->count; col-- > 0 && !b;)
		for (size_t row = 0; row < col; row++) {
			const struct sibyl_cell *c = sibyl_cell_at(m, row, col);

			if (c->chained && (!b || better_pred(c, b))) {
				b = c;
				*brow = row;
				*bcol = col;
			}
		}
	return b != NULL;
}

struct sibyl_segment *sibyl_chain_segments(const struct sibyl_matrix *m, size_t row,
					   size_t col, size_t *n)
{
	size_t k = 0, cap = 8;
	struct sibyl_segment *s = sibyl_xmalloc(cap * sizeof(*s));

	for (;;) {
		const struct sibyl_cell *c = sibyl_cell_at(m, row, col);
		struct sibyl_ols_fit f;

		if (k == cap)
			s = sibyl_xreallocarray(s, cap *= 2, sizeof(*s));
		sibyl_ols_fit(&c->s, &f);
		s[k++] = (struct sibyl_segment){ m->nodes[row].x, m->nodes[col].x, f.a, f.b,
						 (unsigned)c->s.n, c->oor };
		if (c->pred_row < 0)
			break;
		row = (size_t)c->pred_row;
		col = (size_t)c->pred_col;
	}
	for (size_t a = 0, b = k - 1; a < b; a++, b--) {
		struct sibyl_segment t = s[a];

		s[a] = s[b];
		s[b] = t;
	}
	*n = k;
	return s;
}

/*
 * Where two consecutive segments meet: where their lines cross, if that
 * is within the span both cover together [prev.from, next.to] (a kink
 * between two sampled work metrics often puts the crossing just outside
 * the overlap of the two segments).  Parallel lines, or lines crossing
 * outside that span (noise), switch at the middle of the overlap
 * [next.from, prev.to], taking the mean of both lines there.
 */
static struct sibyl_point join(const struct sibyl_segment *p, const struct sibyl_segment *q)
{
	if (p->b != q->b) {
		double x = (q->a - p->a) / (p->b - q->b);

		if (x >= p->from && x <= q->to)
			return (struct sibyl_point){ x, p->a + p->b * x };
	}
	double x = (q->from + p->to) / 2;

	return (struct sibyl_point){ x, (p->a + p->b * x + q->a + q->b * x) / 2 };
}

struct sibyl_point *sibyl_chain_points(const struct sibyl_segment *s, size_t n, double lo,
				       double hi, size_t *npoints)
{
	struct sibyl_point *v = sibyl_xmalloc((n + 1) * sizeof(*v));
	size_t k = 0;

	v[k++] = (struct sibyl_point){ lo, s[0].a + s[0].b * lo };
	for (size_t i = 1; i < n; i++) {
		struct sibyl_point p = join(&s[i - 1], &s[i]);

		/* Overlaps of non-adjacent segments may overlap each other, so
		 * a join can fall behind the previous one: keep x increasing. */
		if (p.x > v[k - 1].x && p.x < hi)
			v[k++] = p;
	}
	v[k++] = (struct sibyl_point){ hi, s[n - 1].a + s[n - 1].b * hi };
	*npoints = k;
	return v;
}
