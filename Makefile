# The entry points. `make test` and `make demo` install what is missing and build first, so a
# fresh Debian 12 machine needs only a clone and one command.
BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build test demo bench format lint clean

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

demo: build
	scripts/demo.sh $(BUILD_DIR)

bench: deps
	cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)
	cmake --build build-release -j $(JOBS) --target k8s-job-executor kubesim kje_grpc_load kje_python_stubs
	scripts/bench.sh build-release

format:
	git ls-files '*.h' '*.cc' | xargs -r clang-format -i

lint: configure
	git ls-files '*.cc' | grep -v '^tests/' | xargs -r clang-tidy -p $(BUILD_DIR) --quiet

clean:
	rm -rf $(BUILD_DIR) build-release
