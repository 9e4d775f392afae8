/* An image and a sampler: generated (random CL_RGBA, CL_FLOAT pixels). */
__kernel void blur(__read_only image2d_t img, sampler_t s, __global float4 *out)
{
	out[get_global_id(0)] = read_imagef(img, s, (int2)(0, 0));
}
