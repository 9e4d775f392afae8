/* Scalars and buffers whose roles only the IR tells (docs/kernel.md,
 * "Sizes the IR shows").  With random values each reads or writes far
 * outside its buffers (under --fence: a crash at once); with the values
 * sibyl infers each stays inside. */

/* n is a row length (a stride): n * n elements, so n = sqrt(length). */
__kernel void row_sums(__global const float *m, __global float *sums, int n)
{
	int r = get_global_id(0);

	if (r < n) {
		float s = 0;

		for (int c = 0; c < n; c++)
			s += m[r * n + c];
		sums[r] = s;
	}
}

/* t only shifts an index (an offset): 0. */
__kernel void shifted(__global const float *a, __global float *b, int t)
{
	int i = get_global_id(0);

	b[i] = a[i + t];
}

/* idx holds indices of a: small non-negative integers. */
__kernel void gather(__global const int *idx, __global const float *a, __global float *out)
{
	int i = get_global_id(0);

	out[i] = a[idx[i]];
}

/* 16 * blocks bounds a loop over a: blocks = length / 16. */
__kernel void clear_blocks(__global float *a, int blocks)
{
	for (int i = get_global_id(0); i < blocks * 16; i += get_global_size(0))
		a[i] = 0;
}

/* rows counts down (a[rows - 1 - i]): the length, not an offset. */
__kernel void reversed(__global const float *a, __global float *b, int rows)
{
	int i = get_global_id(0);

	if (i < rows)
		b[i] = a[rows - 1 - i];
}

/* The same row length through OpenCL's mul24 and min: still a stride. */
__kernel void row_sums24(__global const float *m, __global float *sums, int n)
{
	int r = get_global_id(0);

	if (r < n) {
		float s = 0;

		for (int c = 0; c < min(n, 4096); c++)
			s += m[mul24(r, n) + c];
		sums[r] = s;
	}
}

/* Blocks of a constant size: each work-group clears 256 elements from
 * group * 256, whatever the buffer's length (with -g 1024 -l 64: 4096). */
#define BLOCK 256
__kernel void clear_tiles(__global float *a)
{
	for (int i = get_local_id(0); i < BLOCK; i += get_local_size(0))
		a[get_group_id(0) * BLOCK + i] = 0;
}

/* 64 rows of a matrix whose row length is a stride (cols = 32): the
 * row offset accumulates 64 times, and the rows go through a __local
 * tile of 64 x 64, so both need more than the global size. */
__kernel void copy_rows(__global const float *m, __global float *out, __local float *tile,
			int cols)
{
	int tx = get_local_id(0), off = 0;

	for (int i = 0; i < 64; i++) {
		tile[i * 64 + tx] = m[off + tx];
		off += cols;
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	out[get_global_id(0)] = tile[tx * 64];
}

/* A 3-D stencil that takes the global size for one plane of nx * ny
 * (cube roots: 10) and walks nz planes from it: c + nx * ny past the
 * work-items, unguarded. */
__kernel void planes(__global const float *in, __global float *out, int nx, int ny, int nz)
{
	int c = get_global_id(0), xy = nx * ny;

	for (int k = 0; k < nz - 1; k++) {
		out[c] = in[c] + in[c + xy];
		c += xy;
	}
}

/* Blocks of 16 x 16 on an anti-diagonal: block (diag - 1 - bx, bx) for
 * work-group bx.  diag counts down by a work-group id: it must be at
 * least the number of work-groups, or the row goes below 0. */
__kernel void antidiagonal(__global float *a, int cols, int diag)
{
	int bx = get_group_id(0), tx = get_local_id(0);
	int row = diag - 1 - bx;

	for (int i = 0; i < 16; i++)
		a[(row * 16 + i) * cols + bx * 16 + tx] = 0;
}

/* The same from the other side: width is added to an index (an offset,
 * 0) but also counted down by the work-group id, then by 1. */
__kernel void antidiagonal_from(__global float *a, int cols, int width)
{
	int bx = get_group_id(0), tx = get_local_id(0);
	int row = width - bx - 1, col = bx + width;

	for (int i = 0; i < 16; i++)
		a[(row * 16 + i) * cols + col * 16 + tx] = 0;
}

/* Each work-item copies its own row of n, no guard on the row: n both
 * strides the rows and bounds the loop over them (a GitHub memcpy
 * test), so the buffers need G rows of n. */
__kernel void row_copies(__global const float *in, __global float *out, int n)
{
	size_t r = get_global_id(0);

	for (int c = 0; c < n; c++)
		out[r * n + c] = in[r * n + c];
}
