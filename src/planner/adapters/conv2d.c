/* 2D convolution (Table I), multi-threaded: work metric = image rows,
 * 128 columns, 8x8 window. Threads take equal bands of output rows. */
#include "planner/adapters/adapters.h"

#include <stdlib.h>

#define COLS 128
#define WIN 8

/* Row-wise accumulation: each window tap scales a whole input row into
 * the output row, a loop of fixed length the compiler vectorises. */
static void conv_rows(void *arg, unsigned tid, size_t lo, size_t hi)
{
	const struct image_sample *s = arg;
	(void)tid;
	for (size_t r = lo; r < hi; r++) {
		float *restrict o = s->out + r * COLS;
		for (size_t c = 0; c < COLS; c++)
			o[c] = 0;
		for (size_t i = 0; i < WIN; i++) {
			const float *row = s->in + (r + i) * s->in_cols;
			for (size_t j = 0; j < WIN; j++) {
				const float w = s->window[i * WIN + j];
				const float *restrict x = row + j;
				for (size_t c = 0; c < COLS; c++)
					o[c] += w * x[c];
			}
		}
	}
}

/* Reference: one pixel at a time, summed in double. */
static float ref_pixel(const struct image_sample *s, size_t r, size_t c)
{
	double sum = 0;
	for (size_t i = 0; i < WIN; i++)
		for (size_t j = 0; j < WIN; j++)
			sum += (double)s->window[i * WIN + j] *
			       s->in[(r + i) * s->in_cols + c + j];
	return (float)sum;
}

static int setup(void *state, uint64_t metric, void **sample)
{
	return adapter_image_setup(state, metric, COLS, WIN, conv_rows, ref_pixel, sample);
}

static double metric_of(const double *params, size_t nparams)
{
	return adapter_image_metric_of(params, nparams, COLS);
}

const struct sibyl_adapter adapter_conv2d = {
	ADAPTER_IMAGE_FIELDS,
	.name = "conv2d",
	.description = "2D convolution of a float image with an 8x8 window, pthreads",
	.work_metric = "image rows (128 columns)",
	.min_metric = 1,
	.max_metric = 10000,
	.setup = setup,
	.metric_of = metric_of,
};

const struct adapter_internal adapter_conv2d_internal = {
	.adapter = &adapter_conv2d,
	.verify = adapter_image_verify,
	.params_of = adapter_image_params_of,
};
