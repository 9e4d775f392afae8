/* Accepted by clang-14 for SPIR, refused by the device's own compiler
 * (the source build), whose log names a temporary copy of this file. */
#if !defined(__SPIR__)
#error the device compiler saw this file
#endif
__kernel void device_only(__global int *a)
{
	a[get_global_id(0)] = 1;
}
