/* Prototypes that stress the wrapper generator (not a real library). */
#ifndef SIBYL_WRAPGEN_FIXTURE_H
#define SIBYL_WRAPGEN_FIXTURE_H

#include <stdarg.h>
#include <stddef.h>

typedef unsigned long fx_size;
typedef struct fx_ctx fx_ctx;
enum fx_mode { FX_FAST, FX_SLOW };
typedef int (*fx_cb)(void *user, int code);

fx_size fx_typedef(fx_size n, const fx_ctx *ctx);
int fx_const(const int *const p, const char *name);
void fx_struct(struct fx_ctx *ctx, enum fx_mode mode);
int fx_funcptr(int (*cb)(void *, int), void *user, fx_cb cb2);
double fx_array(const double a[], int m[4][4], size_t n);
void fx_unnamed(int, const double *, char);
int fx_printf(fx_ctx *ctx, const char *fmt, ...);
int fx_vprintf(fx_ctx *ctx, const char *fmt, va_list ap);
int fx_log(const char *fmt, ...);
void (*fx_signal(int sig, void (*handler)(int)))(int);
int fx_knr();
static inline int fx_inline(int x) { return x + 1; }
void fx_void(void);

#endif
