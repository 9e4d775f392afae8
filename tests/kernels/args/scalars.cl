/* Every scalar width: the kernel writes its arguments back so the test
 * can compare them with the values sibyl reports (--dump-args). */
__kernel void scalars(__global long *o, __global double *fo, char c, uchar uc, short s,
		      ushort us, int i, uint ui, long l, ulong ul, float f, double d)
{
	if (get_global_id(0) != 0)
		return;
	o[0] = c; o[1] = uc; o[2] = s; o[3] = us;
	o[4] = i; o[5] = ui; o[6] = l; o[7] = (long)ul;
	fo[0] = f; fo[1] = d;
}
