/* Prefix sums: two work-group scans in local memory (log steps) and a
 * naive one whose work is quadratic in the global size. */

__kernel void scan_hillis(__global const float *a, __global float *b, __local float *t)
{
	size_t l = get_local_id(0), n = get_local_size(0);
	t[l] = a[get_global_id(0)];
	barrier(CLK_LOCAL_MEM_FENCE);
	for (size_t off = 1; off < n; off <<= 1) {
		float v = l >= off ? t[l - off] : 0.0f;
		barrier(CLK_LOCAL_MEM_FENCE);
		t[l] += v;
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	b[get_global_id(0)] = t[l];
}

__kernel void scan_blelloch(__global const int *a, __global int *b, __local int *t)
{
	int l = get_local_id(0), n = get_local_size(0);
	t[l] = a[get_global_id(0)];
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int d = 1; d < n; d <<= 1) {	/* up-sweep */
		int k = (l + 1) * 2 * d - 1;
		if (k < n)
			t[k] += t[k - d];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (l == 0)
		t[n - 1] = 0;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int d = n / 2; d >= 1; d >>= 1) {	/* down-sweep */
		int k = (l + 1) * 2 * d - 1;
		if (k < n) {
			int v = t[k - d];
			t[k - d] = t[k];
			t[k] += v;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	b[get_global_id(0)] = t[l];
}

/* Work-item i adds a[0..i]: n^2/2 additions in all. */
__kernel void scan_naive(__global const float *a, __global float *b)
{
	size_t i = get_global_id(0);
	float acc = 0.0f;
	for (size_t k = 0; k <= i; k++)
		acc += a[k];
	b[i] = acc;
}
