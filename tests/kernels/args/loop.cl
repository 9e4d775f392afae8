/* A loop-heavy kernel for timing and sweeps. */
__kernel void loop(__global const float *a, __global float *b, int reps)
{
	size_t g = get_global_id(0);
	float acc = 0.0f;
	for (int i = 0; i < (reps & 63); i++)
		acc += a[g] * (float)i;
	b[g] = acc;
}
