/* Image arrays are not generated: a clear refusal. */
__kernel void layers(__read_only image2d_array_t img, __global float4 *out)
{
	out[get_global_id(0)] = read_imagef(img, (int4)(0, 0, 0, 0));
}
