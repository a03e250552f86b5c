# The user's interface to the build (CMake does the work).
#   make samples   deps + build, then run every sample (samples/runop.sh) on the
#                  interpreter and every target ptorun runs (ptoas --print-targets)
#   make test      deps + build, then ctest and the corpus checks (0.27 and 0.60;
#                  the 0.60 corpus against tests/corpus/known/ptoas-0.60.txt)
#   make bench     build, then bench/run            (BENCH_ARGS=--quick; docs/bench.md)
#   make fuzz      libFuzzer build in build-fuzz/, FUZZ_SECONDS (600) of fuzzing
#                  FUZZ_TARGET (fuzz_frontend): the front end; fuzz_ptodis: ptodis's
#                  object reader, seeded with ptoas's objects (built in build/);
#                  fuzz_launch: ptorun's launch path (samples x fuzzed scalars)
#   make dist      ptoas-<version>.tar.gz of the tracked sources (DIST_DIR, default .)
#   make check-full  test + the long ctest runs (ctest -C full: the SVE
#                  differential suite at 128, 512 and 2048 bits, the execution
#                  differential on every CPU target) + the tarball built and
#                  tested on its own and in a debootstrapped Debian 12 root
#                  (tests/dist) + 600 s of fuzzing + bench
# Variables: JOBS (2), CMAKE_FLAGS (extra -D options, e.g. -DPTOAS_WERROR=ON),
#            CORPUS_DIR (../shared/corpus/ptoas), CORPUS60_DIR
#            (../shared/corpus/ptoas-0.60), FUZZ_SECONDS, FUZZ_TARGET,
#            FUZZ_ARGS (extra libFuzzer flags, e.g. -seed=1), BENCH_ARGS.
SHELL := /bin/bash
JOBS ?= 2
CMAKE_FLAGS ?=
BUILD_TYPE ?= RelWithDebInfo
CORPUS_DIR ?= ../shared/corpus/ptoas
CORPUS60_DIR ?= ../shared/corpus/ptoas-0.60
FUZZ_SECONDS ?= 600
BENCH_ARGS ?=
FUZZ_ARGS ?=
FUZZ_TARGET ?= fuzz_frontend
FUZZ_CC ?= clang-19
FUZZ_CXX ?= clang++-19

.PHONY: all deps build test samples bench fuzz check-full clean install dist

all: build

deps:
	@scripts/install-deps.sh

# Configures build/ on first use (or whenever CMAKE_FLAGS is given), then builds.
build: deps
	@if [ ! -f build/CMakeCache.txt ] || [ -n "$(CMAKE_FLAGS)" ]; then \
	  cmake -S . -B build -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS); \
	fi
	cmake --build build -j$(JOBS)

test: build
	ctest --test-dir build --output-on-failure -j$(JOBS)
	tests/corpus/run.sh "$(CORPUS_DIR)" --ptoas build/ptoas
	tests/corpus/run.sh "$(CORPUS60_DIR)" --ptoas build/ptoas --known tests/corpus/known/ptoas-0.60.txt --overrides tests/corpus/overrides/ptoas-0.60.tsv

# The programs, their data and man pages under PREFIX (relocatable).
PREFIX ?= /usr/local
install: build
	cmake --install build --prefix "$(PREFIX)"

DIST_DIR ?= .
dist:
	@scripts/make_dist.sh "$(DIST_DIR)"

samples: build
	@set -e; for t in interp $$(build/ptoas --print-targets | awk '$$3 != "-" { print $$1 }'); do \
	  samples/runop.sh -target=$$t all; \
	done

bench: build
	bench/run $(BENCH_ARGS)

# libFuzzer + ASan + UBSan build (build-fuzz/) of FUZZ_TARGET:
# * fuzz_frontend, the front end. The working corpus is fuzz-out/corpus
#   (seeded from tests/fuzz/seeds, the seeds fuzz_gen writes from the op table
#   into build-fuzz/fuzz-gen/seeds (the generic form of every op, the three
#   spellings of every DPS op) and, when present, the shared conformance
#   corpora of 0.27 and 0.60 (files under 16 KiB), copied at run time);
#   crashes land in fuzz-out/.
# * fuzz_ptodis, ptodis's object reader. The working corpus is
#   fuzz-out/ptodis-corpus, seeded with ptoas's objects of the samples
#   (tests/fuzz/ptodis_seeds.sh, with build/ptoas) and the regressions in
#   tests/fuzz/ptodis_regressions; crashes land in fuzz-out/ptodis-.
fuzz: deps
	@if [ ! -f build-fuzz/CMakeCache.txt ] || [ -n "$(CMAKE_FLAGS)" ]; then \
	  CC=$(FUZZ_CC) CXX=$(FUZZ_CXX) cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	    -DPTOAS_FUZZ=ON -DPTOAS_SANITIZE=ON $(CMAKE_FLAGS); \
	fi
	cmake --build build-fuzz -j$(JOBS) --target $(FUZZ_TARGET) fuzz_inputs
	@$(MAKE) --no-print-directory fuzz-run-$(FUZZ_TARGET)

.PHONY: fuzz-run-fuzz_frontend fuzz-run-fuzz_ptodis fuzz-run-fuzz_launch
fuzz-run-fuzz_frontend:
	@mkdir -p fuzz-out/corpus
	@for d in "$(CORPUS_DIR)" "$(CORPUS60_DIR)"; do \
	  [ -d "$$d" ] || continue; tag=$$(basename "$$d"); \
	  find "$$d" -name '*.pto' -type f -size -16k | while IFS= read -r f; do \
	    rel="$${f#$$d/}"; dst="fuzz-out/corpus/$${tag}_$${rel//\//_}"; \
	    [ -e "$$dst" ] || cp "$$f" "$$dst"; \
	  done; \
	done
	build-fuzz/fuzz_frontend -max_total_time=$(FUZZ_SECONDS) -timeout=1 -rss_limit_mb=2048 \
	  -dict=build-fuzz/fuzz-gen/pto.dict -artifact_prefix=fuzz-out/ -print_final_stats=1 $(FUZZ_ARGS) \
	  fuzz-out/corpus tests/fuzz/seeds build-fuzz/fuzz-gen/seeds

fuzz-run-fuzz_ptodis:
	@if [ ! -f build/CMakeCache.txt ]; then cmake -S . -B build -DCMAKE_BUILD_TYPE=$(BUILD_TYPE); fi
	cmake --build build -j$(JOBS) --target ptoas
	tests/fuzz/ptodis_seeds.sh build/ptoas fuzz-out/ptodis-corpus
	build-fuzz/fuzz_ptodis -max_total_time=$(FUZZ_SECONDS) -timeout=5 -rss_limit_mb=2048 \
	  -max_len=262144 -artifact_prefix=fuzz-out/ptodis- -print_final_stats=1 $(FUZZ_ARGS) \
	  fuzz-out/ptodis-corpus tests/fuzz/ptodis_regressions

# fuzz_launch: ptorun's launch path over the samples (tests/fuzz/fuzz_launch.cpp);
# corpus fuzz-out/launch-corpus, crashes in fuzz-out/launch-.
fuzz-run-fuzz_launch:
	@mkdir -p fuzz-out/launch-corpus
	build-fuzz/fuzz_launch -max_total_time=$(FUZZ_SECONDS) -timeout=20 -rss_limit_mb=4096 \
	  -max_len=256 -len_control=0 -artifact_prefix=fuzz-out/launch- -print_final_stats=1 $(FUZZ_ARGS) \
	  fuzz-out/launch-corpus

check-full:
	$(MAKE) test
	ctest --test-dir build --output-on-failure -j$(JOBS) -C full -L 'sve_full|exec_full|dist_full'
	$(MAKE) fuzz FUZZ_SECONDS=600
	$(MAKE) bench

clean:
	rm -rf build build-fuzz build-asan fuzz-out
