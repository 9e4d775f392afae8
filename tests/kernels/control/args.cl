/* Scalar argument kinds of every width next to vector buffers. */
__kernel void args(char c, uchar uc, short s, int i, uint u, long l, ulong ul, float f,
		   double d, __global int4 *iv, __global float4 *fv)
{
	int g = get_global_id(0);
	int4 a = iv[g];
	float4 b = fv[g];

	a.x += c + uc + s + i;
	a.y = (int)(u + l + ul);
	b.z = b.z * f + (float)d;
	iv[g] = a;
	fv[g] = b.wzyx;
}
