#!/usr/bin/env python3
"""Draw the tutorial's whole figure set from the CSVs in results/ (run_all.sh calls this).

    make_figures.py [--results DIR] [--steps 5,7] [--docs DIR] [--compiler TEXT] [--flags TEXT]

Makes, in DIR (default results/ at the checkout's root):
  step<slug>.png   each step against the step before it (when that CSV is there) and the peak
  overlay.png      every one-thread step with ref_openblas and ref_blis and the one-thread peak
  overlay_mt.png   the multi-threaded runs (step 09 and ref_*_mt) against the all-core peak
  summary.md       plots/summary.py's table
--docs DIR also copies the figures there (the tutorial's docs/figures/). Peak lines come from
DIR/peak.csv when it has a row for the figure's thread count. Needs matplotlib (through
plot_gflops.py); exit 1 when a figure failed, 2 on a usage error.
"""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import summary  # noqa: E402  (plots/summary.py, next to this file)

PLOT = os.path.join(HERE, "plot_gflops.py")


def plot(out, csvs, peak_path, peak, threads, title=None):
    """One plot_gflops.py call; the peak line only when peak.csv covers `threads`."""
    args = [sys.executable, PLOT] + csvs
    if peak_path and threads in peak:
        args += ["--peak", peak_path]
    elif peak_path:
        print("make_figures.py: {}: no fp32 peak for {} thread(s) in peak.csv: drawn without "
              "the peak line".format(os.path.basename(out), threads))
    if title:
        args += ["--title", title]
    args += ["-o", out]
    result = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            universal_newlines=True)
    if result.returncode != 0:
        print("make_figures.py: {}: plot_gflops.py exited {}: {}".format(
            out, result.returncode, result.stderr.strip()), file=sys.stderr)
        return None
    print("   figure: " + out)
    return out


def main(argv):
    parser = argparse.ArgumentParser(description="The figure set and summary.md from results/.")
    parser.add_argument("--results", default=os.path.join(os.path.dirname(HERE), "results"))
    parser.add_argument("--steps", help="only these step numbers, e.g. 5,7")
    parser.add_argument("--docs", help="also copy the figures to this folder")
    parser.add_argument("--compiler", help="for summary.md")
    parser.add_argument("--flags", help="for summary.md")
    args = parser.parse_args(argv)

    try:
        wanted = summary.parse_steps(args.steps)
        if not os.path.isdir(args.results):
            raise summary.InputError("{}: no such folder".format(args.results))
        every_step = [r for r in summary.collect(args.results) if r["number"] is not None]
        refs = [r for r in summary.collect(args.results, steps=set()) if r["number"] is None]
        peak_path = os.path.join(args.results, "peak.csv")
        if os.path.exists(peak_path):
            peak = summary.load_peak(peak_path)
        else:
            peak_path, peak = None, {}
    except summary.InputError as e:
        print("make_figures.py: {}".format(e), file=sys.stderr)
        return 2
    steps = [r for r in every_step if wanted is None or r["number"] in wanted]
    if not steps and not refs:
        print("make_figures.py: {}: no step or reference CSV to draw".format(args.results),
              file=sys.stderr)
        return 2

    made, failed = [], 0

    def draw(out, runs, threads, title=None):
        nonlocal failed
        path = plot(os.path.join(args.results, out), [r["path"] for r in runs], peak_path, peak,
                    threads, title)
        if path:
            made.append(path)
        else:
            failed += 1

    # One figure per step, against the step numbered just before it when its CSV is there.
    for run in steps:
        before = [r for r in every_step if r["number"] < run["number"]]
        runs = ([before[-1]] if before else []) + [run]
        name = os.path.splitext(os.path.basename(run["path"]))[0] + ".png"
        draw(name, runs, max(r["threads"] for r in runs))

    one = [r for r in steps + refs if r["threads"] == 1]
    if one:
        draw("overlay.png", one, 1, "Every step and the BLAS libraries, one thread")
    multi = [r for r in steps + refs if r["threads"] > 1]
    if multi:
        threads = max(r["threads"] for r in multi)
        same = [r for r in multi if r["threads"] == threads]
        draw("overlay_mt.png", same, threads,
             "Multi-threaded, {} threads, against the all-core peak".format(threads))
    else:
        print("make_figures.py: no multi-threaded CSV (step 09, ref_*_mt): no overlay_mt.png")

    summary_args = ["--results", args.results]
    for key in ("steps", "compiler", "flags"):
        if getattr(args, key):
            summary_args += ["--" + key, getattr(args, key)]
    with open(os.devnull, "w") as quiet:
        stdout, sys.stdout = sys.stdout, quiet
        try:
            rc = summary.main(summary_args)
        finally:
            sys.stdout = stdout
    if rc != 0:
        failed += 1
    else:
        print("   summary: " + os.path.join(args.results, "summary.md"))

    if args.docs and made:
        os.makedirs(args.docs, exist_ok=True)
        for path in made:
            shutil.copy2(path, args.docs)
        print("   copied {} figure(s) to {}".format(len(made), args.docs))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
