# Convenience front end: everything real happens in CMake/CTest.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)

PREFIX ?= /usr/local

.PHONY: all deps build demo check bench install clean

all: build

deps:
	@scripts/install-deps

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@examples/run-demo $(BUILD)

# Every test, then the unit tests again under ASan+UBSan.
check: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DSIBYL_SANITIZE=ON >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	@cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS) -L unit

# A relocatable tree under PREFIX (docs/install.md).
install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

bench: build
	@bench/run-all $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
