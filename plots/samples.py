"""Samples (tools/interleave.py's SAMPLES/<job>.csv) and what is drawn from them (docs/harness.md, "How a run
samples"): the best sample, the median, whether a size is settled, paired ratios. Standard library only.
"""
import csv
import io
import math
import os

import harness_csv

TOLERANCE = 0.03   # two samples this close to the best confirm it (tools/interleave.py --tolerance)
MISS = 0.01        # the chance, at most, that every sample of a settled size was slowed by a spell
# A pair (ours and a library's, one round, one size) counts in a paired ratio when both its samples came
# this close to their own size's best: a pair in which a spell slowed one of the two measures the spell.
PAIR_NEAR = 0.10
# The longest job label, which names SAMPLES/<label>.csv; a step's longest is step<NN_slug>_mt, so a step
# folder's name is at most STEP_NAME_MAX (tools/new_step.sh, tools/args.sh and cmake/GemmStep.cmake read it).
MAX_LABEL = 100
STEP_NAME_MAX = 93
assert STEP_NAME_MAX == MAX_LABEL - len("step") - len("_mt")
SAMPLE_COLUMNS = ["run", "round", "seq"]      # the scheduler's, after the harness's columns
AGGREGATE_COLUMNS = ["samples", "settled"]    # an aggregated CSV's, after the harness's columns
TRIM = 0.2           # of paired log-ratios, left out at either end (spoilt pairs)
T_TAIL = 1.959964    # the normal quantile of a two-sided 95 % interval
RESOLVED = 0.25      # a decision this much narrower than its margin is closed: either answer does


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


def _ranked(values):
    return sorted((v for v in values if v == v), reverse=True)   # nan left out


def settled(values, tolerance=TOLERANCE, needed=2):
    """Whether a second sample is within `tolerance` of the best, among at least `needed` samples."""
    top = _ranked(values)
    return len(top) >= max(2, needed) and top[1] >= top[0] * (1.0 - tolerance)


def quiet_share(value_lists, tolerance=TOLERANCE):
    """The share of a job's samples (the bests not counted) at their size's best: how often one misses spells."""
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
    """How many samples make it unlikely (< `miss`) that none missed the spells (two slowed alike agree)."""
    if share >= 1.0:
        return 2
    if share <= 0.0:
        return 1 << 20
    return max(2, int(math.ceil(math.log(miss) / math.log(1.0 - share))))


def gap(values):
    """How far the second-best sample is below the best, as a fraction (1.0 with one sample)."""
    top = _ranked(values)
    if len(top) < 2 or top[0] <= 0:
        return 1.0
    return 1.0 - top[1] / top[0]


def spread(values):
    values = [v for v in values if v == v]
    if len(values) < 2 or max(values) <= 0:
        return 0.0
    return 1.0 - min(values) / max(values)


def aggregate_row(rows, tolerance=TOLERANCE, needed=2):
    """One harness row from the samples of one size; a failed verification wins over every pass."""
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
        waits = [w for w in (_float(r.get("cpu_wait")) for r in rows) if w == w]
        out["cpu_wait"] = "{:.3f}".format(median(waits)) if waits else "nan"
    out["samples"] = str(len(rows))
    out["settled"] = "1" if settled(best, tolerance, needed) else "0"
    return out


def aggregate(header, rows, tolerance=TOLERANCE):
    """The aggregated CSV's text: a row per size, SAMPLE_COLUMNS left out, AGGREGATE_COLUMNS added."""
    columns = [c for c in header if c not in SAMPLE_COLUMNS and c not in AGGREGATE_COLUMNS] + AGGREGATE_COLUMNS
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    groups = {}
    for row in rows:
        groups.setdefault((int(row["m"]), int(row["n"]), int(row["k"]), int(row["threads"])), []).append(row)
    groups = [groups[key] for key in sorted(groups)]
    needed = needed_samples(quiet_share([[_float(r["gflops_best"]) for r in g] for g in groups], tolerance))
    for group in groups:
        writer.writerow(aggregate_row(group, tolerance, needed))
    return text.getvalue()


def read_samples(path):
    with open(path, newline="") as f:
        return rows_of(f.read())


def rows_of(text):
    """(header, rows) of a CSV's text (a sample's, as the scheduler reads it from its pipe)."""
    reader = csv.DictReader(io.StringIO(text, newline=""))
    return list(reader.fieldnames or []), list(reader)


def _by_round(rows, same_threads):
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


def paired_ratios(ours, theirs, same_threads=True, near=PAIR_NEAR):
    """{(m, threads): (median, lowest, highest, pairs)} of ours / theirs over the rounds both ran that size
    (on as many threads unless not `same_threads`), of the pairs both within `near` of their own best."""
    (mine, my_best), (ref, ref_best) = _by_round(ours, same_threads), _by_round(theirs, same_threads)
    close = {}
    for key, (value, threads) in mine.items():
        other = ref.get(key)
        if other and other[0] > 0 and value >= (1.0 - near) * my_best[key[2:]] \
                and other[0] >= (1.0 - near) * ref_best[key[2:]]:
            close.setdefault((key[2], threads), []).append(value / other[0])
    return {size: (median(v), min(v), max(v), len(v)) for size, v in close.items()}


def checked_samples(path):
    """The rows of a samples file, checked by harness_csv's rules (an inf sample would be "100 % apart")."""
    rows = harness_csv.read_rows(path, harness_csv.REQUIRED)
    limits = (("m", harness_csv.MAX_SIZE), ("n", harness_csv.MAX_SIZE), ("k", harness_csv.MAX_SIZE),
              ("threads", harness_csv.MAX_THREADS))
    for line, row in enumerate(rows, start=2):
        for column, top in limits:
            harness_csv.number(path, line, row, column, int, minimum=1, maximum=top)
        harness_csv.number(path, line, row, "gflops_best", minimum=0, maximum=harness_csv.MAX_RATE)
    return rows


def samples_beside(csv_path):
    """The checked samples behind FOLDER/NAME (FOLDER/samples/NAME), [] when there is none."""
    folder, name = os.path.split(csv_path)
    path = os.path.join(folder, "samples", name)
    return checked_samples(path) if os.path.lexists(path) else []


def t_quantile(df):
    """Student's t at the two-sided 95 % point (Cornish-Fisher: within 0.01 of the table from df = 3)."""
    z, df = T_TAIL, max(1, df)
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2) + \
        (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * df ** 3)


def interval(ratios):
    """(estimate, half-width, pairs) of the log-ratios of paired ratios {size: [ratio a round]}: the trimmed
    mean and its 95 % interval from the winsorized spread (Tukey and McLaughlin); infinite under 3 pairs."""
    logs = sorted(math.log(v) for values in ratios.values() for v in values if v > 0)
    n = len(logs)
    if n < 3:
        return (sum(logs) / n if n else 0.0), float("inf"), n
    cut = int(TRIM * n)
    kept = logs[cut:n - cut]
    wins = [logs[cut]] * cut + kept + [logs[n - cut - 1]] * cut
    middle = sum(wins) / n
    deviation = math.sqrt(sum((x - middle) ** 2 for x in wins) / (n - 1))
    return sum(kept) / len(kept), t_quantile(len(kept) - 1) * deviation / (len(kept) / n * math.sqrt(n)), n


def verdict(estimate, half, margin):
    """"won" when the interval clears 1 + margin, "lost" below it or when narrow enough, else "open"."""
    edge = math.log1p(margin)
    if estimate - half > edge:
        return "won"
    return "lost" if estimate + half < edge or half <= RESOLVED * margin else "open"


def round_ratios(ours, theirs, rounds):
    """{size: [ours / theirs in each round of `rounds`]} of two jobs' sample rows, matched by round and size."""
    (mine, _), (other, _) = _by_round(ours, False), _by_round(theirs, False)
    out = {}
    for key in sorted((k for k in mine if k in other and int(k[1]) in rounds and mine[k][0] > 0 < other[k][0]),
                      key=lambda k: (int(k[1]), k[2])):
        out.setdefault(key[2], []).append(mine[key][0] / other[key][0])
    return out
