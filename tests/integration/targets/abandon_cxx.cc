// A callback throws a C++ exception through testlib_visit, a C library
// function, and main catches it (tests/integration/abandon.sh).
//   abandon_cxx N
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

extern "C" {
#include "testlib.h"
}

static int throw_at_three(int v, void *)
{
	if (v == 3)
		throw std::runtime_error("three");
	return v;
}

int main(int argc, char **argv)
{
	static const int values[] = { 1, 2, 3, 4 };
	long n = argc > 1 ? std::atol(argv[1]) : 1, sum = 0, caught = 0;

	for (long i = 0; i < n; i++) {
		try {
			sum += testlib_visit(values, 4, throw_at_three, nullptr);
		} catch (const std::runtime_error &) {
			caught++;
		}
		sum += testlib_work(static_cast<int>(i));
	}
	std::printf("caught %ld sum %ld\n", caught, sum);
	return 0;
}
