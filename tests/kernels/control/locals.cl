/* Program-scope __constant data and a __local array declared in the
 * kernel (both module globals in the IR), read through a helper. */
__constant int table[4] = { 1, 2, 3, 5 };

int pick(__local const int *tile, int k) { return tile[k] + table[k & 3]; }

__kernel void locals(__global int *out)
{
	__local int tile[64];
	int lid = get_local_id(0);

	tile[lid] = table[lid & 3] * lid;
	barrier(CLK_LOCAL_MEM_FENCE);
	out[get_global_id(0)] = pick(tile, (lid + 1) % get_local_size(0));
}
