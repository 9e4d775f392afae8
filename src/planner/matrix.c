/* The sample matrix: insertion and regeneration of segments (Figs 2-3). */
#include "planner/matrix.h"
#include "core/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sibyl_matrix_init(struct sibyl_matrix *m, const struct sibyl_matrix_params *p)
{
	memset(m, 0, sizeof(*m));
	m->p = *p;
}

void sibyl_matrix_free(struct sibyl_matrix *m)
{
	for (size_t i = 0; i < m->count; i++) {
		free(m->nodes[i].ys);
		free(m->rows[i]);
	}
	free(m->nodes);
	free(m->rows);
	free(m->rowcap);
	free(m->tq);
	memset(m, 0, sizeof(*m));
}

/* t quantiles are needed for every cell: cache them by df. */
static double t_quantile(struct sibyl_matrix *m, size_t df)
{
	if (df >= m->ntq) {
		size_t n = df + 64;

		m->tq = sibyl_xreallocarray(m->tq, n, sizeof(*m->tq));
		for (size_t i = m->ntq; i < n; i++)
			m->tq[i] = i ? sibyl_t_quantile(m->p.confidence, (double)i) : INFINITY;
		m->ntq = n;
	}
	return m->tq[df];
}

bool sibyl_matrix_fit(const struct sibyl_matrix *m, size_t row, size_t col,
		      struct sibyl_ols_fit *f)
{
	return sibyl_ols_fit(&sibyl_cell_at(m, row, col)->s, f);
}

/* The planner's innermost loop (every valid cell visits its samples):
 * the limit is spelled out rather than fmax(), which GCC calls out of
 * line to honour NaNs that times never are. */
static uint32_t out_of_range(const struct sibyl_matrix *m, size_t row, size_t col,
			     const struct sibyl_ols_fit *f)
{
	double e = m->p.sample_error, floor_ = m->p.time_floor;
	uint32_t n = 0;

	for (size_t k = row; k <= col; k++) {
		const struct sibyl_node *v = &m->nodes[k];
		double pred = sibyl_ols_predict(f, v->x);

		for (size_t j = 0; j < v->nys; j++) {
			double y = v->ys[j], limit = e * fabs(y);

			n += fabs(pred - y) > (limit > floor_ ? limit : floor_);
		}
	}
	return n;
}

/* A sample's weight in its segments' fits: 1 / y^2 for relative
 * residuals.  A time under the clock's floor weighs as the floor; a time
 * of 0 without a floor (synthetic tests only: the command line always
 * sets one) has no scale and weighs 1, next to nothing. */
static double weight(const struct sibyl_matrix *m, double y)
{
	double d = fmax(fabs(y), m->p.time_floor);

	return m->p.relative && d > 0 ? 1 / (d * d) : 1;
}

/* Samples summed for one third, weighted as in the fit: their work
 * metrics, times and weights.  The line is held to the centroid its own
 * least squares aims at: with relative residuals a few slow runs pull an
 * unweighted mean up, but not the fit. */
struct third {
	double sx, sy, w;
};

static void third_add(struct third *t, double x, double y, double w)
{
	t->sx += w * x;
	t->sy += w * y;
	t->w += w;
}

/* The samples of nodes a..b, from their cell's sums (none when a > b). */
static void add_nodes(struct third *t, const struct sibyl_matrix *m, size_t a, size_t b)
{
	if (a > b)
		return;
	const struct sibyl_ols_sums *s = &sibyl_cell_at(m, a, b)->s;

	t->sx += s->sx;
	t->sy += s->sy;
	t->w += s->w;
}

/* Samples from..to - 1 (counted in node order from 0) of node k. */
static void add_some(struct third *t, const struct sibyl_matrix *m, size_t k, size_t from,
		     size_t to)
{
	const struct sibyl_node *v = &m->nodes[k];

	if (from == 0 && to == v->nys)
		return add_nodes(t, m, k, k);
	for (size_t j = from; j < to; j++)
		third_add(t, v->x, v->ys[j], weight(m, v->ys[j]));
}

/* Samples before node k of a segment starting at node row (k >= row). */
static size_t samples_before(const struct sibyl_matrix *m, size_t row, size_t k)
{
	return k > row ? (size_t)sibyl_cell_at(m, row, k - 1)->s.n : 0;
}

/* The node of segment row..col that holds its sample number s. */
static size_t node_of_sample(const struct sibyl_matrix *m, size_t row, size_t col, size_t s)
{
	size_t lo = row, hi = col;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((size_t)sibyl_cell_at(m, row, mid)->s.n > s)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Samples a..b - 1 of segment row..col, counted in work-metric order. */
static void add_samples(struct third *t, const struct sibyl_matrix *m, size_t row, size_t col,
			size_t a, size_t b)
{
	if (a >= b)
		return;
	size_t ka = node_of_sample(m, row, col, a), kb = node_of_sample(m, row, col, b - 1);
	size_t oa = a - samples_before(m, row, ka), ob = b - samples_before(m, row, kb);

	if (ka == kb)
		return add_some(t, m, ka, oa, ob);
	add_some(t, m, ka, oa, m->nodes[ka].nys);
	add_nodes(t, m, ka + 1, kb - 1);
	add_some(t, m, kb, 0, ob);
}

/* The first node of row..col whose work metric lies in the given third
 * of the span or beyond (col + 1 if none). */
static size_t first_node_in(const struct sibyl_matrix *m, size_t row, size_t col, int part)
{
	double from = m->nodes[row].x, span = m->nodes[col].x - from;
	size_t lo = row, hi = col + 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((int)fmin(2, 3 * (m->nodes[mid].x - from) / span) >= part)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The first sample number of the given third of n samples by count. */
static size_t first_sample_in(double n, int part)
{
	size_t s = (size_t)fmax(0, floor(n * part / 3) - 1);

	while ((int)fmin(2, 3 * (double)s / n) < part)
		s++;
	return s;
}

/* The line passes within fit_error of the third's mean time, at its mean
 * work metric (an empty third passes). */
static bool fits_third(const struct sibyl_matrix *m, const struct sibyl_ols_fit *f,
		       const struct third *t)
{
	if (!(t->w > 0))
		return true;
	double y = t->sy / t->w, pred = sibyl_ols_predict(f, t->sx / t->w);

	return fabs(pred - y) <= fmax(m->p.fit_error * y, m->p.time_floor);
}

/*
 * sibyl's check against curvature, which the paper's checks miss: the
 * confidence interval of the mean response narrows as samples pile up,
 * so with enough of them a straight line over a curve passes it while
 * most of its samples are out of range.  Split the segment's samples, in
 * work-metric order, into thirds; the line must pass within fit_error of
 * the mean time of each third, at that third's mean work metric.  Means
 * average the noise away where samples are many, and a line through a
 * curve misses the middle third one way and the outer ones the other.
 * The thirds are taken twice: by span, and by sample count.  Span alone
 * lets a long segment over a curve pass when its samples crowd one end
 * (the interval of interest puts them near where the chain grew, so they
 * thin out with the work metric's logarithm): its first third by span
 * then holds most of the samples and the line misses the few at the low
 * end, where the relative error is largest, by tens of percent.
 *
 * A third's sums come from the cells of the nodes it holds, found by
 * binary search (the cells of shorter intervals are regenerated before
 * longer ones): summing every sample instead made each cell cost its
 * length, and a plan of 1000 noisy samples spent minutes of CPU there.
 */
static bool fits_thirds(const struct sibyl_matrix *m, size_t row, size_t col,
			const struct sibyl_ols_fit *f)
{
	struct third by_span[3] = { { 0 } }, by_count[3] = { { 0 } };
	size_t k1 = first_node_in(m, row, col, 1), k2 = first_node_in(m, row, col, 2);
	size_t s1 = first_sample_in(f->n, 1), s2 = first_sample_in(f->n, 2);

	add_nodes(&by_span[0], m, row, k1 - 1);
	add_nodes(&by_span[1], m, k1, k2 - 1);
	add_nodes(&by_span[2], m, k2, col);
	add_samples(&by_count[0], m, row, col, 0, s1);
	add_samples(&by_count[1], m, row, col, s1, s2);
	add_samples(&by_count[2], m, row, col, s2, (size_t)f->n);
	for (int part = 0; part < 3; part++)
		if (!fits_third(m, f, &by_span[part]) || !fits_third(m, f, &by_count[part]))
			return false;
	return true;
}

/*
 * The segment checks of section III.B: at least three samples (and two
 * work metrics, so the slope exists), and a confidence interval of the
 * mean response no wider than segment_error of the segment's time.  The
 * interval is narrowest at the centroid and widest at the ends, where the
 * spread of the samples matters (the paper: "the variance and spread of
 * the samples determines the width"), so its full width is taken at both
 * ends (the first and last sampled work metric) and the larger one must
 * be at most segment_error of the segment's time at its centroid, which
 * for least squares is the (weighted) mean measured time of its samples.
 * Relating the low end's width to the time predicted *there* instead
 * would demand ever finer absolute precision as a steep segment
 * approaches short runs and, with noise of 10% and ordinary least
 * squares, kept the planner from finding a first segment.  (With the
 * relative fit, relating each end to its own prediction was measured
 * too: it lets the high end of a segment over a curve pass more easily,
 * 12% fewer samples and 11% more error on the synthetic benchmark.)
 * A non-positive prediction at an end fails.  Widths and errors below
 * `time_floor` (a few ticks of the clock) always pass: a 10% interval
 * around a 20 ns run is finer than the clock can see.
 */
static void generate_segment(struct sibyl_matrix *m, size_t row, size_t col)
{
	struct sibyl_cell *c = sibyl_cell_at(m, row, col);
	struct sibyl_ols_fit f;

	if (row == col)
		c->s = m->nodes[row].s;
	else
		c->s = sibyl_ols_merge(&m->nodes[row].s, &sibyl_cell_at(m, row + 1, col)->s);
	c->valid = false;
	c->oor = 0;
	if (row == col || c->s.n < 3 || !sibyl_ols_fit(&c->s, &f))
		return;
	double t = t_quantile(m, (size_t)c->s.n - 2);
	double ends[2] = { m->nodes[row].x, m->nodes[col].x };
	double allowed = fmax(m->p.segment_error * sibyl_ols_predict(&f, f.mean_x),
			      m->p.time_floor);

	for (int e = 0; e < 2; e++)
		if (!(sibyl_ols_predict(&f, ends[e]) > 0) ||
		    2 * sibyl_ols_ci_half(&f, ends[e], t) > allowed)
			return;
	/* Three consecutive integer work metrics are the shortest segment a
	 * chain can use (consecutive segments share two), so where time bends
	 * between them (LCS: 557, 1066 and 1407 ns for 1, 2 and 3 characters)
	 * no segment could fit better: holding it to the curvature check
	 * left the chain without a start, sampling 1 to 4 until the safety
	 * stop. */
	bool shortest = m->nodes[col].x - m->nodes[row].x <= 2;

	if (m->p.fit_error > 0 && !shortest && !fits_thirds(m, row, col, &f))
		return;
	/* A line that misses most of its own samples is no segment, however
	 * narrow its mean's interval: FFTW's sizes 16 to 201 (primes ten
	 * times slower than their neighbours) ended in one with 81-86% of
	 * its samples out of range, which an evaluation then extended over
	 * the whole range. */
	uint32_t oor = out_of_range(m, row, col, &f);

	if (2.0 * oor > c->s.n)
		return;
	c->valid = true;
	c->oor = oor;
}

static int grow(struct sibyl_matrix *m)
{
	if (m->count < m->cap)
		return 0;
	size_t cap = m->cap ? 2 * m->cap : 64;
	struct sibyl_node *nodes = realloc(m->nodes, cap * sizeof(*nodes));

	if (!nodes)
		return -1;
	m->nodes = nodes;
	struct sibyl_cell **rows = realloc(m->rows, cap * sizeof(*rows));

	if (!rows)
		return -1;
	m->rows = rows;
	size_t *rowcap = realloc(m->rowcap, cap * sizeof(*rowcap));

	if (!rowcap)
		return -1;
	m->rowcap = rowcap;
	m->cap = cap;
	return 0;
}

/* Make room for a column at index i in row r (< i) that had count - r cells. */
static int widen_row(struct sibyl_matrix *m, size_t r, size_t i)
{
	size_t len = m->count - r;

	if (len + 1 > m->rowcap[r]) {
		size_t cap = len + 1 + len / 4 + 8;   /* rows grow one cell per sample */
		struct sibyl_cell *row = realloc(m->rows[r], cap * sizeof(*row));

		if (!row)
			return -1;
		m->rows[r] = row;
		m->rowcap[r] = cap;
	}
	memmove(&m->rows[r][i - r + 1], &m->rows[r][i - r], (len - (i - r)) * sizeof(**m->rows));
	return 0;
}

/* Fig 2: rows and columns from i on move one down and right. */
static int insert_node(struct sibyl_matrix *m, size_t i, double x)
{
	if (grow(m))
		return -1;
	for (size_t r = 0; r < i; r++)
		if (widen_row(m, r, i))
			return -1;
	memmove(&m->nodes[i + 1], &m->nodes[i], (m->count - i) * sizeof(*m->nodes));
	memmove(&m->rows[i + 1], &m->rows[i], (m->count - i) * sizeof(*m->rows));
	memmove(&m->rowcap[i + 1], &m->rowcap[i], (m->count - i) * sizeof(*m->rowcap));
	memset(&m->nodes[i], 0, sizeof(*m->nodes));
	m->nodes[i].x = x;
	m->rowcap[i] = m->count + 1 - i + 8;
	m->rows[i] = calloc(m->rowcap[i], sizeof(**m->rows));
	if (!m->rows[i])
		return -1;
	m->count++;
	return 0;
}

static int add_y(struct sibyl_node *v, double y, double w)
{
	if (v->nys == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 2;
		double *ys = realloc(v->ys, cap * sizeof(*ys));

		if (!ys)
			return -1;
		v->ys = ys;
		v->cap = cap;
	}
	v->ys[v->nys++] = y;
	sibyl_ols_add_weighted(&v->s, v->x, y, w);
	return 0;
}

/* DetermineSortedIndex (Fig 3): the first node at or past x. */
static size_t sorted_index(const struct sibyl_matrix *m, double x)
{
	size_t lo = 0, hi = m->count;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->nodes[mid].x < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

long sibyl_matrix_find(const struct sibyl_matrix *m, double x)
{
	size_t i = sorted_index(m, x);

	return i < m->count && m->nodes[i].x == x ? (long)i : -1;
}

int sibyl_matrix_insert(struct sibyl_matrix *m, double x, double y, size_t *index)
{
	size_t i = sorted_index(m, x);

	if ((i == m->count || m->nodes[i].x != x) && insert_node(m, i, x))
		return -1;
	if (add_y(&m->nodes[i], y, weight(m, y)))
		return -1;
	m->samples++;
	/* Only cells whose interval holds node i change: rows 0..i, columns
	 * i..count-1.  Decreasing rows let each cell reuse (row + 1, col). */
	for (size_t row = i + 1; row-- > 0;)
		for (size_t col = i; col < m->count; col++)
			generate_segment(m, row, col);
	*index = i;
	return 0;
}

void sibyl_matrix_rebuild(struct sibyl_matrix *m)
{
	for (size_t row = m->count; row-- > 0;)
		for (size_t col = row; col < m->count; col++)
			generate_segment(m, row, col);
}
