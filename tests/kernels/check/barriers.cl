/* sibyl kernel --check: barriers that not every work-item of a group
 * reaches (tests/integration/ocl/kernel_check.sh). */

/* Work-items past the middle of their group skip the barrier. */
__kernel void half_barrier(__global float *data, __local float *tmp)
{
	size_t l = get_local_id(0);

	tmp[l] = data[get_global_id(0)];
	if (l < get_local_size(0) / 2)
		barrier(CLK_LOCAL_MEM_FENCE);
	data[get_global_id(0)] = tmp[l] + 1.0f;
}

/* A loop whose trip count differs between work-items, a barrier in it. */
__kernel void loop_barrier(__global int *data, __local int *tmp)
{
	size_t l = get_local_id(0);

	tmp[l] = data[get_global_id(0)];
	for (size_t i = 0; i < l % 3; i++)
		barrier(CLK_LOCAL_MEM_FENCE);
	data[get_global_id(0)] = tmp[l] * 2;
}

/* Clean: every work-item reaches the same barriers, in a loop too. */
__kernel void uniform_barrier(__global int *data, __local int *tmp, int rounds)
{
	size_t l = get_local_id(0);

	tmp[l] = data[get_global_id(0)];
	for (int i = 0; i < (rounds & 3); i++) {
		barrier(CLK_LOCAL_MEM_FENCE);
		tmp[l] += 1;
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	data[get_global_id(0)] = tmp[(l + 1) % get_local_size(0)];
}

/* Clean: work-item 0 decides through a __local flag how often the loop,
 * and its barriers, run; all read the flag after a barrier (Rodinia
 * leukocyte's IMGVF_kernel).  Work-items run one by one would not
 * share the flag: the barrier probe does not judge it. */
__kernel void local_flag(__global int *data, __local int *tmp)
{
	__local int done;
	size_t l = get_local_id(0);
	int rounds = 0;

	if (l == 0)
		done = 0;
	barrier(CLK_LOCAL_MEM_FENCE);
	while (!done) {
		tmp[l] = data[get_global_id(0)] + rounds;
		barrier(CLK_LOCAL_MEM_FENCE);
		if (l == 0 && ++rounds == 3)
			done = 1;
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	data[get_global_id(0)] = tmp[(l + 1) % get_local_size(0)];
}

/* A branch on __local data after the last barrier decides nothing
 * of the barriers: the probe still judges the kernel, and finds the
 * barrier that half the work-items skip. */
__kernel void data_after_half(__global float *data, __local float *tmp)
{
	size_t l = get_local_id(0);

	tmp[l] = data[get_global_id(0)];
	if (l < get_local_size(0) / 2)
		barrier(CLK_LOCAL_MEM_FENCE);
	if (tmp[l] < 0.0f)
		tmp[l] = 0.0f;
	data[get_global_id(0)] = tmp[l] + 1.0f;
}

/* Clean: each work-item sets a private flag from what work-item 0 left
 * in __local memory; the flag, not the memory, bounds the loop. */
__kernel void private_stop(__global int *data, __global const int *flags, __local int *tmp)
{
	size_t l = get_local_id(0);
	int stop = 0;

	if (l == 0)
		tmp[0] = flags[get_group_id(0)] & 1;
	barrier(CLK_LOCAL_MEM_FENCE);
	if (tmp[0])
		stop = 1;
	for (int i = 0; !stop && i < 4; i++)
		barrier(CLK_LOCAL_MEM_FENCE);
	data[get_global_id(0)] += stop;
}
