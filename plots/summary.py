#!/usr/bin/env python3
"""Write results/summary.md: per step, the best GFLOPS at n = 500, 1000 and 1500, against the
measured peak and OpenBLAS, with the kernel variant used and the machine it ran on.

    summary.py [--results DIR] [-o OUT.md] [--steps 5,7] [--compiler TEXT] [--flags TEXT]
               [--cores N] [--date TEXT]

Reads DIR/step*.csv and DIR/ref_*.csv (harness CSVs: step,m,n,k,threads,gflops_best,...,
kernel,reps,cpu), DIR/peak.csv (isa,precision,threads,gflops) and DIR/machine.txt, if the
caller wrote one ("key: value" lines for cpu, cores, compiler, flags, date; the options
override it). For each size the row measured nearest to it is used. % of peak: against the
best fp32 figure in peak.csv at the run's thread count. x OpenBLAS: against ref_openblas at
the same size and thread count. Standard library only; Python 3.7 or later.
Malformed input: exit 2 with one line naming the file and the problem.
"""
import argparse
import datetime
import glob
import os
import re
import sys

from harness_csv import PEAK_REQUIRED, REQUIRED, InputError, number, read_rows

SIZES = (500, 1000, 1500)
MACHINE_KEYS = ("cpu", "uarch", "cores", "compiler", "flags", "date", "rounds")


def step_number(slug):
    """05 for '05_simd_4x4', None for a reference such as 'ref_openblas'."""
    match = re.match(r"^(\d+)_", slug)
    return int(match.group(1)) if match else None


def load_run(path):
    """One harness CSV: {size: best GFLOPS} and what describes the run."""
    rows = read_rows(path, REQUIRED)
    run = {"path": path, "step": rows[0]["step"], "best": {}, "failed": [], "threads": 0,
           "kernels": [], "cpu": ""}
    for line, row in enumerate(rows, start=2):
        m = number(path, line, row, "m", int)
        gflops = number(path, line, row, "gflops_best")
        run["best"][m] = max(gflops, run["best"].get(m, 0.0))
        run["threads"] = max(run["threads"], number(path, line, row, "threads", int))
        if row["verified"].strip() != "1":
            run["failed"].append(m)
        kernel = (row.get("kernel") or "").strip()
        if kernel and kernel not in run["kernels"]:
            run["kernels"].append(kernel)
        run["cpu"] = run["cpu"] or (row.get("cpu") or "").strip()
        run["uarch"] = run.get("uarch") or (row.get("uarch") or "").strip()
    run["number"] = step_number(run["step"])
    return run


def load_peak(path):
    """{threads: (isa, best fp32 GFLOPS)}"""
    best = {}
    for line, row in enumerate(read_rows(path, PEAK_REQUIRED), start=2):
        if row["precision"].strip() != "fp32":
            continue
        threads = number(path, line, row, "threads", int)
        gflops = number(path, line, row, "gflops")
        if threads not in best or gflops > best[threads][1]:
            best[threads] = (row["isa"].strip(), gflops)
    return best


def load_machine(path):
    info = {}
    if not os.path.exists(path):
        return info
    try:
        with open(path) as f:
            for line in f:
                key, sep, value = line.partition(":")
                if sep and key.strip().lower() in MACHINE_KEYS:
                    info[key.strip().lower()] = value.strip()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError("{}: cannot read ({})".format(path, e))
    return info


def nearest(best, size):
    """The measured size nearest to `size` (the smaller one on a tie), or None."""
    if not best:
        return None
    return min(best, key=lambda m: (abs(m - size), m))


def collect(results, steps=None):
    """The runs in `results`: steps (only those numbered in `steps`, when given), then references."""
    runs = []
    for path in sorted(glob.glob(os.path.join(results, "step*.csv"))):
        run = load_run(path)
        if steps is not None and run["number"] not in steps:
            continue
        runs.append(run)
    runs.sort(key=lambda r: (r["number"] if r["number"] is not None else 1 << 30, r["threads"]))
    refs = [load_run(p) for p in sorted(glob.glob(os.path.join(results, "ref_*.csv")))]
    refs.sort(key=lambda r: (r["step"] != "ref_openblas", r["step"], r["threads"]))
    return runs + refs


def fmt(value, digits=1):
    return "{:.{}f}".format(value, digits)


def render(runs, peak, machine):
    openblas = {r["threads"]: r for r in runs if r["step"] == "ref_openblas"}
    lines = ["# SGEMM: where each step stands", ""]
    lines += ["| machine | |", "|---|---|"]
    for key, label in (("cpu", "CPU"), ("uarch", "microarchitecture"), ("cores", "cores"),
                       ("compiler", "compiler"),
                       ("flags", "flags"), ("date", "date")):
        lines.append("| {} | {} |".format(label, machine.get(key) or "unknown"))
    if machine.get("rounds", "1") != "1":
        lines.append("| rounds | {}: each size's best of {} sweeps, run one after the other |".format(
            machine["rounds"], machine["rounds"]))
    if peak:
        lines.append("| measured fp32 peak | {} |".format("; ".join(
            "{} thread{}: {} GFLOPS ({})".format(t, "s" if t > 1 else "", fmt(g), isa)
            for t, (isa, g) in sorted(peak.items()))))
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
        peak_here = peak.get(run["threads"])
        ref = openblas.get(run["threads"])
        for size in SIZES:
            m = nearest(run["best"], size)
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
        lines.append("| " + " | ".join(cells) + " |")
        if run["failed"]:
            notes.append("- **{}** ({} thread{}): FAILED verification at n = {}.".format(
                run["step"], run["threads"], "s" if run["threads"] > 1 else "",
                ", ".join(str(m) for m in sorted(run["failed"]))))
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
    machine.setdefault("uarch", next((r["uarch"] for r in runs if r.get("uarch")), ""))
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
