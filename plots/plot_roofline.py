#!/usr/bin/env python3
"""The roofline: every step as a point under the compute roofs of each ISA and the memory
roofs of each level of the memory hierarchy, log-log.

    plot_roofline.py CSV [CSV ...] --peak PEAK_CSV --bandwidth BANDWIDTH_CSV --cpuinfo CPUINFO
                     [--at N] [--machine FILE] -o OUT.png

Compute roofs: peak.csv's fp32 rows (one per ISA). Memory roofs: bandwidth.csv's read rows
at each level's point (bandwidth x intensity). A point per step CSV (steps 01-09; lab steps
and libraries have no model): its best GFLOPS at the size nearest to --at (1000), at the
arithmetic intensity its loop nest achieves against the level that bounds it, computed by
plots/roofline_model.py (docs/roofline.md) from its block sizes and the caches, both read
from the report of build/bin/cpuinfo (--cpuinfo). One panel per thread count among the CSVs.
Bad input: exit 2 with one line naming the file.
"""
import argparse
import os
import sys

import drawing
import roofline_model as model
from harness_csv import (ISAS, InputError, isa_peak, level_bandwidth, load_bandwidth, load_machine,
                         load_peak, load_run, machine_name, nearest_row)

X_RANGE = (0.01, 1000.0)   # flops per byte
LEVEL_COLOURS = {"L1": "tab:blue", "L2": "tab:green", "L3": "tab:orange", "DRAM": "tab:red"}


def read_cpuinfo(path):
    try:
        with open(path) as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError("{}: cannot read ({})".format(path, getattr(e, "strerror", e)))
    caches, blocks = model.parse_cpuinfo(text)
    missing = [lv for lv in ("L1", "L2") if lv not in caches]
    if missing:
        raise InputError("{}: no cache sizes (no line 'caches L1d .. KiB, L2 .. MiB')".format(path))
    caches.setdefault("L3", 0)
    return caches, blocks


def points(runs, threads, at, caches, blocks, bandwidth):
    """The steps' points at `threads` (those whose size nearest `at` ran on that many):
    step, GFLOPS, size, bounding level, its intensity and roof, all intensities. Steps the
    model does not know are listed apart (`skipped`)."""
    out, skipped = [], []
    for run in runs:
        row = nearest_row(run, at)
        if row["threads"] != threads or run["number"] is None:
            continue
        n = row["m"]
        # The blocks of the variant that ran (the CSV's params), else those cpuinfo reports.
        traffic = model.bytes_per_fma(run["number"], run["kernel"], n, caches,
                                      row["params"] or blocks.get(run["step"]))
        if traffic is None:
            skipped.append(run["step"])
            continue
        intensities = model.intensity(traffic)
        where = model.bound(intensities, bandwidth)
        if where is None:
            raise InputError("no read bandwidth at {} thread(s) for any level".format(threads))
        level, roof = where
        out.append({"step": run["step"], "number": run["number"], "kernel": run["kernel"],
                    "n": n, "gflops": row["best"], "level": level, "intensity": intensities[level],
                    "roof": roof, "intensities": intensities})
    out.sort(key=lambda p: p["number"])
    return out, skipped


def draw_panel(ax, threads, peaks, bandwidth, pts, skipped):
    lo, hi = X_RANGE
    roofs = []   # (isa, GFLOPS, note): every ISA peak.csv has at this count (scalar maybe estimated)
    for isa in ISAS:
        value, note = isa_peak(peaks, isa, threads)
        if value is not None:
            roofs.append((isa, value, note))
    top = max(v for _, v, _ in roofs)
    for isa, value, note in roofs:
        ax.plot([lo, hi], [value, value], color="black", linewidth=1.2 if isa != "scalar" else 1.0,
                linestyle="-" if not note else ":")
        ax.text(hi, value, " {} {:.0f}{}".format(isa, value, "*" if note else ""), va="center",
                ha="left", fontsize=9)
    for level in model.LEVELS:
        if level not in bandwidth:
            continue
        gbps = bandwidth[level]
        ridge = top / gbps   # where this memory roof meets the highest compute roof
        ax.plot([lo, min(ridge, hi)], [gbps * lo, gbps * min(ridge, hi)], color=LEVEL_COLOURS[level],
                linewidth=1.5, label="{} read: {:.0f} GB/s".format(level, gbps))
    # Labels of neighbouring steps on opposite sides (even left, odd right), and the next
    # pair of each side lower, so that clustered points (05-07) stay readable.
    offsets = [(-20, 3), (7, 3), (-20, -12), (7, -12)]
    for p in pts:
        ax.plot(p["intensity"], p["gflops"], marker="o", markersize=8, color=LEVEL_COLOURS[p["level"]],
                markeredgecolor="black", linestyle="none")
        ax.annotate("{:02d}".format(p["number"]), (p["intensity"], p["gflops"]), textcoords="offset points",
                    xytext=offsets[p["number"] % 4], fontsize=10, fontweight="bold")
    ax.set_xscale("log")
    ax.set_yscale("log")
    drawing.plain_numbers(ax.xaxis, ax.yaxis)
    ax.set_xlim(lo, hi)
    low = min([p["gflops"] for p in pts] + [v for _, v, _ in roofs]) / 3
    ax.set_ylim(low, top * 2.5)
    ax.set_xlabel("flops per byte, against the level that bounds the step")
    ax.set_ylabel("GFLOPS")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(loc="lower right", fontsize=9, title="memory roofs\n(point colour: the level\nthat bounds the step)",
              title_fontsize=9)
    # Under the axes, what each point is: the step, its GFLOPS, its intensity against the
    # level that bounds it and that level's roof, and its own ISA's ceiling.
    notes = []
    for p in pts:
        own, _ = isa_peak(peaks, p["kernel"], threads)
        ceiling = "  {:.0f}% of {} {:.0f}".format(100 * p["gflops"] / own, p["kernel"], own) if own else ""
        notes.append("{:02d} {:<14}{:>6.1f} GFLOPS {:>6.3g} flop/B vs {:<4} roof {:<5.0f}{}".format(
            p["number"], p["step"].split("_", 1)[1], p["gflops"], p["intensity"], p["level"], p["roof"], ceiling))
    notes += ["* " + note for _, _, note in roofs if note]
    if skipped:
        notes.append("no model for: " + ", ".join(skipped))
    ax.text(0.0, -0.12, "\n".join(notes), transform=ax.transAxes, va="top", ha="left", fontsize=8,
            family="monospace")
    return len(notes)


def render(args):
    runs = [load_run(p) for p in args.csv]
    peaks = load_peak(args.peak)
    bandwidth_rows = load_bandwidth(args.bandwidth)
    caches, blocks = read_cpuinfo(args.cpuinfo)
    machine = load_machine(args.machine or os.path.join(os.path.dirname(os.path.abspath(args.peak)), "machine.txt"))
    counts = sorted(set(nearest_row(r, args.at)["threads"] for r in runs))
    panels = []
    for threads in counts:
        bandwidth = level_bandwidth(bandwidth_rows, threads)
        if not bandwidth:
            raise InputError("{}: no read rows at a level's point for {} thread(s)".format(args.bandwidth, threads))
        if not any(isa_peak(peaks, isa, threads)[0] for isa in ISAS):
            raise InputError("{}: no fp32 row of {} for {} thread(s)".format(args.peak, "/".join(ISAS), threads))
        pts, skipped = points(runs, threads, args.at, caches, blocks, bandwidth)
        if pts:
            panels.append((threads, bandwidth, pts, skipped))
    if not panels:
        raise InputError("{}: no step the roofline model knows (steps 01-09)".format(args.csv[0]))

    plt = drawing.pyplot()
    lines = max(len(p[2]) + 2 for p in panels)
    fig, axes = plt.subplots(1, len(panels), figsize=(8.5 * len(panels), 6.5 + 0.16 * lines), dpi=110,
                             squeeze=False, gridspec_kw={"width_ratios": [1 if len(p[2]) > 2 else 0.75 for p in panels]})
    for ax, (threads, bandwidth, pts, skipped) in zip(axes[0], panels):
        draw_panel(ax, threads, peaks, bandwidth, pts, skipped)
        ax.set_title(drawing.threads_text([threads]))
    fig.suptitle(drawing.title("Roofline, steps at n \u2248 {}".format(args.at), [p[0] for p in panels],
                               machine_name(runs, machine)))
    fig.tight_layout()
    return fig


def parse(argv):
    parser = argparse.ArgumentParser(description="The roofline with every step on it.")
    parser.add_argument("csv", nargs="+", help="step CSVs (harness CSVs)")
    parser.add_argument("--peak", required=True, help="peak.csv (build/bin/peak)")
    parser.add_argument("--bandwidth", required=True, help="bandwidth.csv (build/bin/bandwidth)")
    parser.add_argument("--cpuinfo", required=True, help="the report of build/bin/cpuinfo")
    parser.add_argument("--at", type=drawing.matrix_size, default=1000, help="matrix size of the points (default 1000)")
    parser.add_argument("--machine", help="machine.txt (default: the one beside peak.csv)")
    parser.add_argument("-o", "--output", required=True, help="image file to write (.png)")
    return parser.parse_args(argv)


def main(argv):
    return drawing.figure_main("plot_roofline.py", parse, render, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
