/* Matrix products and transposition. A global size G holds an N x N
 * matrix with N = floor(sqrt(G)); the work of a product grows as
 * G^1.5. Work-items past N*N do nothing. */

static int side(void)
{
	return (int)sqrt((float)get_global_size(0));
}

__kernel void matmul(__global const float *a, __global const float *b, __global float *c)
{
	int i = get_global_id(0), n = side();
	if (i >= n * n)
		return;
	int r = i / n, col = i % n;
	float acc = 0.0f;
	for (int k = 0; k < n; k++)
		acc += a[r * n + k] * b[k * n + col];
	c[i] = acc;
}

__kernel void matmul_int(__global const int *a, __global const int *b, __global int *c)
{
	int i = get_global_id(0), n = side();
	if (i >= n * n)
		return;
	int r = i / n, col = i % n, acc = 0;
	for (int k = 0; k < n; k++)
		acc += a[r * n + k] * b[k * n + col];
	c[i] = acc;
}

/* Rows of a fixed 64 columns times a vector: linear work. */
__kernel void matvec64(__global const float *m, __global const float *x, __global float *y)
{
	int i = get_global_id(0), n = get_global_size(0);
	float acc = 0.0f;
	for (int k = 0; k < 64; k++)
		acc += m[(i * 64 + k) % n] * x[k % n];
	y[i] = acc;
}

__kernel void transpose(__global const float *a, __global float *b)
{
	int i = get_global_id(0), n = side();
	if (i >= n * n)
		return;
	b[(i % n) * n + i / n] = a[i];
}
