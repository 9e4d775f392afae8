/* A library for worksize.full's thread tests (worksize_full.sh): copies
 * and in-place updates, one of them paused until the program says go. */
#include <stddef.h>

void ws_copy(const char *in, char *out, size_t n);
/* out[i] = in[i], then wait until ws_step_set(2). */
void ws_copy_hold(const char *in, char *out, size_t n);
/* buf[i] += 1: n bytes in and out (in-out). */
void ws_bump(char *buf, size_t n);
/* Like strtol: the digits at s, *end set past them when end is not NULL. */
long ws_scan(const char *s, char **end);
/* ws_copy of two inputs, each n bytes, into out (2 n bytes). */
void ws_copy2(const char *a, const char *b, char *out, size_t n);
/* Not wrapped: the pause's handshake. */
void ws_step_set(int step);
void ws_step_wait(int step);
