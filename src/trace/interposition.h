/*
 * What one intercepted call costs the traced program: the wrapper that
 * `sibyl wrap --gen time,trace` generates and the runtime's fast path
 * (include/sibyl/wrap_rt.h), beyond the call itself.  `sibyl trace`
 * measures it once the command has ended and records it in meta.json
 * ("interposition"), so that `sibyl predict` can tell the program's time
 * from the time tracing added (docs/predict.md, "Interposition").
 */
#ifndef SIBYL_TRACE_INTERPOSITION_H
#define SIBYL_TRACE_INTERPOSITION_H

/* Nanoseconds per intercepted call on this machine now: the median over
 * a few interleaved batches of the added time per call.  A few ms. */
double sibyl_interposition_ns(void);

#endif
