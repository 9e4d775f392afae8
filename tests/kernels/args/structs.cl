/* Structs by value and in buffers: nested, with arrays, vectors and
 * padding the compiler lays out. */
typedef struct { char c; int a[3]; } inner_t;
typedef struct { float f; inner_t in[2]; double d; uchar2 v; short s; } outer_t;

__kernel void structs(__global long *o, __global double *fo, outer_t x,
		      __global const outer_t *src, __global outer_t *dst)
{
	size_t g = get_global_id(0);
	dst[g] = src[g];
	if (g != 0)
		return;
	int k = 0;
	for (int i = 0; i < 2; i++) {
		o[k++] = x.in[i].c;
		for (int j = 0; j < 3; j++)
			o[k++] = x.in[i].a[j];
	}
	o[k++] = x.v.x; o[k++] = x.v.y; o[k++] = x.s;
	fo[0] = x.f; fo[1] = x.d;
}

/* clang lays this out as { <4 x i32>, i8, [15 x i8] }: the explicit
 * padding is no field, gets no value, and is not reported. */
typedef struct { int4 v; uchar b; } padded_t;

__kernel void padded(__global long *o, padded_t p)
{
	if (get_global_id(0) == 0) {
		o[0] = p.v.x; o[1] = p.v.y; o[2] = p.v.z; o[3] = p.v.w; o[4] = p.b;
	}
}
