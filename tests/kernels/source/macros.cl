/* A branch written in a macro cannot be marked in the file:
 * --source-counters refuses the kernel that reaches it, in one line,
 * and counts the others of the file. */
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define SQ(x) ((x) * (x))

__kernel void uses_max(__global const int *a, __global int *out)
{
	int i = get_global_id(0);

	out[i] = MAX(a[i], 3);
}

__kernel void no_branch_macro(__global const int *a, __global int *out)
{
	int i = get_global_id(0);

	out[i] = a[i] > 0 ? SQ(a[i]) : -a[i];
}
