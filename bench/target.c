#include "target.h"

__attribute__((noinline)) int bench_work(int x)
{
	return x + 1;
}
