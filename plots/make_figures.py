#!/usr/bin/env python3
"""Draw the tutorial's whole figure set from the CSVs in results/ (run_all.sh calls this).

    make_figures.py [--results DIR] [--steps 5,7] [--at N] [--docs DIR] [--compiler TEXT]
                    [--flags TEXT]

Makes, in DIR (default results/ at the checkout's root), each from the files it needs:
  step<slug>.png     each step CSV against the step before it (on one thread or several, as
                     this one: step 10 against 08, step10_tuned_mt against 09; else the step
                     just before), the peak of its own ISA and the best
  overlay.png        every one-thread step with ref_openblas and ref_blis (linear axis)
  overlay_log.png    the same on a log axis, where the scalar steps are readable too
  overlay_mt.png     the multi-threaded runs (steps 09 and 10, ref_*_mt) against the all-core peak
  staircase.png      one bar per step at n = --at (1000), speed-ups, libraries and peaks
  roofline.png       every step on the roofline (peak.csv, bandwidth.csv, cpuinfo.txt)
  bandwidth.png      bandwidth by working set (bandwidth.csv)
  scaling.png        steps 09 and 10 and the libraries at 1..N threads (scaling/*.csv, peak.csv)
  blockmap_<step>.png  GFLOPS over kc x mc (blockmap_<step>.csv, from tools/block_map.py)
  summary.md         plots/summary.py's tables (spread.csv beside it: the per-size spread)
--docs DIR also copies the figures there (the tutorial's docs/figures/). A figure whose
inputs are not there is left out, with a line saying so. Titles name the microarchitecture
from the CSVs or DIR/machine.txt. Every file is written by plots/output_file.py's rules. Needs
matplotlib (through the plot_*.py scripts); exit 1 when a figure failed, 2 on a usage error or
bad input (a plot script's or summary.py's exit 2 too), 3 when DIR or the --docs folder cannot
take the files (checked before drawing; a plot script's exit 3 too: no matplotlib), 130
Ctrl-C (one line; the plot script under way killed with its process group, each figure drawn
whole or not at all).
"""
import glob
import io
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cli  # noqa: E402  (plots/cli.py: one-line usage errors, the plot scripts in their own group)
import output_file  # noqa: E402
import samples  # noqa: E402  (plots/samples.py: the samples files, checked)
import summary  # noqa: E402  (plots/summary.py, next to this file)
from harness_csv import MAX_SIZE, InputError, best_peak, load_bandwidth, load_peak, load_run, step_number  # noqa: E402
from output_file import OutputError  # noqa: E402


def script(name):
    return os.path.join(HERE, name)


def paths_of(runs):
    """The CSV files of these runs, each once, in order (a CSV with two thread counts is two runs)."""
    out = []
    for r in runs:
        if r["path"] not in out:
            out.append(r["path"])
    return out


def main(argv):
    parser = cli.Parser(prog="make_figures.py", description="The figure set and summary.md from results/.")
    parser.add_argument("--results", type=cli.name, default=os.path.join(os.path.dirname(HERE), "results"))
    parser.add_argument("--steps", help="only these step numbers, e.g. 5,7")
    parser.add_argument("--at", type=int, default=1000,
                        help="matrix size of the staircase, roofline and scaling figures (default 1000)")
    parser.add_argument("--docs", type=cli.name, help="also copy the figures to this folder")
    parser.add_argument("--compiler", help="for summary.md")
    parser.add_argument("--flags", help="for summary.md")
    args = parser.parse_args(argv)
    results = args.results

    def path(name):
        return os.path.join(results, name)

    try:
        wanted = summary.parse_steps(args.steps)
        if not 1 <= args.at <= MAX_SIZE:   # the plot scripts' limit: theirs would be two lines of usage each
            raise InputError("--at '{}': a size is from 1 to {}".format(args.at, MAX_SIZE))
        if not os.path.isdir(results):
            raise InputError("{}: no such folder".format(results))
        every_step = [r for r in summary.collect(results) if r["number"] is not None]
        refs = [r for r in summary.collect(results, steps=set()) if r["number"] is None]
        peak = load_peak(path("peak.csv")) if os.path.exists(path("peak.csv")) else None
        if os.path.exists(path("bandwidth.csv")):
            load_bandwidth(path("bandwidth.csv"))
        scaling = sorted(glob.glob(os.path.join(results, "scaling", "*.csv")))
        for csv in scaling:
            load_run(csv)
        for csv in dict.fromkeys(r["path"] for r in every_step + refs):   # before drawing, not in summary.md's turn
            samples.samples_beside(csv)
        if wanted is not None and not any(r["number"] in wanted for r in every_step):
            raise InputError("--steps {}: no CSV of these steps in {}".format(args.steps, results))
    except InputError as e:
        print("make_figures.py: {}".format(e), file=sys.stderr)
        return 2
    steps = [r for r in every_step if wanted is None or r["number"] in wanted]
    if not steps and not refs:
        print("make_figures.py: {}: no step or reference CSV to draw".format(results), file=sys.stderr)
        return 2

    # The folders must take the files before anything is drawn.
    try:
        output_file.check(path("summary.md"))
        if args.docs:
            try:
                os.makedirs(args.docs, exist_ok=True)
            except OSError as e:
                raise OutputError("cannot write {}: {}".format(args.docs, e.strerror))
            output_file.check(os.path.join(args.docs, "overlay.png"))
    except OutputError as e:
        print("make_figures.py: {}".format(e), file=sys.stderr)
        return 3

    # The exit status of the figures: 1 when one failed; a plot script's (or summary.py's)
    # 2, bad input, or 3, not writable, passed on (the gravest), as the docstring documents.
    made, failed = [], 0
    machine = ["--machine", path("machine.txt")] if os.path.exists(path("machine.txt")) else []

    def draw(out, name, inputs, *options):
        """One plot script; the figure is counted as made or failed."""
        nonlocal failed
        target = path(out)
        result = cli.run([sys.executable, script(name)] + list(inputs) + list(options) + machine +
                         ["-o", target], stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        if result.returncode != 0:
            why = (result.stderr.strip().splitlines() or ["no message"])[-1]   # one line: a traceback's last
            print("make_figures.py: {}: {} exited {}: {}".format(target, name, result.returncode, why), file=sys.stderr)
            failed = worse(failed, result.returncode)
            return
        print("   figure: " + target)
        made.append(target)

    def leave_out(out, why):
        print("make_figures.py: no {}: {}".format(out, why))

    def peak_for(out, threads):
        """--peak when peak.csv has a row for `threads`; else say the line is left out."""
        if peak is None:
            return []
        if best_peak(peak, threads) is None:
            print("make_figures.py: {}: no fp32 peak for {} thread(s) in peak.csv: drawn without the "
                  "peak line".format(out, threads))
            return []
        return ["--peak", path("peak.csv")]

    # A CSV holds one run, whose thread count may vary with the size (step 09 runs small
    # products on fewer threads): figures take whole CSVs, by the most threads they ran.
    most = {}
    for r in every_step + refs:
        most[r["path"]] = max(most.get(r["path"], 0), r["threads"])
    number_of = {r["path"]: r["number"] for r in every_step}
    step_paths = paths_of(steps)
    every_path = paths_of(every_step)

    # One figure per step CSV, against the step numbered before it when its CSV is there: the
    # last one on one thread or on several as this one ran (step 10 on one thread against
    # step 08, on all cores against step 09), else the one just before (step 09 against 08).
    for csv in step_paths:
        before = [p for p in every_path if number_of[p] < number_of[csv]]
        alike = [p for p in before if (most[p] > 1) == (most[csv] > 1)]
        csvs = ([(alike or before)[-1]] if before else []) + [csv]
        name = os.path.splitext(os.path.basename(csv))[0] + ".png"
        draw(name, "plot_gflops.py", csvs, *peak_for(name, max(most[p] for p in csvs)))

    one = [p for p in step_paths + paths_of(refs) if most[p] == 1]
    if one:
        title = ["--title", "Every step and the BLAS libraries"]
        draw("overlay.png", "plot_gflops.py", one, *peak_for("overlay.png", 1), *title)
        draw("overlay_log.png", "plot_gflops.py", one, *peak_for("overlay_log.png", 1), "--log", *title)
    multi = [p for p in step_paths + paths_of(refs) if most[p] > 1]
    if multi:
        threads = max(most[p] for p in multi)
        same = [p for p in multi if most[p] == threads]
        draw("overlay_mt.png", "plot_gflops.py", same, *peak_for("overlay_mt.png", threads),
             "--title", "Multi-threaded, against the all-core peak")
    else:
        leave_out("overlay_mt.png", "no multi-threaded CSV (steps 09 and 10, ref_*_mt)")

    if steps:
        draw("staircase.png", "plot_staircase.py", paths_of(steps + refs), "--at", str(args.at),
             *(["--peak", path("peak.csv")] if peak else []))
        missing = [f for f in ("peak.csv", "bandwidth.csv", "cpuinfo.txt") if not os.path.exists(path(f))]
        if missing:
            leave_out("roofline.png", "no " + " or ".join(missing) + " in " + results)
        else:
            draw("roofline.png", "plot_roofline.py", paths_of(steps), "--at", str(args.at),
                 "--peak", path("peak.csv"), "--bandwidth", path("bandwidth.csv"), "--cpuinfo", path("cpuinfo.txt"))
    if os.path.exists(path("bandwidth.csv")):
        draw("bandwidth.png", "plot_bandwidth.py", [path("bandwidth.csv")],
             *(["--cpuinfo", path("cpuinfo.txt")] if os.path.exists(path("cpuinfo.txt")) else []))
    else:
        leave_out("bandwidth.png", "no bandwidth.csv (build/bin/bandwidth --csv results/bandwidth.csv)")
    if scaling and peak:
        draw("scaling.png", "plot_scaling.py", scaling, "--at", str(args.at), "--peak", path("peak.csv"))
    else:
        leave_out("scaling.png", "no scaling/*.csv" if not scaling else "no peak.csv")
    for csv in sorted(glob.glob(path("blockmap_*.csv"))):
        slug = os.path.basename(csv)[len("blockmap_"):-len(".csv")]
        number = step_number(slug[len("step"):]) if slug.startswith("step") else None
        if wanted is None or number in wanted:
            draw("blockmap_{}.png".format(slug), "plot_blockmap.py", [csv])

    summary_args = ["--results", results]
    for key in ("steps", "compiler", "flags"):
        if getattr(args, key):
            summary_args += ["--" + key, getattr(args, key)]
    stdout, sys.stdout = sys.stdout, io.StringIO()   # summary.py prints the table, not wanted here
    try:
        rc = summary.main(summary_args)
    finally:
        sys.stdout = stdout
    if rc != 0:
        failed = worse(failed, rc)
    else:
        print("   summary: " + path("summary.md"))

    if args.docs and made:
        try:
            for figure in made:
                with open(figure, "rb") as f:
                    image = f.read()
                output_file.write(os.path.join(args.docs, os.path.basename(figure)), image)
        except OSError as e:
            print("make_figures.py: {}: cannot read ({})".format(figure, e.strerror), file=sys.stderr)
            return 3
        except OutputError as e:
            print("make_figures.py: {}".format(e), file=sys.stderr)
            return 3
        print("   copied {} figure(s) to {}".format(len(made), args.docs))
    return failed


def worse(status, rc):
    """The status after a figure's exit `rc` (not 0): 3 over 2 over 1, any other code as 1."""
    return max(status, rc if rc in (2, 3) else 1)


if __name__ == "__main__":
    cli.main_of(main, "make_figures.py", "; the figures drawn so far are whole, the others as they were")
