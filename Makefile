# aops-harness build. `make` builds ./harness; `make test` runs the whole suite
# against the real local stack; `make setup` installs what the build, the stack
# and the checks need; `make demo` is the README's first command.
#
# Other builds go to a directory of their own, so ./harness and build/rel are
# never clobbered:
#   make ARCH=arm64 (or CROSS=aarch64-linux-gnu-)  build/arm64/harness for aarch64,
#       with Debian's cross gcc and the :arm64 -dev packages (scripts/setup --arm64);
#       `make test-arm64` runs its tests under qemu-user.
#   make SIMD=off   build/scalar/harness: the search's SSE2/AVX2/NEON scans compiled
#       out, the portable scalar code only (what an Arm build without NEON would
#       run; bench/search_simd compares the two).

# `make` alone builds the harness: the first rule in this file is the versioned
# objects' dependency on the stamp below, which without this would be the goal
# (a bare `make` built build/rel/result/provenance.o and nothing else).
.DEFAULT_GOAL := all

CC      ?= gcc
PKGS    := libcurl libmariadb libpcre2-8 liburing jansson libcgroup libcrypto
CFLAGS  ?= -O2 -g
PKG_CONFIG ?= pkg-config
B       := build
HARNESS_BIN := harness

ifeq ($(ARCH),arm64)
CROSS   ?= aarch64-linux-gnu-
endif
ifneq ($(CROSS),)
TRIPLET := $(patsubst %-,%,$(CROSS))
ifeq ($(ARCH),)
ARCH    := $(if $(filter aarch64-%,$(TRIPLET)),arm64,$(TRIPLET))
endif
ifeq ($(origin CC),default)
CC      := $(CROSS)gcc
endif
B       := build/$(ARCH)
# The target's .pc files only: Debian's multiarch ones, and libmariadb-dev's,
# which scripts/setup --arm64 unpacks into .local/$(ARCH) (it is not
# Multi-Arch: same, so installing libmariadb-dev:arm64 would remove the
# native libmariadb-dev).
PKG_CONFIG := PKG_CONFIG_LIBDIR=$(CURDIR)/.local/$(ARCH)/usr/lib/$(TRIPLET)/pkgconfig:/usr/lib/$(TRIPLET)/pkgconfig:/usr/share/pkgconfig PKG_CONFIG_SYSROOT_DIR= pkg-config
ifeq ($(filter clean,$(MAKECMDGOALS)),)
ifeq ($(shell $(PKG_CONFIG) --exists $(PKGS) 2>/dev/null && command -v $(CC) && echo ok),)
$(error no $(ARCH) cross-build here: $(CC) or the :$(ARCH) -dev packages are missing ($(PKGS)); run scripts/setup --arm64)
endif
endif
endif
# The target is aarch64: ARCH=arm64, or a native build on an Arm machine.
TARGET_ARM64 := $(if $(filter arm64,$(ARCH)),1,$(if $(CROSS),,$(filter aarch64,$(shell uname -m))))
ifneq ($(TARGET_ARM64),)
# ARMv8.0 with the CRC32 instructions: every 64-bit Arm server core has them
# (mandatory from v8.1; Cortex-A72, X-Gene, ThunderX and eMAG have them in
# v8.0), so CRC32C can use __crc32c* (arm_acle.h) or a target("+crc")
# function; a core without them is told by getauxval(AT_HWCAP) & HWCAP_CRC32.
# NEON (Advanced SIMD) is part of the arm64 baseline: chosen at compile time.
ARCHFLAGS := -march=armv8-a+crc
endif
ifeq ($(SIMD),off)
B       := $(B)-scalar
ifeq ($(B),build-scalar)
B       := build/scalar
endif
ARCHFLAGS += -DAOPS_SCALAR
endif
ifneq ($(B),build)
HARNESS_BIN := $(B)/harness
endif

# snprintf truncation is how bounded buffers are meant to behave here, not a bug.
# `override`: a CFLAGS or LDLIBS on the command line (make CFLAGS=-O0) adds to
# these, never drops them. Without -D_GNU_SOURCE, memmem and memrchr are
# implicitly declared as returning int and their pointers cut to 32 bits
# (the search's SIGSEGV of issue 28); without -Werror that is only a warning.
override CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Wno-format-truncation -D_GNU_SOURCE -pthread \
           $(ARCHFLAGS) $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
# Not -lcurl -lmariadb -lcrypto: common/*_dl.c load them on their first use (with their ~35
# dependencies they cost every start ~4.5 ms of CPU; `harness search` never needs them).
override LDLIBS += $(filter-out -lcurl -lmariadb -lcrypto,$(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)) -lm -pthread
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
COMMIT  := $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
# The flags the build was made with, for result.json's provenance (before the
# version macros, which would name themselves).
BUILD_FLAGS := $(subst ",,$(CFLAGS))
override CFLAGS += -DAOPS_GIT='"$(VERSION)"' -DAOPS_CC='"$(shell $(CC) --version | head -1)"' \
           -DAOPS_COMMIT='"$(COMMIT)"' -DAOPS_CFLAGS='"$(BUILD_FLAGS)"'
# Objects that name the version are rebuilt when it changes (a commit, or a
# tree becoming dirty), not only when their source does: a stamp that is
# rewritten only when its content differs.
$(shell mkdir -p build; echo '$(VERSION) $(COMMIT)' | cmp -s - build/version.stamp || echo '$(VERSION) $(COMMIT)' > build/version.stamp)
VERSIONED := result/provenance coordinator/rerun telemetry/inventory fleet/merge metrics/metrics cmd/main
$(foreach o,$(VERSIONED),$(B)/rel/$(o).o $(B)/asan/$(o).o): build/version.stamp

# One folder per layer (README, "Layout"); cmd/main.c, the command table, is the only
# file that reaches every layer, and the only one outside the library.
LAYERS  := common containers workloads telemetry result placement runtime metrics coordinator fleet report check
SRCS    := $(wildcard $(LAYERS:%=%/*.c) workloads/*/*.c) cmd/main.c
LIBSRCS := $(filter-out cmd/main.c,$(SRCS))
TESTS   := $(wildcard tests/unit/test_*.c)

OBJS     := $(LIBSRCS:%.c=$(B)/rel/%.o)
ASANOBJS := $(LIBSRCS:%.c=$(B)/asan/%.o)
UNITBINS := $(TESTS:tests/unit/%.c=$(B)/asan/tests/%)

.PHONY: all check-pkgs asan test-arm64 bench-build fuzz fuzz-build setup demo test test-corpus test-v2 unit integration format clean stack-up stack-down
all: $(HARNESS_BIN)

# The check a build makes of its libraries, as a target of its own: scripts/setup
# runs it (natively and with ARCH=arm64) before it says "ok", so setup never
# passes where the build would stop. For a cross build the check above already
# ran when this file was parsed.
check-pkgs:
	@command -v $(firstword $(CC)) >/dev/null || { echo "no compiler $(CC) here; run scripts/setup" >&2; exit 1; }
	@$(PKG_CONFIG) --exists $(PKGS) || { echo "pkg-config does not find all of $(PKGS) for $(or $(ARCH),the native build): missing $$(for p in $(PKGS); do $(PKG_CONFIG) --exists $$p || printf '%s ' $$p; done); run scripts/setup$(if $(ARCH), --arm64)" >&2; exit 1; }
	@echo "ok: $(CC) and pkg-config's $(PKGS) for $(or $(ARCH),the native build)"

$(HARNESS_BIN): $(B)/rel/cmd/main.o $(B)/rel/libaops.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(B)/rel/libaops.a: $(OBJS)
	@rm -f $@; ar rcs $@ $^

$(B)/rel/%.o: %.c $(wildcard */*.h workloads/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

# AddressSanitizer + UBSan build of the harness and of the unit tests.
asan: $(B)/asan/harness $(UNITBINS)

$(B)/asan/harness: $(B)/asan/cmd/main.o $(B)/asan/libaops.a
	$(CC) $(CFLAGS) $(SAN) -o $@ $^ $(LDLIBS)

$(B)/asan/libaops.a: $(ASANOBJS)
	@rm -f $@; ar rcs $@ $^

$(B)/asan/%.o: %.c $(wildcard */*.h workloads/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) -c -o $@ $<

# --bmc ipmi:// loads FreeIPMI at run time (telemetry/freeipmi_abi.h); where its headers are
# installed, the power unit test checks the DCMI bytes and those declarations against them.
ifeq ($(shell $(PKG_CONFIG) --exists libfreeipmi 2>/dev/null && echo y),y)
$(B)/asan/tests/test_power: CFLAGS += -DAOPS_FREEIPMI
$(B)/asan/tests/test_power: LDLIBS += $(shell $(PKG_CONFIG) --libs libfreeipmi)
endif

$(B)/asan/tests/%: tests/unit/%.c tests/unit/unit.h $(B)/asan/libaops.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) $(LAYERS:%=-I%) -o $@ $< $(B)/asan/libaops.a $(LDLIBS)

# Fuzzing (tests/fuzz/, README "Fuzzing"): each parser of input the harness does
# not control has a libFuzzer target, built with Debian's clang and its
# sanitizers. The library is compiled again for it with coverage
# instrumentation (-fsanitize=fuzzer-no-link) into build/fuzz, apart from the
# gcc builds. `make fuzz FUZZ_SECONDS=N` runs every target N seconds (make
# test: 10 s each); a crash's input is written to build/fuzz/crashes/.
FUZZ_CC   ?= $(firstword $(shell command -v clang-14 clang 2>/dev/null) clang)
FUZZ_SECONDS ?= 60
FUZZFLAGS := -O1 -g -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -pthread \
             $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null) -fno-omit-frame-pointer \
             -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZSRCS  := $(wildcard tests/fuzz/fuzz_*.c)
FUZZOBJS  := $(LIBSRCS:%.c=build/fuzz/obj/%.o)
FUZZBINS  := $(FUZZSRCS:tests/fuzz/%.c=build/fuzz/%)

fuzz-build: $(FUZZBINS)

fuzz: fuzz-build
	tests/fuzz/run $(FUZZ_SECONDS)

build/fuzz/obj/%.o: %.c $(wildcard */*.h workloads/*/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

build/fuzz/libaops.a: $(FUZZOBJS)
	@rm -f $@; ar rcs $@ $^

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h build/fuzz/libaops.a
	$(FUZZ_CC) $(FUZZFLAGS) -fsanitize=fuzzer $(LAYERS:%=-I%) -o $@ $< build/fuzz/libaops.a $(LDLIBS)

# The benchmarks' C drivers (bench/), built against the library with the
# layers' include paths: `make test` builds them too, so a moved header can
# no longer break one unnoticed.
BENCHBINS := $(patsubst bench/%.c,$(B)/bench/%,$(wildcard bench/*.c)) $(B)/bench/telemetry_overhead
bench-build: $(BENCHBINS)

$(B)/bench/cmdtime: bench/cmdtime.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $<

$(B)/bench/telemetry_overhead: bench/telemetry/overhead.c $(B)/rel/libaops.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LAYERS:%=-I%) -o $@ $< $(B)/rel/libaops.a $(LDLIBS)

# Linked --as-needed: the lean search command loads only the libraries it uses.
$(B)/bench/search_lean: bench/search_lean.c $(B)/rel/libaops.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LAYERS:%=-I%) -o $@ $< $(B)/rel/libaops.a -Wl,--as-needed $(LDLIBS)

$(B)/bench/%: bench/%.c $(B)/rel/libaops.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LAYERS:%=-I%) -o $@ $< $(B)/rel/libaops.a $(LDLIBS)

setup:
	scripts/setup

# The demo installs only what it needs, builds ./harness with a make of its own
# (on a fresh machine pkg-config and the libraries only exist after the
# packages, and this Makefile reads their flags when parsed), and runs; make
# setup installs everything.
demo:
	scripts/demo

# The builds of make test and make test-arm64 use every CPU (a clean one is four builds of
# the tree: release, ASan, the fuzz targets, the benches); the tests after them run alone.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

# Unit tests (ASan/UBSan) and integration tests against the real stack.
# After `make demo` (which installs only the demo's part) the tests' packages,
# tools and images are installed first; on a machine that has them, this only
# checks (seconds).
test:
	scripts/setup --tests
	$(MAKE) -j$(JOBS) harness asan bench-build fuzz-build
	tests/run

# The aarch64 build's tests under qemu-user (tests/arm64/run; README "Arm"): unit tests,
# the ripgrep comparison and a tiny run against the native stack. CI runs it as a step of
# its own (.ci/run). It installs its part of setup first (scripts/setup --arm64: the
# cross compiler, the :arm64 libraries, qemu-user-static; seconds when present).
test-arm64:
	scripts/setup --arm64
	$(MAKE) -j$(JOBS) harness
	$(MAKE) -j$(JOBS) ARCH=arm64 all asan
	tests/arm64/run

# The ripgrep comparison on the real trees, every pattern (tens of minutes).
test-corpus: harness
	tests/run corpus

unit: harness asan
	tests/run unit

integration: harness asan
	tests/run integration

# The cgroup layer on a real pure cgroup v2 kernel, in a qemu VM (this host is
# a v1/v2 hybrid): Debian's cloud kernel with cgroup_no_v1=all, fetched once
# into .local/vm. About 35 s with TCG.
test-v2: harness
	tests/vm/run-v2.sh

format:
	clang-format -i $(SRCS) $(wildcard */*.h workloads/*/*.h) $(TESTS)

clean:
	rm -rf build harness

-include $(OBJS:.o=.d)

# For scripts that build against the library (bench/): make -s print-LDLIBS
print-%:
	@echo $($*)
