/* Image and sampler arguments of each kind sibyl generates: random
 * CL_RGBA, CL_FLOAT pixels in [0, 1), as large as the range; integer
 * channels for the images integer builtins use. */
__kernel void copy2d(__read_only image2d_t img, sampler_t s, __global float4 *out)
{
	int x = get_global_id(0), y = get_global_id(1);

	out[x + get_global_size(0) * y] = read_imagef(img, s, (int2)(x, y));
}

__kernel void size3d(__read_only image3d_t img, __global int *out)
{
	out[0] = get_image_width(img) * 10000 + get_image_height(img) * 100 + get_image_depth(img);
}

__kernel void row1d(__read_only image1d_t img, sampler_t s, __global float *out)
{
	int x = get_global_id(0);

	out[x] = read_imagef(img, s, x).w;
}

__kernel void fill(__write_only image2d_t img)
{
	int x = get_global_id(0), y = get_global_id(1);

	write_imagef(img, (int2)(x, y), (float4)(x, y, 0, 1));
}

/* read_imageui on a float image is undefined: CL_UNSIGNED_INT32. */
__kernel void labels(__read_only image2d_t img, sampler_t s, __global uint *out)
{
	int x = get_global_id(0), y = get_global_id(1);
	uint4 p = read_imageui(img, s, (int2)(x, y));

	out[x + get_global_size(0) * y] = p.x + p.w;
}

/* write_imagei through a helper: CL_SIGNED_INT32. */
void put(__write_only image2d_t img, int2 at, int v)
{
	write_imagei(img, at, (int4)(v, -v, 0, 1));
}

__kernel void signs(__write_only image2d_t img, __global const int *in)
{
	int x = get_global_id(0), y = get_global_id(1);

	put(img, (int2)(x, y), in[x + get_global_size(0) * y]);
}

/* Both signednesses, chosen by an argument: CL_UNSIGNED_INT32. */
__kernel void either(__read_only image2d_t img, sampler_t s, int type, __global int *out)
{
	int x = get_global_id(0);

	out[x] = type == 1 ? read_imagei(img, s, (int2)(x, 0)).x
			   : (int)read_imageui(img, s, (int2)(x, 0)).x;
}
