/* sibyl kernel --check: kernels whose output says something is wrong
 * (tests/integration/ocl/kernel_check.sh), and clean ones. */

/* The output is the same whatever the input. */
__kernel void ignores_input(__global const float *in, __global float *out)
{
	size_t i = get_global_id(0);

	out[i] = (float)i * 2.0f;
}

/* The condition never holds for inputs in [-g, g]: nothing is written. */
__kernel void writes_nothing(__global const float *in, __global float *out)
{
	size_t i = get_global_id(0);

	if (in[i] > 1e30f)
		out[i] = in[i];
}

/* Which work-item draws which ticket depends on the schedule. */
__kernel void tickets(__global int *next, __global int *out)
{
	size_t i = get_global_id(0);

	out[i] = atomic_inc(next);
}

/* Clean: the output follows the input, the same every time. */
__kernel void scale(__global const float *in, __global float *out, float a)
{
	size_t i = get_global_id(0);

	out[i] = a * in[i];
}
