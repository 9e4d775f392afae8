/* Formatting helpers that are safe in signal handlers and constructors. */
#include "rt/internal.h"

#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

size_t rt_u64_dec(char *out, uint64_t v)
{
	char tmp[24];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	out[n] = '\0';
	return n;
}

size_t rt_u32_hex(char *out, uint32_t v)
{
	static const char digits[] = "0123456789abcdef";

	for (int i = 0; i < 8; i++)
		out[i] = digits[(v >> (28 - 4 * i)) & 0xf];
	out[8] = '\0';
	return 8;
}

size_t rt_strlcpy(char *dst, const char *src, size_t size)
{
	size_t n = strlen(src);

	if (size) {
		size_t c = n < size - 1 ? n : size - 1;

		memcpy(dst, src, c);
		dst[c] = '\0';
	}
	return n;
}

/* Append src at dst[at]; returns the new length (clamped to size-1). */
size_t rt_append(char *dst, size_t at, size_t size, const char *src)
{
	if (at >= size)
		return size ? size - 1 : 0;
	rt_strlcpy(dst + at, src, size - at);
	size_t n = at + strlen(src);

	return n < size ? n : size - 1;
}

void rt_debug(const char *msg)
{
	if (rt_proc.debug) {
		ssize_t r = write(2, "sibyl-rt: ", 10);

		r = write(2, msg, strlen(msg));
		r = write(2, "\n", 1);
		(void)r;
	}
}

pid_t rt_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}
