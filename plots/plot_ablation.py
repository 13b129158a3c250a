#!/usr/bin/env python3
"""tools/ablation.sh's CSV (study,order,config,n,gflops) as bars: a panel per study, a row per kernel.

    plot_ablation.py ABLATION_CSV [--title TEXT] -o OUT.png
"""
import cli
import drawing
from harness_csv import MAX_RATE, MAX_SIZE, InputError, number, read_rows

REQUIRED = ["study", "order", "config", "n", "gflops"]
PANELS = [("off", "step 10 (avx512) with one idea switched off"), ("added", "ideas added one by one (avx512)"),
          ("off_avx2", "step 10 --kernel avx2, one idea switched off"), ("added_avx2", "ideas added one by one (avx2)")]


def load(path):
    """{study: {order: {"config": name, "gflops": {n: GFLOPS}}}} of the CSV, checked."""
    studies = {}
    for line, row in enumerate(read_rows(path, REQUIRED), start=2):
        if row["study"] not in dict(PANELS):
            raise InputError(f"{path}: line {line}: study is '{row['study']}', not one of "
                             f"{', '.join(s for s, _ in PANELS)}")
        configs = studies.setdefault(row["study"], {})
        order = number(path, line, row, "order", int)
        n = number(path, line, row, "n", int, minimum=1, maximum=MAX_SIZE)
        entry = configs.setdefault(order, {"config": row["config"], "gflops": {}})
        entry["gflops"][n] = number(path, line, row, "gflops", minimum=0, maximum=MAX_RATE)
    return studies


def parse(argv):
    parser = drawing.parser("tools/ablation.sh's results as bar charts.", "ablation CSV (tools/ablation.sh)")
    return drawing.parse(parser, argv, machine=None)


def draw_panel(ax, title, configs, sizes, top):
    height = 0.8 / len(sizes)
    for k, n in enumerate(sizes):
        ys = [i + (k - (len(sizes) - 1) / 2) * height for i in range(len(configs))]
        values = [c["gflops"].get(n, 0) for c in configs]
        bars = ax.barh(ys, values, height=height, label=f"n = {n}")
        for bar, v in zip(bars, values):
            ax.text(bar.get_width() + top * 0.01, bar.get_y() + bar.get_height() / 2, f"{v:.0f}",
                    va="center", fontsize=7)
    ax.set_yticks(range(len(configs)))
    # Wrapped: a long name widened every panel's margin until the bars held under half of the canvas.
    ax.set_yticklabels([drawing.wrapped(drawing.literal(c["config"]), 24) for c in configs])
    ax.invert_yaxis()
    ax.set_xlim(0, top * 1.12)
    ax.set_xlabel("GFLOPS (best round, one thread)")
    ax.set_title(title)
    ax.grid(True, axis="x", alpha=0.3)


def render(args, inputs=None):
    studies = (inputs or drawing.Inputs()).read(load, args.csv)
    plt = drawing.pyplot()
    panels = [(s, t) for s, t in PANELS if s in studies]
    sizes = sorted({n for s, _ in panels for c in studies[s].values() for n in c["gflops"]})
    # A row of panels per kernel (off, added side by side), each row as tall as its longest study.
    grid = [row for row in ([p for p in panels if not p[0].endswith("_avx2")],
                            [p for p in panels if p[0].endswith("_avx2")]) if row]
    heights = [max(len(studies[s]) for s, _ in row) for row in grid]
    columns = max(len(row) for row in grid)
    plt.rcParams.update({"font.size": 10})
    fig, axes = plt.subplots(len(grid), columns, dpi=130, squeeze=False, gridspec_kw={"height_ratios": heights},
                             figsize=(7 * columns, 1.2 + 0.42 * sum(heights) * max(1, len(sizes) / 2)))
    top = max(g for s, _ in panels for c in studies[s].values() for g in c["gflops"].values())
    for r, row in enumerate(grid):
        for c in range(len(row), columns):
            axes[r][c].remove()   # not a hidden axes: it would count as plot area
        for c, (study, title) in enumerate(row):
            draw_panel(axes[r][c], title, [studies[study][o] for o in sorted(studies[study])], sizes, top)
    if args.title:
        fig.suptitle(drawing.wrapped(drawing.literal(args.title), 90), fontsize=13)
    handles, labels = axes[0][0].get_legend_handles_labels()   # one legend for every panel, under them
    drawing.fit(fig, fig.legend(handles, labels, loc="lower center", ncol=len(sizes), frameon=False))
    return fig


def main(argv):
    args = parse(argv)
    inputs = drawing.Inputs()

    def body():   # the CSV first: a malformed one is exit 2 whatever the output
        inputs.read(load, args.csv)
        return drawing.draw(render, args, inputs)
    return drawing.run("plot_ablation.py", body)


if __name__ == "__main__":
    cli.main_of(main, "plot_ablation.py")
