"""Reading what the harness and the meters write, shared by every script in plots/.

Standard library only (Python 3.7+), so summary.py runs where matplotlib does not.
Every problem is an InputError whose text names the file and the problem, on one line.
"""
import csv
import math
import os
import re
import stat

# The harness CSV's columns, in order: the Python side of the one schema, whose C++ side is
# common/src/csv.cpp's list (bin/cpuinfo --json reports it as csv_columns; test_csv_schema.py
# checks that the two, and the header a step writes, agree). docs/contracts.md, "The CSV".
COLUMNS = ["step", "m", "n", "k", "threads", "gflops_best", "gflops_median", "seconds_best", "max_rel_err",
           "verified", "kernel", "reps", "cpu", "uarch", "params", "cpu_wait"]
# Those every reader needs, the first ten (older CSVs lack the later ones; tools may add more).
REQUIRED = COLUMNS[:10]
PEAK_REQUIRED = ["isa", "precision", "threads", "gflops"]
BANDWIDTH_REQUIRED = ["kind", "bytes", "threads", "gbps"]

# The instruction sets a kernel column or peak.csv can name, narrowest first.
ISAS = ("scalar", "sse", "avx", "avx2", "avx512", "neon")
LEVELS = ("L1", "L2", "L3", "DRAM")
MACHINE_KEYS = ("cpu", "uarch", "cores", "compiler", "flags", "date", "rounds")
# The largest values a file is believed: what the harness can write and a little more, so that
# a garbled number is one line, not a traceback (numpy cannot hold 10**20; 1e308 GFLOPS made the
# axis limits infinite). MAX_SIZE is kMaxSize in common/include/gemm/harness.hpp; MAX_THREADS is
# 4 per CPU on Linux's largest CPU count (8192); no machine comes near 1e7 GFLOPS or GB/s.
MAX_SIZE, MAX_THREADS, MAX_RATE, MAX_BYTES = 46340, 4 * 8192, 1e7, 1 << 50


class InputError(Exception):
    pass


def read_rows(path, required):
    """The rows of a CSV as dicts, after checking that it has the required columns and data."""
    try:
        with open_regular(path, newline="") as f:
            reader = csv.DictReader(f)
            if reader.fieldnames is None:
                raise InputError("{}: empty file".format(path))
            missing = [c for c in required if c not in reader.fieldnames]
            if missing:
                raise InputError("{}: not a harness CSV (missing column {})".format(path, ", ".join(missing)))
            rows = list(reader)
    except OSError as e:
        raise InputError("{}: cannot read ({})".format(path, e.strerror))
    except (csv.Error, UnicodeDecodeError) as e:
        raise InputError("{}: malformed CSV ({})".format(path, e))
    if not rows:
        raise InputError("{}: no data rows".format(path))
    # csv.DictReader fills a short row with None and keeps a long row's extra fields under None:
    # either way the line does not match the header.
    width = len(reader.fieldnames)
    for line, row in enumerate(rows, start=2):
        if None in row or any(value is None for value in row.values()):
            fields = width + len(row.get(None) or []) - sum(value is None for value in row.values())
            raise InputError("{}: line {}: {} fields, the header has {}".format(path, line, fields, width))
    return rows


def open_regular(path, newline=None):
    """`path` open for reading, or an InputError when it is no regular file: a FIFO (reading it
    would wait for a writer, for ever), a folder or a device. Opened without waiting, then checked."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise InputError("{}: cannot read ({})".format(path, e.strerror))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise InputError("{}: not a regular file (a FIFO, a folder or a device): not read".format(path))
    os.set_blocking(fd, True)
    return os.fdopen(fd, newline=newline)


def printable(text):
    """A field as text shows it: one line, its control characters (an ESC a terminal would
    run, a newline that splits a table row) as '?'."""
    return "".join("?" if ord(c) < 32 or ord(c) == 127 else c for c in str(text))


def shown(text, limit=40):
    """A field as a message shows it: printable(), at most `limit` characters."""
    text = printable(text)
    return text if len(text) <= limit else text[:limit] + "..."


def number(path, line, row, column, kind=float, minimum=None, positive=False, maximum=None):
    """row[column] as a finite number, or an InputError naming the file, the line and the column.

    minimum: the smallest value allowed; positive: above zero; maximum: the largest (a whole
    number: 2**53 unless given, past which numpy and floats cannot hold it)."""
    text = row[column]
    try:
        value = kind(text)
    except (TypeError, ValueError):
        raise InputError("{}: line {}: column {} is '{}', not a number".format(path, line, column, shown(text)))
    if kind is float and not math.isfinite(value):   # nan, inf, and 1e309 (which reads as inf)
        raise InputError("{}: line {}: column {} is '{}', not a finite number".format(path, line, column, shown(text)))
    if positive and value <= 0:
        raise InputError("{}: line {}: column {} is '{}', not above 0".format(path, line, column, shown(text)))
    if minimum is not None and value < minimum:
        raise InputError("{}: line {}: column {} is '{}', below {}".format(path, line, column, shown(text), minimum))
    if maximum is None and kind is int:
        maximum = 1 << 53
    if maximum is not None and value > maximum:
        raise InputError("{}: line {}: column {} is '{}', above {:g}".format(path, line, column, shown(text), maximum))
    return value


def step_number(slug):
    """5 for '05_simd_4x4', None for a reference such as 'ref_openblas'."""
    match = re.match(r"^(\d+)_", slug)
    return int(match.group(1)) if match else None


def isa_of(kernel):
    """The instruction set a kernel column names ('sse', 'avx512' ...), or None (a library)."""
    word = (kernel or "").strip().lower()
    return word if word in ISAS else None


def tunables(text):
    """{name: value} from a params column ("mc=1022 kc=128 nc=16384"): the block sizes of the
    variant that ran. Anything that is not name=integer is left out (older CSVs: {})."""
    out = {}
    for item in text.split():
        name, _, value = item.partition("=")
        if name and value.isdigit():
            out[name] = int(value)
    return out


def cpu_wait(path, line, row):
    """The cpu_wait column, 0 to 1 (None: an older CSV without it, or nan: the OS did not say)."""
    text = (row.get("cpu_wait") or "").strip()
    if text == "" or text.lower() == "nan":
        return None
    value = number(path, line, row, "cpu_wait", minimum=0)
    if value > 1:
        raise InputError("{}: line {}: column cpu_wait is '{}', above 1".format(path, line, shown(text)))
    return value


def load_run(path):
    """One harness CSV: its rows (sorted by size, then thread count) and what describes the run.

    A row whose verified is 0 with max_rel_err nan was not checked (--no-verify): 'unchecked',
    not 'failed'."""
    rows = read_rows(path, REQUIRED)
    run = {"path": path, "step": printable(rows[0]["step"].strip()), "rows": [], "kernels": [], "cpu": "",
           "uarch": ""}
    for line, row in enumerate(rows, start=2):
        unchecked = row["max_rel_err"].strip().lower() == "nan" and row["verified"].strip() != "1"
        run["rows"].append({
            "m": number(path, line, row, "m", int, minimum=1, maximum=MAX_SIZE),
            "threads": number(path, line, row, "threads", int, minimum=1, maximum=MAX_THREADS),
            "best": number(path, line, row, "gflops_best", minimum=0, maximum=MAX_RATE),
            "median": number(path, line, row, "gflops_median", minimum=0, maximum=MAX_RATE),
            "failed": row["verified"].strip() != "1" and not unchecked,
            "unchecked": unchecked,
            "params": tunables(row.get("params") or ""),
            "cpu_wait": cpu_wait(path, line, row),
            # tools/interleave.py's columns: how many samples, and whether a second confirmed the best
            "samples": int(row["samples"]) if (row.get("samples") or "").strip().isdigit() else None,
            "settled": (row.get("settled") or "").strip() != "0",
        })
        kernel = printable((row.get("kernel") or "").strip())
        if kernel and kernel not in run["kernels"]:
            run["kernels"].append(kernel)
        run["cpu"] = run["cpu"] or printable((row.get("cpu") or "").strip())
        run["uarch"] = run["uarch"] or printable((row.get("uarch") or "").strip())
    run["rows"].sort(key=lambda r: (r["m"], r["threads"]))
    run["number"] = step_number(run["step"])
    run["kernel"] = run["kernels"][0] if run["kernels"] else ""
    run["isa"] = isa_of(run["kernel"])
    run["thread_counts"] = sorted(set(r["threads"] for r in run["rows"]))
    return run


def split_by_threads(run):
    """One run per thread count in it (a CSV may hold several): each a copy with only its rows."""
    parts = []
    for threads in run["thread_counts"]:
        part = dict(run)
        part["rows"] = [r for r in run["rows"] if r["threads"] == threads]
        part["threads"] = threads
        parts.append(part)
    return parts


def split_as_run(run):
    """As split_by_threads, except that a size the most-threads part has no row for keeps its
    row on fewer threads in that part, marked 'fewer' (a parallel step runs a product too small
    to share on fewer threads: that row is the step as it runs, not a run of its own)."""
    parts = split_by_threads(run)
    if len(parts) < 2:
        return parts
    most = parts[-1]
    sizes = set(r["m"] for r in most["rows"])
    moved = {}
    for part in parts[:-1]:
        for r in part["rows"]:
            if r["m"] not in sizes and (r["m"] not in moved or r["threads"] > moved[r["m"]]["threads"]):
                moved[r["m"]] = r
    for part in parts[:-1]:
        part["rows"] = [r for r in part["rows"] if moved.get(r["m"]) is not r]
    most["rows"] = sorted(most["rows"] + [dict(r, fewer=True) for r in moved.values()], key=lambda r: r["m"])
    return [p for p in parts if p["rows"]]


def best_by_size(run):
    """{size: (best GFLOPS, median GFLOPS)}, the best row where a size was measured twice."""
    out = {}
    for r in run["rows"]:
        if r["m"] not in out or r["best"] > out[r["m"]][0]:
            out[r["m"]] = (r["best"], r["median"])
    return out


def nearest(sizes, size):
    """The measured size nearest to `size` (the smaller one on a tie), or None."""
    sizes = list(sizes)
    if not sizes:
        return None
    return min(sizes, key=lambda m: (abs(m - size), m))


def nearest_row(run, size):
    """The row a figure at one size shows for a CSV: at the measured size nearest `size` (the
    smaller on a tie), and of the rows there the one on the most threads, then the fastest.
    (A parallel step may run small sizes on fewer threads: the size decides the count.)"""
    m = nearest(set(r["m"] for r in run["rows"]), size)
    if m is None:
        return None
    return max((r for r in run["rows"] if r["m"] == m), key=lambda r: (r["threads"], r["best"]))


def load_peak(path):
    """{(isa, threads): best fp32 GFLOPS} from peak.csv."""
    peaks = {}
    for line, row in enumerate(read_rows(path, PEAK_REQUIRED), start=2):
        if row["precision"].strip() != "fp32":
            continue
        threads = number(path, line, row, "threads", int, minimum=1, maximum=MAX_THREADS)
        gflops = number(path, line, row, "gflops", positive=True, maximum=MAX_RATE)
        if not re.match(r"^\w+$", row["isa"].strip()):   # a name such as avx512, drawn in labels
            raise InputError("{}: line {}: isa is '{}', not a name such as avx512".format(path, line, shown(row["isa"])))
        key = (row["isa"].strip(), threads)
        peaks[key] = max(gflops, peaks.get(key, 0.0))
    return peaks


def best_peak(peaks, threads):
    """(isa, GFLOPS) of the fastest fp32 ISA at `threads`, or None."""
    here = [(g, isa) for (isa, t), g in peaks.items() if t == threads]
    if not here:
        return None
    g, isa = max(here)
    return isa, g


def isa_peak(peaks, isa, threads):
    """(GFLOPS, note) of `isa` at `threads`. When peak.csv has no scalar row (older meters),
    a scalar ceiling is estimated as a quarter of the 4-lane SIMD one (the same pipes, one
    lane), and the note says so. (None, note) when nothing fits."""
    if (isa, threads) in peaks:
        return peaks[(isa, threads)], ""
    if isa == "scalar":
        for simd in ("sse", "neon"):
            if (simd, threads) in peaks:
                return peaks[(simd, threads)] / 4, "estimated as {} / 4: peak.csv has no scalar row".format(simd)
    return None, "peak.csv has no {} row for {} thread(s)".format(isa, threads)


def load_machine(path):
    """results/machine.txt ('key: value' lines) as a dict; {} when there is none."""
    info = {}
    if not path or not os.path.exists(path):
        return info
    try:
        with open_regular(path) as f:
            for line in f:
                key, sep, value = line.partition(":")
                if sep and key.strip().lower() in MACHINE_KEYS:
                    info[key.strip().lower()] = printable(value.strip())
    except (OSError, UnicodeDecodeError) as e:
        raise InputError("{}: cannot read ({})".format(path, e))
    return info


def machine_name(runs, machine):
    """What a title calls the CPU: the microarchitecture (the CSVs' uarch column, else
    machine.txt's uarch line), else the CPU's name, else 'this CPU'."""
    for value in [r.get("uarch", "") for r in runs] + [machine.get("uarch", "")]:
        if value:
            return value
    for value in [r.get("cpu", "") for r in runs] + [machine.get("cpu", "")]:
        if value:
            return value
    return "this CPU"


def load_bandwidth(path):
    """bandwidth.csv rows: kind, bytes (per thread), threads, gbps, level ('' between levels)."""
    rows = []
    for line, row in enumerate(read_rows(path, BANDWIDTH_REQUIRED), start=2):
        kind = row["kind"].strip()
        if kind not in ("read", "triad"):
            raise InputError("{}: line {}: kind is '{}', not read or triad".format(path, line, shown(kind)))
        level = (row.get("level") or "").strip()
        if level and level not in LEVELS:
            raise InputError("{}: line {}: level is '{}', not one of {}".format(path, line, shown(level), ", ".join(LEVELS)))
        rows.append({"kind": kind, "level": level,
                     "bytes": number(path, line, row, "bytes", int, minimum=1, maximum=MAX_BYTES),
                     "threads": number(path, line, row, "threads", int, minimum=1, maximum=MAX_THREADS),
                     "gbps": number(path, line, row, "gbps", positive=True, maximum=MAX_RATE)})
    return rows


def level_bandwidth(rows, threads, kind="read"):
    """{level: GB/s} at `threads` from the rows that are a level's point."""
    return {r["level"]: r["gbps"] for r in rows
            if r["level"] and r["threads"] == threads and r["kind"] == kind}
