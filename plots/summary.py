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
at the run's thread count. x OpenBLAS: the median, over the rounds, of the ratio of the two
samples taken back to back at that size and thread count (DIR/samples/, written by
tools/interleave.py), with the range of those ratios; without samples, the ratio of the two
bests. Rows run with --no-verify are noted as unverified, not as failed. A closing Spread
paragraph names every size whose numbers are uncertain: a size no second sample confirmed
within tolerance (the CSV's settled column: unsettled), one whose median sample is more than
10 % (SPREAD) below its best, one the scaling run (DIR/scaling/) measured on as many threads
with a result that far off, and one timed while other programs held the CPUs for 5 % (BUSY)
or more of the time (the cpu_wait column). Standard library
only; Python 3.7 or later. Malformed input (a GFLOPS that is negative or not finite, a peak
that is not above 0 ...): exit 2 with one line naming the file and the problem; OUT.md cannot
be written: exit 3 (it is written by plots/output_file.py's rules).
"""
import datetime
import glob
import os
import re
import sys

import cli  # plots/cli.py: one-line usage errors
import output_file
import samples as sampling
from harness_csv import (InputError, best_by_size, best_peak, load_machine, load_peak, load_run,
                         nearest, split_by_threads)
from output_file import OutputError

SIZES = (500, 1000, 1500)
# Two numbers of one measurement further apart than this (as a fraction of the larger) make
# the summary say that the step's figures are uncertain by as much.
SPREAD = 0.10
# A size whose timed calls spent this share of their time waiting for a CPU that another
# program held (the CSV's cpu_wait; gemm::kBusyShare in common/include/gemm/harness.hpp)
# measured the machine's other load as much as the step.
BUSY = 0.05


def load_runs(path):
    """One harness CSV as runs, one per thread count in it, each with {size: best GFLOPS},
    the sizes that failed verification and whether any row went unverified (--no-verify).
    cells: {table size: the measured size that stands for it}, the size nearest it in the
    whole CSV, when this thread count ran it (step 09 runs small sizes on fewer threads:
    their run has no cell at 1000)."""
    whole = load_run(path)
    runs = []
    split = split_by_threads(whole)
    for run in split:
        run["mixed"] = len(split) > 1   # the CSV holds other thread counts too
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


def load_samples(results, run):
    """The samples behind a run's CSV (results/samples/<csv name>), as rows; [] when none."""
    return sampling.samples_beside(os.path.join(results, os.path.basename(run["path"])))


def paired(results, runs):
    """{(step, threads): {size: (median, lowest, highest, pairs)}}: each run's ratio to
    ref_openblas from the samples taken back to back (plots/samples.py), over the library's
    one-thread and all-core samples alike (a pair needs the same round, size and threads)."""
    ref_rows = []
    for name in ("ref_openblas.csv", "ref_openblas_mt.csv"):
        path = os.path.join(results, "samples", name)
        if os.path.isfile(path):
            try:
                ref_rows += sampling.read_samples(path)[1]
            except (OSError, ValueError, UnicodeDecodeError) as e:
                raise InputError("{}: cannot read ({})".format(path, e))
    out = {}
    if not ref_rows:
        return out
    for run in runs:
        ours = load_samples(results, run)
        if not ours or run["step"] == "ref_openblas":
            continue
        for (m, threads), value in sampling.paired_ratios(ours, ref_rows).items():
            if threads == run["threads"]:
                out.setdefault((run["step"], threads, run["path"]), {})[m] = value
    return out


def spread_notes(results, runs, peak=None):
    """A sentence per step and thread count whose numbers are uncertain: a size no second
    sample confirmed (unsettled: tools/interleave.py gave it more samples and they still
    disagree), a size whose median sample is more than SPREAD below its best, a size the
    scaling run (results/scaling/) measured too, on as many threads, with another result
    (issue 28: step 09 at n = 1000, 118.6 GFLOPS in the sweep and 186.3 in the scaling run),
    a size timed while other programs held the CPUs (cpu_wait), and a size whose best is above
    the measured fp32 peak at its thread count (the CPU ran faster then than while the peak
    was measured: a host that runs it faster for a while, up to 209 GFLOPS against 173-181 on
    the Emerald Rapids of issue 33, or a peak measured in a spell, 289.5 on two threads there
    against 340-358 in other runs)."""
    def apart(a, b):
        return 1.0 - min(a, b) / max(a, b) if max(a, b) > 0 else 0.0

    def far(x):   # as the sentence shows it: 10.04 % is "10 %", not more than 10 %
        return round(100 * x) > round(100 * SPREAD)

    def pct(x):
        return "{:.0f} %".format(100 * x)

    scaling = [load_run(p) for p in sorted(glob.glob(os.path.join(results, "scaling", "*.csv")))]
    notes = []
    for run in runs:
        said = []
        values = {}
        for r in load_samples(results, run):
            if int(r["threads"]) == run["threads"]:
                values.setdefault(int(r["m"]), []).append(float(r["gflops_best"]))
        ceiling = best_peak(peak or {}, run["threads"])
        above = [r for r in run["rows"] if ceiling and r["best"] > ceiling[1]]
        if above:
            said.append("above the measured peak ({} GFLOPS) at n = {}: the CPU ran faster then than while the "
                        "peak was measured (a host that sped it up, or a peak measured in a spell): the curve "
                        "is high there, or the peak low".format(
                            fmt(ceiling[1]), ", ".join("{} ({})".format(r["m"], fmt(r["best"])) for r in above)))
        unsettled = [r for r in run["rows"] if r["samples"] is not None and not r["settled"]]
        # Two kinds: no second sample near the best, or the best confirmed but the job's samples
        # came near their best so rarely that a spell could have slowed all of this size's alike
        # (tools/interleave.py wanted more: samples.needed_samples).
        confirmed = [r for r in unsettled if len(values.get(r["m"], [])) >= 2
                     and sampling.gap(values[r["m"]]) <= sampling.TOLERANCE]
        unconfirmed = [r for r in unsettled if r not in confirmed]
        if unconfirmed:
            said.append("unsettled at n = {} (no second sample within {} of the best)".format(", ".join(
                "{} ({})".format(r["m"], "one sample" if r["samples"] == 1 else "{} samples, {} apart".format(
                    r["samples"], pct(sampling.spread(values.get(r["m"], [])))))
                for r in unconfirmed), pct(sampling.TOLERANCE)))
        if confirmed:
            share = sampling.quiet_share(list(values.values()))
            spreads = sorted(sampling.spread(values[r["m"]]) for r in confirmed)
            apart_text = pct(spreads[0]) if pct(spreads[0]) == pct(spreads[-1]) else "{:.0f}-{}".format(
                100 * spreads[0], pct(spreads[-1]))
            said.append("unsettled, too few samples, at n = {} (samples {} apart): each best was confirmed by a "
                        "second sample, but only {} of this run's samples came within {} of their size's best, "
                        "so it takes {} for one of them to have missed the spells".format(
                            ", ".join("{} ({})".format(r["m"], r["samples"]) for r in confirmed), apart_text,
                            pct(share), pct(sampling.TOLERANCE), sampling.needed_samples(share)))
        wide = [(r["m"], apart(r["best"], r["median"])) for r in run["rows"] if far(apart(r["best"], r["median"]))]
        busy = [(r["m"], r["cpu_wait"]) for r in run["rows"] if r["cpu_wait"] is not None and r["cpu_wait"] >= BUSY]
        if busy:
            said.append("other programs held its CPUs for {} or more of the timed calls at n = {}".format(
                pct(BUSY), ", ".join("{} ({})".format(m, pct(x)) for m, x in busy)))
        if wide:
            said.append("the median {} more than {} below the best at n = {}".format(
                "sample is" if any(r["samples"] for r in run["rows"]) else "of the repetitions is",
                pct(SPREAD), ", ".join("{} ({})".format(m, pct(x)) for m, x in wide)))
        for other in scaling:
            if other["step"] != run["step"]:
                continue
            theirs = {r["m"]: r["best"] for r in other["rows"] if r["threads"] == run["threads"]}
            for m, (best, _) in sorted(best_by_size(run).items()):
                if m in theirs and far(apart(best, theirs[m])):
                    said.append("at n = {} this sweep measured {} GFLOPS and the scaling run ({}) {}: {} apart".format(
                        m, fmt(best), os.path.basename(other["path"]), fmt(theirs[m]), pct(apart(best, theirs[m]))))
        if said:
            # Step 10's all-core CSV runs its smallest sizes on one thread: that run is named by
            # its file, or it would read as a second sentence about the one-thread CSV.
            twin = run["mixed"] and sum(1 for other in runs
                                        if (other["step"], other["threads"]) == (run["step"], run["threads"])) > 1
            notes.append("- **{}** ({} thread{}{}): {}.".format(
                run["step"], run["threads"], "s" if run["threads"] > 1 else "",
                ", in " + os.path.basename(run["path"]) if twin else "", "; ".join(said)))
    return notes


def fmt(value, digits=1):
    return "{:.{}f}".format(value, digits)


def render(runs, peak, machine, spread=None, pairs=None):
    """summary.md's text; spread: spread_notes' sentences (None: not looked for); pairs:
    paired()'s ratios to OpenBLAS (a run without them shows the ratio of the bests)."""
    pairs = pairs or {}
    openblas = {r["threads"]: r for r in runs if r["step"] == "ref_openblas"}
    lines = ["# SGEMM: where each step stands", ""]
    lines += ["| machine | |", "|---|---|"]
    for key, label in (("cpu", "CPU"), ("uarch", "microarchitecture"), ("cores", "cores"),
                       ("compiler", "compiler"), ("flags", "flags"), ("date", "date")):
        lines.append("| {} | {} |".format(label, machine.get(key) or "unknown"))
    if machine.get("rounds"):
        lines.append("| sampling | every size of every step and library in {} rounds or more, side by side "
                     "(tools/interleave.py): the best sample is the curve |".format(machine["rounds"]))
    if peak:
        counts = sorted(set(t for _, t in peak))
        lines.append("| measured fp32 peak | {} |".format("; ".join(
            "{} thread{}: {} GFLOPS ({})".format(t, "s" if t > 1 else "", fmt(g), isa)
            for t, (isa, g) in ((t, best_peak(peak, t)) for t in counts))))
    else:
        lines.append("| measured fp32 peak | no peak.csv (run build/bin/peak --csv results/peak.csv) |")
    lines.append("")
    lines.append("GFLOPS: the best sample at each size (the nearest size measured when that "
                 "one was not: shown as @n); % of the measured fp32 peak at the run's thread "
                 "count; x OpenBLAS: the median over the rounds of the ratio to ref_openblas "
                 "sampled right before or after it at the same size and thread count (of the rounds "
                 "in which both samples came within {:.0f} % of their size's best), with the range of those ratios in brackets (without samples: the ratio "
                 "of the bests; also where no round had both near their bests).".format(100 * sampling.PAIR_NEAR))
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
            pair = pairs.get((run["step"], run["threads"], run["path"]), {}).get(m)
            if pair is not None:
                # the median of the rounds' paired ratios, and their range when they differ
                cells.append(fmt(pair[0], 2) + (" ({}-{})".format(fmt(pair[1], 2), fmt(pair[2], 2))
                                                if fmt(pair[1], 2) != fmt(pair[2], 2) else ""))
            elif ref is not None and ref["best"].get(m):
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
    if spread is not None:
        lines += ["", "Spread: a size is *unsettled* when no second sample came within {:.0f} % of its best "
                      "(it got more samples, and they still disagree: its figure is uncertain by as much "
                      "as they are apart), or when its samples were fewer than a run disturbed this often "
                      "needs for one of them to have missed the spells; a size also shows here when its median sample is more than "
                      "{:.0f} % below the best, when the scaling run at the same size and thread count "
                      "differs by more than that, when other programs held the CPUs for {:.0f} % or more "
                      "of its timed calls (the CSV's cpu_wait), or when its best is above the measured peak. "
                      "A difference smaller than these between two "
                      "steps or sizes is noise.".format(100 * sampling.TOLERANCE, 100 * SPREAD, 100 * BUSY)]
        lines += spread or ["- every step and library: every size settled, and within {:.0f} % everywhere.".format(
            100 * SPREAD)]
    return "\n".join(lines) + "\n"


def parse_steps(text):
    if text is None:
        return None
    if not re.match(r"^\d+(,\d+)*$", text):
        raise InputError("--steps '{}': not a list of step numbers such as 5,7".format(text))
    return set(int(s) for s in text.split(","))


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    parser = cli.Parser(prog="summary.py", description="results/summary.md from the CSVs in results/.")
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
        spread = spread_notes(args.results, runs, peak)
        pairs = paired(args.results, runs)
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
    text = render(runs, peak, machine, spread, pairs)
    try:
        output_file.write(output, text)
    except OutputError as e:
        print("summary.py: {}".format(e), file=sys.stderr)
        return 3
    print(text, end="")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:   # summary.md is written whole at the end, or not at all
        sys.exit(cli.interrupted("summary.py"))
