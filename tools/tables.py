#!/usr/bin/env python3
"""The statistics and markdown tables of tools/bench_vs_openblas.sh, tools/ablation.sh and
tools/grade.sh (docs/contracts.md): the scripts run the programs, this reads what they wrote.

    tables.py bench SAMPLES NCPU SIZES BLIS [--busy DIR] [PEAK.csv ...]
    tables.py ablation-csv FOLDER < RUNS
    tables.py ablation-report CSV
    tables.py grade RUNS SIZES ROUNDS THIS PREV REF RC CSV
    tables.py side-by-side NCPU COPY.csv...

bench: from tools/interleave.py's SAMPLES/LABEL.csv, the peak CSVs' widest ISA and --busy's
DIR/LABEL.SIZE.ROUND.csv. ablation-csv: ablation.csv (to standard output) from the runs (on
standard input, `study|label|step and options` a line) and FOLDER/I.ROUND.csv (I: the run's line
from 0). ablation-report: an ablation CSV's tables, checked whole first (plots/plot_ablation.py).
grade: the verdict on THIS from tools/interleave.py's RUNS/interleave.err and .log (its exit status RC), then
THIS over PREV and REF (either may be "") per size from RUNS/timed/samples, the CSV to RUNS/ratios.csv, the
notes, table and PASS line (CSV: the sweep's) to standard output; a FAIL or SKIP line and grade.sh's status
when THIS was not timed. side-by-side: side_by_side.sh's CSV. A file that is not what it should be: one line,
exit 2.
"""
import collections
import csv
import glob
import math
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "plots"))
import output_file  # noqa: E402,F401  (a reader that stops early ends us by SIGPIPE)
import samples  # noqa: E402  (plots/samples.py: medians and paired ratios)
from harness_csv import InputError, printable  # noqa: E402

ISA_ORDER = ("avx512", "avx2", "neon", "avx", "sse", "scalar")   # the widest first
PAIRED = (("step10", "openblas1"), ("step10_avx2", "openblas_avx2"),
          ("step10N", "openblasN"), ("step10_avx2N", "openblas_avx2N"))
BUSY_SIZES = (100, 200, 400, 1000)


def cell(x):
    return "-" if x is None else "%.1f" % x


def ratio(a, b):
    return "-" if a is None or not b else "%.2f" % (a / b)


def percent(x, peak):
    return "-" if x is None or not peak else "%.0f%%" % (100 * x / peak)


def median_of(values):
    return samples.median(values) if values else None


def fmt(form, x):
    return "" if x is None else form % x


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


# ---- bench_vs_openblas.sh ----------------------------------------------------------------------

class Bench:
    def __init__(self, folder, ncpu, sizes, blis):
        self.ncpu, self.sizes, self.blis = ncpu, sizes, blis
        self.best, self.kernel, rows = {}, collections.defaultdict(str), {}
        for path in sorted(glob.glob(os.path.join(folder, "*.csv"))):
            label = os.path.basename(path)[:-4]
            rows[label] = read_csv(path)
            for row in rows[label]:
                key, value = (label, int(row["m"])), float(row["gflops_best"])
                self.best[key] = max(self.best.get(key, value), value)
                self.kernel[label] = row.get("kernel", "")
        self.pairs = {}   # step 10's median paired ratio to OpenBLAS, as summary.md takes them
        for ours, ref in PAIRED:
            found = samples.paired_ratios(rows.get(ours, []), rows.get(ref, []), same_threads=False)
            for (size, _), pair in found.items():
                self.pairs[(ours, ref, size)] = pair[0]

    def g(self, label, size):
        return self.best.get((label, size))

    def paired(self, ours, ref, size):
        pair = self.pairs.get((ours, ref, size))
        return "%.2f" % pair if pair is not None else ratio(self.g(ours, size), self.g(ref, size))

    def table(self, title, heads, labels, ceil, isa=None, peak=None, name=None):
        """OpenBLAS, BLIS and step 10 (`heads`: their columns) and step 10's ratios; with `name`,
        % of the peak and the lesson (labels[3]); with `ceil`, the side-by-side ceiling."""
        ob, bl, ours = labels[:3]
        cols = list(heads) + ["vs OpenBLAS", "vs OpenBLAS, median of rounds", "vs BLIS"]
        if name:
            cols += ["% of {} peak".format(isa), name, name + " vs OpenBLAS"]
        if ceil:
            cols += ["{} x 1 thread side by side".format(self.ncpu), heads[2] + " vs that"]
        print("\n" + title)
        print("| n | " + " | ".join(cols) + " |\n|---|" + "---|" * len(cols))
        ratios = []
        for s in self.sizes:
            o, b, a = (self.g(x, s) for x in labels[:3])
            cells = [s, cell(o), cell(b) if self.blis else "-", cell(a), ratio(a, o), self.paired(ours, ob, s),
                     ratio(a, b) if self.blis else "-"]
            if name:
                lesson = self.g(labels[3], s)
                cells += [percent(a, peak), cell(lesson), ratio(lesson, o)]
            if ceil:
                cells += [cell(self.g(ceil, s)), ratio(a, self.g(ceil, s))]
            print("| " + " | ".join(str(c) for c in cells) + " |")
            if o:
                ratios.append((s, (a or 0.0) / o))
        over = [r for s, r in ratios if s >= 512]
        if name and over:
            print("step 10: mean ratio to OpenBLAS over n >= 512: %.3f; worst ratio: %.3f"
                  % (sum(over) / len(over), min(r for _, r in ratios)))

    def print_all(self, isa, peak1, peak_n):
        """The four tables and the kernels line; a peak is (GFLOPS, its text) or None."""
        (value1, text1), (value_n, text_n) = (p or (None, "-") for p in (peak1, peak_n))
        main, avx2 = ("OpenBLAS", "BLIS", "step 10"), ("OpenBLAS Haswell", "BLIS haswell", "step 10 avx2")
        avx2_title = "Step 10 --kernel avx2 against OpenBLAS (Haswell) and BLIS (haswell) AVX2 kernels, "
        self.table("Step 10 --threads 1, and step 08 (the lesson), 1 thread (peak {} GFLOPS)".format(text1), main,
                   ("openblas1", "blis1", "step10", "step08"), "", isa, value1, "step 08")
        self.table(avx2_title + "1 thread", avx2, ("openblas_avx2", "blis_avx2", "step10_avx2"), "")
        if self.g("openblasN", self.sizes[0]) is not None:
            self.table("Step 10, and step 09 (the lesson), {} threads (peak {} GFLOPS)".format(self.ncpu, text_n),
                       main, ("openblasN", "blisN", "step10N", "step09"), "step10_ceiling", isa, value_n, "step 09")
            self.table(avx2_title + "{} threads".format(self.ncpu), avx2,
                       ("openblas_avx2N", "blis_avx2N", "step10_avx2N"), "step10_avx2_ceiling")
        k = self.kernel
        print("\nkernels: OpenBLAS {}; BLIS {}; step 10 {} (avx2 run: {}); step 08 {}; step 09 {}; "
              "OpenBLAS AVX2 run: {}{}".format(k["openblas1"], k["blis1"] if self.blis else "not built", k["step10"],
                                               k["step10_avx2"], k["step08"], k["step09"], k["openblas_avx2"],
                                               "; BLIS AVX2 run: " + k["blis_avx2"] if self.blis else ""))


def peaks(paths, ncpu):
    """(isa, peak on one thread, peak on ncpu), each peak (GFLOPS, its text) or None: the fp32
    peak of the widest vector ISA the peak CSVs measured, the best of them."""
    best, seen = {}, set()
    for path in paths:
        for row in read_csv(path):
            if row["precision"] != "fp32":
                continue
            seen.add(row["isa"])
            key, value = (row["isa"], int(row["threads"])), float(row["gflops"])
            if value > best.get(key, (0.0, ""))[0]:
                best[key] = (value, row["gflops"])
    isa = next((i for i in ISA_ORDER if i in seen), None)
    if isa is None:
        return "-", None, None
    return isa, best.get((isa, 1)), best.get((isa, ncpu))


def busy_table(folder, ncpu, blis):
    """Table 3: step 10's worst run on every thread over each library's median run, one core busy."""
    runs = {}
    for path in glob.glob(os.path.join(folder, "*.csv")):
        label, size = os.path.basename(path).split(".")[:2]
        runs.setdefault((label, int(size)), []).extend(float(r["gflops_best"]) for r in read_csv(path))
    if not runs:
        return
    print("\nOne core busy (a spin loop on CPU 0), %d threads: step 10 worst of 20 runs, the libraries median of 5"
          % ncpu)
    print("| n | OpenBLAS median | BLIS median | step 10 worst | step 10 median | worst vs OpenBLAS | worst vs BLIS |\n"
          "|---|---|---|---|---|---|---|")
    for z in BUSY_SIZES:
        o, b, m = (samples.median(runs[(label, z)]) if (label, z) in runs else None
                   for label in ("openblasN", "blisN", "step10N"))
        w = min(runs[("step10N", z)]) if ("step10N", z) in runs else None
        cells = (z, cell(o), cell(b) if blis else "-", cell(w), cell(m), ratio(w, o), ratio(w, b) if blis else "-")
        print("| " + " | ".join(str(c) for c in cells) + " |")


def bench(argv):
    busy = None
    if len(argv) > 5 and argv[4] == "--busy":
        busy = argv[5]
        del argv[4:6]
    folder, ncpu, sizes, blis = argv[0], int(argv[1]), [int(s) for s in argv[2].split(",")], argv[3] == "1"
    isa, peak1, peak_n = peaks(argv[4:], ncpu)
    Bench(folder, ncpu, sizes, blis).print_all(isa, peak1, peak_n)
    if busy:
        busy_table(busy, ncpu, blis)


# ---- ablation.sh -------------------------------------------------------------------------------

def ablation_csv(folder):
    """ablation.csv: per run and size, the best, median and lowest round of its best repetition
    (CPU time from bin/probe's gflops_cpu_best, else gflops_best) and the best round of the
    wall clock (gflops_wall_best, else gflops_best)."""
    out = ["study,order,config,switches,n,gflops,gflops_median,gflops_min,gflops_wall"]
    runs = [line.rstrip("\n").split("|", 2) for line in sys.stdin if line.strip()]
    for order, (study, label, args) in enumerate(runs):
        switches = args.partition(" ")[2].replace(",", ";")
        fast, wall = {}, {}
        for path in sorted(glob.glob(os.path.join(folder, "{}.*.csv".format(order)))):
            for row in read_csv(path):
                for values, column in ((fast, "gflops_cpu_best"), (wall, "gflops_wall_best")):
                    values.setdefault(row["m"], []).append(float(row[column if column in row else "gflops_best"]))
        for n, values in fast.items():
            out.append("%s,%d,%s,%s,%s,%.3f,%.3f,%.3f,%.3f" % (study, order, label.replace(",", ";"), switches, n,
                       max(values), samples.median(values), min(values), max(wall[n])))
    print("\n".join(out))


ABLATION_TABLES = (("off", "step 10 (avx512) with one idea off (GFLOPS, vs step 10)", True),
                   ("added", "ideas added one by one, avx512 (GFLOPS, vs the row above)", False),
                   ("off_avx2", "step 10 --kernel avx2 with one idea off (GFLOPS, vs step 10 avx2)", True),
                   ("added_avx2", "ideas added one by one, avx2 (GFLOPS, vs the row above)", False))


def ablation_report(path):
    """The tables of an ablation CSV: each run's GFLOPS per size, and how far from the study's
    first run (off) or the run above (added)."""
    import plot_ablation   # its reader: columns, numbers, studies
    plot_ablation.load(path)
    sizes, runs, gflops = [], {}, {}
    for row in read_csv(path):
        if row["n"] not in sizes:
            sizes.append(row["n"])
        runs.setdefault(row["study"], {}).setdefault(row["order"], row["config"])
        gflops[(row["study"], row["order"], row["n"])] = float(row["gflops"])
    for study, title, against_first in ABLATION_TABLES:
        if study not in runs:
            continue
        print("| {} |{}".format(title, "".join(" n = {} |".format(n) for n in sizes)))
        print("|---|" + "---|" * len(sizes))
        orders = list(runs[study])
        for i, order in enumerate(orders):
            before = orders[0] if against_first else orders[max(i - 1, 0)]
            line = "| {} |".format(runs[study][order])
            for n in sizes:
                g, p = gflops.get((study, order, n), 0.0), gflops.get((study, before, n), 0.0)
                line += " %.1f" % g + (" (%+.0f %%)" % (100 * (g / p - 1)) if i > 0 and p > 0 else "") + " |"
            print(line)
        print()


# ---- side_by_side.sh ----------------------------------------------------------------------------

def side_by_side(argv):
    """The copies' CSVs as one: per size (in the first copy's order) its first row, with threads the copy count,
    gflops_best and gflops_median summed, seconds_best the slowest copy's best."""
    copies, paths, header, rows, sums = argv[0], argv[1:], None, {}, {}
    for path in paths:
        with open(path) as f:
            lines = f.read().splitlines()
        header, col = header or lines[0], {name: i for i, name in enumerate(lines[0].split(","))}
        for line in lines[1:]:
            fields = line.split(",")
            size = fields[col["m"]]
            rows.setdefault(size, fields)
            best, median, slow = sums.get(size, (0.0, 0.0, 0.0))
            sums[size] = (best + float(fields[col["gflops_best"]]), median + float(fields[col["gflops_median"]]),
                          max(slow, float(fields[col["seconds_best"]])))
    print(header)
    for size, fields in rows.items():
        values = (copies,) + tuple(str(int(x)) if x == int(x) else "%.6g" % x for x in sums[size])
        for name, value in zip(("threads", "gflops_best", "gflops_median", "seconds_best"), values):
            fields[col[name]] = value
        print(",".join(fields))


# ---- grade.sh ----------------------------------------------------------------------------------

def timing_verdict(runs, this, programs):
    """From tools/interleave.py's stderr and log in RUNS: (None, the programs to compare with, notes) when THIS
    was timed, else (its FAIL or SKIP line, status). A job's failure starts with its label, a bare word."""
    err = read_text(os.path.join(runs, "interleave.err"))
    last = err.rstrip("\n").rpartition("\n")[2]
    if int(programs.pop("rc")) and not re.search(r"^interleave\.py: [A-Za-z0-9_][A-Za-z0-9_.-]*( at n=|: )", err, re.M):
        return "FAIL {}: not graded: the timing failed: {}".format(this, last), 2
    skipped = re.search(r"skipped: this CPU cannot run {} \((.*)\)$".format(re.escape(this)),
                        read_text(os.path.join(runs, "interleave.log")), re.M)
    if skipped:
        return "SKIP {}: {}".format(this, skipped.group(1)), 77

    def failure_of(label):   # "at n=64 crashed with SIGSEGV", or what it said of its command line, or ""
        said = re.search(r"^interleave\.py: {}(?: (at n=.*)|: (.*))$".format(re.escape(label)), err, re.M)
        return (said.group(1) or said.group(2)) if said else ""
    problem = failure_of(this)
    at = re.match(r"at n=([0-9]+) (.*)$", problem)
    if "FAILED verification" in problem:
        return "FAIL {}: a timed run failed verification".format(this), 1
    if problem:
        what, why, status = "the timed run", problem, 2   # its first run, at n = 8, refused the command line
        if at:
            what, why = "the timed run at n=" + at.group(1), at.group(2)
            code = re.match(r"exited with ([23])( |$)", why)
            status = int(code.group(1)) if code else 1
        text = {1: "{} {}", 2: "{} refused its command line: {}", 3: "not graded, the machine could not run {}: {}"}
        return "FAIL {}: {}".format(this, text[status].format(what, why)), status
    samples_of = lambda label: os.path.isfile(os.path.join(runs, "timed", "samples", label + ".csv"))  # noqa: E731
    if not samples_of(this):
        return "FAIL {}: not graded: the timing wrote no samples of it ({})".format(this, last), 2
    notes = []
    for role, label in list(programs.items()):
        if label and (failure_of(label) or not samples_of(label)):
            notes.append("note: {} {}: no ratio to it".format(
                label, failure_of(label) or "was not run (the CPU lacks what it needs)"))
            programs[role] = ""
    return None, programs, notes


def read_text(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def grade(argv):
    """The timing's verdict, then per size the median over the rounds in which both ran of this / prev and
    this / ref (each round's own pair), and their geometric means over the sizes: RUNS/ratios.csv, and the
    notes, table and PASS line on standard output."""
    runs, sizes, base_rounds, this, prev, ref, rc, csv_shown = argv
    verdict = timing_verdict(runs, this, {"prev": prev, "ref": ref, "rc": rc})
    if verdict[0]:
        print(verdict[0])
        return verdict[1]
    prev, ref = verdict[1]["prev"], verdict[1]["ref"]
    print("".join(note + "\n" for note in verdict[2]), end="")
    try:
        summary, csv_lines, table = ratio_table(os.path.join(runs, "timed", "samples"), sizes.split(","),
                                                base_rounds, this, prev, ref)
    except (InputError, OSError, KeyError, ValueError, csv.Error) as e:
        print("tables.py: grade: {}".format(e), file=sys.stderr)
        print("FAIL {}: not graded: its samples cannot be read".format(this))
        return 2
    with open(os.path.join(runs, "ratios.csv"), "w") as f:
        f.write("\n".join(csv_lines) + "\n")
    print("\n".join(table))
    print("PASS {}: right on every test shape and every sweep size{} (CSV: {})".format(
        this, "; " + summary if summary else "", csv_shown))
    return 0


def ratio_table(folder, sizes, base_rounds, this, prev, ref):
    """(the summary, the ratios CSV's lines, the table's lines)."""
    g, cpu, refkernel = {}, "", ""
    for path in sorted(glob.glob(os.path.join(folder, "*.csv"))):
        program = os.path.basename(path)[:-4]
        for row in read_csv(path):
            g[(program, row["round"], row["m"])] = float(row["gflops_best"])
            if program == ref:
                refkernel = row.get("kernel", "")
            if program == this:
                cpu = row["cpu"] + (" ({})".format(row["uarch"]) if row.get("uarch") else "")
    rounds = sorted({r for _, r, _ in g}, key=int)
    pname, rname = prev or "previous", ref or "reference"
    csv_lines = ["n,{},{},{},x_{},x_{}".format(this, pname, rname, pname, rname)]
    table = ["  %6s %10s %20s %14s %9s %9s" % ("n", "GFLOPS", prev or "(no previous)", ref or "(no reference)",
                                               "x prev", "x ref")]
    logs = {prev: 0.0, ref: 0.0}
    for n in sizes:
        got = {}
        for other in (prev, ref):   # the rounds in which both ran: pairs
            both = [r for r in rounds if other and (this, r, n) in g and (other, r, n) in g]
            got[other] = (median_of([g[(other, r, n)] for r in both]),
                          median_of([g[(this, r, n)] / g[(other, r, n)] for r in both]))
            if got[other][1] is not None:
                logs[other] += math.log(got[other][1])
        (mp, xp), (mr, xr) = got[prev], got[ref]
        t = median_of([g[(this, r, n)] for r in rounds if (this, r, n) in g]) or 0.0
        csv_lines.append("%d,%.3f,%s,%s,%s,%s" % (int(n), t, fmt("%.3f", mp), fmt("%.3f", mr), fmt("%.4f", xp),
                                                  fmt("%.4f", xr)))
        table.append("  %6d %10.2f %20s %14s %9s %9s" % (int(n), t, fmt("%.2f", mp) or "-", fmt("%.2f", mr) or "-",
                                                         fmt("%.3fx", xp) or "-", fmt("%.3fx", xr) or "-"))
    means = ["%#.3gx %s" % (math.exp(logs[other] / len(sizes)), other) for other in (prev, ref) if other]
    table.append("  geometric mean over n = %s (%d round%s, sampled side by side): %s" % (
        ",".join(sizes), int(base_rounds), "" if base_rounds == "1" else "s",
        ", ".join(([] if prev else ["no previous step"]) + means)))
    table.append("  CPU: " + printable(cpu))   # shown, never run by the terminal
    if ref:
        table.append("  reference kernel: " + printable(refkernel))
        if " " not in refkernel:   # an older runner names the library only, not the kernel set it ran
            table.append("  (the reference does not say which kernel set it ran: it may be weaker than this CPU "
                         "allows; see docs/labs/README.md, \"An honest reference\")")
    return ", ".join(means), csv_lines, table


def main(argv):
    commands = {"bench": (bench, 4), "ablation-csv": (lambda a: ablation_csv(*a), 1),
                "ablation-report": (lambda a: ablation_report(*a), 1), "grade": (grade, 8),
                "side-by-side": (side_by_side, 1)}
    if not argv or argv[0] not in commands or len(argv) - 1 < commands[argv[0]][1]:
        print("tables.py: usage: tables.py bench|ablation-csv|ablation-report|grade|side-by-side ... (see its top)",
              file=sys.stderr)
        return 2
    prog = os.environ.get("TABLES_PROG", "tables.py")
    try:
        return commands[argv[0]][0](argv[1:]) or 0
    except InputError as e:
        print("{}: {}".format(prog, e), file=sys.stderr)
        return 2
    except (OSError, KeyError, ValueError, csv.Error) as e:
        print("{}: {}: {}".format(prog, argv[0], e), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
