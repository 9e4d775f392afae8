/* An include next to the file and a macro from -D. */
#include "inc/scale.h"
__kernel void scaled(__global const int *in, __global int *out)
{
	size_t g = get_global_id(0);
	out[g] = SCALED(in[g]);
}
