/* Images and samplers cannot be generated: a clear refusal. */
__kernel void blur(__read_only image2d_t img, sampler_t s, __global float4 *out)
{
	out[get_global_id(0)] = read_imagef(img, s, (int2)(0, 0));
}
