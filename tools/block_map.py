#!/usr/bin/env python3
"""The block-size map: run a step at one size over a grid of its two cache-block sizes,
kc x mc, and write one CSV row per cell, the step's own choice among them.

    tools/block_map.py EXE [--size N] [--kc LIST] [--mc LIST] [--fine] [--reps N] [--rounds N]
                       [--threads N] [--cpu N|none] [--csv OUT.csv]

EXE is a step executable with --kc and --mc (steps 06-10: build/bin/step08_avx512_14x32).
A step that also has --one-slice (step 10, where --kc alone would turn it off) gets its own
--one-slice in every cell, so that its own cell is the step as it runs by default. --threads
N is passed on (step 10's map: --threads 1).
The grid is the step's default (what `EXE --help` says it uses here) times 1/4, 1/2, 1 and
2 for each (--fine: every half power of two from 1/4 to 2, 7 x 7 runs instead of 4 x 4),
kc in multiples of 16, mc of 4, none above the size but the default itself; --kc and --mc
give lists instead. Every run is verified. --rounds N sweeps the grid N times, one round
after the other, and keeps each cell's best (a noisy spell on a shared machine then spoils
a cell of one round, not the map). The runs are pinned to one CPU (the last this process
may use; --cpu none leaves them to the scheduler).
CSV: step,n,kc,mc,default,gflops_best,gflops_median,verified,kernel,cpu,uarch
(default = 1 in the cell of the step's own kc and mc). plots/plot_blockmap.py draws it.
Exit status: 0; 1 when some run failed or failed verification (its row says verified=0);
2 usage error (one line naming the option).
"""
import argparse
import csv
import os
import re
import subprocess
import sys
import tempfile

COARSE = (0.25, 0.5, 1.0, 2.0)
FINE = (0.25, 0.354, 0.5, 0.707, 1.0, 1.414, 2.0)
COLUMNS = ["step", "n", "kc", "mc", "default", "gflops_best", "gflops_median", "verified", "kernel", "cpu", "uarch"]


class UsageError(Exception):
    pass


def defaults(exe):
    """{'kc': N, 'mc': N[, 'one-slice': N]}: the values the step uses here, from its --help."""
    try:
        text = subprocess.run([exe, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True, timeout=60).stdout
    except OSError as e:
        raise UsageError("{}: cannot run ({})".format(exe, e.strerror))
    found = {}
    for name in ("kc", "mc"):
        match = re.search(r"--{} N .*\(here: (\d+);".format(name), text)
        if not match:
            raise UsageError("{}: no --{} tunable (steps 06-10 have --kc and --mc)".format(exe, name))
        found[name] = int(match.group(1))
    match = re.search(r"--one-slice N .*\(here: (\d+);", text)
    if match:
        found["one-slice"] = int(match.group(1))
    return found


def grid(default, factors, multiple, size):
    values = {default}
    for f in factors:
        v = max(multiple, int(round(default * f / multiple)) * multiple)
        if v <= size:
            values.add(v)
    return sorted(values)


def parse_list(option, text):
    if not re.match(r"^\d+(,\d+)*$", text) or any(int(v) < 1 for v in text.split(",")):
        raise UsageError("{} '{}': not a list of positive whole numbers such as 128,256".format(option, text))
    return sorted(set(int(v) for v in text.split(",")))


def run_cell(exe, size, kc, mc, reps, extra, workdir):
    """One run (extra: more options for the step); its harness CSV row, or None when it wrote none."""
    out = os.path.join(workdir, "cell.csv")
    if os.path.exists(out):
        os.remove(out)
    result = subprocess.run([exe, "--sizes", str(size), "--reps", str(reps), "--kc", str(kc), "--mc", str(mc)] +
                            extra + ["--csv", out], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            universal_newlines=True)
    rows = []
    if os.path.exists(out):
        with open(out, newline="") as f:
            rows = list(csv.DictReader(f))
    return result.returncode, (rows[0] if rows else None), result.stderr.strip()


def main(argv):
    parser = argparse.ArgumentParser(description="A step's GFLOPS over a grid of kc x mc.")
    parser.add_argument("exe", help="step executable with --kc and --mc")
    parser.add_argument("--size", type=int, default=1000, help="m = n = k (default 1000)")
    parser.add_argument("--kc", help="kc values, e.g. 128,256,512 (default: around the step's own)")
    parser.add_argument("--mc", help="mc values (default: around the step's own)")
    parser.add_argument("--fine", action="store_true", help="7 x 7 grid instead of 4 x 4")
    parser.add_argument("--reps", type=int, default=5, help="timed repetitions per cell (default 5)")
    parser.add_argument("--rounds", type=int, default=1, help="sweeps of the grid, each cell's best kept (default 1)")
    parser.add_argument("--threads", type=int, help="threads of the step (passed on as --threads N)")
    parser.add_argument("--cpu", default="last", help="CPU to pin the runs to (default: the last allowed), or none")
    parser.add_argument("--csv", help="CSV to write (default: block_map_<step>.csv here)")
    args = parser.parse_args(argv)

    try:
        if args.size < 1 or args.reps < 1 or args.rounds < 1 or (args.threads is not None and args.threads < 1):
            raise UsageError("--size, --reps, --rounds and --threads must be at least 1")
        if not os.path.isfile(args.exe) or not os.access(args.exe, os.X_OK):
            raise UsageError("{}: not an executable file".format(args.exe))
        own = defaults(args.exe)
        extra = (["--one-slice", str(own["one-slice"])] if "one-slice" in own else []) + \
                (["--threads", str(args.threads)] if args.threads is not None else [])
        factors = FINE if args.fine else COARSE
        kcs = parse_list("--kc", args.kc) if args.kc else grid(own["kc"], factors, 16, args.size)
        mcs = parse_list("--mc", args.mc) if args.mc else grid(own["mc"], factors, 4, args.size)
        if args.cpu != "none" and hasattr(os, "sched_setaffinity"):
            allowed = sorted(os.sched_getaffinity(0))
            cpu = allowed[-1] if args.cpu == "last" else int(args.cpu) if args.cpu.isdigit() else None
            if cpu is None or cpu not in allowed:
                raise UsageError("--cpu '{}': not a CPU this process may use ({})".format(args.cpu, allowed))
            os.sched_setaffinity(0, {cpu})   # the runs inherit it
    except UsageError as e:
        print("block_map.py: {}".format(e), file=sys.stderr)
        return 2

    step = os.path.basename(args.exe)
    out = args.csv or "block_map_{}.csv".format(step)
    print("{}: n = {}, kc in {}, mc in {} (its own: kc = {}, mc = {}), {} runs".format(
        step, args.size, kcs, mcs, own["kc"], own["mc"], len(kcs) * len(mcs)), flush=True)
    cells = {}   # (kc, mc) -> the row of its best round
    with tempfile.TemporaryDirectory() as workdir:
        for round_ in range(1, args.rounds + 1):
            if args.rounds > 1:
                print("round {} of {}".format(round_, args.rounds), flush=True)
            for mc in mcs:
                for kc in kcs:
                    rc, row, err = run_cell(args.exe, args.size, kc, mc, args.reps, extra, workdir)
                    verified = row is not None and row.get("verified") == "1" and rc == 0
                    if not verified:
                        print("   kc = {}, mc = {}: exit {}{}".format(kc, mc, rc, ": " + err if err else ""),
                              file=sys.stderr)
                    new = {"step": row["step"] if row else step, "n": args.size, "kc": kc, "mc": mc,
                           "default": int(kc == own["kc"] and mc == own["mc"]),
                           "gflops_best": row["gflops_best"] if row else "nan",
                           "gflops_median": row["gflops_median"] if row else "nan",
                           "verified": int(verified), "kernel": (row or {}).get("kernel", ""),
                           "cpu": (row or {}).get("cpu", ""), "uarch": (row or {}).get("uarch", "")}
                    old = cells.get((kc, mc))
                    # A failure in any round stays: a wrong result is not outvoted by a right one.
                    if old is None or (new["verified"] and old["verified"] and
                                       float(new["gflops_best"]) > float(old["gflops_best"])):
                        cells[(kc, mc)] = new
                    elif not new["verified"]:
                        cells[(kc, mc)] = new
                    print("   kc = {:5d}, mc = {:5d}: {} GFLOPS".format(kc, mc, new["gflops_best"]), flush=True)
    rows = [cells[(kc, mc)] for mc in mcs for kc in kcs]
    failed = sum(1 for r in rows if not r["verified"])
    try:
        with open(out, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=COLUMNS)
            writer.writeheader()
            writer.writerows(rows)
    except OSError as e:
        print("block_map.py: {}: cannot write ({})".format(out, e.strerror), file=sys.stderr)
        return 2
    print("CSV: " + out)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
