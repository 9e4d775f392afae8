/* Vectors of every width, 3 included (it occupies 4 elements). */
__kernel void vectors(__global long *o, __global double *fo, char2 c2, uchar3 uc3, short4 s4,
		      int8 i8, long16 l16, uint3 u3, float3 f3, double2 d2, float16 f16)
{
	if (get_global_id(0) != 0)
		return;
	int k = 0, m = 0;
	for (int j = 0; j < 2; j++) o[k++] = c2[j];
	for (int j = 0; j < 3; j++) o[k++] = uc3[j];
	for (int j = 0; j < 4; j++) o[k++] = s4[j];
	for (int j = 0; j < 8; j++) o[k++] = i8[j];
	for (int j = 0; j < 16; j++) o[k++] = l16[j];
	for (int j = 0; j < 3; j++) o[k++] = u3[j];
	for (int j = 0; j < 3; j++) fo[m++] = f3[j];
	for (int j = 0; j < 2; j++) fo[m++] = d2[j];
	for (int j = 0; j < 16; j++) fo[m++] = f16[j];
}
