/* switch with fall-through, default, and a switch inside a loop. */
__kernel void switches(__global const int *a, __global int *out)
{
	int i = get_global_id(0);
	int v = a[i];
	int r = 0;

	switch (v & 7) {
	case 0:
		r = 10;
		break;
	case 1:
	case 2:
		r = 20;
		/* fall through */
	case 3:
		r += 30;
		break;
	case 6:
		r = v * 2;
		break;
	default:
		r = -1;
	}
	for (int k = 0; k < 4; k++)
		switch ((v >> k) & 3) {
		case 0: r++; break;
		case 3: r--; break;
		default: break;
		}
	out[i] = r;
}
