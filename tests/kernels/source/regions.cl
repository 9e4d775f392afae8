/* Source regions --source-counters marks beyond tests/kernels/control:
 * goto and labels, while (1) left by break, do-while, continue, a switch
 * in a helper, nested and vector ?:, a ?: as a branch condition, early
 * returns of values from a helper. */
int clampi(int v, int lo, int hi)
{
	if (v < lo)
		return lo;
	else if (v > hi)
		return hi;
	return v;
}

int steps(int v)
{
	int s = 0;

	while (1) {
		if (v <= 1)
			break;
		v = (v & 1) ? 3 * v + 1 : v / 2;
		if (s++ > 50)
			continue;
		switch (v & 3) {
		case 0:
			s += 2;
			/* fall through */
		case 1:
			s++;
			break;
		default:;
		}
	}
	do
		s--;
	while (s > 100);
	return s;
}

__kernel void regions(__global const int *a, __global int *out)
{
	int i = get_global_id(0);
	int x = a[i], r = 0;

	for (int k = 0; k < 4; k++) {
		if (k == 2 && x < 0)
			continue;
		r += (x > k) ? (x < 10 ? 1 : 2) : (k ? steps(x & 255) : 0);
	}
	if (x > 5 ? x < 100 : !(x & 2))
		r = clampi(r, -5, 5);
	int4 v = (int4)(x, 1, 2, 3);
	int4 w = v > 2 ? v : (int4)(0);
	r += w.x + (x && r ? 1 : 0) + (i & 1 ? 4 : 5);
	if (r == 3)
		goto done;
	r++;
done:
	out[i] = r;
	if (i > 1000)
		return;
	out[i] += 1;
}

/* Conditions that fold at -O0 give an arm no block of its own: its mark
 * shares the enclosing region's block. */
#define WIDE 1
__kernel void folded(__global const int *a, __global int *out)
{
	int i = get_global_id(0);
	int r = a[i];

	if (1)
		r += 2;
	r += WIDE ? 3 : a[0];
	if (WIDE == 1 && r > 0) {
		r *= 2;
	}
	out[i] = r;
}
