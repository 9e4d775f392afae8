/* OpenCL C forbids bool kernel parameters: a one-line compile error. */
__kernel void flag(__global int *a, bool b) { a[0] = b; }
