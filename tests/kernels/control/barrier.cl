/* A work-group reduction in local memory: barriers inside a loop, work-
 * items taking different paths between barriers. */
__kernel void reduce(__global const float *in, __global float *out, __local float *tmp)
{
	int lid = get_local_id(0);
	int size = get_local_size(0);

	tmp[lid] = in[get_global_id(0)];
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int s = size / 2; s > 0; s /= 2) {
		if (lid < s)
			tmp[lid] += tmp[lid + s];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (lid == 0)
		out[get_group_id(0)] = tmp[0];
}
