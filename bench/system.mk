# The system benchmark (issues 6 and 20): frecd on the real kernel against
# its floor (bench/floor.bpf.c), ftrace and perf, in one run. `sudo make bench` runs bench-core (bench/Makefile.inc) first, then
# this, which prints the table and writes $(OUTPUT)/bench.json.
# BENCH_ARGS passes options to bench/bench_system.py, e.g.
#   sudo make bench BENCH_ARGS="--rounds 15"
#   sudo make bench-system BENCH_ARGS="--only probes"
#   sudo make bench-system BENCH_ARGS="--quick"     (a minute or two, for development)

BENCH_PROBE_LOOP := $(OUTPUT)/bench/probe_loop
BENCH_FLOOR := $(OUTPUT)/bench/floor
BENCH_ARGS ?=

# A frame pointer, so that the probed function starts with push %rbp (see
# bench/probe_loop.c); USDT needs <sys/sdt.h> from systemtap-sdt-dev.
$(BENCH_PROBE_LOOP): bench/probe_loop.c bench/system.mk | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fno-omit-frame-pointer $(WARNINGS) -o $@ $<

# The floor programs (bench/floor.bpf.c) and their loader: the cheapest
# tp_btf programs on the same tracepoints, measured beside frecd's.
$(OUTPUT)/bench/floor.bpf.o: bench/floor.bpf.c $(OUTPUT)/vmlinux.h bench/system.mk
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I$(OUTPUT) \
		-I/usr/include/$(MULTIARCH) -c $< -o $@

$(OUTPUT)/bench/floor.skel.h: $(OUTPUT)/bench/floor.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name floor_bpf > $@

$(BENCH_FLOOR): bench/floor.c $(OUTPUT)/bench/floor.skel.h
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(WARNINGS) -I$(OUTPUT)/bench -o $@ $< $(LDLIBS_BPF)

# perf, redis-server and redis-benchmark are only needed here, so they are
# not in the common list.
bench-deps:
	$(Q)FREC_DEPS_EXTRA="linux-perf redis-server redis-tools" sh scripts/deps.sh

bench-system: bench-deps bench-core $(OUTPUT)/frecd $(OUTPUT)/frec $(BENCH_PROBE_LOOP) $(BENCH_FLOOR)
	$(Q)python3 bench/bench_system.py --output $(OUTPUT) $(BENCH_ARGS)

bench: bench-system

.PHONY: bench-deps bench-system
