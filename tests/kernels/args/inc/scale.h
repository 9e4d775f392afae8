/* Included by include.cl, found next to it; SCALE comes from -D. */
#ifndef SCALE
#error "compile with -D SCALE=..."
#endif
#define SCALED(x) ((x) * SCALE)
