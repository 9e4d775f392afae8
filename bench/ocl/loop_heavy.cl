/* A loop-heavy kernel for the instruction counter's overhead: most of
 * the work is a data-dependent loop with a branch in its body. */
__kernel void loop_heavy(__global const float *a, __global float *out, int iters)
{
	int i = get_global_id(0);
	float x = a[i];
	float acc = 0.0f;

	for (int k = 0; k < iters; k++) {
		acc = acc * 0.999f + x * (float)(k & 15);
		if (acc > 1000.0f)
			acc -= 1000.0f;
	}
	out[i] = acc;
}

/* The same work through a helper: the counters then travel by pointer,
 * which costs unless the helper is inlined (sibyl marks helpers
 * alwaysinline in the instrumented copy). */
float step(float acc, float x, int k)
{
	acc = acc * 0.999f + x * (float)(k & 15);
	return acc > 1000.0f ? acc - 1000.0f : acc;
}

__kernel void loop_helper(__global const float *a, __global float *out, int iters)
{
	int i = get_global_id(0);
	float x = a[i];
	float acc = 0.0f;

	for (int k = 0; k < iters; k++)
		acc = step(acc, x, k);
	out[i] = acc;
}
