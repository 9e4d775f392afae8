/*
 * The device side of the CLBlast shim: one context, one in-order queue
 * and three device buffers (A, B, C) per process, grown when a product
 * needs more and reused otherwise, so a program's stream of products
 * pays buffer creation only when its sizes grow.
 *
 * Threads: one mutex serialises every product.  The buffers are shared
 * state, and the device (PoCL spreads one kernel over every core) runs
 * one product at a time anyway; a program calling from several threads
 * gets each product right, one after the other.
 *
 * fork: the child inherits the context but not PoCL's threads, so the
 * device is unusable there; the child's products fail here and the shim
 * runs them on the original BLAS.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include "clblast_gemm.h"

#include <clblast_c.h>
#include <pthread.h>
#include <stdio.h>

enum { BUF_A, BUF_B, BUF_C, NBUF };

static struct {
	pthread_mutex_t lock;
	int state;		/* 0: not opened yet, 1: open, -1: unusable */
	char why[160];		/* when unusable */
	cl_device_id device;
	cl_context context;
	cl_command_queue queue;
	cl_mem buf[NBUF];
	size_t cap[NBUF];	/* bytes */
} dev = { .lock = PTHREAD_MUTEX_INITIALIZER };

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void before_fork(void)
{
	pthread_mutex_lock(&dev.lock);
}

static void after_fork_parent(void)
{
	pthread_mutex_unlock(&dev.lock);
}

static void after_fork_child(void)
{
	if (dev.state == 1) {
		dev.state = -1;
		snprintf(dev.why, sizeof(dev.why), "the OpenCL context belongs to the parent process");
	}
	pthread_mutex_unlock(&dev.lock);
}

static void register_atfork(void)
{
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

static int first_device(cl_device_id *device)
{
	cl_platform_id platforms[16];
	cl_uint np = 0;

	if (clGetPlatformIDs(16, platforms, &np) != CL_SUCCESS)
		return -1;
	for (cl_uint i = 0; i < np && i < 16; i++)
		if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 1, device, NULL) == CL_SUCCESS)
			return 0;
	return -1;
}

/* With the lock held. */
static void open_locked(void)
{
	cl_int err = CL_SUCCESS;

	dev.state = -1;
	if (first_device(&dev.device)) {
		snprintf(dev.why, sizeof(dev.why), "no OpenCL device (is pocl-opencl-icd installed?)");
		return;
	}
	dev.context = clCreateContext(NULL, 1, &dev.device, NULL, NULL, &err);
	if (dev.context)
		dev.queue = clCreateCommandQueue(dev.context, dev.device, 0, &err);
	if (!dev.queue) {
		snprintf(dev.why, sizeof(dev.why), "cannot create an OpenCL context and queue (error %d)",
			 err);
		if (dev.context)
			clReleaseContext(dev.context);
		dev.context = NULL;
		return;
	}
	dev.state = 1;
}

int clgemm_open(char *err, size_t errlen)
{
	pthread_once(&atfork_once, register_atfork);
	pthread_mutex_lock(&dev.lock);
	if (dev.state == 0)
		open_locked();
	int state = dev.state;

	if (state < 0 && err)
		snprintf(err, errlen, "%s", dev.why);
	pthread_mutex_unlock(&dev.lock);
	return state > 0 ? 0 : -1;
}

static int reserve(int which, size_t bytes)
{
	if (dev.cap[which] >= bytes)
		return 0;
	if (dev.buf[which])
		clReleaseMemObject(dev.buf[which]);
	dev.cap[which] = 0;
	dev.buf[which] = clCreateBuffer(dev.context, CL_MEM_READ_WRITE, bytes, NULL, NULL);
	if (!dev.buf[which])
		return -1;
	dev.cap[which] = bytes;
	return 0;
}

/* A rows x cols column-major matrix with leading dimension ld on the host
 * <-> packed (leading dimension rows) on the device: only the matrix's
 * own bytes cross, never the padding between its columns. */
static cl_int copy(bool to_device, cl_mem buf, const double *host, size_t rows, size_t cols,
		   size_t ld, bool blocking)
{
	const size_t origin[3] = { 0, 0, 0 };
	const size_t region[3] = { rows * sizeof(double), cols, 1 };

	if (to_device)
		return clEnqueueWriteBufferRect(dev.queue, buf, blocking, origin, origin, region,
						region[0], 0, ld * sizeof(double), 0, host, 0,
						NULL, NULL);
	return clEnqueueReadBufferRect(dev.queue, buf, blocking, origin, origin, region, region[0],
				       0, ld * sizeof(double), 0, (void *)host, 0, NULL, NULL);
}

/* With the lock held and the device open. */
static int product_locked(const struct clgemm_args *g)
{
	size_t rows_a = g->trans_a ? g->k : g->m, cols_a = g->trans_a ? g->m : g->k;
	size_t rows_b = g->trans_b ? g->n : g->k, cols_b = g->trans_b ? g->k : g->n;

	if (reserve(BUF_A, rows_a * cols_a * sizeof(double)) ||
	    reserve(BUF_B, rows_b * cols_b * sizeof(double)) ||
	    reserve(BUF_C, g->m * g->n * sizeof(double)))
		return -1;
	/* Writes need not block: the in-order queue finishes them before the
	 * product, and the blocking read of C returns after all three. */
	if (!g->resident &&
	    (copy(true, dev.buf[BUF_A], g->a, rows_a, cols_a, g->lda, false) ||
	     copy(true, dev.buf[BUF_B], g->b, rows_b, cols_b, g->ldb, false) ||
	     (g->beta != 0 && copy(true, dev.buf[BUF_C], g->c, g->m, g->n, g->ldc, false))))
		return clFinish(dev.queue), -1;
	CLBlastStatusCode st = CLBlastDgemm(
		CLBlastLayoutColMajor, g->trans_a ? CLBlastTransposeYes : CLBlastTransposeNo,
		g->trans_b ? CLBlastTransposeYes : CLBlastTransposeNo, g->m, g->n, g->k, g->alpha,
		dev.buf[BUF_A], 0, rows_a, dev.buf[BUF_B], 0, rows_b, g->beta, dev.buf[BUF_C], 0,
		g->m, &dev.queue, NULL);

	if (st != CLBlastSuccess)
		return clFinish(dev.queue), -1;
	if (g->resident)
		return clFinish(dev.queue) == CL_SUCCESS ? 0 : -1;
	return copy(false, dev.buf[BUF_C], g->c, g->m, g->n, g->ldc, true) ? -1 : 0;
}

int clgemm(const struct clgemm_args *g)
{
	if (clgemm_open(NULL, 0))
		return -1;
	pthread_mutex_lock(&dev.lock);
	int rc = dev.state > 0 ? product_locked(g) : -1;

	pthread_mutex_unlock(&dev.lock);
	return rc;
}

void clgemm_close(void)
{
	pthread_mutex_lock(&dev.lock);
	for (int i = 0; i < NBUF; i++) {
		if (dev.buf[i])
			clReleaseMemObject(dev.buf[i]);
		dev.buf[i] = NULL;
		dev.cap[i] = 0;
	}
	if (dev.state > 0) {
		clReleaseCommandQueue(dev.queue);
		clReleaseContext(dev.context);
	}
	dev.queue = NULL;
	dev.context = NULL;
	dev.state = 0;
	pthread_mutex_unlock(&dev.lock);
}
