"""Samples spread over a run, and what a figure draws from them (docs/harness.md, "How a run
samples").

A sample is one run of an executable at one size: its harness CSV row, the best (and median)
of a few timed calls. tools/interleave.py takes several samples of every size of every job
(a step, a library) spread over the whole run, the jobs at one size one after the other in
an order that changes from round to round, and writes them to SAMPLES/<job>.csv: the
harness's columns, then `run`, `round` and `seq` (which invocation, which round of it, the
place in its order). This module turns them into one row per size and into paired ratios:

- the curve is the best sample (`gflops_best`): another program's spell slows a sample, so
  the best is the sample least disturbed (a host that runs the vCPU faster for a while
  lifts it too: docs/harness.md);
- the band reaches down to the median of the samples (`gflops_median`): a wide band is a
  size the machine disturbed;
- a size is *settled* when a second sample confirms its best, within TOLERANCE, among
  enough samples that not all of them can have fallen in spells (how many: from how often
  the job's samples fell in one, needed_samples); an unsettled size gets more samples, and
  if it stays unsettled the run names it;
- a ratio to a library is the median over rounds of the ratio of the two samples taken back
  to back at the same size and thread count in the same round, with the range of those
  ratios: a spell that slows a whole round cancels out of its ratio.

Standard library only (Python 3.7+): the scheduler and summary.py run where matplotlib
does not.
"""
import csv
import io
import math
import os

import harness_csv

# Two samples within this fraction of the best confirm a size's best (tools/interleave.py
# --tolerance overrides it). A quiet machine's samples of one size agree within 1-2 %.
TOLERANCE = 0.03
# The chance, at most, that every sample of a size was slowed by a spell when the run calls
# it settled (needed_samples).
MISS = 0.01
# A pair (ours and a library's, one round, one size) counts in a paired ratio when both its
# samples came within this fraction of their own size's best: a pair in which a spell slowed
# one of the two measures the spell (docs/tuning-log.md, "The scheduler's constants").
PAIR_NEAR = 0.10
# The longest job label (tools/interleave.py): it names SAMPLES/<label>.csv and is shown in
# lines and legends. A step's longest label is step<NN_slug>_mt (run_all.sh's all-core run),
# so a step folder's name (NN_slug) is at most STEP_NAME_MAX characters: tools/new_step.sh,
# tools/grade.sh (tools/args.sh, step_name_max) and cmake/GemmStep.cmake read it from here.
MAX_LABEL = 100
STEP_NAME_MAX = 93
assert STEP_NAME_MAX == MAX_LABEL - len("step") - len("_mt")
# What the scheduler adds after the harness's columns in SAMPLES/<job>.csv.
SAMPLE_COLUMNS = ["run", "round", "seq"]
# What an aggregated CSV adds after the harness's columns: how many samples, and whether a
# second one confirmed the best.
AGGREGATE_COLUMNS = ["samples", "settled"]


def _float(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return math.nan


def median(values):
    values = sorted(values)
    n = len(values)
    if n == 0:
        return math.nan
    return values[n // 2] if n % 2 else 0.5 * (values[n // 2 - 1] + values[n // 2])


def settled(values, tolerance=TOLERANCE, needed=2):
    """Whether the best is confirmed: a second sample within `tolerance` of it, among at
    least `needed` samples (needed_samples(): more where spells were frequent)."""
    top = sorted((v for v in values if v == v), reverse=True)
    return len(top) >= max(2, needed) and top[1] >= top[0] * (1.0 - tolerance)


def quiet_share(value_lists, tolerance=TOLERANCE):
    """The share of a job's samples that came out at their size's best level (within
    `tolerance`, the best itself not counted): about how often a sample misses the spells.
    1.0 on a quiet machine; well below where spells slowed most samples."""
    within = total = 0
    for values in value_lists:
        values = [v for v in values if v == v]
        if len(values) < 2:
            continue
        best = max(values)
        within += sum(1 for v in values if v >= best * (1.0 - tolerance)) - 1
        total += len(values) - 1
    return within / total if total else 1.0


def needed_samples(share, miss=MISS):
    """How many samples make it unlikely (below `miss`) that none of them missed the spells,
    when a share `share` of samples does: a spell can slow two samples alike, which then
    agree with each other, so agreement alone does not settle a size on a noisy machine."""
    if share >= 1.0:
        return 2
    if share <= 0.0:
        return 1 << 20
    return max(2, int(math.ceil(math.log(miss) / math.log(1.0 - share))))


def gap(values):
    """How far the second-best sample is below the best, as a fraction (1.0 with one sample)."""
    top = sorted((v for v in values if v == v), reverse=True)
    if len(top) < 2 or top[0] <= 0:
        return 1.0
    return 1.0 - top[1] / top[0]


def spread(values):
    """(best - worst) / best of the samples, 0 with fewer than two."""
    values = [v for v in values if v == v]
    if len(values) < 2 or max(values) <= 0:
        return 0.0
    return 1.0 - min(values) / max(values)


def group_by_size(rows):
    """{(m, n, k, threads): [rows]} in the order the sizes first appear."""
    groups = {}
    for row in rows:
        key = (int(row["m"]), int(row["n"]), int(row["k"]), int(row["threads"]))
        groups.setdefault(key, []).append(row)
    return groups


def aggregate_row(rows, tolerance=TOLERANCE, needed=2):
    """One harness row (a dict of strings) from the samples of one size. A failed
    verification in any sample wins over every pass, so a merge never hides a wrong result."""
    first = rows[0]
    out = dict(first)
    best = [_float(r["gflops_best"]) for r in rows]
    failed = [r for r in rows if r["verified"].strip() == "0" and r["max_rel_err"].strip().lower() != "nan"]
    checked = [r for r in rows if r["verified"].strip() == "1"]
    if failed:
        out["verified"], out["max_rel_err"] = "0", failed[0]["max_rel_err"]
    elif checked:
        out["verified"] = "1"
        out["max_rel_err"] = max((r["max_rel_err"] for r in checked), key=_float)
    else:
        out["verified"], out["max_rel_err"] = "0", "nan"
    top = max(range(len(rows)), key=lambda i: best[i])
    out["gflops_best"] = rows[top]["gflops_best"]
    out["seconds_best"] = rows[top]["seconds_best"]
    out["gflops_median"] = "{:.4f}".format(median(best))
    if "reps" in first:
        out["reps"] = str(sum(int(r["reps"]) for r in rows if (r.get("reps") or "").strip().isdigit()))
    if "cpu_wait" in first:
        waits = [_float(r.get("cpu_wait")) for r in rows]
        waits = [w for w in waits if w == w]
        out["cpu_wait"] = "{:.3f}".format(median(waits)) if waits else "nan"
    out["samples"] = str(len(rows))
    out["settled"] = "1" if settled(best, tolerance, needed) else "0"
    return out


def aggregate(header, rows, tolerance=TOLERANCE):
    """The aggregated CSV's text: the harness's columns (`header`, the samples' own, without
    SAMPLE_COLUMNS), then AGGREGATE_COLUMNS, one row per size in the order sizes first ran."""
    columns = [c for c in header if c not in SAMPLE_COLUMNS and c not in AGGREGATE_COLUMNS] + AGGREGATE_COLUMNS
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    groups = sorted(group_by_size(rows).items())
    needed = needed_samples(quiet_share([[_float(r["gflops_best"]) for r in g] for _, g in groups], tolerance))
    for key, group in groups:
        writer.writerow(aggregate_row(group, tolerance, needed))
    return text.getvalue()


def read_samples(path):
    """(header, rows) of a samples file (SAMPLES/<job>.csv); rows as dicts of strings."""
    with open(path, newline="") as f:
        return rows_of(f.read())


def rows_of(text):
    """(header, rows) of a CSV's text (a sample's, as the scheduler reads it from its pipe)."""
    reader = csv.DictReader(io.StringIO(text, newline=""))
    return list(reader.fieldnames or []), list(reader)


def paired_ratios(ours, theirs, same_threads=True, near=PAIR_NEAR):
    """{(m, threads): (median, lowest, highest, pairs)} of ours / theirs over the rounds in
    which both ran at that size (same `run` and `round`), on as many threads (threads: ours);
    same_threads=False pairs whatever threads each ran on (step 09 on all cores over step 08
    on one). Only the pairs whose two samples both came within `near` of their own best at
    that size count (PAIR_NEAR); a size where no pair did is left out (the callers then take
    the ratio of the bests: a median of pairs each slowed on one side is further off than
    that). Samples without run and round (an older CSV) make no pairs."""
    def index(rows):
        out, best = {}, {}
        for r in rows:
            if not r.get("run") or not r.get("round"):
                continue
            size = (int(r["m"]), int(r["threads"]) if same_threads else 0)
            key = (r["run"], r["round"]) + size
            value = _float(r["gflops_best"])
            if value == value and value > out.get(key, (-1.0, 0))[0]:
                out[key] = (value, int(r["threads"]))
                best[size] = max(best.get(size, 0.0), value)
        return out, best
    (mine, my_best), (ref, ref_best) = index(ours), index(theirs)
    close = {}
    for key, (value, threads) in mine.items():
        other = ref.get(key)
        if other and other[0] > 0 and value >= (1.0 - near) * my_best[key[2:]] \
                and other[0] >= (1.0 - near) * ref_best[key[2:]]:
            close.setdefault((key[2], threads), []).append(value / other[0])
    return {size: (median(v), min(v), max(v), len(v)) for size, v in close.items()}


def checked_samples(path):
    """The rows of a samples file that a figure or summary.md may trust, or an InputError naming
    the file and the problem (harness_csv's rules): a regular file with the harness's columns,
    every row whole, its sizes and threads whole numbers and its GFLOPS finite, from 0 (an inf
    sample would make a size "100 % apart"; a row with m = abc a traceback)."""
    rows = harness_csv.read_rows(path, harness_csv.REQUIRED)
    for line, row in enumerate(rows, start=2):
        for column, top in (("m", harness_csv.MAX_SIZE), ("n", harness_csv.MAX_SIZE), ("k", harness_csv.MAX_SIZE),
                            ("threads", harness_csv.MAX_THREADS)):
            harness_csv.number(path, line, row, column, int, minimum=1, maximum=top)
        harness_csv.number(path, line, row, "gflops_best", minimum=0, maximum=harness_csv.MAX_RATE)
    return rows


def samples_beside(csv_path):
    """The samples behind an aggregated CSV (FOLDER/samples/NAME beside FOLDER/NAME), checked
    (checked_samples); [] when there is none. Anything else at that name (a folder, a FIFO) is
    an InputError: never read as no samples, nor waited on."""
    folder, name = os.path.split(csv_path)
    path = os.path.join(folder, "samples", name)
    if not os.path.lexists(path):
        return []
    return checked_samples(path)
