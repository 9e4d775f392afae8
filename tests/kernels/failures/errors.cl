/* Two errors: sibyl must report both, not the first alone. */
__kernel void broken(__global int *a)
{
	int x = 1;
	a[0] = y;
	a[1] = z + x;
}
