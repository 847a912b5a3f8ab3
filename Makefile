# frec: a Linux flight recorder built on eBPF.
#
#   make run             (as root) install build deps, build, run frecd with its defaults
#   make test            (as root) install deps, build, run unit (ASan/UBSan), fuzz smoke
#                        and root integration tests
#   make                 build .output/frecd and .output/frec
#   make V=1             show the commands
#   sudo make bench      benchmarks (bench-core, bench-ir and bench-drain need no root)
#
# Everything is built into $(OUTPUT).

OUTPUT ?= .output
CC ?= gcc
CLANG ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
PKG_CONFIG ?= pkg-config
PREFIX ?= /usr/local
DESTDIR ?=
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux

FREC_VERSION := 0.1.0
ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
MULTIARCH := $(shell $(CC) -dumpmachine 2>/dev/null)

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

WARNINGS := -Wall -Wextra -Wno-unused-parameter -Wmissing-prototypes -Wstrict-prototypes
CFLAGS ?= -O2 -g
EXTRA_CFLAGS ?=
ALL_CFLAGS := $(CFLAGS) $(WARNINGS) -std=gnu11 -D_GNU_SOURCE \
	-DFREC_VERSION='"$(FREC_VERSION)"' -Iinclude -Isrc -I$(OUTPUT) $(EXTRA_CFLAGS)
# frecd's drain path runs through several files (ring.c, daemon.c,
# recorder.c, decode.c, encode.c): link-time optimisation lets them inline
# into each other, about 8% more events/s in bench-core. GCC only; fat
# objects, so that a link without it (the test programs) still works.
# `make LTO_FLAGS=` builds without.
ifneq ($(findstring Free Software Foundation,$(shell $(CC) --version 2>/dev/null)),)
LTO_FLAGS ?= -flto=auto -ffat-lto-objects
AR := gcc-ar
else
LTO_FLAGS ?=
AR := ar
endif
SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDLIBS_BPF = $(shell $(PKG_CONFIG) --libs libbpf 2>/dev/null || echo -lbpf) -lelf -llzma -lz
LDLIBS_CORE := -lzstd -lz -lpthread

CORE_SRCS := $(sort $(wildcard src/core/*.c))
FRECD_SRCS := $(sort $(wildcard src/frecd/*.c))
FRECD_LIB_SRCS := $(filter-out src/frecd/main.c,$(FRECD_SRCS))
TOOL_SRCS := $(sort $(wildcard tools/*.c))
TOOL_LIB_SRCS := $(filter-out tools/main.c,$(TOOL_SRCS))
BPF_SRCS := $(sort $(wildcard bpf/*.bpf.c))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
PROG_SRCS := $(sort $(wildcard tests/progs/*.c))
HEADERS := $(wildcard include/frec/*.h src/*/*.h tools/*.h)

obj = $(patsubst %.c,$(OUTPUT)/$(2)%.o,$(1))
CORE_OBJS := $(call obj,$(CORE_SRCS),)
FRECD_LIB_OBJS := $(call obj,$(FRECD_LIB_SRCS),)
TOOL_LIB_OBJS := $(call obj,$(TOOL_LIB_SRCS),)
SAN_CORE_OBJS := $(call obj,$(CORE_SRCS),san/)
SAN_FRECD_OBJS := $(call obj,$(FRECD_LIB_SRCS),san/)
SAN_TOOL_OBJS := $(call obj,$(TOOL_LIB_SRCS),san/)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.bpf.o,$(BPF_SRCS))
SKELS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS))
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(UNIT_SRCS))
PROG_BINS := $(patsubst tests/progs/%.c,$(OUTPUT)/tests/%,$(PROG_SRCS))

.DELETE_ON_ERROR:
.PHONY: all deps run test test-all test-unit test-integration test-golden test-fuzz fuzz \
	bench bench-core bench-ir bench-drain install uninstall clean test-vm lint-man progs

all: $(OUTPUT)/frecd $(OUTPUT)/frec

deps:
	$(Q)sh scripts/deps.sh

# The two commands of the README. Each installs what it needs first, then
# re-enters make so that pkg-config and friends are evaluated after the install.
run: deps
	$(Q)$(MAKE) --no-print-directory all
	./$(OUTPUT)/frecd $(FRECD_ARGS)

test: deps
	$(Q)$(MAKE) --no-print-directory test-all

test-all: all progs test-unit test-golden test-fuzz test-integration lint-man

$(OUTPUT) $(OUTPUT)/tests:
	$(Q)mkdir -p $@

# --- BPF -------------------------------------------------------------------
# vmlinux.h is generated at build time from the running kernel's BTF; CO-RE
# relocations make the objects run on other kernels with BTF.
$(OUTPUT)/vmlinux.h: | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)test -r $(VMLINUX_BTF) || { echo "no kernel BTF at $(VMLINUX_BTF): build on a kernel with CONFIG_DEBUG_INFO_BTF=y or set VMLINUX_BTF=FILE" >&2; exit 1; }
	$(Q)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@

$(OUTPUT)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) include/frec/record.h $(OUTPUT)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Iinclude -Ibpf -I$(OUTPUT) \
		-I/usr/include/$(MULTIARCH) -c $< -o $@

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# --- userspace -------------------------------------------------------------
$(OUTPUT)/%.o: %.c $(HEADERS) | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(LTO_FLAGS) -c $< -o $@

$(OUTPUT)/san/%.o: %.c $(HEADERS) | $(OUTPUT)
	$(call msg,CC-SAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -c $< -o $@

$(FRECD_LIB_OBJS) $(SAN_FRECD_OBJS) $(OUTPUT)/src/frecd/main.o: $(SKELS)

$(OUTPUT)/libfrec.a: $(CORE_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(OUTPUT)/libfrecd.a: $(FRECD_LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(OUTPUT)/libfrectools.a: $(TOOL_LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(OUTPUT)/san/libfrec.a: $(SAN_CORE_OBJS)
	$(Q)rm -f $@ && $(AR) rcs $@ $^
$(OUTPUT)/san/libfrecd.a: $(SAN_FRECD_OBJS)
	$(Q)rm -f $@ && $(AR) rcs $@ $^
$(OUTPUT)/san/libfrectools.a: $(SAN_TOOL_OBJS)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(OUTPUT)/frecd: $(OUTPUT)/src/frecd/main.o $(OUTPUT)/libfrecd.a $(OUTPUT)/libfrec.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LTO_FLAGS) $^ $(LDLIBS_BPF) $(LDLIBS_CORE) -o $@

$(OUTPUT)/frec: $(OUTPUT)/tools/main.o $(OUTPUT)/libfrectools.a $(OUTPUT)/libfrec.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LTO_FLAGS) $^ $(LDLIBS_CORE) -lelf -lm -o $@

# --- tests -----------------------------------------------------------------
# Unit tests: cmocka, built and run under ASan and UBSan.
$(OUTPUT)/tests/test_%: tests/unit/test_%.c $(wildcard tests/unit/*.h) $(OUTPUT)/san/libfrectools.a \
		$(OUTPUT)/san/libfrecd.a $(OUTPUT)/san/libfrec.a | $(OUTPUT)/tests
	$(call msg,TEST-CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -Itests/unit $< $(OUTPUT)/san/libfrectools.a \
		$(OUTPUT)/san/libfrecd.a $(OUTPUT)/san/libfrec.a -lcmocka $(LDLIBS_BPF) $(LDLIBS_CORE) -lm -o $@

# Test programs (workloads for the integration tests); tests/progs/Makefile.inc
# may add special rules (shared libraries, USDT, prologue variants).
-include tests/progs/Makefile.inc
$(OUTPUT)/tests/%: tests/progs/%.c | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) -O1 -g -Iinclude -o $@ $< -lpthread $(PROG_LDLIBS_$*)

progs: $(PROG_BINS) $(PROG_EXTRA)

test-unit: $(UNIT_BINS)
	$(Q)fail=0; for t in $(UNIT_BINS); do \
		echo "== $$t"; ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 $$t || fail=1; \
	done; exit $$fail

test-integration: all progs
	$(Q)OUTPUT=$(OUTPUT) sh tests/integration/run.sh $(TESTS)

# The tools' outputs on the fuzz corpus, byte for byte as recorded in
# tests/golden/outputs.sha256 (update it with GOLDEN=update when an output
# changes on purpose).
test-golden: $(OUTPUT)/frec
	$(Q)FREC=$(OUTPUT)/frec sh tests/golden/outputs.sh $(or $(GOLDEN),check)

-include tests/fuzz/Makefile.inc
-include bench/Makefile.inc
-include bench/system.mk
-include src/ops.mk
-include man/Makefile.inc
-include tests/vm/Makefile.inc

test-fuzz:
lint-man:

clean:
	$(call msg,CLEAN,$(OUTPUT))
	$(Q)rm -rf $(OUTPUT)
