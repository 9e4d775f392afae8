/* Helper functions taking local, global, constant and private pointers,
 * called from several places and from two kernels, calling each other:
 * their loads and stores keep their address spaces. */
int sum_local(__local const int *p, int n)
{
	int s = 0;
	for (int k = 0; k < n; k++)
		s += p[k];
	return s;
}

void put_global(__global int *dst, int i, int v) { dst[i] = v; }

int from_constant(__constant int *c, int i) { return c[i & 7]; }

int twice(int *p)
{
	*p *= 2;
	return *p + 1;
}

/* no arguments: a block can start with its call */
int seven(void) { return 7; }

int combine(__local const int *l, __constant int *c, int i)
{
	int x = from_constant(c, i);
	int y = twice(&x);
	return sum_local(l, 4) + y;
}

__kernel void helpers(__global const int *a, __constant int *c, __global int *out,
		      __local int *scratch)
{
	int i = get_global_id(0);
	int lid = get_local_id(0);

	scratch[lid] = a[i];
	barrier(CLK_LOCAL_MEM_FENCE);
	int v = combine(scratch, c, i) + sum_local(scratch, lid & 3);
	if (lid & 1)
		v += seven();
	put_global(out, i, v);
}

__kernel void helpers_other(__global int *out, __constant int *c)
{
	int i = get_global_id(0);
	put_global(out, i, from_constant(c, i));
}
