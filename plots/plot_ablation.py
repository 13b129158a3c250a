#!/usr/bin/env python3
"""Draw tools/ablation.sh's table: step 08 with each idea off, and the ideas added one by one.

    plot_ablation.py ABLATION_CSV [--title TEXT] -o OUT.png

ABLATION_CSV has the columns study,order,config,switches,n,gflops (more may follow); study is
"off" or "added". One panel per study, one horizontal bar per configuration and size.
Malformed or empty input: exit 2 with one line naming the file and the problem.
"""
import argparse
import sys

from harness_csv import InputError, number, read_rows

REQUIRED = ["study", "order", "config", "n", "gflops"]
PANELS = [("off", "step 08 with one idea switched off"), ("added", "ideas added one by one, from step 07")]


def load(path):
    rows = read_rows(path, REQUIRED)
    studies = {}
    for line, row in enumerate(rows, start=2):
        if row["study"] not in dict(PANELS):
            raise InputError(f"{path}: line {line}: study is '{row['study']}', not off or added")
        configs = studies.setdefault(row["study"], {})
        order = number(path, line, row, "order", int)
        entry = configs.setdefault(order, {"config": row["config"], "gflops": {}})
        entry["gflops"][number(path, line, row, "n", int)] = number(path, line, row, "gflops")
    return studies


def main(argv):
    parser = argparse.ArgumentParser(description="tools/ablation.sh's results as bar charts.")
    parser.add_argument("csv", help="ablation CSV (tools/ablation.sh)")
    parser.add_argument("--title", help="figure title")
    parser.add_argument("-o", "--output", required=True, help="PNG file to write")
    args = parser.parse_args(argv)
    try:
        studies = load(args.csv)
    except InputError as e:
        print(f"plot_ablation.py: {e}", file=sys.stderr)
        return 2
    try:
        import matplotlib
    except ImportError:
        print(f"plot_ablation.py: {sys.executable} cannot import matplotlib "
              "(Debian/Ubuntu: apt-get install python3-matplotlib, and run /usr/bin/python3)",
              file=sys.stderr)
        return 3
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [(s, t) for s, t in PANELS if s in studies]
    sizes = sorted({n for s, _ in panels for c in studies[s].values() for n in c["gflops"]})
    rows = max(len(studies[s]) for s, _ in panels)
    plt.rcParams.update({"font.size": 10})
    fig, axes = plt.subplots(1, len(panels), figsize=(7 * len(panels), 1.2 + 0.42 * rows * max(1, len(sizes) / 2)),
                             dpi=130, squeeze=False)
    top = max(g for s, _ in panels for c in studies[s].values() for g in c["gflops"].values())
    height = 0.8 / len(sizes)
    for ax, (study, title) in zip(axes[0], panels):
        configs = [studies[study][o] for o in sorted(studies[study])]
        for k, n in enumerate(sizes):
            ys = [i + (k - (len(sizes) - 1) / 2) * height for i in range(len(configs))]
            values = [c["gflops"].get(n, 0) for c in configs]
            bars = ax.barh(ys, values, height=height, label=f"n = {n}")
            for bar, v in zip(bars, values):
                ax.text(bar.get_width() + top * 0.01, bar.get_y() + bar.get_height() / 2, f"{v:.0f}",
                        va="center", fontsize=7)
        ax.set_yticks(range(len(configs)))
        ax.set_yticklabels([c["config"] for c in configs])
        ax.invert_yaxis()
        ax.set_xlim(0, top * 1.12)
        ax.set_xlabel("GFLOPS (best round, CPU time)")
        ax.set_title(title)
        ax.grid(True, axis="x", alpha=0.3)
    # One legend for both panels, under them, where it hides no bar.
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(sizes), frameon=False)
    if args.title:
        fig.suptitle(args.title, fontsize=13)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    try:
        fig.savefig(args.output)
    except OSError as e:
        print(f"plot_ablation.py: {args.output}: cannot write ({e.strerror})", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
