/* sibyl kernel --check: data races on __global memory, within a
 * work-group and across work-groups (tests/integration/ocl/
 * kernel_check.sh), and clean kernels that share it correctly.  Run at
 * -l 32. */

/* Each work-item reads its neighbour's element, no barrier between. */
__kernel void neighbour_no_barrier(__global const float *in, __global float *buf,
				   __global float *out)
{
	size_t i = get_global_id(0), l = get_local_id(0), n = get_local_size(0);

	buf[i] = in[i];
	out[i] = buf[i - l + (l + 1) % n];
}

/* As above with a barrier, but one that fences __local memory only. */
__kernel void local_fence_only(__global const float *in, __global float *buf,
			       __global float *out)
{
	size_t i = get_global_id(0), l = get_local_id(0), n = get_local_size(0);

	buf[i] = in[i];
	barrier(CLK_LOCAL_MEM_FENCE);
	out[i] = buf[i - l + (l + 1) % n];
}

/* Every group writes the same elements: work-item l of each writes out[l]. */
__kernel void same_slots(__global const int *in, __global int *out)
{
	out[get_local_id(0)] = in[get_global_id(0)];
}

/* A barrier orders a group's work-items, never two groups: the last
 * work-item of a group reads the first element of the next. */
__kernel void halo_across_groups(__global const float *in, __global float *a)
{
	size_t i = get_global_id(0), n = get_global_size(0);
	float next;

	a[i] = in[i];
	barrier(CLK_GLOBAL_MEM_FENCE);
	next = a[(i + 1) % n];
	barrier(CLK_GLOBAL_MEM_FENCE);
	a[i] = next;
}

/* Clean: each work-item writes its own element, then reads it. */
__kernel void own_element(__global const float *in, __global float *out)
{
	size_t i = get_global_id(0);

	out[i] = in[i] * 2.0f;
	out[i] += 1.0f;
}

/* Clean: a tree reduction in __global memory, each group in its own
 * part, a global fence at every step. */
__kernel void global_reduce(__global float *data, __global float *out)
{
	size_t l = get_local_id(0), base = get_group_id(0) * get_local_size(0);

	for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {
		if (l < s)
			data[base + l] += data[base + l + s];
		barrier(CLK_GLOBAL_MEM_FENCE);
	}
	if (l == 0)
		out[get_group_id(0)] = data[base];
}

/* Clean: every work-item of every group adds to one total, atomically,
 * and raises one flag to the same value. */
__kernel void atomic_total(__global const int *in, __global int *total, __global int *flag)
{
	atomic_add(total, in[get_global_id(0)] & 7);
	flag[0] = 1;
}

/* Clean: every work-item reads the whole input (n rounds of it), no
 * write but its own: with a large n the probe's log is cut short. */
__kernel void read_all(__global const float *in, __global float *out, int n)
{
	size_t i = get_global_id(0), g = get_global_size(0);
	float s = 0.0f;

	for (int j = 0; j < n; j++)
		s += in[j % g];
	out[i] = s;
}
