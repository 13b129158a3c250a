#!/usr/bin/env python3
"""Thread scaling: GFLOPS at 1..N threads against the peak (t/N of the all-core one where not measured), and
the efficiency: GFLOPS over that peak (solid), GFLOPS(t) / (t x GFLOPS(1)) (dashed).

    plot_scaling.py CSV [CSV ...] --peak PEAK_CSV [--at N] [--machine FILE] -o OUT.png
"""
import drawing
from harness_csv import InputError, best_by_size, best_peak, machine_name, nearest, split_by_threads


def series(runs, at):
    """{step: {threads: (GFLOPS, size)}} at the size nearest `at`, the best CSV where two ran one count."""
    out = {}
    for run in runs:
        for part in split_by_threads(run):
            measured = best_by_size(part)
            n = nearest(measured, at)
            previous = out.setdefault(part["step"], {}).get(part["threads"])
            if previous is None or measured[n][0] > previous[0]:
                out[part["step"]][part["threads"]] = (measured[n][0], n)
    return out


def peak_at(peaks, threads, most):
    """(GFLOPS, measured?) of the best ISA at `threads`: measured, else the all-core peak's t/N."""
    best = best_peak(peaks, threads)
    if best:
        return best[1], True
    full = best_peak(peaks, most)
    return (full[1] * threads / most, False) if full else (None, False)


def render(args, inputs=None):
    inputs = inputs or drawing.Inputs()
    runs = inputs.runs(args.csv)
    data = series(runs, args.at)
    counts = sorted(set(t for s in data.values() for t in s))
    peaks = inputs.peak(args.peak)
    if not peaks or best_peak(peaks, 1) is None:
        raise InputError("{}: needs fp32 rows for 1 thread and for all cores".format(args.peak))
    most = max(t for _, t in peaks)
    machine = inputs.machine(args.machine, args.peak)

    fig, (left, right) = drawing.pyplot().subplots(1, 2, figsize=(13, 5.5), dpi=120)
    ticks = sorted(set(counts + [1, most]))
    peak = {t: peak_at(peaks, t, most) for t in ticks}   # (GFLOPS, measured?)
    isa = best_peak(peaks, most)[0]
    measured = " and ".join(str(t) for t in ticks if peak[t][1])
    left.plot(ticks, [peak[t][0] for t in ticks], **drawing.ceiling_style(isa, True),
              marker="s", markersize=4, label="peak ({}; measured at {})".format(isa, measured))
    for name, points in sorted(data.items(), key=lambda kv: (not kv[0][0].isdigit(), kv[0])):
        ts = sorted(points)
        gflops = [points[t][0] for t in ts]
        sizes = sorted(set(points[t][1] for t in ts))
        label = drawing.literal(name)
        colour, marker = drawing.series_colour(name), drawing.series_marker(name)
        left.plot(ts, gflops, marker=marker, linewidth=2, color=colour,
                  label=label + ("" if sizes == [args.at] else " (n = {})".format(", ".join(map(str, sizes)))))
        right.plot(ts, [100.0 * g / peak[t][0] for t, g in zip(ts, gflops)], marker=marker,
                   linewidth=2, color=colour, label=label + ": % of the peak at t")
        if 1 in points:
            right.plot(ts, [100.0 * g / (t * points[1][0]) for t, g in zip(ts, gflops)], marker="^", linewidth=1.5,
                       linestyle="--", color=colour, label=label + ": GFLOPS(t) / (t \u00d7 GFLOPS(1))")
    for ax in (left, right):
        ax.set_xticks(ticks)
        ax.set_xlabel("threads")
        ax.grid(True, alpha=0.3)
    left.set_ylabel("GFLOPS at n = {} (best of the repetitions)".format(args.at))
    left.set_ylim(0, max(g for g, _ in peak.values()) * 1.1)
    left.legend(loc="upper left", fontsize=9)
    right.set_ylabel("efficiency (%)")
    right.set_ylim(0, 115)
    right.axhline(100, color="black", linewidth=0.8)
    right.legend(loc="lower left", fontsize=8.5)
    fig.suptitle(drawing.title("Thread scaling at n = {}".format(args.at), counts, machine_name(runs, machine)))
    fig.tight_layout()
    return fig


def parse(argv):
    parser = drawing.parser("GFLOPS and parallel efficiency against thread count.",
                            "harness CSVs at several thread counts", many=True)
    parser.add_argument("--peak", required=True, help="peak.csv (build/bin/peak)")
    return drawing.parse(parser, argv, at=True, machine="peak.csv", title=False)


main = drawing.script(__name__, "plot_scaling.py", parse, render)
