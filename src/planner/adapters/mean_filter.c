/* Mean filter (Table I), multi-threaded: work metric = image rows, 256
 * columns, 3x3 window. Separable: a vertical sum of three rows, then a
 * horizontal sum of three columns. Threads take equal bands of rows. */
#include "planner/adapters/adapters.h"

#include <stdlib.h>

#define COLS 256
#define WIN 3

static void mean_rows(void *arg, unsigned tid, size_t lo, size_t hi)
{
	const struct image_sample *s = arg;
	float v[COLS + WIN - 1];
	(void)tid;
	for (size_t r = lo; r < hi; r++) {
		const float *a = s->in + r * s->in_cols;
		const float *b = a + s->in_cols, *c = b + s->in_cols;
		for (size_t x = 0; x < COLS + WIN - 1; x++)
			v[x] = a[x] + b[x] + c[x];
		float *o = s->out + r * COLS;
		for (size_t x = 0; x < COLS; x++)
			o[x] = (v[x] + v[x + 1] + v[x + 2]) * (1.0f / 9);
	}
}

static float ref_pixel(const struct image_sample *s, size_t r, size_t c)
{
	double sum = 0;
	for (size_t i = 0; i < WIN; i++)
		for (size_t j = 0; j < WIN; j++)
			sum += s->in[(r + i) * s->in_cols + c + j];
	return (float)(sum / 9);
}

static int setup(void *state, uint64_t metric, void **sample)
{
	return adapter_image_setup(state, metric, COLS, WIN, mean_rows, ref_pixel, sample);
}

static double metric_of(const double *params, size_t nparams)
{
	return adapter_image_metric_of(params, nparams, COLS);
}

const struct sibyl_adapter adapter_mean_filter = {
	ADAPTER_IMAGE_FIELDS,
	.name = "mean-filter",
	.description = "3x3 mean filter of a float image, pthreads",
	.work_metric = "image rows (256 columns)",
	.min_metric = 1,
	.max_metric = 25000,
	.setup = setup,
	.metric_of = metric_of,
};

const struct adapter_internal adapter_mean_filter_internal = {
	.adapter = &adapter_mean_filter,
	.verify = adapter_image_verify,
	.params_of = adapter_image_params_of,
};
