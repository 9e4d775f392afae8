/* Reads one element past the end of its buffer (the last work-item). */
__kernel void past_end(__global const float *in, __global float *out)
{
	size_t g = get_global_id(0);
	out[g] = in[g + 1];
}
