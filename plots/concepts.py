"""The tutorial's pictures of its ideas, drawn from the numbers the code uses (the tiles in the
source, the caches and blocks of the machine record) so that they cannot go stale and are redrawn
for the reader's CPU; docs/contracts.md ("The concept pictures") says what each is drawn from.

    concepts.py --out DIR [--cpuinfo-bin build/bin/cpuinfo | --machine results/machine.json]
                [--kernel NAME] [--only NAME,...]

Exit 0; 2 bad input (one line); 3 no matplotlib or an output that cannot be written.
"""
import argparse
import csv
import os
import re

import cli
import drawing
import output_file
import machine
from harness_csv import InputError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DATA = os.path.join(ROOT, "docs", "figures", "zen3", "reading-plots")   # a real Zen 3 run
NAMES = ("step01_walk", "register_file_4x4", "register_file_6x16", "register_file_14x32",
         "five_loops", "packing", "threads", "reading_plots")
BLOCKED = ("five_loops", "packing", "threads")   # drawn from step 08's blocks
REGISTER_FILES = {"register_file_4x4": "sse", "register_file_6x16": "avx2", "register_file_14x32": "avx512"}
LINE = 64            # bytes in a cache line (x86-64 and the usual ARM cores)
PAGE = 4096          # an L1 indexed by the page offset: sets x line = one page
FLOAT = 4

# One colour per cache level (plot_roofline.py's) and one per matrix, in every picture.
LEVEL = {"registers": "#6a3d9a", "L1": "tab:blue", "L2": "tab:green", "L3": "tab:orange", "DRAM": "tab:red"}
MATRIX = {"A": "#c2185b", "B": "#00838f", "C": "#8d6e63"}
FREE = "#e0e0e0"
ISA = {"sse": {"lanes": 4, "regs": 16, "reg": "xmm"}, "avx2": {"lanes": 8, "regs": 16, "reg": "ymm"},
       "avx512": {"lanes": 16, "regs": 32, "reg": "zmm"}, "neon": {"lanes": 4, "regs": 32, "reg": "v"}}


def kib(nbytes):
    """'32 KiB', '1.5 MiB', '512 B'."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= size:
            return "{:g} {}".format(round(nbytes / size, 1), unit)
    return "{} B".format(nbytes)


def plural(count):
    return "s" * (count != 1)


# ---- The inputs: the source's tiles, cpuinfo's caches and blocks ------------------------------

def read_source(root, path):
    try:
        with open(os.path.join(root, path)) as f:
            return f.read()
    except OSError as e:
        raise InputError("{}: cannot read ({})".format(os.path.join(root, path), e.strerror))


def step08_tiles(root):
    """{isa: (MR, NR)} from the constants of microkernels.hpp (kMrAvx2 = 6, kNrAvx2 = 16)."""
    path = "steps/08_avx512_14x32/microkernels.hpp"
    text = read_source(root, path)
    tiles = {name.lower(): (int(mr), int(nr)) for name, mr, nr in
             re.findall(r"kMr(\w+)\s*=\s*(\d+)\s*,\s*kNr\1\s*=\s*(\d+)", text)}
    if "avx2" not in tiles or "avx512" not in tiles:
        raise InputError("{}: no 'constexpr int kMrAvx2 = .., kNrAvx2 = ..' (and Avx512)".format(path))
    return tiles


def kernel_registers(root, isa, tile):
    """What one step of p keeps in registers, from the loads and broadcasts of the kernel's k loop."""
    lanes = ISA[isa]["lanes"]
    if isa == "sse":
        path = "steps/05_simd_4x4/kernel_sse.cpp"
        text = read_source(root, path)
        start = text.find(" add_dot_4x4(")
        end = text.find("\n}", start)   # the closing brace at the start of a line
        if start < 0 or end < 0:
            raise InputError("{}: no function add_dot_4x4".format(path))
        body = text[start:end]
        loads = len(re.findall(r"_mm_loadu?_ps\(b\)", body))
        broadcasts = len(re.findall(r"_mm_set1_ps", body))
        tile = (len(re.findall(r"__m128 c\d+ = _mm_setzero_ps", body)), loads * lanes)
        fma = False
    else:
        path = "steps/08_avx512_14x32/microkernel_{}.cpp".format(isa)
        text = read_source(root, path)
        loop = text[text.find("for (int p = 0; p < kc; ++p)"):]
        loop = loop[:loop.find("a += MR;")]
        loads = len(re.findall(r"_load_ps\(b", loop))
        broadcasts = len(re.findall(r"_(?:broadcast_ss|set1_ps)\(", loop))
        fma = "fmadd" in loop
        loads = tile[1] // lanes if loads else 0   # a row of the B sliver is NR floats: NR / lanes loads
    mr, nr = tile
    if mr < 1 or nr < lanes or loads < 1 or broadcasts < 1:
        raise InputError("{}: cannot read the {} tile's loads and broadcasts".format(path, isa))
    return dict(ISA[isa], isa=isa, mr=mr, nr=nr, acc=mr * (nr // lanes), loads=loads, broadcasts=broadcasts,
                fma=fma, path=path)


def step_blocks(args, record, slug, kernel):
    """mc, kc, nc of `slug` with `kernel`: the record's if that kernel runs there, else from a run at n = 16."""
    step = record.step(slug)
    if step and step.variant == kernel and {"mc", "kc", "nc"} <= set(step.params):
        return {k: step.params[k] for k in ("mc", "kc", "nc")}
    if not args.cpuinfo_bin:
        raise InputError("{}: no {} blocks for kernel {} in the machine record".format(args.machine, slug, kernel))
    exe = os.path.join(os.path.dirname(args.cpuinfo_bin), "step" + slug)
    out = os.path.join(output_file.scratch_folder("concepts."), "blocks.csv")
    machine.run_tool([exe, "--kernel", kernel, "--sizes", "16", "--reps", "1", "--threads", "1", "--csv", out])
    try:
        with open(out, newline="") as f:
            params = next(csv.DictReader(f), {}).get("params") or ""
    except OSError as e:
        raise InputError("{}: wrote no CSV ({})".format(exe, e.strerror))
    found = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", params)}
    if not {"mc", "kc", "nc"} <= set(found):
        raise InputError("{}: its CSV's params '{}' lack mc, kc or nc".format(exe, params))
    return found


def inputs(args):
    if args.machine:
        record = machine.load(args.machine)
    else:
        record = machine.parse(machine.run_tool([args.cpuinfo_bin, "--json"]), args.cpuinfo_bin + " --json")
    caches = record.caches
    if not all(caches.values()):
        raise InputError("{}: the machine record has no L1d, L2 or L3 size".format(args.machine or args.cpuinfo_bin))
    tiles = step08_tiles(args.source)
    step08 = record.step("08_avx512_14x32")
    kernel = args.kernel or (step08.variant if step08 else None)
    if args.kernel and kernel not in tiles:
        raise InputError("--kernel '{}': step 08's tiles are {}".format(kernel, ", ".join(sorted(tiles))))
    runs = kernel in tiles   # else this CPU runs no step 08 kernel: no pictures of its blocks
    blocks = [step_blocks(args, record, slug, kernel) if runs else None
              for slug in ("08_avx512_14x32", "09_openmp")]
    note = args.drawn_for or ("caches given by GEMM_CACHES" if record.caches_source == "GEMM_CACHES"
                              else record.identity.label or "this CPU")
    caption = "Drawn for {}: L1d {}, L2 {}, L3 {}; {}.".format(
        note, kib(caches["L1"]), kib(caches["L2"]), kib(caches["L3"]),
        "step 08's {} kernel ({} x {})".format(kernel, *tiles[kernel]) if runs else
        "step 08 runs no kernel here")
    return dict(vars(args), caches=caches, kernel=kernel if runs else None, tiles=tiles, blocks=blocks[0],
                blocks09=blocks[1], caption=caption)


# ---- Shared drawing pieces ----------------------------------------------------------------------

def write(on, x, y, text, size, ha="center", va="center", **kw):   # on an axes or a figure
    on.text(x, y, text, ha=ha, va=va, fontsize=size, **kw)


def new_figure(inp, width, height, title, size=14, y=0.975, extra=""):
    """A canvas with its title on top and, at its foot, what it was drawn for."""
    fig = drawing.pyplot().figure(figsize=(width, height), dpi=100)
    fig.suptitle(title, fontsize=size, y=y)
    write(fig, 0.5, 0.012, inp["caption"] + extra, 10, va="bottom", color="#444444")
    return fig


def box(ax, x, y, w, h, colour, edge="black", alpha=1.0, width=1.0, **kw):
    from matplotlib.patches import Rectangle
    ax.add_patch(Rectangle((x, y), w, h, facecolor=colour, edgecolor=edge, alpha=alpha, linewidth=width, **kw))


def bare(ax, x0, x1, y0, y1, equal=True):
    ax.set(xlim=(x0, x1), ylim=(y0, y1))
    if equal:
        ax.set_aspect("equal")
    ax.axis("off")


# ---- 1. Step 01's walk through memory -----------------------------------------------------------

def walk_grid(ax, x0, n, name, offsets):
    """Matrix `name` at x0, the cells at `offsets` and their lines (collections: thousands of cells)."""
    from matplotlib.collections import LineCollection, PatchCollection
    from matplotlib.patches import Rectangle
    grid = [[(x0 + c, 0), (x0 + c, n)] for c in range(n + 1)] + [[(x0, r), (x0 + n, r)] for r in range(n + 1)]
    ax.add_collection(LineCollection(grid, colors="#bbbbbb", linewidths=0.5))
    per_line = LINE // FLOAT
    starts = {o // per_line * per_line for o in offsets}   # the lines the cache brings in with them
    lines = [divmod(s + e, n) for s in starts for e in range(per_line) if s + e < n * n]
    for cells, alpha in ((lines, 0.22), ([divmod(o, n) for o in offsets], 1.0)):
        ax.add_collection(PatchCollection([Rectangle((x0 + c, n - r - 1), 1, 1) for r, c in cells],
                                          facecolor=MATRIX[name], edgecolor="none", alpha=alpha))
    ticks = [[(x0 + c, n - r - 1), (x0 + c, n - r)] for r in range(n) for c in range(n + 1)
             if (r * n + c) % per_line == 0]
    ax.add_collection(LineCollection(ticks, colors="black", linewidths=1.6))
    write(ax, x0 + n / 2, n + 1.0, name, 15, va="bottom", weight="bold", color=MATRIX[name])
    return len(starts)


def draw_walk(inp):
    n, per_line = inp["walk_n"], LINE // FLOAT
    i, j = n // 4, n // 3
    fig = new_figure(inp, 12, 6.6, "Step 01: C(i, j) += A(i, p) \u00b7 B(p, j) for p = 0..n-1, one element at a time "
                     "(n = {})".format(n))
    ax = fig.add_axes([0.01, 0.25, 0.98, 0.64])
    gap = max(6, n // 4)
    walks = (("A", [i * n + p for p in range(n)]), ("B", [p * n + j for p in range(n)]), ("C", [i * n + j]))
    la, lb, lc = [walk_grid(ax, k * (n + gap), n, name, offs) for k, (name, offs) in enumerate(walks)]
    write(ax, n + gap / 2, n / 2, "\u00d7", 22)
    write(ax, 2 * n + 1.5 * gap, n / 2, "\u2192", 22)
    bare(ax, -1, 3 * n + 2 * gap + 1, -1, n + 4)
    notes = ("row {} of A: {} floats side by side,\n{} line{} of {} floats".format(i, n, la, plural(la), per_line),
             "column {} of B: {} floats, each {} bytes\n(n floats) after the last: {} lines".format(
                 j, n, n * FLOAT, lb),
             "C({}, {}): {} line".format(i, j, lc))
    for k, text in enumerate(notes):
        write(fig, (k * (n + gap) + n / 2 + 1) / (3 * n + 2 * gap + 2) * 0.98 + 0.01, 0.235, text, 11.5, va="top")
    total = la + lb + lc
    write(fig, 0.5, 0.065, "A cache line is {} bytes = {} floats (thick ticks: where one ends); pale: the rest of each "
          "line read.\nOne dot product touches {} + {} + {} = {} lines ({}) for {} multiply-adds; of each line of B "
          "it uses {} bytes.".format(LINE, per_line, la, lb, lc, total, kib(total * LINE), n, FLOAT), 11.5, va="bottom")
    return fig


# ---- 2. The register file of a tile -------------------------------------------------------------

def lanes(j, count):
    """'8..15': the lanes of register j of a row."""
    return "{}..{}".format(j * count, (j + 1) * count - 1)


def draw_register_grid(ax, k):
    """Each register's role: accumulators, B loads, broadcasts, then the free ones (red: too many)."""
    roles = [("C", "C({}, {})".format(i, lanes(j, k["lanes"]))) for i in range(k["mr"])
             for j in range(k["nr"] // k["lanes"])]
    roles += [("B", "B(p, {})".format(lanes(j, k["lanes"]))) for j in range(k["loads"])]
    roles += [("A", "A({}, p) \u00d7{}".format(i if k["broadcasts"] > 1 else "i", k["lanes"]))
              for i in range(k["broadcasts"])]
    roles += [("free", "free")] * max(0, k["regs"] - len(roles))
    cols = 4
    rows = (max(k["regs"], len(roles)) + cols - 1) // cols
    for idx, (role, text) in enumerate(roles):
        x, y = idx % cols * 4.2, -(idx // cols) * 1.35
        over, ink = idx >= k["regs"], "#555555" if role == "free" else "white"
        box(ax, x, y, 4, 1.15, FREE if role == "free" else MATRIX[role], alpha=0.85,
            edge="red" if over else "black", width=2.5 if over else 0.8)
        ax.text(x + 0.12, y + 1.0, "{}{}".format(k["reg"], idx), fontsize=8.5, va="top", color=ink)
        write(ax, x + 2, y + 0.38, text, 10.5, color=ink)
    ax.text(cols * 2.1, 2.0, "the register file: {} {} registers of {} floats".format(k["regs"], k["reg"], k["lanes"]),
            ha="center", fontsize=12)
    bare(ax, -0.3, cols * 4.2, -rows * 1.35 - 0.2, 2.9)


def register_row(ax, x, y, k, s, colour):
    """The NR floats of a row of the tile, a register of `lanes` cells each, at (x, y)."""
    for j in range(k["nr"] // k["lanes"]):
        x0 = x + j * k["lanes"] * s
        box(ax, x0, y, k["lanes"] * s, s, colour, alpha=0.85, width=1.2)
        for c in range(1, k["lanes"]):
            ax.plot([x0 + c * s, x0 + c * s], [y, y + s], color="white", linewidth=0.5, alpha=0.7)


def draw_tile(ax, k):
    """The MR x NR tile of C by register, the B row above it, A's column and its broadcast."""
    mr, nr, n = k["mr"], k["nr"], k["lanes"]
    s = min(16.0 / nr, 1.6)                    # cell size: a wide tile fits the same width
    xa, x0, yb = 0.3, s + 3.0, 1.2             # A's column, the tile, the B row
    for i in range(mr):
        register_row(ax, x0, -(i + 1) * s, k, s, MATRIX["C"])
        box(ax, xa, -(i + 1) * s, s, s, MATRIX["A"], alpha=0.85, width=0.8)
    register_row(ax, x0, yb, k, s, MATRIX["B"])
    for j in range(nr // n):
        write(ax, x0 + (j + 0.5) * n * s, yb + s + 0.1, "B(p, {})".format(lanes(j, n)), 10.5, va="bottom",
              color=MATRIX["B"])
    write(ax, xa + s / 2, -mr * s - 0.2, "A(0..{}, p)".format(mr - 1), 10.5, va="top", color=MATRIX["A"])
    y = -(min(mr - 1, 1) + 0.5) * s
    ax.annotate("", xy=(x0 - 0.1, y), xytext=(xa + s + 0.05, y),
                arrowprops=dict(arrowstyle="->", color=MATRIX["A"], linewidth=2))
    write(ax, (xa + s + x0) / 2, y + 0.12, "broadcast\n\u00d7{}".format(n), 10, va="bottom", color=MATRIX["A"])
    write(ax, x0, -mr * s - 0.4, "the {} x {} tile of C: {} accumulators of {} floats,\nrow i += A(i, p) \u00d7 "
          "B(p, ..), register by register".format(mr, nr, k["acc"], n), 11.5, ha="left", va="top")
    write(ax, x0 + nr * s / 2, yb + s + 0.75, "row p of {}: {} load{}".format(
        "B" if k["isa"] == "sse" else "the B sliver", k["loads"], plural(k["loads"])), 10.5, va="bottom")
    bare(ax, 0, x0 + 16.5, -mr * s - 2.2, yb + s + 1.7)


def draw_register_file(inp, isa):
    k = inp["registers"][isa]
    used = k["acc"] + k["loads"] + k["broadcasts"]
    step = "Step 05 (SSE)" if isa == "sse" else "Step 08, {} kernel".format("AVX2" if isa == "avx2" else "AVX-512")
    fig = new_figure(inp, 12, 6.4 if k["regs"] > 16 else 5.4, "{}: the {} x {} tile of C in {} registers".format(
        step, k["mr"], k["nr"], k["reg"]), extra="\nTile read from {}; register numbers are an example (the compiler "
        "picks them).".format(k["path"]))
    draw_register_grid(fig.add_axes([0.01, 0.2, 0.44, 0.7]), k)
    draw_tile(fig.add_axes([0.47, 0.2, 0.52, 0.7]), k)
    op = ("{} FMAs: c += a \u00d7 b in one instruction".format(k["acc"]) if k["fma"] else
          "{} multiplies, then {} adds (SSE has no FMA)".format(k["acc"], k["acc"]))
    write(fig, 0.5, 0.16, "Per step of p: {} load{} of B, {} broadcast{} of A, {} = {} multiply-adds.".format(
        k["loads"], plural(k["loads"]), k["mr"], plural(k["mr"]), op, k["mr"] * k["nr"]), 11.5, va="top")
    write(fig, 0.5, 0.11, "{} accumulators + {} B + {} broadcast{} = {} of the {} {} registers{}".format(
        k["acc"], k["loads"], k["broadcasts"], plural(k["broadcasts"]), used, k["regs"], k["reg"],
        " (too many: they spill)" if used > k["regs"] else ""), 11.5, va="top", weight="bold")
    return fig


# ---- 3. The five loops, each block in the cache it lives in ------------------------------------

def where(nbytes, caches):
    """The smallest cache that holds nbytes (the level a block is read from when reused), and a note."""
    level = next((lv for lv in ("L1", "L2", "L3") if nbytes <= caches[lv]), "DRAM")
    return level, ("{}: in {} ({})".format(kib(nbytes), level, kib(caches[level])) if level != "DRAM" else
                   "{}: larger than L3 ({})".format(kib(nbytes), kib(caches["L3"])))


def loop_rows(inp):
    """The five loops: (loop line, blocks {matrix: (w, h) as fractions, at its top left; level}, note)."""
    b, c = inp["blocks"], inp["caches"]
    mr, nr = inp["tiles"][inp["kernel"]]
    fn, fk, fm, fr = 0.45, 0.4, 0.32, 0.08
    lp, tp = where(b["kc"] * b["nc"] * FLOAT, c)   # the B panel
    la, ta = where(b["mc"] * b["kc"] * FLOAT, c)   # the A block
    ls, ts = where(b["kc"] * nr * FLOAT, c)        # the B sliver
    return [
        ("for jc in 0..n step nc = {}".format(b["nc"]), {"C": (fn, 1, "DRAM"), "B": (fn, 1, "DRAM")},
         "nc = {} columns of B and C at a time".format(b["nc"])),
        ("  for pc in 0..k step kc = {}".format(b["kc"]), {"C": (fn, 1, None), "A": (fk, 1, "DRAM"), "B": (fn, fk, lp)},
         "pack the B panel, kc x nc = {} x {}\n{}".format(b["kc"], b["nc"], tp)),
        ("    for ic in 0..m step mc = {}".format(b["mc"]), {"C": (fn, fm, None), "A": (fk, fm, la), "B": (fn, fk, lp)},
         "pack the A block, mc x kc = {} x {}\n{}".format(b["mc"], b["kc"], ta)),
        ("      for jr in 0..nc step NR = {}".format(nr), {"C": (fr, fm, None), "A": (fk, fm, la), "B": (fr, fk, ls)},
         "the B sliver, kc x NR = {} x {}\n{}".format(b["kc"], nr, ts)),
        ("        for ir in 0..mc step MR = {}".format(mr),
         {"C": (fr, fr, "registers"), "A": (fk, fr, la), "B": (fr, fk, ls)},
         "micro-kernel: the MR x NR = {} x {} tile of C\nin {} registers, {} deep".format(
             mr, nr, mr * nr // ISA[inp["kernel"]]["lanes"], b["kc"])),
    ]


def loop_row(ax, loop, blocks, note, size=5.0, gap=1.3):
    """One loop: its line, its note, and C += A x B with the blocks it works on."""
    for k, name in enumerate("CAB"):
        x = 14 + k * (size + gap)
        box(ax, x, 0.4, size, size, "white", edge=MATRIX[name], width=1.8)
        write(ax, x + size / 2, size + 0.55, name, 12, va="bottom", weight="bold", color=MATRIX[name])
        if name in blocks:
            fw, fh, level = blocks[name]
            at = (x, 0.4 + (1 - fh) * size, fw * size, fh * size)
            if level is None:
                box(ax, *at, "none", width=1.4, linestyle="--")
            else:
                box(ax, *at, LEVEL[level], alpha=0.3 if level == "DRAM" else 0.85)
    for k, sign in enumerate(("+=", "\u00d7")):
        write(ax, 14 + size + gap / 2 + k * (size + gap), 0.4 + size / 2, sign, 14)
    ax.text(0.2, size + 0.2, loop, family="monospace", fontsize=14, va="top")
    ax.text(0.2, size - 1.3, note, fontsize=13, va="top")
    bare(ax, 0, 34.5, 0, size + 1.0)


def draw_five_loops(inp):
    b, c = inp["blocks"], inp["caches"]
    fig = new_figure(inp, 12, 13, "Step 08's five loops: mc = {}, kc = {}, nc = {} ({} kernel)".format(
        b["mc"], b["kc"], b["nc"], inp["kernel"]), size=15, y=0.985)
    legend = fig.add_axes([0.02, 0.915, 0.96, 0.035])
    spots = ([("registers", "registers")] + [(lv, "{} {}".format("L1d" if lv == "L1" else lv, kib(c[lv])))
                                             for lv in ("L1", "L2", "L3")] + [("DRAM", "memory")])
    for k, (lv, text) in enumerate(spots):
        box(legend, k * 20, 0, 3, 1, LEVEL[lv], edge="none")
        legend.text(k * 20 + 3.6, 0.5, text, va="center", fontsize=13)
    bare(legend, 0, 100, 0, 1, equal=False)
    for r, row in enumerate(loop_rows(inp)):
        loop_row(fig.add_axes([0.01, 0.745 - r * 0.166, 0.98, 0.16]), *row)
    fig.text(0.5, 0.045, "Each block coloured by the smallest cache that holds it; dashed: the part of C the loop "
             "updates. Not to scale.", ha="center", fontsize=12)
    return fig


# ---- 4. Packing: address maps and the L1 sets ------------------------------------------------

SLIVER_SHADES = ("#c2185b", "#f06292", "#00838f", "#4db6ac")   # A's two slivers, B's two


def shown(count, head=3):
    """Indices to draw of 0..count-1: all of a few, else the first `head`, a gap (None), the last."""
    return list(range(count)) if count <= head + 2 else list(range(head)) + [None, count - 1]


def address_map(ax, rows, cols, offset, shade, names, title, w=1.7):
    """Packed offsets of rows x cols (None: a gap), a path through them in the order they are read."""
    where = {}
    for r, i in enumerate(rows):
        for c, j in enumerate(cols):
            if i is None or j is None:
                write(ax, (c + 0.5) * w, -r - 0.5, "\u22ef" if i is not None else "\u22ee", 10)
                continue
            box(ax, c * w, -r - 1, w, 1, SLIVER_SHADES[shade(i, j)], edge="white", width=1.0)
            write(ax, (c + 0.5) * w, -r - 0.5, str(offset(i, j)), 10, color="white", zorder=4)
            where[offset(i, j)] = ((c + 0.5) * w, -r - 0.5)
    path, o = [], min(where, default=0)
    while o in where:
        path.append(where[o])
        o += 1
    if len(path) > 1:
        ax.plot([x for x, _ in path], [y for _, y in path], color="black", alpha=0.45, linewidth=2.5, zorder=3)
        ax.annotate("", xy=path[-1], xytext=path[-2], zorder=3,
                    arrowprops=dict(arrowstyle="-|>", color="black", alpha=0.6, linewidth=2))
    for r, i in enumerate(rows):
        write(ax, -0.15, -r - 0.5, "" if i is None else "{} = {}".format(names[0], i), 10, ha="right")
    for c, j in enumerate(cols):
        write(ax, (c + 0.5) * w, 0.15, "" if j is None else str(j), 10, va="bottom")
    write(ax, len(cols) * w / 2, 0.9, names[1], 9.5, va="bottom")
    ax.set_title(title, fontsize=10.5)
    bare(ax, -2.6, len(cols) * w + 0.3, -len(rows) - 0.4, 2.0)


def sets_hit(kc, nr, row_bytes, sets):
    """Lines of a kc x nr sliver per L1 set, its rows row_bytes apart (from a line boundary)."""
    count = [0] * sets
    for p in range(kc):
        for line in range(p * row_bytes // LINE, (p * row_bytes + nr * FLOAT - 1) // LINE + 1):
            count[line % sets] += 1
    return count


def draw_sets(ax, count, ways, what):
    ax.bar(range(len(count)), count, width=0.8, color=LEVEL["L1"])
    ax.axhline(ways, color="black", linestyle="--", linewidth=1.2)
    ax.text(len(count) - 1, ways, "a set holds {} lines".format(ways), ha="right", va="bottom", fontsize=9.5)
    ax.set(xlim=(-1, len(count)), ylim=(0, max(max(count), ways) * 1.25))
    ax.set_xlabel("L1 set", fontsize=10)
    ax.set_ylabel("lines of the sliver", fontsize=10)
    ax.set_title(what, fontsize=10.5)
    ax.tick_params(labelsize=9)


def draw_packing(inp):
    mr, nr = inp["tiles"][inp["kernel"]]
    kc, n, l1 = inp["blocks"]["kc"], inp["alias_n"], inp["caches"]["L1"]
    sets, ways = PAGE // LINE, max(1, l1 // PAGE)   # an L1 indexed within a page: one set per line of it
    fig = new_figure(inp, 12.5, 10, "Packing: the A block and the B panel copied in the order the micro-kernel reads "
                     "them (kc = {})".format(kc), y=0.985)
    a_rows = shown(mr, 4) + [None if i is None else mr + i for i in shown(mr, 2)]   # two slivers of each
    b_cols = shown(nr, 3) + [None if j is None else nr + j for j in shown(nr, 2)]
    address_map(fig.add_axes([0.0, 0.5, 0.52, 0.39]), a_rows, shown(kc, 4),
                lambda i, p: i // mr * mr * kc + p * mr + i % mr, lambda i, p: i // mr % 2, ("i", "p (depth)"),
                "packed A: slivers of MR = {} rows, each stored column by column:\n"
                "A(i, p) at sliver \u00b7 MR \u00b7 kc + p \u00b7 MR + i mod MR".format(mr))
    address_map(fig.add_axes([0.0, 0.1, 0.52, 0.34]), shown(kc, 3), b_cols,
                lambda p, j: j // nr * nr * kc + p * nr + j % nr, lambda p, j: 2 + j // nr % 2, ("p", "j (column)"),
                "packed B: slivers of NR = {} columns, each stored row by row:\n"
                "B(p, j) at sliver \u00b7 kc \u00b7 NR + p \u00b7 NR + j mod NR".format(nr), w=1.35)
    loose, packed = sets_hit(kc, nr, n * FLOAT, sets), sets_hit(kc, nr, nr * FLOAT, sets)
    used = sum(1 for c in loose if c)
    draw_sets(fig.add_axes([0.58, 0.6, 0.4, 0.22]), loose, ways, "unpacked B sliver, rows n \u00b7 4 = {} bytes "
              "apart (n = {}):\n{} lines in {} of {} sets".format(n * FLOAT, n, sum(loose), used, sets))
    draw_sets(fig.add_axes([0.58, 0.17, 0.4, 0.25]), packed, ways, "packed B sliver, rows {} bytes apart:\n"
              "{} lines spread over {} sets".format(nr * FLOAT, sum(packed), sum(1 for c in packed if c)))
    over = sum(max(0, c - ways) for c in loose)
    fig.text(0.78, 0.515, "{} lines more than {} set{} hold{}: they evict each other".format(
        over, used, plural(used), "s" * (used == 1)) if over else "no set holds more than it can", ha="center",
        fontsize=10, color=LEVEL["DRAM"] if over else "black")
    fig.text(0.5, 0.06, "The grey path: the order of the offsets, which is the order the micro-kernel reads "
             "them (one column of A and one row of B per step of p).", ha="center", fontsize=10.5)
    write(fig, 0.78, 0.885, "L1d {} = {} sets x {} ways x {}-byte lines\n(one set per line of a {}-byte page)".format(
        kib(l1), sets, ways, LINE, PAGE), 10, va="bottom")
    return fig


# ---- 5. Step 09's threads on a timeline -------------------------------------------------------

def parallel_constants(root):
    path = "steps/09_openmp/parallel_nest.cpp"
    text = read_source(root, path)
    per = re.search(r"kBlocksPerThread\s*=\s*(\d+)", text)
    least = re.search(r"kMinFlopsPerThread\s*=\s*([\d.eE+]+)", text)
    if not per or not least or "#pragma omp for schedule(dynamic)" not in text:
        raise InputError("{}: no kBlocksPerThread, kMinFlopsPerThread or dynamic omp for".format(path))
    return int(per.group(1)), float(least.group(1))


def row_blocks(n, team, mc, mr, per_thread):
    """parallel_nest.cpp's blocks of rows: (first row, rows) of each."""
    tiles = (n + mr - 1) // mr
    count = max((tiles * mr + mc - 1) // mc, team * per_thread)
    count = (count + team - 1) // team * team
    spans = [(tiles * b // count * mr, min(tiles * (b + 1) // count * mr, n)) for b in range(count)]
    return [(ic, end - ic) for ic, end in spans if end > ic]


def equal_cut(n, most, unit):
    """step08::panel_width: the width of the fewest pieces of at most `most`, equal in whole units."""
    pieces = (n + most - 1) // most
    return ((n + pieces - 1) // pieces + unit - 1) // unit * unit


def schedule(n, team, blk, tile, spans):
    """Each thread's boxes (start, length, kind, label) under schedule(dynamic), and the barriers' times.
    Computing takes its flops; packing a float is drawn as 0.3 nc flops, far more than it costs, to be seen."""
    mr, nr = tile
    panel, slice_ = equal_cut(n, blk["nc"], nr), equal_cut(n, blk["kc"], 1)   # n and k cut as the steps do
    clock, boxes, barriers = [0.0] * team, [[] for _ in range(team)], []
    pack = 0.3 * min(panel, n)

    def barrier():
        barriers.append(max(clock))
        clock[:] = [max(clock)] * team

    def run(*parts):   # (length, kind, label) back to back on the thread free first
        t = clock.index(min(clock))
        for length, kind, label in parts:
            boxes[t].append((clock[t], length, kind, label))
            clock[t] += length
    for jc in range(0, n, panel):
        nc = min(panel, n - jc)
        for pc in range(0, n, slice_):
            kc = min(slice_, n - pc)
            for jr in range(0, nc, nr):
                run((pack * kc * nr, "B", "packs B"))
            barrier()
            for b, (ic, mb) in enumerate(spans):
                run((pack * mb * kc, "A", ""), (2.0 * mb * nc * kc, "C", "b{}".format(b)))
            barrier()
    return boxes, barriers


def merged(boxes):
    """Consecutive B-packing boxes of a thread as one, labelled with how many slivers."""
    out = []
    for start, length, kind, label in boxes:
        if out and kind == "B" and out[-1][2] == "B" and abs(out[-1][0] + out[-1][1] - start) < 1e-6:
            out[-1] = (out[-1][0], out[-1][1] + length, "B", out[-1][3] + 1)
        else:
            out.append((start, length, kind, 1 if kind == "B" else label))
    return out


def draw_timeline(ax, boxes, barriers, team, pixels):
    """pixels: the axes' width on the canvas, for which labels fit in their box."""
    end = barriers[-1]
    for t in range(team):
        y = team - 1 - t
        for start, length, kind, label in merged(boxes[t]):
            box(ax, start, y + 0.1, length, 0.8, MATRIX[kind], edge="white", width=0.6)
            text = "B \u00d7{}".format(label) if kind == "B" else label
            if text and length / end * pixels > 7 * len(text) + 6:   # about 7 pixels a character
                write(ax, start + length / 2, y + 0.5, text, 9.5, color="white")
        done = [start + length for start, length, _, _ in boxes[t]]
        for bar in barriers:   # hatched: the wait from the thread's last box to the barrier
            before = max((d for d in done if d <= bar + 1e-6), default=0)
            if bar - before > end * 1e-4:
                box(ax, before, y + 0.1, bar - before, 0.8, "white", edge="#777777", width=0.6, hatch="//")
    for bar in barriers:
        ax.axvline(bar, color="black", linestyle="--", linewidth=1.3)
    names = ("barrier: the panel\nof B is packed", "barrier: nobody reads\nthe panel any more")
    for bar, text, ha in zip(barriers, names, ("left", "right")):   # the first slice's; the others are alike
        ax.text(bar, team + 0.05, text, ha=ha, va="bottom", fontsize=10)
    ax.set_yticks([team - 1 - t + 0.5 for t in range(team)])
    ax.set_yticklabels(["thread {}".format(t) for t in range(team)], fontsize=12)
    ax.set(xticks=[], xlim=(0, end * 1.01), ylim=(0, team + 0.55))
    ax.set_xlabel("time \u2192 (computing in proportion to its flops; packing drawn far wider than it takes)",
                  fontsize=11)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def draw_c_blocks(ax, boxes, spans, n):
    owner = {label: t for t, bx in enumerate(boxes) for _, _, kind, label in bx if kind == "C"}
    for b, (ic, mb) in enumerate(spans):
        t = owner.get("b{}".format(b), 0)
        box(ax, 0, n - ic - mb, n, mb, MATRIX["C"], edge="white", alpha=1.0 if t % 2 == 0 else 0.55, width=0.8)
        if len(spans) <= 40:
            write(ax, n / 2, n - ic - mb / 2, "b{}: rows {}-{}, thread {}".format(b, ic, ic + mb - 1, t),
                  7.5 if len(spans) > 16 else 9.5, color="white")
    ax.set_title("C ({0} x {0}) in blocks of rows".format(n), fontsize=11)
    bare(ax, 0, n, 0, n, equal=False)


def draw_threads(inp):
    per_thread, least = parallel_constants(inp["source"])
    n, blk = inp["threads_n"], inp["blocks09"]
    mr, nr = tile = inp["tiles"][inp["kernel"]]
    team = int(max(1, min(inp["threads"], (n + mr - 1) // mr, 2.0 * n ** 3 / least)))
    spans = row_blocks(n, team, blk["mc"], mr, per_thread)
    boxes, barriers = schedule(n, team, blk, tile, spans)
    title = ("Step 09 on {} thread{} at n = {}: threads share the ic loop, {} blocks of up to {} rows (kc = {}, "
             "nc = {})".format(team, plural(team), n, len(spans), max(m for _, m in spans), blk["kc"], blk["nc"]))
    fig = new_figure(inp, 13, 4.0 + 0.9 * team, title, size=13)
    draw_timeline(fig.add_axes([0.08, 0.31, 0.66, 0.54]), boxes, barriers, team, 0.66 * 1300)
    draw_c_blocks(fig.add_axes([0.77, 0.12, 0.22, 0.72]), boxes, spans, n)
    from matplotlib.patches import Rectangle
    for x, kind, text in ((0.08, "B", "pack B slivers (\u00d7N) into the shared panel"),
                          (0.38, "A", "pack A: the thread's own block"), (0.6, "C", "compute block bN of C")):
        fig.patches.append(Rectangle((x, 0.15), 0.015, 0.03, transform=fig.transFigure, facecolor=MATRIX[kind]))
        fig.text(x + 0.02, 0.165, text, va="center", fontsize=11)
    fig.text(0.08, 0.125, "Hatched: waiting at a barrier. Each slice of kc packs its {} B slivers, then the blocks go "
             "to whichever thread is free\n(schedule(dynamic)), about {} a thread.".format(
                 (min(n, blk["nc"]) + nr - 1) // nr, per_thread), fontsize=11, va="top")
    return fig


# ---- 6. A real step figure with its parts named -----------------------------------------------

def reading_inputs(folder):
    """Step 08's CSV (else the last step's), the one-thread references and peak.csv in `folder`."""
    try:
        files = sorted(os.listdir(folder))
    except OSError as e:
        raise InputError("{}: cannot read ({})".format(folder, e.strerror))
    steps = [f for f in files if re.match(r"step\d\d_\w+\.csv$", f) and not f.endswith("_mt.csv")]
    steps = [f for f in steps if f.startswith("step08_")] or steps[-1:]
    refs = [f for f in files if re.match(r"ref_\w+\.csv$", f) and not f.endswith("_mt.csv")]
    if not steps or "peak.csv" not in files:
        raise InputError("{}: no stepNN_*.csv or no peak.csv".format(folder))
    return [os.path.join(folder, f) for f in refs + steps], os.path.join(folder, "peak.csv")


def note(ax, text, target, at, coords="data"):
    ax.annotate(text, xy=target, xycoords=coords, xytext=at, textcoords="axes fraction", fontsize=10.5,
                ha="center", va="center", zorder=10, color="#b71c1c",
                bbox=dict(boxstyle="round,pad=0.3", facecolor="white", edgecolor="#b71c1c", linewidth=1),
                arrowprops=dict(arrowstyle="->", color="#b71c1c", linewidth=1.6, shrinkA=2, shrinkB=3))


def band_at(csv_path, n):
    with open(csv_path) as f:
        for row in csv.DictReader(f):
            if int(row["m"]) == n:
                return float(row["gflops_median"]), float(row["gflops_best"])
    raise InputError("{}: no row at n = {}".format(csv_path, n))


def grow(fig, inches):
    """The figure `inches` taller at the foot, its axes and legend (in figure coordinates) kept in place."""
    w, h = fig.get_size_inches()
    fig.canvas.draw()
    legends = [(ax.get_legend(), ax.get_legend().get_bbox_to_anchor().y0 / fig.dpi) for ax in fig.axes
               if ax.get_legend() is not None]
    fig.set_size_inches(w, h + inches)
    for ax in fig.axes:
        box_ = ax.get_position()
        ax.set_position([box_.x0, (box_.y0 * h + inches) / (h + inches), box_.width, box_.height * h / (h + inches)])
    for legend, y in legends:
        legend.set_bbox_to_anchor((0.5, (y + inches) / (h + inches)), transform=fig.transFigure)


def name_parts(ax, csv_path):
    """Notes on plot_gflops.py's step curve, its band, an unsettled point, a library, the peak, the % axis."""
    lines = ax.get_lines()
    steps = [a for a in lines if re.match(r"\d\d_", a.get_label())]
    peaks = [a for a in lines if "peak" in a.get_label()]
    if not steps or not peaks:
        raise InputError("the step figure has no step curve or no peak line to name")
    libs = [a for a in lines if a.get_label().startswith("ref_")]
    loose = [a for a in lines if "unsettled" in a.get_label() and a.get_markeredgecolor() == steps[0].get_color()
             and len(a.get_xdata())]
    xs, ys = list(steps[0].get_xdata()), list(steps[0].get_ydata())
    k = 2 * len(xs) // 3
    note(ax, "the curve: the best sample\nat each size", (xs[k], ys[k]), (0.6, 0.3))
    widest = max(range(k, len(xs)), key=lambda i: ys[i] - band_at(csv_path, int(xs[i]))[0])
    low, high = band_at(csv_path, int(xs[widest]))
    note(ax, "the band: down to\nthe median sample", (xs[widest], (low + high) / 2), (0.87, 0.3))
    if loose:
        lx, ly = list(loose[0].get_xdata()), list(loose[0].get_ydata())
        j = min(range(len(lx)), key=lambda i: ly[i] if xs[2] <= lx[i] <= xs[len(xs) // 2] else 1e30)
        note(ax, "an unsettled point (hollow):\nits samples disagree", (lx[j], ly[j]), (0.22, 0.22))
    bottom, top = ax.get_ylim()
    near_top = (top * 0.965 - bottom) / (top - bottom)
    if libs:
        lib = sorted(libs, key=lambda a: "openblas" not in a.get_label())[0]
        q = 5 * len(lib.get_xdata()) // 7
        note(ax, "a library's line: {}".format(drawing.literal(lib.get_label().split(":")[0])),
             (lib.get_xdata()[q], lib.get_ydata()[q]), (0.75, near_top))
    note(ax, "the peak line: the measured peak\nof the ISA the step runs",
         (xs[len(xs) // 3], peaks[0].get_ydata()[0]), (0.3, near_top))
    if ax.child_axes:
        note(ax, "right-hand axis: the same\nheight in % of that peak", (1.0, 0.2), (0.82, 0.07),
             coords="axes fraction")


def draw_reading_plots(inp):
    import plot_gflops
    try:
        csvs, peak = reading_inputs(inp["data"])
    except InputError as e:
        if os.path.abspath(inp["data"]) == DEFAULT_DATA:
            raise
        print("concepts.py: reading_plots: {}: drawn from {} instead".format(e, os.path.relpath(DEFAULT_DATA, ROOT)))
        csvs, peak = reading_inputs(DEFAULT_DATA)
    fig = plot_gflops.render(plot_gflops.parse(csvs + ["--peak", peak, "-o", "unused.png"]))
    name_parts(fig.axes[0], csvs[-1])
    grow(fig, 0.4)
    where = os.path.dirname(os.path.abspath(csvs[-1]))
    write(fig, 0.5, 0.006, "Drawn by plots/plot_gflops.py from the run in {}{}, then named.".format(
        os.path.relpath(where, ROOT) if where.startswith(ROOT + os.sep) else where,
        " (a Zen 3, the AVX2 laptop class)" if where == DEFAULT_DATA else ""), 10, va="bottom", color="#444444")
    return fig


# ---- The command line ---------------------------------------------------------------------------

def figures(args):
    """{name: figure} of the pictures asked for (tests look inside them)."""
    inp = inputs(args)
    inp["registers"] = {isa: kernel_registers(args.source, isa, inp["tiles"].get(isa))
                        for isa in REGISTER_FILES.values()}
    draw = {"step01_walk": draw_walk, "five_loops": draw_five_loops, "packing": draw_packing,
            "threads": draw_threads, "reading_plots": draw_reading_plots}
    wanted = [n for n in args.only if inp["kernel"] or n not in BLOCKED]
    for name in sorted(set(args.only) - set(wanted)):
        print("concepts.py: no {}.png: step 08 runs no kernel on this CPU".format(name))
    return {name: draw_register_file(inp, REGISTER_FILES[name]) if name in REGISTER_FILES else draw[name](inp)
            for name in wanted}


def names(text):
    chosen = [t.strip() for t in text.split(",") if t.strip()]
    unknown = [t for t in chosen if t not in NAMES]
    if unknown or not chosen:
        raise argparse.ArgumentTypeError("'{}': not one of {}".format(",".join(unknown) or text, ", ".join(NAMES)))
    return chosen


def positive(text):
    if not text.isdigit() or not 1 <= int(text) <= 46340:
        raise argparse.ArgumentTypeError("'{}': a whole number from 1 to 46340".format(text))
    return int(text)


def parse(argv):
    parser = cli.Parser(prog="concepts.py",
                        description="Draws the tutorial's concept pictures from the code's numbers.")
    parser.add_argument("--out", required=True, help="folder the PNGs are written to (made if missing)")
    parser.add_argument("--cpuinfo-bin", default=os.path.join(ROOT, "build", "bin", "cpuinfo"),
                        help="the cpuinfo executable whose --json gives the caches and blocks (default: %(default)s)")
    parser.add_argument("--machine", help="a saved cpuinfo --json instead of running it (results/machine.json)")
    parser.add_argument("--kernel", help="step 08's kernel to draw for (default: the one cpuinfo says runs here)")
    parser.add_argument("--only", type=names, default=list(NAMES), help="NAME,... of: " + ", ".join(NAMES))
    for option, default, what in (("--threads-n", 512, "matrix size of threads.png"),
                                  ("--alias-n", 1024, "leading dimension of the unpacked B sliver of packing.png"),
                                  ("--threads", 2, "threads of threads.png"),
                                  ("--walk-n", 32, "matrix size of step01_walk.png")):
        parser.add_argument(option, type=positive, default=default, help="{} (default {})".format(what, default))
    parser.add_argument("--drawn-for", help="who the caption says the pictures are drawn for")
    parser.add_argument("--source", default=ROOT, help="the source tree the tiles are read from")
    parser.add_argument("--data", default=DEFAULT_DATA,
                        help="folder of the step CSVs, references and peak.csv of reading_plots.png (results/; "
                             "default: a Zen 3 run, %(default)s)")
    args = parser.parse_args(argv)
    if args.machine and args.cpuinfo_bin == parser.get_default("cpuinfo_bin"):
        args.cpuinfo_bin = None   # no step run for other blocks unless --cpuinfo-bin was given
    return args


def main(argv):
    args = parse(argv)

    def body():
        paths = {name: os.path.join(args.out, name + ".png") for name in args.only}
        output_file.make_folder(paths[args.only[0]])   # --out, made if missing
        for path in paths.values():
            output_file.check(path)
        for name, fig in figures(args).items():
            drawing.save(fig, paths[name])
            print("   concept: " + paths[name])
        return 0
    return drawing.run("concepts.py", body)


if __name__ == "__main__":
    cli.main_of(main, "concepts.py")
