/*
 * Private state of libsibyl-rt.so.  Nothing here is visible to the traced
 * program: the library is built with hidden visibility and exports only
 * the sibyl_rt_* entry points of include/sibyl/wrap_rt.h.
 */
#ifndef SIBYL_RT_INTERNAL_H
#define SIBYL_RT_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <sibyl/trace_format.h>
#include <sibyl/wrap_rt.h>

#define RT_EXPORT __attribute__((visibility("default")))

/* Per process image; reset in a forked child. */
struct rt_process {
	int enabled;		/* tracing into dir */
	char dir[PATH_MAX];
	mode_t file_mode;	/* of new files: the rw bits of dir (0600 in 0700) */
	pid_t pid;
	unsigned gen;
	struct sibyl_proc_header *proc;	/* mmap'd <pid>.<gen>.proc */
	uint64_t first_window;	/* bytes of a thread's first buffer window */
	uint64_t max_window;
	struct sibyl_drain_control *drain;	/* mapped drain.ctl: ring mode */
	int debug;
};

/* A thread's buffer: not yet opened, a growing .events file, a ring
 * drained by `sibyl trace`, off for good, or lost: it could not be
 * created, and the thread's calls are counted in the .proc header. */
enum { THREAD_FRESH, THREAD_OPEN, THREAD_RING, THREAD_DISABLED, THREAD_LOST };

/* Linux 5.14; older kernels answer EINVAL and the callers fall back to
 * fallocate, so that no store ever lands on a page the file system could
 * not provide (which raises SIGBUS). */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

extern struct rt_process rt_proc;

/* env.c: the one table of environment variables the runtime reads. */
const char *rt_getenv(const char *name);

/* process.c */
size_t rt_pid_image_path(char *out, size_t size, const char *dir, pid_t pid, unsigned gen);
size_t rt_image_path(char *out, size_t size, const char *dir, unsigned gen);
void rt_process_start(pid_t ppid);
void rt_process_finish(void);

/* buffer.c */
struct sibyl_call_record *rt_refill(struct sibyl_rt_thread *t, bool count_drop);
void rt_thread_finish(struct sibyl_rt_thread *t);
void rt_thread_forget(struct sibyl_rt_thread *t);
size_t rt_thread_path(char *out, size_t size, const char *dir, pid_t tid, const char *suffix);
void rt_events_header_init(struct sibyl_events_header *h, pid_t tid);
void rt_watch_thread_exit(struct sibyl_rt_thread *t);

/* ring.c: the drained ring buffers (docs/runtime.md). */
void rt_drain_attach(void);
int rt_ring_open(struct sibyl_rt_thread *t);
struct sibyl_call_record *rt_ring_refill(struct sibyl_rt_thread *t, bool count_drop);
void rt_ring_close(struct sibyl_rt_thread *t);

/* wrappers.c: load SIBYL_WRAPPERS RTLD_LOCAL (audit mode). */
void rt_load_wrappers(void);

/* exit_status.c: how the image ends (resolves the next _exit, wait...). */
void rt_exit_status_init(void);

/* abandon.c: calls left abnormally. */
void rt_close_open_calls(struct sibyl_rt_thread *t);
void rt_inherit_open_calls(struct sibyl_rt_thread *t);

/* counters.c: close this thread's perf events (after fork). */
void rt_counters_forget(void);

/* util.c: async-signal-safe helpers (no stdio, no malloc). */
size_t rt_u64_dec(char *out, uint64_t v);
size_t rt_u32_hex(char *out, uint32_t v);
size_t rt_strlcpy(char *dst, const char *src, size_t size);
size_t rt_append(char *dst, size_t at, size_t size, const char *src);
void rt_debug(const char *msg);
pid_t rt_gettid(void);

#endif
