# rladv - see README.md.  make, make demo, make check, make bench,
# make install (PREFIX, DESTDIR), make CUDA=1, make check SANITIZE=1,
# make deps (the packages, as root).

PREFIX	?= /usr/local
MANDIR	?= $(PREFIX)/share/man
CC	?= cc
NVCC	?= nvcc
CFLAGS	?= -O2 -g
VERSION	 = 0.1.0

WARN	 = -std=c11 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
	   -Wmissing-prototypes -Wpointer-arith -Wno-sign-compare
PKGS	 = libcjson zlib
# Recursive (=) so that pkg-config runs after make deps has installed.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CHECK_CFLAGS = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   = $(shell pkg-config --libs check 2>/dev/null)

BUILD	 = build
MODE	 = plain
ifeq ($(SANITIZE),1)
BUILD	 = build/san
MODE	 = san
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer \
	   -fno-sanitize-recover=undefined
endif
ifeq ($(SANITIZE),thread)
BUILD	 = build/tsan
MODE	 = tsan
SANFLAGS = -fsanitize=thread -fno-omit-frame-pointer
endif
ifeq ($(CUDA),1)
BUILD	:= $(BUILD)/cuda
MODE	:= $(MODE)-cuda
CUDEF	 = -DRLADV_CUDA
CUDA_HOME ?= /usr/local/cuda
# The static runtime: the binary runs (and --device auto picks the CPU)
# where no CUDA toolkit is installed.
CULIBS	 = -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lstdc++
# sm_80 (A100) and sm_90 (H100, H200) code, and compute_90 PTX that later
# GPUs compile at load.  -fmad=false: no fused multiply-add, so the
# kernels' doubles are the CPU's bits (SPEC §8).
CUARCH	 = -gencode arch=compute_80,code=sm_80 \
	   -gencode arch=compute_90,code=sm_90 \
	   -gencode arch=compute_90,code=compute_90
CUFLAGS	 = -O2 -std=c++17 -fmad=false -Xcompiler -ffp-contract=off,-Wall,-Wextra
endif

# gzip through Intel ISA-L where pkg-config finds libisal (make deps
# installs it), 2-4 times faster than zlib; ISAL=0 builds the
# zlib-only variant, in a directory of its own.
GZ_BASE	:= $(BUILD)
ISAL	?= $(shell pkg-config --exists libisal 2>/dev/null && echo 1 || echo 0)
ifeq ($(ISAL),1)
PKGS	+= libisal
GZDEF	 = -DRLADV_ISAL
else
BUILD	:= $(BUILD)/zlib
MODE	:= $(MODE)-zlib
endif

ALL_CPPFLAGS = -D_GNU_SOURCE -DRLADV_VERSION='"$(VERSION)"' $(CUDEF) $(GZDEF) \
	   -Isrc $(PKG_CFLAGS) $(CPPFLAGS)
ALL_CFLAGS = $(WARN) $(SANFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(SANFLAGS) $(LDFLAGS)
LIBS	 = $(PKG_LIBS) $(CULIBS) -lm -lpthread

SRCS	 = $(wildcard src/*.c)
CUSRCS	 = $(wildcard src/*.cu)
OBJS	 = $(SRCS:src/%.c=$(BUILD)/%.o)
LIBOBJS	 = $(filter-out $(BUILD)/main.o,$(OBJS))
ifeq ($(CUDA),1)
CUOBJS	 = $(CUSRCS:src/%.cu=$(BUILD)/%.o)
endif
TESTS	 = $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/check_*.c))

.PHONY: all deps deps-fuzz need-build need-test demo check test unit e2e \
	conformance bench fuzz install emu-check gpu-check io-check uninstall \
	tsan-check \
	clean FORCE

# The binary: ./rladv, or BIN=PATH (make check's CUDA build for the GPU
# agreement test goes to its own directory, leaving ./rladv alone).
BIN	?= rladv

all: $(BIN)

# Packages are installed only here: make deps (what make and make check
# need), make deps-fuzz (clang, for fuzzing for time).  make demo and make
# check run make deps first; every other target only checks, and when a
# package is missing fails with the one line to run (scripts/deps.sh -n).
deps:
	@sh scripts/deps.sh build test isal

deps-fuzz:
	@sh scripts/deps.sh fuzz

need-build:
	@sh scripts/deps.sh -n build

need-test:
	@sh scripts/deps.sh -n build test

ifneq ($(filter demo check test,$(MAKECMDGOALS)),)
NEED_BUILD = deps
NEED_TEST = deps
else
NEED_BUILD = need-build
NEED_TEST = need-test
endif

# build/.mode is rewritten only when the build mode changes, so that
# ./rladv is relinked after make SANITIZE=1 or CUDA=1 and not otherwise.
ifeq ($(BIN),rladv)
BIN_MODE = build/.mode
endif

$(BIN): $(OBJS) $(CUOBJS) $(BIN_MODE)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $(OBJS) $(CUOBJS) $(LIBS)

build/.mode: FORCE
	@mkdir -p build; echo $(MODE) | cmp -s - $@ || echo $(MODE) > $@

$(BUILD)/%.o: src/%.c | $(NEED_BUILD)
	@mkdir -p $(BUILD)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/%.o: src/%.cu
	@mkdir -p $(BUILD)
	$(NVCC) $(CUFLAGS) -DRLADV_CUDA -D_GNU_SOURCE -Isrc $(CUARCH) \
	    -MMD -MP -c -o $@ $<

$(BUILD)/tests/%: tests/%.c $(LIBOBJS) $(CUOBJS) | $(NEED_TEST)
	@mkdir -p $(BUILD)/tests
	$(CC) $(ALL_CPPFLAGS) $(CHECK_CFLAGS) $(ALL_CFLAGS) -MMD -MP -o $@ $< \
	    $(LIBOBJS) $(CUOBJS) $(ALL_LDFLAGS) $(CHECK_LIBS) $(LIBS)

# check_options runs ./rladv end to end (--help to a full disk).
$(BUILD)/tests/check_options: rladv

# The CUDA backend without a GPU: the real src/*.cu files compiled by
# $(CXX) against tests/cuda_emu/cuda_runtime.h, a CPU emulation of the
# runtime that runs its kernels (blocks in turn, threads as fibers), and
# linked with a RLADV_CUDA build of the rest.  make check runs it through
# the GPU agreement test, so the kernels' indexing, launches and copies
# are tested on every machine; only real hardware can show their speed.
# MS_LAUNCH=64 cuts the MS-GRPO enumeration into launches of whole groups
# of about 64 blocks (65536 on a GPU), so the small inputs take its paths:
# many launches, several groups in one, a group past the size alone.
EMU	 = $(BUILD)/emu
EMU_OBJS = $(SRCS:src/%.c=$(EMU)/%.o) $(CUSRCS:src/%.cu=$(EMU)/%.o)
EMU_CXXFLAGS = -std=c++17 -O2 -g -Wall -Wextra -ffp-contract=off

$(EMU)/%.o: src/%.c | $(NEED_BUILD)
	@mkdir -p $(EMU)
	$(CC) $(ALL_CPPFLAGS) -DRLADV_CUDA $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(EMU)/%.o: src/%.cu | $(NEED_TEST)
	@mkdir -p $(EMU)
	$(CXX) -x c++ $(EMU_CXXFLAGS) $(SANFLAGS) -DRLADV_CUDA -D_GNU_SOURCE \
	    -DMS_LAUNCH=64 -Isrc -Itests/cuda_emu $(PKG_CFLAGS) -MMD -MP -c -o $@ $<

$(EMU)/rladv: $(EMU_OBJS)
	$(CXX) $(ALL_LDFLAGS) -o $@ $(EMU_OBJS) $(PKG_LIBS) -lm -lpthread

$(EMU)/selftest: tests/cuda_emu/selftest.cc | $(NEED_TEST)
	@mkdir -p $(EMU)
	$(CXX) $(EMU_CXXFLAGS) $(SANFLAGS) -Itests/cuda_emu -MMD -MP -o $@ $< \
	    $(ALL_LDFLAGS)

emu-check: $(EMU)/rladv $(EMU)/selftest
	@$(EMU)/selftest
	@sh tests/gpu_agree.sh --emulated $(EMU)/rladv

demo: rladv
	./rladv -a stratified --alpha 0.6 -g balanced --annotate \
	    samples/search_agent.jsonl | head -n 2 | cut -c 1-400
	@echo ...
	./rladv stats samples/search_agent.jsonl

unit: $(TESTS)
	@set -e; for t in $(TESTS); do echo "== $$t"; $$t; done

e2e: rladv
	@sh tests/e2e.sh ./rladv

conformance: rladv
	python3 tests/conformance/check.py ./rladv

# The GPU agreement test on a make CUDA=1 build of its own (./rladv stays
# the CPU build) where nvidia-smi lists a GPU and nvcc is there; one SKIP
# line otherwise (emu-check has run the backend's kernels on the CPU).
GPU_BIN	 = $(BUILD)/cuda/rladv
gpu-check:
	@if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then \
	    echo "SKIP gpu_agree: no GPU (nvidia-smi -L lists none)"; \
	elif ! command -v $(NVCC) >/dev/null 2>&1; then \
	    echo "SKIP gpu_agree: a GPU, but no $(NVCC) for make CUDA=1"; \
	else \
	    $(MAKE) --no-print-directory CUDA=1 BIN=$(GPU_BIN) $(GPU_BIN) && \
	    sh tests/gpu_agree.sh $(GPU_BIN); \
	fi

# Both gzip paths: make check builds the variant ./rladv is not (the
# ISA-L one where libisal is installed: make check's make deps installs
# it as root), runs its Check suites of the code that differs, and
# tests/io.sh compares the two binaries' bytes.
ifeq ($(ISAL),1)
GZ_OTHER = 0
GZ_DIR	 = $(GZ_BASE)/zlib
else
GZ_OTHER = 1
GZ_DIR	 = $(GZ_BASE)
endif
GZ_TESTS = $(GZ_DIR)/tests/check_gunzip $(GZ_DIR)/tests/check_gzout \
	   $(GZ_DIR)/tests/check_input
io-check: rladv
	@if [ $(GZ_OTHER) = 0 ] || pkg-config --exists libisal; then \
	    $(MAKE) --no-print-directory ISAL=$(GZ_OTHER) \
	    BIN=$(GZ_DIR)/rladv-gz $(GZ_DIR)/rladv-gz $(GZ_TESTS) && \
	    for t in $(GZ_TESTS); do echo "== $$t"; $$t || exit 1; done; fi
	@sh tests/io.sh ./rladv $(GZ_DIR)/rladv-gz

# -j's threads under ThreadSanitizer: a build of its own (make
# SANITIZE=thread), and the cases of tests/jobs.sh that take every path
# with threads (its quick set), where a race makes the threaded runs'
# messages and status differ from -j 1's.  .ci/run runs it; make check
# runs jobs.sh on the plain build.
TSAN_BIN = build/tsan/rladv
tsan-check:
	@$(MAKE) --no-print-directory SANITIZE=thread BIN=$(TSAN_BIN) \
	    $(TSAN_BIN)
	@TSAN_OPTIONS=halt_on_error=1:exitcode=66 \
	    sh tests/jobs.sh $(TSAN_BIN) quick

# Every test, one line each; a new test script gets a line here.  Fuzzing
# for time is not here: .ci/run does it (make fuzz-check).  What the tests
# build, they build on every core ($(J)) unless make was given -j itself;
# the tests run one after the other.
NPROC	 = $(shell nproc 2>/dev/null || echo 1)
J	 = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC))
check test: deps
	@$(MAKE) --no-print-directory $(J) rladv unit
	@sh tests/e2e.sh ./rladv
	@sh tests/errors.sh ./rladv
	@sh tests/faults.sh ./rladv
	@sh tests/hostile.sh ./rladv man/rladv.1
	@sh tests/stats_diff.sh ./rladv
	@sh tests/papers.sh ./rladv
	@sh tests/html.sh ./rladv
	@$(MAKE) --no-print-directory $(J) io-check
	@sh tests/shard.sh ./rladv
	@sh tests/jobs.sh ./rladv
	@sh tests/slurm.sh ./rladv
	@sh tests/help_synopsis.sh ./rladv man/rladv.1
	@sh tests/man_examples.sh ./rladv man/rladv.1
	@python3 tests/conformance/check.py ./rladv
	@$(MAKE) --no-print-directory $(J) fuzz-replay
	@sh tests/make_deps.sh
	@sh tests/broken_binary.sh
	@$(MAKE) --no-print-directory $(J) emu-check
	@$(MAKE) --no-print-directory $(J) gpu-check
	@python3 tests/presets/reference.py --verify
	@python3 tests/presets/reference.py --check ./rladv

# make bench: rladv against its baselines; make bench DEVICE=cuda (with a
# CUDA=1 build): CPU against GPU on large shards and exact MS-GRPO.
bench: rladv
	@if [ "$(DEVICE)" = cuda ]; then sh bench/gpu.sh ./rladv; \
	else sh bench/run.sh; fi

install: rladv
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANDIR)/man1
	install -m 755 rladv $(DESTDIR)$(PREFIX)/bin/rladv
	install -m 644 man/rladv.1 $(DESTDIR)$(MANDIR)/man1/rladv.1

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/rladv $(DESTDIR)$(MANDIR)/man1/rladv.1

clean:
	rm -rf build rladv

FORCE:

include fuzz/fuzz.mk

-include $(OBJS:.o=.d) $(CUOBJS:.o=.d) $(TESTS:=.d) $(EMU_OBJS:.o=.d) \
    $(EMU)/selftest.d
