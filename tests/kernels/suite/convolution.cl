/* Convolutions: a 15-tap 1-D filter and 3x3 / 7x7 2-D filters over
 * rows of a fixed width (global sizes are multiples of it). */

__kernel void conv1d15(__global const float *a, __global float *b)
{
	const float w[15] = { 1, 2, 3, 4, 5, 6, 7, 8, 7, 6, 5, 4, 3, 2, 1 };
	int i = get_global_id(0), n = get_global_size(0);
	float acc = 0.0f;
	for (int k = 0; k < 15; k++)
		acc += w[k] * a[clamp(i + k - 7, 0, n - 1)];
	b[i] = acc / 64.0f;
}

#define CW 128
__kernel void conv2d3(__global const float *a, __global const float *w, __global float *b)
{
	int i = get_global_id(0), n = get_global_size(0);
	int x = i % CW, y = i / CW, h = n / CW;
	float acc = 0.0f;
	for (int dy = -1; dy <= 1; dy++)
		for (int dx = -1; dx <= 1; dx++)
			acc += w[(dy + 1) * 3 + dx + 1] *
			       a[clamp(y + dy, 0, h - 1) * CW + clamp(x + dx, 0, CW - 1)];
	b[i] = acc;
}

#define CW7 256
__kernel void conv2d7(__global const float *a, __global const float *w, __global float *b)
{
	int i = get_global_id(0), n = get_global_size(0);
	int x = i % CW7, y = i / CW7, h = n / CW7;
	float acc = 0.0f;
	for (int dy = -3; dy <= 3; dy++)
		for (int dx = -3; dx <= 3; dx++)
			acc += w[(dy + 3) * 7 + dx + 3] *
			       a[clamp(y + dy, 0, h - 1) * CW7 + clamp(x + dx, 0, CW7 - 1)];
	b[i] = acc;
}
