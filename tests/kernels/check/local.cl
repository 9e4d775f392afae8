/* sibyl kernel --check: data races and uninitialised reads on __local
 * memory (tests/integration/ocl/kernel_check_local.sh), and clean
 * kernels that share __local memory correctly.  Run at -l 32. */

/* Each work-item reads its neighbour's slot with no barrier between. */
__kernel void neighbour_race(__global const float *in, __global float *out,
			     __local float *tmp)
{
	size_t l = get_local_id(0), n = get_local_size(0);

	tmp[l] = in[get_global_id(0)];
	out[get_global_id(0)] = tmp[(l + 1) % n];
}

/* Every work-item writes the same slot. */
__kernel void same_slot(__global const int *in, __global int *out)
{
	__local int last;

	last = in[get_global_id(0)];
	barrier(CLK_LOCAL_MEM_FENCE);
	out[get_global_id(0)] = last;
}

/* The upper half of the array is never written, but read. */
__kernel void upper_half(__global const float *in, __global float *out)
{
	__local float tmp[64];
	size_t l = get_local_id(0);

	tmp[l] = in[get_global_id(0)];
	barrier(CLK_LOCAL_MEM_FENCE);
	out[get_global_id(0)] = tmp[l] + tmp[l + 32];
}

/* A tree reduction that forgot the barrier in its loop. */
__kernel void reduce_no_barrier(__global const float *in, __global float *out,
				__local float *tmp)
{
	size_t l = get_local_id(0);

	tmp[l] = in[get_global_id(0)];
	barrier(CLK_LOCAL_MEM_FENCE);
	for (size_t s = get_local_size(0) / 2; s > 0; s /= 2)
		if (l < s)
			tmp[l] += tmp[l + s];
	if (l == 0)
		out[get_group_id(0)] = tmp[0];
}

static void put(__local int *t, size_t i, int v)
{
	t[i] = v;
}

/* The race is in a helper given the __local pointer. */
__kernel void helper_race(__global const int *in, __global int *out, __local int *tmp)
{
	size_t l = get_local_id(0);

	put(tmp, l / 2, in[get_global_id(0)]);
	barrier(CLK_LOCAL_MEM_FENCE);
	out[get_global_id(0)] = tmp[l / 2];
}

/* Clean: a tree reduction, a barrier at every step. */
__kernel void reduce(__global const float *in, __global float *out, __local float *tmp)
{
	size_t l = get_local_id(0);

	tmp[l] = in[get_global_id(0)];
	barrier(CLK_LOCAL_MEM_FENCE);
	for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {
		if (l < s)
			tmp[l] += tmp[l + s];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (l == 0)
		out[get_group_id(0)] = tmp[0];
}

/* Clean: an inclusive scan (Hillis-Steele), double-buffered. */
__kernel void scan(__global const int *in, __global int *out, __local int *a, __local int *b)
{
	size_t l = get_local_id(0), n = get_local_size(0);
	__local int *src = a, *dst = b, *t;

	a[l] = in[get_global_id(0)];
	barrier(CLK_LOCAL_MEM_FENCE);
	for (size_t d = 1; d < n; d *= 2) {
		dst[l] = l >= d ? src[l] + src[l - d] : src[l];
		barrier(CLK_LOCAL_MEM_FENCE);
		t = src, src = dst, dst = t;
	}
	out[get_global_id(0)] = src[l];
}

/* Clean: a histogram in __local memory, zeroed, then atomics. */
__kernel void histogram(__global const uint *in, __global uint *out)
{
	__local uint bins[16];
	size_t l = get_local_id(0);

	if (l < 16)
		bins[l] = 0;
	barrier(CLK_LOCAL_MEM_FENCE);
	atomic_inc(&bins[in[get_global_id(0)] % 16]);
	barrier(CLK_LOCAL_MEM_FENCE);
	if (l < 16)
		atomic_add(&out[l], bins[l]);
}

/* Clean: one work-item writes, all read after the barrier. */
__kernel void broadcast(__global const float *in, __global float *out)
{
	__local float v[2];

	if (get_local_id(0) == 0)
		vstore2((float2)(in[get_group_id(0)], 1.0f), 0, v);
	barrier(CLK_LOCAL_MEM_FENCE);
	out[get_global_id(0)] = v[0] * v[1] + in[get_global_id(0)];
}

/* A helper of the user's whose name starts with "atom" and takes no
 * pointer: the probe must not take it for an atomic builtin. */
int atom_weight(int x)
{
	return 2 * x + 1;
}

/* Clean: as broadcast, through atom_weight. */
__kernel void atom_named(__global const int *in, __global int *out)
{
	__local int v;

	if (get_local_id(0) == 0)
		v = atom_weight(in[get_group_id(0)]);
	barrier(CLK_LOCAL_MEM_FENCE);
	out[get_global_id(0)] = v + in[get_global_id(0)];
}
