/* Graph traversal on a synthetic graph: node i has 1..8 neighbours at
 * (i * 31 + k * 17) mod n, so no adjacency buffer needs generating. The
 * frontier and costs come from random buffers: which nodes expand is
 * data-dependent. */

static int neighbour(int i, int k, int n)
{
	return (int)(((long)i * 31 + (long)k * 17) % n);
}

__kernel void bfs_step(__global const int *frontier, __global int *cost)
{
	int i = get_global_id(0), n = get_global_size(0);
	if (frontier[i] <= 0)
		return;
	int deg = i % 8 + 1, c = cost[i] & 0xffff;
	for (int k = 0; k < deg; k++) {
		int j = neighbour(i, k, n);
		if (cost[j] < 0)
			cost[j] = c + 1;
	}
}

__kernel void pagerank_step(__global const float *rank, __global float *next)
{
	int i = get_global_id(0), n = get_global_size(0);
	float acc = 0.0f;
	for (int k = 0; k < 8; k++) {
		int j = neighbour(i, k, n);
		acc += rank[j] / (float)(j % 8 + 1);
	}
	next[i] = 0.15f / (float)n + 0.85f * acc;
}

__kernel void sssp_relax(__global const int *dist_in, __global int *dist)
{
	int i = get_global_id(0), n = get_global_size(0);
	int d = dist_in[i];
	if (d < 0)
		return;
	int deg = i % 8 + 1;
	for (int k = 0; k < deg; k++)
		atomic_min(&dist[neighbour(i, k, n)], d + k + 1);
}
