#!/usr/bin/env python3
"""tools/block_map.py's CSV as a heatmap of GFLOPS over kc x mc: the step's own cell outlined, the best starred.

    plot_blockmap.py CSV [--machine FILE] [--title TEXT] -o OUT.png
"""
import math

import drawing
from harness_csv import MAX_RATE, MAX_SIZE, InputError, machine_name, number, read_rows

REQUIRED = ["step", "n", "kc", "mc", "default", "gflops_best", "verified"]


def load(path):
    cells = []
    for line, row in enumerate(read_rows(path, REQUIRED), start=2):
        verified = row["verified"].strip() == "1"
        gflops = number(path, line, row, "gflops_best", minimum=0, maximum=MAX_RATE) if verified else float("nan")
        cells.append({"kc": number(path, line, row, "kc", int, minimum=1),
                      "mc": number(path, line, row, "mc", int, minimum=1),
                      "n": number(path, line, row, "n", int, minimum=1, maximum=MAX_SIZE),
                      "default": row["default"].strip() == "1", "verified": verified, "gflops": gflops,
                      "step": row["step"].strip(), "kernel": (row.get("kernel") or "").strip(),
                      "cpu": (row.get("cpu") or "").strip(), "uarch": (row.get("uarch") or "").strip()})
    if len(set(c["step"] for c in cells)) > 1 or len(set(c["n"] for c in cells)) > 1:
        raise InputError("{}: more than one step or size in one map".format(path))
    if len(set((c["kc"], c["mc"]) for c in cells)) != len(cells):
        raise InputError("{}: a kc, mc cell appears twice".format(path))
    if not any(c["verified"] for c in cells):
        raise InputError("{}: no cell was verified".format(path))
    return cells


def render(args, inputs=None):
    inputs = inputs or drawing.Inputs()
    cells = inputs.read(load, args.csv)
    machine = inputs.machine(args.machine, args.csv)
    kcs = sorted(set(c["kc"] for c in cells))
    mcs = sorted(set(c["mc"] for c in cells))
    at = {(c["kc"], c["mc"]): c["gflops"] for c in cells}
    grid = [[at.get((kc, mc), float("nan")) for kc in kcs] for mc in mcs]
    good = [c for c in cells if c["verified"]]
    best = max(good, key=lambda c: c["gflops"])
    own = next((c for c in cells if c["default"]), None)

    plt = drawing.pyplot()
    fig, ax = plt.subplots(figsize=(max(6.5, 1.25 * len(kcs) + 3), max(4.8, 0.75 * len(mcs) + 2.5)), dpi=130)
    hi = best["gflops"]
    lo = min(min(c["gflops"] for c in good), 0.5 * hi)   # at least half the best: a few % of noise is one colour
    image = ax.imshow(grid, origin="lower", cmap="viridis", aspect="auto", vmin=lo, vmax=hi)
    fig.colorbar(image, ax=ax, label="GFLOPS (best of the repetitions)")
    for c in cells:
        x, y = kcs.index(c["kc"]), mcs.index(c["mc"])
        if not c["verified"]:
            ax.text(x, y, "failed", ha="center", va="center", color="red", fontsize=9, fontweight="bold")
            continue
        light = (c["gflops"] - lo) / (hi - lo) > 0.6 if hi > lo else False
        ax.text(x, y, "{:.1f}".format(c["gflops"]) + ("\n\u2605 best" if c is best else ""),
                ha="center", va="center", fontsize=9, color="black" if light else "white")
    if own:
        x, y = kcs.index(own["kc"]), mcs.index(own["mc"])
        ax.add_patch(plt.Rectangle((x - 0.5, y - 0.5), 1, 1, fill=False, edgecolor="black", linewidth=3))
        ax.annotate("the step's own", (x, y - 0.5), textcoords="offset points", xytext=(0, 2), ha="center",
                    va="bottom", fontsize=8, color="black",
                    bbox={"facecolor": "white", "alpha": 0.8, "edgecolor": "none", "pad": 1})
    ax.set(xticks=range(len(kcs)), xticklabels=[str(v) for v in kcs])
    ax.set(yticks=range(len(mcs)), yticklabels=[str(v) for v in mcs])
    ax.set_xlabel("kc (depth of the blocks)")
    ax.set_ylabel("mc (rows of the A block)")
    first = cells[0]
    what = args.title or "Step {} ({}), n = {}: GFLOPS by kc \u00d7 mc".format(
        first["step"], first["kernel"] or "?", first["n"])
    if own and not math.isnan(own["gflops"]):
        what += "\nits own choice: {:.0f}% of the best cell".format(100 * own["gflops"] / best["gflops"])
    ax.set_title(drawing.title(what, [1], machine_name(cells, machine), wrap=True), fontsize=11)
    drawing.fit(fig)
    return fig


def parse(argv):
    return drawing.parse(drawing.parser("Heatmap of GFLOPS over kc x mc.", "CSV from tools/block_map.py"), argv)


main = drawing.script(__name__, "plot_blockmap.py", parse, render)
