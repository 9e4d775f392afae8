/* meta.json of a trace directory, written by `sibyl trace` (meta_write.h). */
#include "trace/meta_write.h"
#include "core/alloc.h"
#include "core/fs.h"
#include "core/json.h"
#include "core/output.h"
#include "sibyl/trace_format.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

extern char **environ;

static json_t *cpu_model(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	json_t *model = NULL;

	if (!f)
		return json_null();
	while (!model && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon += 1 + strspn(colon + 1, " \t");
		colon[strcspn(colon, "\n")] = '\0';
		model = json_string(colon);
	}
	fclose(f);
	return model ? model : json_null();
}

static json_t *host_object(void)
{
	struct utsname u;
	json_t *host = json_object();

	if (uname(&u) == 0) {
		json_object_set_new(host, "hostname", json_string(u.nodename));
		json_object_set_new(host, "kernel", json_string(u.release));
		json_object_set_new(host, "machine", json_string(u.machine));
	}
	json_object_set_new(host, "cpus", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	json_object_set_new(host, "cpu_model", cpu_model());
	return host;
}

static json_t *string_array(char *const *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n && v[i]; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static json_t *exit_object(const struct sibyl_run_status *st)
{
	json_t *e = json_object();

	if (st->outcome == SIBYL_RUN_CRASHED)
		json_object_set_new(e, "signal", json_integer(st->code));
	else
		json_object_set_new(e, "status", json_integer(st->code));
	return e;
}

static void put_format(json_t *m, const struct sibyl_trace_run *run)
{
	char cwd[PATH_MAX];

	json_object_set_new(m, "format", json_string("sibyl-trace"));
	json_object_set_new(m, "version", json_integer(SIBYL_TRACE_VERSION));
	json_object_set_new(m, "min_version", json_integer(SIBYL_TRACE_MIN_VERSION));
	json_object_set_new(m, "sibyl_version", json_string(SIBYL_VERSION));
	json_object_set_new(m, "command", string_array(run->command, SIZE_MAX));
	/* The environment it ran in: `predict --verify` runs the original
	 * again in it (an OPENSSL_ia32cap mask chooses the implementation). */
	json_object_set_new(m, "environment", string_array(environ, SIZE_MAX));
	if (getcwd(cwd, sizeof(cwd)))
		json_object_set_new(m, "cwd", json_string(cwd));
	json_object_set_new(m, "host", host_object());
}

static void put_clock(json_t *m, const struct sibyl_trace_run *run)
{
	json_t *clock = json_object();

	json_object_set_new(clock, "source", json_string("tsc"));
	json_object_set_new(clock, "ref_tsc", json_integer((json_int_t)run->clock.ref_tsc));
	json_object_set_new(clock, "ref_ns", json_integer((json_int_t)run->clock.ref_ns));
	json_object_set_new(clock, "tsc_per_ns", json_real(run->clock.tsc_per_ns));
	json_object_set_new(clock, "invariant", json_boolean(sibyl_tsc_invariant()));
	json_object_set_new(m, "clock", clock);
}

static void put_start(json_t *m, const struct sibyl_trace_run *run)
{
	json_object_set_new(m, "root_pid", json_integer(run->root_pid));
	json_object_set_new(m, "start_ns", json_integer((json_int_t)run->start_ns));
	json_object_set_new(m, "wrappers", string_array((char *const *)run->wrappers->items,
							 run->wrappers->count));
}

static void put_end(json_t *m, const struct sibyl_trace_run *run)
{
	if (!run->finished)
		return;
	json_object_set_new(m, "end_ns", json_integer((json_int_t)run->end_ns));
	json_object_set_new(m, "wall_ns", json_integer((json_int_t)(run->end_ns - run->start_ns)));
	json_object_set_new(m, "exit", exit_object(&run->status));
	/* Absent until then: a killed `sibyl trace` leaves a trace that
	 * readers call incomplete. */
	json_object_set_new(m, "complete", json_boolean(run->complete));
}

/* What sibyl trace measured once the command had ended (interposition.h). */
static void put_costs(json_t *m, const struct sibyl_trace_run *run)
{
	if (!run->finished)
		return;
	json_object_set_new(m, "interposition", json_pack("{sososo}", "per_call_ns",
		sibyl_json_real_or_null(run->costs.per_call_ns), "counters_per_call_ns",
		sibyl_json_real_or_null(run->costs.counters_ns), "startup_ns",
		sibyl_json_real_or_null(run->costs.startup_ns)));
	if (isnan(run->costs.startup_ns) && run->costs.startup_why[0])
		json_object_set_new(json_object_get(m, "interposition"), "startup_error",
				    json_string(run->costs.startup_why));
	json_object_set_new(m, "page_fault_ns", sibyl_json_real_or_null(run->costs.page_fault_ns));
}

/* The fields in the order they are written; one function per group. */
static void (*const sections[])(json_t *m, const struct sibyl_trace_run *run) = {
	put_format, put_clock, put_start, put_costs, put_end,
};

int sibyl_trace_meta_write(const char *dir, const struct sibyl_trace_run *run)
{
	json_t *m = json_object();

	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		sections[i](m, run);

	char *text = json_dumps(m, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	char *path = sibyl_path_join(dir, "meta.json");
	int ret = -1;

	json_decref(m);
	if (text) {
		size_t len = strlen(text);

		text = sibyl_xreallocarray(text, len + 2, 1);
		memcpy(text + len, "\n", 2);
		ret = sibyl_output_write(path, text, len + 1, sibyl_dir_file_mode(dir));
	}
	free(text);
	free(path);
	return ret;
}
