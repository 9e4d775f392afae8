/* for, while, do-while, nested loops, break and continue, trip counts
 * that depend on the data. */
__kernel void loops(__global const int *a, __global int *out, int n)
{
	int i = get_global_id(0);
	int x = a[i] & 63;
	int sum = 0;

	for (int k = 0; k < x; k++) {
		if (k % 5 == 3)
			continue;
		sum += k;
		if (sum > 400)
			break;
	}
	int w = x;
	while (w > 1)
		w = (w & 1) ? 3 * w + 1 : w / 2;
	int d = 0;
	do {
		for (int j = 0; j < (i & 3); j++)
			sum ^= j << d;
		d++;
	} while (d < (x & 7));
	out[i] = sum + w + n;
}
