/* Bytes moved per address space: vectors (a 3-element vector counts as
 * 4), chars, longs, doubles, a struct copied with llvm.memcpy, atomics. */
typedef struct { int a; float b[3]; char c; } item;

__kernel void memory(__global const float4 *v4, __global float *v3, __global const uchar *bytes,
		     __global long *l, __global const double *d, __global int *counter,
		     __global const item *items, __global float *out)
{
	int i = get_global_id(0);
	float3 x = vload3(i, v3);
	float4 y = v4[i];
	item it = items[i];
	__private item copy = it;
	long w = l[i] + bytes[i] + (long)d[i];

	l[i] = w;
	atomic_add(counter, 1);
	out[i] = x.y + y.w + copy.b[1] + copy.c + sqrt(fabs(y.x)) + mad(y.y, y.z, 1.0f);
}
