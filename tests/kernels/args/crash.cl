/* Kernels that must not take sibyl down. */
__kernel void null_deref(__global int *a, int n)
{
	__global int *volatile p = 0;
	if (get_global_id(0) == 0)
		p[n & 0] = 42;
	a[get_global_id(0)] = 1;
}

__kernel void forever(__global int *a, int n)
{
	volatile int x = 0;
	while (x >= 0)
		x = (x + 1) & 0xffff;
	a[get_global_id(0)] = x + n;
}
