#!/usr/bin/env python3
"""Draw GFLOPS against matrix size, one curve per CSV and thread count, against the peaks.

    plot_gflops.py CSV [CSV ...] [--peak PEAK_CSV] [--peak-isa ISA] [--log] [--machine FILE]
                   [--title TEXT] -o OUT.png

Each CSV is a harness CSV (step,m,n,k,threads,gflops_best,gflops_median,...); its curve is
labelled by its `step` column, one curve per thread count it holds, sorted by size. The
line is the best of the repetitions, the band below it reaches down to the median: the
width of the band is the noise. With --peak, a dashed line marks the measured fp32 peak of
the instruction set the last CSV's kernel ran (its `kernel` column: scalar, sse, avx2,
avx512, neon; --peak-isa chooses another), the right-hand axis reads in % of it, and the
machine's best peak is drawn too (or named, when it is far above the axis). --log draws
the GFLOPS axis in log scale, so that a scalar step and an AVX-512 one are both readable.
The title names the step, the thread count and the microarchitecture (the CSV's `uarch`
column, else the `uarch:` line of --machine, by default the machine.txt beside the first
CSV, else the CPU's name); --title replaces its first part. A series has the same colour
in every figure, a peak the same line style (plots/drawing.py). A size that a parallel step
ran on fewer threads than the rest of its curve (a product too small to share) is ringed,
and the legend says so; a CSV that swept whole on several thread counts gives a curve each.
Bad input (a malformed CSV, a GFLOPS that is negative or not finite, a peak that is not
above 0, an image format matplotlib cannot write): exit 2 with one line naming the file.
"""
import argparse
import os
import sys

import drawing
from harness_csv import (InputError, best_peak, isa_peak, load_machine, load_peak, load_run,
                         machine_name, split_as_run)

# A best-peak line more than this far above everything else would squash the curves.
FAR_ABOVE = 1.6


def curves(runs):
    """The curves to draw: one per CSV and thread count, rows sorted by size, and its label.
    A size a parallel step ran on fewer threads (too small to share) stays in its curve, its
    row marked 'fewer'; a CSV that ran whole sweeps on several counts gives a curve each, the
    ones on fewer threads than its most dashed ('minor')."""
    out = []
    steps = [r["step"] for r in runs]
    for run in runs:
        parts = split_as_run(run)
        most = max(p["threads"] for p in parts)
        for part in parts:
            extra = []
            if part["threads"] > 1 or len(parts) > 1:
                extra.append(drawing.threads_text([part["threads"]]))
            library = run["step"].startswith("ref_") and run["kernel"]
            if steps.count(run["step"]) > 1 and run["kernel"] and not library:
                extra.append(run["kernel"])
            if any(r["unchecked"] for r in part["rows"]):
                extra.append("unverified")
            part["label"] = run["step"] + (" ({})".format(", ".join(extra)) if extra else "")
            if library:
                part["label"] += ": " + run["kernel"]   # which kernels the library ran, and what it detected
            part["label"] = drawing.literal(part["label"])   # as written, never mathtext
            part["minor"] = part["threads"] < most
            part["fewer"] = [r for r in part["rows"] if r.get("fewer")]
            out.append(part)
    return out


def fewer_label(curve):
    """The legend's reason for the sizes a curve ran on fewer threads than the rest of it."""
    by_count = {}
    for r in curve["fewer"]:
        by_count.setdefault(r["threads"], []).append(str(r["m"]))
    where = "; ".join("n = {} ran on {}".format(", ".join(sizes), drawing.threads_text([t]))
                      for t, sizes in sorted(by_count.items()))
    largest = max(r["m"] for r in curve["fewer"])
    return "{} at {}: too small to share ({}{:.3g} MFLOP)".format(
        drawing.literal(curve["step"]), where, "up to " if len(curve["fewer"]) > 1 else "", 2.0 * largest ** 3 / 1e6)


def default_what(runs):
    main = runs[-1]
    if main["number"] is None and len(runs) > 1:
        return "SGEMM"
    what = ("Step " if main["number"] is not None else "") + main["step"]
    if main["kernel"] and main["number"] is not None:
        what += " ({})".format(main["kernel"])
    if len(runs) == 2:
        what += " against " + runs[0]["step"]
    elif len(runs) > 2:
        what = "SGEMM"
    return what


def ceilings(peaks, threads, main, wanted_isa, peak_path):
    """(own, best): own = (label ISA, GFLOPS, note) the % axis reads against, best = the
    machine's (ISA, GFLOPS) at `threads`."""
    best = best_peak(peaks, threads)
    if best is None:
        raise InputError("{}: no fp32 row for {} thread(s)".format(peak_path, threads))
    isa = wanted_isa or main["isa"]
    if isa is None:   # a library: its kernel set is not an ISA of ours, so the best
        return (best[0], best[1], ""), best
    value, note = isa_peak(peaks, isa, threads)
    if value is None:
        if wanted_isa:
            raise InputError("{}: no fp32 row for isa {}, {} thread(s)".format(peak_path, isa, threads))
        return (best[0], best[1], note + ": against the best instead"), best
    return (isa, value, note), best


def render(args):
    """The figure for parsed arguments (tests call this to look inside it)."""
    runs = [load_run(p) for p in args.csv]
    drawn = curves(runs)
    threads = max(c["threads"] for c in drawn)
    own = best = None
    peaks = load_peak(args.peak) if args.peak else {}
    if args.peak:
        own, best = ceilings(peaks, threads, runs[-1], args.peak_isa, args.peak)
    machine_file = args.machine or os.path.join(os.path.dirname(os.path.abspath(args.csv[0])), "machine.txt")
    machine = load_machine(machine_file)

    plt = drawing.pyplot()
    fig, ax = plt.subplots(figsize=(9, 5.5), dpi=130)
    if args.log:
        ax.set_yscale("log")   # before the secondary axis, which takes the scale it finds
        drawing.plain_numbers(ax.yaxis)
    top = 0.0
    low = float("inf")
    for c in drawn:
        sizes = [r["m"] for r in c["rows"]]
        best_values = [r["best"] for r in c["rows"]]
        medians = [min(r["median"], r["best"]) for r in c["rows"]]
        colour = drawing.series_colour(c["step"])
        line, = ax.plot(sizes, best_values, marker=drawing.series_marker(c["step"]), markersize=4, linewidth=2,
                        color=colour, linestyle="--" if c["minor"] else "-", label=c["label"])
        ax.fill_between(sizes, medians, best_values, color=colour, alpha=0.2, linewidth=0)
        if c["fewer"]:
            # Ringed, and said why: a point on fewer threads than the curve's is not comparable
            # with its neighbours (step 09 at n = 100 on one thread, next to step 08).
            ax.plot([r["m"] for r in c["fewer"]], [r["best"] for r in c["fewer"]], linestyle="none", marker="o",
                    markersize=10, markerfacecolor="white", markeredgecolor=colour, markeredgewidth=2,
                    zorder=line.get_zorder() + 1, label=fewer_label(c))
        unsettled = [r for r in c["rows"] if r.get("samples") and not r.get("settled", True)]
        if unsettled:
            # A size whose samples still disagree (tools/interleave.py): its point is uncertain.
            ax.plot([r["m"] for r in unsettled], [r["best"] for r in unsettled], linestyle="none", marker="D",
                    markersize=9, markerfacecolor="none", markeredgecolor="black", markeredgewidth=1,
                    zorder=line.get_zorder() + 2,
                    label="{}: unsettled, samples disagree (n = {})".format(
                        c["label"], ", ".join(str(r["m"]) for r in unsettled)))
        bad = [(r["m"], r["best"]) for r in c["rows"] if r["failed"]]
        if bad:
            ax.plot([x for x, _ in bad], [y for _, y in bad], linestyle="none", marker="X",
                    markersize=11, color="red", label="{}: FAILED verification".format(c["label"]))
        top = max([top] + best_values)
        low = min([low] + [v for v in medians if v > 0])

    if own:
        isa, value, note = own
        label = "{} {} peak, {}: {:.1f} GFLOPS".format("estimated" if note else "measured", isa,
                                                      drawing.threads_text([threads]), value)
        ax.axhline(value, **drawing.ceiling_style(isa, threads > 1), label=label + (" ({})".format(note) if note else ""))
        top = max(top, value)
        if best[0] != isa:
            if args.log or best[1] <= FAR_ABOVE * top:
                ax.axhline(best[1], **drawing.ceiling_style(best[0], threads > 1),
                           label="machine's best, {}: {:.1f} GFLOPS".format(best[0], best[1]))
                top = max(top, best[1])
            else:
                ax.plot([], [], linestyle="none",
                        label="machine's best, {}: {:.1f} GFLOPS (far above this axis)".format(*best))
        # The other curves' own ceilings, when their ISA or thread count differs (step 05's
        # figure: the scalar peak that bounds step 04; step 09's: step 08's one-thread peak,
        # which is also the ceiling of its own points on one thread), each in its ISA's style.
        others = {}
        for c in drawn:
            counts = [c["threads"]] + [r["threads"] for r in c["fewer"]]
            for count in sorted(set(counts)):
                if c["isa"] and (c["isa"], count) not in ((isa, threads), (best[0], threads)):
                    users = others.setdefault((c["isa"], count), [])
                    if c["step"] not in users:
                        users.append(c["step"])
        for (other_isa, other_threads), users in sorted(others.items()):
            other, other_note = isa_peak(peaks, other_isa, other_threads)
            if other and (args.log or other <= FAR_ABOVE * top):
                whose = drawing.literal(users[0]) + "'s " if len(users) == 1 else ""
                on = ", " + drawing.threads_text([other_threads]) if other_threads != threads else ""
                ax.axhline(other, **drawing.ceiling_style(other_isa, other_threads > 1),
                           label="{}{} peak{}: {:.1f}{}".format(whose, other_isa, on, other,
                                                               " (estimated)" if other_note else ""))
        right = ax.secondary_yaxis("right", functions=(lambda g: 100.0 * g / value,
                                                       lambda p: p * value / 100.0))
        right.set_ylabel("% of the {} peak".format(isa))
        if args.log:
            drawing.plain_numbers(right.yaxis)

    what = args.title or default_what(runs)
    ax.set_title(drawing.title(what, [c["threads"] for c in drawn], machine_name(runs, machine)))
    ax.set_xlabel("matrix size (m = n = k)")
    sampled = any(r.get("samples") for c in drawn for r in c["rows"])
    ax.set_ylabel("GFLOPS (line: best sample; band: down to the median sample)" if sampled
                  else "GFLOPS (line: best; band: down to the median)")
    if args.log:
        ax.set_ylim(low / 1.5 if low < float("inf") else 0.1, top * 1.6)
    else:
        ax.set_ylim(0, top * 1.12 if top > 0 else 1)
    ax.set_xlim(left=0)
    ax.grid(True, which="both" if args.log else "major", alpha=0.3)
    handles, texts = ax.get_legend_handles_labels()
    if len(handles) > 5:
        # Many curves: a legend inside would hide some of them, so it goes below the axes, in
        # as many columns as the longest label leaves room for (a library's names its kernels).
        longest = max(len(t) for t in texts)
        columns = 3 if longest <= 30 else 2 if longest <= 48 else 1
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=columns, frameon=False)
        fig.set_size_inches(9, 5.5 + 0.3 * ((len(handles) + columns - 1) // columns))
    else:
        ax.legend(loc="best")
    fig.tight_layout()
    return fig


def parse(argv):
    parser = argparse.ArgumentParser(description="GFLOPS against size, one curve per CSV.")
    parser.add_argument("csv", nargs="+", help="harness CSV files")
    parser.add_argument("--peak", help="peak CSV (isa,precision,threads,gflops)")
    parser.add_argument("--peak-isa", help="read the %% axis against this ISA's peak "
                                           "(default: the one the last CSV's kernel ran)")
    parser.add_argument("--log", action="store_true", help="GFLOPS axis in log scale")
    parser.add_argument("--machine", help="machine.txt for the title's microarchitecture "
                                          "(default: the one beside the first CSV)")
    parser.add_argument("--title", help="what the figure shows (thread count and CPU are added)")
    parser.add_argument("-o", "--output", required=True, help="image file to write (.png)")
    return parser.parse_args(argv)


def main(argv):
    return drawing.figure_main("plot_gflops.py", parse, render, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
