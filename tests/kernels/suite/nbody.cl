/* N-body: every body against every other (quadratic work), and a
 * variant that skips the distant ones (a data-dependent branch). */

__kernel void nbody(__global const float4 *pos, __global float4 *acc)
{
	int i = get_global_id(0), n = get_global_size(0);
	float4 p = pos[i], f = (float4)(0.0f);
	for (int j = 0; j < n; j++) {
		float4 d = pos[j] - p;
		float r2 = d.x * d.x + d.y * d.y + d.z * d.z + 1e-3f;
		float inv = rsqrt(r2);
		f += d * (pos[j].w * inv * inv * inv);
	}
	acc[i] = f;
}

__kernel void nbody_cutoff(__global const float4 *pos, __global float4 *acc)
{
	int i = get_global_id(0), n = get_global_size(0);
	float4 p = pos[i], f = (float4)(0.0f);
	float cut = 0.25f * (float)n * (float)n;
	for (int j = 0; j < n; j++) {
		float4 d = pos[j] - p;
		float r2 = d.x * d.x + d.y * d.y + d.z * d.z;
		if (r2 < cut && r2 > 0.0f) {
			float inv = rsqrt(r2);
			f += d * (inv * inv * inv);
		}
	}
	acc[i] = f;
}
