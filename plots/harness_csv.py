"""Reading the harness's CSVs, shared by plot_gflops.py, summary.py and make_figures.py.

Standard library only (Python 3.7+), so summary.py runs where matplotlib does not.
Every problem is an InputError whose text names the file and the problem, on one line.
"""
import csv

# The columns docs/contracts.md fixes, in order (more may follow).
REQUIRED = ["step", "m", "n", "k", "threads", "gflops_best", "gflops_median", "seconds_best",
            "max_rel_err", "verified"]
PEAK_REQUIRED = ["isa", "precision", "threads", "gflops"]


class InputError(Exception):
    pass


def read_rows(path, required):
    """The rows of a CSV as dicts, after checking that it has the required columns and data."""
    try:
        with open(path, newline="") as f:
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


def shown(text, limit=40):
    """A field as a message shows it: one line (control characters as '?'), at most `limit` characters."""
    text = "".join("?" if ord(c) < 32 or ord(c) == 127 else c for c in str(text))
    return text if len(text) <= limit else text[:limit] + "..."


def number(path, line, row, column, kind=float):
    """row[column] as a number, or an InputError naming the file, the line and the column."""
    try:
        return kind(row[column])
    except (TypeError, ValueError):
        raise InputError("{}: line {}: column {} is '{}', not a number".format(path, line, column, shown(row[column])))
