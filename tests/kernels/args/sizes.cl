/* Sizes the signature names: n is the length of every buffer, m_len
 * the length of m.  Random values from [-g, g] made kernels like these
 * crash; sibyl gives n the buffers' length, or the buffers the length
 * that -A n=... fixes. */
__kernel void sum_to(__global const float *in, __global float *out, int n)
{
	float s = 0;

	for (int i = 0; i < n; i++)
		s += in[i];
	out[get_global_id(0)] = s;
}

__kernel void copy_m(__global const int *m, int m_len, __global int *out, float scale)
{
	if (get_global_id(0) == 0)
		for (int i = 0; i < m_len; i++)
			out[0] += (int)(m[i] * scale);
}
