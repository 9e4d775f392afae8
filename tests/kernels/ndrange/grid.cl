/* Every work-item writes where it is: a 2-D or 3-D range shows whether
 * the shape reached the device (and the local ids, its work-groups). */
__kernel void where(__global int *out)
{
	size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
	size_t i = x + get_global_size(0) * (y + get_global_size(1) * z);

	out[i] = (int)(x + 100 * y + 10000 * z);
}

__kernel void groups(__global int *out)
{
	size_t i = get_global_id(0) + get_global_size(0) * get_global_id(1);

	out[i] = (int)(get_local_size(0) * 100 + get_local_size(1));
}

/* Compiled for 8x4 work-groups: no other size runs it. */
__kernel __attribute__((reqd_work_group_size(8, 4, 1)))
void fixed(__global int *out)
{
	size_t i = get_global_id(0) + get_global_size(0) * get_global_id(1);

	out[i] = (int)(get_local_size(0) * 100 + get_local_size(1));
}
