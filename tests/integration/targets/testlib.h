/* A small shared library written for sibyl's own tests. */
#ifndef SIBYL_TESTLIB_H
#define SIBYL_TESTLIB_H

#include <stddef.h>

typedef int (*testlib_visit_fn)(int value, void *arg);

int testlib_work(int x);
/* Writes page `page` (mod 64) of a static buffer: faults on first touch. */
int testlib_touch(int page);
/* Calls itself through the dynamic symbol, so each level is intercepted. */
long testlib_recurse(int depth);
/* Returns -1 with errno set to `err`. */
int testlib_fail(int err);
/* Sums in[0..n) into *out; const input, output through a pointer. */
void testlib_sum(const double *in, size_t n, double *out);
int testlib_visit(const int values[], size_t n, testlib_visit_fn fn, void *arg);

#endif
