/* Element-wise kernels: one independent element per work-item, work
 * linear in the global size. Buffers hold one element per work-item. */

__kernel void vadd(__global const float *a, __global const float *b, __global float *c)
{
	size_t i = get_global_id(0);
	c[i] = a[i] + b[i];
}

__kernel void saxpy(__global const float *x, __global float *y)
{
	size_t i = get_global_id(0);
	y[i] = 2.5f * x[i] + y[i];
}

/* Transcendental functions: calls, not arithmetic, dominate. */
__kernel void vmath(__global const float *a, __global float *b)
{
	size_t i = get_global_id(0);
	float v = a[i] * 0.001f;
	b[i] = exp(sin(v)) + sqrt(fabs(a[i])) + log1p(v * v);
}

/* Integer hashing: a fixed number of xorshift-multiply rounds. */
__kernel void hash_rounds(__global const uint *a, __global uint *b)
{
	size_t i = get_global_id(0);
	uint h = a[i] ^ (uint)i;
	for (int r = 0; r < 16; r++) {
		h ^= h << 13;
		h ^= h >> 17;
		h ^= h << 5;
		h *= 0x9e3779b1u;
	}
	b[i] = h;
}

/* Horner evaluation of a degree-16 polynomial. */
__kernel void polyeval(__global const float *x, __global float *y)
{
	size_t i = get_global_id(0);
	float v = x[i] * 1e-3f, acc = 0.0f;
	for (int k = 16; k >= 0; k--)
		acc = acc * v + (float)k * 0.5f;
	y[i] = acc;
}
