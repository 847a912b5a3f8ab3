# The system benchmark (issue 6): frecd on the real kernel against perf, in
# one run. `sudo make bench` runs bench-core (bench/Makefile.inc) first, then
# this, which prints the table and writes $(OUTPUT)/bench.json.
# BENCH_ARGS passes options to bench/bench_system.py, e.g.
#   sudo make bench BENCH_ARGS="--rounds 15"
#   sudo make bench-system BENCH_ARGS="--only probes"

BENCH_PROBE_LOOP := $(OUTPUT)/bench/probe_loop
BENCH_ARGS ?=

# A frame pointer, so that the probed function starts with push %rbp (see
# bench/probe_loop.c); USDT needs <sys/sdt.h> from systemtap-sdt-dev.
$(BENCH_PROBE_LOOP): bench/probe_loop.c bench/system.mk | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fno-omit-frame-pointer $(WARNINGS) -o $@ $<

# perf is only needed here, so it is not in the common list.
bench-deps:
	$(Q)FREC_DEPS_EXTRA="linux-perf" sh scripts/deps.sh

bench-system: bench-deps bench-core $(OUTPUT)/frecd $(OUTPUT)/frec $(BENCH_PROBE_LOOP)
	$(Q)python3 bench/bench_system.py --output $(OUTPUT) $(BENCH_ARGS)

bench: bench-system

.PHONY: bench-deps bench-system
