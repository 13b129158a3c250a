#!/usr/bin/env python3
"""GFLOPS against matrix size, one curve per CSV and thread count (the best, a band down to the median),
against the peak of the last CSV's ISA (the right-hand axis in % of it) and the machine's best.

    plot_gflops.py CSV [CSV ...] [--peak PEAK_CSV] [--peak-isa ISA] [--log] [--machine FILE] [--title TEXT] -o OUT.png
"""
import drawing
from harness_csv import InputError, best_peak, isa_peak, machine_name, split_as_run

FAR_ABOVE = 1.6   # a best-peak line further above everything else would squash the curves


def curves(runs):
    """A labelled curve per CSV and thread count; a size run on fewer threads stays in its curve ('fewer'),
    whole sweeps on fewer threads than the CSV's most are dashed ('minor')."""
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
            label = run["step"] + (" ({})".format(", ".join(extra)) if extra else "")
            if library:
                label += ": " + run["kernel"]   # which kernels the library ran, and what it detected
            part["label"] = drawing.literal(label)
            part["minor"] = part["threads"] < most
            part["fewer"] = [r for r in part["rows"] if r.get("fewer")]
            out.append(part)
    return out


# What the band and the markers over the curves mean, said once in the legend (in this order).
BAND_TEXT = {True: "band: from the best sample down to the median sample",
             False: "band: from the best repetition down to the median"}
UNSETTLED = {"linestyle": "none", "markersize": 6, "markerfacecolor": "white", "markeredgewidth": 1.5}
FEWER = {"linestyle": "none", "marker": "o", "markersize": 11, "markerfacecolor": "white", "markeredgewidth": 2}
FAILED = {"linestyle": "none", "marker": "X", "markersize": 11, "color": "red"}
MARKERS = {"unsettled": (dict(UNSETTLED, marker="o", markeredgecolor="black"),
                         "hollow point: unsettled, its samples disagree (summary.md, spread.csv)"),
           "fewer": (dict(FEWER, markeredgecolor="black"),
                     "ringed point: run on fewer threads (too small a product to share)"),
           "failed": (FAILED, "FAILED verification")}


def draw_curve(ax, c):
    """One curve (a hollow point where its samples disagree), its band, rings and crosses: (best, medians, used)."""
    sizes = [r["m"] for r in c["rows"]]
    best_values = [r["best"] for r in c["rows"]]
    medians = [min(r["median"], r["best"]) for r in c["rows"]]
    colour, marker = drawing.series_colour(c["step"]), drawing.series_marker(c["step"])
    unsettled = [i for i, r in enumerate(c["rows"]) if r.get("samples") and not r.get("settled", True)]
    filled = [i for i in range(len(sizes)) if i not in unsettled]
    line, = ax.plot(sizes, best_values, marker=marker, markersize=4.5, linewidth=2, color=colour,
                    linestyle="--" if c["minor"] else "-", label=c["label"], markevery=filled)
    ax.fill_between(sizes, medians, best_values, color=colour, alpha=0.2, linewidth=0)
    # A point on fewer threads than the curve's is not comparable with its neighbours: ringed.
    hollow = dict(UNSETTLED, marker=marker, markeredgecolor=colour, zorder=line.get_zorder() + 1)
    over = (("unsettled", [c["rows"][i] for i in unsettled], hollow),
            ("fewer", c["fewer"], dict(FEWER, markeredgecolor=colour, zorder=line.get_zorder() - 0.5)),
            ("failed", [r for r in c["rows"] if r["failed"]], FAILED))
    for key, rows, style in over:
        if rows:
            ax.plot([r["m"] for r in rows], [r["best"] for r in rows], label="_" + key, **style)
    return best_values, medians, set(key for key, rows, _ in over if rows)


def explain(ax, used, sampled):
    """The legend's closing entries: the band, and the markers the curves used."""
    from matplotlib.patches import Patch
    return [(Patch(facecolor="grey", alpha=0.3, linewidth=0), BAND_TEXT[sampled])] + [
        (ax.plot([], [], **style)[0], text) for key, (style, text) in MARKERS.items() if key in used]


def default_what(runs):
    main = runs[-1]
    if (main["number"] is None and len(runs) > 1) or len(runs) > 2:
        return "SGEMM"
    what = ("Step " if main["number"] is not None else "") + main["step"]
    if main["kernel"] and main["number"] is not None:
        what += " ({})".format(main["kernel"])
    return what + (" against " + runs[0]["step"] if len(runs) == 2 else "")


def ceilings(peaks, threads, main, wanted_isa, peak_path):
    """((ISA, GFLOPS, note) the % axis reads against, the machine's best (ISA, GFLOPS))."""
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
    """The peak lines: the % axis's, the machine's best (named when far above), the other curves' own; the new top."""
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
    # The other curves' own ceilings (their points on fewer threads too), each in its ISA's style.
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
    inputs = inputs or drawing.Inputs()
    runs = inputs.runs(args.csv)
    drawn = curves(runs)
    threads = max(c["threads"] for c in drawn)
    own = best = None
    peaks = inputs.peak(args.peak)
    if args.peak:
        own, best = ceilings(peaks, threads, runs[-1], args.peak_isa, args.peak)
    machine = inputs.machine(args.machine, args.csv[0])

    fig, ax = drawing.pyplot().subplots(figsize=(10, 6), dpi=130)
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
    extra = explain(ax, used, any(r.get("samples") for c in drawn for r in c["rows"]))
    drawing.fit(fig, drawing.legend_below(fig, ax, handles + [h for h, _ in extra], texts + [t for _, t in extra]))
    return fig


def parse(argv):
    parser = drawing.parser("GFLOPS against size, one curve per CSV.", "harness CSV files", many=True)
    parser.add_argument("--peak", help="peak CSV (isa,precision,threads,gflops)")
    parser.add_argument("--peak-isa", help="read the %% axis against this ISA's peak "
                                           "(default: the one the last CSV's kernel ran)")
    parser.add_argument("--log", action="store_true", help="GFLOPS axis in log scale")
    return drawing.parse(parser, argv, machine="the first CSV")


main = drawing.script(__name__, "plot_gflops.py", parse, render)
