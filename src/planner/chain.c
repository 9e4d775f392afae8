/* Profile generation: chain selection by dynamic programming (Figs 4-5). */
#include "planner/chain.h"

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

/*
 * Fig 5 with the running best the paper mentions: a predecessor of
 * (row, col) is a chained cell (row2, col2) with row2 < row and
 * row < col2 < col, i.e. it starts earlier and ends inside the current
 * segment, overlapping it by at least two samples.  best[c] holds the
 * best chained cell of column c among the rows already passed, so each
 * cell costs O(1).  Cells with col < i keep their predecessors: nothing
 * they can see changed.
 */
void sibyl_chain_update(struct sibyl_matrix *m, size_t i)
{
	size_t n = m->count;
	struct sibyl_cell **best = calloc(n ? n : 1, sizeof(*best));
	int32_t *best_row = calloc(n ? n : 1, sizeof(*best_row));

	for (size_t row = 0; row < n; row++) {
		const struct sibyl_cell *pred = NULL;
		int32_t prow = -1, pcol = -1;

		for (size_t col = row; col < n; col++) {
			if (col >= row + 2 && best[col - 1] &&
			    (!pred || better_pred(best[col - 1], pred))) {
				pred = best[col - 1];
				prow = best_row[col - 1];
				pcol = (int32_t)col - 1;
			}
			if (col >= i)
				set_chain(sibyl_cell_at(m, row, col), row == 0, pred, prow, pcol);
		}
		for (size_t col = row + 1; col < n; col++) {
			struct sibyl_cell *c = sibyl_cell_at(m, row, col);

			if (c->chained && (!best[col] || better_pred(c, best[col]))) {
				best[col] = c;
				best_row[col] = (int32_t)row;
			}
		}
	}
	free(best);
	free(best_row);
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
	struct sibyl_segment *s = malloc(cap * sizeof(*s));

	for (;;) {
		const struct sibyl_cell *c = sibyl_cell_at(m, row, col);
		struct sibyl_ols_fit f;

		if (k == cap)
			s = realloc(s, (cap *= 2) * sizeof(*s));
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
	struct sibyl_point *v = malloc((n + 1) * sizeof(*v));
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
