/* Arguments by value: a struct with a nested struct and an array, a
 * vector; a helper taking the struct by pointer (private copy). */
typedef struct { float w; int n[2]; } inner;
typedef struct { int id; inner in; char tag; } outer;

float weight(const outer *o, int i) { return o->in.w * (float)(o->in.n[i & 1] + o->tag); }

__kernel void structs(outer o, float4 v, __global float *out)
{
	int i = get_global_id(0);
	outer local_copy = o;

	local_copy.id += i;
	out[i] = weight(&local_copy, i) + v.x * v.w + (float)local_copy.id;
}
