"""Reading what the harness and the meters write (standard library only); a problem is a one-line InputError."""
import csv
import math
import os
import re
import stat

# The harness CSV's columns, in order: the Python side of the one schema, whose C++ side is common/src/csv.cpp
# (test_csv_schema.py checks that they agree). docs/contracts.md, "The CSV".
COLUMNS = ["step", "m", "n", "k", "threads", "gflops_best", "gflops_median", "seconds_best", "max_rel_err",
           "verified", "kernel", "reps", "cpu", "uarch", "params", "cpu_wait"]
REQUIRED = COLUMNS[:10]   # what every reader needs (older CSVs lack the later ones; tools may add more)
PEAK_REQUIRED = ["isa", "precision", "threads", "gflops"]
BANDWIDTH_REQUIRED = ["kind", "bytes", "threads", "gbps"]

ISAS = ("scalar", "sse", "avx", "avx2", "avx512", "neon")   # narrowest first
LEVELS = ("L1", "L2", "L3", "DRAM")
MACHINE_KEYS = ("cpu", "uarch", "cores", "compiler", "flags", "date", "rounds")
# The largest values a file is believed (a garbled number is one line, not a traceback); MAX_SIZE is kMaxSize.
MAX_SIZE, MAX_THREADS, MAX_RATE, MAX_BYTES = 46340, 4 * 8192, 1e7, 1 << 50


class InputError(Exception):
    pass


def read_rows(path, required):
    """The rows of a CSV as dicts, checked: the required columns, data, every row whole."""
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
    # DictReader fills a short row with None and keeps a long row's extra fields under None.
    width = len(reader.fieldnames)
    for line, row in enumerate(rows, start=2):
        if None in row or any(value is None for value in row.values()):
            fields = width + len(row.get(None) or []) - sum(value is None for value in row.values())
            raise InputError("{}: line {}: {} fields, the header has {}".format(path, line, fields, width))
    return rows


def open_regular(path, newline=None, errors=None):
    """`path` open for reading, or an InputError for no regular file (a FIFO would wait for ever)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise InputError("{}: cannot read ({})".format(path, e.strerror))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise InputError("{}: not a regular file (a FIFO, a folder or a device): not read".format(path))
    os.set_blocking(fd, True)
    return os.fdopen(fd, newline=newline, errors=errors)


def printable(text):
    """A field on one line, its control characters (an ESC a terminal would run, a newline) as '?'."""
    return "".join("?" if ord(c) < 32 or ord(c) == 127 else c for c in str(text))


def shown(text, limit=40):
    text = printable(text)
    return text if len(text) <= limit else text[:limit] + "..."


def number(path, line, row, column, kind=float, minimum=None, positive=False, maximum=None):
    """row[column] as a finite number (whole: at most 2**53 unless `maximum`), or an InputError naming it."""
    text = row[column]

    def bad(why):
        return InputError("{}: line {}: column {} is '{}', {}".format(path, line, column, shown(text), why))
    try:
        value = kind(text)
    except (TypeError, ValueError):
        raise bad("not a number")
    if kind is float and not math.isfinite(value):   # nan, inf, and 1e309 (which reads as inf)
        raise bad("not a finite number")
    if positive and value <= 0:
        raise bad("not above 0")
    if minimum is not None and value < minimum:
        raise bad("below {}".format(minimum))
    if maximum is None and kind is int:
        maximum = 1 << 53
    if maximum is not None and value > maximum:
        raise bad("above {:g}".format(maximum))
    return value


def step_number(slug):
    """5 for '05_simd_4x4', None for a reference such as 'ref_openblas'."""
    match = re.match(r"^(\d+)_", slug)
    return int(match.group(1)) if match else None


def tunables(text):
    """{name: value} from a params column ("mc=1022 kc=128"); anything not name=integer is left out."""
    pairs = (item.partition("=") for item in text.split())
    return {name: int(value) for name, _, value in pairs if name and value.isdigit()}


def cpu_wait(path, line, row):
    """The cpu_wait column, 0 to 1 (None: an older CSV without it, or nan: the OS did not say)."""
    text = (row.get("cpu_wait") or "").strip()
    if text == "" or text.lower() == "nan":
        return None
    return number(path, line, row, "cpu_wait", minimum=0, maximum=1)


def load_run(path):
    """One harness CSV: its rows by size and threads ('unchecked' under --no-verify) and the run's description."""
    rows = read_rows(path, REQUIRED)
    run = {"path": path, "step": printable(rows[0]["step"].strip()), "rows": []}
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
    run["rows"].sort(key=lambda r: (r["m"], r["threads"]))
    texts = {key: [printable((row.get(key) or "").strip()) for row in rows] for key in ("kernel", "cpu", "uarch")}
    run["kernels"] = [kernel for kernel in dict.fromkeys(texts["kernel"]) if kernel]
    run["cpu"], run["uarch"] = (next(filter(None, texts[key]), "") for key in ("cpu", "uarch"))
    run["number"] = step_number(run["step"])
    run["kernel"] = run["kernels"][0] if run["kernels"] else ""
    run["isa"] = run["kernel"].lower() if run["kernel"].lower() in ISAS else None   # None: a library
    run["thread_counts"] = sorted(set(r["threads"] for r in run["rows"]))
    return run


def split_by_threads(run):
    return [dict(run, rows=[r for r in run["rows"] if r["threads"] == t], threads=t) for t in run["thread_counts"]]


def split_as_run(run):
    """split_by_threads, but a size the most-threads part lacks stays in it on fewer threads, marked 'fewer'."""
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
    out = {}
    for r in run["rows"]:
        if r["m"] not in out or r["best"] > out[r["m"]][0]:
            out[r["m"]] = (r["best"], r["median"])
    return out


def nearest(sizes, size):
    """The measured size nearest to `size` (the smaller one on a tie), or None."""
    return min(sizes, key=lambda m: (abs(m - size), m), default=None)


def nearest_row(run, size):
    """The row at the measured size nearest `size` on the most threads, then the fastest."""
    m = nearest(set(r["m"] for r in run["rows"]), size)
    return max((r for r in run["rows"] if r["m"] == m), key=lambda r: (r["threads"], r["best"]), default=None)


def load_peak(path):
    """{(isa, threads): best fp32 GFLOPS} from peak.csv."""
    peaks = {}
    for line, row in enumerate(read_rows(path, PEAK_REQUIRED), start=2):
        if row["precision"].strip() != "fp32":
            continue
        threads = number(path, line, row, "threads", int, minimum=1, maximum=MAX_THREADS)
        gflops = number(path, line, row, "gflops", positive=True, maximum=MAX_RATE)
        if not re.match(r"^\w+$", row["isa"].strip()):   # drawn in labels
            raise InputError("{}: line {}: isa is '{}', not a name such as avx512".format(
                path, line, shown(row["isa"])))
        key = (row["isa"].strip(), threads)
        peaks[key] = max(gflops, peaks.get(key, 0.0))
    return peaks


def best_peak(peaks, threads):
    """(isa, GFLOPS) of the fastest fp32 ISA at `threads`, or None."""
    best = max(((g, isa) for (isa, t), g in peaks.items() if t == threads), default=None)
    return None if best is None else (best[1], best[0])


def isa_peak(peaks, isa, threads):
    """(GFLOPS, note) of `isa` at `threads` (no scalar row: a quarter of the 4-lane SIMD one), or (None, note)."""
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
    """What a title calls the CPU: the CSVs' or machine.txt's uarch, else the CPU's name, else 'this CPU'."""
    for key in ("uarch", "cpu"):
        for value in [r.get(key, "") for r in runs] + [machine.get(key, "")]:
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
            raise InputError("{}: line {}: level is '{}', not one of {}".format(
                path, line, shown(level), ", ".join(LEVELS)))
        rows.append({"kind": kind, "level": level,
                     "bytes": number(path, line, row, "bytes", int, minimum=1, maximum=MAX_BYTES),
                     "threads": number(path, line, row, "threads", int, minimum=1, maximum=MAX_THREADS),
                     "gbps": number(path, line, row, "gbps", positive=True, maximum=MAX_RATE)})
    return rows


def level_bandwidth(rows, threads):
    return {r["level"]: r["gbps"] for r in rows if r["level"] and r["threads"] == threads and r["kind"] == "read"}


# ---- the shell tools' check: python3 plots/harness_csv.py check [--sizes LIST] [--verified] FILE... ----

WHOLE, REAL = re.compile(r"[0-9]+$"), re.compile(r"([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$")


def is_real(text):   # a finite number from 0, as %g and %f write them
    return bool(REAL.match(text)) and float(text) < 1e308


def row_problem(row, verified):
    """Why one row (a dict of its fields) is not the contract's, or None."""
    for name in ("m", "n", "k", "threads") + (("reps",) if "reps" in row else ()):
        if not WHOLE.match(row[name]) or int(row[name]) < 1:
            return "column {} is '{}', not a whole number from 1".format(name, shown(row[name]))
    for name in ("gflops_best", "gflops_median", "seconds_best"):
        if not is_real(row[name]):
            return "column {} is '{}', not a finite number from 0".format(name, shown(row[name]))
    v, e = row["verified"], row["max_rel_err"]
    if v not in ("0", "1"):
        return "column verified is '{}', not 0 or 1".format(shown(v))
    if not is_real(e) and not (v == "0" and e in ("nan", "inf")):   # nan: not checked; inf: a NaN or Inf
        return "column max_rel_err is '{}', not a finite number from 0{}".format(
            shown(e), ", nan or inf" if v == "0" else " (verified=1)")
    if verified and v != "1":
        return "not verified (verified={}, max_rel_err={})".format(v, shown(e))
    if float(row["gflops_best"]) <= 0:
        return "column gflops_best is '{}', not above 0".format(shown(row["gflops_best"]))
    return None


def file_problem(path, sizes, verified):
    """'PATH:LINE: PROBLEM' (or 'PATH: PROBLEM') for the first way the file is not a harness CSV with a
    verified (when asked) row of GFLOPS above 0 for each of `sizes`; None when it is one."""
    with open_regular(path, newline="", errors="replace") as f:   # bytes, as awk reads them
        lines = f.read().split("\n")   # as awk splits them: a lone \r is no line's end
    if lines[-1] == "":
        lines.pop()
    if not lines:
        return "{}: empty file, not a harness CSV".format(path)
    header, have = lines[0].split(","), set()
    for name in REQUIRED:
        if name not in header:
            return "{}:1: no {} column: not a harness CSV".format(path, name)
    for line_no, line in enumerate(lines[1:], start=2):
        fields = line.split(",") if line else []   # a blank line has no field, as awk counts them
        row = dict(zip(header, fields))
        why = ("{} fields, the header has {}".format(len(fields), len(header)) if len(fields) != len(header) else
               "empty step column" if row["step"] == "" else row_problem(row, verified))
        if why:
            return "{}:{}: {}".format(path, line_no, why)
        if row["m"] == row["n"] == row["k"]:
            have.add(int(row["m"]))
    missing = [s for s in sizes if s not in have]
    return "{}: no row for size {} (m = n = k = {})".format(path, missing[0], missing[0]) if missing else None


def check(argv):
    """The command: the first problem of the files, one line on stdout and exit 2; else nothing, 0."""
    verified = "--verified" in argv
    argv = [a for a in argv if a != "--verified"]
    sizes, argv = ([int(s) for s in argv[1].split(",")], argv[2:]) if argv[:1] == ["--sizes"] else ([], argv)
    for path in argv:
        try:
            problem = file_problem(path, sizes, verified)
        except InputError as e:
            problem = str(e)
        except OSError as e:
            problem = "{}: cannot read ({})".format(path, e.strerror)
        if problem:
            print(problem)
            return 2
    return 0


if __name__ == "__main__":
    import sys
    if sys.argv[1:2] != ["check"]:
        print("usage: harness_csv.py check [--sizes LIST] [--verified] FILE...", file=sys.stderr)
        sys.exit(2)
    sys.stdout.reconfigure(errors="replace")
    sys.exit(check(sys.argv[2:]))
