#!/usr/bin/env python3
"""The block-size map: a step at one size over a kc x mc grid around the blocks it really runs
(learned from its CSV's params at n = 16, not from --help), one CSV row per cell.

Options, CSV columns and exit status: docs/contracts.md (tools/block_map.py); plots/plot_blockmap.py
draws the CSV. Each run of the step is a process group of its own, killed on Ctrl-C or SIGTERM.
"""
import csv
import io
import os
import re
import signal
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "plots"))
import cli  # noqa: E402  (plots/cli.py: one-line usage errors, the step in its own group)
import harness_csv  # noqa: E402  (plots/harness_csv.py: the params column, the largest size)
from interleave import sample_timeout  # noqa: E402  (the sampler's rule for a run that hung)
from output_file import OutputError, check, scratch_folder, write  # noqa: E402  (plots/output_file.py)

# The default grid: the step's own blocks times these factors (--fine: every half power of two),
# in multiples of what the step rounds a block to, none above the size but its own.
COARSE = (0.25, 0.5, 1.0, 2.0)
FINE = (0.25, 0.354, 0.5, 0.707, 1.0, 1.414, 2.0)
COLUMNS = ["step", "n", "kc", "mc", "default", "gflops_best", "gflops_median", "verified", "kernel", "cpu", "uarch",
           "params"]
PROBE_SIZE = 16   # the tiny runs that ask the step what it makes of a block size


class Failure(Exception):
    """A reason to stop, with its exit status."""

    def __init__(self, status, text):
        super().__init__(text)
        self.status = status


def usage(text):
    return Failure(2, text)


class Step:
    """The step executable and the options every run of it gets."""

    def __init__(self, exe, reps, passed_on, workdir, timeout=None):
        self.exe, self.reps, self.passed_on, self.timeout = exe, reps, passed_on, timeout
        self.out = os.path.join(workdir, "cell.csv")
        self.name = os.path.basename(exe)

    def run(self, size, blocks, reps=None):
        """(exit status, CSV row or None, first stderr line) of one run; blocks [] for the step's own."""
        if os.path.exists(self.out):
            os.remove(self.out)
        reps = reps or self.reps
        timeout = self.timeout or sample_timeout(size, reps + 2)   # its reps, the warm-up and the check
        try:
            result = cli.run([self.exe, "--sizes", str(size), "--reps", str(reps)] +
                             (["--warmup", "0"] if size == PROBE_SIZE else []) + blocks + self.passed_on +
                             ["--csv", self.out], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             universal_newlines=True, timeout=timeout)
        except subprocess.TimeoutExpired:   # cli.run has killed its whole group
            raise Failure(1, "{} at n = {}{}: did not finish in {:g} s (--timeout {:g}{}); no CSV written".format(
                self.name, size, "".join(" " + b for b in blocks), timeout, timeout,
                "" if self.timeout else ", the default"))
        rows = []
        if os.path.exists(self.out):
            with open(self.out, newline="") as f:
                rows = list(csv.DictReader(f))
        lines = result.stderr.strip().splitlines()
        return result.returncode, (rows[0] if rows else None), (lines[0] if lines else "")

    def stop_on(self, rc, err):
        """End the map on a usage error (2), no memory or no writing (3), a CPU that cannot run it (77)."""
        if rc in (2, 3, 77):
            raise Failure(rc, "{}: exit {}: {}".format(self.name, rc, err or "(no message)"))

    def probe(self, blocks):
        """The params the step reports at a tiny size with these block options."""
        rc, row, err = self.run(PROBE_SIZE, blocks, reps=1)
        self.stop_on(rc, err)
        if row is None:
            raise Failure(1, "{}: its run at n = {} wrote no CSV row (exit {}{})".format(
                self.name, PROBE_SIZE, rc, ": " + err if err else ""))
        return row, harness_csv.tunables(row.get("params") or "")


def grid(default, factors, multiple, size):
    values = (max(multiple, int(round(default * f / multiple)) * multiple) for f in factors)
    return sorted({default} | {v for v in values if v <= size})


def parse_list(option, text):
    if not re.match(r"^\d+(,\d+)*$", text) or any(int(v) < 1 for v in text.split(",")):
        raise usage("{} '{}': not a list of positive whole numbers such as 128,256".format(option, text))
    return sorted(set(int(v) for v in text.split(",")))


def resolve(step, name, values, own, slice_option):
    """{value asked for: value that runs}: each value run at a tiny size, the other block its own."""
    other = "mc" if name == "kc" else "kc"
    return {v: step.probe(["--" + name, str(v), "--" + other, str(own[other])] + slice_option)[1].get(name, v)
            for v in values}


def main(argv):
    parser = cli.Parser(prog="block_map.py", description="A step's GFLOPS over a grid of kc x mc.")
    parser.add_argument("exe", help="step executable with --kc and --mc")
    parser.add_argument("--size", type=int, default=1000, help="m = n = k (default 1000)")
    parser.add_argument("--kc", help="kc values, e.g. 128,256,512 (default: around the step's own)")
    parser.add_argument("--mc", help="mc values (default: around the step's own)")
    parser.add_argument("--fine", action="store_true", help="7 x 7 grid instead of 4 x 4")
    parser.add_argument("--reps", type=int, default=5, help="timed repetitions per cell (default 5)")
    parser.add_argument("--rounds", type=int, default=1, help="sweeps of the grid, each cell's best kept (default 1)")
    parser.add_argument("--threads", type=int, help="threads of the step (passed on as --threads N)")
    parser.add_argument("--kernel", help="the step's variant (passed on as --kernel NAME: avx2 on an AVX-512 CPU)")
    parser.add_argument("--cpu", default="last", help="CPU to pin the runs to (default: the last allowed), or none")
    parser.add_argument("--timeout", type=float, help="seconds a run may take before it has hung (default: "
                        "tools/interleave.py's rule, 120 s plus its products' time at 0.1 GFLOPS)")
    parser.add_argument("--csv", type=cli.name, help="CSV to write (default: block_map_<step>.csv here)")
    args = parser.parse_args(argv)

    try:
        if args.size < 1 or args.reps < 1 or args.rounds < 1 or (args.threads is not None and args.threads < 1):
            raise usage("--size, --reps, --rounds and --threads must be at least 1")
        if args.timeout is not None and not 1e-3 <= args.timeout <= 1e7:   # NaN too
            raise usage("--timeout '{}': must be from 0.001 to 1e7 seconds".format(args.timeout))
        if args.size > harness_csv.MAX_SIZE:
            raise usage("--size {}: larger than the harness's limit, {} (n * n must fit in an int)".format(
                args.size, harness_csv.MAX_SIZE))
        kc_list = parse_list("--kc", args.kc) if args.kc else None
        mc_list = parse_list("--mc", args.mc) if args.mc else None
        if not os.path.isfile(args.exe) or not os.access(args.exe, os.X_OK):
            raise usage("{}: not an executable file".format(args.exe))
        out = args.csv or "block_map_{}.csv".format(os.path.basename(args.exe))
        try:
            check(out)
        except OutputError as e:
            raise Failure(3, "--csv: {}".format(e))
        if args.cpu != "none" and hasattr(os, "sched_setaffinity"):
            allowed = sorted(os.sched_getaffinity(0))
            cpu = allowed[-1] if args.cpu == "last" else int(args.cpu) if args.cpu.isdigit() else None
            if cpu is None or cpu not in allowed:
                raise usage("--cpu '{}': not a CPU this process may use ({})".format(args.cpu, allowed))
            os.sched_setaffinity(0, {cpu})   # the runs inherit it
        passed_on = (["--threads", str(args.threads)] if args.threads is not None else []) + \
                    (["--kernel", args.kernel] if args.kernel else [])
        workdir = scratch_folder("block_map.")
        cli.on_sigterm()   # after the scratch folder's handler: the running step is killed first
        step = Step(args.exe, args.reps, passed_on, workdir, args.timeout)
        try:
            rows, failed = measure(step, args, kc_list, mc_list)
        except cli.Terminated:
            cli.end_by(signal.SIGTERM, [workdir])
        text = io.StringIO()
        writer = csv.DictWriter(text, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        try:
            write(out, text.getvalue())
        except OutputError as e:
            raise Failure(3, str(e))
    except Failure as e:
        print("block_map.py: {}".format(e), file=sys.stderr)
        return e.status
    print("CSV: " + out)
    return 1 if failed else 0


def measure(step, args, kc_list, mc_list):
    """The grid's rows (kc fastest, mc slowest) and how many failed."""
    first, own = step.probe([])
    if "kc" not in own or "mc" not in own:
        raise usage("{}: no --kc and --mc tunables (steps 06-10 have them)".format(step.name))
    slug = first["step"]   # every row names the step as its CSV does, failed or not
    slice_option = ["--one-slice", str(own["one-slice"])] if "one-slice" in own else []
    # What the step rounds a block to: --kc 1 --mc 1 runs as one unit of each.
    _, unit = step.probe(["--kc", "1", "--mc", "1"] + slice_option)
    factors = FINE if args.fine else COARSE
    kc_asked = kc_list or grid(own["kc"], factors, max(16, unit.get("kc", 1)), args.size)
    mc_asked = mc_list or grid(own["mc"], factors, unit.get("mc", 1) if unit.get("mc", 1) > 1 else 4, args.size)
    kc_runs = resolve(step, "kc", kc_asked, own, slice_option)
    mc_runs = resolve(step, "mc", mc_asked, own, slice_option)
    for name, runs in (("kc", kc_runs), ("mc", mc_runs)):
        moved = ["{} as {}".format(a, r) for a, r in sorted(runs.items()) if a != r]
        if moved:
            print("{}: --{} {}: the step runs {}".format(step.name, name, ", ".join(str(a) for a in sorted(runs)),
                                                         ", ".join(moved)), flush=True)
    kcs, mcs = sorted(set(kc_runs.values())), sorted(set(mc_runs.values()))
    print("{}: kernel {}, n = {}, kc in {}, mc in {} (its own: kc = {}, mc = {}), {} runs".format(
        step.name, first.get("kernel", "?"), args.size, kcs, mcs, own["kc"], own["mc"], len(kcs) * len(mcs)),
        flush=True)

    cells = {}   # (kc, mc) that ran -> the row of its best round
    for round_ in range(1, args.rounds + 1):
        if args.rounds > 1:
            print("round {} of {}".format(round_, args.rounds), flush=True)
        for mc in mcs:
            for kc in kcs:
                default = (kc, mc) == (own["kc"], own["mc"])
                blocks = [] if default else ["--kc", str(kc), "--mc", str(mc)] + slice_option
                rc, row, err = step.run(args.size, blocks)
                step.stop_on(rc, err)
                row = row or {}
                verified = row.get("verified") == "1" and rc == 0
                ran = harness_csv.tunables(row.get("params") or "")
                key = (ran.get("kc", kc), ran.get("mc", mc))   # the blocks it reports, else those asked for
                if not verified:
                    print("   kc = {}, mc = {}: exit {}{}".format(kc, mc, rc, ": " + err if err else ""),
                          file=sys.stderr)
                new = {"step": slug, "n": args.size, "kc": key[0], "mc": key[1], "default": int(default),
                       "verified": int(verified), **{c: row.get(c, "nan") for c in COLUMNS[5:7]},
                       **{c: row.get(c, "") for c in COLUMNS[8:]}}
                old = cells.get(key)
                # A failure in any round stays: a wrong result is not outvoted by a right one.
                if old is None or not new["verified"] or (old["verified"] and float(new["gflops_best"]) >
                                                          float(old["gflops_best"])):
                    if old is not None:
                        new["default"] = max(new["default"], old["default"])
                    cells[key] = new
                print("   kc = {:5d}, mc = {:5d}: {} GFLOPS".format(key[0], key[1], new["gflops_best"]), flush=True)
    rows = sorted(cells.values(), key=lambda r: (r["mc"], r["kc"]))
    return rows, sum(1 for r in rows if not r["verified"])


if __name__ == "__main__":
    cli.main_of(main, "block_map.py", "; no CSV written")   # the run under way was killed with its group
