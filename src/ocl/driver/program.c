/* Source and SPIR-binary builds of the kernel's program. */
#define _GNU_SOURCE
#include "ocl/driver/program.h"
#include "ocl/driver/cache.h"
#include "ocl/driver/compile.h"
#include "core/alloc.h"
#include "core/fs.h"
#include "core/log.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SIBYL_VERSION
#define SIBYL_VERSION "?"
#endif

static char *build_log(cl_program prog, cl_device_id dev, const char *file)
{
	size_t len = 0;
	char *log = NULL, *mapped;

	clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
	if (!len || !(log = calloc(1, len + 1)))
		return NULL;
	clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, len, log, NULL);
	mapped = sibyl_build_log_map(log, file);
	free(log);
	return mapped;
}

/* The one line of a failed build: clang's first error, or the function
 * PoCL's linker could not find (its line follows "Error(s) while
 * linking:", which says nothing of which). */
static char *error_line(const char *log)
{
	static const char missing[] = "Cannot find symbol ";
	const char *p = strstr(log, missing);

	if (!p)
		return sibyl_first_error_line(log);
	p += strlen(missing);
	return sibyl_xasprintf("'%.*s' is called but defined neither in the file nor by the "
			       "device", (int)strcspn(p, " \n"), p);
}

/* The whole log as a diagnostic (sibyl prints it, or puts it in its
 * JSON), its first error in the one line: SIBYL_KRUN_EXIT_BUILD. */
static int build_failed(cl_program prog, cl_device_id dev, cl_int e, const char *file,
			const char *what, char *err, size_t errlen)
{
	char *log = build_log(prog, dev, file);

	if (log && log[strspn(log, " \t\n")]) {
		char *line = error_line(log);

		sibyl_notice(SIBYL_NOTICE_DIAG, "%s", log);
		sibyl_seterr(err, errlen, "kernel: building %s: %s: %s", what,
			     sibyl_cl_error_name(e), line);
		free(line);
	} else {
		sibyl_seterr(err, errlen, "kernel: building %s: %s", what, sibyl_cl_error_name(e));
	}
	free(log);
	return SIBYL_KRUN_EXIT_BUILD;
}

/* A build that worked may still have warned: said with -v. */
static void build_chatter(const struct sibyl_run_cfg *cfg, cl_program prog, cl_device_id dev)
{
	char *log = cfg->verbose ? build_log(prog, dev, cfg->file) : NULL;

	if (log && log[strspn(log, " \t\n")])
		sibyl_notice(SIBYL_NOTICE_DIAG, "%s", log);
	free(log);
}

static int build_source(const struct sibyl_run_cfg *cfg, cl_context ctx, cl_device_id dev,
			cl_program *out, char *err, size_t errlen)
{
	size_t len;
	char why[128];
	/* --source-counters: the marked copy, its #line naming the user's file */
	const char *path = cfg->counted_source ? cfg->counted_source : cfg->file;
	char *src = sibyl_read_file(path, SIBYL_KERNEL_FILE_MAX, &len, why, sizeof(why));
	cl_int e;

	if (!src)
		return sibyl_seterr(err, errlen, "kernel: %s: %s", path, why);
	const char *s = src;
	*out = clCreateProgramWithSource(ctx, 1, &s, &len, &e);
	free(src);
	if (e != CL_SUCCESS)
		return sibyl_seterr(err, errlen, "kernel: clCreateProgramWithSource: %s",
				    sibyl_cl_error_name(e));
	e = clBuildProgram(*out, 1, &dev, cfg->build_options, NULL, NULL);
	return e == CL_SUCCESS ? 0 : build_failed(*out, dev, e, cfg->file, cfg->file, err, errlen);
}

/* what names the binary in the error line; NULL fails quietly (cache). */
static int from_binary(const struct sibyl_run_cfg *cfg, cl_context ctx, cl_device_id dev,
		       const void *bin, size_t size, const char *options, const char *what,
		       cl_program *out, char *err, size_t errlen)
{
	const unsigned char *b = bin;
	cl_int e, status;

	*out = clCreateProgramWithBinary(ctx, 1, &dev, &size, &b, &status, &e);
	if (e != CL_SUCCESS)
		return -1;
	e = clBuildProgram(*out, 1, &dev, options, NULL, NULL);
	if (e == CL_SUCCESS)
		return 0;
	return !what ? -1 : build_failed(*out, dev, e, cfg->file, what, err, errlen);
}

/* The device binary a build produced, to cache. */
static void store_binary(cl_program prog, const char *dir, const struct sibyl_cache_key *key)
{
	size_t size = 0;
	unsigned char *bin;

	if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, NULL) ||
	    !size || !(bin = malloc(size)))
		return;
	if (!clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL))
		sibyl_cache_store(dir, key, bin, size);
	free(bin);
}

/* -i's instrumented bitcode or --spir's plain one; "plain" in the key
 * keeps the two apart should their bitcode ever be equal. */
static int build_spir(const struct sibyl_run_cfg *cfg, cl_context ctx, cl_device_id dev,
		      struct sibyl_program *p, char *err, size_t errlen)
{
	char *options, *dname, *dir;
	struct sibyl_cache_key key;
	size_t bc_size, size;
	char why[128];
	void *bin, *bc = sibyl_read_file(cfg->spir_path, SIBYL_KERNEL_FILE_MAX, &bc_size, why,
					 sizeof(why));
	int r;

	if (!bc)
		return sibyl_seterr(err, errlen, "kernel: %s: %s", cfg->spir_path, why);
	dname = sibyl_cl_device_name(dev);
	options = sibyl_xasprintf("-x spir -spir-std=1.2 -cl-kernel-arg-info %s",
				  cfg->user_options ? cfg->user_options : "");
	sibyl_cache_key_init(&key);
	sibyl_cache_key_add(&key, bc, bc_size);
	sibyl_cache_key_add_str(&key, options);
	sibyl_cache_key_add_str(&key, SIBYL_VERSION);
	sibyl_cache_key_add_str(&key, dname);
	sibyl_cache_key_add_str(&key, cfg->spir_plain ? "plain" : "instrumented");
	sibyl_cache_key_done(&key);
	free(dname);
	dir = sibyl_cache_dir();
	p->cache = dir ? "miss" : "off";
	if (dir && !sibyl_cache_load(dir, &key, &bin, &size)) {
		r = from_binary(cfg, ctx, dev, bin, size, options, NULL, &p->program, err, errlen);
		free(bin);
		if (!r) {
			p->cache = "hit";
			goto out;
		}
		/* A stale or foreign entry: rebuild and overwrite it. */
		if (p->program)
			clReleaseProgram(p->program);
		p->program = NULL;
	}
	r = from_binary(cfg, ctx, dev, bc, bc_size, options,
			cfg->spir_plain ? "the SPIR binary" : "the instrumented binary", &p->program,
			err, errlen);
	if (r && !p->program) {
		sibyl_seterr(err, errlen, "kernel: the device does not accept SPIR bitcode "
			     "(cl_khr_spir)");
		r = SIBYL_KRUN_EXIT_UNSUPPORTED;
	}
	if (!r && dir)
		store_binary(p->program, dir, &key);
out:
	free(dir);
	free(options);
	free(bc);
	return r;
}

int sibyl_program_build(const struct sibyl_run_cfg *cfg, cl_context ctx, cl_device_id dev,
			struct sibyl_program *out, char *err, size_t errlen)
{
	cl_int e;
	int r;

	memset(out, 0, sizeof(*out));
	r = cfg->spir_path ? build_spir(cfg, ctx, dev, out, err, errlen)
			   : build_source(cfg, ctx, dev, &out->program, err, errlen);
	if (r)
		return r;
	build_chatter(cfg, out->program, dev);
	out->kernel = clCreateKernel(out->program, cfg->kernel->name, &e);
	if (e != CL_SUCCESS)
		return -sibyl_seterr(err, errlen, "kernel: clCreateKernel %s: %s",
				     cfg->kernel->name, sibyl_cl_error_name(e));
	return 0;
}

int sibyl_run_probe(const struct sibyl_run_cfg *cfg, int fd, char *err, size_t errlen)
{
	cl_platform_id plat;
	cl_device_id dev;
	size_t len = 0;
	char *ext = NULL;

	if (sibyl_cl_pick_device(cfg->platform, cfg->device, &plat, &dev, err, errlen) < 0)
		return 1;
	clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, 0, NULL, &len);
	ext = sibyl_xcalloc(len + 1, 1);
	if (len)
		clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, len, ext, NULL);
	char *pn = sibyl_cl_platform_name(plat), *dn = sibyl_cl_device_name(dev);

	sibyl_emit(fd, json_pack("{s:s, s:s, s:s, s:b}", "event", "device", "platform", pn,
				 "device", dn, "spir", strstr(ext, "cl_khr_spir") != NULL));
	free(pn);
	free(dn);
	free(ext);
	return 0;
}
