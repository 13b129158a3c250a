#!/usr/bin/env python3
"""Write results/summary.md: per step, the best GFLOPS at n = 500, 1000 and 1500 against the
measured peak and OpenBLAS, with the kernel used and the machine; then a Spread table, a row per
curve, and spread.csv beside it with the per-size detail (docs/contracts.md, "The plots").

    summary.py [--results DIR] [-o OUT.md] [--steps 5,7] [--compiler TEXT] [--flags TEXT]
               [--cores N] [--date TEXT]

Reads DIR/step*.csv, ref_*.csv, peak.csv, machine.txt (the options override it), samples/ and
scaling/. Standard library only. Exit 2: malformed input, one line naming the file and the
problem; 3: OUT.md or spread.csv cannot be written (plots/output_file.py's rules).
"""
import csv
import datetime
import glob
import io
import os
import re

import cli  # plots/cli.py: one-line usage errors
import drawing
import output_file
import samples as sampling
from drawing import Inputs   # the files read once (drawing.py imports no matplotlib)
from harness_csv import (InputError, best_by_size, best_peak, load_machine, load_run, nearest,
                         split_as_run, split_by_threads, step_number)

SIZES = (500, 1000, 1500)
SPREAD = 0.10   # a scaling run further off than this (of the larger) is named
BUSY = 0.05     # a size whose cpu_wait is this or more measured the machine's other load too
SPREAD_COLUMNS = ["step", "threads", "csv", "n", "ran_threads", "samples", "settled", "gflops_best",
                  "gflops_median", "gflops_worst", "spread", "gap", "cpu_wait", "scaling_gflops",
                  "above_peak", "disturbed", "needed"]


def load_runs(path, inputs):
    """A harness CSV as runs, one per thread count: best {size: GFLOPS}, the failed and unverified
    sizes, cells {table size: the size nearest it in the whole CSV, when this count ran it}."""
    whole = inputs.read(load_run, path)
    split = split_by_threads(whole)
    sizes = set(r["m"] for r in whole["rows"])
    nearby = {size: nearest(sizes, size) for size in SIZES}
    for run in split:
        run["mixed"] = len(split) > 1   # the CSV holds other thread counts too
        run["best"] = {m: best for m, (best, _) in best_by_size(run).items()}
        run["cells"] = {size: m for size, m in nearby.items() if m in run["best"]}
        run["failed"] = sorted(set(r["m"] for r in run["rows"] if r["failed"]))
        run["unverified"] = sorted(set(r["m"] for r in run["rows"] if r["unchecked"]))
    return split


def collect(results, steps=None, inputs=None):
    """The runs in `results`: steps (only those numbered in `steps`, when given), then references."""
    inputs = inputs or Inputs()
    runs = []
    for path in sorted(glob.glob(os.path.join(results, "step*.csv"))):
        # Numbered by the file's name (stepNN_slug.csv), whatever its step column says.
        number = step_number(os.path.basename(path)[len("step"):])
        for r in load_runs(path, inputs):
            r["number"] = number if number is not None else r["number"]
            if steps is None or r["number"] in steps:
                runs.append(r)
    runs.sort(key=lambda r: (r["number"] if r["number"] is not None else 1 << 30, r["threads"]))
    refs = [r for p in sorted(glob.glob(os.path.join(results, "ref_*.csv"))) for r in load_runs(p, inputs)]
    refs.sort(key=lambda r: (r["step"] != "ref_openblas", r["step"], r["threads"]))
    return runs + refs


def paired(results, runs, inputs):
    """{(step, threads, path): {size: (median, lowest, highest, pairs)}}: each run's ratios to
    ref_openblas sampled back to back (plots/samples.py), against its one-thread and all-core CSVs."""
    ref_rows = [row for name in ("ref_openblas.csv", "ref_openblas_mt.csv")
                for row in inputs.samples(os.path.join(results, name))]
    out = {}
    for run in runs:
        if run["step"] == "ref_openblas":
            continue
        for (m, threads), value in sampling.paired_ratios(inputs.samples(run["path"]), ref_rows).items():
            if threads == run["threads"]:
                out.setdefault((run["step"], threads, run["path"]), {})[m] = value
    return out


def curves_of(runs, inputs):
    """The curves the figures draw (harness_csv.split_as_run) of the CSVs behind `runs`."""
    out = []
    for path in dict.fromkeys(r["path"] for r in runs):
        whole = next(r for r in runs if r["path"] == path)
        for part in split_as_run(inputs.read(load_run, path)):
            part["twin"] = whole["mixed"] and any(r["path"] != path and (r["step"], r["threads"]) ==
                                                  (part["step"], part["threads"]) for r in runs)
            out.append(part)
    return out


def size_detail(row, values, scaling, ceiling):
    """One size of a curve: what spread.csv says of it (values: its samples' GFLOPS)."""
    return {"n": row["m"], "ran_threads": row["threads"], "samples": row["samples"],
            "settled": None if row["samples"] is None else row["settled"], "best": row["best"],
            "median": row["median"], "worst": min(values) if values else None,
            "spread": sampling.spread(values) if len(values) > 1 else None,
            "gap": sampling.gap(values) if len(values) > 1 else None, "cpu_wait": row["cpu_wait"],
            "scaling": scaling, "above_peak": bool(ceiling and row["best"] > ceiling[1])}


def spread_detail(results, runs, peak, inputs):
    """Per curve, its sizes (size_detail, with the scaling run's best at the same size and threads)
    and the share of its samples a spell disturbed (plots/samples.py)."""
    scaling = inputs.runs(sorted(glob.glob(os.path.join(results, "scaling", "*.csv"))))
    out = []
    for curve in curves_of(runs, inputs):
        values = {}
        for r in inputs.samples(curve["path"]):
            values.setdefault((int(r["m"]), int(r["threads"])), []).append(float(r["gflops_best"]))
        sizes = []
        for row in curve["rows"]:
            theirs = [o["best"] for other in scaling if other["step"] == curve["step"]
                      for o in other["rows"] if (o["m"], o["threads"]) == (row["m"], row["threads"])]
            sizes.append(size_detail(row, values.get((row["m"], row["threads"]), []), max(theirs, default=None),
                                     best_peak(peak, row["threads"])))
        quiet = sampling.quiet_share(list(values.values())) if values else None
        out.append({"step": curve["step"], "threads": curve["threads"], "path": curve["path"],
                    "twin": curve["twin"], "sizes": sizes,
                    "disturbed": None if quiet is None else 1.0 - quiet,
                    "needed": None if quiet is None else sampling.needed_samples(quiet)})
    return out


def apart(a, b):
    return 1.0 - min(a, b) / max(a, b) if max(a, b) > 0 else 0.0


def pct(x):
    return "{:.0f} %".format(100 * x)


def fmt(value, digits=1):
    return "{:.{}f}".format(value, digits)


def flags(curve):
    """What else makes a curve's numbers uncertain: busy CPUs, a scaling run off, bests above the peak."""
    def at(what, sizes):
        return [what + " at n = " + ", ".join(str(d["n"]) for d in sizes)] if sizes else []
    sizes = curve["sizes"]
    off = ["scaling run {} off at n = {}".format(pct(apart(d["best"], d["scaling"])), d["n"]) for d in sizes
           if d["scaling"] is not None and round(100 * apart(d["best"], d["scaling"])) > round(100 * SPREAD)]
    busy = [d for d in sizes if d["cpu_wait"] is not None and d["cpu_wait"] >= BUSY]
    return "; ".join(at("CPUs busy", busy) + off + at("above the peak", [d for d in sizes if d["above_peak"]]))


def curve_name(curve):
    """The file too for a CSV's second curve on as many threads (one run small sizes on fewer)."""
    return curve["step"] + (" ({})".format(os.path.basename(curve["path"])) if curve["twin"] else "")


def spread_row(curve):
    """One curve's row: sizes settled of sizes measured, the worst spread and where, samples a size, disturbed."""
    sizes = curve["sizes"]
    known = [d for d in sizes if d["settled"] is not None]
    spreads = [d for d in sizes if d["spread"] is not None]
    worst = max(spreads, key=lambda d: d["spread"]) if spreads else None
    counts = sorted(d["samples"] for d in known)
    return table_row([
        curve_name(curve), curve["threads"],
        "{}/{}".format(sum(1 for d in known if d["settled"]), len(sizes)) if known else "-",
        "{:.0f}% at {}".format(100 * worst["spread"], worst["n"]) if worst else "-",
        ("{}-{}".format(counts[0], counts[-1]) if counts[0] != counts[-1] else str(counts[0])) if counts else "-",
        "{:.0f}%".format(100 * curve["disturbed"]) if curve["disturbed"] is not None else "-"])


def spread_table(detail):
    """summary.md's spread: a row per curve, then a line per curve that flags() names."""
    lines = [table_row(["curve", "threads", "settled", "worst spread, at n", "samples a size", "disturbed"]),
             "|---|--:|--:|--:|--:|--:|"] + [spread_row(c) for c in detail]
    notes = ["- **{}** ({}): {}.".format(curve_name(c), drawing.threads_text([c["threads"]]), flags(c))
             for c in detail if flags(c)]
    return lines + ([""] + notes if notes else [])


def spread_words(detail):
    """What the spread table means for the reader's comparisons, in a few sentences."""
    sizes = [d for c in detail for d in c["sizes"] if d["settled"] is not None]
    if not sizes:
        return "No samples (tools/interleave.py): settled and spread unknown."
    settled = sum(1 for d in sizes if d["settled"])
    if settled == len(sizes):
        return ("Every size settled: a second sample confirmed each best within {}, so a difference larger "
                "than that between two curves is the steps'.".format(pct(sampling.TOLERANCE)))
    return ("{} of {} sizes settled. Two curves closer than their spread may be in either order; x OpenBLAS, "
            "paired within rounds, is the steadier comparison. Per size: spread.csv.".format(settled, len(sizes)))


def spread_csv(detail):
    """results/spread.csv: a row per curve and size (docs/contracts.md, "The plots")."""
    def cell(value):
        if value is None:
            return ""
        if isinstance(value, bool):
            return "1" if value else "0"
        return "{:.4f}".format(value) if isinstance(value, float) else str(value)
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(SPREAD_COLUMNS)
    for c in detail:
        for d in c["sizes"]:
            writer.writerow([cell(v) for v in (
                c["step"], c["threads"], os.path.basename(c["path"]), d["n"], d["ran_threads"], d["samples"],
                d["settled"], d["best"], d["median"], d["worst"], d["spread"], d["gap"], d["cpu_wait"],
                d["scaling"], d["above_peak"], c["disturbed"], c["needed"])])
    return text.getvalue()


def table_row(cells):
    """A Markdown table row (a "|" in a name is escaped, so it ends no cell)."""
    return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"


def machine_table(machine, peak):
    """summary.md's head: the machine it ran on and its measured peaks."""
    lines = ["# SGEMM: where each step stands", "", table_row(["machine", ""]), "|---|---|"]
    for key, label in (("cpu", "CPU"), ("uarch", "microarchitecture"), ("cores", "cores"),
                       ("compiler", "compiler"), ("flags", "flags"), ("date", "date")):
        lines.append(table_row([label, machine.get(key) or "unknown"]))
    if machine.get("rounds"):
        lines.append(table_row(["sampling", "{} rounds or more of every size, interleaved (tools/interleave.py)".format(
            machine["rounds"])]))
    peaks = "no peak.csv (run build/bin/peak --csv results/peak.csv)"
    if peak:
        peaks = "; ".join("{}: {} GFLOPS ({})".format(drawing.threads_text([t]), fmt(g), isa)
                          for t, (isa, g) in ((t, best_peak(peak, t)) for t in sorted(set(t for _, t in peak))))
    return lines + [table_row(["measured fp32 peak", peaks])]


def step_cells(run, size, peak_here, ref, pair_of):
    """A run's three cells at a table size: GFLOPS, % of the peak, x OpenBLAS."""
    m = run["cells"].get(size)
    if m is None:
        return ["-", "-", "-"]
    gflops = run["best"][m]
    cells = [fmt(gflops) + ("" if m == size else " @{}".format(m)),
             fmt(100.0 * gflops / peak_here[1], 0) + "%" if peak_here else "-"]
    pair = pair_of.get(m)
    if pair is not None:
        # the median of the rounds' paired ratios, and their range when they differ
        return cells + [fmt(pair[0], 2) + (" ({}-{})".format(fmt(pair[1], 2), fmt(pair[2], 2))
                                           if fmt(pair[1], 2) != fmt(pair[2], 2) else "")]
    if ref is not None and ref["best"].get(m):
        return cells + [fmt(gflops / ref["best"][m], 2)]
    return cells + ["-"]


def step_table(runs, peak, pairs):
    """summary.md's table, a row per run, and its verification notes."""
    openblas = {r["threads"]: r for r in runs if r["step"] == "ref_openblas"}
    header = ["step", "kernel", "threads"] + [
        cell for size in SIZES for cell in ("GFLOPS n={}".format(size), "% peak", "x OpenBLAS")]
    lines = [table_row(header), "|" + "|".join(["---"] * 3 + ["--:"] * (3 * len(SIZES))) + "|"]
    notes = []
    for run in runs:
        cells = [run["step"], ", ".join(run["kernels"]) or "-", str(run["threads"])]
        pair_of = pairs.get((run["step"], run["threads"], run["path"]), {})
        for size in SIZES:
            cells += step_cells(run, size, best_peak(peak, run["threads"]), openblas.get(run["threads"]), pair_of)
        if run["cells"]:
            lines.append(table_row(cells))
        for sizes, what in ((run["failed"], "FAILED verification"),
                            (run["unverified"], "unverified (run with --no-verify)")):
            if sizes:
                notes.append("- **{}** ({}): {} at n = {}.".format(
                    run["step"], drawing.threads_text([run["threads"]]), what, ", ".join(map(str, sizes))))
    return lines + (["", "Verification:"] + notes if notes else []) + forced_reference(runs)


def forced_reference(runs):
    """A line for each library whose kernels a variable of the reader's chose (not necessarily its best)."""
    lines = []
    for step, var in (("ref_openblas", "OPENBLAS_CORETYPE"), ("ref_blis", "BLIS_ARCH_TYPE")):
        kernels = sorted(set(k for r in runs if r["step"] == step for k in r["kernels"] if "(" + var + "=" in k))
        if kernels:
            lines += ["", "**{} ran the kernels {} asks for** ({}), not necessarily its best on this CPU: "
                          "`build/bin/cpuinfo` says which is; unset {} to compare with the best.".format(
                              step, var, "; ".join(kernels), var)]
    return lines


def render(runs, peak, machine, spread, pairs):
    """summary.md's text; spread: spread_detail()'s curves; pairs: paired()'s."""
    lines = machine_table(machine, peak) + [""]
    lines.append("GFLOPS: the best sample at each size (@n: the nearest size measured, when that one was not); "
                 "% of the measured fp32 peak at the run's thread count; x OpenBLAS: the median over the rounds "
                 "of the ratio to ref_openblas sampled right before or after it at the same size and thread count "
                 "(of the rounds in which both came within {:.0f} % of their size's best), the range of those "
                 "ratios in brackets (without samples, or no such round: the ratio of the bests).".format(
                     100 * sampling.PAIR_NEAR))
    lines += [""] + step_table(runs, peak, pairs)
    lines += ["", "Spread (plots/samples.py): settled, a second sample within {} of the best; spread, "
                  "(best - worst) / best; disturbed, the share of samples a spell slowed more than that."
              .format(pct(sampling.TOLERANCE)), ""]
    lines += spread_table(spread) + ["", spread_words(spread)]
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
    parser.add_argument("--results", type=cli.name, default=os.path.join(os.path.dirname(here), "results"),
                        help="folder of the CSVs (default: results/ at the checkout's root)")
    parser.add_argument("-o", "--output", type=cli.name, help="Markdown file to write (default: RESULTS/summary.md)")
    parser.add_argument("--steps", help="only these step numbers, e.g. 5,7")
    for key in ("compiler", "flags", "date"):
        parser.add_argument("--" + key, help="the machine's " + key + " (overrides machine.txt)")
    parser.add_argument("--cores", help="core count (overrides machine.txt)")
    args = parser.parse_args(argv)
    overrides = {key: getattr(args, key) for key in ("compiler", "flags", "date", "cores")}
    # bad input: 2; a file that cannot be written: 3
    return drawing.run("summary.py", lambda: print(write(args.results, args.steps, overrides, args.output),
                                                   end="") or 0)


def write(results, steps_text=None, overrides=None, output=None, inputs=None):
    """summary.md (OUTPUT, default RESULTS/summary.md) and spread.csv beside it from the CSVs in `results`
    (through `inputs`, when read already); returns summary.md's text. Raises InputError or OutputError."""
    inputs = inputs or Inputs()
    steps = parse_steps(steps_text)
    if not os.path.isdir(results):
        raise InputError("{}: no such folder".format(results))
    runs = collect(results, steps, inputs)
    if steps is not None and not any(r["number"] in steps for r in runs):   # a table of references only
        raise InputError("--steps {}: no CSV of these steps in {}".format(steps_text, results))
    if not runs:
        raise InputError("{}: no step*.csv or ref_*.csv to summarise".format(results))
    peak_path = os.path.join(results, "peak.csv")
    peak = inputs.peak(peak_path) if os.path.exists(peak_path) else {}
    machine = load_machine(os.path.join(results, "machine.txt"))
    spread, pairs = spread_detail(results, runs, peak, inputs), paired(results, runs, inputs)
    machine.update((key, value) for key, value in (overrides or {}).items() if value)
    for key in ("cpu", "uarch"):
        machine.setdefault(key, next((r[key] for r in runs if r[key]), ""))
    machine.setdefault("cores", str(os.cpu_count() or "unknown"))
    machine.setdefault("date", datetime.date.today().isoformat())
    output = output or os.path.join(results, "summary.md")
    text = render(runs, peak, machine, spread, pairs)
    spread_path = os.path.join(os.path.dirname(os.path.abspath(output)), "spread.csv")
    for path in (output, spread_path):   # both checked before either is written
        output_file.check(path)
    output_file.write(output, text)
    output_file.write(spread_path, spread_csv(spread))
    return text


if __name__ == "__main__":
    cli.main_of(main, "summary.py")   # summary.md is written whole at the end, or not at all
