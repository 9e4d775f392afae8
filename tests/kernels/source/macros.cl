/* Branches written in macros: each invocation is expanded in place
 * before marking (a mark cannot go into a body every invocation shares),
 * nested ones round after round. A body that pastes tokens (##) is not
 * expanded, and the kernel that uses it is refused in one line, while
 * the file's other kernels count. */
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define IN_RANGE(x, lo, hi) ((x) >= (lo) && (x) <= (hi))
#define SQ(x) ((x) * (x))
#define PICK(c, v) ((c) ? v##2 : v)

__kernel void uses_max(__global const int *a, __global int *out)
{
	int i = get_global_id(0);

	out[i] = MAX(a[i], 3);
}

__kernel void nested(__global const int *a, __global int *out)
{
	int i = get_global_id(0);
	int r = MAX(MAX(a[i], 3), IN_RANGE(a[i], 0, 9) ? 1 : 2);

	if (IN_RANGE(i, 4, 40) && IN_RANGE(a[i], -50,
					   50))
		r += SQ(r);
	out[i] = r;
}

__kernel void no_branch_macro(__global const int *a, __global int *out)
{
	int i = get_global_id(0);

	out[i] = a[i] > 0 ? SQ(a[i]) : -a[i];
}

__kernel void pasted(__global const int *a, __global int *out)
{
	int i = get_global_id(0), v = a[i], v2 = 2 * v;

	out[i] = PICK(i & 1, v);
}

/* Five levels: each round of expansion takes the outermost one only. */
__kernel void deep(__global const int *a, __global int *out)
{
	int i = get_global_id(0);

	out[i] = MAX(MAX(MAX(MAX(MAX(a[i], 1), 2), 3), 4), 5);
}

/* A branching macro over three lines before a refused one: the refusal
 * names the refused one's own line. */
__kernel void late_paste(__global const int *a, __global int *out)
{
	int i = get_global_id(0), v = a[i], v2 = 2 * v;
	int m = MAX(v,
		    MAX(3,
			v2));

	out[i] = m + PICK(i & 1, v);
}
