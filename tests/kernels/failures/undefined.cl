/* One kernel calls a function the file declares and never defines: the
 * device cannot link it, and on the SPIR path (-i, --spir) that must not
 * fail the file's other kernel. */
void never_defined(__global int *a);

__kernel void calls_undefined(__global int *a)
{
	never_defined(a);
}

__kernel void stands_alone(__global int *a)
{
	a[get_global_id(0)] = 2 * a[get_global_id(0)];
}
