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
import cli
import drawing
from harness_csv import InputError, best_peak, isa_peak, machine_name, split_as_run

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


# What a figure's markers mean, said once in its legend whatever the number of curves or sizes
# (a legend line per curve listing its unsettled sizes would be wider than the figure).
BAND_TEXT = {True: "band: from the best sample down to the median sample",
             False: "band: from the best repetition down to the median"}
UNSETTLED_TEXT = "hollow point: unsettled, its samples disagree (summary.md, spread.csv)"
FEWER_TEXT = "ringed point: run on fewer threads (too small a product to share)"
FAILED_TEXT = "FAILED verification"


def draw_curve(ax, c):
    """One curve: the best samples (a filled point where settled, hollow where its samples still
    disagree: tools/interleave.py), the band down to the median, rings and crosses. Returns
    (the sizes' best GFLOPS, their medians) and which markers it used."""
    sizes = [r["m"] for r in c["rows"]]
    best_values = [r["best"] for r in c["rows"]]
    medians = [min(r["median"], r["best"]) for r in c["rows"]]
    colour = drawing.series_colour(c["step"])
    unsettled = [i for i, r in enumerate(c["rows"]) if r.get("samples") and not r.get("settled", True)]
    filled = [i for i in range(len(sizes)) if i not in unsettled]
    line, = ax.plot(sizes, best_values, marker=drawing.series_marker(c["step"]), markersize=4.5, linewidth=2,
                    color=colour, linestyle="--" if c["minor"] else "-", label=c["label"], markevery=filled)
    ax.fill_between(sizes, medians, best_values, color=colour, alpha=0.2, linewidth=0)
    used = set()
    if unsettled:
        ax.plot([sizes[i] for i in unsettled], [best_values[i] for i in unsettled], linestyle="none",
                marker=drawing.series_marker(c["step"]), markersize=6, markerfacecolor="white",
                markeredgecolor=colour, markeredgewidth=1.5, zorder=line.get_zorder() + 1, label="_unsettled")
        used.add("unsettled")
    if c["fewer"]:
        # Ringed: a point on fewer threads than the curve's is not comparable with its
        # neighbours (step 09 at n = 100 on one thread, next to step 08).
        ax.plot([r["m"] for r in c["fewer"]], [r["best"] for r in c["fewer"]], linestyle="none", marker="o",
                markersize=11, markerfacecolor="white", markeredgecolor=colour, markeredgewidth=2,
                zorder=line.get_zorder() - 0.5, label="_fewer")
        used.add("fewer")
    bad = [(r["m"], r["best"]) for r in c["rows"] if r["failed"]]
    if bad:
        ax.plot([x for x, _ in bad], [y for _, y in bad], linestyle="none", marker="X",
                markersize=11, color="red", label="_failed")
        used.add("failed")
    return best_values, medians, used


def explain(ax, used, sampled):
    """The legend's closing entries, each once: the band, and the markers the curves used."""
    from matplotlib.patches import Patch
    entries = [(Patch(facecolor="grey", alpha=0.3, linewidth=0), BAND_TEXT[sampled])]
    if "unsettled" in used:
        entries.append((ax.plot([], [], linestyle="none", marker="o", markersize=6, markerfacecolor="white",
                                markeredgecolor="black", markeredgewidth=1.5)[0], UNSETTLED_TEXT))
    if "fewer" in used:
        entries.append((ax.plot([], [], linestyle="none", marker="o", markersize=11, markerfacecolor="white",
                                markeredgecolor="black", markeredgewidth=2)[0], FEWER_TEXT))
    if "failed" in used:
        entries.append((ax.plot([], [], linestyle="none", marker="X", markersize=11, color="red")[0], FAILED_TEXT))
    return entries


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


def draw_ceilings(ax, args, peaks, drawn, threads, own, best, top):
    """The peak lines: the one the % axis reads against, the machine's best (or its name, when
    it is far above), the other curves' own; returns the axis's new top."""
    isa, value, note = own
    label = "{} {} peak, {}: {:.1f} GFLOPS".format("estimated" if note else "measured", isa,
                                                  drawing.threads_text([threads]), value)
    drawing.peak_line(ax, isa, threads, value, label + (" ({})".format(note) if note else ""))
    top = max(top, value)
    if best[0] != isa:
        if args.log or best[1] <= FAR_ABOVE * top:
            drawing.peak_line(ax, best[0], threads, best[1], "machine's best, {}: {:.1f} GFLOPS".format(*best))
            top = max(top, best[1])
        else:
            ax.plot([], [], linestyle="none",
                    label="machine's best, {}: {:.1f} GFLOPS (far above this axis)".format(*best))
    # The other curves' own ceilings, when their ISA or thread count differs (step 05's
    # figure: the scalar peak that bounds step 04; step 09's: step 08's one-thread peak,
    # which is also the ceiling of its own points on one thread), each in its ISA's style.
    others = {}
    for c in drawn:
        for count in sorted(set([c["threads"]] + [r["threads"] for r in c["fewer"]])):
            if c["isa"] and (c["isa"], count) not in ((isa, threads), (best[0], threads)):
                users = others.setdefault((c["isa"], count), [])
                if c["step"] not in users:
                    users.append(c["step"])
    for (other_isa, other_threads), users in sorted(others.items()):
        other, other_note = isa_peak(peaks, other_isa, other_threads)
        if other and (args.log or other <= FAR_ABOVE * top):
            whose = drawing.literal(users[0]) + "'s " if len(users) == 1 else ""
            on = ", " + drawing.threads_text([other_threads]) if other_threads != threads else ""
            drawing.peak_line(ax, other_isa, other_threads, other, "{}{} peak{}: {:.1f}{}".format(
                whose, other_isa, on, other, " (estimated)" if other_note else ""))
    right = ax.secondary_yaxis("right", functions=(lambda g: 100.0 * g / value, lambda p: p * value / 100.0))
    right.set_ylabel("% of the {} peak".format(isa))
    if args.log:
        drawing.plain_numbers(right.yaxis)
    return top


def render(args, inputs=None):
    """The figure for parsed arguments (tests call this to look inside it), from `inputs`
    (drawing.Inputs) when its files were read already."""
    inputs = inputs or drawing.Inputs()
    runs = inputs.runs(args.csv)
    drawn = curves(runs)
    threads = max(c["threads"] for c in drawn)
    own = best = None
    peaks = inputs.peak(args.peak)
    if args.peak:
        own, best = ceilings(peaks, threads, runs[-1], args.peak_isa, args.peak)
    machine = inputs.machine(args.machine, args.csv[0])

    plt = drawing.pyplot()
    fig, ax = plt.subplots(figsize=(10, 6), dpi=130)
    if args.log:
        ax.set_yscale("log")   # before the secondary axis, which takes the scale it finds
        drawing.plain_numbers(ax.yaxis)
    top, low, used = 0.0, float("inf"), set()
    for c in drawn:
        best_values, medians, markers = draw_curve(ax, c)
        used |= markers
        top = max([top] + best_values)
        low = min([low] + [v for v in medians if v > 0])
    if own:
        top = draw_ceilings(ax, args, peaks, drawn, threads, own, best, top)

    what = args.title or default_what(runs)
    ax.set_title(drawing.wrapped(drawing.title(what, [c["threads"] for c in drawn], machine_name(runs, machine)), 80))
    ax.set_xlabel("matrix size (m = n = k)")
    ax.set_ylabel("GFLOPS")
    if args.log:
        ax.set_ylim(low / 1.5 if low < float("inf") else 0.1, top * 1.6)
    else:
        ax.set_ylim(0, top * 1.12 if top > 0 else 1)
    ax.set_xlim(left=0)
    ax.grid(True, which="both" if args.log else "major", alpha=0.3)
    handles, texts = ax.get_legend_handles_labels()
    sampled = any(r.get("samples") for c in drawn for r in c["rows"])
    extra = explain(ax, used, sampled)
    legend = drawing.legend_below(fig, ax, handles + [h for h, _ in extra], texts + [t for _, t in extra])
    drawing.fit(fig, legend)
    return fig


def parse(argv):
    parser = drawing.parser("GFLOPS against size, one curve per CSV.", "harness CSV files", many=True)
    parser.add_argument("--peak", help="peak CSV (isa,precision,threads,gflops)")
    parser.add_argument("--peak-isa", help="read the %% axis against this ISA's peak "
                                           "(default: the one the last CSV's kernel ran)")
    parser.add_argument("--log", action="store_true", help="GFLOPS axis in log scale")
    return drawing.parse(parser, argv, machine="the first CSV")


def main(argv):
    return drawing.figure_main("plot_gflops.py", parse, render, argv)


if __name__ == "__main__":
    cli.main_of(main, "plot_gflops.py")
