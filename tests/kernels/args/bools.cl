/* bool cannot be a kernel parameter, even inside a struct passed by
 * value (boolarg.cl), but may live in structs in buffers: 0 or 1. */
typedef struct { int n; bool b; } rec_t;

__kernel void bools(__global const rec_t *r, __global int *o)
{
	size_t g = get_global_id(0);
	o[g] = r[g].b;
}
