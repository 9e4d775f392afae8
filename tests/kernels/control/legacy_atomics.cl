/* OpenCL 1.0's atom_* builtins (cl_khr_*_int32_base_atomics), still in
 * kernels people have: on the SPIR path (-i, --spir) sibyl defines them
 * by their atomic_* names, which is all the device library has. */
__kernel void legacy_atomics(__global int *hist, __global const int *in, __local uint *l)
{
	size_t g = get_global_id(0);
	int v = in[g];

	if (get_local_id(0) == 0)
		l[0] = 0;
	barrier(CLK_LOCAL_MEM_FENCE);
	atom_inc(&hist[0]);
	atom_add(&hist[1], v & 7);
	atom_sub(&hist[2], 1);
	atom_max(&hist[3], v);
	atom_min(&hist[4], v);
	atom_or(&hist[5], 1 << (g & 7));
	atom_xchg(&hist[6], 5);
	atom_cmpxchg(&hist[7], 0, 9);
	atom_dec(&l[0]);
	barrier(CLK_LOCAL_MEM_FENCE);
	if (get_local_id(0) == 0)
		atom_add(&hist[8], (int)l[0]);
}
