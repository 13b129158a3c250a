#!/usr/bin/env python3
"""The autotuner of step 10: searches its block sizes and switches on this machine, on one
thread and on all cores, and writes the winners to a wisdom file that step 10 reads.

    tools/tune.py [--build DIR] [-o PATH] [--budget S] [--threads 1|all|both] [--sizes LIST]
                  [--kernel NAME] [--rounds N] [--margin PCT] [--seed N] [--fresh] [--no-ref]

What it searches (docs/contracts.md, "The tuner", has the whole contract). Step 10's
tunables --mc, --kc, --nc and --one-slice (the rules of steps/10_tuned/blocks.cpp give
their values, which the step reports in its CSV's params column), the switches --no-copy-b,
--no-prefetch, --no-even-k, --no-vector-pack (those in effect for the kernel), and, for the
AVX-512 kernel, --fold at the form the rules did not pick (the rules decide it from a table
of the cores' load ports, which an unknown core may not match). Each block size moves on a
ladder around the rules' value: rung j is the value x 2^(j/4), rounded as the step rounds
it, from x1/4 (j = -8) to x4 (j = +8). --one-slice is a coordinate only where the rules take
some k in one slice deeper than kc (a candidate that sets a block size passes the rules'
depth along: --kc alone turns one slice off). A point whose blocks read more from beyond L2
per FLOP (2 / mc + 4 / kc bytes) than the rules allow (the larger of 0.025 and what their
own blocks read) is not measured: a neighbour streaming memory would show its cost.

The search (a coordinate search with a shrinking step, as in pattern search), from the
rules' point: coarse, one coordinate at a time (kc, mc, nc, one-slice), x0.5, x0.71, x1.41
and x2 in one batch, going on in the direction of an outer winner; polish, every coordinate
one rung either way, repeated around each new incumbent until none wins (on a cost unimodal
along each coordinate, as block sizes are, that is where the grid would put its best, within
a rung and the margin); the switches one at a time at the best blocks, repeated on top of a
winner; last, the rules, the tuned point and the library (build/bin/ref_openblas) side by
side, and a tuned point not above the rules there is dropped for them. Values that act
alike at every training size are one candidate (blocks at or above the largest size; one-
slice depths that take the same sizes in one slice): a step that changes nothing is skipped
over. 30-45 candidates, about 500-800 samples per thread count on a quiet machine (the grid
of 17^3 x 2^4 points: 940,000), the whole budget on a busy one.

How candidates are compared. A batch is run by tools/interleave.py's scheduler
(Scheduler.run_group): round after round (--rounds, 3), the training sizes in a new random
order and, at each size, the incumbent and every candidate one right after the other in a
new random order. A pair is a candidate's sample and the incumbent's at one size in one
round: taken back to back, so a slow spell of the machine (seconds long: another program, a
neighbour's memory traffic) slows both alike and cancels in their ratio (docs/harness.md,
"The tuner's decisions"). A decision, candidate against incumbent, is the interval of their
ratio (interval()): the mean of all its pairs' log-ratios, a fifth at either end left out
(the pairs a spell's edge split), every size in equal number (a geometric mean over the
sizes), +- t x its standard error (95 %). The candidate WINS when the interval lies above
1 + margin (--margin, 1 %); it LOSES when the interval lies below 1 + margin (slower, or
faster by less than matters) or has narrowed to a quarter of the margin (the difference is
the margin itself, near enough); while it straddles, the decision is open. After the batch's
rounds, while no candidate has won and a decision is open, the search buys another round
of pairs for the open decision whose interval is widest (the incumbent and it at every
size). The winner with the highest estimate becomes the incumbent (the others' open
decisions are superseded). A search stops before its budget only when every decision closed.

Training sizes: 640, 896, 1280, 1792 (--sizes), none of 512, 1024, 1536, 2048 (what the
tuned step is checked at), and all above the sizes at which step 10 skips packing (4 n^2 <=
L2 / 2), where a block option would change the small-matrix path as well.

Budget (--budget, 300 s): each thread count's search has an equal share of what is left when
it starts (one that closed its decisions early leaves its time to the next), less what its
final rounds are expected to take. A group of samples (one size of one round, its jobs back
to back) starts only when its expected time (each job's median sample there so far) fits
before the deadline; the search ends there with the best so far (written, the state kept:
the same command again goes on). The final rounds start only when all of them fit in what
is left. A line on standard error says what is being tried, each decision with its interval
and verdict, the best so far and the time left. Ctrl-C (SIGINT) stops after the group of
samples running (a second Ctrl-C at once); nothing is written but the state. The state,
PATH.state beside the wisdom file (JSON, through plots/output_file.py), holds every complete
group of samples: the same command again replays them instead of measuring (the search is
deterministic given its samples and its seed, which the state keeps) and measures on. Only
a group that a Ctrl-C broke is measured again, whole, so that its pairs stay back to back.
A state of other arguments, another CPU, cache sizes or executable is not used; --fresh
ignores it; a damaged one of ours is refused, exit 3, unless --fresh. It is removed once
both searches and their final rounds have ended. One tuner at a time writes PATH: it holds
an flock on .NAME.lock beside it (take_lock). A side file's name too long for its folder is
cut and ended by a hash (side_path). SIGTERM kills the run under way and ends the tuner by
that signal, its files whole.

The wisdom file (default BUILD/wisdom/step10_tuned.txt, -o PATH; its folder made if
needed):

    # gemm-steps wisdom: step 10's parameters measured best on this CPU (tools/tune.py)
    format 1
    cpu GenuineIntel 6 207 Emerald Rapids          (build/bin/cpuinfo --identity, verbatim)
    caches 49152 2097152 314572800                 (the same)
    kernel avx512
    threads 1 mc=112 kc=2336 nc=16832
    threads all mc=224 kc=1168 nc=8192 no-copy-b=1
    noise 0.021

noise is the widest half-width among the intervals of the decisions the searches closed:
the difference they resolve. A threads line lists the options the winner was measured with
that differ from the step's rules (none: the rules won), one-slice=N beside kc when the
rules' depth was kept. A thread count not tuned in this run keeps its line from the file
there, when that is a wisdom file of the same cpu, caches and kernel. Every candidate runs
with GEMM_WISDOM=off, one-thread runs pinned to the last CPU (taskset), all-core runs on
every CPU this process may use with OMP_PROC_BIND=close OMP_PLACES=cores, on as many threads
as the step's first run reports (OMP_THREAD_LIMIT); where that is one, the threads all line
is not tuned (--threads all: exit 2).

Exit status: 0 the wisdom file written (also when the budget ended the search: the report
says so); 1 a run of step 10 failed or gave a wrong result (named; the file is written from
the other candidates), or the rules' own runs failed (nothing written); 2 usage error, ours
or step 10's (one line), or an executable not built; 3 the wisdom file or the state cannot
be written, or is there and is not tune.py's (checked before any run); 77 this CPU cannot
run step 10 (or its --kernel); 130 interrupted (the state holds the samples taken).

The record of the search: beside the wisdom file, STEM.search.csv (STEM: PATH without its
.txt), one row per candidate judged in each batch at each thread count (its interval and
decision among its columns, docs/contracts.md), and a row for the tuned point in the final
rounds; rewritten whole after every batch. A candidate's ratio to the rules is chained: its
incumbent's times its own estimated ratio to that incumbent. At the end plots/plot_tuning.py
draws it into STEM.tuning.png (with this Python's matplotlib, else /usr/bin/python3's, else
one line says how). Neither is written when PATH is a device.

For tests, main(argv, machine=Synthetic(...)) runs the real search on a made-up machine: a
Python function (params, size, round) -> GFLOPS instead of the executables, each sample
counted as machine.sample_seconds of the budget.
"""
import argparse
import csv
import errno
import fcntl
import hashlib
import io
import json
import math
import os
import random
import re
import shutil
import signal
import stat
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "plots"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import output_file  # noqa: E402  (plots/output_file.py: every file goes through it)
import cli  # noqa: E402  (plots/cli.py: children in their own process group, SIGTERM raised)
from harness_csv import InputError, open_regular  # noqa: E402  (a file read only when it is a regular one)
import samples as stats  # noqa: E402  (plots/samples.py: paired ratios)
import interleave  # noqa: E402  (tools/interleave.py: the scheduler that takes the samples)

PROG = "tune.py"
HEADER = "# gemm-steps wisdom: step 10's parameters measured best on this CPU (tools/tune.py)"
STATE_TOOL = "gemm-steps tools/tune.py state"
SIZES = (640, 896, 1280, 1792)
ROUNDS = 3
BUDGET = 300.0
RUNGS = 8                        # ladder rungs either side of the rules' value: x1/4 .. x4
RUNG = 2.0 ** 0.25               # one rung: x1.19
COARSE = (-4, -2, 2, 4)          # x0.5, x0.71, x1.41, x2
FURTHER = (2, 4)                 # an extension, in the direction that won
MAX_POLLS = 8
BLOCKS = ("mc", "kc", "nc")
SEARCH_ORDER = ("kc", "mc", "nc", "one-slice")
OPTION_ORDER = ("mc", "kc", "nc", "one-slice")
SWITCHES = ("no-copy-b", "no-prefetch", "no-even-k", "no-vector-pack")
# A choice between two forms, each a value of one option: the rules pick one on each core
# (--fold: 1 folded broadcasts, 2 one per row, from the core's load ports), the search tries
# the other as it tries a switch.
CHOICES = {"fold": (1, 2)}
SWITCH_ORDER = SWITCHES + tuple(CHOICES)
MARGIN = 0.01                    # a candidate must beat the incumbent by this much (--margin, in %)
# A decision is closed when its interval's half-width is down to this share of the margin
# even if it still straddles 1 + margin: the difference is the margin itself, within a
# quarter of it, and either answer is as good.
RESOLVED = 0.25
TRIM = 0.2                       # of the pairs' log-ratios, left out at either end (spoilt pairs)
T_TAIL = 1.959964                # the normal quantile of a two-sided 95 % interval
MAX_BLOCK = 65536                # the largest --NAME N the step takes
# What a point reads and writes beyond L2 per FLOP (steps/10_tuned/blocks.hpp,
# outer_bytes_per_flop): the B panel once per A block of mc rows, C once per slice of kc. A
# neighbour streaming memory slows that traffic, so the search keeps within the rules' bound.
MAX_OUTER_BYTES_PER_FLOP = 0.025


def outer_bytes_per_flop(mc, kc):
    return 2.0 / mc + 4.0 / kc


def t_quantile(df):
    """Student's t at the two-sided 95 % point for df degrees of freedom (Cornish-Fisher
    expansion about the normal's: within 0.01 of the table from df = 3 on)."""
    z, df = T_TAIL, max(1, df)
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2) + \
        (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * df ** 3)


def interval(ratios):
    """(estimate, half-width, pairs) of the log of a candidate's ratio to the incumbent, from
    its paired ratios {size: [ratio a round]}: the mean of the pairs' log-ratios with a fifth
    left out at either end (a pair that a spell's edge split measures the spell), every size
    in equal number, so a geometric mean over the sizes; its 95 % interval from the trimmed
    mean's standard error (the winsorized spread, Tukey and McLaughlin). Fewer than 3 pairs:
    an infinite half-width."""
    logs = sorted(math.log(v) for values in ratios.values() for v in values if v > 0)
    n = len(logs)
    if n < 3:
        return (sum(logs) / n if n else 0.0), float("inf"), n
    cut = int(TRIM * n)
    kept = logs[cut:n - cut]
    estimate = sum(kept) / len(kept)
    wins = [logs[cut]] * cut + kept + [logs[n - cut - 1]] * cut
    middle = sum(wins) / n
    spread = math.sqrt(sum((x - middle) ** 2 for x in wins) / (n - 1))
    return estimate, t_quantile(len(kept) - 1) * spread / (len(kept) / n * math.sqrt(n)), n


def verdict(estimate, half, margin):
    """won: the interval lies above 1 + margin; lost: below it (slower, or faster by less than
    the margin: no difference that matters), or narrower than RESOLVED x the margin either
    way; open while it straddles."""
    edge = math.log1p(margin)
    if estimate - half > edge:
        return "won"
    if estimate + half < edge or half <= RESOLVED * margin:
        return "lost"
    return "open"


def percent(log_ratio):
    return 100.0 * math.expm1(log_ratio)


class Decision:
    """A candidate against the incumbent of its batch: its job, paired ratios and verdict."""
    def __init__(self, point, job):
        self.point, self.job = point, job
        self.ratios, self.estimate, self.half, self.pairs = {}, 0.0, float("inf"), 0
        self.verdict = "open"

    def text(self, name):
        if self.verdict == "failed":
            return "{} failed".format(name)
        low, high = self.estimate - self.half, self.estimate + self.half
        bounds = "[{:+.1f}, {:+.1f}]".format(percent(low), percent(high)) if self.pairs >= 3 else "[-]"
        return "{} {:+.1f} % {} {}".format(name, percent(self.estimate), bounds, self.verdict)

DEFAULT_COST = 0.5               # seconds a sample is taken to cost before one was timed
SAMPLE_TIME, MAX_REPS, SAMPLE_TIMEOUT = 0.1, 20, 120.0   # a sample, as interleave.py's defaults
PROBE_SIZE = 16
# A sample's columns the state keeps (what the pairs, the verification and the report read).
# The search record (STEM.search.csv): a candidate's columns, then the search's.
SEARCH_COLUMNS = ("threads", "thread_count", "phase", "batch", "options", "mc", "kc", "nc", "one_slice", "switches",
                  "vs", "ratio", "pooled", "per_size", "vs_to_rules", "ratio_to_rules", "adopted", "failed", "noise",
                  "low", "high", "pairs", "decision", "rules_mc", "rules_kc", "rules_nc", "rules_one_slice", "winner",
                  "complete", "kernel", "cpu", "uarch", "l1d", "l2", "l3")
KEPT_COLUMNS = ("step", "m", "n", "k", "threads", "gflops_best", "gflops_median", "seconds_best", "max_rel_err",
                "verified", "kernel", "reps", "cpu_wait")


class Failure(Exception):
    """A reason to stop, with its exit status and one line."""
    def __init__(self, status, text):
        super().__init__(text)
        self.status = status


class OutOfTime(Exception):
    pass


class Interrupted(Exception):
    pass


def shown(text, limit=300):
    return interleave.shown(str(text), limit)


def median(values):
    return stats.median(list(values))


# ---- the machines: the real one (the executables) and a made-up one (tests) -------------------

def tunables(text):
    """{name: value} of a params column ("mc=112 kc=1056 ...")."""
    out = {}
    for item in (text or "").split():
        name, _, value = item.partition("=")
        if name and value.isdigit():
            out[name] = int(value)
    return out


class Real:
    """Step 10, the library and cpuinfo of a build folder."""
    synthetic = False
    default_cost = DEFAULT_COST

    def __init__(self, build, kernel):
        self.build = os.path.abspath(build)
        self.bin = os.path.join(self.build, "bin")
        self.exe = os.path.join(self.bin, "step10_tuned")
        self.ref_exe = os.path.join(self.bin, "ref_openblas")
        self.cpuinfo = os.path.join(self.bin, "cpuinfo")
        self.kernel = kernel
        self.cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
            list(range(os.cpu_count() or 1))
        self.taskset = shutil.which("taskset")
        self.tmp = output_file.scratch_folder("tune.")   # removed however the tuner ends

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def ncpu(self):
        return len(self.cpus)

    def check(self):
        for exe in (self.exe, self.cpuinfo):
            if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
                raise Failure(2, "{}: not built (cmake --build {})".format(exe, self.build))

    def has_library(self):
        return os.path.isfile(self.ref_exe) and os.access(self.ref_exe, os.X_OK)

    def identity(self):
        """The cpu and caches lines of cpuinfo --identity, verbatim."""
        try:
            done = cli.run([self.cpuinfo, "--identity"], timeout=60, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise Failure(2, "{} --identity: {}".format(self.cpuinfo, getattr(e, "strerror", None) or e))
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        lines = done.stdout.decode("utf-8", "replace").splitlines()
        cpu = [l for l in lines if l.startswith("cpu ")]
        caches = [l for l in lines if l.startswith("caches ")]
        if done.returncode != 0 or len(cpu) != 1 or len(caches) != 1:
            raise Failure(2, "{} --identity: {} (a cpuinfo that prints the cpu and caches lines is needed: "
                             "cmake --build {})".format(self.cpuinfo, shown(said[-1]) if said else
                                                        "exit {}".format(done.returncode) if done.returncode
                                                        else "no cpu and caches lines", self.build))
        return [cpu[0].rstrip(), caches[0].rstrip()]

    def prefix(self, threads, library):
        """env and taskset before a run: GEMM_WISDOM=off, the same environment for every run,
        one thread pinned to the last CPU, all threads on every CPU (OpenMP's bound one per
        core, the library's pool left unbound)."""
        env = ["env", "-u", "OMP_PROC_BIND", "-u", "OMP_PLACES", "-u", "OPENBLAS_CORETYPE", "-u", "BLIS_ARCH_TYPE",
               "GEMM_WISDOM=off"]
        if library:
            if self.kernel == "avx2":
                env.append("OPENBLAS_CORETYPE=Haswell")   # the library's AVX2 kernels beside ours
        else:
            env += ["OMP_PROC_BIND=close", "OMP_PLACES=cores"]
        pin = []
        if self.taskset:
            cpus = [self.cpus[-1]] if threads == 1 else self.cpus
            pin = [self.taskset, "-c", ",".join(str(c) for c in cpus)]
        return env + pin

    def command(self, threads, options):
        words = self.prefix(threads, False) + [self.exe, "--threads", str(threads)]
        if self.kernel:
            words += ["--kernel", self.kernel]
        for name, value in options.items():
            words += ["--" + name, str(value)]
        return words

    def library(self, threads):
        return self.prefix(threads, True) + [self.ref_exe, "--threads", str(threads)]

    def run_probe(self, command, what):
        """One unverified run at a tiny size: its CSV row. Exit 2 and 77 stop the tuner."""
        path = os.path.join(self.tmp, "probe.csv")
        if os.path.exists(path):
            os.unlink(path)
        try:
            done = cli.run(command + ["--sizes", str(PROBE_SIZE), "--reps", "1", "--warmup", "0", "--no-verify",
                                      "--csv", path], timeout=120, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
            status, said = done.returncode, done.stderr
        except subprocess.TimeoutExpired:
            raise Failure(1, "{}: its run at n = {} did not finish in 120 s".format(what, PROBE_SIZE))
        except OSError as e:
            raise Failure(2, "{}: cannot run: {}".format(what, e.strerror))
        said = said.decode("utf-8", "replace").strip().splitlines()
        line = shown(said[-1]) if said else "exit {}".format(status)
        if status in (2, 77):
            raise Failure(status, line)   # the program's own line, which names it
        if status != 0 or not os.path.isfile(path):
            raise Failure(1, "{}: its run at n = {} failed ({})".format(what, PROBE_SIZE, line))
        _, rows = stats.read_samples(path)
        if len(rows) != 1:
            raise Failure(1, "{}: its run at n = {} wrote {} rows, not one".format(what, PROBE_SIZE, len(rows)))
        return rows[0]

    def probe(self, threads):
        """(kernel, {tunable: value} the rules give, {tunable: unit it is rounded to}, the threads
        it ran on: its CSV's, fewer than asked under OMP_THREAD_LIMIT)."""
        row = self.run_probe(self.command(threads, {}), "step10_tuned")
        rules = tunables(row.get("params"))
        if not all(name in rules for name in BLOCKS):
            raise Failure(2, "{}: its CSV has no mc, kc and nc in params: not step 10".format(self.exe))
        # What the step rounds a block to: --mc 1 --kc 1 --nc 1 runs as one unit of each.
        ones = {name: 1 for name in BLOCKS}
        if "one-slice" in rules:
            ones["one-slice"] = 1
        # --min-kflops 1 shares even n = 16 out, so its threads column is the team the step
        # can have here (fewer than asked only under OMP_THREAD_LIMIT), not the one thread
        # a product that small takes by the rules.
        shared = self.run_probe(self.command(threads, dict(ones, **{"min-kflops": 1})), "step10_tuned")
        unit = tunables(shared.get("params"))
        units = {name: max(1, unit.get(name, 1)) for name in ones}
        units["kc"] = max(16, units["kc"])
        if "one-slice" in units:
            units["one-slice"] = max(16, units["one-slice"])
        ran = shared.get("threads", "").strip()
        return row.get("kernel", "").strip(), rules, units, int(ran) if ran.isdigit() and int(ran) >= 1 else threads

    def probe_library(self, threads):
        """The library's kernel column, or None when this CPU cannot run it (exit 77)."""
        try:
            return self.run_probe(self.library(threads), "ref_openblas").get("kernel", "").strip()
        except Failure as e:
            if e.status == 77:
                print("{}: the library is left out: {}".format(PROG, e), file=sys.stderr)
                return None
            raise

    def fingerprint(self):
        out = {}
        for name, path in (("step", self.exe), ("library", self.ref_exe)):
            try:
                st = os.stat(path)
                out[name] = [path, st.st_size, st.st_mtime_ns]
            except OSError:
                out[name] = None
        out["environment"] = {k: os.environ.get(k) for k in ("GEMM_CACHES", "OMP_THREAD_LIMIT")}
        return out


class Synthetic:
    """A made-up machine for tests: measure(params, size, round) -> GFLOPS, where params is
    {"threads": T, and the options the candidate sets} (for the library: {"threads": T,
    "library": True}, asked only when `library` is true); each sample counts as
    `sample_seconds` of the budget; `thread_limit` caps the threads a run takes, as
    OMP_THREAD_LIMIT does."""
    synthetic = True

    def __init__(self, measure, rules, units=None, kernel="avx512", identity=None, ncpu=2, library=True,
                 sample_seconds=0.25, switches=SWITCHES, rules_all=None, thread_limit=None):
        self.measure = measure
        self.rules = dict(rules)
        self.rules_all = dict(rules_all or rules)
        self.units = dict(units or {"mc": 14, "kc": 16, "nc": 32, "one-slice": 16})
        self.kernel = kernel
        self.ident = list(identity or ["cpu GenuineIntel 6 207 Emerald Rapids", "caches 49152 2097152 314572800"])
        self.cpus = list(range(ncpu))
        self.with_library = library
        self.sample_seconds = self.default_cost = sample_seconds
        self.switches = tuple(switches)
        self.thread_limit = thread_limit
        self.clock = 0.0

    def close(self):
        pass

    def ncpu(self):
        return len(self.cpus)

    def check(self):
        pass

    def has_library(self):
        return self.with_library

    def identity(self):
        return list(self.ident)

    def command(self, threads, options):
        return ["synthetic"]

    def library(self, threads):
        return ["synthetic-library"]

    def probe(self, threads):
        rules = dict(self.rules if threads == 1 else self.rules_all)
        for name in self.switches:
            rules.setdefault(name, 0)
        units = {name: self.units.get(name, 1) for name in rules if name in OPTION_ORDER}
        return self.kernel, rules, units, min(threads, self.thread_limit or threads)

    def probe_library(self, threads):
        return "synthetic library" if self.with_library else None

    def fingerprint(self):
        return {"synthetic": True}


# ---- the samples: interleave.py's scheduler, with a state that is replayed ---------------------

class Measurer(interleave.Scheduler):
    """tools/interleave.py's Scheduler for one thread count: its run_group (the jobs at one
    size one right after the other, in a random order) and its sample (one run of a job at
    one size). A complete group's samples go to the state; a group found there is replayed."""

    def __init__(self, tuner, setting, threads, seed):
        args = argparse.Namespace(seed=seed, no_verify=False, max_reps=MAX_REPS, sample_time=SAMPLE_TIME,
                                  timeout=SAMPLE_TIMEOUT, tolerance=stats.TOLERANCE, rounds=tuner.args.rounds,
                                  max_samples=12, budget=None)
        super().__init__(args, [], list(tuner.sizes), None)
        self.run_id = "tune"
        self.tuner, self.setting, self.threads = tuner, setting, threads
        self.groups = tuner.state_groups(setting)
        self.replay = None
        self.pending = {}
        self.aborted = False

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def save(self, job):
        pass   # the state is written per group (run_group)

    def group_key(self, size, jobs):
        return self.group_key_at(self.round, size, jobs)

    @staticmethod
    def group_key_at(round_, size, jobs):
        return "{}|{}|{}".format(round_, size, ";".join(sorted(j.key for j in jobs)))

    def run_group(self, size, jobs):
        key = self.group_key(size, jobs)
        self.replay = self.groups.get(key)
        self.pending, self.aborted = {}, False
        super().run_group(size, jobs)
        if self.aborted:
            raise Interrupted()
        if self.replay is None:
            self.groups[key] = self.pending
            self.tuner.save_state()
        if self.tuner.stop_requested:
            raise Interrupted()

    def sample(self, job, size):
        if self.aborted:
            return
        record = self.replay.get(job.key) if self.replay is not None else None
        if record is not None:
            self.restore(job, size, record)
            self.tuner.replayed += 1
            return
        machine = self.tuner.machine
        before = len(job.rows)
        if machine.synthetic:
            self.seq += 1
            gflops = float(machine.measure(dict(job.params), size, self.round))
            machine.clock += machine.sample_seconds
            job.wall.setdefault(size, []).append(machine.sample_seconds)
            job.rows.append({"step": "10_tuned", "m": str(size), "n": str(size), "k": str(size),
                             "threads": str(self.threads), "gflops_best": repr(gflops), "gflops_median": repr(gflops),
                             "seconds_best": "0", "max_rel_err": "nan", "verified": "0", "kernel": "synthetic",
                             "params": "", "cpu_wait": "0", "run": self.run_id, "round": str(self.round),
                             "seq": str(self.seq)})
        else:
            walls = len(job.wall.get(size, []))
            super().sample(job, size)
            if self.tuner.stop_requested and job.failed:
                # Ctrl-C reached the run too: not a result. The group is not kept.
                job.failed = ""
                del job.rows[before:]
                del job.wall.get(size, [])[walls:]
                self.aborted = True
                return
        self.tuner.measured += 1
        record = {"wall": job.wall[size][-1] if job.wall.get(size) else 0.0}
        if len(job.rows) > before:
            record["row"] = {k: v for k, v in job.rows[-1].items() if k in KEPT_COLUMNS}
        if job.failed:
            record["failed"] = job.failed
        self.pending[job.key] = record

    def restore(self, job, size, record):
        self.seq += 1
        job.wall.setdefault(size, []).append(float(record.get("wall", 0.0)))
        if "row" in record:
            row = dict(record["row"])
            row.update({"run": self.run_id, "round": str(self.round), "seq": str(self.seq)})
            job.rows.append(row)
            if row.get("verified", "").strip() == "0" and row.get("max_rel_err", "").strip().lower() != "nan":
                job.wrong = True
        if record.get("failed"):
            job.failed = record["failed"]


# ---- the search at one thread count ---------------------------------------------------------

class Point:
    """A candidate: a rung per block coordinate (0 = the rules' value) and the switches set."""
    __slots__ = ("rungs", "switches")

    def __init__(self, rungs, switches=()):
        self.rungs = tuple(rungs)
        self.switches = tuple(sorted(switches, key=SWITCH_ORDER.index))

    def moved(self, index, rung):
        rungs = list(self.rungs)
        rungs[index] = rung
        return Point(rungs, self.switches)

    def with_switch(self, name):
        return Point(self.rungs, self.switches + (name,))


class Search:
    def __init__(self, tuner, setting, threads, index):
        self.tuner, self.setting, self.threads = tuner, setting, threads
        self.sizes = list(tuner.sizes)
        self.kernel, self.rules, self.units, ran = tuner.machine.probe(threads)
        threads = self.threads = min(threads, ran)   # what the samples run on (OMP_THREAD_LIMIT)
        # one-slice is a coordinate where the rules take some k deeper than kc in one slice.
        self.coords = [c for c in SEARCH_ORDER if c in BLOCKS or
                       (c == "one-slice" and self.rules.get("one-slice", 0) > self.rules["kc"])]
        self.switches = [s for s in SWITCHES if s in self.rules and self.rules[s] == 0] + \
            [c for c in CHOICES if self.rules.get(c) in CHOICES[c]]
        self.measurer = Measurer(tuner, setting, threads, tuner.seed * 16 + index)
        self.jobs = {}
        self.library = None
        self.library_kernel = None
        self.incumbent = Point([0] * len(self.coords))
        self.visited = {self.effect(self.incumbent)}
        self.margin = tuner.args.margin
        self.decisions = []      # every Decision judged, in order (the report)
        self.batch_decisions = []   # the batch's under way (the progress line)
        self.taken = set()       # the rounds of the batch under way
        self.candidates = 0
        self.finished = False
        self.cut = ""            # why the search ended early
        self.failures = []       # candidates whose runs failed
        self.final = None        # {"tuned/rules": ..., "rules/library": ..., "tuned/library": ...}
        self.dropped = False     # the final rounds did not confirm the tuned point
        self.tried = ""
        self.phase = "coarse"    # of the batches being run: coarse, polish, switch (final: final_rounds)
        self.batches = 0         # batches judged, the final rounds included
        self.records = []        # the search record's rows: one per candidate judged (record())
        self.chain = 1.0         # the incumbent's ratio to the rules, chained (record())

    # -- points

    def value(self, coord, rung):
        unit = self.units.get(coord, 1)
        v = self.rules[coord] * RUNG ** rung
        v = max(unit, int(round(v / unit)) * unit)
        return min(v, MAX_BLOCK // unit * unit)

    def options(self, point):
        """{option: value} a point runs with, in OPTION_ORDER then SWITCHES order."""
        out = {}
        for coord, rung in zip(self.coords, point.rungs):
            if coord in BLOCKS and rung != 0:
                out[coord] = self.value(coord, rung)
        if "one-slice" in self.coords:
            rung = point.rungs[self.coords.index("one-slice")]
            depth = self.value("one-slice", rung)
            kc = out.get("kc", self.rules["kc"])
            if rung != 0 or (out and depth > kc):
                out["one-slice"] = depth
        ordered = {name: out[name] for name in OPTION_ORDER if name in out}
        for name in point.switches:
            ordered[name] = self.switch_value(name)
        return ordered

    def switch_value(self, name):
        """The value a switch is tried at: 1, or a choice's other form."""
        if name in CHOICES:
            return next(v for v in CHOICES[name] if v != self.rules[name])
        return 1

    def effect(self, point):
        """What the point changes at the training sizes: two points with the same effect run
        alike there (blocks at or above the largest size are the whole matrix; one-slice
        matters only through which sizes it takes in one slice)."""
        o = self.options(point)
        top = max(self.sizes)
        rules = not o
        mc, kc, nc = (o.get(c, self.rules[c]) for c in BLOCKS)
        if "one-slice" in o:
            depth = max(o["one-slice"], kc)
        elif rules or "kc" not in o:
            depth = max(self.rules.get("one-slice", kc), kc)
        else:
            depth = kc   # --kc alone: k in slices of kc
        l2 = self.tuner.l2
        # The rules' point skips packing for small products (steps/10_tuned/blocks.cpp,
        # skip_packing: 4 m k <= L2 / 2, and more); any block option asks for the packed path.
        direct = tuple(rules and l2 > 0 and 4 * n * n <= l2 // 2 for n in self.sizes)
        return (min(mc, top), min(kc, top), min(nc, top), tuple(n <= depth for n in self.sizes),
                tuple(point.switches), direct)

    def effective(self, point):
        """{mc, kc, nc[, one-slice]}: the blocks the point runs with, the rules' where it sets
        none; one-slice the deepest k taken in one slice as step 10 takes it (kc when --kc
        alone turns it off; never below kc)."""
        o = self.options(point)
        out = {c: o.get(c, self.rules[c]) for c in BLOCKS}
        if "one-slice" in self.rules:
            depth = o["one-slice"] if "one-slice" in o else out["kc"] if "kc" in o else self.rules["one-slice"]
            out["one-slice"] = max(depth, out["kc"])
        return out

    def record(self, point, versus, versus_to_rules, ratios, adopted, verdict):
        """A row of the search record: the point, compared with `versus` (a point) whose own
        ratio to the rules is `versus_to_rules`, by its paired ratios {size: [ratio a round]}
        and their interval (interval()), with its verdict. Its ratio to the rules is chained:
        versus_to_rules x its estimated ratio. Returns that (None: it failed)."""
        blocks = self.effective(point)
        row = {"threads": self.setting, "thread_count": self.threads, "phase": self.phase, "batch": self.batches,
               "options": " ".join("{}={}".format(k, v) for k, v in self.options(point).items()),
               "mc": blocks["mc"], "kc": blocks["kc"], "nc": blocks["nc"], "one_slice": blocks.get("one-slice", ""),
               "switches": " ".join(point.switches),
               "vs": " ".join("{}={}".format(k, v) for k, v in self.options(versus).items()),
               "ratio": "", "pooled": "", "per_size": "", "vs_to_rules": "{:.4f}".format(versus_to_rules),
               "ratio_to_rules": "", "adopted": int(bool(adopted)), "failed": int(verdict == "failed"),
               "noise": "", "low": "", "high": "", "pairs": 0, "decision": verdict}
        self.records.append(row)
        if not ratios or verdict == "failed":
            return None
        estimate, half, pairs = interval(ratios)
        ratio = math.exp(estimate)
        row.update(ratio="{:.4f}".format(ratio), pairs=pairs,
                   pooled="{:.4f}".format(median(v for values in ratios.values() for v in values)),
                   per_size=" ".join("{}:{:.4f}".format(n, median(ratios[n])) for n in sorted(ratios)),
                   ratio_to_rules="{:.4f}".format(versus_to_rules * ratio))
        if math.isfinite(half):
            row.update(noise="{:.4f}".format(math.expm1(half)), low="{:.4f}".format(math.exp(estimate - half)),
                       high="{:.4f}".format(math.exp(estimate + half)))
        return versus_to_rules * ratio

    def describe(self, point):
        o = self.options(point)
        return " ".join("{}={}".format(k, v) for k, v in o.items()) or "the rules"

    def job(self, point):
        o = self.options(point)
        key = " ".join("{}={}".format(k, v) for k, v in o.items()) or "rules"
        if key not in self.jobs:
            job = interleave.Job(key, self.tuner.machine.command(self.threads, o), False)
            job.key, job.point = key, point
            job.params = dict(o, threads=self.threads)
            self.jobs[key] = job
        return self.jobs[key]

    def library_job(self):
        if self.library is None and self.tuner.use_library:
            self.library_kernel = self.tuner.machine.probe_library(self.threads)
            if self.library_kernel is None:
                self.tuner.use_library = False
                return None
            job = interleave.Job("library", self.tuner.machine.library(self.threads), True)
            job.key, job.point, job.params = "library", None, {"threads": self.threads, "library": True}
            self.library = job
        return self.library

    def move(self, point, index, step):
        """The point `step` rungs from `point` along coordinate `index`, past rungs that change
        nothing at the training sizes; None when the ladder ends or it was measured before."""
        here = self.effect(point)
        rung = point.rungs[index] + step
        if abs(point.rungs[index]) < RUNGS < abs(rung):
            rung = RUNGS if rung > 0 else -RUNGS
        sign = 1 if step > 0 else -1
        while -RUNGS <= rung <= RUNGS:
            candidate = point.moved(index, rung)
            effect = self.effect(candidate)
            if effect != here:
                return None if effect in self.visited or self.too_much_traffic(candidate) else candidate
            rung += sign
        return None

    def too_much_traffic(self, point):
        """Whether the point's blocks read more beyond L2 per FLOP than the rules allow: the
        larger of their bound and what the rules' own blocks read (a core whose L2 keeps no
        block within the bound). Quiet rounds would not see the cost: a neighbour does."""
        blocks = self.effective(point)
        most = max(MAX_OUTER_BYTES_PER_FLOP, outer_bytes_per_flop(self.rules["mc"], self.rules["kc"]))
        return outer_bytes_per_flop(blocks["mc"], blocks["kc"]) > most * (1 + 1e-9)

    # -- measuring and judging

    def compare(self, ours, theirs, rounds):
        """{size: [ratio of ours over theirs, one per round of `rounds` in which both were
        sampled at that size]}: the two samples of one group, taken back to back."""
        def index(job):
            out = {}
            for row in job.rows:
                value = stats._float(row["gflops_best"])
                if int(row["round"]) in rounds and value == value and value > 0:
                    out[(int(row["round"]), int(row["m"]))] = value
            return out
        mine, other = index(ours), index(theirs)
        out = {}
        for key in sorted(k for k in mine if k in other):
            out.setdefault(key[1], []).append(mine[key] / other[key])
        return out

    def cost(self, jobs, size):
        """Seconds the samples of these jobs at one size are expected to take: each job's
        median so far there, else the incumbent's (the first job), else a guess."""
        total = 0.0
        for job in jobs:
            known = job.wall.get(size) or jobs[0].wall.get(size)
            total += median(known) if known else self.tuner.machine.default_cost
        return total

    def reserve(self):
        """Seconds the final rounds are expected to take: the rules, the tuned point and the
        library, --rounds rounds at every size (the rules' samples' cost for each, and a tenth
        more: the tuned point's may be slower)."""
        jobs = [self.job(Point([0] * len(self.coords)))] * (3 if self.tuner.use_library else 2)
        return 1.1 * self.tuner.args.rounds * sum(self.cost(jobs, size) for size in self.sizes)

    def run_rounds(self, jobs, deadline, rounds, whole=False):
        """Every job at every size, `rounds` rounds, through the scheduler; the rounds join
        self.taken as they start. A group of samples (one size, one round) not in the state
        starts only when its expected time fits before the deadline; with `whole`, the rounds
        start only when all of them fit."""
        m = self.measurer
        numbers = list(range(m.round + 1, m.round + rounds + 1))
        if whole:
            ahead = sum(self.cost(jobs, size) for r in numbers for size in self.sizes
                        if m.group_key_at(r, size, jobs) not in m.groups)
            if self.tuner.now() + ahead > deadline:
                raise OutOfTime()
        for r in numbers:
            m.round = r
            self.taken.add(r)
            sizes = list(self.sizes)
            m.rng.shuffle(sizes)
            for size in sizes:
                live = [j for j in jobs if not j.failed and not j.skipped]
                if m.group_key(size, live) not in m.groups and self.tuner.now() + self.cost(live, size) > deadline:
                    raise OutOfTime()
                self.tuner.progress(self)
                m.run_group(size, live)

    def judge(self, decisions, incumbent):
        """Each open decision's paired ratios, interval and verdict, from the batch's rounds."""
        for d in decisions:
            if d.verdict not in ("open", "won"):
                continue
            if d.job.failed or d.job.wrong:
                d.verdict = "failed"
                self.failures.append("threads {}: {}: {}".format(self.setting, self.describe(d.point),
                                                                 d.job.failed or "a result FAILED verification"))
                continue
            d.ratios = self.compare(d.job, incumbent, self.taken)
            d.estimate, d.half, d.pairs = interval(d.ratios)
            d.verdict = verdict(d.estimate, d.half, self.margin)

    def batch(self, candidates, deadline, what):
        """The incumbent and the candidates side by side, --rounds rounds; then, while no
        candidate has won and some decision is open, a round of the incumbent beside the open
        candidate whose interval is widest. The candidate that won (the best of several), or
        None; OutOfTime when the deadline comes first (the decisions recorded as they stand)."""
        incumbent = self.job(self.incumbent)
        self.batch_decisions = decisions = [Decision(p, self.job(p)) for p in candidates]
        for p in candidates:
            self.visited.add(self.effect(p))
        self.tried, self.taken = what, set()
        self.candidates += len(candidates)
        try:
            self.run_rounds([incumbent] + [d.job for d in decisions], deadline - self.reserve(), self.tuner.args.rounds)
            while True:
                if incumbent.failed or incumbent.wrong:
                    raise Failure(1, "step 10 with {} {}".format(self.describe(self.incumbent), incumbent.failed or
                                                                   "gave a wrong result"))
                self.judge(decisions, incumbent)
                self.tuner.progress(self)
                open_ = [d for d in decisions if d.verdict == "open"]
                if not open_ or any(d.verdict == "won" for d in decisions):
                    break
                widest = max(open_, key=lambda d: d.half)
                self.run_rounds([incumbent, widest.job], deadline - self.reserve(), 1)
        except OutOfTime:
            self.judge(decisions, incumbent)
            self.close_batch(decisions, None)
            raise
        won = [d for d in decisions if d.verdict == "won"]
        best = max(won, key=lambda d: d.estimate) if won else None
        for d in decisions:
            if best is not None and d.verdict == "open":
                d.verdict = "superseded"   # its incumbent is no longer the best
        self.close_batch(decisions, best)
        return best.point if best else None

    def close_batch(self, decisions, best):
        """The batch's decisions into the search record, the winner made the incumbent."""
        self.batches += 1
        for d in decisions:
            d.batch, d.name, d.versus = self.batches, self.name(d.point), self.describe(self.incumbent)
        self.decisions += decisions
        chained = {}
        for d in decisions:
            if d.pairs or d.verdict == "failed":   # not one the budget ended before its first pair
                chained[id(d)] = self.record(d.point, self.incumbent, self.chain, d.ratios, d is best, d.verdict)
        if best is not None:
            self.chain = chained[id(best)]
            self.incumbent = best.point
        self.tuner.save_search()

    def search(self, deadline):
        try:
            self.phase = "coarse"
            for index, coord in enumerate(self.coords):
                steps = COARSE
                while True:
                    found = []   # (point, the step it was asked for)
                    for step in steps:
                        p = self.move(self.incumbent, index, step)
                        if p is not None and all(self.effect(p) != self.effect(q) for q, _ in found):
                            found.append((p, step))
                    if not found:
                        break
                    here = self.value(coord, self.incumbent.rungs[index])
                    what = "{} {}".format(coord, ", ".join("x{:.2f}".format(self.value(coord, p.rungs[index]) / here)
                                                           for p, _ in found))
                    won = self.batch([p for p, _ in found], deadline, what)
                    if won is None:
                        break
                    step = next(s for p, s in found if p is won)
                    # An outer candidate won: go on that way; an inner one: the polls refine it.
                    if abs(step) < max(abs(s) for _, s in found if (s > 0) == (step > 0)):
                        break
                    steps = tuple(s if step > 0 else -s for s in FURTHER)
            self.phase = "polish"
            for _ in range(MAX_POLLS):
                found = []
                for index in range(len(self.coords)):
                    for step in (-1, 1):
                        p = self.move(self.incumbent, index, step)
                        if p is not None and all(self.effect(p) != self.effect(q) for q in found):
                            found.append(p)
                if not found or self.batch(found, deadline, "every block one rung either way") is None:
                    break
            self.phase = "switch"
            remaining = list(self.switches)
            while remaining:
                found = [self.incumbent.with_switch(s) for s in remaining]
                found = [p for p in found if self.effect(p) not in self.visited]
                if not found:
                    break
                won = self.batch(found, deadline, "switches " + ", ".join(remaining))
                if won is None:
                    break
                remaining = [s for s in remaining if s not in won.switches]
            self.finished = True
        except OutOfTime:
            self.cut = "the budget ended the search"

    def final_rounds(self, deadline):
        """The rules, the tuned point and the library side by side. The tuned point is dropped
        for the rules when its estimated ratio to them there is not above 1."""
        rules = self.job(Point([0] * len(self.coords)))
        tuned = self.job(self.incumbent)
        library = self.library_job()
        jobs = [rules] + ([tuned] if tuned is not rules else []) + ([library] if library is not None else [])
        self.tried, self.taken, self.batch_decisions = "final: the rules, the tuned point and the library", set(), []
        try:
            self.run_rounds(jobs, deadline, self.tuner.args.rounds, whole=True)
        except OutOfTime:
            self.final = None
            return
        if rules.failed or rules.wrong:
            raise Failure(1, "step 10 (its rules) {}".format(rules.failed or "gave a wrong result"))
        self.final = {}
        if tuned is not rules:
            final = Decision(self.incumbent, tuned)
            self.judge([final], rules)
            self.final["tuned/rules"] = final.ratios if final.verdict != "failed" else {}
            self.dropped = final.verdict == "failed" or final.pairs == 0 or final.estimate <= 0
            self.phase = "final"   # the record: the tuned point measured against the rules themselves
            self.batches += 1
            self.record(self.incumbent, Point([0] * len(self.coords)), 1.0, final.ratios, not self.dropped,
                        "failed" if final.verdict == "failed" else "confirmed" if not self.dropped else "dropped")
        if library is not None and not library.failed:
            self.final["rules/library"] = self.compare(rules, library, self.taken)
            if tuned is not rules and not self.dropped:
                self.final["tuned/library"] = self.compare(tuned, library, self.taken)
        elif library is not None:
            print("{}: the library: {}".format(PROG, library.failed), file=sys.stderr)
        self.tuner.save_search()

    def name(self, point):
        """The options in which a candidate differs from the incumbent (for a line)."""
        mine, theirs = self.options(point), self.options(self.incumbent)
        changed = ["{}={}".format(k, v) for k, v in mine.items() if theirs.get(k) != v]
        return " ".join(changed + ["-" + k for k in theirs if k not in mine]) or self.describe(point)

    def resolution(self):
        """(half-widths of the decisions closed on their intervals, those of the decisions
        still open), as fractions: what the noise let the search tell apart."""
        closed = [math.expm1(d.half) for d in self.decisions if d.verdict in ("won", "lost") and d.pairs >= 3]
        return closed, [math.expm1(d.half) for d in self.decisions if d.verdict == "open"]

    def complete(self):
        """The search ended by itself and the final rounds ran."""
        return self.finished and self.final is not None

    def result(self):
        """The options written to the wisdom file."""
        return {} if self.dropped else self.options(self.incumbent)

    def samples(self):
        jobs = list(self.jobs.values()) + ([self.library] if self.library else [])
        return sum(len(j.rows) for j in jobs)


# ---- the whole run ------------------------------------------------------------------------

class Tuner:
    def __init__(self, args, machine, out, state_path):
        self.args, self.machine, self.out, self.state_path = args, machine, out, state_path
        self.sizes = args.sizes
        self.stop_requested = False
        self.replayed = self.measured = 0
        self.start = time.monotonic()
        self.use_library = not args.no_ref and machine.has_library()
        self.state = None
        self.seed = args.seed
        self.l2 = 0
        self.last_tried = None
        self.tty = sys.stderr.isatty()
        if machine.synthetic:
            machine.clock = 0.0
        self.progress_shown = False
        self.searches = []       # the Search of each thread count, in order (the search record)
        self.identity = []       # the cpu and caches lines
        self.search_path = self.figure_path = None   # STEM.search.csv and STEM.tuning.png (search_paths())

    def now(self):
        return self.machine.clock if self.machine.synthetic else time.monotonic() - self.start

    def state_groups(self, setting):
        return self.state["groups"].setdefault(setting, {})

    def save_search(self):
        """The search record, rewritten whole: every row of every thread count so far."""
        if self.search_path:
            write_whole(self.search_path, search_csv(self.searches, self.identity))

    def save_state(self):
        if self.state_path:
            write_whole(self.state_path, json.dumps(self.state, sort_keys=True, separators=(",", ":")) + "\n")

    def progress(self, search):
        """What is tried, each of its decisions with its interval, the best so far and the
        time left: in place on a terminal; on a file or pipe, a line when a decision moved."""
        best = search.describe(search.incumbent)
        said = "{}: threads {}: {}{}; best {}{}".format(
            PROG, search.setting, search.tried,
            "".join("; " + d.text(search.name(d.point)) for d in search.batch_decisions if d.pairs or d.job.failed),
            best, " ({:+.1f} % on the rules)".format(100 * (search.chain - 1)) if search.chain != 1.0 else "")
        if not self.tty and said == self.last_tried:
            return
        self.last_tried = said
        text = "{}; {:.0f} s left".format(said, max(0.0, self.args.budget - self.now()))
        if self.tty:
            width = shutil.get_terminal_size((100, 20)).columns
            sys.stderr.write("\r" + text[:max(20, width - 1)] + "\x1b[K")
            self.progress_shown = True
        else:
            sys.stderr.write(text + "\n")
        sys.stderr.flush()

    def end_progress(self):
        if self.progress_shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self.progress_shown = False


def search_csv(searches, identity):
    """The search record's text: each search's rows with the search's own columns (the rules'
    blocks, the winner so far, whether it is complete) and the machine's."""
    cpu = identity[0][4:] if identity and identity[0].startswith("cpu ") else ""
    uarch = " ".join(cpu.split()[3:])
    caches = (identity[1].split()[1:4] if len(identity) > 1 else []) + ["", "", ""]
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(SEARCH_COLUMNS)
    for s in searches:
        rules = s.effective(Point([0] * len(s.coords)))
        common = {"rules_mc": rules["mc"], "rules_kc": rules["kc"], "rules_nc": rules["nc"],
                  "rules_one_slice": rules.get("one-slice", ""),
                  "winner": " ".join("{}={}".format(k, v) for k, v in s.result().items()),
                  "complete": int(s.complete()), "kernel": s.kernel, "cpu": cpu,
                  "uarch": "" if uarch == "unknown" else uarch, "l1d": caches[0], "l2": caches[1], "l3": caches[2]}
        for row in s.records:
            merged = dict(row, **common)
            writer.writerow([merged[c] for c in SEARCH_COLUMNS])
    return text.getvalue()


def search_paths(out):
    """(STEM.search.csv, STEM.tuning.png) beside the wisdom file PATH (STEM: PATH without its
    .txt; side_path()), both checked; a file at the CSV's path that is not a search record is
    not replaced."""
    stem = out[:-4] if out.endswith(".txt") else out
    paths = (side_path(stem, ".search.csv"), side_path(stem, ".tuning.png"))
    for path, what in zip(paths, ("the search record", "the figure")):
        writable(path, what)
    target = os.path.realpath(paths[0])
    if os.path.isfile(target):
        try:
            with open(target, encoding="utf-8", errors="replace") as f:
                first = f.readline().rstrip("\r\n")
        except OSError:
            first = None
        if first is not None and not first.startswith(",".join(SEARCH_COLUMNS[:5])):
            raise Failure(3, "cannot write {}: it is not the search record of tune.py (its first line is not "
                             "'{},...'); remove it or give -o".format(paths[0], ",".join(SEARCH_COLUMNS[:5])))
    return paths


def draw_search(tuner):
    """plots/plot_tuning.py draws the search record beside it: in this process when this Python
    has matplotlib, else with /usr/bin/python3 when that one has; else one line says how."""
    import importlib.util
    script = os.path.join(ROOT, "plots", "plot_tuning.py")
    argv = [os.path.abspath(tuner.search_path), "-o", os.path.abspath(tuner.figure_path)]   # never "-x"
    status = None
    try:
        if importlib.util.find_spec("matplotlib") is not None:
            import plot_tuning
            held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})   # its file whole
            try:
                status = plot_tuning.main(argv)
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)
        else:
            python = "/usr/bin/python3"
            if os.access(python, os.X_OK) and os.path.realpath(python) != os.path.realpath(sys.executable) and \
                    subprocess.run([python, "-c", "import matplotlib"], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
                status = subprocess.run([python, script] + argv, stdin=subprocess.DEVNULL).returncode
    except Exception as e:   # the figure is extra: the wisdom file and the record are written
        print("{}: the figure was not drawn: {}".format(PROG, shown(e)), file=sys.stderr)
        status = 1
    if status == 0:
        print("figure: {}".format(tuner.figure_path))
    elif status is None:
        print("figure: not drawn, no matplotlib here (Debian/Ubuntu: apt-get install python3-matplotlib); "
              "draw it with: /usr/bin/python3 {} {} -o {}".format(script, tuner.search_path, tuner.figure_path))
    else:
        print("figure: not drawn (the line above says why)")


def ratio_text(ratios):
    """'1.031 [1.018, 1.044] from 36 pairs': the estimated ratio (interval()) and its 95 %
    interval."""
    if not ratios:
        return "-"
    estimate, half, pairs = interval(ratios)
    bounds = "[{:.3f}, {:.3f}]".format(math.exp(estimate - half), math.exp(estimate + half)) \
        if math.isfinite(half) else "[-]"
    return "{:.3f} {} from {} pairs".format(math.exp(estimate), bounds, pairs)


def per_size_text(ratios):
    return ", ".join("{} {:.3f}".format(size, median(ratios[size])) for size in sorted(ratios))


def resolution_text(search):
    """What the noise let the search resolve: the half-widths of the intervals it closed, and
    the widest still open."""
    closed, open_ = search.resolution()
    if closed:
        text = "decides differences of {:.1f} % or more ({} decision{} closed, intervals +-{:.1f} % to " \
            "+-{:.1f} %)".format(100 * max(closed), len(closed), "s" if len(closed) > 1 else "", 100 * min(closed),
                                 100 * max(closed))
    else:
        text = "no decision closed"
    if open_:
        widest = max(open_)
        text += "; {} open at the end, the widest +-{}".format(
            len(open_), "{:.1f} %".format(100 * widest) if math.isfinite(widest) else "? (under 3 pairs)")
    return text


def wisdom_noise(searches):
    """The wisdom file's noise: the widest half-width among the decisions closed (else open)."""
    widths = [w for s in searches for w in (s.resolution()[0] or s.resolution()[1]) if math.isfinite(w)]
    return max(widths) if widths else 0.0


def read_wisdom(path):
    """The lines of an existing wisdom file, or None when there is none or it is not one."""
    try:
        with open_regular(path) as f:
            text = f.read(1 << 20)
    except (InputError, OSError, UnicodeDecodeError):
        return None
    lines = text.splitlines()
    return lines if lines and lines[0] == HEADER else None


def parse_args(argv):
    class Parser(argparse.ArgumentParser):
        def error(self, message):
            raise Failure(2, message.replace("\n", " "))

    parser = Parser(prog=PROG, description="Search step 10's block sizes and switches on this machine and write "
                    "the winners to a wisdom file (see the top of this file).")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"),
                        help="the build folder whose bin/ holds step10_tuned, cpuinfo, ref_openblas (default: build)")
    parser.add_argument("-o", "--output", help="the wisdom file (default: BUILD/wisdom/step10_tuned.txt)")
    parser.add_argument("--budget", default=str(BUDGET), help="seconds the tuner may measure (default 300)")
    parser.add_argument("--threads", default="both", help="1, all or both (default both)")
    parser.add_argument("--sizes", default=",".join(str(n) for n in SIZES),
                        help="training sizes (default {})".format(",".join(str(n) for n in SIZES)))
    parser.add_argument("--kernel", help="step 10's variant (default: the best this CPU runs; avx2 on an AVX-512 CPU)")
    parser.add_argument("--rounds", default=str(ROUNDS), help="rounds of samples per batch, from 2 to 20 (default 3)")
    parser.add_argument("--margin", default=str(100 * MARGIN),
                        help="per cent by which a candidate must beat the incumbent, from 0.1 to 50 (default 1)")
    parser.add_argument("--seed", help="the order's random seed (default: the state's, else new)")
    parser.add_argument("--fresh", action="store_true", help="ignore the state of an earlier run")
    parser.add_argument("--no-ref", action="store_true", help="leave the library out of the final rounds")
    args = parser.parse_args(argv)
    if args.output == "":
        raise Failure(2, "-o '': an empty name (give a file, or no -o for the default)")
    text = args.budget
    try:
        args.budget = float(text)
    except ValueError:
        raise Failure(2, "--budget '{}': not a number".format(shown(text, 60)))
    if not (args.budget == args.budget and 1 <= args.budget <= 1e6):
        raise Failure(2, "--budget '{}': must be from 1 to 1000000 seconds".format(shown(text, 60)))
    if args.threads not in ("1", "all", "both"):
        raise Failure(2, "--threads '{}': must be 1, all or both".format(shown(args.threads, 60)))
    try:
        args.sizes = interleave.parse_sizes(args.sizes)
    except ValueError as e:
        raise Failure(2, str(e))
    if len(args.sizes) > 16:
        raise Failure(2, "--sizes: {} sizes; at most 16".format(len(args.sizes)))
    if not re.match(r"^[0-9]{1,2}$", args.rounds) or not 2 <= int(args.rounds) <= 20:
        raise Failure(2, "--rounds '{}': must be from 2 to 20".format(shown(args.rounds, 60)))
    args.rounds = int(args.rounds)
    text = args.margin
    try:
        args.margin = float(text) / 100
    except ValueError:
        args.margin = float("nan")
    if not 0.001 <= args.margin <= 0.5:
        raise Failure(2, "--margin '{}': must be a number of per cent from 0.1 to 50".format(shown(text, 60)))
    if args.seed is not None:
        if not re.match(r"^[0-9]{1,9}$", args.seed):
            raise Failure(2, "--seed '{}': not a whole number from 0 to 999999999".format(shown(args.seed, 60)))
        args.seed = int(args.seed)
    if args.kernel is not None and not re.match(r"^[a-z0-9_]{1,32}$", args.kernel):
        raise Failure(2, "--kernel '{}': not a variant name such as avx2".format(shown(args.kernel, 60)))
    return args


def write_whole(path, text):
    """output_file.write with SIGINT and SIGTERM held until it is done: a signal cannot leave
    its temporary file behind or the file half replaced."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        output_file.write(path, text)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def side_path(path, suffix):
    """PATH + suffix, the name of a file beside PATH (its state, its search record); when that
    name is longer than the folder takes (NAME_MAX), the name cut and ended by a hash of the
    whole, so that every name legal for PATH has its side files, always the same ones."""
    folder, name = os.path.split(path)
    try:
        limit = os.pathconf(folder or ".", "PC_NAME_MAX")
    except (OSError, ValueError):
        limit = 255
    whole = os.fsencode(name + suffix)
    if len(whole) <= limit:
        return path + suffix
    tag = "~" + hashlib.sha256(whole).hexdigest()[:12] + suffix
    return os.path.join(folder, os.fsdecode(os.fsencode(name)[:max(1, limit - len(os.fsencode(tag)))]) + tag)


def kind_of(path):
    """'a folder', 'a FIFO', 'a device' ... when something other than a regular file is at path
    (its links followed), else None."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    return "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else \
        "a socket" if stat.S_ISSOCK(mode) else "a device"


def writable(path, what):
    """Checks that a side file (`what`: the state, the search record) can be written there: a
    regular file or nothing (a FIFO would hang its reading or its writing)."""
    kind = kind_of(path)
    if kind:
        raise Failure(3, "cannot write {}: it is {}, not {} of tune.py; remove it or give -o".format(path, kind, what))
    try:
        output_file.check(path)
    except output_file.OutputError as e:
        raise Failure(3, str(e))


def make_folder(path):
    """Makes the folder of PATH; the reason it cannot (an ancestor that is a file, not 'File exists')."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        reason = e.strerror
        above = folder
        while not os.path.lexists(above) and os.path.dirname(above) != above:
            above = os.path.dirname(above)
        if os.path.exists(above) and not os.path.isdir(above):
            reason = "{} is not a folder".format(above)
        raise Failure(3, "cannot write {}: {}".format(path, reason))


def take_lock(path, target):
    """An exclusive flock(2) on .NAME.lock beside the wisdom file's target, as run_all.sh holds
    results/.run_all.lock: the kernel lets it go however the tuner ends (a kill included), so no
    stale lock is left; the empty file stays. Its descriptor; a second tuner is refused."""
    lock = side_path(os.path.join(os.path.dirname(target), "." + os.path.basename(target)), ".lock")
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)
    except OSError as e:
        raise Failure(3, "cannot write {}: its lock {}: {}".format(path, lock, e.strerror))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Failure(3, "cannot write {}: its lock {} is no regular file; remove it".format(path, lock))
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        os.close(fd)
        if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            raise Failure(3, "another tune.py is writing {} (it holds {}): wait for it to end".format(path, lock))
        raise Failure(3, "cannot write {}: its lock {}: {}".format(path, lock, e.strerror))
    except Failure:
        os.close(fd)
        raise
    return fd


def prepare_output(path, fresh, locks):
    """Makes the folder, refuses a file that is not a wisdom file, takes the lock (its
    descriptor joins `locks`), checks that the file and the state beside it can be written and
    reads that state. Returns (the state's path, the state or None); (None, None) for a device."""
    make_folder(path)
    try:
        output_file.check(path)
    except output_file.OutputError as e:
        raise Failure(3, str(e))
    target = os.path.realpath(path)
    if os.path.isfile(target) and read_wisdom(target) is None:
        raise Failure(3, "cannot write {}: it is not a wisdom file of tune.py (its first line is not '{}'); "
                         "remove it or give -o".format(path, HEADER[:40] + "..."))
    if os.path.exists(target) and not os.path.isfile(target):
        return None, None   # a device or FIFO: written through, no state beside it
    locks.append(take_lock(path, target))
    state_path = side_path(path, ".state")
    writable(state_path, "a state file")
    if not os.path.exists(state_path):
        return state_path, None
    state, problem = read_state(state_path)
    if state is None and problem is None:
        raise Failure(3, "cannot write {}: it is not a state file of tune.py; remove it".format(state_path))
    if problem and not fresh:
        raise Failure(3, "cannot use {}: a damaged state of tune.py ({}); remove it or give --fresh".format(
            state_path, problem))
    return state_path, state


MAX_STATE_BYTES = 1 << 28


def read_state(path):
    """(the state, None); (None, None) when the file is no state of tune.py; (None, what is
    damaged) when it is one that cannot be replayed: checked whole before any of it is used."""
    try:
        with open_regular(path) as f:
            text = f.read(MAX_STATE_BYTES + 1)
    except (InputError, OSError, UnicodeDecodeError):
        return None, None
    ours = STATE_TOOL in text[:MAX_STATE_BYTES]
    if len(text) > MAX_STATE_BYTES:
        return None, "larger than {} bytes".format(MAX_STATE_BYTES) if ours else None
    try:
        state = json.loads(text)
    except RecursionError:
        return None, "nested too deep" if ours else None
    except ValueError as e:
        return None, "not JSON: {}".format(shown(e, 80)) if ours else None
    if not isinstance(state, dict) or state.get("tool") != STATE_TOOL:
        return None, None
    problem = state_problem(state)
    return (None, problem) if problem else (state, None)


def state_problem(state):
    """What in a state of tune.py cannot be replayed, or "": its seed, and every group of every
    thread count a {job: {"wall": seconds, ["row": {column: text}], ["failed": text]}}, each row
    one sample as interleave.py takes it (a whole m and threads, GFLOPS above 0 and finite)."""
    seed = state.get("seed")
    if type(seed) is not int or not 0 <= seed <= 999999999:
        return "its seed is not a whole number from 0 to 999999999"
    groups = state.get("groups")
    if not isinstance(groups, dict):
        return "its groups are not a table"
    for setting, table in groups.items():
        if setting not in ("1", "all") or not isinstance(table, dict):
            return "its groups of threads '{}' are not a table".format(shown(setting, 20))
        for key, group in table.items():
            if not isinstance(group, dict):
                return "group {} is not a table".format(shown(key, 60))
            for job, record in group.items():
                problem = sample_problem(record)
                if problem:
                    return "group {}, {}: {}".format(shown(key, 60), shown(job, 60), problem)
    return ""


def sample_problem(record):
    if not isinstance(record, dict):
        return "not a table"
    wall = record.get("wall")
    if type(wall) not in (int, float) or not (math.isfinite(wall) and 0 <= wall <= 1e6):
        return "its wall time is not a number of seconds from 0"
    if not isinstance(record.get("failed", ""), str):
        return "its failure is not a text"
    if "row" not in record:
        return "" if record.get("failed") else "neither a row nor a failure"
    row = record["row"]
    if not isinstance(row, dict) or not all(isinstance(v, str) for v in row.values()):
        return "its row is not a table of texts"
    for column in ("m", "threads", "gflops_best", "gflops_median", "verified", "max_rel_err"):
        if column not in row:
            return "its row has no {}".format(column)
    if not (re.match(r"^[0-9]{1,9}$", row["m"]) and re.match(r"^[0-9]{1,6}$", row["threads"]) and
            int(row["threads"]) >= 1):
        return "its row's m or threads is not a whole number"
    for column, positive in (("gflops_best", True), ("gflops_median", False)):
        try:
            value = float(row[column])
        except ValueError:
            value = float("nan")
        if not (math.isfinite(value) and (value > 0 if positive else value >= 0) and value < 1e9):
            return "its row's {} '{}' is not a GFLOPS above 0".format(column, shown(row[column], 20))
    return ""


def main(argv, machine=None):
    """The tuner (see the top of this file); its exit status. On SIGTERM it ends by that signal,
    the run under way killed with it, every file whole and the lock let go."""
    held = {"locks": [], "sigterm": signal.getsignal(signal.SIGTERM)}
    try:
        return tune(argv, machine, held)
    except cli.Terminated:
        pass   # the scratch folders are removed (tune's finally): end by the signal
    finally:
        for fd in held["locks"]:
            os.close(fd)
        signal.signal(signal.SIGTERM, held["sigterm"])
    cli.end_by(signal.SIGTERM)
    return 128 + signal.SIGTERM


def tune(argv, machine, held):
    try:
        for word in argv:
            if word == "--":
                break
            if word in ("-h", "--help"):
                print(__doc__.strip())
                return 0
        args = parse_args(argv)
    except Failure as e:
        print("{}: {}".format(PROG, e), file=sys.stderr)
        return e.status
    own_machine = machine is None
    if own_machine:
        machine = Real(args.build, args.kernel)
    cli.on_sigterm()   # after the machine's scratch folder: output_file set its own handler with it
    previous = None
    searches = []
    tuner = None
    try:
        tuner, kernel = start(args, machine, held, searches)
        previous = signal.signal(signal.SIGINT, lambda *_: on_sigint(tuner))
        for index, search in enumerate(searches):
            # An equal share of what is left: a search that closed its decisions early leaves
            # its time to the next. Its final rounds are kept out of its share (reserve()).
            search.search(tuner.now() + (args.budget - tuner.now()) / (len(searches) - index))
            search.final_rounds(args.budget)
        tuner.end_progress()
    except (Interrupted, KeyboardInterrupt, Failure, output_file.OutputError, cli.Terminated) as e:
        if tuner is not None:
            tuner.end_progress()
        if isinstance(e, cli.Terminated):
            raise
        if isinstance(e, Interrupted):
            if tuner.state_path:
                tuner.save_state()
            print("{}: interrupted: nothing written but the state ({}: {} samples kept); the same command goes "
                  "on from there".format(PROG, tuner.state_path or "none, the output is no file",
                                         tuner.measured + tuner.replayed), file=sys.stderr)
            return 130
        print("{}: {}".format(PROG, "interrupted" if isinstance(e, KeyboardInterrupt) else e), file=sys.stderr)
        return 130 if isinstance(e, KeyboardInterrupt) else e.status if isinstance(e, Failure) else 3
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        for s in searches:
            s.measurer.close()
        if own_machine:
            machine.close()
    return finish(tuner, searches, kernel)


def start(args, machine, held, searches):
    """Checks the output, reads the state and makes a Search per thread count (into
    `searches`): (the Tuner, the kernel step 10 runs)."""
    machine.check()
    out = args.output or os.path.join(machine.build if not machine.synthetic else ".", "wisdom",
                                      "step10_tuned.txt")
    state_path, old = prepare_output(out, args.fresh, held["locks"])
    record_paths = search_paths(out) if state_path else (None, None)
    identity = machine.identity()
    settings = [("1", 1), ("all", machine.ncpu())]
    if args.threads != "both":
        settings = [s for s in settings if s[0] == args.threads]
    if machine.ncpu() == 1 and args.threads == "both":
        settings = settings[:1]   # all cores are one: the one-thread search is both lines
    tuner = Tuner(args, machine, out, state_path)
    tuner.search_path, tuner.figure_path = record_paths
    tuner.identity, tuner.searches = identity, searches
    caches = identity[1].split()
    tuner.l2 = int(caches[2]) if len(caches) >= 4 and caches[2].isdigit() else 0
    # The state: used when it is for the same arguments, CPU and executables.
    fingerprint = {"identity": identity, "kernel": args.kernel, "sizes": args.sizes, "rounds": args.rounds,
                   "margin": args.margin, "threads": [s[0] for s in settings], "cpus": machine.ncpu(),
                   "library": tuner.use_library, "machine": machine.fingerprint()}
    old = None if args.fresh else old
    if old is not None and (old.get("fingerprint") != fingerprint or
                            (args.seed is not None and old.get("seed") != args.seed)):
        print("{}: {} is for other arguments, another CPU or another build: measuring afresh".format(
            PROG, state_path), file=sys.stderr)
        old = None
    if args.seed is None:
        args.seed = old["seed"] if old else random.SystemRandom().randrange(1000000000)
    tuner.seed = args.seed
    tuner.state = old if old else {"tool": STATE_TOOL, "format": 1, "fingerprint": fingerprint,
                                   "seed": args.seed, "groups": {}}
    if old:
        print("{}: resuming from {} ({} groups of samples measured before)".format(
            PROG, state_path, sum(len(g) for g in old["groups"].values())), file=sys.stderr)
    for index, (name, threads) in enumerate(settings):
        searches.append(Search(tuner, name, threads, index))
    cli.on_sigterm()   # and after the searches' (a made-up machine has none of its own)
    single_threaded(args, machine, searches)
    kernels = sorted(set(s.kernel for s in searches))
    if len(kernels) != 1:
        raise Failure(1, "step 10 runs different kernels on one thread and on all: {}".format(", ".join(kernels)))
    kernel = kernels[0]
    if tuner.use_library:
        for s in searches:
            if s.library_job() is None:
                break
    return tuner, kernel


def wisdom_lines(tuner, searches, kernel):
    """The wisdom file: this run's thread counts, and the others' lines from the file there
    when it is of the same CPU, caches and kernel."""
    args, machine, out, identity = tuner.args, tuner.machine, tuner.out, tuner.identity
    lines = [HEADER, "format 1"] + identity + ["kernel " + kernel]
    results = {s.setting: s.result() for s in searches}
    if len(searches) == 1 and machine.ncpu() == 1 and args.threads == "both":
        results["all"] = results["1"]
    kept = {}
    old_lines = read_wisdom(os.path.realpath(out)) if os.path.isfile(os.path.realpath(out)) else None
    if old_lines and old_lines[2:5] == identity + ["kernel " + kernel]:
        for line in old_lines:
            words = line.split()
            if len(words) >= 2 and words[0] == "threads" and words[1] not in results:
                if re.match(r"^threads (1|all)( [a-z][a-z-]{0,31}=[0-9]{1,5})*$", line):
                    kept[words[1]] = line
                else:   # step 10 would refuse the whole file for it
                    print("{}: the threads {} line of {} is not kept: not NAME=VALUE words".format(
                        PROG, shown(words[1], 20), out), file=sys.stderr)
    for name in ("1", "all"):
        if name in results:
            lines.append(" ".join(["threads", name] + ["{}={}".format(k, v) for k, v in results[name].items()]))
        elif name in kept:
            lines.append(kept[name])
    lines.append("noise {:.3f}".format(wisdom_noise(searches)))
    return lines


def finish(tuner, searches, kernel):
    """Writes the wisdom file and the record, removes or keeps the state, reports and draws;
    the exit status."""
    out = tuner.out
    lines = wisdom_lines(tuner, searches, kernel)
    try:
        write_whole(out, "\n".join(lines) + "\n")
        tuner.save_search()   # the winner and whether each search is complete, as written
        if tuner.state_path and all(s.complete() for s in searches):
            if os.path.exists(tuner.state_path):
                os.unlink(tuner.state_path)
        elif tuner.state_path:
            tuner.save_state()   # what was measured, and the seed, for the same command again
    except output_file.OutputError as e:
        print("{}: {}".format(PROG, e), file=sys.stderr)
        return 3
    except OSError:
        pass
    report(tuner, searches, tuner.identity, kernel, out)
    if tuner.search_path:
        print("search: {}".format(tuner.search_path))
        if any(s.records for s in searches):
            draw_search(tuner)
        else:
            print("figure: not drawn, no batch was judged")
    failures = [f for s in searches for f in s.failures]
    for f in failures:
        print("{}: {}".format(PROG, f), file=sys.stderr)
    return 1 if failures else 0


def single_threaded(args, machine, searches):
    """An all-CPU search whose runs take one thread (OMP_THREAD_LIMIT=1) would tune the
    "threads all" line on one thread: --threads all is refused, --threads both leaves it out."""
    lone = [s for s in searches if s.setting == "all" and s.threads == 1 and machine.ncpu() > 1]
    if not lone:
        return
    why = "step 10 runs on 1 thread here{}".format(
        " (OMP_THREAD_LIMIT={})".format(shown(os.environ["OMP_THREAD_LIMIT"], 20))
        if not machine.synthetic and os.environ.get("OMP_THREAD_LIMIT") else "")
    if args.threads == "all":
        raise Failure(2, "--threads all: {}: nothing to tune on {} CPUs (give --threads 1)".format(why, machine.ncpu()))
    print("{}: threads all is not tuned: {}".format(PROG, why), file=sys.stderr)
    lone[0].measurer.close()
    searches.remove(lone[0])


def on_sigint(tuner):
    if tuner.stop_requested:
        raise KeyboardInterrupt()
    tuner.stop_requested = True
    tuner.end_progress()
    print("{}: stopping after this group of samples (Ctrl-C again stops at once)".format(PROG), file=sys.stderr,
          flush=True)


def report(tuner, searches, identity, kernel, out):
    print("step 10 ({}) tuned on {} [{}], sizes {}, {} rounds a batch, margin {:g} % (seed {})".format(
        kernel, identity[0][4:], identity[1][7:], ",".join(str(n) for n in tuner.sizes), tuner.args.rounds,
        100 * tuner.args.margin, tuner.seed))
    for s in searches:
        search_report(s)
    print("{} samples measured, {} replayed from the state; {:.0f} s of the {:.0f} s budget".format(
        tuner.measured, tuner.replayed, tuner.now(), tuner.args.budget))
    if not all(s.complete() for s in searches):
        print("the search and its final rounds did not finish in the budget: the same command goes on from "
              "the state ({})".format(tuner.state_path or "none: the output is no file"))
    print("wisdom: {}".format(out))


def search_report(s):
    """One thread count's part of the report: the rules, the result, every decision with its
    interval, the final rounds' ratios and what the noise let it resolve."""
    rules = " ".join("{}={}".format(k, s.rules[k]) for k in OPTION_ORDER if k in s.rules)
    tuned = s.result()
    print("threads {} ({} thread{}):".format(s.setting, s.threads, "s" if s.threads > 1 else ""))
    print("  rules  {}".format(rules))
    if tuned:
        print("  tuned  {}".format(" ".join("{}={}".format(k, v) for k, v in tuned.items())))
    elif s.dropped:
        print("  tuned  the rules: the final rounds did not confirm {} (tuned/rules {})".format(
            s.describe(s.incumbent), ratio_text(s.final.get("tuned/rules", {}))))
    elif s.candidates == 0 and not s.finished:
        print("  tuned  the rules: no candidate measured yet")
    else:
        print("  tuned  the rules: no candidate beat them by the margin")
    batch = None
    for d in s.decisions:
        if d.batch != batch:
            batch = d.batch
            print("  batch {} vs {}:".format(batch, d.versus))
        print("    {}".format(d.text(d.name)))
    if s.final is None:
        print("  paired ratios: none, no time was left for the final rounds{}".format(
            " (the tuned point is not confirmed)" if tuned else ""))
    else:
        for name, label in (("tuned/rules", "tuned / rules"), ("rules/library", "rules / library"),
                            ("tuned/library", "tuned / library")):
            ratios = s.final.get(name)
            if ratios:
                print("  {:<16} {}   per size: {}".format(label, ratio_text(ratios), per_size_text(ratios)))
        if s.library_kernel:
            print("  library: {}".format(s.library_kernel))
    print("  {}".format(resolution_text(s)))
    print("  {} candidates, {} samples; {}".format(
        s.candidates, s.samples(), "search finished" if s.finished else s.cut or "search not run"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
