#!/usr/bin/env python3
"""The tuner's search (tools/tune.py's STEM.search.csv, docs/contracts.md "The tuner"): per thread setting,
the points tried for step 10 coloured by their ratio to the rules, the rules' point, the winner and the path.

    plot_tuning.py SEARCH.csv [--title TEXT] -o OUT.png
"""
import math
import re
import sys

import cli
import drawing
from harness_csv import MAX_BYTES, MAX_THREADS, InputError, machine_name, number, read_rows, shown

NAME = "plot_tuning.py"
REQUIRED = ["threads", "thread_count", "phase", "batch", "options", "mc", "kc", "nc", "switches", "vs", "vs_to_rules",
            "ratio", "ratio_to_rules", "adopted", "failed", "noise", "rules_mc", "rules_kc", "rules_nc", "winner"]
SETTINGS = ("1", "all")
PHASES = ("coarse", "polish", "switch", "final")
COORDS = ("kc", "mc", "nc", "one_slice")           # the order an axis is chosen in (kc x mc first)
LABELS = {"kc": "kc (depth of the blocks)", "mc": "mc (rows of the A block)", "nc": "nc (columns of the B panel)",
          "one_slice": "one-slice (deepest k in one slice)"}
SHORT = {c: c.replace("_", "-") for c in COORDS}
MAX_BLOCK = 65536        # the largest --NAME N step 10 takes
MAX_RATIO = 1000.0       # a ratio beyond this is a garbled file, not a measurement
MAX_BATCH = 1000000
COLOURMAP = "RdBu"       # red slower than the rules, blue faster, white level
SAME = ("threads", "rules", "winner", "kernel", "cpu", "uarch", "caches", "complete")   # one per setting


def text(row, column):
    return (row.get(column) or "").strip()


def flag(path, line, row, column):
    value = text(row, column)
    if value not in ("0", "1"):
        raise InputError("{}: line {}: column {} is '{}', not 0 or 1".format(path, line, column, shown(value)))
    return value == "1"


def block(path, line, row, column):
    return number(path, line, row, column, int, minimum=1, maximum=MAX_BLOCK)


def blocks(path, line, row, prefix, has_one_slice):
    """{mc, kc, nc, one_slice} of the columns PREFIX + each (one_slice None where the record has none)."""
    out = {c: block(path, line, row, prefix + c) for c in ("mc", "kc", "nc")}
    return dict(out, one_slice=block(path, line, row, prefix + "one_slice") if has_one_slice else None)


def optional(path, line, row, column, **limits):
    return number(path, line, row, column, maximum=MAX_RATIO, **limits) if text(row, column) else None


def candidate(path, line, row, has_one_slice):
    phase = row["phase"].strip()
    if phase not in PHASES:
        raise InputError("{}: line {}: column phase is '{}', not one of {}".format(
            path, line, shown(phase), ", ".join(PHASES)))
    switches = row["switches"].split()
    for word in switches:
        if not re.match(r"^[a-z][a-z0-9-]{0,31}$", word):
            raise InputError("{}: line {}: column switches holds '{}', not a switch such as no-copy-b".format(
                path, line, shown(word)))
    failed = flag(path, line, row, "failed")
    judged = not failed or text(row, "ratio")

    def ratio(column, present=True):
        return number(path, line, row, column, positive=True, maximum=MAX_RATIO) if present else None
    return {"line": line, "phase": phase, "switches": switches, "failed": failed,
            "adopted": flag(path, line, row, "adopted"), "options": row["options"].strip(), "vs": row["vs"].strip(),
            "pooled": ratio("pooled", judged and text(row, "pooled")),
            "batch": number(path, line, row, "batch", int, minimum=1, maximum=MAX_BATCH),
            **blocks(path, line, row, "", has_one_slice),
            "vs_to_rules": ratio("vs_to_rules"), "ratio": ratio("ratio", judged),
            "ratio_to_rules": ratio("ratio_to_rules", judged),
            "noise": optional(path, line, row, "noise", minimum=0),
            "low": optional(path, line, row, "low", positive=True),
            "high": optional(path, line, row, "high", positive=True),
            "decision": text(row, "decision")}


def load(path):
    """The record's searches, checked, in SETTINGS order: each {"rows": [...], the search's columns}."""
    raw = read_rows(path, REQUIRED)
    # one-slice is a block size where the rules take some k in one slice (every row has it).
    has_one_slice = all(text(r, "one_slice") and text(r, "rules_one_slice") for r in raw)
    searches = {}
    for line, row in enumerate(raw, start=2):
        setting = row["threads"].strip()
        if setting not in SETTINGS:
            raise InputError("{}: line {}: column threads is '{}', not 1 or all".format(path, line, shown(setting)))
        r = candidate(path, line, row, has_one_slice)
        search = {"setting": setting,
                  "threads": number(path, line, row, "thread_count", int, minimum=1, maximum=MAX_THREADS),
                  "rules": blocks(path, line, row, "rules_", has_one_slice),
                  "winner": row["winner"].strip(), "kernel": text(row, "kernel"),
                  "complete": (row.get("complete") or "1").strip() != "0",
                  "cpu": text(row, "cpu"), "uarch": text(row, "uarch"),
                  "caches": {name: number(path, line, row, column, int, minimum=1, maximum=MAX_BYTES)
                             for name, column in (("L1d", "l1d"), ("L2", "l2"), ("L3", "l3")) if text(row, column)}}
        known = searches.setdefault(setting, dict(search, rows=[]))
        for key in SAME:
            if known[key] != search[key]:
                raise InputError("{}: line {}: threads {} has another {} than the rows before it".format(
                    path, line, setting, key.replace("rules", "rules' blocks")))
        known["rows"].append(r)
    for s in searches.values():
        s["winner_row"] = None
        if s["winner"]:
            adopted = [r for r in s["rows"] if r["adopted"] and r["phase"] != "final" and r["options"] == s["winner"]]
            if not adopted:
                raise InputError("{}: threads {}: the winner '{}' is no adopted row".format(
                    path, s["setting"], shown(s["winner"])))
            s["winner_row"] = adopted[-1]
        s["final"] = next((r for r in s["rows"] if r["phase"] == "final"), None)
        # What the search resolved: the widest interval among the decisions it closed.
        closed = [r["noise"] for r in s["rows"] if r["noise"] is not None and r["decision"] in ("won", "lost")]
        s["noise"] = max(closed or [r["noise"] for r in s["rows"] if r["noise"] is not None] or [0.0])
    return [searches[k] for k in SETTINGS if k in searches]


def size_text(value):   # 2 MiB
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= scale:
            return "{:.3g} {}".format(value / scale, unit)
    return "{} B".format(value)


def blocks_text(values, coords):
    return ", ".join("{} {}".format(SHORT[c], values[c]) for c in coords if values.get(c) is not None)


def fit_text(values, caches):
    """What the A block (kc x mc floats) takes of L2 and the B panel (kc x nc) of L3."""
    parts = []
    for what, other, level in (("A block kc\u00b7mc\u00b74 B", "mc", "L2"),
                               ("B panel kc\u00b7nc\u00b74 B", "nc", "L3")):
        size = 4 * values["kc"] * values[other]
        part = "{} {}".format(what, size_text(size))
        if caches.get(level):
            part += " = {:.0f} % of {}".format(100.0 * size / caches[level], level)
        parts.append(part)
    return ", ".join(parts)


def pick_axes(search):
    """(x, y, others): the two block sizes the search moved most (COORDS' order on a tie), then the others
    that moved; one-slice counts only where the rules take some k deeper than kc in one slice."""
    rows = block_rows(search)
    rules = search["rules"]
    coords = [c for c in COORDS if c != "one_slice" or (rules[c] is not None and rules[c] > rules["kc"])]

    def moved(c):
        return len(set([r[c] for r in rows] + [rules[c]]))
    ranked = sorted(coords, key=lambda c: (-moved(c), COORDS.index(c)))
    pair = sorted(ranked[:2], key=COORDS.index)
    return pair[0], pair[1], [c for c in ranked[2:] if moved(c) > 1]


def block_rows(search):
    return [r for r in search["rows"] if r["phase"] in ("coarse", "polish")]


def incumbent_of(search, row):
    """What a row was compared with: the last adopted row before it with its `vs` options, else the rules."""
    found = dict(search["rules"], ratio_to_rules=1.0)
    if row["vs"]:
        for r in search["rows"]:
            if r["adopted"] and r["phase"] != "final" and r["options"] == row["vs"] and r["batch"] < row["batch"]:
                found = r
    return found


def place_label(ax, at, label, taken, to_unit, bold=False):
    """Labels `at` where the box covers the fewest `taken` points (axes units; the box is added) inside the axes."""
    u, v = to_unit(at)
    box = ax.get_position()
    width, height = ax.figure.get_size_inches()
    lines = label.split("\n")
    # The label's half size in axes units (8 pt text: a character ~4.6 pt wide, a line ~11 pt).
    half_w = (4.6 * max(len(line) for line in lines) + 8) / (72.0 * width * box.width) / 2
    half_h = (11.0 * len(lines) + 8) / (72.0 * height * box.height) / 2
    best = None
    for radius in (0.13, 0.22, 0.32):
        for step in range(12):
            angle = 2 * math.pi * step / 12 + math.pi / 4
            x, y = u + radius * math.cos(angle), v + radius * math.sin(angle)
            inside = [(a, b) for a, b in taken if abs(a - x) < half_w + 0.02 and abs(b - y) < half_h + 0.02]
            outside = max(0.0, abs(x - 0.5) + half_w - 0.5) + max(0.0, abs(y - 0.5) + half_h - 0.5)
            score = (len(inside) + 100 * outside, radius)
            if best is None or score < best[0]:
                best = (score, x, y)
    _, x, y = best
    taken += [(x + dx * half_w, y + dy * half_h) for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
    ax.annotate(label, at, xytext=(x, y), textcoords="axes fraction", ha="center", va="center", fontsize=8,
                fontweight="bold" if bold else "normal", zorder=7,
                bbox={"facecolor": "white", "alpha": 0.9, "edgecolor": "0.6", "pad": 2},
                arrowprops={"arrowstyle": "-", "color": "0.3", "lw": 0.8, "shrinkB": 10})


def log_axis(ax, name, values):
    """Axis `name` ("x" or "y") in log 2 with plain numbers, ticked at each value when there are few."""
    getattr(ax, "set_{}scale".format(name))("log", base=2)
    axis = getattr(ax, name + "axis")
    drawing.plain_numbers(axis)
    values = sorted(set(values))
    if len(values) <= 10:
        axis.set_ticks(values)
        axis.set_ticks([], minor=True)


def point(ax, x, y, r, norm, cmap, size=70):
    """A candidate coloured by its ratio to the rules, thick-edged when adopted; a red cross when it failed."""
    if r["ratio_to_rules"] is None:
        ax.scatter([x], [y if y is not None else 1.0], marker="x", s=50, color="red", linewidths=2, zorder=4)
    else:
        ax.scatter([x], [y], marker="o", s=size, c=[r["ratio_to_rules"]], cmap=cmap, norm=norm, edgecolors="black",
                   linewidths=1.8 if r["adopted"] else 0.6, zorder=4)


def l2_curves(ax, l2, xname, xlim, ylim):
    """The curves kc x mc x 4 B = L2 and = L2 / 4 (the rules' aim), each named where it crosses the plane."""
    import numpy
    grid = numpy.geomspace(xlim[0], xlim[1], 200)
    for part, style, label, name in (
            (1, "--", "kc\u00b7mc\u00b74 B = L2 ({}): an A block that fills L2".format(size_text(l2)), "A block = L2"),
            (4, ":", "kc\u00b7mc\u00b74 B = L2 / 4: the rules' A block", "A block = L2 / 4")):
        along = (grid, l2 / 4.0 / grid) if xname == "kc" else (l2 / 4.0 / grid, grid)
        along = (along[0], along[1] / part)   # the L2 curve with its y a part as large
        inside = [(x, y) for x, y in zip(*along) if xlim[0] < x < xlim[1] and ylim[0] < y < ylim[1]]
        ax.plot(*along, color="0.35", linestyle=style, linewidth=1.2, zorder=2, label=label if inside else None)
        if inside:
            ax.annotate(name, inside[len(inside) // 2], xytext=(4, 4), textcoords="offset points", fontsize=8,
                        color="0.3")


def hollow(ax, x, y, marker, s, linewidths, **options):
    ax.scatter(x, y, marker=marker, s=s, facecolors="none", edgecolors="black", linewidths=linewidths, **options)


def draw_plane(ax, search, norm, cmap, xname, yname, others):
    rules = search["rules"]
    # The candidates that moved in this plane: their other block sizes are their incumbent's.
    rows = [r for r in block_rows(search) if all(r[c] == incumbent_of(search, r)[c] for c in others)]
    w = search["winner_row"]
    xs = [r[xname] for r in rows] + [rules[xname]] + ([w[xname]] if w else [])
    ys = [r[yname] for r in rows] + [rules[yname]] + ([w[yname]] if w else [])
    xlim = (min(xs) / 1.4, max(xs) * 1.4)
    ylim = (min(ys) / 1.4, max(ys) * 1.4)
    spans = (math.log2(xlim[1] / xlim[0]), math.log2(ylim[1] / ylim[0]))

    def to_unit(p):
        return math.log2(p[0] / xlim[0]) / spans[0], math.log2(p[1] / ylim[0]) / spans[1]
    seen = {}   # two candidates at one (x, y) (each moved from another incumbent) are set a little apart
    for r in sorted(rows, key=lambda r: r["batch"]):
        key = (r[xname], r[yname])
        k = seen.get(key, 0)
        seen[key] = k + 1
        point(ax, r[xname] * 2 ** (0.06 * spans[0] * (k % 2 * 2 - 1) * ((k + 1) // 2)) if k else r[xname],
              r[yname], r, norm, cmap)
    # The path: the rules, then each point the search adopted, in order.
    adopted = [r for r in sorted(block_rows(search), key=lambda r: r["batch"]) if r["adopted"]]
    path = [(rules[xname], rules[yname])] + [(r[xname], r[yname]) for r in adopted]
    for a, b in zip(path, path[1:]):
        if a != b:
            ax.annotate("", xy=b, xytext=a, arrowprops={"arrowstyle": "-|>", "color": "0.3", "lw": 1.3,
                                                        "shrinkA": 9, "shrinkB": 9}, zorder=3)
    log_axis(ax, "x", xs)
    log_axis(ax, "y", ys)
    ax.tick_params(axis="x", labelrotation=45)
    if {xname, yname} == {"kc", "mc"} and search["caches"].get("L2"):
        l2_curves(ax, search["caches"]["L2"], xname, xlim, ylim)
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    # The rules' point and the winner, labelled with their values.
    named = [c for c in COORDS if c != "one_slice" or c in (xname, yname) or c in others]
    taken = [to_unit((r[xname], r[yname])) for r in rows]
    hollow(ax, [rules[xname]], [rules[yname]], "s", 380, 2.2, zorder=5)
    hollow(ax, [], [], "s", 80, 1.8, label="the rules")
    if w is not None:
        hollow(ax, [w[xname]], [w[yname]], "*", 650, 1.6, zorder=6)
        hollow(ax, [], [], "*", 140, 1.4, label="the winner")
        label = "winner: " + blocks_text(w, named) + "".join("\n+ " + s for s in w["switches"]) + \
            "\n\u00d7{:.3f} the rules".format(w["ratio_to_rules"])
        place_label(ax, (w[xname], w[yname]), drawing.literal(label), taken, to_unit, bold=True)
    place_label(ax, (rules[xname], rules[yname]), "rules: " + blocks_text(rules, named) +
                ("" if w is not None else "\n(the winner: no candidate beat them)"), taken, to_unit)
    ax.scatter([], [], marker="o", s=50, color="white", edgecolors="black", linewidths=1.8,
               label="a candidate (thick edge: adopted)")
    if any(r["ratio_to_rules"] is None for r in block_rows(search)):
        ax.scatter([], [], marker="x", color="red", label="failed")
    ax.plot([], [], color="0.3", linewidth=1.3, label="the search's path")
    ax.set_xlabel(LABELS[xname])
    ax.set_ylabel(LABELS[yname])
    ax.grid(True, which="major", alpha=0.3)


def draw_strip(ax, search, norm, cmap, name):
    """The candidates that moved `name`: its value against their ratio, each joined to its incumbent."""
    rules = search["rules"]
    rows = [r for r in block_rows(search) if r[name] != incumbent_of(search, r)[name]]
    values = [rules[name]] + [r[name] for r in rows]
    ratios = [1.0]
    for r in rows:
        before = incumbent_of(search, r)
        if r["ratio_to_rules"] is not None:
            ax.plot([before[name], r[name]], [before["ratio_to_rules"], r["ratio_to_rules"]], color="0.6",
                    linewidth=0.8, zorder=2)
            ratios += [before["ratio_to_rules"], r["ratio_to_rules"]]
        values.append(before[name])
        ax.scatter([before[name]], [before["ratio_to_rules"]], marker="o", s=14, color="black", zorder=3)
        point(ax, r[name], r["ratio_to_rules"], r, norm, cmap, size=55)
    ax.axvline(rules[name], color="black", linestyle=":", linewidth=1.2)
    ax.axhline(1.0, color="black", linewidth=0.6)
    ax.annotate("rules' {} {}".format(SHORT[name], rules[name]), (rules[name], 0.02), xytext=(3, 0),
                textcoords="offset points", xycoords=ax.get_xaxis_transform(), fontsize=7.5, va="bottom")
    w = search["winner_row"]
    if w is not None:
        hollow(ax, [w[name]], [w["ratio_to_rules"]], "*", 300, 1.4, zorder=5)
        label = "winner's {} {}{}".format(SHORT[name], w[name], "".join(" + " + s for s in w["switches"]))
        ax.annotate(drawing.literal(label), (w[name], w["ratio_to_rules"]), xytext=(9, 0), textcoords="offset points",
                    fontsize=7.5, va="center", fontweight="bold")
        ratios.append(w["ratio_to_rules"])
    log_axis(ax, "x", values)
    ax.set_xlim(min(values) / 1.3, max(values) * 1.3)
    lo, hi = min(ratios), max(ratios)
    ax.set_ylim(lo - 0.12 * (hi - lo) - 0.01, hi + 0.25 * (hi - lo) + 0.01)
    ax.scatter([], [], marker="o", s=14, color="black", label="the incumbent it moved from")
    ax.legend(loc="lower left", fontsize=7, framealpha=0.8)
    ax.set_xlabel(LABELS[name] + ", at the other blocks of the incumbent", fontsize=8)
    ax.set_ylabel("ratio to\nthe rules", fontsize=8)
    ax.tick_params(labelsize=8)
    ax.grid(True, which="major", alpha=0.3)


def draw_switches(ax, search, norm, cmap):
    """Bars from 1.0: each switch's ratio to the rules over the band of its interval, and the final rounds'."""
    bars = [(" + ".join(r["switches"]) or "(none)", r) for r in search["rows"] if r["phase"] == "switch"]
    if search["final"] is not None:
        bars.append(("final rounds:\nwinner / rules", search["final"]))
    if not bars:
        ax.text(0.5, 0.5, "no switch tried and no final rounds", transform=ax.transAxes, ha="center", va="center",
                fontsize=9, color="0.3")
        ax.set_xticks([])
        ax.set_yticks([])
        return
    values = [1.0]
    for i, (label, r) in enumerate(bars):
        y = len(bars) - 1 - i
        if r["phase"] == "switch" and r["low"] is not None and r["high"] is not None:
            low, high = r["vs_to_rules"] * r["low"], r["vs_to_rules"] * r["high"]
            ax.fill_betweenx([y - 0.45, y + 0.45], low, high, color="0.82", zorder=1)
            values += [low, high]
        if r["ratio_to_rules"] is not None:
            ax.barh([y], [r["ratio_to_rules"] - 1.0], left=1.0, height=0.6, color=cmap(norm(r["ratio_to_rules"])),
                    edgecolor="black", linewidth=1.8 if r["adopted"] else 0.6, zorder=2)
            values.append(r["ratio_to_rules"])
    lo, hi = min(values), max(values)
    ax.set_xlim(lo - 0.05 * (hi - lo) - 0.005, lo + (hi - lo + 0.01) / 0.6)   # the bars in the left 60 %
    for i, (label, r) in enumerate(bars):   # each one's numbers in a column at the right
        if r["ratio_to_rules"] is None:
            said = "failed"
        elif r["phase"] == "final":
            said = "\u00d7{:.3f}{}".format(r["ratio_to_rules"], "" if r["adopted"] else ": not above 1, the rules kept")
        elif r["adopted"]:
            said = "\u00d7{:.3f}, adopted".format(r["ratio_to_rules"])
        else:
            said = "\u00d7{:.3f}{}".format(r["ratio_to_rules"], ", " + r["decision"] if r["decision"] else "")
        ax.text(0.99, len(bars) - 1 - i, said, transform=ax.get_yaxis_transform(), ha="right", va="center",
                fontsize=7.5, color="red" if r["ratio_to_rules"] is None else "black")
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_yticks(range(len(bars)))
    ax.set_yticklabels([drawing.literal(label) for label, _ in reversed(bars)], fontsize=8)
    ax.set_ylim(-0.6, len(bars) - 0.4)
    ax.set_xlabel("switches tried, and the final rounds: ratio to the rules\n"
                  "(grey: its interval, which had to clear the incumbent's ratio by the margin)", fontsize=8)
    ax.tick_params(axis="x", labelsize=8)


def draw_column(fig, grid, column, search, layout, strips, cmap):
    plt = drawing.pyplot()
    from matplotlib.colors import Normalize
    xname, yname, others = layout
    noise = search["noise"]
    w = search["winner_row"]
    ratios = [r["ratio_to_rules"] for r in search["rows"] if r["ratio_to_rules"] is not None]
    # Centred on 1.0, as wide as the slowest point and the winner (a point above the winner, which a spell at
    # one size can give, is drawn at the end of the scale).
    half = max([1.0 - min(ratios + [1.0]), 2 * noise, 0.02] + ([w["ratio_to_rules"] - 1.0] if w else []) +
               [v - 1.0 for v in ratios if w is None])
    norm = Normalize(vmin=1.0 - half, vmax=1.0 + half)
    ax = fig.add_subplot(grid[0, 2 * column])
    draw_plane(ax, search, norm, cmap, xname, yname, others)
    for i in range(strips):
        strip = fig.add_subplot(grid[1 + i, 2 * column])
        if i < len(others):
            draw_strip(strip, search, norm, cmap, others[i])
        else:
            strip.axis("off")
    draw_switches(fig.add_subplot(grid[1 + strips, 2 * column]), search, norm, cmap)
    notes = fig.add_subplot(grid[2 + strips, 2 * column:2 * column + 2])
    notes.axis("off")
    bar = fig.colorbar(plt.cm.ScalarMappable(norm=norm, cmap=cmap),
                       cax=fig.add_subplot(grid[0:2 + strips, 2 * column + 1]),
                       extend="max" if max(ratios + [1.0]) > 1.0 + half else "neither")
    bar.set_label("ratio to the rules, chained through the incumbents\n"
                  "(1 = the rules, > 1 faster; hatched: 1 \u00b1 what the search resolved)", fontsize=9)
    bar.ax.axhspan(1 - noise, 1 + noise, facecolor="none", edgecolor="black", hatch="////", linewidth=0.8)
    tried = [r for r in search["rows"] if r["phase"] != "final"]
    ax.set_title("{}: {} candidates in {} batches; decides \u00b1{:.1f} %{}".format(
        drawing.threads_text([search["threads"]]), len(tried), len(set(r["batch"] for r in tried)), 100 * noise,
        "" if search["complete"] else "\nthe search did not finish: its best so far"), fontsize=11)
    # What the rules' and the winner's blocks take of the caches, and the ratios.
    final = search["final"]
    lines = ["rules:  " + fit_text(search["rules"], search["caches"])]
    if w is not None:
        lines.append("winner: " + fit_text(w, search["caches"]))
        lines.append("winner / rules: \u00d7{:.3f} chained through the incumbents{}".format(
            w["ratio_to_rules"], "" if final is None or final["ratio"] is None else
            ",\n                \u00d7{:.3f} measured beside the rules in the final rounds".format(final["ratio"])))
    elif final is not None and final["ratio"] is not None:
        lines.append("winner: the rules (the final rounds measured {} at \u00d7{:.3f})".format(
            final["options"] or "the tuned point", final["ratio"]))
    else:
        lines.append("winner: the rules (no candidate beat them by the margin)")
    notes.text(0.0, 1.0, drawing.literal("\n".join(lines)), transform=notes.transAxes, va="top", ha="left",
               fontsize=8, family="monospace")
    handles, labels = ax.get_legend_handles_labels()
    notes.legend(handles, labels, loc="lower left", ncol=2, fontsize=8, frameon=False, bbox_to_anchor=(0.0, -0.1))


def render(args):
    searches = load(args.csv)
    plt = drawing.pyplot()
    cmap = plt.get_cmap(COLOURMAP)
    layouts = [pick_axes(s) for s in searches]
    strips = max(len(others) for _, _, others in layouts)
    heights = [3.6] + [1.15] * strips + [1.6, 1.0]
    fig = plt.figure(figsize=(8.2 * len(searches), 1.9 + 1.75 * sum(heights)), dpi=110, constrained_layout=True)
    grid = fig.add_gridspec(len(heights), 2 * len(searches), height_ratios=heights,
                            width_ratios=[1.0, 0.035] * len(searches))
    for column, (search, layout) in enumerate(zip(searches, layouts)):
        draw_column(fig, grid, column, search, layout, strips, cmap)
    first = searches[0]
    caches = ", ".join("{} {}".format(k, size_text(v)) for k, v in first["caches"].items())
    what = args.title or "Step 10's tuner{}: the points tried, by their ratio to the rules".format(
        " ({})".format(first["kernel"]) if first["kernel"] else "")
    fig.suptitle(drawing.title(what, [s["threads"] for s in searches], machine_name(searches, {}), wrap=True) +
                 ("\ncaches: " + caches + " (L2 per core)" if caches else ""), fontsize=12)
    return fig


def parse(argv):
    return drawing.parse(drawing.parser("The tuner's search: the points tried, the rules and the winner.",
                                        "the search record tools/tune.py writes (STEM.search.csv)"), argv, machine=None)


def main(argv):
    status = drawing.figure_main(NAME, parse, render, argv)
    if "matplotlib.pyplot" in sys.modules:   # drawn in another program's process (tools/tune.py)
        sys.modules["matplotlib.pyplot"].close("all")
    return status


if __name__ == "__main__":
    cli.main_of(main, "plot_tuning.py")
