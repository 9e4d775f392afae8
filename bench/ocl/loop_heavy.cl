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
