/* __constant in, __local staging, __global out; half stored in a buffer. */
__kernel void pointers(__constant int *in, __local int *tmp, __global int *out,
		       __global const half *h, __global float *hf)
{
	size_t g = get_global_id(0), l = get_local_id(0);
	tmp[l] = in[g];
	barrier(CLK_LOCAL_MEM_FENCE);
	out[g] = tmp[l];
	hf[g] = vload_half(g, h);
}
