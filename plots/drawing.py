"""What every figure script shares: its command line, inputs read once, one look per series and ceiling,
titles, a layout that keeps all on the canvas, the output checked first and written whole, and one exit
status (0; 2 bad input, one line naming the file; 3 no matplotlib, or the output cannot be written).
"""
import argparse
import copy
import io
import math
import os
import sys
import textwrap
import zlib

import cli
import output_file
import samples
from harness_csv import MAX_SIZE, InputError, load_machine, load_peak, load_run, step_number
from output_file import OutputError


class NoMatplotlib(Exception):
    pass


def pyplot():
    try:
        import matplotlib
    except ImportError:
        raise NoMatplotlib("{} cannot import matplotlib (Debian/Ubuntu: apt-get install "
                           "python3-matplotlib, and run /usr/bin/python3)".format(sys.executable))
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"font.size": 12, "axes.titlesize": 13, "legend.fontsize": 10})
    return plt


def plain_numbers(*axes):
    """Log axes labelled 1, 10, 100 rather than 10^0, 10^1, 10^2."""
    from matplotlib.ticker import FuncFormatter
    for axis in axes:
        axis.set_major_formatter(FuncFormatter(lambda v, _: "{:g}".format(v)))


# A step keeps its colour in every figure (keyed by its number, so a renamed slug keeps it) and no library
# shares one with a step; other series get an EXTRA_COLOURS by a checksum of the name, the same in every
# process (hash() is not).
STEP_COLOURS = {1: "#1f77b4", 2: "#ff7f0e", 3: "#2ca02c", 4: "#d62728", 5: "#9467bd", 6: "#8c564b",
                7: "#e377c2", 8: "#17becf", 9: "#bcbd22", 10: "#393b79"}
LIBRARY_COLOURS = {"ref_openblas": "#7f7f7f", "ref_blis": "#a6761d"}
EXTRA_COLOURS = ("#637939", "#843c39", "#7b4173", "#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363")
MARKERS = {"ref_openblas": "s", "ref_blis": "D"}   # steps: "o"
# Ceilings (measured peaks): black, a dash pattern per ISA; all cores the same pattern twice as thick.
CEILING_DASHES = {"scalar": (0, (1, 2)), "sse": (0, (5, 2, 1, 2)), "avx": (0, (3, 2)),
                  "avx2": (0, (8, 3)), "avx512": (0, (8, 2, 1, 2, 1, 2)), "neon": (0, (4, 4))}


def series_colour(step):
    """The colour of a step (by its number) or library (its `step` column) in every figure."""
    return STEP_COLOURS.get(step_number(step)) or LIBRARY_COLOURS.get(step) or \
        EXTRA_COLOURS[zlib.crc32(str(step).encode()) % len(EXTRA_COLOURS)]


def series_marker(step):
    return MARKERS.get(step, "o")


def ceiling_style(isa, all_cores=False):
    return {"color": "black", "linestyle": CEILING_DASHES.get(isa, (0, (2, 1))),
            "linewidth": 2.6 if all_cores else 1.3}


def peak_line(ax, isa, threads, gflops, label, **style):   # a measured peak, thick on all cores
    ax.axhline(gflops, **ceiling_style(isa, threads > 1), label=label, **style)


def image_format(path):   # None: matplotlib's default, PNG
    return os.path.splitext(path)[1].lower().lstrip(".") or None


def check_output(path):
    """Refuses, before any work, an output in no format matplotlib has (InputError) or not writable."""
    pyplot()   # no matplotlib: NoMatplotlib before anything else
    from matplotlib.backend_bases import FigureCanvasBase
    ext = image_format(path)
    if ext and ext not in FigureCanvasBase.get_supported_filetypes():
        raise InputError("{}: cannot write a '.{}' image (use .png, .svg or .pdf)".format(path, ext))
    output_file.check(path)


def save(fig, path):
    image = io.BytesIO()
    fig.savefig(image, format=image_format(path))
    output_file.write(path, image.getvalue())


def literal(text):
    """Text from a file drawn as written, not as mathtext (a stray '$\\frac{$' would stop the figure)."""
    return str(text).replace("$", r"\$")


def threads_text(counts):   # '1 thread', '2 threads', '1 and 2 threads'
    counts = sorted(set(counts))
    words = " and ".join(str(c) for c in counts) if len(counts) <= 2 else \
        ", ".join(str(c) for c in counts[:-1]) + " and " + str(counts[-1])
    return "{} thread{}".format(words, "" if counts == [1] else "s")


MACHINE_CHARS = 48   # a CPU brand string's longest: a longer name is cut, to stay on the canvas
TITLE_CHARS = 80


def title(what, threads, machine, wrap=False):
    """'<what> - <threads> - <machine>', the last two on a line of their own when `wrap` or too long."""
    machine = str(machine)
    if len(machine) > MACHINE_CHARS:
        machine = machine[:MACHINE_CHARS - 3] + "..."
    wrap = wrap or len(str(what)) + len(threads_text(threads)) + len(machine) + 6 > TITLE_CHARS
    return "{}{}{} \u2014 {}".format(
        literal(what), "\n" if wrap else " \u2014 ", threads_text(threads), literal(machine))


# Layout: a legend's labels wrap at LEGEND_CHARS, it takes as many columns as fit, and the canvas grows
# until the axes hold AXES_SHARE of it (the tests ask for 60 %; a little over, for a renderer's rounding).
AXES_SHARE = 0.62
LEGEND_CHARS = 34
LEGEND_STYLE = {"fontsize": 9, "frameon": False, "handlelength": 2.2, "columnspacing": 1.4,
                "labelspacing": 0.35, "borderaxespad": 0.0}


def wrapped(text, chars=LEGEND_CHARS):
    """`text` in lines of at most `chars`, at spaces, a longer word broken within itself."""
    return "\n".join(textwrap.fill(line, chars, break_long_words=True, break_on_hyphens=False)
                     for line in str(text).split("\n"))


def legend_below(fig, ax, handles, labels):
    """These entries as ax's legend below the axes, in as many columns as fit; fit() places it."""
    labels = [wrapped(label) for label in labels]
    renderer = fig.canvas.get_renderer()
    room = fig.get_figwidth() * fig.dpi * 0.97
    columns = len(handles)
    while True:
        legend = ax.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 0.0),
                           bbox_transform=fig.transFigure, ncol=max(1, columns), **LEGEND_STYLE)
        legend.set_in_layout(False)
        if columns <= 1 or legend.get_window_extent(renderer).width <= room:
            return legend
        columns -= 1


def grown(width, height, axes, share):
    """The smallest canvas at which `axes`, their margins fixed (text is sized in inches), hold `share`
    of it: taller only, or both sides by one factor f (the larger root of (fW - Mw)(fH - Mh) = s f^2 W H).
    The axes' widths are summed over their columns, their heights over their rows."""
    boxes = [ax.get_position() for ax in axes]
    columns = {round(b.x0, 3): b.width for b in boxes}
    rows = {round(b.y0, 3): b.height for b in boxes}
    wide, tall = sum(columns.values()) * width, sum(rows.values()) * height
    filled = sum(b.width * b.height for b in boxes) * width * height / (wide * tall)   # 1: a full grid
    share = min(0.95, share / filled)
    side, foot = width - wide, height - tall
    a, b, c = width * height * (1.0 - share), width * foot + height * side, side * foot
    f = (b + math.sqrt(max(0.0, b * b - 4 * a * c))) / (2 * a)
    sizes = [(width * f, height * f)]
    if wide > share * width:
        sizes.append((width, wide * foot / (wide - share * width)))
    return min(sizes, key=lambda s: s[0] * s[1])


def head(fig):
    """The share of the canvas's height the figure title takes (tight_layout leaves it out)."""
    title = fig._suptitle
    if title is None or not title.get_text().strip():
        return 0.0
    height = fig.get_figheight()
    title.set_y(1.0 - 0.08 / height)
    title.set_verticalalignment("top")
    return (title.get_window_extent(fig.canvas.get_renderer()).height / fig.dpi + 0.15) / height


def fit(fig, legend=None):
    """tight_layout above `legend` (at the canvas's foot), the canvas grown until the axes hold AXES_SHARE."""
    for attempt in range(6):
        width, height = fig.get_size_inches()
        foot = 0.0
        if legend is not None:
            foot = (legend.get_window_extent(fig.canvas.get_renderer()).height / fig.dpi + 0.15) / height
            legend.set_bbox_to_anchor((0.5, 0.06 / height), transform=fig.transFigure)
        fig.tight_layout(rect=(0, foot, 1, 1 - head(fig)))
        if attempt == 5:
            return
        fig.canvas.draw()   # the axes as drawn: a colorbar is placed by a draw
        axes = [ax for ax in fig.axes if ax.get_visible()]
        if sum(ax.get_position().width * ax.get_position().height for ax in axes) >= AXES_SHARE:
            return
        size = grown(width, height, axes, AXES_SHARE + 0.01)
        fig.set_size_inches(min(40.0, size[0]), min(40.0, max(height * 1.02, size[1])))


def matrix_size(text):
    try:
        size = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("'{}': not a whole number".format(text))
    if not 1 <= size <= MAX_SIZE:
        raise argparse.ArgumentTypeError("'{}': a size is from 1 to {} (the harness's kMaxSize)".format(text, MAX_SIZE))
    return size


def parser(description, csv_help, many=False):
    p = cli.Parser(description=description)
    p.add_argument("csv", nargs="+" if many else None, help=csv_help)
    return p


def parse(p, argv, at=False, machine="the CSV", title=True):
    """argv parsed with the shared options: --at, --machine (beside `machine`; None: none), --title, -o."""
    if at:
        p.add_argument("--at", type=matrix_size, default=1000, help="matrix size (default 1000; the nearest measured)")
    if machine:
        p.add_argument("--machine", help="machine.txt for the title (default: the one beside {})".format(machine))
    if title:
        p.add_argument("--title", help="what the figure shows (thread count and CPU are added)")
    p.add_argument("-o", "--output", required=True, help="image file to write (.png, .svg or .pdf)")
    return p.parse_args(argv)


class Inputs:
    """The files figures read, each read and checked once (make_figures.py shares one); each caller gets a copy."""

    def __init__(self):
        self._read = {}

    def read(self, load, path):
        key = (load.__module__, load.__qualname__, os.path.abspath(path))
        if key not in self._read:
            self._read[key] = load(path)
        return copy.deepcopy(self._read[key])

    def runs(self, paths):
        return [self.read(load_run, p) for p in paths]

    def peak(self, path):   # {} without a path
        return self.read(load_peak, path) if path else {}

    def samples(self, csv_path):
        return self.read(samples.samples_beside, csv_path)

    def machine(self, path, beside):   # machine.txt: `path`, else the one beside `beside`
        return load_machine(path or os.path.join(os.path.dirname(os.path.abspath(beside)), "machine.txt"))


def draw(render, args, inputs=None):
    check_output(args.output)
    fig = render(args) if inputs is None else render(args, inputs)
    try:
        save(fig, args.output)
    finally:
        pyplot().close(fig)
    return 0


def figure_main(name, parse, render, argv):
    args = parse(argv)
    return run(name, lambda: draw(render, args))


def script(module, name, parse, render):
    """A one-figure script's main(argv) (figure_main); run when `module` is "__main__" (cli.main_of)."""
    def main(argv):
        return figure_main(name, parse, render, argv)
    if module == "__main__":
        cli.main_of(main, name)
    return main


def status_of(body):
    """(status, message) of body() (0 or 1), its errors as 2 (bad input) or 3 with their one line."""
    try:
        return body(), None
    except InputError as e:
        return 2, str(e)
    except (NoMatplotlib, OutputError) as e:
        return 3, str(e)


def run(name, body):
    status, message = status_of(body)
    if message is not None:
        print("{}: {}".format(name, message), file=sys.stderr)
    return status
