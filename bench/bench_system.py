#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""frec system benchmark: frecd on the real kernel, against perf, in one run.

Run by `sudo make bench` (after bench-core). Needs root, perf (linux-perf),
.output/frecd, .output/frec and .output/bench/probe_loop.

  1. Overhead: `perf bench sched pipe` in paired rounds, each round running
     every configuration once in this order (--configs picks some):
     none; the floor programs (bench/floor.bpf.c through .output/bench/floor:
     tp_btf on sched_switch and sched_waking that returns at once, that
     reads bpf_ktime_get_boot_ns(), that also submits a 32-byte ringbuf
     record); B frecd at its defaults; T frecd with a runq> and an
     offcpu> trigger armed that never fire (TRIGGERS_ARMED); S frecd
     --stacks offcpu (every switch of the workload blocks in a pipe read,
     so every one takes both stacks: the worst case, one path again and
     again); ftrace (a tracefs instance of its own with both events on,
     overwriting, read by nobody); perf record of sched_switch and
     sched_waking; the same in perf's flight-recorder mode (--overwrite
     --switch-output=signal). Each slowdown is the median over rounds of
     the round's time divided by the same round's untraced time, with the
     distribution-free 95% interval of that median (order statistics; the
     whole range below 6 rounds). frecd's added cost (slowdown - 1) is
     printed over the floor clock program's, ftrace's and perf record's.
     Every tracer round must have recorded, or the bench stops: frecd at
     least a switch per loop (its exit summary); T both triggers armed,
     neither fired; S a stack for at least every other loop; ftrace's
     per-CPU entries + overrun; perf's samples; the floor programs' own
     counters (the empty one's run count in the BPF statistics round).
     One more B and S run each, with
     a snapshot at the end: the bytes each stack adds on disk (S's bytes
     less B's per sched event, over S's stacks), the stack table's distinct
     entries, and the share of the off-CPU time (frecd's own threads left
     out) that `frec report --offcpu` has a stack for. Then one more round
     each of frecd, frecd --stacks offcpu and five floor programs with
     the kernel's BPF statistics on (kernel.bpf_stats_enabled, restored
     after): the run time of the sched_switch and sched_waking programs
     per event (the kernel side of the overhead, which the daemon figure
     does not show), and, with --stacks offcpu, the same less the first,
     per captured stack; frecd once more without cgroups
     (--cgroup-hierarchy none), for what reading them costs. The floor
     programs here are the three above and
     two more that write frecd's own records (wide: the same fields, 96
     bytes a switch and 56 a waking; query: wide and frecd's fill query),
     so that the steps ring -> wide -> query -> frecd say what the
     record's size, the query and the rest of frecd's programs cost.
     The workload runs on one CPU (--cpu, default 0; taskset), frecd and
     perf wherever the scheduler puts them. Unpinned, where its two
     processes run decides the result: on a VM whose idle vCPUs halt, a
     wakeup sent to the other, idle CPU costs tens of microseconds, so the
     baseline swings twentyfold with whatever else keeps the CPUs busy, and
     a tracer's cost per event disappears in it.
  2. Daemon CPU per event: frecd's user+system time from ready to exit over
     the events it recorded, summed over the B rounds; and what that is over
     24 hours at the event rate of those rounds (a CPU's share). Beside it,
     the system time's share of frecd's CPU (rusage over its whole life,
     start-up included: the kernel's part of draining is in it).
  3. Drops during the B rounds (frecd's exit summary).
  4. Snapshot: frecd --max-size 64M with a window long enough to be bounded
     by bytes, filled by the same workload, then SIGUSR1: the time until the
     renamed file appears (polled every 1 ms) and frecd's own figure; drops
     and the largest gap between events around the write, read from a second
     snapshot; bytes per event on disk, in memory, and perf.data's.
     Then, on the same full window, workload running: `frec trigger` of a
     manual: trigger with a delay, the time from the trigger event's ts to
     the renamed file (polled every 1 ms), less the delay (TRIGGER_ROUNDS
     times, median and worst). Last, compress = zstd by SIGHUP and one
     more snapshot: its time and bytes per event (frecd's default stores
     the blocks; the figures above are the default's).
  5. Memory: frecd's VmHWM against window bytes + ring bytes.
  6. Probes: ns per call of a function (and a USDT site) with nothing
     attached, a uprobe, a uprobe + uretprobe, the USDT probe; cost per hit.
  7. The core replay benchmark's figures (bench-core.json), as core_* (the
     large mix, 256 CPUs and 100,000 threads, as core_large_*).
  8. Realistic workloads (--real), no tracer against frecd at its defaults
     in paired rounds (every other round frecd first): --real-rounds, then
     more until the 95% interval of the median slowdown is --real-ci wide
     (1%) or --real-minutes (10) have passed; the median slowdown, its
     interval and the rounds it took: `perf bench sched messaging`
     (hackbench) and redis-benchmark GET + SET against a redis-server of
     the bench's own, the client on --cpu, the server on the other CPU.

--quick is for development: 3 rounds of 200000 loops, 3 realistic rounds,
no triggers, stacks, snapshot nor probes.

Every figure is printed in a table and written to OUTPUT/bench.json.
"""
import argparse
import atexit
import json
import os
import re
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

MIB = 1 << 20

# The triggers the overhead's T rounds arm: thresholds no thread reaches, so
# that the figure is the cost of evaluating them on every switch and waking.
TRIGGERS_ARMED = ["runq>10s", "offcpu>10s"]
# The trigger whose latency the snapshot section measures.
TRIGGER_MANUAL = "bench"
TRIGGER_DELAY_S = 0.5
TRIGGER_SPEC = "manual:%s,delay=%gs,cooldown=0,max=100/h" % (TRIGGER_MANUAL, TRIGGER_DELAY_S)
TRIGGER_ROUNDS = 3

# The targets of DESIGN.md section 5 and issue 20: key -> (limit, "<=" or ">=").
# The added-cost ratios are frecd's (slowdown - 1) over the other's, from the
# same paired rounds; the realistic workloads', with an interval at most 1%
# wide, are met when it holds 1 or the slowdown is under 1.01 (verdict()).
REAL_CI_GOAL = 0.01     # the realistic workloads' interval, at most this wide
TARGETS = {
    "slowdown_frecd": (1.10, "<="),
    "frecd_over_floor_clock": (1.25, "<="),
    "frecd_over_ftrace": (0.55, "<="),
    "frecd_over_perf_record": (0.27, "<="),
    "slowdown_messaging_frecd": (1.01, "<="),
    "slowdown_redis_frecd": (1.01, "<="),
    "daemon_ns_per_event": (30, "<="),
    "drops": (0, "<="),
    "snapshot_ms": (100, "<="),
    "snapshot_lost": (0, "<="),
    "trigger_latency_ms": (100, "<="),
    "bytes_per_event_disk": (6, "<="),
    "bytes_per_event_mem": (12, "<="),
    "rss_over_budget_mib": (16, "<="),
    "core_events_per_sec": (20e6, ">="),
    "core_large_events_per_sec": (20e6, ">="),
    "core_large_bytes_per_event_disk": (8, "<="),
    "core_large_bytes_per_event_zstd": (8, "<="),
}


# Every process the bench starts, so that none outlives it: a tracer left
# running would slow down everything measured after it.
CHILDREN = []


def spawn(cmd, **kw):
    proc = subprocess.Popen(cmd, **kw)
    CHILDREN.append(proc)
    return proc


@atexit.register
def reap_children():
    for proc in CHILDREN:
        if proc.returncode is not None or proc.poll() is not None:
            continue
        try:
            if proc.args and "bench" in proc.args and "sched" in proc.args:
                os.killpg(proc.pid, signal.SIGKILL)   # and its forked child
            else:
                proc.terminate()
            proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()


def die(msg):
    print("bench: " + msg, file=sys.stderr)
    sys.exit(1)


def say(msg):
    print(msg, flush=True)


def median(xs):
    return statistics.median(xs) if xs else None


def boottime_ns():
    return time.clock_gettime_ns(time.CLOCK_BOOTTIME)


def proc_status(pid):
    """VmHWM, VmRSS, RssAnon, RssFile of pid, in bytes (missing ones 0)."""
    out = {}
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmHWM", "VmRSS", "RssAnon", "RssFile"):
                    out[k] = int(v.split()[0]) * 1024
    except OSError:
        pass
    return out


def proc_cpu_ns(pid):
    """On-CPU time of every live thread of pid (schedstat, ns precision)."""
    total = 0
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            try:
                with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                    total += int(f.read().split()[0])
            except OSError:
                pass
    except OSError:
        pass
    return total


def wait_for_line(path, regex, proc, timeout, what):
    """Wait until a line of the file at path matches regex; return the match."""
    pat = re.compile(regex)
    deadline = time.monotonic() + timeout
    while True:
        try:
            with open(path) as f:
                for line in f:
                    m = pat.search(line)
                    if m:
                        return m
        except OSError:
            pass
        if proc is not None and proc.poll() is not None:
            die("%s: the process exited (%s) before '%s'; its log: %s"
                % (what, proc.returncode, regex, path))
        if time.monotonic() > deadline:
            die("%s: '%s' not seen in %s after %d s" % (what, regex, path, timeout))
        time.sleep(0.002)


class Frecd:
    """One frecd process, its log, its CPU time and its exit summary."""

    def __init__(self, bin_path, args, log_path):
        self.log_path = log_path
        self.log = open(log_path, "w")
        self.socket = log_path + ".sock"
        args = ["--socket", self.socket, "--config", "/dev/null"] + args
        self.proc = spawn([bin_path] + args, stdout=self.log,
                          stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        wait_for_line(log_path, r"ready: pid", self.proc, 30, "frecd")
        self.cpu_at_ready_ns = proc_cpu_ns(self.proc.pid)
        self.status = {}

    @property
    def pid(self):
        return self.proc.pid

    def frec_status(self, frec):
        """`frec status --json` of this frecd, parsed."""
        out = subprocess.run([frec, "status", "--json", "--socket", self.socket],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if out.returncode != 0:
            die("frec status failed: " + out.stdout.strip()[-300:])
        return json.loads(out.stdout)

    def sample_memory(self):
        self.status = proc_status(self.pid)
        return self.status

    def stop(self):
        """SIGTERM; returns (cpu ns since ready, events, lost)."""
        self.sample_memory()
        self.proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 60
        while True:
            pid, st, ru = os.wait4(self.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                self.proc.kill()
                die("frecd did not exit within 60 s of SIGTERM; log: " + self.log_path)
            time.sleep(0.005)
        self.proc.returncode = os.waitstatus_to_exitcode(st)
        self.log.close()
        if self.proc.returncode != 0:
            die("frecd exited %d; log: %s" % (self.proc.returncode, self.log_path))
        cpu_ns = int((ru.ru_utime + ru.ru_stime) * 1e9) - self.cpu_at_ready_ns
        # the split of the whole life (start-up too): user, system seconds
        self.ru_user, self.ru_sys = ru.ru_utime, ru.ru_stime
        m = wait_for_line(self.log_path, r"recorded (\d+) events, (\d+) lost", None, 5,
                          "frecd summary")
        return max(cpu_ns, 0), int(m.group(1)), int(m.group(2))


class Perf:
    """perf record started with its events disabled and enabled through its
    control fifo, so that the workload starts only once perf records."""

    def __init__(self, extra, workdir, tag):
        self.dir = os.path.join(workdir, tag)
        os.makedirs(self.dir, exist_ok=True)
        ctl = os.path.join(self.dir, "ctl")
        ack = os.path.join(self.dir, "ack")
        for p in (ctl, ack):
            os.mkfifo(p)
        self.log_path = os.path.join(self.dir, "perf.log")
        self.log = open(self.log_path, "w")
        self.data = os.path.join(self.dir, "perf.data")
        cmd = ["perf", "record", "-e", "sched:sched_switch", "-e", "sched:sched_waking",
               "-a", "-o", self.data, "-D", "-1", "--control", "fifo:%s,%s" % (ctl, ack)] + extra
        self.proc = spawn(cmd, stdout=self.log, stderr=subprocess.STDOUT,
                          stdin=subprocess.DEVNULL)
        ackfd = os.open(ack, os.O_RDONLY | os.O_NONBLOCK)
        deadline = time.monotonic() + 30
        while True:  # ENXIO until perf has opened its end
            try:
                ctlfd = os.open(ctl, os.O_WRONLY | os.O_NONBLOCK)
                break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    die("perf record did not start; its log: " + self.log_path)
                time.sleep(0.005)
        os.write(ctlfd, b"enable\n")
        r, _, _ = select.select([ackfd], [], [], 30)
        if not r:
            die("perf record did not acknowledge 'enable'; its log: " + self.log_path)
        os.close(ctlfd)
        os.close(ackfd)

    def stop(self):
        """SIGINT; returns (bytes written, samples) of every perf.data* file."""
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=300)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            die("perf record did not stop; its log: " + self.log_path)
        self.log.close()
        size = sum(os.path.getsize(os.path.join(self.dir, f))
                   for f in os.listdir(self.dir) if f.startswith("perf.data"))
        with open(self.log_path) as f:
            text = f.read()
        samples = sum(int(n) for n in re.findall(r"\((\d+) samples\)", text))
        lost = sum(int(n) for n in re.findall(r"lost (\d+) chunks", text))
        if not samples:
            # The overwrite mode's dump does not say how many it wrote:
            # count what perf script reads back (one ring, a few MB).
            for f in os.listdir(self.dir):
                if f.startswith("perf.data"):
                    out = subprocess.run(["perf", "script", "-i", os.path.join(self.dir, f)],
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
                    samples += out.stdout.count(b"\n")
        shutil.rmtree(self.dir)
        return size, samples, lost


class Floor:
    """The floor programs (bench/floor.bpf.c) through their loader
    (.output/bench/floor): kind is empty, clock or ring."""

    def __init__(self, bin_path, kind, log_path):
        self.kind = kind
        self.log_path = log_path
        self.log = open(log_path, "w")
        self.proc = spawn([bin_path, kind], stdout=self.log, stderr=subprocess.STDOUT,
                          stdin=subprocess.DEVNULL)
        wait_for_line(log_path, r"^ready", self.proc, 30, "floor " + kind)

    def stop(self):
        """SIGTERM; returns the programs' counters {runs, records, full, consumed}."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            die("floor %s did not exit; its log: %s" % (self.kind, self.log_path))
        self.log.close()
        if self.proc.returncode != 0:
            die("floor %s exited %d; its log: %s" % (self.kind, self.proc.returncode, self.log_path))
        m = wait_for_line(self.log_path, r"runs (\d+) records (\d+) full (\d+) consumed (\d+)",
                          None, 5, "floor summary")
        return dict(zip(("runs", "records", "full", "consumed"), map(int, m.groups())))


TRACEFS = "/sys/kernel/tracing"
# Where the bench mounted tracefs itself (a fresh machine may have it
# unmounted), to unmount at exit; None when it used the system's.
TRACEFS_OWN = None


def tracefs_dir():
    """A mounted tracefs: the system's, or one the bench mounts on a
    directory of its own (and unmounts at exit), as the kernel-oracle test
    does. Dies with the fix when neither works."""
    global TRACEFS_OWN
    if os.path.isdir(os.path.join(TRACEFS, "instances")):
        return TRACEFS
    if TRACEFS_OWN is None:
        d = tempfile.mkdtemp(prefix="frec-bench-tracefs.")
        out = subprocess.run(["mount", "-t", "tracefs", "nodev", d], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
        if out.returncode != 0 or not os.path.isdir(os.path.join(d, "instances")):
            os.rmdir(d)
            die("tracefs is not mounted at %s and cannot be mounted (%s): a kernel with "
                "CONFIG_TRACING is needed for the ftrace comparison; leave it out with --configs"
                % (TRACEFS, out.stdout.strip() or "no instances directory"))
        TRACEFS_OWN = d
    return TRACEFS_OWN


class Ftrace:
    """The kernel's own ring: a tracefs instance of its own with sched_switch
    and sched_waking enabled, in overwrite mode like a flight recorder, read
    by nobody (trace-cmd start fails on kernels without the function tracer)."""

    def __init__(self, name):
        self.dir = os.path.join(tracefs_dir(), "instances", name)
        if os.path.isdir(self.dir):
            self.remove()
        os.mkdir(self.dir)
        INSTANCES.append(self)
        self.write("tracing_on", "0")
        for ev in ("sched_switch", "sched_waking"):
            self.write("events/sched/%s/enable" % ev, "1")
        self.write("tracing_on", "1")

    def write(self, rel, val):
        with open(os.path.join(self.dir, rel), "w") as f:
            f.write(val)

    def stats(self):
        """Sum over the CPUs of per_cpu/cpuN/stats: entries + overrun (the
        events the ring holds and those it overwrote)."""
        total = 0
        pc = os.path.join(self.dir, "per_cpu")
        for d in os.listdir(pc):
            with open(os.path.join(pc, d, "stats")) as f:
                for line in f:
                    k, _, v = line.partition(":")
                    if k.strip() in ("entries", "overrun"):
                        total += int(v.split()[0])
        return total

    def remove(self):
        try:
            self.write("tracing_on", "0")
            for ev in ("sched_switch", "sched_waking"):
                self.write("events/sched/%s/enable" % ev, "0")
        except OSError:
            pass
        for _ in range(50):      # EBUSY for a moment while a reader is open
            try:
                os.rmdir(self.dir)
                break
            except FileNotFoundError:
                break
            except OSError:
                time.sleep(0.1)
        if self in INSTANCES:
            INSTANCES.remove(self)

    def stop(self):
        self.write("tracing_on", "0")
        n = self.stats()
        self.remove()
        return n


# Every tracefs instance the bench made, so that none outlives it.
INSTANCES = []


@atexit.register
def remove_instances():
    for inst in list(INSTANCES):
        inst.remove()
    if TRACEFS_OWN is not None:
        subprocess.run(["umount", TRACEFS_OWN], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        try:
            os.rmdir(TRACEFS_OWN)
        except OSError:
            pass


def median_ci(xs, level=0.95):
    """(low, high): the distribution-free interval for the median from the
    order statistics (binomial ranks), the narrowest whose coverage is at
    least level, or the whole range when so few values cannot reach it."""
    xs = sorted(xs)
    n = len(xs)
    if n < 2:
        return (xs[0], xs[0]) if xs else (None, None)
    from math import comb
    best = (xs[0], xs[-1])
    for k in range(0, n // 2):
        # P(x_(k+1) <= median <= x_(n-k)) = 1 - 2 P(Bin(n, .5) <= k)
        tail = sum(comb(n, i) for i in range(k + 1)) / 2.0 ** n
        if 1 - 2 * tail >= level:
            best = (xs[k], xs[n - 1 - k])
        else:
            break
    return best


def ci_width(xs):
    """How wide the 95% interval of xs's median is (high - low), or
    infinity while there are too few values for an interval at all."""
    if len(xs) < 6:
        return float("inf")
    lo, hi = median_ci(xs)
    return hi - lo


def pinned(cpu, cmd):
    """cmd on one CPU (taskset), or anywhere when cpu is negative."""
    return cmd if cpu < 0 else ["taskset", "-c", str(cpu)] + cmd


def run_pipe(loops, cpu):
    """One `perf bench sched pipe` (both of its processes on cpu, see
    --cpu); returns its total time in seconds."""
    out = subprocess.run(pinned(cpu, ["perf", "bench", "sched", "pipe", "-l", str(loops)]),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    m = re.search(r"Total time:\s*([\d.]+)", out.stdout)
    if out.returncode != 0 or not m:
        die("perf bench sched pipe failed: " + out.stdout.strip()[-300:])
    return float(m.group(1))


# The overhead rounds' configurations, in the order each round runs them.
OVERHEAD_CFGS = ["none", "floor_empty", "floor_clock", "floor_ring", "frecd", "frecd_triggers",
                 "frecd_stacks", "ftrace", "perf_record", "perf_overwrite"]


def bench_overhead(a, res):
    """Sections 1-3: paired rounds, no tracer / the floor programs / frecd
    / ftrace / perf record / perf overwrite."""
    cfgs = [c for c in OVERHEAD_CFGS if c in a.cfgs]
    times = {c: [] for c in cfgs}
    cpu_ns = events = lost = 0
    ru_user = ru_sys = 0.0
    trig_events = trig_lost = 0
    stk_events = stk_lost = 0
    hwm = 0
    perf_bpe = []
    perf_lost = 0
    counts = {c: 0 for c in cfgs}
    say("overhead: %d rounds of `perf bench sched pipe -l %d`%s, order %s"
        % (a.rounds, a.loops, "" if a.cpu < 0 else " on CPU %d" % a.cpu, " ".join(cfgs)))
    for rnd in range(a.rounds):
        line = []
        for c in cfgs:
            tracer = None
            if c.startswith("floor_"):
                tracer = Floor(a.floor, c[6:], os.path.join(a.work, "%s-%d.log" % (c, rnd)))
            elif c == "ftrace":
                tracer = Ftrace("frec-bench")
            elif c == "frecd":
                tracer = Frecd(a.frecd, ["-o", os.path.join(a.work, "snap-overhead")],
                               os.path.join(a.work, "frecd-overhead-%d.log" % rnd))
            elif c == "frecd_triggers":
                args = ["-o", os.path.join(a.work, "snap-overhead")]
                for spec in TRIGGERS_ARMED:
                    args += ["--trigger", spec]
                tracer = Frecd(a.frecd, args,
                               os.path.join(a.work, "frecd-triggers-%d.log" % rnd))
            elif c == "frecd_stacks":
                tracer = Frecd(a.frecd, ["-o", os.path.join(a.work, "snap-stacks"),
                                         "--stacks", "offcpu"],
                               os.path.join(a.work, "frecd-stacks-%d.log" % rnd))
            elif c == "perf_record":
                tracer = Perf([], a.work, "perf-%d" % rnd)
            elif c == "perf_overwrite":
                tracer = Perf(["--overwrite", "--switch-output=signal"], a.work, "perfow-%d" % rnd)
            time.sleep(a.settle)
            t = run_pipe(a.loops, a.cpu)
            times[c].append(t)
            if c == "frecd":
                ns, ev, lo = tracer.stop()
                hwm = max(hwm, tracer.status.get("VmHWM", 0))
                cpu_ns += ns
                ru_user += tracer.ru_user
                ru_sys += tracer.ru_sys
                events += ev
                lost += lo
                check_recorded(c, rnd, ev, a.loops)
            elif c == "frecd_stacks":
                st = tracer.frec_status(a.frec).get("stacks") or {}
                _, ev, lo = tracer.stop()
                stk_events += ev
                stk_lost += lo
                check_recorded(c, rnd, ev, a.loops)
                if st.get("captured", 0) < a.loops:
                    die("round %d: frecd --stacks offcpu captured %s stacks for %d loops"
                        % (rnd + 1, st.get("captured"), a.loops))
            elif c == "frecd_triggers":
                check_armed(tracer.frec_status(a.frec), rnd)
                _, ev, lo = tracer.stop()
                trig_events += ev
                trig_lost += lo
                check_recorded(c, rnd, ev, a.loops)
            elif c.startswith("floor_"):
                n = tracer.stop()
                # empty counts nothing: its run count is checked in the
                # BPF statistics round (bpfcost).
                got = {"floor_empty": None, "floor_clock": n["runs"],
                       "floor_ring": n["consumed"]}[c]
                if got is not None and got < a.loops:
                    die("round %d: %s ran %d times (records consumed) for %d loops of sched pipe"
                        % (rnd + 1, c, got, a.loops))
                if c == "floor_ring" and n["full"]:
                    die("round %d: floor_ring found its ring full %d times: its records were not "
                        "all written" % (rnd + 1, n["full"]))
                counts[c] += got or 0
            elif c == "ftrace":
                n = tracer.stop()
                if n < a.loops:
                    die("round %d: ftrace holds and overwrote %d events (entries + overrun) for "
                        "%d loops of sched pipe: it did not record" % (rnd + 1, n, a.loops))
                counts[c] += n
            elif tracer is not None:
                size, samples, plost = tracer.stop()
                counts[c] += samples
                perf_lost += plost
                # The overwrite mode keeps only what its ring holds at the end.
                need = a.loops if c == "perf_record" else 1
                if samples < need:
                    die("round %d: %s recorded %d samples for %d loops of sched pipe"
                        % (rnd + 1, c, samples, a.loops))
                if c == "perf_record" and samples:
                    perf_bpe.append(size / samples)
            line.append("%s %.3f s" % (c, t))
        say("  round %d: %s" % (rnd + 1, ", ".join(line)))

    def ratios(c):
        return [t / b for t, b in zip(times[c], times["none"])]

    res["rounds"] = a.rounds
    res["pipe_loops"] = a.loops
    res["pipe_cpu"] = a.cpu
    res["overhead_configs"] = cfgs
    res["baseline_s"] = round(median(times["none"]), 4)
    for c in cfgs[1:]:
        lo, hi = median_ci(ratios(c))
        res["slowdown_" + c] = round(median(ratios(c)), 4)
        res["slowdown_%s_ci" % c] = [round(lo, 4), round(hi, 4)]
        res[c + "_s"] = round(median(times[c]), 4)
        res[c + "_recorded"] = counts[c]
    # The targets: frecd's added cost (slowdown - 1) against the
    # floor's, ftrace's and perf record's, all from the same rounds.
    for key, other in (("frecd_over_floor_clock", "floor_clock"), ("frecd_over_ftrace", "ftrace"),
                       ("frecd_over_perf_record", "perf_record")):
        if "frecd" in times and other in times:
            added = res["slowdown_" + other] - 1
            res[key] = round((res["slowdown_frecd"] - 1) / added, 3) if added > 0 else None
    res["frecd_added_cost_fraction"] = res.get("frecd_over_perf_record")
    res["daemon_cpu_s"] = round(cpu_ns / 1e9, 3)
    res["daemon_events"] = events
    res["daemon_ns_per_event"] = round(cpu_ns / events, 1) if events else None
    if ru_user + ru_sys > 0:
        res["daemon_sys_share"] = round(ru_sys / (ru_user + ru_sys), 3)
    res["frecd_events_per_sec"] = round(events / sum(times["frecd"])) if events else None
    res["drops"] = lost
    daemon_projection(res)
    if "frecd_triggers" in times and "frecd" in times:
        res["triggers_armed"] = TRIGGERS_ARMED
        # The triggers' own cost: each round's T time over its B time.
        res["slowdown_triggers_over_frecd"] = round(
            median([t / b for t, b in zip(times["frecd_triggers"], times["frecd"])]), 4)
        res["triggers_events"] = trig_events
        res["triggers_drops"] = trig_lost
    if "frecd_stacks" in times and "frecd" in times:
        res["slowdown_stacks_over_frecd"] = round(
            median([t / b for t, b in zip(times["frecd_stacks"], times["frecd"])]), 4)
        res["stacks_events"] = stk_events
        res["stacks_drops"] = stk_lost
        stack_figures(a, res)
    res["perf_data_bytes_per_event"] = round(median(perf_bpe), 1) if perf_bpe else None
    res["perf_lost_chunks"] = perf_lost
    res["overhead_rss_peak_mib"] = round(hwm / MIB, 1)


def daemon_projection(res):
    """frecd's CPU over a day at the event rate the frecd rounds measured:
    the share of one CPU is events/s x CPU per event (the sched pipe rate,
    the worst case; a quieter machine scales it down)."""
    ns, rate = res.get("daemon_ns_per_event"), res.get("frecd_events_per_sec")
    if not ns or not rate:
        return
    share = rate * ns / 1e9
    res["daemon_cpu_share"] = round(share, 4)
    res["daemon_cpu_hours_24h"] = round(share * 24, 2)


def stack_figures(a, res):
    """One more B and S run each (not timed), with a snapshot at the end."""
    snaps = {}
    for c, extra in (("frecd", []), ("frecd_stacks", ["--stacks", "offcpu"])):
        d = os.path.join(a.work, "snap-figures-" + c)
        fd = Frecd(a.frecd, ["-o", d] + extra, os.path.join(a.work, "frecd-figures-%s.log" % c))
        time.sleep(a.settle)
        run_pipe(a.loops, a.cpu)
        snaps[c] = (take_snapshot(fd, d)[0], fd.frec_status(a.frec), fd.pid)
        fd.stop()
    (bpath, _, _), (spath, sst, spid) = snaps["frecd"], snaps["frecd_stacks"]
    bi, si = frec_info(a.frec, bpath), frec_info(a.frec, spath)
    nstk = si["events_by_type"].get("stack", 0)
    if not nstk:
        die("the --stacks offcpu snapshot holds no stack")
    per_sched = os.path.getsize(bpath) / max(sched_events(bi), 1)
    extra = os.path.getsize(spath) - per_sched * sched_events(si)
    res["stack_bytes_disk"] = round(extra / nstk, 2)
    res["stacks_in_snapshot"] = nstk
    res["stacks_distinct"] = sum(g.get("nstacks", 0) for g in si.get("stack_tables", []))
    st = sst.get("stacks") or {}
    for k in ("captured", "unstored", "orphaned", "capture_errors"):
        res["stacks_" + k] = st.get(k)
    # The share of the off-CPU time with a stack, frecd's own threads left
    # out: it takes no stack of them (their blocks are its loop's waits).
    def report(*args):
        out = subprocess.run([a.frec, "report", "--offcpu", "--json"] + list(args) + [spath],
                             stdout=subprocess.PIPE, text=True)
        if out.returncode != 0:
            die("frec report --offcpu %s failed (exit %d)" % (" ".join(args), out.returncode))
        return json.loads(out.stdout)
    every, own = report(), report("--pid", str(spid))
    tot = every.get("offcpu_total_ns", 0) - own.get("offcpu_total_ns", 0)
    with_stack = every.get("offcpu_with_stack_ns", 0) - own.get("offcpu_with_stack_ns", 0)
    if tot:
        res["stacks_offcpu_share"] = round(with_stack / tot, 4)


def check_recorded(cfg, rnd, events, loops):
    """A frecd round that recorded less than a switch per loop measured
    nothing: a slowdown from it would be a lie."""
    if events < loops:
        die("round %d: %s recorded %d events for %d loops of sched pipe" % (rnd + 1, cfg, events, loops))


def check_armed(status, rnd):
    """The T rounds: every armed trigger is in frec status, none fired."""
    trig = status.get("triggers")
    if not isinstance(trig, list) or len(trig) != len(TRIGGERS_ARMED):
        die("round %d: frec status lists %s triggers, expected %d (%s)"
            % (rnd + 1, "no" if not isinstance(trig, list) else len(trig), len(TRIGGERS_ARMED),
               " ".join(TRIGGERS_ARMED)))
    fired = [t.get("name") for t in trig if t.get("fired")]
    if fired:
        die("round %d: the armed triggers fired (%s): their thresholds are meant to be out of reach"
            % (rnd + 1, ", ".join(map(str, fired))))


def bpf_prog_stats():
    """{id: (name, run_time_ns, run_cnt)} of the loaded BPF programs."""
    out = subprocess.run(["bpftool", "prog", "show", "-j"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    if out.returncode != 0:
        return {}
    return {p["id"]: (p.get("name", ""), p.get("run_time_ns", 0), p.get("run_cnt", 0))
            for p in json.loads(out.stdout)}


def bench_bpf_cost(a, res):
    """The kernel side: the average run time of frecd's sched_switch and
    sched_waking programs over one more round, with the kernel's BPF run-time
    statistics on for that round only (they add two clock reads a run). On
    this workload, this is what the benchmark waits for; frecd's own CPU runs
    on the other core."""
    path = "/proc/sys/kernel/bpf_stats_enabled"
    if not shutil.which("bpftool") or not os.path.exists(path):
        return
    with open(path) as f:
        old = f.read().strip()
    with open(path, "w") as f:
        f.write("1")
    try:
        runs = [("", ["frecd"]), ("_nocgroup", ["frecd", "--cgroup-hierarchy", "none"]),
                ("_stacks", ["frecd", "--stacks", "offcpu"])]
        runs += [("_floor_" + k, ["floor", k]) for k in ("empty", "clock", "ring", "wide", "query")]
        for tag, what in runs:
            if what[0] == "frecd" and "frecd" not in a.cfgs and tag in ("", "_nocgroup"):
                continue
            if tag == "_stacks" and "frecd_stacks" not in a.cfgs:
                continue
            before = set(bpf_prog_stats())
            log = os.path.join(a.work, "bpfcost%s.log" % tag)
            if what[0] == "frecd":
                fd = Frecd(a.frecd, ["-o", os.path.join(a.work, "snap-bpf")] + what[1:], log)
            else:
                fd = Floor(a.floor, what[1], log)
            time.sleep(a.settle)
            run_pipe(a.loops, a.cpu)
            progs = bpf_prog_stats()
            stacks = 0
            if what[0] == "frecd":
                stacks = (fd.frec_status(a.frec).get("stacks") or {}).get("captured", 0)
            fd.stop()
            seen = set()
            for pid, (name, ns, cnt) in progs.items():
                if pid in before or not cnt:
                    continue
                if "switch" in name:
                    seen.add("switch")
                    res["bpf_ns_per_switch" + tag] = round(ns / cnt, 1)
                    if tag == "_stacks" and stacks:
                        # the switches' time beyond the default's, per stack taken
                        res["bpf_ns_per_stack"] = round(
                            (ns - res.get("bpf_ns_per_switch", 0) * cnt) / stacks, 1)
                elif "waking" in name:
                    seen.add("waking")
                    res["bpf_ns_per_waking" + tag] = round(ns / cnt, 1)
            if seen != {"switch", "waking"}:
                die("bpfcost%s: the BPF statistics show no run of the %s program(s)"
                    % (tag, " and ".join(sorted({"switch", "waking"} - seen))))
    finally:
        with open(path, "w") as f:
            f.write(old)


def snapshot_files(d):
    try:
        return sorted(f for f in os.listdir(d) if f.endswith(".frec") and not f.startswith("."))
    except OSError:
        return []


# frecd's line: "snapshot DIR/NAME: E events, L lost, F bytes (R recorded), X ms",
# F the file's size (smaller than R with --compress zstd), R the window's
# bytes as recorded
SNAPSHOT_LINE = (r"snapshot \S+: (\d+) events, (\d+) lost, (\d+) bytes \((\d+) recorded\), "
                 r"([\d.]+) ms")


def snapshot_lines(fd):
    with open(fd.log_path) as f:
        return re.findall(SNAPSHOT_LINE, f.read())


def take_snapshot(fd, snapdir):
    """SIGUSR1, then poll snapdir every 1 ms for the renamed file. Returns
    (path, external ms, frecd's ms, frecd's bytes, boottime at signal,
    boottime when the file appeared)."""
    nlog = len(snapshot_lines(fd)) + 1    # every snapshot so far, triggers' too
    before = set(snapshot_files(snapdir))
    b0 = boottime_ns()
    t0 = time.monotonic_ns()
    os.kill(fd.pid, signal.SIGUSR1)
    deadline = t0 + 60 * 10**9
    while True:
        new = set(snapshot_files(snapdir)) - before
        if new:
            t1 = time.monotonic_ns()
            break
        if time.monotonic_ns() > deadline:
            die("no snapshot file 60 s after SIGUSR1; log: " + fd.log_path)
        time.sleep(0.001)
    b1 = boottime_ns()
    # frecd's own line (SNAPSHOT_LINE)
    deadline = time.monotonic() + 30
    while True:
        found = snapshot_lines(fd)
        if len(found) >= nlog:
            break
        if time.monotonic() > deadline:
            die("frecd logged no snapshot line; log: " + fd.log_path)
        time.sleep(0.002)
    ev, lo, fbytes, nbytes, ms = found[nlog - 1]
    return (os.path.join(snapdir, new.pop()), (t1 - t0) / 1e6, float(ms), int(nbytes), b0, b1)


def trigger_latency(a, fd, snapdir):
    """`frec trigger` of the manual: trigger (TRIGGER_SPEC) on a full
    window: the milliseconds from the trigger event's ts (in the snapshot)
    to the renamed file (polled every 1 ms), less the delay."""
    nlog = len(snapshot_lines(fd)) + 1
    before = set(snapshot_files(snapdir))
    client = spawn([a.frec, "trigger", TRIGGER_MANUAL, "--socket", fd.socket],
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 60
    while True:
        new = set(snapshot_files(snapdir)) - before
        if new:
            b1 = boottime_ns()
            break
        if time.monotonic() > deadline:
            die("no snapshot file 60 s after frec trigger; log: " + fd.log_path)
        time.sleep(0.001)
    try:
        out, _ = client.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        die("frec trigger %s did not exit 60 s after its snapshot" % TRIGGER_MANUAL)
    if client.returncode != 0:
        die("frec trigger %s failed: %s" % (TRIGGER_MANUAL, out.strip()[-300:]))
    path = os.path.join(snapdir, sorted(new)[0])
    # The snapshot holds every trigger record of the window (cooldown=0):
    # this one is the last, the one that fired (not an aggregate).
    dump = subprocess.Popen([a.frec, "dump", "--json", path], stdout=subprocess.PIPE)
    grep = subprocess.run(["grep", "-F", '"type":"trigger"'], stdin=dump.stdout,
                          stdout=subprocess.PIPE, text=True)
    dump.stdout.close()
    dump.wait()
    ts = []
    for line in grep.stdout.splitlines():
        ev = json.loads(line)
        if not ev.get("suppressed"):
            ts.append(ev["ts"])
    if not ts:
        die("the trigger's snapshot %s holds no trigger record" % path)
    # frecd's own time for the write, as for SIGUSR1: what of the latency
    # is the write itself (the same for any snapshot) and what the trigger's
    deadline = time.monotonic() + 30
    while len(snapshot_lines(fd)) < nlog:
        if time.monotonic() > deadline:
            die("frecd logged no line for the trigger's snapshot; log: " + fd.log_path)
        time.sleep(0.002)
    log_ms = float(snapshot_lines(fd)[nlog - 1][4])
    return (b1 - max(ts)) / 1e6 - TRIGGER_DELAY_S * 1e3, log_ms


def frec_info(frec, path):
    out = subprocess.run([frec, "info", "--json", path], stdout=subprocess.PIPE, text=True)
    if out.returncode != 0:
        die("frec info %s failed (exit %d)" % (path, out.returncode))
    return json.loads(out.stdout)


def gaps_and_lost(frec, path, before, during):
    """From `frec dump`: for two boottime intervals (lo, hi) in ns, the
    events, the largest gap between consecutive events (all CPUs) and the
    records lost. The first interval is the steady workload's own baseline."""
    awk = r"""
    { split($1, t, "."); ts = t[1] * 1e9 + t[2] }
    ts < lo0 { next }
    ts > hi1 { exit }
    { k = ts <= hi0 ? 0 : (ts >= lo1 ? 1 : -1) }
    k < 0 { next }
    { n[k]++; if (n[k] > 1 && ts - prev[k] > gap[k]) gap[k] = ts - prev[k]; prev[k] = ts }
    $3 == "lost" { for (i = 4; i <= NF; i++) if ($i ~ /^count=/) { sub(/count=/, "", $i); lost[k] += $i } }
    END { for (k = 0; k < 2; k++) printf "%d %d %d\n", n[k], gap[k], lost[k] }
    """
    dump = subprocess.Popen([frec, "dump", path], stdout=subprocess.PIPE)
    out = subprocess.run(["awk", "-v", "lo0=%d" % before[0], "-v", "hi0=%d" % before[1],
                          "-v", "lo1=%d" % during[0], "-v", "hi1=%d" % during[1], awk],
                         stdin=dump.stdout, stdout=subprocess.PIPE, text=True)
    dump.stdout.close()
    dump.kill()
    dump.wait()
    return [tuple(int(x) for x in line.split()) for line in out.stdout.splitlines()]


def sched_events(info):
    return sum(v for k, v in info["events_by_type"].items() if k.startswith("sched_"))


def write_reference(d, nbytes):
    """What the machine itself takes to write nbytes as a snapshot does: a
    new file, 64 KiB buffers, one writev a thousand of them, fsync, rename,
    fsync of the directory. A new file needs new page cache pages: on a VM
    whose host takes freed guest memory back, touching them is most of it."""
    bufs = [bytes([i & 0xff]) * 65536 for i in range(nbytes // 65536)]
    tmp, final = os.path.join(d, ".reference.tmp"), os.path.join(d, "reference")
    t0 = time.monotonic()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    for i in range(0, len(bufs), 1024):
        os.writev(fd, bufs[i:i + 1024])
    os.fsync(fd)
    os.close(fd)
    os.rename(tmp, final)
    dfd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
    os.fsync(dfd)
    os.close(dfd)
    return (time.monotonic() - t0) * 1e3


def write_conf(path, text):
    """frecd's configuration file: root's, 0600, replaced whole."""
    tmp = path + ".new"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.write(fd, text.encode())
    os.close(fd)
    os.rename(tmp, path)


def bench_snapshot(a, res):
    """Sections 4-5: a 64 MiB window filled by real recording, then snapshots."""
    snapdir = os.path.join(a.work, "snap-full")
    max_bytes = 64 * MIB
    ring = 16 * MIB
    # The manual: trigger costs nothing until it is fired (frecd evaluates
    # it, not BPF), so it leaves the snapshot figures as they were. The
    # configuration file says only how snapshots are written: stored (the
    # default), then compress = zstd for one more snapshot at the end.
    conf = os.path.join(a.work, "frecd-snapshot.conf")
    write_conf(conf, "compress = none\n")
    fd = Frecd(a.frecd, ["-o", snapdir, "--max-size", "64M", "--window", "3600",
                         "--ring-size", "16M", "--trigger", TRIGGER_SPEC, "--config", conf],
               os.path.join(a.work, "frecd-snapshot.log"))
    say("snapshot: filling a 64 MiB window (at most %.0f s)" % a.max_fill)
    work = spawn(pinned(a.cpu, ["perf", "bench", "sched", "pipe", "-l", "2000000000"]),
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        # With --window 3600 only the size rule evicts: the first eviction
        # says the window is full; one more period, and it is full again.
        t0 = time.monotonic()
        while time.monotonic() - t0 < a.max_fill:
            if fd.frec_status(a.frec)["generations"]["evicted"] > 0:
                time.sleep(1.5)
                break
            time.sleep(0.25)
        res["snapshot_fill_s"] = round(time.monotonic() - t0, 1)
        mem = fd.frec_status(a.frec)["memory"]
        s1, ext_ms, log_ms, s1_bytes, sig_b, done_b = take_snapshot(fd, snapdir)
        # Keep the workload going past one more seal (period 1 s), so that
        # the second snapshot holds the whole time of the first one's write.
        time.sleep(2.5)
        s2 = take_snapshot(fd, snapdir)[0]
        trig_ms = []
        for _ in range(TRIGGER_ROUNDS):
            time.sleep(1.5)    # past a seal: the window is full of new events again
            trig_ms.append(trigger_latency(a, fd, snapdir))
        # The same full window written with --compress zstd (SIGHUP)
        write_conf(conf, "compress = zstd\n")
        os.kill(fd.pid, signal.SIGHUP)
        wait_for_line(fd.log_path, r"reloaded .*--compress zstd$", fd.proc, 30, "frecd reload")
        time.sleep(1.5)
        sz, zext_ms, zlog_ms, _, _, _ = take_snapshot(fd, snapdir)
        # and back to the default for the snapshot with the workload stopped
        write_conf(conf, "compress = none\n")
        os.kill(fd.pid, signal.SIGHUP)
        wait_for_line(fd.log_path, r"reloaded .*--compress none$", fd.proc, 30, "frecd reload")
    finally:
        os.killpg(work.pid, signal.SIGKILL)
        work.wait()
    # The same window written with the workload stopped: what the disk and
    # the copy cost without two busy CPUs competing with the writer thread.
    time.sleep(0.3)
    _, idle_ms, idle_log_ms, idle_bytes, _, _ = take_snapshot(fd, snapdir)
    status = fd.sample_memory()
    _, _, total_lost = fd.stop()
    res["write_64mib_ms"] = round(write_reference(snapdir, max_bytes), 1)

    i1 = frec_info(a.frec, s1)
    if s1_bytes < 0.9 * mem["window_max_bytes"]:
        say("bench: WARNING: the window held only %.1f MiB after %s s (--max-fill); the "
            "snapshot figures are for that size" % (s1_bytes / MIB, res["snapshot_fill_s"]))
    # The steady workload's own largest gap over the 1.5 s before the
    # signal, against the largest gap from 50 ms before the signal to one
    # drain interval (50 ms) and more after the file appeared.
    ms = 10**6
    (n0, gap0, lost0), (n, gap, lost) = gaps_and_lost(
        a.frec, s2, (sig_b - 1550 * ms, sig_b - 50 * ms), (sig_b - 50 * ms, done_b + 100 * ms))
    if n == 0 or n0 == 0:
        die("the second snapshot holds no event around the first one's write")
    sev = sched_events(i1)
    res["snapshot_ms"] = round(ext_ms, 1)
    res["snapshot_ms_log"] = round(log_ms, 1)
    res["snapshot_ms_idle"] = round(idle_ms, 1)
    res["snapshot_ms_idle_log"] = round(idle_log_ms, 1)
    res["snapshot_bytes"] = s1_bytes
    res["snapshot_file_bytes"] = i1["size"]
    res["snapshot_events"] = i1["events"]
    res["snapshot_window_s"] = round(i1["duration_ns"] / 1e9, 2)
    res["snapshot_lost"] = lost
    res["trigger_spec"] = TRIGGER_SPEC
    res["trigger_latency_ms"] = round(median([t for t, _ in trig_ms]), 1)
    res["trigger_latency_ms_max"] = round(max(t for t, _ in trig_ms), 1)
    res["trigger_write_ms_log"] = round(median([w for _, w in trig_ms]), 1)
    res["snapshot_max_gap_ms"] = round(gap / 1e6, 2)
    res["snapshot_max_gap_before_ms"] = round(gap0 / 1e6, 2)
    # A gap is suspicious when it is much longer than the workload's own.
    res["snapshot_gap_ok"] = gap <= max(10 * ms, 3 * gap0)
    res["snapshot_checked_events"] = n
    res["snapshot_phase_drops"] = total_lost
    res["bytes_per_event_disk"] = round(i1["size"] / sev, 2) if sev else None
    iz = frec_info(a.frec, sz)
    # Every file says the writer's format version, zstd blocks or not: a
    # zstd window is one whose blocks take fewer bytes than they hold.
    if not iz.get("raw_bytes") or iz.get("block_bytes", 0) >= iz["raw_bytes"]:
        die("the snapshot after compress = zstd is not compressed (%s bytes of blocks for %s)"
            % (iz.get("block_bytes"), iz.get("raw_bytes")))
    res["snapshot_zstd_ms"] = round(zext_ms, 1)
    res["snapshot_zstd_ms_log"] = round(zlog_ms, 1)
    zsev = sched_events(iz)
    res["bytes_per_event_disk_zstd"] = round(iz["size"] / zsev, 2) if zsev else None
    # Memory per event as frecd counts it: the chunks its window and open
    # generation hold over the events in them (frec status).
    res["bytes_per_event_mem"] = mem["bytes_per_event"]
    hwm = max(status.get("VmHWM", 0), fd.status.get("VmHWM", 0))
    res["rss_peak_mib"] = round(hwm / MIB, 1)
    res["rss_budget_mib"] = (max_bytes + ring) // MIB
    res["rss_over_budget_mib"] = round((hwm - max_bytes - ring) / MIB, 1)
    if a.keep:
        say("snapshots kept in " + snapdir)


def bench_probes(a, res):
    """Section 6: per-hit cost of a uprobe, a uprobe + uretprobe, a USDT probe."""
    loop = a.probe_loop
    cfgs = {
        "none": None,
        "uprobe": "uprobe:%s:frec_bench_target" % loop,
        "uprobe_uretprobe": "func:%s:frec_bench_target" % loop,
        "usdt": "usdt:%s:frec_bench:tick" % loop,
    }
    ns = {c: {"call": [], "usdt": []} for c in cfgs}
    say("probes: %d rounds of %d calls and %d USDT hits, order %s"
        % (a.probe_rounds, a.probe_k, a.probe_k, " ".join(cfgs)))
    for rnd in range(a.probe_rounds):
        for c, spec in cfgs.items():
            fd = None
            if spec:
                fd = Frecd(a.frecd, ["-o", os.path.join(a.work, "snap-probe"), "--probe", spec],
                           os.path.join(a.work, "frecd-probe-%s-%d.log" % (c, rnd)))
            out = subprocess.run([loop, str(a.probe_k)], stdout=subprocess.PIPE, text=True)
            if fd:
                fd.stop()
            vals = dict(line.split() for line in out.stdout.splitlines())
            if out.returncode != 0 or "call" not in vals:
                die("probe_loop failed: " + out.stdout)
            ns[c]["call"].append(float(vals["call"]))
            ns[c]["usdt"].append(float(vals["usdt"]))

    def per_hit(c, loop_name):
        return median([(x - b) / 1000 for x, b in zip(ns[c][loop_name], ns["none"][loop_name])])

    res["uprobe_us"] = round(per_hit("uprobe", "call"), 3)
    res["uprobe_uretprobe_us"] = round(per_hit("uprobe_uretprobe", "call"), 3)
    res["usdt_us"] = round(per_hit("usdt", "usdt"), 3)
    res["probe_baseline_call_ns"] = median(ns["none"]["call"])
    res["probe_note"] = ("per-hit probe costs depend on the machine and the kernel "
                         "(trap and emulation cost; much higher under emulation)")


REDIS_PORT = 6399


def run_messaging(a):
    """One `perf bench sched messaging` (hackbench: groups of senders and
    receivers over sockets, anywhere); returns its total time in seconds."""
    out = subprocess.run(["perf", "bench", "sched", "messaging", "-g", str(a.msg_groups),
                          "-l", str(a.msg_loops)],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    m = re.search(r"Total time:\s*([\d.]+)", out.stdout)
    if out.returncode != 0 or not m:
        die("perf bench sched messaging failed: " + out.stdout.strip()[-300:])
    return float(m.group(1))


def run_redis(a):
    """redis-benchmark GET and SET against the bench's redis-server, the
    client on --cpu, the server on the other CPU; returns the seconds the
    requests took (requests over each test's rate, summed)."""
    out = subprocess.run(pinned(a.cpu, ["redis-benchmark", "-p", str(REDIS_PORT), "-t", "set,get",
                                        "-n", str(a.redis_requests), "-q", "--csv"]),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    rates = dict(re.findall(r'^"(SET|GET)","([\d.]+)"', out.stdout, re.M))
    if out.returncode != 0 or len(rates) != 2:
        die("redis-benchmark failed: " + out.stdout.strip()[-300:])
    return sum(a.redis_requests / float(r) for r in rates.values())


def start_redis(a):
    if not shutil.which("redis-server") or not shutil.which("redis-benchmark"):
        die("redis-server or redis-benchmark is missing: run make bench-deps (it installs "
            "redis-server and redis-tools)")
    other = 1 if a.cpu != 1 else 0
    log = os.path.join(a.work, "redis.log")
    proc = spawn(pinned(other, ["redis-server", "--port", str(REDIS_PORT), "--bind", "127.0.0.1",
                                "--save", "", "--appendonly", "no", "--dir", a.work,
                                "--logfile", log]),
                 stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while subprocess.run(["redis-cli", "-p", str(REDIS_PORT), "ping"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True).stdout.strip() != "PONG":
        if proc.poll() is not None or time.monotonic() > deadline:
            die("redis-server did not start; its log: " + log)
        time.sleep(0.1)
    return proc


def traced_run(a, name, rnd, run):
    """One run of a realistic workload under frecd at its defaults."""
    fd = Frecd(a.frecd, ["-o", os.path.join(a.work, "snap-" + name)],
               os.path.join(a.work, "frecd-%s-%d.log" % (name, rnd)))
    time.sleep(a.settle)
    t = run(a)
    _, ev, _ = fd.stop()
    if ev < 1000:
        die("%s round %d: frecd recorded %d events" % (name, rnd + 1, ev))
    return t


def bench_realistic(a, res):
    """Section 8: workloads that do more than switch: hackbench (perf bench
    sched messaging) and redis GET/SET, no tracer against frecd at its
    defaults in paired rounds (--real-rounds), each with the interval of
    the median slowdown."""
    loads = [("messaging", run_messaging), ("redis", run_redis)]
    loads = [(n, f) for n, f in loads if n in a.real]
    redis = start_redis(a) if any(n == "redis" for n, _ in loads) else None
    try:
        for name, run in loads:
            say("%s: at least %d paired rounds, none frecd%s" % (
                name, a.real_rounds,
                ", more until the interval is %.1f%% wide or %.0f min have passed"
                % (100 * a.real_ci, a.real_minutes) if a.real_ci > 0 else ""))
            run(a)      # warm: the first run pays for page faults and caches
            rat = []
            t_end = time.monotonic() + 60 * a.real_minutes
            rnd = 0
            while rnd < a.real_rounds or (a.real_ci > 0 and time.monotonic() < t_end and
                                           ci_width(rat) > a.real_ci):
                # Every other round frecd first: a drift of the machine
                # (caches, another job) then falls on both sides alike.
                if rnd % 2:
                    t1 = traced_run(a, name, rnd, run)
                    t0 = run(a)
                else:
                    t0 = run(a)
                    t1 = traced_run(a, name, rnd, run)
                rat.append(t1 / t0)
                rnd += 1
                if a.verbose:
                    say("  round %d: none %.3f s, frecd %.3f s" % (rnd, t0, t1))
            lo, hi = median_ci(rat)
            width = ci_width(rat)
            res["slowdown_%s_frecd" % name] = round(median(rat), 4)
            res["slowdown_%s_frecd_ci" % name] = [round(lo, 4), round(hi, 4)]
            res["%s_rounds" % name] = rnd
            say("  %s: %d paired rounds, median %.4f, interval [%.4f, %.4f] (%.1f%% wide%s)" % (
                name, rnd, median(rat), lo, hi, 100 * width,
                "" if a.real_ci <= 0 or width <= a.real_ci
                else ", not %.1f%%: the time ran out" % (100 * a.real_ci)))
    finally:
        if redis is not None:
            redis.terminate()
            redis.wait(timeout=10)


def merge_core(a, res):
    try:
        with open(a.core_json) as f:
            core = json.load(f)
    except (OSError, ValueError) as e:
        say("bench-core results not found (%s): run make bench-core" % e)
        return
    for k, v in core.items():
        res["core_" + k] = v
    # The large mix (256 CPUs, 100,000 threads) is an object of its own.
    for k, v in core.get("large", {}).items():
        res["core_large_" + k] = v


def verdict(key, res):
    if key not in TARGETS or res.get(key) is None:
        return ""
    limit, op = TARGETS[key]
    v = res[key]
    ok = v <= limit if op == "<=" else v >= limit
    ci = res.get(key + "_ci")
    # A realistic workload's figure says something only with an interval
    # as narrow as the issue asks (1%): then no cost at all within it, or a
    # median under the limit, is met.
    if key.endswith("_frecd") and ci:
        if ci[1] - ci[0] > REAL_CI_GOAL:
            return "%s %s  UNSETTLED (interval %.1f%% wide, not %g%%)" % (
                op, "%g" % limit, 100 * (ci[1] - ci[0]), 100 * REAL_CI_GOAL)
        ok = ok or ci[0] <= 1.0
    return "%s %s  %s" % (op, ("%g" % limit), "met" if ok else "MISSED")


def print_table(res):
    rows = [
        ("overhead (sched pipe, median of %s paired rounds)" % res.get("rounds"), None, ""),
        ("  baseline, no tracer", "baseline_s", "s"),
        ("  slowdown tp_btf that returns at once", "slowdown_floor_empty", "x"),
        ("  slowdown ... + bpf_ktime_get_boot_ns()", "slowdown_floor_clock", "x"),
        ("  slowdown ... + 32-byte ringbuf record", "slowdown_floor_ring", "x"),
        ("  slowdown frecd (defaults)", "slowdown_frecd", "x"),
        ("  slowdown ftrace (tracefs instance)", "slowdown_ftrace", "x"),
        ("  slowdown perf record", "slowdown_perf_record", "x"),
        ("  slowdown perf record --overwrite", "slowdown_perf_overwrite", "x"),
        ("  slowdown frecd, runq> offcpu> armed", "slowdown_frecd_triggers", "x"),
        ("  the armed triggers' time / frecd's", "slowdown_triggers_over_frecd", "x"),
        ("  slowdown frecd --stacks offcpu", "slowdown_frecd_stacks", "x"),
        ("  the stacks' time / frecd's", "slowdown_stacks_over_frecd", "x"),
        ("  frecd's added cost / tp_btf+clock's", "frecd_over_floor_clock", ""),
        ("  frecd's added cost / ftrace's", "frecd_over_ftrace", ""),
        ("  frecd's added cost / perf record's", "frecd_over_perf_record", ""),
        ("BPF run time per sched_switch, sched_waking", None, ""),
        ("  frecd", "bpf_ns_per_switch", "ns"),
        ("  frecd --cgroup-hierarchy none", "bpf_ns_per_switch_nocgroup", "ns"),
        ("  tp_btf that returns at once", "bpf_ns_per_switch_floor_empty", "ns"),
        ("  ... + clock", "bpf_ns_per_switch_floor_clock", "ns"),
        ("  ... + 32-byte ringbuf record", "bpf_ns_per_switch_floor_ring", "ns"),
        ("  ... frecd's record instead (96 B, 56 B)", "bpf_ns_per_switch_floor_wide", "ns"),
        ("  ... + frecd's fill query", "bpf_ns_per_switch_floor_query", "ns"),
        ("  BPF time per captured stack (both kinds)", "bpf_ns_per_stack", "ns"),
        ("realistic workloads (frecd, median, 95% interval)", None, ""),
        ("  perf bench sched messaging", "slowdown_messaging_frecd", "x"),
        ("  redis-benchmark GET + SET", "slowdown_redis_frecd", "x"),
        ("stacks (--stacks offcpu, sched pipe)", None, ""),
        ("  bytes per stack on disk, deduplicated", "stack_bytes_disk", "B"),
        ("  stacks, distinct, in a snapshot of a run", "stacks_in_snapshot", ""),
        ("  off-CPU time with a stack (not frecd's)", "stacks_offcpu_share", ""),
        ("  not stored, orphaned, capture errors", "stacks_unstored", ""),
        ("daemon", None, ""),
        ("  CPU per recorded event", "daemon_ns_per_event", "ns"),
        ("  of which system time (whole life)", "daemon_sys_share", ""),
        ("  CPU share at the frecd rounds' rate", "daemon_cpu_share", ""),
        ("  events recorded, CPU", "daemon_events", ""),
        ("  drops during the frecd rounds", "drops", ""),
        ("snapshot of a full 64 MiB window", None, ""),
        ("  SIGUSR1 to renamed file (polled 1 ms)", "snapshot_ms", "ms"),
        ("  same, frecd's log", "snapshot_ms_log", "ms"),
        ("  same window, workload stopped", "snapshot_ms_idle", "ms"),
        ("  64 MiB new file + fsync, for reference", "write_64mib_ms", "ms"),
        ("  events, window seconds", "snapshot_events", ""),
        ("  lost during the write", "snapshot_lost", ""),
        ("  trigger event to renamed file, less delay", "trigger_latency_ms", "ms"),
        ("  of which the write, frecd's log", "trigger_write_ms_log", "ms"),
        ("  largest gap between events then, before", "snapshot_max_gap_ms", "ms"),
        ("  bytes/event on disk (sched events)", "bytes_per_event_disk", "B"),
        ("  with --compress zstd: SIGUSR1 to file", "snapshot_zstd_ms", "ms"),
        ("  ... frecd's log", "snapshot_zstd_ms_log", "ms"),
        ("  ... bytes/event on disk", "bytes_per_event_disk_zstd", "B"),
        ("  bytes/event in memory (frec status)", "bytes_per_event_mem", "B"),
        ("  perf.data bytes/event", "perf_data_bytes_per_event", "B"),
        ("memory", None, ""),
        ("  peak RSS (VmHWM)", "rss_peak_mib", "MiB"),
        ("  over window + ring", "rss_over_budget_mib", "MiB"),
        ("probes (per hit; machine and kernel dependent)", None, ""),
        ("  uprobe", "uprobe_us", "us"),
        ("  uprobe + uretprobe", "uprobe_uretprobe_us", "us"),
        ("  USDT", "usdt_us", "us"),
        ("core replay (bench-core, no kernel)", None, ""),
        ("  events/s on one core", "core_events_per_sec", ""),
        ("  ns/event", "core_ns_per_event", "ns"),
        ("  bytes/event memory, disk", "core_bytes_per_event_mem", "B"),
        ("  allocations over 1 M, 10 M events", "core_allocs_1m", ""),
        ("  256 CPUs, 100k threads: events/s", "core_large_events_per_sec", ""),
        ("  256 CPUs, 100k threads: ns/event", "core_large_ns_per_event", "ns"),
        ("  256 CPUs, 100k threads: bytes/event disk", "core_large_bytes_per_event_disk", "B"),
        ("  ... with --compress zstd", "core_large_bytes_per_event_zstd", "B"),
        ("  256 CPUs, 100k threads: steady allocations", "core_large_allocs_steady", ""),
    ]
    extra = {
        "daemon_events": lambda r: "%s events, %s s" % (r.get("daemon_events"), r.get("daemon_cpu_s")),
        "snapshot_events": lambda r: "%s events, %s s, %s bytes" % (
            r.get("snapshot_events"), r.get("snapshot_window_s"), r.get("snapshot_bytes")),
        "daemon_cpu_share": lambda r: "%.2f%% of a CPU at %s ev/s: %s CPU-h/24h" % (
            100 * r["daemon_cpu_share"], r.get("frecd_events_per_sec"),
            r.get("daemon_cpu_hours_24h")),
        "trigger_latency_ms": lambda r: "%s ms, at most %s ms" % (
            r.get("trigger_latency_ms"), r.get("trigger_latency_ms_max")),
        "snapshot_max_gap_ms": lambda r: "%s ms, %s ms%s" % (
            r.get("snapshot_max_gap_ms"), r.get("snapshot_max_gap_before_ms"),
            "" if r.get("snapshot_gap_ok") else " (GAP)"),
        "core_bytes_per_event_mem": lambda r: "%s, %s" % (
            r.get("core_bytes_per_event_mem"), r.get("core_bytes_per_event_disk")),
        "stacks_in_snapshot": lambda r: "%s, %s" % (r.get("stacks_in_snapshot"), r.get("stacks_distinct")),
        "stacks_unstored": lambda r: "%s, %s, %s" % (
            r.get("stacks_unstored"), r.get("stacks_orphaned"), r.get("stacks_capture_errors")),
        "core_allocs_1m": lambda r: "%s, %s" % (r.get("core_allocs_1m"), r.get("core_allocs_10m")),
    }
    for k in [k for k, _, _ in [(r[1], 0, 0) for r in rows] if k]:
        if k.startswith("bpf_ns_per_switch"):
            extra[k] = (lambda k: lambda r: "%s ns, %s ns" % (
                r.get(k), r.get(k.replace("switch", "waking"))))(k)
        elif k.startswith("slowdown_") and res.get(k + "_ci"):
            extra[k] = (lambda k: lambda r: "%s x [%s, %s]" % (
                r[k], r[k + "_ci"][0], r[k + "_ci"][1]))(k)
    say("")
    # Leave out the sections that did not run (--only).
    shown = []
    for label, key, unit in rows:
        if key is not None and res.get(key) is None:
            continue
        shown.append((label, key, unit))
    shown = [r for i, r in enumerate(shown)
             if r[1] is not None or (i + 1 < len(shown) and shown[i + 1][1] is not None)]
    for label, key, unit in shown:
        if key is None:
            say(label)
            continue
        if key in extra:
            val = extra[key](res)
        else:
            v = res.get(key)
            val = "n/a" if v is None else ("%s %s" % (v, unit)).strip()
        tgt = verdict(key, res)
        if key == "core_bytes_per_event_mem":
            tgt = verdict("bytes_per_event_mem", {"bytes_per_event_mem": res.get(key)})
        say("%-44s %-28s %s" % (label, val, tgt))
    say("")
    say("Probe costs depend on the machine and the kernel (a VM's trap cost dominates).")


def preflight():
    """Other tracers and load make every figure worse (the baseline too):
    name them, so that a noisy run is not taken for a slow frecd."""
    me = os.getpid()
    others = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == me:
            continue
        try:
            with open("/proc/%s/comm" % d) as f:
                comm = f.read().strip()
        except OSError:
            continue
        if comm in ("frecd", "perf", "bpftrace", "trace-cmd") or comm.startswith("qemu-system"):
            others.append("%s[%s]" % (comm, d))
    with open("/proc/loadavg") as f:
        load1 = float(f.read().split()[0])
    return others, load1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--output", default=".output", help="build directory (default .output)")
    ap.add_argument("--rounds", type=int, default=9,
                    help="paired overhead rounds (>= 6 for a 95%% interval of the median)")
    ap.add_argument("--loops", type=int, default=1000000, help="perf bench sched pipe loops")
    ap.add_argument("--configs", default=None,
                    help="comma-separated overhead configurations (none is always run; "
                    "default: all of %s)" % ",".join(OVERHEAD_CFGS))
    ap.add_argument("--real", default="messaging,redis",
                    help="comma-separated realistic workloads: messaging, redis")
    ap.add_argument("--real-rounds", type=int, default=25,
                    help="paired rounds of each realistic workload, at least")
    ap.add_argument("--real-ci", type=float, default=REAL_CI_GOAL,
                    help="then more rounds until the 95%% interval of the median slowdown is "
                    "at most this wide (default 0.01; 0: --real-rounds only)")
    ap.add_argument("--real-minutes", type=float, default=10,
                    help="... for at most this long per workload (default 10)")
    ap.add_argument("--msg-groups", type=int, default=10, help="perf bench sched messaging -g")
    ap.add_argument("--msg-loops", type=int, default=200, help="perf bench sched messaging -l")
    ap.add_argument("--redis-requests", type=int, default=100000,
                    help="redis-benchmark -n, each of GET and SET")
    ap.add_argument("--quick", action="store_true",
                    help="development run: 3 rounds of 200000 loops, 3 realistic rounds, "
                    "no triggers, stacks, snapshot nor probes")
    ap.add_argument("--verbose", action="store_true", help="print every realistic round")
    ap.add_argument("--cpu", type=int, default=0,
                    help="run perf bench sched pipe on this CPU only (-1: anywhere; see the doc)")
    ap.add_argument("--settle", type=float, default=0.3,
                    help="seconds between a tracer's start and the workload")
    ap.add_argument("--max-fill", type=float, default=60, help="longest window fill, s")
    ap.add_argument("--probe-rounds", type=int, default=5)
    ap.add_argument("--probe-k", type=int, default=200000, help="calls per probe round")
    ap.add_argument("--only", default="overhead,bpfcost,realistic,snapshot,probes",
                    help="comma-separated sections to run")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    a = ap.parse_args()
    if a.quick:
        a.rounds, a.loops, a.real_rounds, a.real_ci = 3, 200000, 3, 0
        a.msg_loops, a.redis_requests = 50, 30000
        if a.configs is None:
            a.configs = ",".join(c for c in OVERHEAD_CFGS
                                 if c not in ("frecd_triggers", "frecd_stacks"))
        a.only = ",".join(x for x in a.only.split(",") if x not in ("snapshot", "probes"))
    a.cfgs = set((a.configs or ",".join(OVERHEAD_CFGS)).split(",")) | {"none"}
    unknown = a.cfgs - set(OVERHEAD_CFGS)
    if unknown:
        die("--configs: unknown %s; known: %s" % (", ".join(sorted(unknown)), ", ".join(OVERHEAD_CFGS)))
    a.real = set(a.real.split(",")) - {""}
    # SIGTERM and SIGHUP end the run like an error does: through the atexit
    # handler that stops the tracers and workloads started so far.
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, lambda signo, frame: sys.exit(128 + signo))

    if os.geteuid() != 0:
        die("needs root (BPF, perf -a); run: sudo make bench")
    a.frecd = os.path.join(a.output, "frecd")
    a.frec = os.path.join(a.output, "frec")
    a.probe_loop = os.path.abspath(os.path.join(a.output, "bench", "probe_loop"))
    a.floor = os.path.join(a.output, "bench", "floor")
    a.core_json = os.path.join(a.output, "bench-core.json")
    for p in (a.frecd, a.frec, a.probe_loop, a.floor):
        if not os.access(p, os.X_OK):
            die("%s is missing: run make all (or make bench, which builds it)" % p)
    if not shutil.which("perf"):
        die("perf is missing: install linux-perf (FREC_DEPS_EXTRA=linux-perf sh scripts/deps.sh)")
    only = set(a.only.split(","))

    a.work = tempfile.mkdtemp(prefix="frec-bench.")
    res = {}
    others, load1 = preflight()
    res["load1_at_start"] = load1
    res["other_tracers_at_start"] = others
    if others or load1 > 0.5:
        say("bench: WARNING: the machine is not quiet (load %.2f%s); every figure, the "
            "baseline too, will be noisier" % (load1, "; running: " + " ".join(others) if others else ""))
    t0 = time.monotonic()
    try:
        if "overhead" in only:
            bench_overhead(a, res)
        if "bpfcost" in only:
            bench_bpf_cost(a, res)
        if "realistic" in only and a.real:
            bench_realistic(a, res)
        if "snapshot" in only:
            bench_snapshot(a, res)
        if "probes" in only:
            bench_probes(a, res)
    finally:
        if a.keep:
            say("work directory kept: " + a.work)
        else:
            shutil.rmtree(a.work, ignore_errors=True)
    merge_core(a, res)
    res["bench_seconds"] = round(time.monotonic() - t0, 1)
    res["targets"] = {k: verdict(k, res) for k in TARGETS if res.get(k) is not None}
    print_table(res)
    path = os.path.join(a.output, "bench.json")
    with open(path, "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
        f.write("\n")
    say("wrote %s (%.0f s)" % (path, res["bench_seconds"]))


if __name__ == "__main__":
    main()
