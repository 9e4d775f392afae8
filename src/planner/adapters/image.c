/* What the four sliding-window adapters share (2D convolution, mean
 * filter, optical flow, Prewitt): a random padded image, its output and
 * the window, the row-based inverse mapping and a tolerant comparison. */
#include "planner/adapters/adapters.h"

#include <math.h>
#include <stdlib.h>

int adapter_image_setup(void *state, size_t rows, size_t cols, size_t win,
			adapter_range_fn rows_fn, adapter_ref_pixel_fn ref_pixel,
			void **sample)
{
	struct image_sample *s = calloc(1, sizeof(*s));
	if (!s)
		return -1;
	s->rows_fn = rows_fn;
	s->ref_pixel = ref_pixel;
	s->rows = rows;
	s->cols = cols;
	s->win = win;
	s->in_cols = cols + win - 1;
	size_t in_rows = rows + win - 1;
	s->in = adapter_alloc(in_rows * s->in_cols, sizeof(float));
	s->out = adapter_alloc_output(rows * cols, sizeof(float));
	s->window = adapter_alloc(win * win, sizeof(float));
	if (!s->in || !s->out || !s->window) {
		adapter_image_teardown(state, s);
		return -1;
	}
	adapter_fill_random_floats(state, s->in, in_rows * s->in_cols);
	adapter_fill_random_floats(state, s->window, win * win);
	*sample = s;
	return 0;
}

double adapter_image_run(void *state, void *sample, uint64_t metric)
{
	struct image_sample *s = sample;
	(void)metric;
	return adapter_timed_parallel(state, s->rows, s->rows_fn, s);
}

void adapter_image_teardown(void *state, void *sample)
{
	struct image_sample *s = sample;
	(void)state;
	free(s->in);
	free(s->out);
	free(s->window);
	free(s);
}

static int image_compare(const struct image_sample *s, const float *ref)
{
	for (size_t i = 0; i < s->rows * s->cols; i++)
		if (!(fabsf(s->out[i] - ref[i]) <= 1e-4f * (1 + fabsf(ref[i]))))
			return -1;
	return 0;
}

double adapter_image_metric_of(const double *params, size_t nparams, double fixed_cols)
{
	if (!adapter_params_ok(params, nparams, 2, 0))
		return -1;
	return params[0] * params[1] / fixed_cols;
}

size_t adapter_image_params_of(void *sample, double *params)
{
	struct image_sample *s = sample;
	params[0] = (double)s->rows;
	params[1] = (double)s->cols;
	return 2;
}

int adapter_image_verify(void *state, void *sample, uint64_t rows)
{
	const struct image_sample *s = sample;
	(void)state;
	float *ref = adapter_alloc(s->rows * s->cols, sizeof(float));
	if (!ref || s->rows != rows) {
		free(ref);
		return -1;
	}
	for (size_t r = 0; r < s->rows; r++)
		for (size_t c = 0; c < s->cols; c++)
			ref[r * s->cols + c] = s->ref_pixel(s, r, c);
	int rc = image_compare(s, ref);
	free(ref);
	return rc;
}
