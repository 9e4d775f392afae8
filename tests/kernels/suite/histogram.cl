/* Histograms: global atomics on 256 bins, and private-to-local bins
 * merged into the global ones. The bins buffer holds one element per
 * work-item, so global sizes start at 256. */

__kernel void hist_global(__global const uint *a, __global int *bins)
{
	atomic_inc(&bins[a[get_global_id(0)] & 255u]);
}

#define LBINS 64
__kernel void hist_local(__global const uint *a, __global int *bins)
{
	__local int lb[LBINS];
	uint l = get_local_id(0);
	for (uint b = l; b < LBINS; b += get_local_size(0))
		lb[b] = 0;
	barrier(CLK_LOCAL_MEM_FENCE);
	atomic_inc(&lb[(a[get_global_id(0)] >> 3) & (LBINS - 1)]);
	barrier(CLK_LOCAL_MEM_FENCE);
	for (uint b = l; b < LBINS; b += get_local_size(0))
		atomic_add(&bins[b], lb[b]);
}

/* A float histogram with a data-dependent bin search over 16 edges. */
__kernel void hist_search(__global const float *a, __global int *bins)
{
	float v = a[get_global_id(0)] / (float)get_global_size(0);
	int b = 0;
	while (b < 15 && v > -1.0f + 0.125f * (float)(b + 1))
		b++;
	atomic_inc(&bins[b]);
}
