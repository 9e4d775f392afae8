#include "ws_shared.h"

#include <sched.h>
#include <string.h>

static int step;

void ws_copy(const char *in, char *out, size_t n)
{
	memcpy(out, in, n);
}

void ws_copy_hold(const char *in, char *out, size_t n)
{
	memcpy(out, in, n);
	ws_step_set(1);
	ws_step_wait(2);
}

void ws_bump(char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++)
		buf[i]++;
}

long ws_scan(const char *s, char **end)
{
	long v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + *s++ - '0';
	if (end)
		*end = (char *)s;
	return v;
}

void ws_copy2(const char *a, const char *b, char *out, size_t n)
{
	memcpy(out, a, n);
	memcpy(out + n, b, n);
}

void ws_step_set(int s)
{
	__atomic_store_n(&step, s, __ATOMIC_SEQ_CST);
}

void ws_step_wait(int s)
{
	while (__atomic_load_n(&step, __ATOMIC_SEQ_CST) != s)
		sched_yield();
}
