/* Builds, with a warning from every compiler: shown with -v only. */
#warning sibyl-test-warning
__kernel void warns(__global int *a)
{
	a[get_global_id(0)] = 1;
}
