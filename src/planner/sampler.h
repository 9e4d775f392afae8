/* The worker program's side of sampling (sampler.c; the planner's side
 * is worker.h). */
#ifndef SIBYL_PLANNER_SAMPLER_H
#define SIBYL_PLANNER_SAMPLER_H

/* The worker's whole life: read the setup and the requests from
 * `requests`, reply on `replies` (worker_protocol.h) until the requests
 * end, counting the sequence calls it starts on the page at `progress`
 * (-1: none).  Returns the worker's exit status. */
int sibyl_sampler_serve(int requests, int replies, int progress);

#endif
