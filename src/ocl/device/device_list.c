/* `sibyl device --list` (run in sibyl-device-run). */
#include "ocl/device/device.h"
#include "ocl/common/clutil.h"
#include "core/alloc.h"
#include "core/log.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static cl_device_id *devices_of(cl_platform_id plat, cl_uint *n)
{
	cl_device_id *d = NULL;

	*n = 0;
	if (clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 0, NULL, n) != CL_SUCCESS || !*n ||
	    !(d = calloc(*n, sizeof(*d))) ||
	    clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, *n, d, NULL) != CL_SUCCESS) {
		*n = 0;
		free(d);
		return NULL;
	}
	return d;
}

static json_t *platform_json(cl_uint index, cl_platform_id plat)
{
	char *name = sibyl_cl_platform_name(plat);
	json_t *devs = json_array();
	cl_uint n;
	cl_device_id *d = devices_of(plat, &n);

	for (cl_uint i = 0; i < n; i++) {
		char *dn = sibyl_cl_device_name(d[i]);

		json_array_append_new(devs, json_pack("{s:i, s:s}", "index", (int)i, "name", dn));
		free(dn);
	}
	free(d);
	json_t *o = json_pack("{s:i, s:s, s:o}", "index", (int)index, "name", name,
			      "devices", devs);
	free(name);
	return o;
}

static void print_platform(FILE *out, json_t *p)
{
	size_t i;
	json_t *d;

	fprintf(out, "platform %d: %s\n", (int)json_integer_value(json_object_get(p, "index")),
		json_string_value(json_object_get(p, "name")));
	json_array_foreach(json_object_get(p, "devices"), i, d)
		fprintf(out, "  device %d: %s\n",
			(int)json_integer_value(json_object_get(d, "index")),
			json_string_value(json_object_get(d, "name")));
	if (json_array_size(json_object_get(p, "devices")) == 0)
		fprintf(out, "  (no device)\n");
}

int sibyl_device_list(FILE *out, bool json, char *err, size_t errlen)
{
	cl_uint np = 0;
	cl_platform_id *plats = NULL;

	if (clGetPlatformIDs(0, NULL, &np) != CL_SUCCESS || np == 0)
		return sibyl_seterr(err, errlen, "no OpenCL platform found (is an ICD such as "
				    "pocl-opencl-icd installed?)");
	plats = sibyl_xcalloc(np, sizeof(*plats));
	if (clGetPlatformIDs(np, plats, NULL) != CL_SUCCESS) {
		free(plats);
		return sibyl_seterr(err, errlen, "device: --list: cannot enumerate OpenCL "
				    "platforms");
	}
	json_t *all = json_array();

	for (cl_uint i = 0; i < np; i++)
		json_array_append_new(all, platform_json(i, plats[i]));
	free(plats);
	if (json) {
		json_t *root = json_pack("{s:o}", "platforms", all);

		json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', out);
		json_decref(root);
		return 0;
	}
	size_t i;
	json_t *p;

	json_array_foreach(all, i, p)
		print_platform(out, p);
	json_decref(all);
	return 0;
}
