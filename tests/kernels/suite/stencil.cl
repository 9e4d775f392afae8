/* Stencils: neighbours read with clamped indices, work linear in the
 * global size. 2-D kernels treat the buffer as rows of a fixed width;
 * their global sizes are multiples of it. */

__kernel void stencil1d3(__global const float *a, __global float *b)
{
	int i = get_global_id(0), n = get_global_size(0);
	int l = max(i - 1, 0), r = min(i + 1, n - 1);
	b[i] = (a[l] + a[i] + a[r]) * (1.0f / 3.0f);
}

/* Radius 8: an inner loop of 17 taps per element. */
__kernel void stencil1d_r8(__global const float *a, __global float *b)
{
	int i = get_global_id(0), n = get_global_size(0);
	float acc = 0.0f;
	for (int k = -8; k <= 8; k++)
		acc += a[clamp(i + k, 0, n - 1)];
	b[i] = acc / 17.0f;
}

#define W5 256
__kernel void stencil2d5(__global const float *a, __global float *b)
{
	int i = get_global_id(0), n = get_global_size(0);
	int x = i % W5, y = i / W5, h = n / W5;
	int xl = max(x - 1, 0), xr = min(x + 1, W5 - 1);
	int yu = max(y - 1, 0), yd = min(y + 1, h - 1);
	b[i] = 0.2f * (a[i] + a[y * W5 + xl] + a[y * W5 + xr] + a[yu * W5 + x] + a[yd * W5 + x]);
}

#define W9 128
__kernel void jacobi2d9(__global const float *a, __global float *b)
{
	int i = get_global_id(0), n = get_global_size(0);
	int x = i % W9, y = i / W9, h = n / W9;
	float acc = 0.0f;
	for (int dy = -1; dy <= 1; dy++)
		for (int dx = -1; dx <= 1; dx++) {
			int yy = clamp(y + dy, 0, h - 1), xx = clamp(x + dx, 0, W9 - 1);
			acc += a[yy * W9 + xx];
		}
	b[i] = acc / 9.0f;
}

/* A heat-equation step with a data-dependent boundary test. */
__kernel void heat_step(__global const float *t, __global float *out)
{
	int i = get_global_id(0), n = get_global_size(0);
	float c = t[i];
	if (i == 0 || i == n - 1 || c > 1000.0f) {
		out[i] = c;
		return;
	}
	out[i] = c + 0.25f * (t[i - 1] - 2.0f * c + t[i + 1]);
}
