#!/usr/bin/env python3
"""The autotuner of step 10: searches its block sizes and switches on this machine, on one
thread and on all cores, and writes the winners to a wisdom file that step 10 reads.

    tools/tune.py [--build DIR] [-o PATH] [--budget S] [--threads 1|all|both] [--sizes LIST]
                  [--kernel NAME] [--rounds N] [--margin PCT] [--seed N] [--fresh] [--no-ref]

docs/contracts.md, "The tuner", has the whole contract: the options, the search, its decisions,
the files and the report; docs/harness.md, "The tuner's decisions", why candidates are compared
in pairs.

Output: the wisdom file (default BUILD/wisdom/step10_tuned.txt), its state PATH.state
(replayed by the same command, removed when the searches end), the search record
STEM.search.csv and its figure STEM.tuning.png (plots/plot_tuning.py). Exit status: 0
written; 1 a run of step 10 failed; 2 usage error or not built; 3 a file cannot be written
or is not tune.py's; 77 this CPU cannot run step 10; 130 interrupted.

For tests, main(argv, machine=Synthetic(...)) runs the real search on a made-up machine.
"""
import argparse
import csv
import io
import json
import math
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "plots"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import output_file  # noqa: E402  (plots/output_file.py: every file goes through it)
import cli  # noqa: E402  (plots/cli.py: children in their own process group, SIGTERM raised)
from harness_csv import InputError, open_regular, tunables  # noqa: E402  (a regular file read; params' {name: value})
import samples as stats  # noqa: E402  (plots/samples.py: medians, a sample's CSV, paired ratios' intervals)
import interleave  # noqa: E402  (tools/interleave.py: the scheduler that takes the samples)
import machine as machine_record  # noqa: E402  (plots/machine.py: cpuinfo --json, the machine's one record)
from block_map import Failure  # noqa: E402  (a reason to stop and its exit status)

PROG = "tune.py"
HEADER = "# gemm-steps wisdom: step 10's parameters measured best on this CPU (tools/tune.py)"
STATE_TOOL = "gemm-steps tools/tune.py state"
SIZES = (640, 896, 1280, 1792)
ROUNDS = 3
BUDGET = 300.0
RUNGS = 8                        # ladder rungs either side of the rules' value: x1/4 .. x4
RUNG = 2.0 ** 0.25
COARSE = (-4, -2, 2, 4)          # x0.5, x0.71, x1.41, x2
FURTHER = (2, 4)                 # an extension, in the direction that won
MAX_POLLS = 8
BLOCKS = ("mc", "kc", "nc")
SEARCH_ORDER = ("kc", "mc", "nc", "one-slice")
OPTION_ORDER = ("mc", "kc", "nc", "one-slice")
SWITCHES = ("no-copy-b", "no-prefetch", "no-even-k", "no-vector-pack")
# Options of two forms, the rules picking one per core: the search tries the other as a switch.
CHOICES = {"fold": (1, 2)}
SWITCH_ORDER = SWITCHES + tuple(CHOICES)
MARGIN = 0.01                    # a candidate must beat the incumbent by this much (--margin, in %)
MAX_BLOCK = 65536                # the largest --NAME N the step takes
# What step 10's --plan must give for every size (the effect of a point, its traffic beyond L2).
PLAN_KEYS = ("path", "mc", "kc", "nc", "outer_bytes_per_flop", "max_outer_bytes_per_flop")
DEFAULT_COST = 0.5               # seconds a sample is taken to cost before one was timed
SAMPLE_TIME, MAX_REPS, SAMPLE_TIMEOUT = 0.1, 20, 120.0   # a sample, as interleave.py's defaults
PROBE_SIZE = 16
MAX_STATE_BYTES = 1 << 28
# The search record (STEM.search.csv): a candidate's columns, then the search's.
SEARCH_COLUMNS = ("threads", "thread_count", "phase", "batch", "options", "mc", "kc", "nc", "one_slice", "switches",
                  "vs", "ratio", "pooled", "per_size", "vs_to_rules", "ratio_to_rules", "adopted", "failed", "noise",
                  "low", "high", "pairs", "decision", "rules_mc", "rules_kc", "rules_nc", "rules_one_slice", "winner",
                  "complete", "kernel", "cpu", "uarch", "l1d", "l2", "l3")
# A sample's columns the state keeps (what the pairs, the verification and the report read).
KEPT_COLUMNS = ("step", "m", "n", "k", "threads", "gflops_best", "gflops_median", "seconds_best", "max_rel_err",
                "verified", "kernel", "reps", "cpu_wait")


def words(options):
    """'mc=112 kc=1056': options as a line gives them."""
    return " ".join("{}={}".format(k, v) for k, v in options.items())


def shown(text, limit=300):
    return interleave.shown(str(text), limit)


def four(value):
    return "{:.4f}".format(value)


class Decision:
    """A candidate against the incumbent of its batch: its job, paired ratios and verdict."""
    def __init__(self, point, job):
        self.point, self.job = point, job
        self.ratios, self.estimate, self.half, self.pairs = {}, 0.0, float("inf"), 0
        self.verdict = "open"

    def text(self, name):
        if self.verdict == "failed":
            return "{} failed".format(name)
        low, high = (100.0 * math.expm1(self.estimate + s * self.half) for s in (-1, 1))
        bounds = "[{:+.1f}, {:+.1f}]".format(low, high) if self.pairs >= 3 else "[-]"
        return "{} {:+.1f} % {} {}".format(name, 100.0 * math.expm1(self.estimate), bounds, self.verdict)


class OutOfTime(Exception):
    pass


class Interrupted(Exception):
    pass


# ---- the machines: the real one (the executables) and a made-up one (tests) -------------------

class Real:
    """Step 10, the library and cpuinfo of a build folder."""
    synthetic = False
    default_cost = DEFAULT_COST

    def __init__(self, build, kernel):
        self.build = os.path.abspath(build)
        self.exe, self.ref_exe, self.cpuinfo = (os.path.join(self.build, "bin", n)
                                                for n in ("step10_tuned", "ref_openblas", "cpuinfo"))
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
        """The cpu and caches lines of the wisdom file, as cpuinfo --json gives them."""
        try:
            return list(machine_record.from_build(self.build).identity.wisdom_lines)
        except InputError as e:
            raise Failure(2, "{} (cmake --build {})".format(shown(e), self.build))

    def prefix(self, threads, library):
        # One environment for every run, GEMM_WISDOM=off; one thread pinned to the last CPU, all
        # on every CPU (OpenMP's bound one per core, the library's pool left unbound).
        env = ["env", "-u", "OMP_PROC_BIND", "-u", "OMP_PLACES", "-u", "OPENBLAS_CORETYPE", "-u", "BLIS_ARCH_TYPE",
               "GEMM_WISDOM=off"]
        if not library:
            env += ["OMP_PROC_BIND=close", "OMP_PLACES=cores"]
        elif self.kernel == "avx2":
            env.append("OPENBLAS_CORETYPE=Haswell")   # the library's AVX2 kernels beside ours
        if not self.taskset:
            return env
        cpus = [self.cpus[-1]] if threads == 1 else self.cpus
        return env + [self.taskset, "-c", ",".join(str(c) for c in cpus)]

    def command(self, threads, options):
        out = self.prefix(threads, False) + [self.exe, "--threads", str(threads)]
        if self.kernel:
            out += ["--kernel", self.kernel]
        for name, value in options.items():
            out += ["--" + name, str(value)]
        return out

    def library(self, threads):
        return self.prefix(threads, True) + [self.ref_exe, "--threads", str(threads)]

    def run(self, command, what, at, stdout=subprocess.DEVNULL):
        """A run of `command` (`what` names the program, `at` the run): exit 2 and 77 stop the tuner."""
        try:
            done = cli.run(command, timeout=120, stdin=subprocess.DEVNULL, stdout=stdout, stderr=subprocess.PIPE)
        except subprocess.TimeoutExpired:
            raise Failure(1, "{} did not finish in 120 s".format(at))
        except OSError as e:
            raise Failure(2, "{}: cannot run: {}".format(what, e.strerror))
        line = shown(interleave.last_line(done.stderr)) or "exit {}".format(done.returncode)
        if done.returncode in (2, 77):
            raise Failure(done.returncode, line)   # the program's own line, which names it
        if done.returncode != 0:
            raise Failure(1, "{} failed ({})".format(at, line))
        return done, line

    def run_probe(self, command, what):
        """One unverified run at a tiny size: its CSV row."""
        path, at = os.path.join(self.tmp, "probe.csv"), "{}: its run at n = {}".format(what, PROBE_SIZE)
        if os.path.exists(path):
            os.unlink(path)
        _, line = self.run(command + ["--sizes", str(PROBE_SIZE), "--reps", "1", "--warmup", "0", "--no-verify",
                                      "--csv", path], what, at)
        if not os.path.isfile(path):
            raise Failure(1, "{} failed ({})".format(at, line))
        _, rows = stats.read_samples(path)
        if len(rows) != 1:
            raise Failure(1, "{} wrote {} rows, not one".format(at, len(rows)))
        return rows[0]

    def plans(self, threads, options, sizes):
        """[{key: value} of step 10's --plan at each size]: what a run with these options would do."""
        at = "step10_tuned --plan with {}".format(words(options) or "the rules")
        command = self.command(threads, options) + ["--sizes", ",".join(str(n) for n in sizes), "--plan"]
        done, _ = self.run(command, "step10_tuned", at, stdout=subprocess.PIPE)
        return parse_plans(done.stdout.decode("utf-8", "replace"), sizes, at)

    def probe(self, threads):
        """(kernel, {tunable: the rules' value}, {tunable: unit it is rounded to}, threads it ran on)."""
        row = self.run_probe(self.command(threads, {}), "step10_tuned")
        rules = tunables(row.get("params") or "")
        if not all(name in rules for name in BLOCKS):
            raise Failure(2, "{}: its CSV has no mc, kc and nc in params: not step 10".format(self.exe))
        # The units are what --mc 1 --kc 1 --nc 1 runs as; --min-kflops 1 shares even n = 16
        # out, so its threads column is the team the step can have here (OMP_THREAD_LIMIT).
        ones = {name: 1 for name in BLOCKS + (("one-slice",) if "one-slice" in rules else ())}
        shared = self.run_probe(self.command(threads, dict(ones, **{"min-kflops": 1})), "step10_tuned")
        unit = tunables(shared.get("params") or "")
        units = {name: max(16 if name in ("kc", "one-slice") else 1, unit.get(name, 1)) for name in ones}
        ran = shared.get("threads", "").strip()
        return row.get("kernel", "").strip(), rules, units, int(ran) if ran.isdigit() and int(ran) >= 1 else threads

    def probe_library(self, threads):
        """The library's kernel column, or None when this CPU cannot run it (exit 77)."""
        try:
            return self.run_probe(self.library(threads), "ref_openblas").get("kernel", "").strip()
        except Failure as e:
            if e.status != 77:
                raise
            print("{}: the library is left out: {}".format(PROG, e), file=sys.stderr)
            return None

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


def parse_plans(text, sizes, what):
    """[{key: value} at each size] of --plan's lines "n=SIZE key=value ..."; Failure when one is missing."""
    plans = {}
    for line in text.splitlines():
        fields = dict(w.split("=", 1) for w in line.split() if "=" in w)
        if fields.get("n", "").isdigit():
            plans[int(fields.pop("n"))] = fields
    for n in sizes:
        if not all(re.match(r"^(direct|packed|[0-9]+(\.[0-9]+)?)$", plans.get(n, {}).get(k, "")) for k in PLAN_KEYS):
            raise Failure(1, "{}: no plan 'n={} {}=...' in its output".format(what, n, "=... ".join(PLAN_KEYS)))
    return [plans[n] for n in sizes]


class Synthetic:
    """A made-up machine of 2 CPUs for tests: measure(params, size, round) -> GFLOPS, params the candidate's
    options and "threads" (the library's: "library": True); a sample costs `sample_seconds` of the budget.
    plan(options, size) -> {key: value} stands in for step 10's --plan; by default a step whose every option
    is its block and which has no traffic bound."""
    synthetic, kernel, cpus = True, "avx512", [0, 1]
    units = {"mc": 14, "kc": 16, "nc": 32, "one-slice": 16}

    def __init__(self, measure, rules, identity=None, sample_seconds=0.25, plan=None):
        self.measure, self.rules = measure, dict(rules)
        self.plan = plan or self.rules_plan
        self.ident = list(identity or ["cpu GenuineIntel 6 207 Emerald Rapids", "caches 49152 2097152 314572800"])
        self.sample_seconds = self.default_cost = sample_seconds
        self.clock = 0.0

    def close(self):
        pass

    check = close

    def ncpu(self):
        return len(self.cpus)

    def has_library(self):
        return True

    def identity(self):
        return list(self.ident)

    def command(self, threads, options):
        return ["synthetic"]

    def library(self, threads):
        return ["synthetic-library"]

    def probe(self, threads):
        rules = dict(self.rules, **{name: self.rules.get(name, 0) for name in SWITCHES})
        units = {name: self.units.get(name, 1) for name in rules if name in OPTION_ORDER}
        return self.kernel, rules, units, threads

    def probe_library(self, threads):
        return "synthetic library"

    def rules_plan(self, options, size):
        """A step that runs the options over the rules at every size, packed, with no traffic bound."""
        blocks = {k.replace("-", "_"): v for k, v in dict(self.rules, **options).items()}
        return dict(blocks, path="packed", outer_bytes_per_flop=0, max_outer_bytes_per_flop=0)

    def plans(self, threads, options, sizes):
        return [dict(self.plan(dict(options), n), threads=threads) for n in sizes]

    def fingerprint(self):
        return {"synthetic": True}


# ---- the samples: interleave.py's scheduler, with a state that is replayed ---------------------

class Measurer(interleave.Scheduler):
    """interleave.py's Scheduler for one thread count: a complete group's samples (one size of one
    round) go to the state; a group found there is replayed instead of measured."""

    def __init__(self, tuner, setting, threads, seed):
        args = argparse.Namespace(seed=seed, no_verify=False, max_reps=MAX_REPS, sample_time=SAMPLE_TIME,
                                  timeout=SAMPLE_TIMEOUT, tolerance=stats.TOLERANCE, rounds=tuner.args.rounds,
                                  max_samples=12, budget=None)
        super().__init__(args, [], list(tuner.sizes), None)
        self.run_id = "tune"
        self.tuner, self.setting, self.threads = tuner, setting, threads
        self.groups = tuner.state["groups"].setdefault(setting, {})
        self.replay, self.pending, self.aborted = None, {}, False

    def close(self):
        pass   # no working files: interleave.py's samples come through a pipe (tests close a Search's anyway)

    def save(self, job):
        pass   # the state is written per group (run_group)

    def group_key(self, size, jobs, round_=None):
        return "{}|{}|{}".format(self.round if round_ is None else round_, size, ";".join(sorted(j.key for j in jobs)))

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
        if machine.synthetic:   # a sample as the state keeps it, taken as a replayed one is
            gflops = repr(float(machine.measure(dict(job.params), size, self.round)))
            machine.clock += machine.sample_seconds
            record = {"wall": machine.sample_seconds,
                      "row": {"step": "10_tuned", "m": str(size), "n": str(size), "k": str(size),
                              "threads": str(self.threads), "gflops_best": gflops, "gflops_median": gflops,
                              "seconds_best": "0", "max_rel_err": "nan", "verified": "0", "kernel": "synthetic",
                              "cpu_wait": "0"}}
            self.restore(job, size, record)
        else:
            before, walls = len(job.rows), len(job.wall.get(size, []))
            super().sample(job, size)
            if self.tuner.stop_requested and job.failed:
                # Ctrl-C reached the run too: not a result, and the group is not kept.
                job.failed = ""
                del job.rows[before:]
                del job.wall.get(size, [])[walls:]
                self.aborted = True
                return
            record = {"wall": job.wall[size][-1] if job.wall.get(size) else 0.0}
            if len(job.rows) > before:
                record["row"] = {k: v for k, v in job.rows[-1].items() if k in KEPT_COLUMNS}
            if job.failed:
                record["failed"] = job.failed
        self.tuner.measured += 1
        self.pending[job.key] = record

    def restore(self, job, size, record):
        self.seq += 1
        job.wall.setdefault(size, []).append(float(record.get("wall", 0.0)))
        if "row" in record:
            row = dict(record["row"], run=self.run_id, round=str(self.round), seq=str(self.seq))
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
        return Point(self.rungs[:index] + (rung,) + self.rungs[index + 1:], self.switches)

    def with_switch(self, name):
        return Point(self.rungs, self.switches + (name,))


class Search:
    def __init__(self, tuner, setting, threads, index):
        self.tuner, self.setting, self.sizes = tuner, setting, list(tuner.sizes)
        self.kernel, self.rules, self.units, ran = tuner.machine.probe(threads)
        self.threads = min(threads, ran)   # what the samples run on (OMP_THREAD_LIMIT)
        # one-slice is a coordinate where the rules take some k deeper than kc in one slice.
        self.coords = [c for c in SEARCH_ORDER if c in BLOCKS or
                       (c == "one-slice" and self.rules.get("one-slice", 0) > self.rules["kc"])]
        self.switches = [s for s in SWITCHES if self.rules.get(s, 1) == 0] + \
            [c for c in CHOICES if self.rules.get(c) in CHOICES[c]]
        self.measurer = Measurer(tuner, setting, self.threads, tuner.seed * 16 + index)
        self.plan_cache = {}        # {options' words: their plans at the training sizes}
        self.jobs, self.library, self.library_kernel = {}, None, None
        self.rules_point = self.incumbent = Point([0] * len(self.coords))
        self.visited = {self.effect(self.incumbent)}
        self.margin = tuner.args.margin
        self.decisions, self.batch_decisions = [], []   # every one judged (the report); the batch's
        self.taken = set()          # the rounds of the batch under way
        self.candidates = self.batches = 0   # batches judged, the final rounds included
        self.finished, self.dropped = False, False   # dropped: the final rounds did not confirm the tuned point
        self.cut = self.tried = ""  # why the search ended early; what is being tried
        self.failures = []          # candidates whose runs failed
        self.final = None           # {"tuned/rules": ratios, "rules/library": ..., "tuned/library": ...}
        self.phase = "coarse"       # coarse, polish, switch; final (the final rounds' record row)
        self.records = []           # the search record's rows (record())
        self.chain = 1.0            # the incumbent's ratio to the rules, chained (record())

    def value(self, coord, rung):
        unit = self.units.get(coord, 1)
        v = max(unit, int(round(self.rules[coord] * RUNG ** rung / unit)) * unit)
        return min(v, MAX_BLOCK // unit * unit)

    def options(self, point):
        """{option: value} a point runs with, in OPTION_ORDER then its switches'. A point that
        sets a block passes the rules' one-slice depth along (--kc alone turns it off)."""
        rungs = dict(zip(self.coords, point.rungs))
        out = {c: self.value(c, rungs[c]) for c in BLOCKS if rungs[c] != 0}
        if "one-slice" in rungs:
            depth = self.value("one-slice", rungs["one-slice"])
            if rungs["one-slice"] != 0 or (out and depth > out.get("kc", self.rules["kc"])):
                out["one-slice"] = depth
        for name in point.switches:   # a switch is 1; a choice its other form
            out[name] = next(v for v in CHOICES[name] if v != self.rules[name]) if name in CHOICES else 1
        return out

    def effective(self, point):
        """{mc, kc, nc[, one-slice]} the point runs with: the blocks it asks for, else the rules'; one-slice,
        the deepest k taken in one slice, as the step's plan says."""
        o = self.options(point)
        out = {c: o.get(c, self.rules[c]) for c in BLOCKS}
        if "one-slice" in self.rules:
            out["one-slice"] = int(self.plans(point)[0]["one_slice"])
        return out

    def plans(self, point):
        o = self.options(point)
        if words(o) not in self.plan_cache:
            self.plan_cache[words(o)] = self.tuner.machine.plans(self.threads, o, self.sizes)
        return self.plan_cache[words(o)]

    def effect(self, point):
        """What the point runs at the training sizes: the step's plans (a block at or above n is the whole
        matrix; one-slice acts through kc, the depth at k = n; the traffic follows from the blocks) and the
        switches. Points of one effect run alike."""
        return tuple(tuple(sorted((k, str(min(int(v), n)) if k in ("mc", "nc") else str(v)) for k, v in plan.items()
                                  if k not in ("one_slice", "outer_bytes_per_flop", "max_outer_bytes_per_flop")))
                     for n, plan in zip(self.sizes, self.plans(point))), point.switches

    def describe(self, point):
        return words(self.options(point)) or "the rules"

    def name(self, point):
        """The options in which a candidate differs from the incumbent (for a line)."""
        mine, theirs = self.options(point), self.options(self.incumbent)
        changed = ["{}={}".format(k, v) for k, v in mine.items() if theirs.get(k) != v]
        return " ".join(changed + ["-" + k for k in theirs if k not in mine]) or self.describe(point)

    def job(self, point):
        o = self.options(point)
        key = words(o) or "rules"
        if key not in self.jobs:
            job = self.jobs[key] = interleave.Job(key, self.tuner.machine.command(self.threads, o), False)
            job.key, job.point, job.params = key, point, dict(o, threads=self.threads)
        return self.jobs[key]

    def library_job(self):
        if self.library is None and self.tuner.use_library:
            self.library_kernel = self.tuner.machine.probe_library(self.threads)
            if self.library_kernel is None:
                self.tuner.use_library = False
                return None
            job = self.library = interleave.Job("library", self.tuner.machine.library(self.threads), True)
            job.key, job.point, job.params = "library", None, {"threads": self.threads, "library": True}
        return self.library

    def move(self, point, index, step):
        """The point `step` rungs along `index`, past rungs of the same effect; None at the ladder's end, when
        measured before, or above the traffic bound."""
        here = self.effect(point)
        rung = point.rungs[index] + step
        if abs(point.rungs[index]) < RUNGS < abs(rung):
            rung = RUNGS if rung > 0 else -RUNGS
        while -RUNGS <= rung <= RUNGS:
            candidate = point.moved(index, rung)
            effect = self.effect(candidate)
            if effect != here:
                return None if effect in self.visited or self.too_much_traffic(candidate) else candidate
            rung += 1 if step > 0 else -1
        return None

    def too_much_traffic(self, point):
        """Bytes from beyond L2 a FLOP at the largest size above the larger of the step's bound and the rules'
        own (an L2 too small for them): quiet rounds do not see that traffic's cost, a neighbour streaming does."""
        top = self.sizes.index(max(self.sizes))
        mine, rules = self.plans(point)[top], self.plans(self.rules_point)[top]
        most = max(float(mine["max_outer_bytes_per_flop"]), float(rules["outer_bytes_per_flop"]))
        return float(mine["outer_bytes_per_flop"]) > most * (1 + 1e-9)

    def record(self, point, versus, versus_to_rules, ratios, adopted, verdict_):
        """A row of the search record, the point against `versus`: its chained ratio to the rules (None: failed)."""
        blocks = self.effective(point)
        row = dict(threads=self.setting, thread_count=self.threads, phase=self.phase, batch=self.batches,
                   options=words(self.options(point)), mc=blocks["mc"], kc=blocks["kc"], nc=blocks["nc"],
                   one_slice=blocks.get("one-slice", ""), switches=" ".join(point.switches),
                   vs=words(self.options(versus)), vs_to_rules=four(versus_to_rules), adopted=int(bool(adopted)),
                   failed=int(verdict_ == "failed"), pairs=0, decision=verdict_)
        self.records.append(row)
        if not ratios or verdict_ == "failed":
            return None
        estimate, half, pairs = stats.interval(ratios)
        ratio = math.exp(estimate)
        row.update(ratio=four(ratio), pairs=pairs, pooled=four(stats.median(v for vs in ratios.values() for v in vs)),
                   per_size=" ".join("{}:{}".format(n, four(stats.median(ratios[n]))) for n in sorted(ratios)),
                   ratio_to_rules=four(versus_to_rules * ratio))
        if math.isfinite(half):
            row.update(noise=four(math.expm1(half)), low=four(math.exp(estimate - half)),
                       high=four(math.exp(estimate + half)))
        return versus_to_rules * ratio

    def compare(self, ours, theirs, rounds):
        """{size: [ours / theirs in a round of `rounds`]}: the two samples of one group, back to back."""
        return stats.round_ratios(ours.rows, theirs.rows, rounds)

    def cost(self, jobs, size):
        """Seconds expected for these jobs at one size: each one's median, else the incumbent's, else a guess."""
        total = 0.0
        for job in jobs:
            known = job.wall.get(size) or jobs[0].wall.get(size)
            total += stats.median(known) if known else self.tuner.machine.default_cost
        return total

    def reserve(self):
        """Seconds the final rounds are expected to take (the rules' cost per job, a tenth more)."""
        jobs = [self.job(self.rules_point)] * (3 if self.tuner.use_library else 2)
        return 1.1 * self.tuner.args.rounds * sum(self.cost(jobs, size) for size in self.sizes)

    def run_rounds(self, jobs, deadline, rounds, whole=False):
        """Every job at every size, `rounds` rounds, each group (not in the state) only if it fits before the
        deadline; `whole`: all the rounds or none."""
        m = self.measurer
        numbers = list(range(m.round + 1, m.round + rounds + 1))
        if whole:
            ahead = sum(self.cost(jobs, size) for r in numbers for size in self.sizes
                        if m.group_key(size, jobs, r) not in m.groups)
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
            d.estimate, d.half, d.pairs = stats.interval(d.ratios)
            d.verdict = stats.verdict(d.estimate, d.half, self.margin)

    def batch(self, candidates, deadline, what):
        """The incumbent and the candidates, --rounds rounds, then a round for the widest open decision while
        none has won: the best winner or None; OutOfTime when the deadline comes first."""
        incumbent = self.job(self.incumbent)
        self.batch_decisions = decisions = [Decision(p, self.job(p)) for p in candidates]
        self.visited.update(self.effect(p) for p in candidates)
        self.tried, self.taken = what, set()
        self.candidates += len(candidates)
        try:
            self.run_rounds([incumbent] + [d.job for d in decisions], deadline - self.reserve(), self.tuner.args.rounds)
            while True:
                if incumbent.failed or incumbent.wrong:
                    raise Failure(1, "step 10 with {} {}".format(self.describe(self.incumbent),
                                                                 incumbent.failed or "gave a wrong result"))
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

    def candidates_along(self, index, steps):
        """[(point, step)] of distinct effect, each `step` rungs from the incumbent along `index`."""
        found = []
        for step in steps:
            p = self.move(self.incumbent, index, step)
            if p is not None and all(self.effect(p) != self.effect(q) for q, _ in found):
                found.append((p, step))
        return found

    def coarse(self, index, coord, deadline):
        steps = COARSE
        while True:
            found = self.candidates_along(index, steps)
            if not found:
                return
            here = self.value(coord, self.incumbent.rungs[index])
            what = "{} {}".format(coord, ", ".join("x{:.2f}".format(self.value(coord, p.rungs[index]) / here)
                                                   for p, _ in found))
            won = self.batch([p for p, _ in found], deadline, what)
            if won is None:
                return
            step = next(s for p, s in found if p is won)
            # An outer candidate won: go on that way; an inner one: the polish refines it.
            if abs(step) < max(abs(s) for _, s in found if (s > 0) == (step > 0)):
                return
            steps = tuple(s if step > 0 else -s for s in FURTHER)

    def search(self, deadline):
        try:
            self.phase = "coarse"
            for index, coord in enumerate(self.coords):
                self.coarse(index, coord, deadline)
            self.phase = "polish"
            for _ in range(MAX_POLLS):
                found = []
                for index in range(len(self.coords)):
                    found += [p for p, _ in self.candidates_along(index, (-1, 1))
                              if all(self.effect(p) != self.effect(q) for q in found)]
                if not found or self.batch(found, deadline, "every block one rung either way") is None:
                    break
            self.phase = "switch"
            remaining = list(self.switches)
            while remaining:
                found = [p for p in (self.incumbent.with_switch(s) for s in remaining)
                         if self.effect(p) not in self.visited]
                won = self.batch(found, deadline, "switches " + ", ".join(remaining)) if found else None
                if won is None:
                    break
                remaining = [s for s in remaining if s not in won.switches]
            self.finished = True
        except OutOfTime:
            self.cut = "the budget ended the search"

    def final_rounds(self, deadline):
        """The rules, the tuned point and the library side by side: a tuned point not above the rules is dropped."""
        rules, tuned, library = self.job(self.rules_point), self.job(self.incumbent), self.library_job()
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
            failed = final.verdict == "failed"
            self.final["tuned/rules"] = {} if failed else final.ratios
            self.dropped = failed or final.pairs == 0 or final.estimate <= 0
            self.phase = "final"   # the record: the tuned point measured against the rules themselves
            self.batches += 1
            self.record(self.incumbent, self.rules_point, 1.0, final.ratios, not self.dropped,
                        "failed" if failed else "dropped" if self.dropped else "confirmed")
        if library is not None and not library.failed:
            self.final["rules/library"] = self.compare(rules, library, self.taken)
            if tuned is not rules and not self.dropped:
                self.final["tuned/library"] = self.compare(tuned, library, self.taken)
        elif library is not None:
            print("{}: the library: {}".format(PROG, library.failed), file=sys.stderr)
        self.tuner.save_search()

    def resolution(self):
        """(half-widths of the decisions closed on their intervals, those still open), as fractions."""
        closed = [math.expm1(d.half) for d in self.decisions if d.verdict in ("won", "lost") and d.pairs >= 3]
        return closed, [math.expm1(d.half) for d in self.decisions if d.verdict == "open"]

    def complete(self):
        """The search ended by itself and the final rounds ran."""
        return self.finished and self.final is not None

    def result(self):
        """The options written to the wisdom file."""
        return {} if self.dropped else self.options(self.incumbent)

    def samples(self):
        return sum(len(j.rows) for j in list(self.jobs.values()) + ([self.library] if self.library else []))


# ---- the whole run ------------------------------------------------------------------------

class Tuner:
    def __init__(self, args, machine, out, state_path):
        self.args, self.machine, self.out, self.state_path = args, machine, out, state_path
        self.sizes, self.seed = args.sizes, args.seed
        self.stop_requested = self.progress_shown = False
        self.replayed = self.measured = 0
        self.start = time.monotonic()
        self.use_library = not args.no_ref and machine.has_library()
        self.state = self.last_tried = None
        self.tty = sys.stderr.isatty()
        if machine.synthetic:
            machine.clock = 0.0
        self.searches = []       # the Search of each thread count, in order (the search record)
        self.kernel = None       # the variant step 10 runs (start())
        self.identity = []       # the cpu and caches lines
        self.search_path = self.figure_path = None   # STEM.search.csv and STEM.tuning.png (search_paths())

    def now(self):
        return self.machine.clock if self.machine.synthetic else time.monotonic() - self.start

    def save_search(self):
        """The search record, rewritten whole: every row of every thread count so far."""
        if self.search_path:
            output_file.write_whole(self.search_path, search_csv(self.searches, self.identity))

    def save_state(self):
        if self.state_path:
            text = json.dumps(self.state, sort_keys=True, separators=(",", ":")) + "\n"
            output_file.write_whole(self.state_path, text)

    def progress(self, search):
        """What is tried, its decisions, the best and the time left: in place on a terminal, else a line a change."""
        said = "{}: threads {}: {}{}; best {}{}".format(
            PROG, search.setting, search.tried,
            "".join("; " + d.text(search.name(d.point)) for d in search.batch_decisions if d.pairs or d.job.failed),
            search.describe(search.incumbent),
            " ({:+.1f} % on the rules)".format(100 * (search.chain - 1)) if search.chain != 1.0 else "")
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
    """The search record's text: each search's rows, its own columns and the machine's."""
    cpu = identity[0][4:] if identity and identity[0].startswith("cpu ") else ""
    uarch = " ".join(cpu.split()[3:])
    caches = (identity[1].split()[1:4] if len(identity) > 1 else []) + ["", "", ""]
    text = io.StringIO()
    writer = csv.DictWriter(text, SEARCH_COLUMNS, restval="", lineterminator="\n")
    writer.writeheader()
    for s in searches:
        rules = s.effective(s.rules_point)
        common = {"rules_mc": rules["mc"], "rules_kc": rules["kc"], "rules_nc": rules["nc"],
                  "rules_one_slice": rules.get("one-slice", ""), "winner": words(s.result()),
                  "complete": int(s.complete()), "kernel": s.kernel, "cpu": cpu,
                  "uarch": "" if uarch == "unknown" else uarch, "l1d": caches[0], "l2": caches[1], "l3": caches[2]}
        writer.writerows(dict(row, **common) for row in s.records)
    return text.getvalue()


def draw_search(tuner):
    """plots/plot_tuning.py, here when this Python has matplotlib, else by /usr/bin/python3; else a line says how."""
    import importlib.util
    script = os.path.join(ROOT, "plots", "plot_tuning.py")
    argv = [os.path.abspath(tuner.search_path), "-o", os.path.abspath(tuner.figure_path)]   # never "-x"
    status = None
    try:
        if importlib.util.find_spec("matplotlib") is not None:
            import plot_tuning
            with output_file.signals_held():   # its file whole
                status = plot_tuning.main(argv)
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


# ---- the report -----------------------------------------------------------------------------

def ratio_text(ratios):
    """'1.031 [1.018, 1.044] from 36 pairs': the estimated ratio and its 95 % interval."""
    if not ratios:
        return "-"
    estimate, half, pairs = stats.interval(ratios)
    bounds = "[{:.3f}, {:.3f}]".format(math.exp(estimate - half), math.exp(estimate + half)) \
        if math.isfinite(half) else "[-]"
    return "{:.3f} {} from {} pairs".format(math.exp(estimate), bounds, pairs)


def resolution_text(search):
    """What the noise let the search resolve: the intervals it closed, and the widest still open."""
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


def report(tuner):
    identity, searches = tuner.identity, tuner.searches
    print("step 10 ({}) tuned on {} [{}], sizes {}, {} rounds a batch, margin {:g} % (seed {})".format(
        tuner.kernel, identity[0][4:], identity[1][7:], ",".join(str(n) for n in tuner.sizes), tuner.args.rounds,
        100 * tuner.args.margin, tuner.seed))
    for s in searches:
        search_report(s)
    print("{} samples measured, {} replayed from the state; {:.0f} s of the {:.0f} s budget".format(
        tuner.measured, tuner.replayed, tuner.now(), tuner.args.budget))
    if not all(s.complete() for s in searches):
        print("the search and its final rounds did not finish in the budget: the same command goes on from "
              "the state ({})".format(tuner.state_path or "none: the output is no file"))
    print("wisdom: {}".format(tuner.out))


def search_report(s):
    """One thread count's part of the report."""
    tuned = s.result()
    print("threads {} ({} thread{}):".format(s.setting, s.threads, "s" if s.threads > 1 else ""))
    print("  rules  {}".format(" ".join("{}={}".format(k, s.rules[k]) for k in OPTION_ORDER if k in s.rules)))
    if tuned:
        print("  tuned  {}".format(words(tuned)))
    elif s.dropped:
        print("  tuned  the rules: the final rounds did not confirm {} (tuned/rules {})".format(
            s.describe(s.incumbent), ratio_text(s.final.get("tuned/rules", {}))))
    else:
        print("  tuned  the rules: {}".format("no candidate measured yet" if s.candidates == 0 and not s.finished
                                              else "no candidate beat them by the margin"))
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
        for name in ("tuned/rules", "rules/library", "tuned/library"):
            ratios = s.final.get(name)
            if ratios:
                print("  {:<16} {}   per size: {}".format(name.replace("/", " / "), ratio_text(ratios), ", ".join(
                    "{} {:.3f}".format(size, stats.median(ratios[size])) for size in sorted(ratios))))
        if s.library_kernel:
            print("  library: {}".format(s.library_kernel))
    print("  {}".format(resolution_text(s)))
    print("  {} candidates, {} samples; {}".format(
        s.candidates, s.samples(), "search finished" if s.finished else s.cut or "search not run"))


# ---- the arguments and the files ----------------------------------------------------------------

def parse_args(argv):
    class Parser(argparse.ArgumentParser):
        def error(self, message):
            raise Failure(2, message.replace("\n", " "))

    parser = Parser(prog=PROG, description="Search step 10's block sizes and switches on this machine and write "
                    "the winners to a wisdom file (see the top of this file).")
    add = parser.add_argument
    add("--build", default=os.path.join(ROOT, "build"),
        help="the build folder whose bin/ holds step10_tuned, cpuinfo, ref_openblas (default: build)")
    add("-o", "--output", help="the wisdom file (default: BUILD/wisdom/step10_tuned.txt)")
    add("--budget", default=str(BUDGET), help="seconds the tuner may measure (default 300)")
    add("--threads", default="both", help="1, all or both (default both)")
    sizes = ",".join(str(n) for n in SIZES)
    add("--sizes", default=sizes, help="training sizes (default {})".format(sizes))
    add("--kernel", help="step 10's variant (default: the best this CPU runs; avx2 on an AVX-512 CPU)")
    add("--rounds", default=str(ROUNDS), help="rounds of samples per batch, from 2 to 20 (default 3)")
    add("--margin", default=str(100 * MARGIN),
        help="per cent by which a candidate must beat the incumbent, from 0.1 to 50 (default 1)")
    add("--seed", help="the order's random seed (default: the state's, else new)")
    add("--fresh", action="store_true", help="ignore the state of an earlier run")
    add("--no-ref", action="store_true", help="leave the library out of the final rounds")
    args = parser.parse_args(argv)

    def bad(option, text, why):
        return Failure(2, "{} '{}': {}".format(option, shown(text, 60), why))

    def number(option, convert, low, high, why, not_number=None):
        """The option's value converted and from `low` to `high` (`convert` gives None or raises for none)."""
        text = getattr(args, option[2:])
        try:
            value = convert(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise bad(option, text, not_number if value is None and not_number else why)
        return value

    def whole(digits):
        return lambda text: int(text) if re.match(r"^[0-9]{1,%d}$" % digits, text) else None

    if args.output == "":
        raise Failure(2, "-o '': an empty name (give a file, or no -o for the default)")
    args.budget = number("--budget", float, 1, 1e6, "must be from 1 to 1000000 seconds", "not a number")
    if args.threads not in ("1", "all", "both"):
        raise bad("--threads", args.threads, "must be 1, all or both")
    try:
        args.sizes = interleave.parse_sizes(args.sizes)
    except ValueError as e:
        raise Failure(2, str(e))
    if len(args.sizes) > 16:
        raise Failure(2, "--sizes: {} sizes; at most 16".format(len(args.sizes)))
    args.rounds = number("--rounds", whole(2), 2, 20, "must be from 2 to 20")
    args.margin = number("--margin", lambda text: float(text) / 100, 0.001, 0.5,
                         "must be a number of per cent from 0.1 to 50")
    if args.seed is not None:
        args.seed = number("--seed", whole(9), 0, 999999999, "not a whole number from 0 to 999999999")
    if args.kernel is not None and not re.match(r"^[a-z0-9_]{1,32}$", args.kernel):
        raise bad("--kernel", args.kernel, "not a variant name such as avx2")
    return args


def read_wisdom(path):
    """The lines of an existing wisdom file, or None when there is none or it is not one."""
    try:
        with open_regular(path) as f:
            lines = f.read(1 << 20).splitlines()
    except (InputError, OSError, UnicodeDecodeError):
        return None
    return lines if lines and lines[0] == HEADER else None


def prepare_output(path, fresh, locks):
    """Checks PATH and takes its lock (into `locks`): (the state's path, the state or None); (None, None) for
    a device."""
    output_file.make_folder(path)
    output_file.check(path)
    target = os.path.realpath(path)
    if os.path.isfile(target) and read_wisdom(target) is None:
        raise Failure(3, "cannot write {}: it is not a wisdom file of tune.py (its first line is not '{}'); "
                         "remove it or give -o".format(path, HEADER[:40] + "..."))
    if os.path.exists(target) and not os.path.isfile(target):
        return None, None   # a device or FIFO: written through, no state beside it
    locks.append(output_file.lock(path, target, PROG))
    state_path = output_file.side_path(path, ".state")
    output_file.check_regular(state_path, "a state file of tune.py")
    if not os.path.exists(state_path):
        return state_path, None
    state, problem = read_state(state_path)
    if state is None and problem is None:
        raise Failure(3, "cannot write {}: it is not a state file of tune.py; remove it".format(state_path))
    if problem and not fresh:
        raise Failure(3, "cannot use {}: a damaged state of tune.py ({}); remove it or give --fresh".format(
            state_path, problem))
    return state_path, state


def search_paths(out):
    """(STEM.search.csv, STEM.tuning.png), STEM being PATH without .txt: checked, never over another file."""
    stem = out[:-4] if out.endswith(".txt") else out
    paths = (output_file.side_path(stem, ".search.csv"), output_file.side_path(stem, ".tuning.png"))
    for path, what in zip(paths, ("the search record", "the figure")):
        output_file.check_regular(path, what + " of tune.py")
    target, head = os.path.realpath(paths[0]), ",".join(SEARCH_COLUMNS[:5])
    if os.path.isfile(target):
        try:
            with open(target, encoding="utf-8", errors="replace") as f:
                first = f.readline().rstrip("\r\n")
        except OSError:
            first = None
        if first is not None and not first.startswith(head):
            raise Failure(3, "cannot write {}: it is not the search record of tune.py (its first line is not "
                             "'{},...'); remove it or give -o".format(paths[0], head))
    return paths


def read_state(path):
    """(the state, None); (None, None): no state of tune.py; (None, what is damaged): one that cannot be replayed."""
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
    """What in a state cannot be replayed, or "": a seed; groups {job: {wall[, row][, failed]}} per thread count."""
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
    """What makes a sample of the state not one interleave.py takes, or ""."""
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
    if not re.match(r"^[0-9]{1,9}$", row.get("m", "")):
        return "its row's m is not a whole number"
    problem = interleave._not_a_row(list(row), [row], int(row["m"]))   # as a sample's row is checked
    return "its row: " + problem if problem else ""


# ---- the run --------------------------------------------------------------------------------

def main(argv, machine=None):
    """The tuner's exit status; on SIGTERM it ends by that signal, every file whole, the lock let go."""
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
        if any(w in ("-h", "--help") for w in argv[:argv.index("--") if "--" in argv else len(argv)]):
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
    previous, tuner = None, None
    try:
        tuner = start(args, machine, held)
        previous = signal.signal(signal.SIGINT, lambda *_: on_sigint(tuner))
        for index, search in enumerate(tuner.searches):
            # An equal share of what is left: a search that closed its decisions early leaves
            # its time to the next. Its final rounds are kept out of its share (reserve()).
            search.search(tuner.now() + (args.budget - tuner.now()) / (len(tuner.searches) - index))
            search.final_rounds(args.budget)
        tuner.end_progress()
    except (Interrupted, KeyboardInterrupt, Failure, output_file.OutputError, cli.Terminated) as e:
        if tuner is not None:
            tuner.end_progress()
        if isinstance(e, cli.Terminated):
            raise
        if isinstance(e, Interrupted):
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
        if own_machine:
            machine.close()
    return finish(tuner)


def start(args, machine, held):
    """The Tuner: the output checked, the state read, a Search per thread count, the kernel step 10 runs."""
    machine.check()
    out = args.output or os.path.join(machine.build if not machine.synthetic else ".", "wisdom", "step10_tuned.txt")
    state_path, old = prepare_output(out, args.fresh, held["locks"])
    tuner = Tuner(args, machine, out, state_path)
    tuner.search_path, tuner.figure_path = search_paths(out) if state_path else (None, None)
    tuner.identity = machine.identity()
    settings = [("1", 1), ("all", machine.ncpu())]
    if args.threads != "both":
        settings = [s for s in settings if s[0] == args.threads]
    if machine.ncpu() == 1 and args.threads == "both":
        settings = settings[:1]   # all cores are one: the one-thread search is both lines
    # The state is used when it is for the same arguments, CPU and executables.
    fingerprint = {"identity": tuner.identity, "kernel": args.kernel, "sizes": args.sizes, "rounds": args.rounds,
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
    tuner.state = old or {"tool": STATE_TOOL, "format": 1, "fingerprint": fingerprint, "seed": args.seed,
                          "groups": {}}
    if old:
        print("{}: resuming from {} ({} groups of samples measured before)".format(
            PROG, state_path, sum(len(g) for g in old["groups"].values())), file=sys.stderr)
    tuner.searches = [Search(tuner, name, threads, index) for index, (name, threads) in enumerate(settings)]
    single_threaded(args, machine, tuner.searches)
    kernels = sorted(set(s.kernel for s in tuner.searches))
    if len(kernels) != 1:
        raise Failure(1, "step 10 runs different kernels on one thread and on all: {}".format(", ".join(kernels)))
    for s in tuner.searches:
        s.library_job()   # the library probed once per thread count; None leaves it out of the rest
    tuner.kernel = kernels[0]
    return tuner


def single_threaded(args, machine, searches):
    """An all-CPU search on one thread (OMP_THREAD_LIMIT=1): refused with --threads all, else left out."""
    lone = [s for s in searches if s.setting == "all" and s.threads == 1 and machine.ncpu() > 1]
    if not lone:
        return
    why = "step 10 runs on 1 thread here{}".format(
        " (OMP_THREAD_LIMIT={})".format(shown(os.environ["OMP_THREAD_LIMIT"], 20))
        if not machine.synthetic and os.environ.get("OMP_THREAD_LIMIT") else "")
    if args.threads == "all":
        raise Failure(2, "--threads all: {}: nothing to tune on {} CPUs (give --threads 1)".format(why, machine.ncpu()))
    print("{}: threads all is not tuned: {}".format(PROG, why), file=sys.stderr)
    searches.remove(lone[0])


def on_sigint(tuner):
    if tuner.stop_requested:
        raise KeyboardInterrupt()
    tuner.stop_requested = True
    tuner.end_progress()
    print("{}: stopping after this group of samples (Ctrl-C again stops at once)".format(PROG), file=sys.stderr,
          flush=True)


def wisdom_lines(tuner):
    """The wisdom file: this run's thread counts, the others' kept from a file of the same CPU and kernel."""
    args, out, searches, head = tuner.args, tuner.out, tuner.searches, tuner.identity + ["kernel " + tuner.kernel]
    results = {s.setting: s.result() for s in searches}
    if len(searches) == 1 and tuner.machine.ncpu() == 1 and args.threads == "both":
        results["all"] = results["1"]
    chosen = {name: "threads {} {}".format(name, words(options)).rstrip() for name, options in results.items()}
    old = read_wisdom(os.path.realpath(out)) or []
    for line in old if old[2:5] == head else []:
        w = line.split()
        if len(w) >= 2 and w[0] == "threads" and w[1] not in results:
            if re.match(r"^threads (1|all)( [a-z][a-z-]{0,31}=[0-9]{1,5})*$", line):
                chosen[w[1]] = line
            else:   # step 10 would refuse the whole file for it
                print("{}: the threads {} line of {} is not kept: not NAME=VALUE words".format(
                    PROG, shown(w[1], 20), out), file=sys.stderr)
    lines = [HEADER, "format 1"] + head + [chosen[name] for name in ("1", "all") if name in chosen]
    # noise: the widest half-width among the decisions closed (else open), what they resolve
    widths = [w for s in searches for w in (s.resolution()[0] or s.resolution()[1]) if math.isfinite(w)]
    return lines + ["noise {:.3f}".format(max(widths) if widths else 0.0)]


def finish(tuner):
    """Writes the files, removes or keeps the state, reports and draws: the exit status."""
    searches = tuner.searches
    try:
        output_file.write_whole(tuner.out, "\n".join(wisdom_lines(tuner)) + "\n")
        tuner.save_search()   # the winner and whether each search is complete, as written
        if tuner.state_path and all(s.complete() for s in searches):
            if os.path.exists(tuner.state_path):
                os.unlink(tuner.state_path)
        else:
            tuner.save_state()   # what was measured, and the seed, for the same command again
    except output_file.OutputError as e:
        print("{}: {}".format(PROG, e), file=sys.stderr)
        return 3
    except OSError:
        pass
    report(tuner)
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


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
