/* Ternaries: a select when both sides are plain values, branches and a
 * phi when a side has a call or a load. */
float pick(float a, float b) { return a > b ? a : b; }

__kernel void ternary(__global const float *a, __global float *out, int n)
{
	int i = get_global_id(0);
	float x = a[i];
	float y = x < 0.0f ? -x : x;
	int j = i + 1 < n ? i + 1 : i;
	float z = i % 2 ? pick(x, a[j]) : fabs(a[j]);

	out[i] = y + z + (x > 1.0f ? 2.0f : (x < -1.0f ? -2.0f : 0.0f));
}
