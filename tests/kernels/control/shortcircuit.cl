/* && and || short circuits: each operand is a basic block of its own. */
__kernel void shortcircuit(__global const int *a, __global int *out, int n)
{
	int i = get_global_id(0);
	int x = a[i];
	int r = 0;

	if ((x > 0 && x < 500) || (x < -100 && i % 3 == 0))
		r += 1;
	if (x == 7 || (i & 1) || (x > 100 && (x & 4)))
		r += 2;
	if (!(i < n) && x)
		r += 4;
	out[i] = r;
}
