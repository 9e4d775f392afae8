/* The worker threads of the multi-threaded adapters. They are started
 * once in init, so a measured run only wakes them (a condition-variable
 * broadcast) instead of paying for pthread_create. */
#include "planner/adapters/adapters.h"

#include <pthread.h>
#include <stdlib.h>

struct adapter_pool {
	unsigned nthreads;
	unsigned started;            /* workers actually created */
	pthread_t *threads;
	pthread_mutex_t mu;
	pthread_cond_t start, done;
	uint64_t generation;         /* bumped per job */
	unsigned pending;            /* workers still inside the job */
	bool stop;
	adapter_job_fn fn;
	void *arg;
	pthread_barrier_t barrier;
};

struct worker_arg {
	struct adapter_pool *pool;
	unsigned tid;
};

static void *worker(void *p)
{
	struct worker_arg *w = p;
	struct adapter_pool *pool = w->pool;
	unsigned tid = w->tid;
	free(w);
	uint64_t seen = 0;
	pthread_mutex_lock(&pool->mu);
	for (;;) {
		while (pool->generation == seen && !pool->stop)
			pthread_cond_wait(&pool->start, &pool->mu);
		if (pool->stop)
			break;
		seen = pool->generation;
		adapter_job_fn fn = pool->fn;
		void *arg = pool->arg;
		pthread_mutex_unlock(&pool->mu);
		fn(arg, tid, pool->nthreads);
		pthread_mutex_lock(&pool->mu);
		if (--pool->pending == 0)
			pthread_cond_signal(&pool->done);
	}
	pthread_mutex_unlock(&pool->mu);
	return NULL;
}

struct adapter_pool *adapter_pool_create(unsigned threads)
{
	struct adapter_pool *pool = calloc(1, sizeof(*pool));
	if (!pool)
		return NULL;
	pool->nthreads = threads ? threads : 1;
	pool->threads = calloc(pool->nthreads, sizeof(pthread_t));
	pthread_mutex_init(&pool->mu, NULL);
	pthread_cond_init(&pool->start, NULL);
	pthread_cond_init(&pool->done, NULL);
	pthread_barrier_init(&pool->barrier, NULL, pool->nthreads);
	if (!pool->threads) {
		adapter_pool_destroy(pool);
		return NULL;
	}
	for (unsigned t = 1; t < pool->nthreads; t++) {
		struct worker_arg *w = malloc(sizeof(*w));
		if (!w) {
			adapter_pool_destroy(pool);
			return NULL;
		}
		*w = (struct worker_arg){ pool, t };
		if (pthread_create(&pool->threads[t], NULL, worker, w) != 0) {
			free(w);
			adapter_pool_destroy(pool);
			return NULL;
		}
		pool->started = t;
	}
	return pool;
}

void adapter_pool_run(struct adapter_pool *pool, adapter_job_fn fn, void *arg)
{
	if (pool->nthreads == 1) {
		fn(arg, 0, 1);
		return;
	}
	pthread_mutex_lock(&pool->mu);
	pool->fn = fn;
	pool->arg = arg;
	pool->pending = pool->nthreads - 1;
	pool->generation++;
	pthread_cond_broadcast(&pool->start);
	pthread_mutex_unlock(&pool->mu);
	fn(arg, 0, pool->nthreads);
	pthread_mutex_lock(&pool->mu);
	while (pool->pending)
		pthread_cond_wait(&pool->done, &pool->mu);
	pthread_mutex_unlock(&pool->mu);
}

void adapter_pool_barrier(struct adapter_pool *pool)
{
	if (pool->nthreads > 1)
		pthread_barrier_wait(&pool->barrier);
}

void adapter_pool_destroy(struct adapter_pool *pool)
{
	pthread_mutex_lock(&pool->mu);
	pool->stop = true;
	pthread_cond_broadcast(&pool->start);
	pthread_mutex_unlock(&pool->mu);
	for (unsigned t = 1; t <= pool->started; t++)
		pthread_join(pool->threads[t], NULL);
	pthread_barrier_destroy(&pool->barrier);
	pthread_cond_destroy(&pool->done);
	pthread_cond_destroy(&pool->start);
	pthread_mutex_destroy(&pool->mu);
	free(pool->threads);
	free(pool);
}

void adapter_split(size_t n, unsigned tid, unsigned nthreads, size_t *lo, size_t *hi)
{
	size_t base = n / nthreads, extra = n % nthreads;
	*lo = tid * base + (tid < extra ? tid : extra);
	*hi = *lo + base + (tid < extra ? 1 : 0);
}

struct range_job {
	size_t n;
	adapter_range_fn fn;
	void *arg;
};

static void range_job(void *p, unsigned tid, unsigned nthreads)
{
	struct range_job *job = p;
	size_t lo, hi;
	adapter_split(job->n, tid, nthreads, &lo, &hi);
	if (lo < hi)
		job->fn(job->arg, tid, lo, hi);
}

double adapter_timed_parallel(void *state, size_t n, adapter_range_fn fn, void *arg)
{
	struct adapter_common *c = state;
	struct range_job job = { n, fn, arg };
	double t0 = adapter_now(state);
	if (c->pool)
		adapter_pool_run(c->pool, range_job, &job);
	else
		range_job(&job, 0, 1);
	return adapter_now(state) - t0;
}
