/* The dataset file: read, resume, append. */
#define _GNU_SOURCE
#include "kmodel/dataset.h"
#include "core/fs.h"
#include "core/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DATA_MAX ((size_t)1 << 30)

static int add_line(struct sibyl_kmodel_data *d, const char *path, json_t *j, int line,
		    char *err, size_t errlen)
{
	const char *type = json_string_value(json_object_get(j, "type"));
	const char *k = json_string_value(json_object_get(j, "kernel"));

	if (line == 1) {
		const char *fmt = json_string_value(json_object_get(j, "format"));

		if (!type || strcmp(type, "dataset") || !fmt || strcmp(fmt, "sibyl-kmodel-dataset"))
			return sibyl_seterr(err, errlen, "kmodel: %s: not a kmodel dataset (its "
					    "first line is no \"dataset\" header)", path);
		json_int_t v = json_integer_value(json_object_get(j, "version"));

		if (v < 1 || v > SIBYL_KMODEL_DATASET_VERSION)
			return sibyl_seterr(err, errlen, "kmodel: %s: dataset version %lld is "
					    "not 1 to %d", path, (long long)v,
					    SIBYL_KMODEL_DATASET_VERSION);
		d->header = json_incref(j);
	} else if (type && !strcmp(type, "kernel") && k) {
		json_object_set(d->kernels, k, j);
	} else if (type && !strcmp(type, "sample") && k) {
		json_array_append(d->samples, j);
	} else {
		return sibyl_seterr(err, errlen, "kmodel: %s:%d: neither a kernel nor a sample "
				    "line", path, line);
	}
	return 0;
}

static int parse(struct sibyl_kmodel_data *d, const char *path, char *text, char *err,
		 size_t errlen)
{
	int line = 0;

	for (char *p = text, *nl; (nl = strchr(p, '\n')); p = nl + 1) {
		json_error_t je;
		json_t *j = json_loadb(p, (size_t)(nl - p), 0, &je);

		line++;
		if (!j)
			return sibyl_seterr(err, errlen, "kmodel: %s:%d: %s", path, line, je.text);
		int r = add_line(d, path, j, line, err, errlen);

		json_decref(j);
		if (r < 0)
			return -1;
	}
	return 0;
}

int sibyl_kmodel_data_read(const char *path, bool missing_ok, struct sibyl_kmodel_data *d,
			   char *err, size_t errlen)
{
	char why[256];
	size_t len;
	char *text;

	d->header = NULL;
	d->kernels = json_object();
	d->samples = json_array();
	if (missing_ok && access(path, F_OK) < 0 && errno == ENOENT)
		return 0;
	if (!(text = sibyl_read_file(path, DATA_MAX, &len, why, sizeof(why))))
		return sibyl_seterr(err, errlen, "kmodel: %s: %s", path, why);
	int r = parse(d, path, text, err, errlen);

	free(text);
	if (r == 0 && !d->header && !missing_ok)
		r = sibyl_seterr(err, errlen, "kmodel: %s: empty dataset", path);
	return r;
}

void sibyl_kmodel_data_free(struct sibyl_kmodel_data *d)
{
	json_decref(d->header);
	json_decref(d->kernels);
	json_decref(d->samples);
	memset(d, 0, sizeof(*d));
}

bool sibyl_kmodel_data_has(const struct sibyl_kmodel_data *d, const char *kernel,
			   long long gsize, long samples)
{
	long seen = 0;
	size_t i;
	json_t *s;

	json_array_foreach(d->samples, i, s)
		if (json_integer_value(json_object_get(s, "gsize")) == gsize &&
		    !strcmp(json_string_value(json_object_get(s, "kernel")), kernel) &&
		    json_integer_value(json_object_get(s, "sample")) < samples)
			seen++;
	return seen >= samples;
}

/* Cut the file after its last newline: what follows is a line an
 * interruption tore, never a whole one. */
static int cut_torn_line(int fd, const char *path, char *err, size_t errlen)
{
	struct stat st;
	off_t end;
	char c;

	if (fstat(fd, &st) < 0)
		return sibyl_seterr_errno(err, errlen, "kmodel: %s", path);
	for (end = st.st_size; end > 0; end--) {
		if (pread(fd, &c, 1, end - 1) != 1)
			return sibyl_seterr_errno(err, errlen, "kmodel: %s", path);
		if (c == '\n')
			break;
	}
	if (end < st.st_size && ftruncate(fd, end) < 0)
		return sibyl_seterr_errno(err, errlen, "kmodel: %s", path);
	return 0;
}

FILE *sibyl_kmodel_data_append(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0666);
	struct stat st;
	FILE *f;

	if (errlen)
		err[0] = '\0';
	if (fd < 0)
		return sibyl_seterr_errno(err, errlen, "kmodel: %s", path), NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		sibyl_seterr(err, errlen, "kmodel: %s: not a regular file", path);
		close(fd);
		return NULL;
	}
	if (cut_torn_line(fd, path, err, errlen) < 0 || !(f = fdopen(fd, "a"))) {
		if (!*err)
			sibyl_seterr_errno(err, errlen, "kmodel: %s", path);
		close(fd);
		return NULL;
	}
	return f;
}

/* The class of a math built-in by its name: on a CPU device a square
 * root is one instruction, a transcendental function (exp, sin, pow...)
 * a library call of tens of instructions, and fabs or min one or two
 * instructions: one "call math" gave them all one cost, 33 times too
 * little for a kernel of transcendentals (docs/kmodel.md). A native_
 * or half_ variant is of its function's class. NULL: not math. */
static const char *math_class(const char *name, size_t len)
{
	static const char *const cls[][2] = {
		{ "sqrt", "call sqrt" }, { "rsqrt", "call sqrt" }, { "exp", "call transcendental" },
		{ "log", "call transcendental" }, { "pow", "call transcendental" },
		{ "rootn", "call transcendental" }, { "cbrt", "call transcendental" },
		{ "sin", "call transcendental" }, { "cos", "call transcendental" },
		{ "tan", "call transcendental" }, { "asin", "call transcendental" },
		{ "acos", "call transcendental" }, { "atan", "call transcendental" },
		{ "hypot", "call transcendental" }, { "erf", "call transcendental" },
		{ "tgamma", "call transcendental" }, { "lgamma", "call transcendental" },
		{ "fabs", "call math" }, { "clamp", "call math" }, { "min", "call math" },
		{ "max", "call math" }, { "fmin", "call math" }, { "fmax", "call math" },
		{ "floor", "call math" }, { "ceil", "call math" }, { "mad", "call math" },
		{ "fma", "call math" }, { "round", "call math" }, { "trunc", "call math" },
		{ "divide", "call math" }, { "recip", "call math" } };

	static const char *const variant[] = { "native_", "half_" };

	for (size_t v = 0; v < sizeof(variant) / sizeof(*variant); v++) {
		size_t skip = strlen(variant[v]);

		if (len > skip && !strncmp(name, variant[v], skip)) {
			name += skip;
			len -= skip;
		}
	}
	for (size_t i = 0; i < sizeof(cls) / sizeof(*cls); i++)
		if (len >= strlen(cls[i][0]) && !strncmp(name, cls[i][0], strlen(cls[i][0])))
			return cls[i][1];
	return NULL;
}

/* The kind of function a call calls, by its (Itanium-mangled) name: a
 * call at -O0 is a work-item query, a barrier, an atomic or a math
 * function, whose costs differ by orders of magnitude on a device. */
static const char *call_class(const char *callee)
{
	char *end;
	unsigned long len = callee && !strncmp(callee, "_Z", 2) ? strtoul(callee + 2, &end, 10) : 0;
	const char *math;

	if (!len)
		return callee && !strncmp(callee, "llvm.", 5) ? "call intrinsic" : "call function";
	if (!strncmp(end, "get_", 4))
		return "call workitem";
	if ((len == 7 && !strncmp(end, "barrier", len)) || (len == 9 && !strncmp(end, "mem_fence",
										  len)))
		return "call barrier";
	if (!strncmp(end, "atomic_", 7) || !strncmp(end, "atom_", 5))
		return "call atomic";
	if ((math = math_class(end, len)))
		return math;
	return "call builtin";
}

json_t *sibyl_kmodel_counts(json_t *records)
{
	json_t *out = json_array(), *r, *have = NULL;
	size_t i, j;

	json_array_foreach(records, i, r) {
		const char *op = json_string_value(json_object_get(r, "op"));
		const char *space = json_string_value(json_object_get(r, "space"));
		json_int_t n = json_integer_value(json_object_get(r, "count"));
		char name[128];

		if (!op)
			continue;
		if (!strcmp(op, "call"))
			snprintf(name, sizeof(name), "%s", call_class(json_string_value(
				json_object_get(r, "callee"))));
		else
			snprintf(name, sizeof(name), space ? "%s %s" : "%s", op, space);
		json_array_foreach(out, j, have)
			if (!strcmp(json_string_value(json_object_get(have, "name")), name))
				break;
		if (j < json_array_size(out))
			json_object_set_new(have, "count", json_integer(n + json_integer_value(
								json_object_get(have, "count"))));
		else
			json_array_append_new(out, json_pack("{s:s, s:I}", "name", name, "count", n));
	}
	return out;
}

int sibyl_kmodel_counts_version(json_t *j, char *const *names, size_t n)
{
	json_int_t v = json_integer_value(json_object_get(j, "dataset_version"));

	if (v > 0)
		return (int)v;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], "call"))
			return 1;
	return 2;
}
