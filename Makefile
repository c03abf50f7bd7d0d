# aops-harness build. `make` builds ./harness; `make test` runs the whole suite
# against the real local stack; `make setup` installs what the build, the stack
# and the checks need; `make demo` is the README's first command.

CC      ?= gcc
PKGS    := libcurl libmariadb libpcre2-8 liburing jansson libcgroup
CFLAGS  ?= -O2 -g
# snprintf truncation is how bounded buffers are meant to behave here, not a bug.
CFLAGS  += -std=gnu11 -Wall -Wextra -Werror -Wno-format-truncation -D_GNU_SOURCE -pthread \
           $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS  += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm -pthread
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
CFLAGS  += -DAOPS_GIT='"$(VERSION)"' -DAOPS_CC='"$(shell $(CC) --version | head -1)"'

# One folder per layer (README, "Layout"); cmd/main.c, the command table, is the only
# file that reaches every layer, and the only one outside the library.
LAYERS  := common containers workloads telemetry coordinator report
SRCS    := $(wildcard $(LAYERS:%=%/*.c) workloads/*/*.c) cmd/main.c
LIBSRCS := $(filter-out cmd/main.c,$(SRCS))
TESTS   := $(wildcard tests/unit/test_*.c)

OBJS     := $(LIBSRCS:%.c=build/rel/%.o)
ASANOBJS := $(LIBSRCS:%.c=build/asan/%.o)
UNITBINS := $(TESTS:tests/unit/%.c=build/asan/tests/%)

.PHONY: all asan bench-build setup demo test test-corpus test-v2 unit integration format clean stack-up stack-down
all: harness

harness: build/rel/cmd/main.o build/rel/libaops.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

build/rel/libaops.a: $(OBJS)
	@rm -f $@; ar rcs $@ $^

build/rel/%.o: %.c $(wildcard */*.h workloads/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

# AddressSanitizer + UBSan build of the harness and of the unit tests.
asan: build/asan/harness $(UNITBINS)

build/asan/harness: build/asan/cmd/main.o build/asan/libaops.a
	$(CC) $(CFLAGS) $(SAN) -o $@ $^ $(LDLIBS)

build/asan/libaops.a: $(ASANOBJS)
	@rm -f $@; ar rcs $@ $^

build/asan/%.o: %.c $(wildcard */*.h workloads/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) -c -o $@ $<

# --bmc ipmi:// loads FreeIPMI at run time (telemetry/freeipmi_abi.h); where its headers are
# installed, the power unit test checks the DCMI bytes and those declarations against them.
ifeq ($(shell pkg-config --exists libfreeipmi 2>/dev/null && echo y),y)
build/asan/tests/test_power: CFLAGS += -DAOPS_FREEIPMI
build/asan/tests/test_power: LDLIBS += $(shell pkg-config --libs libfreeipmi)
endif

build/asan/tests/%: tests/unit/%.c tests/unit/unit.h build/asan/libaops.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) $(LAYERS:%=-I%) -o $@ $< build/asan/libaops.a $(LDLIBS)

# The benchmarks' C drivers (bench/), built against the library with the
# layers' include paths: `make test` builds them too, so a moved header can
# no longer break one unnoticed.
BENCHBINS := $(patsubst bench/%.c,build/bench/%,$(wildcard bench/*.c)) build/bench/telemetry_overhead
bench-build: $(BENCHBINS)

build/bench/cmdtime: bench/cmdtime.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $<

build/bench/telemetry_overhead: bench/telemetry/overhead.c build/rel/libaops.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LAYERS:%=-I%) -o $@ $< build/rel/libaops.a $(LDLIBS)

# Linked --as-needed: the lean search command loads only the libraries it uses.
build/bench/search_lean: bench/search_lean.c build/rel/libaops.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LAYERS:%=-I%) -o $@ $< build/rel/libaops.a -Wl,--as-needed $(LDLIBS)

build/bench/%: bench/%.c build/rel/libaops.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LAYERS:%=-I%) -o $@ $< build/rel/libaops.a $(LDLIBS)

setup:
	scripts/setup

# Setup runs first in its own step: on a fresh machine pkg-config and the
# libraries only exist after it, and this Makefile reads their flags when parsed.
# The demo installs only what it needs (scripts/setup --demo); make setup, all.
demo:
	scripts/setup --demo
	$(MAKE) harness
	scripts/demo

# Unit tests (ASan/UBSan) and integration tests against the real stack.
# After `make demo` (which installs only the demo's part) the tests' tools are
# installed first; on a machine that has them, setup only checks (seconds).
test:
	scripts/setup
	$(MAKE) harness asan bench-build
	tests/run

# The ripgrep comparison on the real trees, every pattern (tens of minutes).
test-corpus: harness
	tests/run corpus

unit: asan
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
