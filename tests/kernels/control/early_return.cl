/* Early returns from several depths, before and after a barrier-free
 * loop; some work-items leave at once. */
__kernel void early_return(__global const int *a, __global int *out, int n)
{
	int i = get_global_id(0);

	if (i >= n)
		return;
	int x = a[i];
	if (x < 0) {
		out[i] = 0;
		return;
	}
	for (int k = 0; k < 8; k++) {
		if (x % (k + 2) == 0) {
			out[i] = k;
			return;
		}
		x += k;
	}
	out[i] = -x;
}
