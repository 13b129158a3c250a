#!/usr/bin/env python3
"""Draw the tutorial's whole figure set and summary.md from the CSVs in results/ (run_all.sh calls this).

    make_figures.py [--results DIR] [--steps 5,7] [--at N] [--docs DIR] [--compiler TEXT]
                    [--flags TEXT]

In DIR: step<slug>.png (each step against the one before it on as many threads), overlay.png,
overlay_log.png, overlay_mt.png, staircase.png, roofline.png and scaling.png (these three at n = --at),
bandwidth.png, blockmap_<step>.png and summary.md (plots/summary.py); --docs DIR copies the figures too.
A figure whose inputs are missing is left out with a line. Each is drawn in this process by its plot
script's render(), every input read once. Exit 1 a figure failed, 2 usage error or bad input, 3 DIR or
--docs cannot take the files (checked first) or no matplotlib, 130 Ctrl-C (each figure whole or not at all).
"""
import glob
import importlib
import inspect
import itertools
import os
import sys
from types import SimpleNamespace

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cli  # noqa: E402  (plots/cli.py: one-line usage errors)
import drawing  # noqa: E402  (plots/drawing.py: the figures' inputs, drawing and saving)
import output_file  # noqa: E402
import summary  # noqa: E402  (plots/summary.py, next to this file)
from harness_csv import MAX_SIZE, InputError, best_peak, load_bandwidth, step_number  # noqa: E402
from output_file import OutputError  # noqa: E402

PROG = "make_figures.py"


def paths_of(runs):
    """The CSV files of these runs, each once, in order (a CSV with two thread counts is two runs)."""
    return list(dict.fromkeys(r["path"] for r in runs))


def parse(argv):
    parser = cli.Parser(prog=PROG, description="The figure set and summary.md from results/.")
    parser.add_argument("--results", type=cli.name, default=os.path.join(os.path.dirname(HERE), "results"))
    parser.add_argument("--steps", help="only these step numbers, e.g. 5,7")
    parser.add_argument("--at", type=int, default=1000,
                        help="matrix size of the staircase, roofline and scaling figures (default 1000)")
    parser.add_argument("--docs", type=cli.name, help="also copy the figures to this folder")
    parser.add_argument("--compiler", help="for summary.md")
    parser.add_argument("--flags", help="for summary.md")
    return parser.parse_args(argv)


def read_results(args, inputs):
    """What the figures are drawn from, every input read and checked before any is drawn."""
    results = args.results
    path = lambda name: os.path.join(results, name)  # noqa: E731
    found = SimpleNamespace(results=results, path=path, has=lambda name: os.path.exists(path(name)),
                            wanted=summary.parse_steps(args.steps))
    if not 1 <= args.at <= MAX_SIZE:   # the plot scripts' limit: theirs would be two lines of usage each
        raise InputError("--at '{}': a size is from 1 to {}".format(args.at, MAX_SIZE))
    if not os.path.isdir(results):
        raise InputError("{}: no such folder".format(results))
    runs = summary.collect(results, inputs=inputs)
    found.every_step = [r for r in runs if r["number"] is not None]
    found.refs = [r for r in runs if r["number"] is None and os.path.basename(r["path"]).startswith("ref_")]
    found.peak = inputs.peak(path("peak.csv")) if found.has("peak.csv") else None
    if found.has("bandwidth.csv"):
        inputs.read(load_bandwidth, path("bandwidth.csv"))
    found.scaling = sorted(glob.glob(path(os.path.join("scaling", "*.csv"))))
    inputs.runs(found.scaling)
    known = found.every_step + found.refs
    for csv in paths_of(known):   # before drawing, not in summary.md's turn
        inputs.samples(csv)
    if found.wanted is not None and not any(r["number"] in found.wanted for r in found.every_step):
        raise InputError("--steps {}: no CSV of these steps in {}".format(args.steps, results))
    found.steps = [r for r in found.every_step if found.wanted is None or r["number"] in found.wanted]
    if not found.steps and not found.refs:
        raise InputError("{}: no step or reference CSV to draw".format(results))
    # Figures take whole CSVs, by the most threads they ran (a parallel step runs small sizes on fewer).
    found.most = {p: max(r["threads"] for r in known if r["path"] == p) for p in paths_of(known)}
    found.machine = ["--machine", path("machine.txt")] if found.has("machine.txt") else []
    return found


def check_outputs(args):
    """The folders must take the files before anything is drawn (OutputError)."""
    output_file.check(os.path.join(args.results, "summary.md"))
    if args.docs:
        try:
            os.makedirs(args.docs, exist_ok=True)
        except OSError as e:
            raise OutputError("cannot write {}: {}".format(args.docs, e.strerror))
        output_file.check(os.path.join(args.docs, "overlay.png"))


def leave_out(out, why):   # a figure whose inputs are not there
    print("{}: no {}: {}".format(PROG, out, why))


def peak_for(found, out, threads):
    """--peak when peak.csv has a row for `threads`; else say the line is left out."""
    if found.peak is None:
        return []
    if best_peak(found.peak, threads) is None:
        print("{}: {}: no fp32 peak for {} thread(s) in peak.csv: drawn without the peak line".format(
            PROG, out, threads))
        return []
    return ["--peak", found.path("peak.csv")]


def step_figures(found):
    """One figure per step CSV, against the last step before it on one thread or on several as
    this one ran (10 against 08, 10_mt against 09), else the one just before (09 against 08)."""
    number_of = {r["path"]: r["number"] for r in found.every_step}
    every_path = paths_of(found.every_step)
    for csv in paths_of(found.steps):
        before = [p for p in every_path if number_of[p] < number_of[csv]]
        alike = [p for p in before if (found.most[p] > 1) == (found.most[csv] > 1)]
        csvs = ([(alike or before)[-1]] if before else []) + [csv]
        name = os.path.splitext(os.path.basename(csv))[0] + ".png"
        yield name, "plot_gflops", csvs + peak_for(found, name, max(found.most[p] for p in csvs))


def overlays(found):
    """overlay.png and overlay_log.png of the one-thread runs, overlay_mt.png of the others."""
    paths = paths_of(found.steps) + paths_of(found.refs)
    one = [p for p in paths if found.most[p] == 1]
    if one:
        title = ["--title", "Every step and the BLAS libraries"]
        yield "overlay.png", "plot_gflops", one + peak_for(found, "overlay.png", 1) + title
        yield "overlay_log.png", "plot_gflops", one + peak_for(found, "overlay_log.png", 1) + ["--log"] + title
    multi = [p for p in paths if found.most[p] > 1]
    if not multi:
        leave_out("overlay_mt.png", "no multi-threaded CSV (steps 09 and 10, ref_*_mt)")
        return
    threads = max(found.most[p] for p in multi)
    same = [p for p in multi if found.most[p] == threads]
    yield "overlay_mt.png", "plot_gflops", same + peak_for(found, "overlay_mt.png", threads) + [
        "--title", "Multi-threaded, against the all-core peak"]


def machine_figures(found, at):
    """The staircase and the roofline of the steps; the bandwidth, scaling and block maps."""
    path, has = found.path, found.has
    size = ["--at", str(at)]
    if found.steps:
        yield "staircase.png", "plot_staircase", paths_of(found.steps + found.refs) + size + (
            ["--peak", path("peak.csv")] if found.peak else [])
        missing = [f for f in ("peak.csv", "bandwidth.csv", "machine.json") if not has(f)]
        if missing:
            leave_out("roofline.png", "no " + " or ".join(missing) + " in " + found.results)
        else:
            yield "roofline.png", "plot_roofline", paths_of(found.steps) + size + [
                "--peak", path("peak.csv"), "--bandwidth", path("bandwidth.csv"), "--cpuinfo", path("machine.json")]
    if has("bandwidth.csv"):
        yield "bandwidth.png", "plot_bandwidth", [path("bandwidth.csv")] + (
            ["--cpuinfo", path("machine.json")] if has("machine.json") else [])
    else:
        leave_out("bandwidth.png", "no bandwidth.csv (build/bin/bandwidth --csv results/bandwidth.csv)")
    if found.scaling and found.peak:
        yield "scaling.png", "plot_scaling", found.scaling + size + ["--peak", path("peak.csv")]
    else:
        leave_out("scaling.png", "no scaling/*.csv" if not found.scaling else "no peak.csv")
    for csv in sorted(glob.glob(path("blockmap_*.csv"))):
        slug = os.path.basename(csv)[len("blockmap_"):-len(".csv")]
        number = step_number(slug[len("step"):]) if slug.startswith("step") else None
        if found.wanted is None or number in found.wanted:
            yield "blockmap_{}.png".format(slug), "plot_blockmap", [csv]


def draw(target, script, argv, inputs):
    """One figure by its plot module's render(), in this process: (status, message); (0, None): written."""
    module = importlib.import_module(script)
    try:
        args = module.parse(argv + ["-o", target])
    except SystemExit as e:   # argparse's, on arguments built above: a bug here
        return 1, "its arguments refused (exit {})".format(e.code)
    shares = "inputs" in inspect.signature(module.render).parameters
    try:
        return drawing.status_of(lambda: drawing.draw(module.render, args, inputs if shares else None))
    except Exception as e:   # a bug in one plot script: that figure fails, the others are drawn
        return 1, "{}: {}".format(type(e).__name__, e)


def draw_all(found, at, inputs):
    """Every planned figure: (the files made, the gravest status, worse()'s)."""
    made, failed = [], 0
    for out, script, argv in itertools.chain(step_figures(found), overlays(found), machine_figures(found, at)):
        target = found.path(out)
        status, message = draw(target, script, argv + found.machine, inputs)
        failed = worse(failed, status)
        if status != 0:
            print("{}: {}: {}.py: {}".format(PROG, target, script, message), file=sys.stderr)
        else:
            print("   figure: " + target)
            made.append(target)
    return made, failed


def copy_to(folder, made):
    """The figures made, copied into `folder` (OutputError when one cannot be read or written)."""
    for figure in made:
        try:
            with open(figure, "rb") as f:
                image = f.read()
        except OSError as e:
            raise OutputError("{}: cannot read ({})".format(figure, e.strerror))
        output_file.write(os.path.join(folder, os.path.basename(figure)), image)
    print("   copied {} figure(s) to {}".format(len(made), folder))


def main(argv):
    args, inputs = parse(argv), drawing.Inputs()
    try:
        found = read_results(args, inputs)
        check_outputs(args)
    except (InputError, OutputError) as e:   # bad input: 2; a folder that cannot take the files: 3
        print("{}: {}".format(PROG, e), file=sys.stderr)
        return 2 if isinstance(e, InputError) else 3
    made, failed = draw_all(found, args.at, inputs)
    # summary.write returns summary.md's text, never empty: 0 once it is written
    status = drawing.run(PROG, lambda: summary.write(
        args.results, args.steps, {"compiler": args.compiler, "flags": args.flags}, inputs=inputs) and 0)
    if status == 0:
        print("   summary: " + found.path("summary.md"))
    if args.docs and made and drawing.run(PROG, lambda: copy_to(args.docs, made) or 0) != 0:
        return 3
    return worse(failed, status)


def worse(status, rc):
    """The status after a figure's exit `rc`: 3 over 2 over 1, any other code as 1, 0 as nothing."""
    return max(status, rc if rc in (0, 2, 3) else 1)


if __name__ == "__main__":
    cli.main_of(main, PROG, "; the figures drawn so far are whole, the others as they were")
