#!/usr/bin/env python3
"""The staircase: a bar per step CSV at the size nearest --at, its GFLOPS and speed-ups (paired samples where
samples/ has them), the libraries (ref_*) and the peaks as lines, on a log axis.

    plot_staircase.py CSV [CSV ...] [--peak PEAK_CSV] [--at N] [--machine FILE] [--title TEXT] -o OUT.png
"""
import drawing
import samples
from harness_csv import InputError, best_peak, isa_peak, machine_name, nearest_row


def bars_and_lines(runs, at, inputs):
    """(bars in step order with their speed-ups, references at a thread count a bar ran on, step 01's bar).
    "Over the previous": over the last bar before it on as many threads (one, or several), else the one before."""
    bars, refs = [], []
    for run in runs:
        row = nearest_row(run, at)
        item = {"step": run["step"], "number": run["number"], "threads": row["threads"],
                "kernel": run["kernel"], "isa": run["isa"], "n": row["m"], "gflops": row["best"],
                "samples": [r for r in inputs.samples(run["path"])
                            if int(r["m"]) == row["m"] and int(r["threads"]) == row["threads"]]}
        (bars if run["number"] is not None else refs).append(item)
    bars.sort(key=lambda b: (b["number"], b["threads"]))
    counts = set(b["threads"] for b in bars)
    refs = sorted((r for r in refs if r["threads"] in counts), key=lambda r: (r["threads"], r["step"]))
    first = next((b for b in bars if b["number"] == 1 and b["threads"] == 1), bars[0] if bars else None)
    for i, b in enumerate(bars):
        alike = [p for p in bars[:i] if (p["threads"] > 1) == (b["threads"] > 1)]
        previous = alike[-1] if alike else bars[i - 1] if i > 0 else None
        b["previous"] = previous
        b["over_previous"] = b["gflops"] / previous["gflops"] if previous and previous["gflops"] > 0 else None
        # The median of paired samples' ratios moves less in a spell than the ratio of the bests.
        pairs = samples.paired_ratios(b["samples"], previous["samples"], same_threads=False) if previous else {}
        if (b["n"], b["threads"]) in pairs and previous["n"] == b["n"]:
            b["over_previous"] = pairs[(b["n"], b["threads"])][0]
        b["over_first"] = b["gflops"] / first["gflops"] if first is not b and first["gflops"] > 0 else None
    return bars, refs, first


def bar_text(b, first, at):
    text = "{:.1f}".format(b["gflops"]) + ("" if b["n"] == at else " @{}".format(b["n"]))
    if b["over_previous"] is not None and b["previous"] is not first:   # else the line below says it
        text += "\n\u00d7{:.1f} vs {:02d}".format(b["over_previous"], b["previous"]["number"])
    if b["over_first"] is not None:
        text += "\n\u00d7{:.{}f} vs {}".format(b["over_first"], 0 if b["over_first"] >= 10 else 1, first["step"][:2])
    return text


def render(args, inputs=None):
    inputs = inputs or drawing.Inputs()
    runs = inputs.runs(args.csv)
    bars, refs, first = bars_and_lines(runs, args.at, inputs)
    if not bars:
        raise InputError("{}: no step CSV (step column NN_slug) to draw a bar for".format(args.csv[0]))
    peaks = inputs.peak(args.peak)
    machine = inputs.machine(args.machine, args.csv[0])

    fig, ax = drawing.pyplot().subplots(figsize=(max(9, 1.15 * len(bars) + 2), 6.5), dpi=130)
    values = [b["gflops"] for b in bars]
    top = max(values)
    low = min((v for v in values if v > 0), default=0.1)
    estimated = ""
    for x, b in enumerate(bars):
        ax.bar(x, b["gflops"], width=0.7, color=drawing.series_colour(b["step"]), edgecolor="black",
               hatch="//" if b["threads"] > 1 else None, zorder=2)
        label_at = b["gflops"]
        if peaks and b["isa"]:
            own, note = isa_peak(peaks, b["isa"], b["threads"])
            if own:
                ax.plot([x - 0.35, x + 0.35], [own, own], color="black", linewidth=2.5, zorder=3)
                top, label_at = max(top, own), max(label_at, own)
                estimated = estimated or (note and "{}: {}".format(b["isa"], note.split(":")[0]))
        ax.annotate(bar_text(b, first, args.at), (x, label_at), textcoords="offset points", xytext=(0, 4),
                    ha="center", va="bottom", fontsize=8.5, zorder=4,
                    bbox={"facecolor": "white", "alpha": 0.75, "edgecolor": "none", "pad": 1})
    if any(b["isa"] for b in bars) and peaks:
        ax.plot([], [], color="black", linewidth=2.5,
                label="peak of the ISA each step ran" + (" ({})".format(estimated) if estimated else ""))
    for r in refs:   # the palette's colour per library; one thread dash-dot, all cores dotted
        label = "{}, {}: {:.1f}".format(drawing.literal(r["step"]), drawing.threads_text([r["threads"]]), r["gflops"])
        ax.axhline(r["gflops"], color=drawing.series_colour(r["step"]),
                   linestyle="-." if r["threads"] == 1 else (0, (1, 1)), linewidth=1.5, zorder=1,
                   label=label + ("" if r["n"] == args.at else " @{}".format(r["n"])))
    for threads in sorted(set(b["threads"] for b in bars)):
        best = best_peak(peaks, threads) if peaks else None
        if best:
            drawing.peak_line(ax, best[0], threads, best[1], "measured {} peak, {}: {:.1f}".format(
                best[0], drawing.threads_text([threads]), best[1]), zorder=1)
            top = max(top, best[1])
    ax.set_yscale("log")
    drawing.plain_numbers(ax.yaxis)
    ax.set_ylim(low / 2, top * 4)
    ax.set_xticks(range(len(bars)))
    ax.set_xticklabels([drawing.literal("{:02d} {}\n{}{}".format(
        b["number"], b["step"].split("_", 1)[-1], b["kernel"] or "-",
        ", {} thr".format(b["threads"]) if b["threads"] > 1 else "")) for b in bars], fontsize=8.5)
    ax.set_ylabel("GFLOPS at n = {} (best of the repetitions, log scale)".format(args.at))
    ax.grid(True, axis="y", which="major", alpha=0.3)
    if ax.get_legend_handles_labels()[1]:
        ax.legend(loc="upper left", fontsize=8.5)
    what = args.title or "SGEMM, one step at a time, n = {}".format(args.at)
    ax.set_title(drawing.title(what, [b["threads"] for b in bars], machine_name(runs, machine)))
    fig.tight_layout()
    return fig


def parse(argv):
    parser = drawing.parser("One bar per step at one size.", "step and reference CSVs (harness CSVs)", many=True)
    parser.add_argument("--peak", help="peak.csv (build/bin/peak)")
    return drawing.parse(parser, argv, at=True, machine="the first CSV")


main = drawing.script(__name__, "plot_staircase.py", parse, render)
