/* Reductions: a tree in local memory, and global atomics. The local
 * buffer holds one element per work-item of a group (-l). */

__kernel void reduce_local(__global const float *a, __global float *out, __local float *tmp)
{
	size_t l = get_local_id(0), g = get_global_id(0);
	tmp[l] = a[g];
	barrier(CLK_LOCAL_MEM_FENCE);
	for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
		if (l < s)
			tmp[l] += tmp[l + s];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (l == 0)
		out[get_group_id(0)] = tmp[0];
}

__kernel void minmax_local(__global const int *a, __global int *out, __local int *lo)
{
	size_t l = get_local_id(0), g = get_global_id(0);
	lo[l] = a[g];
	barrier(CLK_LOCAL_MEM_FENCE);
	for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
		if (l < s)
			lo[l] = min(lo[l], lo[l + s]);
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (l == 0)
		out[get_group_id(0)] = lo[0];
}

__kernel void reduce_atomic(__global const int *a, __global int *sum)
{
	atomic_add(&sum[0], a[get_global_id(0)] & 0xff);
}

/* Each work-item sums a strided slice of 8 elements first. */
__kernel void reduce_strided(__global const float *a, __global float *out)
{
	size_t i = get_global_id(0), n = get_global_size(0);
	float acc = 0.0f;
	for (size_t k = 0; k < 8; k++)
		acc += a[(i + k * (n / 8)) % n];
	out[i] = acc;
}
