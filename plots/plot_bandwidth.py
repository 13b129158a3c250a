#!/usr/bin/env python3
"""Memory bandwidth against working-set size, a curve per kind and thread count, the levels named, the cache
sizes dotted (--cpuinfo: results/machine.json).

    plot_bandwidth.py BANDWIDTH_CSV [--cpuinfo MACHINE_JSON] [--machine FILE] -o OUT.png
"""
import drawing
import plot_roofline
from harness_csv import load_bandwidth, machine_name

# Where a level's label may go around its point (dx, dy in points, ha, va): beside it first, then further
# up or down, until it overlaps no label placed before it.
LABEL_SPOTS = [(dx, dy, ha, va)
               for dy, va in ((4, "bottom"), (-4, "top"), (16, "bottom"), (-16, "top"), (28, "bottom"), (-28, "top"))
               for dx, ha in ((5, "left"), (-5, "right"))]
COLOURS = ["tab:blue", "tab:red", "tab:green", "tab:purple"]   # a thread count's; gray past them


def place_labels(fig, ax, labels):
    """Each (text, x, y, colour) at the first LABEL_SPOTS free of the legend and the labels before it."""
    renderer = fig.canvas.get_renderer()
    placed = [ax.get_legend().get_window_extent(renderer)] if ax.get_legend() else []
    for text, x, y, colour in labels:
        for i, (dx, dy, ha, va) in enumerate(LABEL_SPOTS + LABEL_SPOTS[:1]):
            note = ax.annotate(text, (x, y), textcoords="offset points", xytext=(dx, dy), ha=ha, va=va,
                               fontsize=8.5, color=colour)
            box = note.get_window_extent(renderer)
            if i == len(LABEL_SPOTS) or not any(box.overlaps(other) for other in placed):
                break
            note.remove()
        placed.append(box)


def size_label(t):
    return "{} KiB".format(t >> 10) if t < 1 << 20 else "{} MiB".format(t >> 20) if t < 1 << 30 else \
        "{} GiB".format(t >> 30)


def render(args, inputs=None):
    inputs = inputs or drawing.Inputs()
    rows = inputs.read(load_bandwidth, args.csv)
    machine = inputs.machine(args.machine, args.csv)
    caches = inputs.read(plot_roofline.read_machine, args.cpuinfo)[0] if args.cpuinfo else {}

    fig, ax = drawing.pyplot().subplots(figsize=(9.5, 5.5), dpi=130)
    counts = sorted(set(r["threads"] for r in rows))
    labels = []
    for threads in counts:
        colour = dict(zip(counts, COLOURS)).get(threads, "gray")
        for kind, style in (("read", "-"), ("triad", "--")):
            here = sorted((r for r in rows if r["threads"] == threads and r["kind"] == kind), key=lambda r: r["bytes"])
            if not here:
                continue
            ax.plot([r["bytes"] for r in here], [r["gbps"] for r in here], linestyle=style, color=colour, marker=".",
                    linewidth=1.8, label="{}, {}".format(kind, drawing.threads_text([threads])))
            for r in [r for r in here if r["level"]]:   # a level's point
                ax.plot(r["bytes"], r["gbps"], marker="o", markersize=7, color=colour, markeredgecolor="black",
                        linestyle="none")
                if kind == "read":
                    labels.append(("{} {:.0f}".format(r["level"], r["gbps"]), r["bytes"], r["gbps"], colour))
    for level, size in sorted(caches.items(), key=lambda kv: kv[1]):
        if size > 0:
            ax.axvline(size, color="gray", linestyle=":", linewidth=1)
            ax.text(size, 0.02, " {} size".format(level), transform=ax.get_xaxis_transform(), fontsize=8,
                    color="gray", rotation=90, va="bottom")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    drawing.plain_numbers(ax.yaxis)
    sizes = [r["bytes"] for r in rows]
    ticks = [2 ** e for e in range(10, 41, 2) if min(sizes) / 2 <= 2 ** e <= max(sizes) * 2]
    ax.set_xticks(ticks)
    ax.set_xticklabels([size_label(t) for t in ticks], fontsize=9)
    ax.set_xlabel("working set per thread (each thread its own arrays)")
    ax.set_ylabel("GB/s (10\u2079 bytes/s; triad counts 12 bytes per element)")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(loc="upper right", fontsize=9)
    ax.set_title(drawing.title("Memory bandwidth by working set", counts, machine_name([], machine)))
    fig.tight_layout()
    place_labels(fig, ax, labels)
    return fig


def parse(argv):
    parser = drawing.parser("Bandwidth against working-set size.", "bandwidth.csv (build/bin/bandwidth)")
    parser.add_argument("--cpuinfo", help="cpuinfo --json (results/machine.json), for the cache sizes")
    return drawing.parse(parser, argv, title=False)


main = drawing.script(__name__, "plot_bandwidth.py", parse, render)
