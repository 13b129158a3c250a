#!/usr/bin/env python3
"""The roofline, a panel per thread count: each step (01-10) at its GFLOPS and its intensity (roofline_model.py)
under peak.csv's compute roofs and bandwidth.csv's memory roofs, dotted up to its bound.

    plot_roofline.py CSV [CSV ...] --peak PEAK_CSV --bandwidth BANDWIDTH_CSV --cpuinfo MACHINE_JSON
                     [--at N] [--machine FILE] -o OUT.png
"""
import drawing
import machine as machine_json
import roofline_model as model
from harness_csv import (ISAS, InputError, isa_peak, level_bandwidth, load_bandwidth, load_peak, load_run,
                         machine_name, nearest_row)

X_RANGE = (0.01, 1000.0)   # flops per byte
LEVEL_COLOURS = {"L1": "tab:blue", "L2": "tab:green", "L3": "tab:orange", "DRAM": "tab:red"}
COMPUTE_COLOUR = "black"   # a point bound by its ISA's peak, as the compute roofs are drawn


def read_machine(path):
    m = machine_json.load(path)
    if not (m.caches["L1"] > 0 and m.caches["L2"] > 0):
        raise InputError("{}: no cache sizes (caches.l1d and caches.l2 are 0)".format(path))
    return dict(m.caches), m


def points(runs, threads, at, caches, machine, bandwidth, peaks=None):
    """(points, skipped) at `threads`: each step's GFLOPS, size, intensities and roofline_model.place's numbers;
    the steps without a model or a tile for their kernel apart."""
    out, skipped = [], []
    for run in runs:
        row = nearest_row(run, at)
        if row["threads"] != threads or run["number"] is None:
            continue
        n = row["m"]
        step = machine.step(run["step"]) or machine.step(run["number"])   # a lab's copy of a step: by number
        tile = step.tile_of(run["kernel"]) if step else None
        plan = step.plans.get((n, row["threads"]), {}) if step else {}
        traffic = model.bytes_per_fma(run["number"], tile, n, caches, row["params"] or (step.params if step else None),
                                      plan.get("path") == "direct")
        if traffic is None:
            skipped.append(run["step"])
            continue
        intensities = model.intensity(traffic)
        ceiling = isa_peak(peaks, run["kernel"], threads)[0] if peaks else None
        where = model.place(intensities, bandwidth, ceiling)
        if where is None:
            raise InputError("no read bandwidth at {} thread(s) for any level".format(threads))
        out.append(dict(where, step=run["step"], number=run["number"], kernel=run["kernel"], n=n,
                        gflops=row["best"], intensities=intensities))
    out.sort(key=lambda p: p["number"])
    return out, skipped


def bound_colour(p):
    return COMPUTE_COLOUR if p["bound"] == "compute" else LEVEL_COLOURS[p["level"]]


def caption(p):
    """A point's line under the figure, short enough for its panel."""
    ceiling = ", {} {:.3g}".format(p["kernel"], p["ceiling"]) if p["ceiling"] else ""
    what = "the {} peak".format(p["kernel"]) if p["bound"] == "compute" else p["level"]
    return "{:02d} {:<13}{:>6.1f} GFLOPS {:>6.3g} flop/B vs {:<4} roof {:.3g}{}: bound by {} ({:.0f}%)".format(
        p["number"], p["step"].split("_", 1)[1][:13], p["gflops"], p["intensity"], p["level"], p["roof"],
        ceiling, what, 100 * p["gflops"] / p["limit"])


def draw_compute_roofs(ax, roofs, threads):
    """A line per (isa, GFLOPS, note), named at its right end: within 2 % one label, within 15 % one below."""
    lo, hi = X_RANGE
    for isa, value, note in roofs:
        ax.plot([lo, hi], [value, value], **drawing.ceiling_style(isa, threads > 1))
    labels = []   # [names, GFLOPS, note], highest first
    for isa, value, note in sorted(roofs, key=lambda r: -r[1]):
        if labels and value >= labels[-1][1] * 0.98:
            labels[-1][0].append(isa)
            labels[-1][2] = labels[-1][2] or note
        else:
            labels.append([[isa], value, note])
    for names, value, note in labels:
        above = any(value < v <= value * 1.15 for _, v, _ in labels)
        ax.text(hi, value, "{} {:.0f}{} ".format(", ".join(names), value, "*" if note else ""),
                va="top" if above else "bottom", ha="right", fontsize=9)


def draw_point(ax, p):
    """A step: hollow points against the other levels, a dotted line up to its bound, the point, its number."""
    others = [lv for lv in p["roofs"] if lv != p["level"]]
    xs = [p["intensities"][lv] for lv in others]
    if xs:
        ax.plot([min(xs + [p["intensity"]]), max(xs + [p["intensity"]])], [p["gflops"]] * 2,
                color="gray", linewidth=0.6, alpha=0.6, zorder=1)
        ax.scatter(xs, [p["gflops"]] * len(xs), marker="d", s=28, facecolors="white", zorder=2,
                   edgecolors=[LEVEL_COLOURS[lv] for lv in others], linewidths=1.2)
    ax.plot([p["intensity"]] * 2, [p["gflops"], p["limit"]], color=bound_colour(p), linestyle=(0, (1, 1)),
            linewidth=1.4, zorder=2)
    ax.plot(p["intensity"], p["gflops"], marker="o", markersize=8, color=bound_colour(p),
            markeredgecolor="black", linestyle="none", zorder=3)
    # Neighbouring steps' labels on opposite sides, the next pair lower: clustered points stay readable.
    offsets = [(-20, 3), (7, 3), (-20, -12), (7, -12)]
    ax.annotate("{:02d}".format(p["number"]), (p["intensity"], p["gflops"]), textcoords="offset points",
                xytext=offsets[p["number"] % 4], fontsize=10, fontweight="bold")


def draw_panel(ax, threads, peaks, bandwidth, pts, skipped):
    lo, hi = X_RANGE
    # (isa, GFLOPS, note): every ISA peak.csv has at this count (scalar maybe estimated)
    roofs = [(isa,) + isa_peak(peaks, isa, threads) for isa in ISAS]
    roofs = [roof for roof in roofs if roof[1] is not None]
    top = max(v for _, v, _ in roofs)
    draw_compute_roofs(ax, roofs, threads)
    for level in (lv for lv in model.LEVELS if lv in bandwidth):
        gbps = bandwidth[level]
        ridge = min(top / gbps, hi)   # where this memory roof meets the highest compute roof
        ax.plot([lo, ridge], [gbps * lo, gbps * ridge], color=LEVEL_COLOURS[level], linewidth=1.5,
                label="{} read: {:.0f} GB/s".format(level, gbps))
    for p in pts:
        draw_point(ax, p)
    ax.plot([], [], marker="o", markersize=8, color=COMPUTE_COLOUR, markeredgecolor="black", linestyle="none",
            label="bound by its ISA's peak")
    ax.set_xscale("log")
    ax.set_yscale("log")
    drawing.plain_numbers(ax.xaxis, ax.yaxis)
    ax.set_xlim(lo, hi)
    ax.set_ylim(min([p["gflops"] for p in pts] + [v for _, v, _ in roofs]) / 3, top * 2.5)
    ax.set_xlabel("flops per byte (large point: against the level whose roof is lowest)")
    ax.set_ylabel("GFLOPS")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(loc="lower right", fontsize=9, title_fontsize=9,
              title="memory roofs; a point's colour:\nits bound, dotted up to it;\nhollow: vs the other levels")
    notes = [caption(p) for p in pts] + ["* " + note for _, _, note in roofs if note]
    if skipped:
        notes.append("no model for: " + ", ".join(skipped))
    # A fixed distance below the axes (in points: fit() changes their height), under the tick labels.
    ax.annotate(drawing.literal("\n".join(notes)), (0.0, 0.0), xycoords="axes fraction", xytext=(0, -44),
                textcoords="offset points", va="top", ha="left", fontsize=7.5, family="monospace")
    return len(notes)


def render(args):
    runs = [load_run(p) for p in args.csv]
    peaks = load_peak(args.peak)
    bandwidth_rows = load_bandwidth(args.bandwidth)
    caches, described = read_machine(args.cpuinfo)
    machine = drawing.Inputs().machine(args.machine, args.peak)
    panels = []
    for threads in sorted(set(nearest_row(r, args.at)["threads"] for r in runs)):
        bandwidth = level_bandwidth(bandwidth_rows, threads)
        if not bandwidth:
            raise InputError("{}: no read rows at a level's point for {} thread(s)".format(args.bandwidth, threads))
        if not any(isa_peak(peaks, isa, threads)[0] for isa in ISAS):
            raise InputError("{}: no fp32 row of {} for {} thread(s)".format(args.peak, "/".join(ISAS), threads))
        pts, skipped = points(runs, threads, args.at, caches, described, bandwidth, peaks)
        if pts:
            panels.append((threads, bandwidth, pts, skipped))
    if not panels:
        raise InputError("{}: no step the roofline model knows (steps 01-09)".format(args.csv[0]))

    lines = max(len(p[2]) + 2 for p in panels)
    fig, axes = drawing.pyplot().subplots(1, len(panels), figsize=(8.5 * len(panels), 6.5 + 0.16 * lines), dpi=110,
                                          squeeze=False)   # equal widths: a panel is as wide as its caption
    for ax, (threads, bandwidth, pts, skipped) in zip(axes[0], panels):
        draw_panel(ax, threads, peaks, bandwidth, pts, skipped)
        ax.set_title(drawing.threads_text([threads]))
    fig.suptitle(drawing.title("Roofline, steps at n \u2248 {}".format(args.at), [p[0] for p in panels],
                               machine_name(runs, machine)))
    drawing.fit(fig)
    return fig


def parse(argv):
    parser = drawing.parser("The roofline with every step on it.", "step CSVs (harness CSVs)", many=True)
    parser.add_argument("--peak", required=True, help="peak.csv (build/bin/peak)")
    parser.add_argument("--bandwidth", required=True, help="bandwidth.csv (build/bin/bandwidth)")
    parser.add_argument("--cpuinfo", required=True, help="build/bin/cpuinfo --json's output (results/machine.json)")
    return drawing.parse(parser, argv, at=True, machine="peak.csv", title=False)


main = drawing.script(__name__, "plot_roofline.py", parse, render)
