/* Platform/device choice and error names shared by the OpenCL commands. */
#include "ocl/common/clutil.h"
#include "core/alloc.h"
#include "core/log.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sibyl_cl_error_name(cl_int err)
{
	switch (err) {
#define NAME(e) case e: return #e
	NAME(CL_SUCCESS);
	NAME(CL_DEVICE_NOT_FOUND);
	NAME(CL_DEVICE_NOT_AVAILABLE);
	NAME(CL_COMPILER_NOT_AVAILABLE);
	NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE);
	NAME(CL_OUT_OF_RESOURCES);
	NAME(CL_OUT_OF_HOST_MEMORY);
	NAME(CL_PROFILING_INFO_NOT_AVAILABLE);
	NAME(CL_BUILD_PROGRAM_FAILURE);
	NAME(CL_MAP_FAILURE);
	NAME(CL_INVALID_VALUE);
	NAME(CL_INVALID_DEVICE_TYPE);
	NAME(CL_INVALID_PLATFORM);
	NAME(CL_INVALID_DEVICE);
	NAME(CL_INVALID_CONTEXT);
	NAME(CL_INVALID_QUEUE_PROPERTIES);
	NAME(CL_INVALID_COMMAND_QUEUE);
	NAME(CL_INVALID_MEM_OBJECT);
	NAME(CL_INVALID_BINARY);
	NAME(CL_INVALID_BUILD_OPTIONS);
	NAME(CL_INVALID_PROGRAM);
	NAME(CL_INVALID_PROGRAM_EXECUTABLE);
	NAME(CL_INVALID_KERNEL_NAME);
	NAME(CL_INVALID_KERNEL_DEFINITION);
	NAME(CL_INVALID_KERNEL);
	NAME(CL_INVALID_ARG_INDEX);
	NAME(CL_INVALID_ARG_VALUE);
	NAME(CL_INVALID_ARG_SIZE);
	NAME(CL_INVALID_KERNEL_ARGS);
	NAME(CL_INVALID_WORK_DIMENSION);
	NAME(CL_INVALID_WORK_GROUP_SIZE);
	NAME(CL_INVALID_WORK_ITEM_SIZE);
	NAME(CL_INVALID_GLOBAL_OFFSET);
	NAME(CL_INVALID_EVENT);
	NAME(CL_INVALID_OPERATION);
	NAME(CL_INVALID_BUFFER_SIZE);
	NAME(CL_INVALID_GLOBAL_WORK_SIZE);
#undef NAME
	}
	static __thread char buf[32];
	snprintf(buf, sizeof(buf), "CL error %d", (int)err);
	return buf;
}

static char *info_string(cl_int (*get)(void *, cl_uint, size_t, void *, size_t *),
			 void *object, cl_uint param)
{
	size_t size = 0;
	if (get(object, param, 0, NULL, &size) != CL_SUCCESS || size == 0)
		return sibyl_xstrdup("?");
	char *s = malloc(size + 1);
	if (!s || get(object, param, size, s, NULL) != CL_SUCCESS) {
		free(s);
		return sibyl_xstrdup("?");
	}
	s[size] = '\0';
	return s;
}

char *sibyl_cl_platform_name(cl_platform_id platform)
{
	return info_string((void *)clGetPlatformInfo, platform, CL_PLATFORM_NAME);
}

char *sibyl_cl_device_name(cl_device_id device)
{
	return info_string((void *)clGetDeviceInfo, device, CL_DEVICE_NAME);
}

static bool contains_nocase(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return true;
	return n == 0;
}

static bool is_index(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* Index of the entry `want` names among `names`, or -1. */
static int choose(const char *want, char **names, cl_uint n)
{
	if (!want)
		return n ? 0 : -1;
	if (is_index(want)) {
		unsigned long i = strtoul(want, NULL, 10);
		return i < n ? (int)i : -1;
	}
	for (cl_uint i = 0; i < n; i++)
		if (contains_nocase(names[i], want))
			return (int)i;
	return -1;
}

static void list_names(char *buf, size_t len, char **names, cl_uint n)
{
	buf[0] = '\0';
	for (cl_uint i = 0; i < n; i++) {
		size_t used = strlen(buf);
		snprintf(buf + used, len - used, "%s%u: %s", i ? ", " : "", i, names[i]);
	}
}

static void free_names(char **names, cl_uint n)
{
	for (cl_uint i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int sibyl_cl_pick_device(const char *platform, const char *device,
			 cl_platform_id *platform_out, cl_device_id *device_out, char *err,
			 size_t errlen)
{
	cl_uint np = 0;
	if (clGetPlatformIDs(0, NULL, &np) != CL_SUCCESS || np == 0)
		return sibyl_seterr(err, errlen, "no OpenCL platform found (is an ICD such as "
				    "pocl-opencl-icd installed?)");
	cl_platform_id *platforms = sibyl_xcalloc(np, sizeof(*platforms));
	char **pnames = sibyl_xcalloc(np, sizeof(*pnames));
	clGetPlatformIDs(np, platforms, NULL);
	for (cl_uint i = 0; i < np; i++)
		pnames[i] = sibyl_cl_platform_name(platforms[i]);
	char list[1024];
	int p = choose(platform, pnames, np);
	if (p < 0) {
		list_names(list, sizeof(list), pnames, np);
		sibyl_seterr(err, errlen, "no OpenCL platform matches '%s' (have %s)", platform,
			     list);
		goto fail_platforms;
	}
	cl_uint nd = 0;
	if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS || nd == 0) {
		sibyl_seterr(err, errlen, "OpenCL platform '%s' has no device", pnames[p]);
		goto fail_platforms;
	}
	cl_device_id *devices = sibyl_xcalloc(nd, sizeof(*devices));
	char **dnames = sibyl_xcalloc(nd, sizeof(*dnames));
	clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, nd, devices, NULL);
	for (cl_uint i = 0; i < nd; i++)
		dnames[i] = sibyl_cl_device_name(devices[i]);
	int d = choose(device, dnames, nd);
	if (d < 0) {
		list_names(list, sizeof(list), dnames, nd);
		sibyl_seterr(err, errlen, "no OpenCL device of '%s' matches '%s' (have %s)",
			     pnames[p], device, list);
	} else {
		*platform_out = platforms[p];
		*device_out = devices[d];
	}
	free_names(dnames, nd);
	free(devices);
	free_names(pnames, np);
	free(platforms);
	return d < 0 ? -1 : 0;

fail_platforms:
	free_names(pnames, np);
	free(platforms);
	return -1;
}
