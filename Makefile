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
# The sources that read RLADV_ISAL: the two gzip variants differ in these
# objects alone.  make io-check builds the variant ./rladv is not with
# GZ_REUSE naming ./rladv's objects, so that it compiles only these.
GZ_SRCS	:= $(shell grep -l RLADV_ISAL src/*.c)
ifdef GZ_REUSE
OBJS	 = $(filter-out $(GZ_SRCS:src/%.c=$(GZ_REUSE)/%.o), \
	   $(SRCS:src/%.c=$(GZ_REUSE)/%.o)) $(GZ_SRCS:src/%.c=$(BUILD)/%.o)
endif
LIBOBJS	 = $(filter-out %/main.o,$(OBJS))
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
# Of the C files, only those that read RLADV_CUDA, themselves or through a
# header that does, are compiled again for it; the rest are ./rladv's.
EMU	 = $(BUILD)/emu
CUDA_HDRS := $(notdir $(shell grep -l RLADV_CUDA src/*.h))
CUDA_SRCS := $(shell grep -l -e RLADV_CUDA $(CUDA_HDRS:%=-e '"%"') src/*.c)
EMU_OBJS = $(filter-out $(CUDA_SRCS:src/%.c=$(BUILD)/%.o),$(OBJS)) \
	   $(CUDA_SRCS:src/%.c=$(EMU)/%.o) $(CUSRCS:src/%.cu=$(EMU)/%.o)
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
	    --batch-key step samples/search_agent.jsonl | head -n 2 | \
	    cut -c 1-400
	@echo ...
	./rladv stats --batch-key step samples/search_agent.jsonl
	./rladv --from verl-agent samples/verl_agent_loop.jsonl | head -n 2 | \
	    sed 's/.*\("reward_score": [^,]*\).*\("advantage": [^,]*\).*/{... \1, ... \2, ...}/'

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
	    $(MAKE) --no-print-directory ISAL=$(GZ_OTHER) GZ_REUSE=$(BUILD) \
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

# Every test, a target each (check-NAME); a new test gets a target here
# and its name in CHECKS.  make check runs them on every core ($(J))
# unless make was given -j itself, each one's output printed whole when it
# ends (--output-sync) under a line "== NAME"; it fails when one fails.
# They start in this order: the long ones first, and slurm.sh, which waits
# on Slurm's daemons more than it works, before all.  Fuzzing for time is
# not here: .ci/run does it (make fuzz-check).
NPROC	 = $(shell nproc 2>/dev/null || echo 1)
J	 = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC))
CHECKS	 = slurm emu broken_binary html jobs papers stats_diff io shard \
	   hostile skip_random faults unit e2e errors realdata frameworks \
	   help_synopsis man_examples conformance fuzz-replay make_deps gpu \
	   presets limits oracle
SH_CHECKS = e2e errors faults skip_random stats_diff papers html shard jobs \
	   slurm realdata
MAN_CHECKS = hostile help_synopsis man_examples frameworks

# The tests call python3 hundreds of times: where it is a version
# manager's shim (pyenv's costs a tenth of a second of CPU a call before
# Python starts), the directory of the interpreter it runs goes first on
# their PATH.  Where python3 is the interpreter, PATH stays as it is.
check test: deps
	@py=$$(python3 -c 'import os, sys; \
	    print(os.path.dirname(sys.executable))' 2>/dev/null); \
	case $$(command -v python3) in "$$py"/python3) py= ;; esac; \
	PATH=$${py:+$$py:}$$PATH $(MAKE) --no-print-directory $(J) \
	    --output-sync=target $(CHECKS:%=check-%)

.PHONY: $(CHECKS:%=check-%)
$(SH_CHECKS:%=check-%): rladv
	@echo "== $(@:check-%=%)"; sh tests/$(@:check-%=%).sh ./rladv
$(MAN_CHECKS:%=check-%): rladv
	@echo "== $(@:check-%=%)"; sh tests/$(@:check-%=%).sh ./rladv man/rladv.1
check-unit: $(TESTS)
	@echo "== unit"; for t in $(TESTS); do echo "== $$t"; $$t || exit 1; \
	done
# The builds of their own start once ./rladv's objects, which they share,
# are there: two makes never write one file.
check-io: rladv
	@echo "== io"; $(MAKE) --no-print-directory io-check
check-emu: rladv
	@echo "== emu"; $(MAKE) --no-print-directory emu-check
check-gpu: rladv
	@echo "== gpu"; $(MAKE) --no-print-directory gpu-check
check-fuzz-replay: rladv
	@echo "== fuzz-replay"; $(MAKE) --no-print-directory fuzz-replay
check-conformance: rladv
	@echo "== conformance"; python3 tests/conformance/check.py ./rladv
check-make_deps: rladv
	@echo "== make_deps"; sh tests/make_deps.sh
check-broken_binary:
	@echo "== broken_binary"; sh tests/broken_binary.sh
check-presets: rladv
	@echo "== presets"; python3 tests/presets/reference.py --verify && \
	    python3 tests/presets/reference.py --check ./rladv && \
	    python3 tests/presets/reference.py --random ./rladv 10
check-limits:
	@echo "== limits"; sh tests/limits.sh
check-oracle: rladv
	@echo "== oracle"; python3 tests/oracle.py ./rladv 600 1 && \
	    python3 tests/oracle.py ./rladv 600 2 && \
	    python3 tests/scale.py ./rladv 300

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
