/* Prewitt edge detection (Table I), multi-threaded: work metric = image
 * rows, 256 columns. Gradient magnitude sqrt(gx^2 + gy^2) of the two 3x3
 * Prewitt masks, computed from per-column sums and differences. Threads
 * take equal bands of rows. */
#include "planner/adapters/adapters.h"

#include <math.h>
#include <stdlib.h>

#define COLS 256
#define WIN 3

static const int prewitt_x[3][3] = { { -1, 0, 1 }, { -1, 0, 1 }, { -1, 0, 1 } };
static const int prewitt_y[3][3] = { { -1, -1, -1 }, { 0, 0, 0 }, { 1, 1, 1 } };

static void prewitt_rows(void *arg, unsigned tid, size_t lo, size_t hi)
{
	const struct image_sample *s = arg;
	float colsum[COLS + WIN - 1], rowdiff[COLS + WIN - 1];
	(void)tid;
	for (size_t r = lo; r < hi; r++) {
		const float *a = s->in + r * s->in_cols;
		const float *b = a + s->in_cols, *c = b + s->in_cols;
		for (size_t x = 0; x < COLS + WIN - 1; x++) {
			colsum[x] = a[x] + b[x] + c[x];
			rowdiff[x] = c[x] - a[x];
		}
		float *o = s->out + r * COLS;
		for (size_t x = 0; x < COLS; x++) {
			float gx = colsum[x + 2] - colsum[x];
			float gy = rowdiff[x] + rowdiff[x + 1] + rowdiff[x + 2];
			o[x] = sqrtf(gx * gx + gy * gy);
		}
	}
}

/* Reference: the two masks applied literally, in double. */
static float ref_pixel(const struct image_sample *s, size_t r, size_t c)
{
	double gx = 0, gy = 0;
	for (size_t i = 0; i < WIN; i++)
		for (size_t j = 0; j < WIN; j++) {
			double p = s->in[(r + i) * s->in_cols + c + j];
			gx += prewitt_x[i][j] * p;
			gy += prewitt_y[i][j] * p;
		}
	return (float)sqrt(gx * gx + gy * gy);
}

static int setup(void *state, uint64_t metric, void **sample)
{
	return adapter_image_setup(state, metric, COLS, WIN, prewitt_rows, ref_pixel, sample);
}

static double metric_of(const double *params, size_t nparams)
{
	return adapter_image_metric_of(params, nparams, COLS);
}

const struct sibyl_adapter adapter_prewitt = {
	ADAPTER_IMAGE_FIELDS,
	.name = "prewitt",
	.description = "Prewitt gradient magnitude of a float image, pthreads",
	.work_metric = "image rows (256 columns)",
	.min_metric = 1,
	.max_metric = 25000,
	.setup = setup,
	.metric_of = metric_of,
};

const struct adapter_internal adapter_prewitt_internal = {
	.adapter = &adapter_prewitt,
	.verify = adapter_image_verify,
	.params_of = adapter_image_params_of,
};
