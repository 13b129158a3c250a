"""The figures of a run on a loaded machine (tests/data/zen3-busy/, a recorded run in which
every size is unsettled: docs/tuning-log.md) are clean. Every figure make_figures.py draws is rendered with
the arguments it passes, and matplotlib's own extents must show: every text and every legend
inside the canvas, the title and axis labels clear of each other and of the legend, the axes
holding at least 60 % of the canvas, no legend text listing sizes. Then the summary of that
run fits on a screen (at most 700 words) and results/spread.csv holds the per-size detail.

    test_clean_figures.py PATH/TO/plots     (run by ctest with the interpreter that has matplotlib)
"""
import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "zen3-busy")
AXES_SHARE = 0.60
MAX_WORDS = 700
# "n = 100, 200", "100, 200, 300": a legend that lists sizes.
SIZE_LIST = re.compile(r"n\s*=\s*\d+\s*,|\d+,\s*\d+,\s*\d+")


def inside(box, canvas, slack=1.0):
    return (box.x0 >= canvas.x0 - slack and box.y0 >= canvas.y0 - slack
            and box.x1 <= canvas.x1 + slack and box.y1 <= canvas.y1 + slack)


def overlap(a, b, slack=1.0):
    return a.x0 < b.x1 - slack and b.x0 < a.x1 - slack and a.y0 < b.y1 - slack and b.y0 < a.y1 - slack


def frame_texts(fig):
    """(name, Text) of what frames the plot: the figure's title, each axes' titles and labels."""
    out = []
    if fig._suptitle is not None:
        out.append(("suptitle", fig._suptitle))
    for i, ax in enumerate(fig.axes):
        for axes in [ax] + list(getattr(ax, "child_axes", [])):
            out += [("axes {} title".format(i), t) for t in (axes.title, axes._left_title, axes._right_title)]
            out += [("axes {} x label".format(i), axes.xaxis.label), ("axes {} y label".format(i), axes.yaxis.label)]
    return [(n, t) for n, t in out if t.get_visible() and t.get_text().strip()]


def tick_labels(fig):
    """Every tick label Text, drawn or not (matplotlib keeps labels of ticks outside the view)."""
    out = set()
    for ax in fig.axes:
        for axes in [ax] + list(getattr(ax, "child_axes", [])):
            for axis in (axes.xaxis, axes.yaxis):
                for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                    out.update((id(tick.label1), id(tick.label2)))
    return out


def problems(fig):
    """What is wrong with a figure's layout, as sentences (none: clean). Tick labels are
    checked through their axes' tight box, which holds the drawn ones only."""
    from matplotlib.legend import Legend
    from matplotlib.text import Text
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    canvas = fig.bbox
    found = []
    boxes = [("axes {} with its ticks and labels".format(i), ax.get_tightbbox(renderer))
             for i, ax in enumerate(fig.axes) if ax.get_visible()]
    ticks = tick_labels(fig)
    boxes += [("text {!r}".format(t.get_text()[:50]), t.get_window_extent(renderer)) for t in fig.findobj(Text)
              if id(t) not in ticks and t.get_visible() and t.get_text().strip() and t.figure is fig]
    for what, box in boxes:
        if not inside(box, canvas):
            found.append("{} outside the canvas ({:.0f},{:.0f})-({:.0f},{:.0f} of {:.0f}x{:.0f})".format(
                what, box.x0, box.y0, box.x1, box.y1, canvas.width, canvas.height))
    legends = [l for l in fig.findobj(Legend) if l.get_visible()]
    for legend in legends:
        if not inside(legend.get_window_extent(renderer), canvas):
            found.append("a legend outside the canvas")
        found += ["legend lists sizes: {!r}".format(t.get_text()[:80]) for t in legend.get_texts()
                  if SIZE_LIST.search(t.get_text())]
    framing = [(n, t.get_window_extent(renderer)) for n, t in frame_texts(fig)]
    framing += [("legend", l.get_window_extent(renderer)) for l in legends]
    for i, (a, box_a) in enumerate(framing):
        for b, box_b in framing[i + 1:]:
            if overlap(box_a, box_b) and not (a == b == "legend"):
                found.append("{} runs into {}".format(a, b))
    area = sum(ax.get_window_extent(renderer).width * ax.get_window_extent(renderer).height
               for ax in fig.axes if ax.get_visible())
    share = area / (canvas.width * canvas.height)
    if share < AXES_SHARE:
        found.append("the axes hold {:.0f} % of the canvas, under {:.0f} %".format(100 * share, 100 * AXES_SHARE))
    return found


def figure_calls(plots, results):
    """{figure name: (script, argv)}: what make_figures.py runs for each figure of `results`."""
    sys.path.insert(0, plots)
    import make_figures
    calls = {}

    def record(target, script, argv, inputs):
        calls[os.path.basename(target)] = (script + ".py", argv + ["-o", target])
        return 0, None
    # make_figures.py draws each figure in its process through draw(): recorded instead.
    real, make_figures.draw = make_figures.draw, record
    stdout, sys.stdout = sys.stdout, open(os.devnull, "w")
    try:
        make_figures.main(["--results", results])
    finally:
        sys.stdout.close()
        sys.stdout, make_figures.draw = stdout, real
    return calls


def check_figures(plots, results, failures):
    import importlib
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    calls = figure_calls(plots, results)
    expected = {"overlay.png", "overlay_log.png", "overlay_mt.png", "staircase.png", "roofline.png",
                "bandwidth.png", "scaling.png", "step05_simd_4x4.png", "step10_tuned_mt.png",
                "blockmap_step10_tuned.png"}
    if not expected <= set(calls):
        failures.append("make_figures.py drew {}, not all of {}".format(sorted(calls), sorted(expected)))
    figures = [(name, os.path.splitext(script)[0], argv) for name, (script, argv) in sorted(calls.items())]
    # tools/ablation.sh's figure (not a run_all.sh one), from the two recorded in docs/figures/.
    for machine in ("zen4", "emerald-rapids"):
        path = os.path.join(os.path.dirname(HERE), "docs", "figures", machine, "ablation.csv")
        figures.append(("ablation.png ({})".format(machine), "plot_ablation",
                        [path, "--title", "Step 10 taken apart on " + machine, "-o", "ablation.png"]))
    for name, script, argv in figures:
        module = importlib.import_module(script)
        try:
            fig = module.render(module.parse(argv))
        except Exception as e:   # a figure that cannot be drawn fails here, the others are still checked
            failures.append("{}: not drawn: {}: {}".format(name, type(e).__name__, e))
            continue
        failures += ["{}: {}".format(name, p) for p in problems(fig)]
        plt.close(fig)
    return len(figures)


def check_summary(plots, results, failures):
    """The busy run's summary.md: the table, a spread table, at most MAX_WORDS words; spread.csv
    one row per curve and size measured."""
    r = subprocess.run([sys.executable, os.path.join(plots, "summary.py"), "--results", results],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if r.returncode != 0:
        failures.append("summary.py: exit {}: {}".format(r.returncode, r.stderr))
        return
    with open(os.path.join(results, "summary.md")) as f:
        text = f.read()
    words = len([w for w in text.split() if w.strip("|:-")])   # a table's "|" and "|--:|" are no words
    if words > MAX_WORDS:
        failures.append("summary.md: {} words, more than {}".format(words, MAX_WORDS))
    # The table as today, then a spread row per curve (every size unsettled on this run).
    for fact in ("| 10_tuned | avx2 | 1 | 82.2 | 92% | 1.00 | 82.4 | 92% | 1.07 (1.05-1.13) |",
                 "| curve | threads | settled |", "| 08_avx512_14x32 | 1 | 0/15 | 50% at 800 | 7-13 | 97% |",
                 "0 of 225 sizes settled"):
        if fact not in text:
            failures.append("summary.md: no '{}':\n{}".format(fact, text))
    path = os.path.join(results, "spread.csv")
    if not os.path.isfile(path):
        failures.append("summary.py wrote no spread.csv")
        return
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    # 15 curves (15 CSVs: step 09, step 10's _mt and the libraries' _mt on two threads) x 15 sizes.
    keys = set((r["step"], r["threads"], r["csv"], r["n"]) for r in rows)
    if len(keys) != len(rows) or len(rows) != 15 * 15 or ("10_tuned", "1", "step10_tuned.csv", "1500") not in keys:
        failures.append("spread.csv: {} rows, {} distinct, not 225; no step 10 at n = 1500?".format(len(rows), len(keys)))
    row = next((r for r in rows if (r["step"], r["threads"], r["n"]) == ("08_avx512_14x32", "1", "1000")), None)
    if row is None or row["settled"] != "0" or int(row["samples"]) < 2 or not 0 < float(row["spread"]) < 1:
        failures.append("spread.csv: step 08 at n = 1000: {}".format(row))


def main():
    plots = sys.argv[1]
    failures = []
    with tempfile.TemporaryDirectory() as d:
        results = os.path.join(d, "results")
        shutil.copytree(DATA, results)
        drawn = check_figures(plots, results, failures)
        check_summary(plots, results, failures)
    for f in failures:
        print("FAIL:", f)
    print("clean-figure tests: {} figures, {} failed".format(drawn, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
