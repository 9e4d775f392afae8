/* Optical flow (Table I), multi-threaded: work metric = image rows, 128
 * columns, 8x8 template. The implementation is the block-matching core
 * of optical flow: the sum of absolute differences (SAD) between the
 * template and the window at every position; the motion estimate is the
 * position of the smallest SAD. Threads take equal bands of rows. */
#include "planner/adapters/adapters.h"

#include <math.h>
#include <stdlib.h>

#define COLS 128
#define WIN 8

static void sad_rows(void *arg, unsigned tid, size_t lo, size_t hi)
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
				const float t = s->window[i * WIN + j];
				const float *restrict x = row + j;
				for (size_t c = 0; c < COLS; c++)
					o[c] += fabsf(x[c] - t);
			}
		}
	}
}

static float ref_pixel(const struct image_sample *s, size_t r, size_t c)
{
	double sad = 0;
	for (size_t i = 0; i < WIN; i++)
		for (size_t j = 0; j < WIN; j++)
			sad += fabs((double)s->in[(r + i) * s->in_cols + c + j] -
				    s->window[i * WIN + j]);
	return (float)sad;
}

static int setup(void *state, uint64_t metric, void **sample)
{
	return adapter_image_setup(state, metric, COLS, WIN, sad_rows, ref_pixel, sample);
}

static double metric_of(const double *params, size_t nparams)
{
	return adapter_image_metric_of(params, nparams, COLS);
}

const struct sibyl_adapter adapter_optical_flow = {
	ADAPTER_IMAGE_FIELDS,
	.name = "optical-flow",
	.description = "optical flow by SAD block matching of an 8x8 template, pthreads",
	.work_metric = "image rows (128 columns)",
	.min_metric = 1,
	.max_metric = 10000,
	.setup = setup,
	.metric_of = metric_of,
};

const struct adapter_internal adapter_optical_flow_internal = {
	.adapter = &adapter_optical_flow,
	.verify = adapter_image_verify,
	.params_of = adapter_image_params_of,
};
