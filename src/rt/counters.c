/*
 * The counters micro-generator's runtime half: one perf_event group per
 * thread (task-clock leads; page faults, context switches, migrations,
 * and cycles/instructions where the machine has hardware counters), read
 * with one read() before and after the call.
 *
 * The group is opened disabled and enabled whole once every member is in
 * it: a member added to a group that already counts stays idle until the
 * thread is next scheduled in (Linux 6.18 here: a call's page faults read
 * 0 until the thread's first context switch).  The events count kernel
 * work done for the call too (the page fault's handling, the switch of a
 * context switch, which happens in the kernel and reads 0 otherwise)
 * where perf_event_paranoid allows it; else user space only.
 *
 * The program owns the descriptor table: it may close our descriptors
 * and reuse the numbers.  So the events live at high descriptor numbers,
 * and before each read we ask the kernel for the leader's event id, which
 * fails on anything that is not our perf event.
 */
#define _GNU_SOURCE
#include "rt/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

struct rt_counters {
	int state;		/* 0 fresh, 1 open, 2 unavailable */
	int fd[SIBYL_CNT_MAX];
	uint64_t leader_id;
	uint16_t mask;
	int nr;			/* events in the group, in read order */
	int slot[SIBYL_CNT_MAX];	/* group position -> enum sibyl_counter */
};

static __thread struct rt_counters counters;
/* Events the wrapper libraries asked for (enum sibyl_counter bits); 0 = all. */
static unsigned selected;

/* Called from wrapper constructors (counters:events=...); libraries that
 * ask for different events get the union. */
RT_EXPORT void sibyl_rt_counters_select(unsigned mask)
{
	__atomic_or_fetch(&selected, mask, __ATOMIC_RELAXED);
}

static int wanted(int which)
{
	unsigned sel = __atomic_load_n(&selected, __ATOMIC_RELAXED);

	return !sel || (sel & (1u << which));
}

static const struct {
	uint32_t type;
	uint64_t config;
} events[SIBYL_CNT_MAX] = {
	[SIBYL_CNT_TASK_CLOCK_NS] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	[SIBYL_CNT_PAGE_FAULTS] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	[SIBYL_CNT_CONTEXT_SWITCHES] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	[SIBYL_CNT_CPU_MIGRATIONS] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	[SIBYL_CNT_CYCLES] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	[SIBYL_CNT_INSTRUCTIONS] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
};

/* 1 once the kernel refused an event that counts kernel work: every
 * group opened after counts user space only. */
static int user_only;

static int open_event(int which, int group, int user)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = events[which].type;
	a.config = events[which].config;
	a.disabled = group < 0;
	a.exclude_kernel = (unsigned)user;
	a.exclude_hv = 1;
	a.read_format = PERF_FORMAT_GROUP;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return -1;
	int high = fcntl(fd, F_DUPFD_CLOEXEC, 900);

	close(fd);
	return high;
}

static void close_events(struct rt_counters *c)
{
	for (int i = 0; i < c->nr; i++)
		close(c->fd[i]);
	c->nr = 0;
	c->mask = 0;
}

/* The group, all of its events counting alike: 0 when open, 1 when the
 * kernel refused to count its own work (perf_event_paranoid), -1 when
 * the counters are unavailable. */
static int open_events(struct rt_counters *c, int user)
{
	c->nr = 0;
	c->fd[0] = open_event(SIBYL_CNT_TASK_CLOCK_NS, -1, user);
	if (c->fd[0] < 0)
		return !user && (errno == EACCES || errno == EPERM) ? 1 : -1;
	/* task-clock always leads the group; it is reported only if wanted. */
	c->slot[0] = SIBYL_CNT_TASK_CLOCK_NS;
	c->mask = wanted(SIBYL_CNT_TASK_CLOCK_NS) ? 1u << SIBYL_CNT_TASK_CLOCK_NS : 0;
	c->nr = 1;
	for (int e = SIBYL_CNT_TASK_CLOCK_NS + 1; e < SIBYL_CNT_MAX; e++) {
		int fd = wanted(e) ? open_event(e, c->fd[0], user) : -1;

		if (fd < 0 && wanted(e) && !user && (errno == EACCES || errno == EPERM)) {
			close_events(c);
			return 1;
		}
		if (fd < 0)
			continue;
		c->fd[c->nr] = fd;
		c->slot[c->nr++] = e;
		c->mask |= (uint16_t)(1u << e);
	}
	return 0;
}

static void open_group(struct rt_counters *c)
{
	int user = __atomic_load_n(&user_only, __ATOMIC_RELAXED);
	int r = open_events(c, user);

	c->state = 2;
	if (r == 1) {
		__atomic_store_n(&user_only, 1, __ATOMIC_RELAXED);
		r = open_events(c, 1);
	}
	if (r)
		return;
	if (ioctl(c->fd[0], PERF_EVENT_IOC_ID, &c->leader_id) != 0 ||
	    ioctl(c->fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) != 0) {
		close_events(c);
		return;
	}
	c->state = 1;
}

void rt_counters_forget(void)
{
	struct rt_counters *c = &counters;

	if (c->state == 1)
		for (int i = 0; i < c->nr; i++)
			close(c->fd[i]);
	memset(c, 0, sizeof(*c));
}

/* Read the group into values[] (indexed by enum sibyl_counter); returns
 * the mask of valid values, 0 when counters are unavailable. */
static int read_group(struct sibyl_rt_thread *t, uint64_t *values)
{
	struct rt_counters *c = &counters;
	uint64_t buf[1 + SIBYL_CNT_MAX], id;
	int saved_errno = errno, mask = 0;

	if (t->in_runtime)
		return 0;
	t->in_runtime = 1;
	if (c->state == 0)
		open_group(c);
	if (c->state == 1 && ioctl(c->fd[0], PERF_EVENT_IOC_ID, &id) == 0 && id == c->leader_id &&
	    read(c->fd[0], buf, sizeof(buf)) >= (ssize_t)sizeof(uint64_t) && buf[0] == (uint64_t)c->nr) {
		for (int i = 0; i < c->nr; i++)
			values[c->slot[i]] = buf[1 + i];
		mask = c->mask;
	}
	t->in_runtime = 0;
	errno = saved_errno;
	return mask;
}

/*
 * The snapshot before a call.  Opening or growing the thread's buffer
 * happens here, outside the measured window, rather than in the middle of
 * it when the call record is stored (opening the first buffer alone costs
 * hundreds of microseconds of task-clock).
 */
RT_EXPORT int sibyl_rt_counters_read(struct sibyl_rt_thread *t, uint64_t *values)
{
	if (t->cur == t->limit && !t->in_runtime && !t->emitting && sibyl_rt_begin(t)) {
		(void)rt_refill(t, false);
		sibyl_rt_end(t);
	}
	return read_group(t, values);
}

/* Emit a counters record with the deltas since `before` (a snapshot taken
 * by sibyl_rt_counters_read before the call). */
RT_EXPORT void sibyl_rt_counters_emit(struct sibyl_rt_thread *t, uint32_t func,
				      uint64_t start_tsc, const uint64_t *before)
{
	uint64_t after[SIBYL_CNT_MAX] = { 0 };
	int mask = read_group(t, after);

	/* A lost thread's call is already counted once, with its call record. */
	if (!mask || t->state == THREAD_LOST || !sibyl_rt_begin(t))
		return;
	struct sibyl_counters_record *r = (struct sibyl_counters_record *)sibyl_rt_reserve(t);

	if (r) {
		r->mask = (uint16_t)mask;
		r->func = func;
		for (int i = 0; i < SIBYL_CNT_MAX; i++)
			r->value[i] = (mask & (1 << i)) ? after[i] - before[i] : 0;
		r->start_tsc = start_tsc;
		__atomic_store_n(&r->kind, SIBYL_REC_COUNTERS, __ATOMIC_RELEASE);
		sibyl_rt_commit(t);
	}
	sibyl_rt_end(t);
}
