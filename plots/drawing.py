"""What every figure script shares: matplotlib set up the same way, titles that name the
step, the thread count and the microarchitecture, the output file checked before any work,
and one exit-status convention (0; 2 bad input, one line naming the file; 3 no matplotlib).
"""
import argparse
import os
import sys

from harness_csv import InputError


class NoMatplotlib(Exception):
    pass


def pyplot():
    """matplotlib.pyplot on the Agg backend, in the tutorial's style."""
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
    """Log-scale axes labelled 1, 10, 100 rather than 10^0, 10^1, 10^2."""
    from matplotlib.ticker import FuncFormatter
    for axis in axes:
        axis.set_major_formatter(FuncFormatter(lambda v, _: "{:g}".format(v)))


def check_output(path):
    """Refuses an output whose format matplotlib cannot write (out.xyz), before any work."""
    plt = pyplot()
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    formats = plt.figure().canvas.get_supported_filetypes()
    plt.close("all")
    if ext and ext not in formats:
        raise InputError("{}: cannot write a '.{}' image (use .png, .svg or .pdf)".format(path, ext))


def save(fig, path):
    try:
        fig.savefig(path)
    except OSError as e:
        raise InputError("{}: cannot write ({})".format(path, e.strerror))


def threads_text(counts):
    """'1 thread', '2 threads', '1 and 2 threads'."""
    counts = sorted(set(counts))
    words = " and ".join(str(c) for c in counts) if len(counts) <= 2 else \
        ", ".join(str(c) for c in counts[:-1]) + " and " + str(counts[-1])
    return "{} thread{}".format(words, "" if counts == [1] else "s")


def title(what, threads, machine, wrap=False):
    """'<what> - <threads> - <machine>': every figure says what it shows, on how many
    threads, on which microarchitecture (wrap: the last two on a line of their own)."""
    return "{}{}{} \u2014 {}".format(what, "\n" if wrap else " \u2014 ", threads_text(threads), machine)


def matrix_size(text):
    """argparse type of --at: a matrix size, a whole number of at least 1."""
    try:
        size = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("'{}': not a whole number".format(text))
    if size < 1:
        raise argparse.ArgumentTypeError("a size must be at least 1")
    return size


def figure_main(name, parse, render, argv):
    """The main() of a script that draws one figure: parse argv, render, save to
    args.output, errors as run() turns them into exit codes."""
    args = parse(argv)

    def body():
        check_output(args.output)
        save(render(args), args.output)
        return 0
    return run(name, body)


def run(name, body):
    """Calls body() and turns its errors into the exit status; body returns 0 or 1."""
    try:
        return body()
    except InputError as e:
        print("{}: {}".format(name, e), file=sys.stderr)
        return 2
    except NoMatplotlib as e:
        print("{}: {}".format(name, e), file=sys.stderr)
        return 3
