#!/usr/bin/env python3
"""Write results/summary.md: per step, the best GFLOPS at n = 500, 1000 and 1500, against the
measured peak and OpenBLAS, with the kernel variant used and the machine it ran on.

    summary.py [--results DIR] [-o OUT.md] [--steps 5,7] [--compiler TEXT] [--flags TEXT]
               [--cores N] [--date TEXT]

Reads DIR/step*.csv and DIR/ref_*.csv (harness CSVs: step,m,n,k,threads,gflops_best,...,
kernel,reps,cpu[,uarch]), DIR/peak.csv (isa,precision,threads,gflops) and DIR/machine.txt, if
the caller wrote one ("key: value" lines for cpu, uarch, cores, compiler, flags, date; the
options override it). A CSV with several thread counts gives a row per count. For each size
the row measured nearest to it is used. % of peak: against the best fp32 figure in peak.csv
at the run's thread count. x OpenBLAS: against ref_openblas at the same size and thread
count. Rows run with --no-verify are noted as unverified, not as failed. Standard library
only; Python 3.7 or later. Malformed input (a GFLOPS that is negative or not finite, a peak
that is not above 0 ...): exit 2 with one line naming the file and the problem.
"""
import argparse
import datetime
import glob
import os
import re
import sys

from harness_csv import (InputError, best_by_size, best_peak, load_machine, load_peak, load_run,
                         nearest, split_by_threads)

SIZES = (500, 1000, 1500)


def load_runs(path):
    """One harness CSV as runs, one per thread count in it, each with {size: best GFLOPS},
    the sizes that failed verification and whether any row went unverified (--no-verify).
    cells: {table size: the measured size that stands for it}, the size nearest it in the
    whole CSV, when this thread count ran it (step 09 runs small sizes on fewer threads:
    their run has no cell at 1000)."""
    whole = load_run(path)
    runs = []
    for run in split_by_threads(whole):
        run["best"] = {m: best for m, (best, _) in best_by_size(run).items()}
        run["cells"] = {}
        for size in SIZES:
            m = nearest(set(r["m"] for r in whole["rows"]), size)
            if m in run["best"]:
                run["cells"][size] = m
        run["failed"] = sorted(set(r["m"] for r in run["rows"] if r["failed"]))
        run["unverified"] = sorted(set(r["m"] for r in run["rows"] if r["unchecked"]))
        runs.append(run)
    return runs


def collect(results, steps=None):
    """The runs in `results`: steps (only those numbered in `steps`, when given), then references."""
    runs = []
    for path in sorted(glob.glob(os.path.join(results, "step*.csv"))):
        runs += [r for r in load_runs(path) if steps is None or r["number"] in steps]
    runs.sort(key=lambda r: (r["number"] if r["number"] is not None else 1 << 30, r["threads"]))
    refs = [r for p in sorted(glob.glob(os.path.join(results, "ref_*.csv"))) for r in load_runs(p)]
    refs.sort(key=lambda r: (r["step"] != "ref_openblas", r["step"], r["threads"]))
    return runs + refs


def fmt(value, digits=1):
    return "{:.{}f}".format(value, digits)


def render(runs, peak, machine):
    openblas = {r["threads"]: r for r in runs if r["step"] == "ref_openblas"}
    lines = ["# SGEMM: where each step stands", ""]
    lines += ["| machine | |", "|---|---|"]
    for key, label in (("cpu", "CPU"), ("uarch", "microarchitecture"), ("cores", "cores"),
                       ("compiler", "compiler"), ("flags", "flags"), ("date", "date")):
        lines.append("| {} | {} |".format(label, machine.get(key) or "unknown"))
    if machine.get("rounds", "1") != "1":
        lines.append("| rounds | {}: each size's best of {} sweeps, run one after the other |".format(
            machine["rounds"], machine["rounds"]))
    if peak:
        counts = sorted(set(t for _, t in peak))
        lines.append("| measured fp32 peak | {} |".format("; ".join(
            "{} thread{}: {} GFLOPS ({})".format(t, "s" if t > 1 else "", fmt(g), isa)
            for t, (isa, g) in ((t, best_peak(peak, t)) for t in counts))))
    else:
        lines.append("| measured fp32 peak | no peak.csv (run build/bin/peak --csv results/peak.csv) |")
    lines.append("")
    lines.append("Best GFLOPS of the repetitions at each size (the nearest size measured when that "
                 "one was not: shown as @n); % of the measured fp32 peak at the run's thread "
                 "count; x OpenBLAS: ratio to ref_openblas at the same size and thread count.")
    lines.append("")
    header = ["step", "kernel", "threads"]
    for size in SIZES:
        header += ["GFLOPS n={}".format(size), "% peak", "x OpenBLAS"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "|".join(["---"] * 3 + ["--:"] * (3 * len(SIZES))) + "|")
    notes = []
    for run in runs:
        cells = [run["step"], ", ".join(run["kernels"]) or "-", str(run["threads"])]
        peak_here = best_peak(peak, run["threads"])
        ref = openblas.get(run["threads"])
        for size in SIZES:
            m = run["cells"].get(size)
            if m is None:
                cells += ["-", "-", "-"]
                continue
            gflops = run["best"][m]
            cells.append(fmt(gflops) + ("" if m == size else " @{}".format(m)))
            cells.append(fmt(100.0 * gflops / peak_here[1], 0) + "%" if peak_here else "-")
            if ref is not None and ref["best"].get(m):
                cells.append(fmt(gflops / ref["best"][m], 2))
            else:
                cells.append("-")
        if run["cells"]:
            lines.append("| " + " | ".join(cells) + " |")
        for sizes, what in ((run["failed"], "FAILED verification"),
                            (run["unverified"], "unverified (run with --no-verify)")):
            if sizes:
                notes.append("- **{}** ({} thread{}): {} at n = {}.".format(
                    run["step"], run["threads"], "s" if run["threads"] > 1 else "", what,
                    ", ".join(str(m) for m in sizes)))
    if notes:
        lines += ["", "Verification:"] + notes
    return "\n".join(lines) + "\n"


def parse_steps(text):
    if text is None:
        return None
    if not re.match(r"^\d+(,\d+)*$", text):
        raise InputError("--steps '{}': not a list of step numbers such as 5,7".format(text))
    return set(int(s) for s in text.split(","))


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description="results/summary.md from the CSVs in results/.")
    parser.add_argument("--results", default=os.path.join(os.path.dirname(here), "results"),
                        help="folder of the CSVs (default: results/ at the checkout's root)")
    parser.add_argument("-o", "--output", help="Markdown file to write (default: RESULTS/summary.md)")
    parser.add_argument("--steps", help="only these step numbers, e.g. 5,7")
    for key in ("compiler", "flags", "date"):
        parser.add_argument("--" + key, help="the machine's " + key + " (overrides machine.txt)")
    parser.add_argument("--cores", help="core count (overrides machine.txt)")
    args = parser.parse_args(argv)

    try:
        steps = parse_steps(args.steps)
        if not os.path.isdir(args.results):
            raise InputError("{}: no such folder".format(args.results))
        runs = collect(args.results, steps)
        if not runs:
            raise InputError("{}: no step*.csv or ref_*.csv to summarise".format(args.results))
        peak_path = os.path.join(args.results, "peak.csv")
        peak = load_peak(peak_path) if os.path.exists(peak_path) else {}
        machine = load_machine(os.path.join(args.results, "machine.txt"))
    except InputError as e:
        print("summary.py: {}".format(e), file=sys.stderr)
        return 2

    for key in ("compiler", "flags", "date", "cores"):
        if getattr(args, key):
            machine[key] = getattr(args, key)
    machine.setdefault("cpu", next((r["cpu"] for r in runs if r["cpu"]), ""))
    machine.setdefault("uarch", next((r["uarch"] for r in runs if r["uarch"]), ""))
    machine.setdefault("cores", str(os.cpu_count() or "unknown"))
    machine.setdefault("date", datetime.date.today().isoformat())

    output = args.output or os.path.join(args.results, "summary.md")
    text = render(runs, peak, machine)
    try:
        with open(output, "w") as f:
            f.write(text)
    except OSError as e:
        print("summary.py: {}: cannot write ({})".format(output, e.strerror), file=sys.stderr)
        return 2
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
