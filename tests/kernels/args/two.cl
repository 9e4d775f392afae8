/* Two kernels, to list. */
__kernel void first(__global float *a, float x) { a[get_global_id(0)] *= x; }
__kernel void second(__global int *b, __local int *t, uint n) { b[get_global_id(0)] = n; }
