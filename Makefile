# The entry points. `make test` and `make demo` install what is missing and build first, so a
# fresh Debian 12 machine needs only a clone and one command.
BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
# Sanitizer and fuzzing builds, each in a directory of its own (README, "Testing").
ASAN_BUILD_DIR ?= build-asan
TSAN_BUILD_DIR ?= build-tsan
FUZZ_BUILD_DIR ?= build-fuzz
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?=
# The Spark operator `make demo` runs against (kubesim simulates both): apache or kubeflow.
OPERATOR ?= apache
# `make bench`'s soak: seconds of steady load after its warm-up (3600 for the hour; 0 skips it).
SOAK_SECONDS ?= 120
# More arguments for bench/run.py, e.g. BENCH_ARGS=--quick (small scale curves) or "--only P4".
BENCH_ARGS ?=

.PHONY: all deps configure build test demo bench bench-publish soak format lint clean test-asan \
  test-tsan fuzz fresh-check

all: build

deps:
	@scripts/install-deps.sh
	@scripts/fetch-tools.sh

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS)

configure: deps $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	cd $(BUILD_DIR) && ctest -j $(JOBS) --output-on-failure --timeout 600

# ASan + UBSan over the whole suite. LSan ignores what leaks inside third-party libraries
# (tests/sanitizers/lsan.supp says which and why).
test-asan: deps
	cmake -S . -B $(ASAN_BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DKJE_SANITIZE=ON $(CMAKE_FLAGS)
	scripts/timed.sh "test-asan: build" cmake --build $(ASAN_BUILD_DIR) -j $(JOBS)
	cd $(ASAN_BUILD_DIR) && \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitizers/lsan.supp:print_suppressions=0 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  $(CURDIR)/scripts/timed.sh "test-asan: tests" \
	  ctest -j $(JOBS) --output-on-failure --timeout 1200

# ThreadSanitizer over the tests labelled tsan, against Debian's Abseil rebuilt with it
# (scripts/build-tsan-abseil.sh; the first run fetches and builds it, about 10 minutes).
test-tsan: deps
	scripts/timed.sh "test-tsan: Abseil" scripts/build-tsan-abseil.sh $(TSAN_BUILD_DIR)/absl-tsan
	cmake -S . -B $(TSAN_BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DKJE_TSAN=ON \
	  -Dabsl_DIR=$(abspath $(TSAN_BUILD_DIR))/absl-tsan/install/lib/cmake/absl $(CMAKE_FLAGS)
	scripts/timed.sh "test-tsan: build" cmake --build $(TSAN_BUILD_DIR) -j $(JOBS)
	scripts/timed.sh "test-tsan: tests" scripts/test-tsan.sh $(TSAN_BUILD_DIR) -j $(JOBS)

# libFuzzer (clang 14) over every parser of outside input, FUZZ_SECONDS per target.
fuzz: deps
	CC=clang-14 CXX=clang++-14 cmake -S . -B $(FUZZ_BUILD_DIR) -G Ninja \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKJE_FUZZ=ON -DBUILD_TESTING=OFF $(CMAKE_FLAGS)
	cmake --build $(FUZZ_BUILD_DIR) -j $(JOBS) --target fuzz_targets
	scripts/fuzz.sh $(FUZZ_BUILD_DIR) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# A new user's machine: a minimal Debian 12 chroot, a clone of HEAD, then `make demo` and
# `make test` inside with CI=true (root; scripts/fresh-check.sh). Not part of `make test`.
fresh-check:
	scripts/fresh-check.sh $(FRESH_DIR)

demo: build
	K8S_JOB_EXECUTOR_OPERATOR=$(OPERATOR) scripts/demo.sh $(BUILD_DIR)

bench: deps
	cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)
	cmake --build build-release -j $(JOBS) --target k8s-job-executor kubesim kje_grpc_load kje_grpc_floor kje_python_stubs
	SOAK_SECONDS=$(SOAK_SECONDS) scripts/bench.sh build-release $(BENCH_ARGS)

# The last run's plots (build/bench/*.svg, index.html) into docs/bench, which the README shows.
bench-publish:
	/usr/bin/python3 bench/plots.py build/bench/results.json --publish docs/bench

# The soak alone (bench/soak.py), SOAK_SECONDS long.
soak: deps
	cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)
	cmake --build build-release -j $(JOBS) --target k8s-job-executor kubesim kje_python_stubs
	bench/soak.py build-release --seconds $(SOAK_SECONDS)

format:
	git ls-files '*.h' '*.cc' | xargs -r clang-format -i

lint: configure
	git ls-files '*.cc' | grep -v '^tests/' | xargs -r clang-tidy -p $(BUILD_DIR) --quiet

clean:
	rm -rf $(BUILD_DIR) build-release
