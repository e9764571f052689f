# rladv - see README.md.  make, make demo, make check, make bench,
# make install (PREFIX, DESTDIR), make CUDA=1, make check SANITIZE=1.

PREFIX	?= /usr/local
MANDIR	?= $(PREFIX)/share/man
CC	?= cc
NVCC	?= nvcc
CFLAGS	?= -O2 -g
VERSION	 = 0.1.0

WARN	 = -std=c11 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
	   -Wmissing-prototypes -Wpointer-arith -Wno-sign-compare
PKGS	 = libcjson zlib
# Recursive (=) so that pkg-config runs after scripts/deps.sh has.
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

ALL_CPPFLAGS = -D_GNU_SOURCE -DRLADV_VERSION='"$(VERSION)"' $(CUDEF) \
	   -Isrc $(PKG_CFLAGS) $(CPPFLAGS)
ALL_CFLAGS = $(WARN) $(SANFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(SANFLAGS) $(LDFLAGS)
LIBS	 = $(PKG_LIBS) $(CULIBS) -lm -lpthread

SRCS	 = $(wildcard src/*.c)
OBJS	 = $(SRCS:src/%.c=$(BUILD)/%.o)
LIBOBJS	 = $(filter-out $(BUILD)/main.o,$(OBJS))
ifeq ($(CUDA),1)
CUOBJS	 = $(BUILD)/backend_cuda.o
endif
TESTS	 = $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/check_*.c))

.PHONY: all deps demo check test unit e2e conformance bench fuzz install \
	emu-check deps-cxx \
	uninstall clean FORCE

all: rladv

deps:
	@sh scripts/deps.sh

deps-cxx:
	@sh scripts/deps.sh cxx

rladv: $(OBJS) $(CUOBJS) build/.mode
	$(CC) $(ALL_LDFLAGS) -o $@ $(OBJS) $(CUOBJS) $(LIBS)

# Rewritten only when the build mode changes, so that ./rladv is relinked
# after make SANITIZE=1 or CUDA=1 and not otherwise.
build/.mode: FORCE | deps
	@mkdir -p build; echo $(MODE) | cmp -s - $@ || echo $(MODE) > $@

$(BUILD)/%.o: src/%.c | deps
	@mkdir -p $(BUILD)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/backend_cuda.o: src/backend_cuda.cu src/backend_cuda.h src/advmath.h \
    src/loss_weights.h src/kinds.h \
    src/advantage.h src/batch.h src/msgrpo.h src/diag.h
	@mkdir -p $(BUILD)
	$(NVCC) $(CUFLAGS) -DRLADV_CUDA -D_GNU_SOURCE -Isrc $(CUARCH) \
	    -c -o $@ $<

$(BUILD)/tests/%: tests/%.c $(LIBOBJS) $(CUOBJS) | deps
	@mkdir -p $(BUILD)/tests
	$(CC) $(ALL_CPPFLAGS) $(CHECK_CFLAGS) $(ALL_CFLAGS) -MMD -MP -o $@ $< \
	    $(LIBOBJS) $(CUOBJS) $(ALL_LDFLAGS) $(CHECK_LIBS) $(LIBS)

# check_options runs ./rladv end to end (--help to a full disk).
$(BUILD)/tests/check_options: rladv

# The CUDA backend without a GPU: the real src/backend_cuda.cu compiled by
# $(CXX) against tests/cuda_emu/cuda_runtime.h, a CPU emulation of the
# runtime that runs its kernels (blocks in turn, threads as fibers), and
# linked with a RLADV_CUDA build of the rest.  make check runs it through
# the GPU agreement test, so the kernels' indexing, launches and copies
# are tested on every machine; only real hardware can show their speed.
# MS_LAUNCH=64 cuts the MS-GRPO enumeration into launches of whole groups
# of about 64 blocks (65536 on a GPU), so the small inputs take its paths:
# many launches, several groups in one, a group past the size alone.
EMU	 = $(BUILD)/emu
EMU_OBJS = $(SRCS:src/%.c=$(EMU)/%.o) $(EMU)/backend_cuda.o
EMU_CXXFLAGS = -std=c++17 -O2 -g -Wall -Wextra -ffp-contract=off

$(EMU)/%.o: src/%.c | deps
	@mkdir -p $(EMU)
	$(CC) $(ALL_CPPFLAGS) -DRLADV_CUDA $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(EMU)/backend_cuda.o: src/backend_cuda.cu | deps deps-cxx
	@mkdir -p $(EMU)
	$(CXX) -x c++ $(EMU_CXXFLAGS) $(SANFLAGS) -DRLADV_CUDA -D_GNU_SOURCE \
	    -DMS_LAUNCH=64 -Isrc -Itests/cuda_emu $(PKG_CFLAGS) -MMD -MP -c -o $@ $<

$(EMU)/rladv: $(EMU_OBJS)
	$(CXX) $(ALL_LDFLAGS) -o $@ $(EMU_OBJS) $(PKG_LIBS) -lm -lpthread

$(EMU)/selftest: tests/cuda_emu/selftest.cc | deps deps-cxx
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
	python3 ../shared/conformance/check.py ./rladv

# Every test: Check suites, end-to-end scripts, the man page's promises,
# the conformance cases, the GPU agreement (skipped without a GPU; run on
# the CPU emulation of CUDA in any case), then
# each fuzz harness for FUZZ_TIME seconds (0: none).
check test: rladv unit
	@sh tests/e2e.sh ./rladv
	@sh tests/errors.sh ./rladv
	@sh tests/faults.sh ./rladv
	@sh tests/stats_diff.sh ./rladv
	@sh tests/help_synopsis.sh ./rladv man/rladv.1
	@sh tests/man_examples.sh ./rladv man/rladv.1
	@sh tests/gpu_agree.sh ./rladv
	@$(MAKE) --no-print-directory emu-check
	@if [ "$(FUZZ_TIME)" != 0 ]; then sh scripts/deps.sh fuzz && \
	    $(MAKE) --no-print-directory fuzz-check; fi
	python3 ../shared/conformance/check.py ./rladv
	python3 tests/presets/reference.py --verify

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

-include $(OBJS:.o=.d) $(TESTS:=.d) $(EMU_OBJS:.o=.d) $(EMU)/selftest.d
