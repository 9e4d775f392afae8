/* .cl -> SPIR bitcode with clang-14, and the matching clBuildProgram options. */
#define _GNU_SOURCE
#include "ocl/driver/compile.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/output.h"
#include "core/alloc.h"
#include "core/cleanup.h"
#include "core/strbuf.h"
#include "core/run.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef SIBYL_CLANG
#define SIBYL_CLANG "clang-14"
#endif

/* Append the space-separated words of s (no quoting: build options are
 * plain words in every kernel suite we know). */
static void add_words(struct sibyl_strlist *l, const char *s)
{
	while (s && *s) {
		size_t n = strcspn(s, " \t\n");

		if (n)
			sibyl_strlist_take(l, sibyl_xstrndup(s, n));
		s += n;
		s += strspn(s, " \t\n");
	}
}

static void add_defines_includes(struct sibyl_strlist *l, const struct sibyl_compile_opts *o)
{
	char *w;

	for (size_t i = 0; i < o->defines.count; i++) {
		w = sibyl_xasprintf("-D%s", o->defines.items[i]);
		sibyl_strlist_take(l, w);
	}
	for (size_t i = 0; i < o->includes.count; i++) {
		w = sibyl_xasprintf("-I%s", o->includes.items[i]);
		sibyl_strlist_take(l, w);
	}
}

char *sibyl_build_options(const struct sibyl_compile_opts *o)
{
	struct sibyl_strlist l = { 0 };
	struct sibyl_strbuf b = { 0 };
	char *s, *dir = realpath(o->file, NULL);

	/* clang looks for "quoted" includes next to the file; OpenCL
	 * runtimes compile a string and look in their working directory. */
	if (dir && !strpbrk(dir, " \t\n")) {
		*strrchr(dir, '/') = '\0';
		s = sibyl_xasprintf("-I%s", *dir ? dir : "/");
		sibyl_strlist_take(&l, s);
	}
	free(dir);
	add_defines_includes(&l, o);
	add_words(&l, o->build_options);
	for (size_t i = 0; i < l.count; i++)
		sibyl_strbuf_printf(&b, "%s%s", i ? " " : "", l.items[i]);
	sibyl_strlist_free(&l);
	return sibyl_strbuf_take(&b);
}

#define FRONTEND "-target spir64 -x cl -cl-std=CL1.2 -Xclang -finclude-default-header"

void sibyl_compile_frontend_args(const struct sibyl_compile_opts *o, struct sibyl_strlist *l)
{
	add_words(l, FRONTEND);
	add_defines_includes(l, o);
	add_words(l, o->build_options);
}

/* OpenCL 1.0's 32-bit atom_* builtins, which opencl-c.h declares but
 * runtimes' kernel libraries (PoCL's) no longer define, so SPIR bitcode
 * calling them does not link although the source build runs: defined
 * here by the OpenCL 1.1 atomic_* builtins they were renamed to (same
 * mangled names as the declarations, so the calls bind to these).  The
 * 64-bit ones (cl_khr_int64_base_atomics) have no other name: left as
 * they are. */
static const char legacy_atomics[] =
	"#define SIBYL_A1(op, T, AS) T __attribute__((overloadable)) "
	"atom_##op(volatile AS T *p) { return atomic_##op(p); }\n"
	"#define SIBYL_A2(op, T, AS) T __attribute__((overloadable)) "
	"atom_##op(volatile AS T *p, T v) { return atomic_##op(p, v); }\n"
	"#define SIBYL_A3(op, T, AS) T __attribute__((overloadable)) "
	"atom_##op(volatile AS T *p, T c, T v) { return atomic_##op(p, c, v); }\n"
	"#define SIBYL_ALL(m, op) m(op, int, __global) m(op, uint, __global) "
	"m(op, int, __local) m(op, uint, __local)\n"
	"SIBYL_ALL(SIBYL_A2, add) SIBYL_ALL(SIBYL_A2, sub) SIBYL_ALL(SIBYL_A2, xchg)\n"
	"SIBYL_ALL(SIBYL_A2, min) SIBYL_ALL(SIBYL_A2, max) SIBYL_ALL(SIBYL_A2, and)\n"
	"SIBYL_ALL(SIBYL_A2, or) SIBYL_ALL(SIBYL_A2, xor)\n"
	"SIBYL_ALL(SIBYL_A1, inc) SIBYL_ALL(SIBYL_A1, dec) SIBYL_ALL(SIBYL_A3, cmpxchg)\n"
	"#undef SIBYL_ALL\n#undef SIBYL_A1\n#undef SIBYL_A2\n#undef SIBYL_A3\n";

/* OpenCL 1.0's fences, which opencl-c.h declares and PoCL's kernel
 * library does not define on the SPIR path ("Cannot find symbol
 * _Z9mem_fencej"; its source build runs them): LLVM fences of the same
 * or stronger order.  Work-items of a group run in turn on a CPU
 * device, so the order that matters is between threads. */
static const char legacy_fences[] =
	"#define SIBYL_F(name, order) void __attribute__((overloadable)) "
	"name(cl_mem_fence_flags f) { (void)f; __atomic_thread_fence(order); }\n"
	"SIBYL_F(mem_fence, __ATOMIC_SEQ_CST) SIBYL_F(read_mem_fence, __ATOMIC_ACQUIRE)\n"
	"SIBYL_F(write_mem_fence, __ATOMIC_RELEASE)\n#undef SIBYL_F\n";

/* The definitions above that the file needs ("atomic_" does not
 * contain "atom_"), in a header in dir: its path, else NULL. */
static char *legacy_header(const char *file, const char *dir)
{
	size_t len;
	char why[128], *src = sibyl_read_file(file, SIBYL_KERNEL_FILE_MAX, &len, why, sizeof(why));
	char *path = NULL;
	struct sibyl_strbuf h = { 0 };

	if (src && memmem(src, len, "atom_", 5))
		sibyl_strbuf_puts(&h, legacy_atomics);
	if (src && memmem(src, len, "mem_fence", 9))
		sibyl_strbuf_puts(&h, legacy_fences);
	if (h.len) {
		path = sibyl_path_join(dir, "legacy_builtins.h");
		if (sibyl_output_write(path, h.s, h.len, 0600) < 0) {
			free(path);
			path = NULL;
		}
	}
	sibyl_strbuf_free(&h);
	free(src);
	return path;
}

/* The clang-14 command line: the recipe PoCL accepts (spir64, CL1.2,
 * default header, arg info for names and qualifiers). */
static void clang_argv(struct sibyl_strlist *l, const struct sibyl_compile_opts *o,
		       const char *out, const char *prelude)
{
	const char *lvl = o->opt_level ? o->opt_level : "0";
	char *w;

	add_words(l, SIBYL_CLANG " " FRONTEND " -emit-llvm -c -fgnu89-inline -cl-kernel-arg-info");
	w = sibyl_xasprintf("-O%s", lvl);
	sibyl_strlist_take(l, w);
	if (!strcmp(lvl, "0"))
		add_words(l, "-Xclang -disable-O0-optnone");
	add_defines_includes(l, o);
	add_words(l, o->build_options);
	if (prelude) {
		sibyl_strlist_add(l, "-include");
		sibyl_strlist_add(l, prelude);
	}
	sibyl_strlist_add(l, o->file);
	sibyl_strlist_add(l, "-o");
	sibyl_strlist_add(l, out);
}

/* clang's messages kept: enough for the first error of any kernel. */
#define DIAGNOSTICS_MAX ((size_t)1 << 20)

/* Run argv with stderr captured into *err; returns 0 when it succeeded,
 * else -1 with *err saying why when stderr did not. */
static int run_capture(struct sibyl_strlist *l, char **err)
{
	char **argv = sibyl_xcalloc(l->count + 1, sizeof(*argv));
	/* Under `oclgrind sibyl ...` the OpenCL layer is preloaded; it
	 * carries an LLVM of its own that clang must not see. */
	const char *unset[] = { "LD_PRELOAD", NULL };
	struct sibyl_run_spec spec = { .argv = argv, .unset = unset };
	struct sibyl_run_status st;
	size_t len;
	char why[128];

	memcpy(argv, l->items, l->count * sizeof(*argv));
	sibyl_run_capture(&spec, STDERR_FILENO, DIAGNOSTICS_MAX, err, &len, &st);
	free(argv);
	if (st.outcome == SIBYL_RUN_OK)
		return 0;
	if (!**err || st.outcome == SIBYL_RUN_NOT_STARTED) {
		free(*err);
		if (st.outcome == SIBYL_RUN_NOT_STARTED)
			snprintf(why, sizeof(why), "cannot run: %s", strerror(st.code));
		else
			sibyl_run_describe(&st, why, sizeof(why));
		*err = sibyl_xasprintf("%s: %s", l->items[0], why);
	}
	return -1;
}

/* clang's first "error:" line (or its first line), without the newline. */
char *sibyl_first_error_line(const char *text)
{
	const char *e = strstr(text, "error:");
	const char *start = text;

	if (e) {
		start = e;
		while (start > text && start[-1] != '\n')
			start--;
	}
	return sibyl_xstrndup(start, strcspn(start, "\n"));
}

int sibyl_compile_spir(const struct sibyl_compile_opts *o, void **bc, size_t *size, char *err,
		       size_t errlen)
{
	struct sibyl_strlist l = { 0 };
	char *said = NULL, *dir, *tmp, why[128];
	struct stat st;
	int fd, r = -1;

	/* clang would block on a FIFO: hand it regular files only. */
	if ((fd = sibyl_open_regular(o->file, SIBYL_KERNEL_FILE_MAX, &st, why, sizeof(why))) < 0)
		return sibyl_seterr(err, errlen, "kernel: %s: %s", o->file, why);
	close(fd);
	if (!(dir = sibyl_private_tmpdir("sibyl-spir")))
		return sibyl_seterr_errno(err, errlen, "kernel: temporary directory");
	tmp = sibyl_path_join(dir, "kernel.bc");
	sibyl_cleanup_dir(dir, true);
	char *prelude = legacy_header(o->file, dir);

	clang_argv(&l, o, tmp, prelude);
	if (run_capture(&l, &said) < 0) {
		char *line = sibyl_first_error_line(said && *said ? said : "clang-14 failed");

		/* Every message, not the first alone: the caller prints them. */
		if (said && strchr(said, '\n'))
			sibyl_notice(SIBYL_NOTICE_DIAG, "%s", said);
		sibyl_seterr(err, errlen, "kernel: compiling %s: %s", o->file, line);
		free(line);
		r = -2;
	} else if (!(*bc = sibyl_read_file(tmp, SIBYL_KERNEL_FILE_MAX, size, why, sizeof(why)))) {
		sibyl_seterr(err, errlen, "kernel: reading the bitcode of %s: %s", o->file, why);
	} else {
		if (said && *said && sibyl_verbose())	/* warnings */
			sibyl_notice(SIBYL_NOTICE_DIAG, "%s", said);
		r = 0;
	}
	unlink(tmp);
	free(prelude);
	sibyl_cleanup_remove_dir(dir);
	free(tmp);
	free(dir);
	free(said);
	sibyl_strlist_free(&l);
	return r;
}

/* Where the file's name starts in a line: PoCL's temporary name (a path
 * ending in tempfile_XXXXXX.cl), or the user's after a kind (a source
 * with a #line naming it: --source-counters); NULL when neither. */
static const char *name_in(const char *line, size_t n, const char *file,
			   const char *const *kinds)
{
	const char *tmp = memmem(line, n, "tempfile_", 9);
	size_t len = strlen(file);

	for (size_t k = 0; !tmp && k < 3; k++) {
		size_t kl = strlen(kinds[k]);

		if (n > kl + len && !strncmp(line, kinds[k], kl) &&
		    !strncmp(line + kl, file, len) && line[kl + len] == ':')
			tmp = line + kl;
	}
	return tmp;
}

/* One line of a device build log: PoCL's temporary file name replaced
 * by the user's, and PoCL's "error: FILE:L:C: why" turned into the
 * compilers' "FILE:L:C: error: why". */
static void map_line(struct sibyl_strbuf *b, const char *line, size_t n, const char *file)
{
	static const char *const kinds[] = { "error: ", "warning: ", "note: " };
	const char *tmp = name_in(line, n, file, kinds), *kind = NULL;

	if (!tmp) {
		sibyl_strbuf_add(b, line, n);
		return;
	}
	const char *start = tmp, *end = memchr(tmp, ':', n - (size_t)(tmp - line));

	while (start > line && start[-1] != ' ')
		start--;
	end = end ? end : line + n;
	for (size_t k = 0; k < 3; k++)
		if (start - line == (ptrdiff_t)strlen(kinds[k]) && !strncmp(line, kinds[k], strlen(kinds[k])))
			kind = kinds[k];
	const char *pos = end, *stop = line + n;	/* past ":L:C" */

	while (kind && pos < stop && (*pos == ':' || (*pos >= '0' && *pos <= '9')))
		pos++;
	if (kind && pos > end && pos[-1] == ':' && pos < stop && *pos == ' ') {
		sibyl_strbuf_printf(b, "%s%.*s %s", file, (int)(pos - end), end, kind);
		sibyl_strbuf_add(b, pos + 1, (size_t)(stop - pos - 1));
		return;
	}
	sibyl_strbuf_add(b, line, (size_t)(start - line));
	sibyl_strbuf_puts(b, file);
	sibyl_strbuf_add(b, end, (size_t)(stop - end));
}

char *sibyl_build_log_map(const char *log, const char *file)
{
	struct sibyl_strbuf b = { 0 };

	sibyl_strbuf_puts(&b, "");
	for (const char *p = log; *p;) {
		size_t n = strcspn(p, "\n");

		map_line(&b, p, n, file);
		p += n;
		if (*p)
			sibyl_strbuf_add(&b, p++, 1);
	}
	return sibyl_strbuf_take(&b);
}
