/* Sorting: a bitonic sort of each work-group in local memory, a rank
 * sort (quadratic) and one odd-even transposition pass. */

__kernel void bitonic_local(__global const float *a, __global float *b, __local float *t)
{
	uint l = get_local_id(0), n = get_local_size(0);
	t[l] = a[get_global_id(0)];
	barrier(CLK_LOCAL_MEM_FENCE);
	for (uint k = 2; k <= n; k <<= 1)
		for (uint j = k >> 1; j > 0; j >>= 1) {
			uint p = l ^ j;
			if (p > l) {
				bool up = (l & k) == 0;
				float x = t[l], y = t[p];
				if ((x > y) == up) {
					t[l] = y;
					t[p] = x;
				}
			}
			barrier(CLK_LOCAL_MEM_FENCE);
		}
	b[get_global_id(0)] = t[l];
}

/* The rank of a[i] is the number of smaller elements (ties by index). */
__kernel void rank_sort(__global const float *a, __global float *b)
{
	uint i = get_global_id(0), n = get_global_size(0), r = 0;
	float v = a[i];
	for (uint k = 0; k < n; k++) {
		float w = a[k];
		r += (w < v) || (w == v && k < i);
	}
	b[r] = v;
}

__kernel void odd_even_pass(__global int *a)
{
	uint i = get_global_id(0) * 2, n = get_global_size(0);
	if (i + 1 < n && a[i] > a[i + 1]) {
		int t = a[i];
		a[i] = a[i + 1];
		a[i + 1] = t;
	}
}
