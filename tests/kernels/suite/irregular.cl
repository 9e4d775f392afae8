/* Irregular and data-dependent loops: trip counts come from the data
 * (Collatz, Mandelbrot, sparse rows) or vary across work-items. */

__kernel void collatz(__global const uint *a, __global uint *steps)
{
	uint v = a[get_global_id(0)] % 1000u + 1u, s = 0;
	while (v != 1u) {
		v = (v & 1u) ? 3u * v + 1u : v >> 1;
		s++;
	}
	steps[get_global_id(0)] = s;
}

#define MW 256
__kernel void mandelbrot(__global int *iters)
{
	int i = get_global_id(0), h = get_global_size(0) / MW;
	float cx = -2.0f + 2.5f * (float)(i % MW) / MW;
	float cy = -1.25f + 2.5f * (float)(i / MW) / (float)max(h, 1);
	float x = 0.0f, y = 0.0f;
	int k = 0;
	while (k < 64 && x * x + y * y < 4.0f) {
		float t = x * x - y * y + cx;
		y = 2.0f * x * y + cy;
		x = t;
		k++;
	}
	iters[i] = k;
}

/* CSR-like rows whose lengths (0..15) come from the index buffer. */
__kernel void spmv_rows(__global const uint *idx, __global const float *val,
			__global const float *x, __global float *y)
{
	uint i = get_global_id(0), n = get_global_size(0);
	uint len = idx[i] & 15u;
	float acc = 0.0f;
	for (uint k = 0; k < len; k++) {
		uint e = (i + k) % n;
		acc += val[e] * x[idx[e] % n];
	}
	y[i] = acc;
}

/* Load imbalance: work-item i loops i mod 256 times. */
__kernel void triangular(__global const float *a, __global float *b)
{
	uint i = get_global_id(0);
	float acc = a[i];
	for (uint k = 0; k < i % 256u; k++)
		acc = acc * 0.999f + 1.0f;
	b[i] = acc;
}

__kernel void gather(__global const uint *idx, __global const float *a, __global float *b)
{
	uint i = get_global_id(0);
	b[i] = a[idx[i] % get_global_size(0)];
}
