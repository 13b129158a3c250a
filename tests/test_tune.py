#!/usr/bin/env python3
"""tools/tune.py, the autotuner of step 10: its search run on made-up machines (a bowl whose
optimum is known, a flat one, both with noise and slow spells planted), the record of the
search (STEM.search.csv) against what the search measured and reported, and its figure,
resuming after Ctrl-C or a budget that ran out, the wisdom file, its options, and a few
seconds of the real step 10 when it is built.

    test_tune.py ROOT BIN_DIR     (ROOT: the checkout; BIN_DIR: build/bin)
"""
import contextlib
import csv
import hashlib
import io
import json
import math
import os
import random
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile

ROOT, BIN = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
sys.path.insert(0, os.path.join(ROOT, "tools"))
import tune  # noqa: E402

failures = 0


def check(ok, what):
    global failures
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures += 1


work = tempfile.mkdtemp(prefix="test_tune.")
IDENTITY = ["cpu GenuineIntel 6 207 Emerald Rapids", "caches 49152 2097152 314572800"]
# The made-up machine's rules (what step 10's blocks.cpp would give it) and its optimum: off
# the rules' point in every block size (mc x2, kc x0.5, nc x0.5), no-copy-b helps by 5 %.
RULES = {"mc": 112, "kc": 1056, "nc": 2048, "one-slice": 1056}
OPTIMUM = {"mc": 224, "kc": 528, "nc": 1024}
SWITCH_GAIN = 0.05
# The grid the search stands in for: 17 rungs of every block size (x1/4 .. x4) and 2^4
# switch settings, at 4 sizes x 3 rounds.
GRID_POINTS = 17 ** 3 * 2 ** 4
L2 = int(IDENTITY[1].split()[2])


def bytes_per_flop(mc, kc):
    return 2.0 / mc + 4.0 / kc   # steps/10_tuned/blocks.hpp's outer_bytes_per_flop


def step_plan(rules, bound=0.025, direct=()):
    """plan(options, n): the made-up step's --plan, as blocks.cpp would give it: the options over the rules,
    kc the depth at k = n (one slice up to one-slice, which --kc alone sets to kc), the rules' point alone
    unpacked where the product fits in half of L2, and every size in `direct` unpacked."""
    def plan(options, n):
        b = {c: options.get(c, rules[c]) for c in ("mc", "kc", "nc")}
        depth = max(b["kc"], options.get("one-slice", b["kc"] if "kc" in options else rules.get("one-slice", 0)))
        kc = n if n <= depth else b["kc"]
        packed = n not in direct and (options or 4 * n * n > L2 // 2)
        return {"path": "packed" if packed else "direct", "mc": b["mc"], "kc": kc, "nc": b["nc"], "one_slice": depth,
                "outer_bytes_per_flop": "{:.4f}".format(bytes_per_flop(b["mc"], kc)),
                "max_outer_bytes_per_flop": "{:.4f}".format(bound)}
    return plan


def machine(seed, flat=False, sigma=0.007, spell=0.05, calls=None, sample_seconds=0.2, on_call=None, optimum=OPTIMUM):
    """measure(params, size, round): a smooth bowl in log2(mc), log2(kc), log2(nc) (one octave
    off in each costs 15 %), times multiplicative noise, a sample in `spell` slowed to 2/3 on
    its own (a spell between the two samples of a pair), and whole rounds slowed to 0.7 (a
    spell over a round, which pairs cancel). Deterministic in its arguments, so that a resumed
    run and an uninterrupted one see the same machine."""
    calls = calls if calls is not None else []

    def measure(params, size, round_):
        calls.append((tuple(sorted(params.items())), size, round_))
        rng = random.Random(hashlib.sha256(repr((seed, sorted(params.items()), size, round_)).encode()).digest())
        base = 100.0 * (1 - 200.0 / size)
        if params.get("library"):
            g = base * 1.2
        elif flat:
            g = base
        else:
            q = sum(math.log2(params.get(c, RULES[c]) / optimum[c]) ** 2 for c in optimum)
            g = base / (1 + 0.15 * q) * (1 + SWITCH_GAIN if params.get("no-copy-b") else 1)
        g *= math.exp(rng.gauss(0, sigma))
        if rng.random() < spell:
            g *= 2 / 3
        if (round_ // 4 + seed) % 5 == 0:
            g *= 0.7
        if on_call:
            on_call(len(calls))
        return g

    return tune.Synthetic(measure, RULES, identity=IDENTITY, sample_seconds=sample_seconds,
                          plan=step_plan(RULES)), calls


def run(argv, m, draw=False):
    """tune.main in this process: (exit status, standard output, standard error). The search's
    figure only where `draw`: matplotlib took three quarters of this test's time for figures
    nothing looked at (the record test below checks the one it draws)."""
    out, err = io.StringIO(), io.StringIO()
    draw_search = tune.draw_search
    if not draw:
        tune.draw_search = lambda tuner: None
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = tune.main(argv, machine=m)
    finally:
        tune.draw_search = draw_search
    return status, out.getvalue(), err.getvalue()


def fresh(path):
    stem = path[:-4] if path.endswith(".txt") else path
    for p in (path, path + ".state", stem + ".search.csv", stem + ".tuning.png"):
        if os.path.lexists(p):
            os.unlink(p)
    return path


def wisdom(path):
    """{"1": {option: value}, "all": {...}} of a wisdom file, checked line by line against the
    format; None when it is not that format."""
    with open(path) as f:
        lines = f.read().split("\n")
    if lines[-1] != "":
        return None
    lines = lines[:-1]
    if lines[:5] != [tune.HEADER, "format 1"] + IDENTITY + ["kernel avx512"] or not re.match(r"^noise \d\.\d{3}$",
                                                                                            lines[-1]):
        return None
    out = {}
    for line in lines[5:-1]:
        m = re.match(r"^threads (1|all)((?: [a-z-]+=[0-9]+)*)$", line)
        if not m or m.group(1) in out:
            return None
        out[m.group(1)] = {k: int(v) for k, v in (w.split("=") for w in m.group(2).split())}
    return out


def rungs(options, coord):
    """How many rungs of the search's ladder (the rules' value x 2^(j/4), rounded to a
    multiple of the tile) the found value is from the optimum."""
    def rung(value):
        return round(4 * math.log2(value / RULES[coord]))
    return abs(rung(options.get(coord, RULES[coord])) - rung(OPTIMUM[coord]))


def evaluated(calls):
    """{threads: distinct candidates measured} of a synthetic run (the library not counted)."""
    out = {}
    for params, _, _ in calls:
        p = dict(params)
        if not p.get("library"):
            out.setdefault(p["threads"], set()).add(params)
    return {t: len(s) for t, s in out.items()}


# ---- the search on a bowl: finds the optimum, far from the grid's cost -------------------------

BUDGET = 300
for seed in range(4):
    m, calls = machine(seed)
    path = fresh(os.path.join(work, "bowl.txt"))
    status, out, err = run(["-o", path, "--seed", str(seed), "--budget", str(BUDGET)], m)
    got = wisdom(path) if status == 0 else None
    ok = got is not None and set(got) == {"1", "all"}
    for t in ("1", "all"):
        ok = ok and all(rungs(got[t], c) <= 1 for c in OPTIMUM) and got[t].get("no-copy-b") == 1
    counts = evaluated(calls)
    check(ok, "bowl, seed {}: the optimum mc=224 kc=528 nc=1024 no-copy-b=1 within one rung on 1 thread and all "
              "({})".format(seed, got))
    check(max(counts.values()) <= 45 and len(calls) <= 2 * 800,
          "bowl, seed {}: {} candidates per thread count, {} samples in all, where the grid is {} points x 12 "
          "samples".format(seed, max(counts.values()), len(calls), GRID_POINTS))
    check(m.clock <= BUDGET and "search finished" in out and "did not finish" not in out
          and not os.path.exists(path + ".state"),
          "bowl, seed {}: the search ended within its budget ({:.0f} s of {} on the made-up clock), its state "
          "removed".format(seed, m.clock, BUDGET))
    check("tuned / rules" in out and "rules / library" in out and "tuned / library" in out and
          re.search(r"^  decides differences of \d+\.\d % or more", out, re.M),
          "bowl, seed {}: the report gives tuned/rules, rules/library, tuned/library and what it resolved".format(seed))

# ---- a choice: the form the rules did not pick is tried, and kept only where it wins -----------

# --fold: the rules pick 1 (folded broadcasts) or 2 (one per row) from the core's load ports; a
# table entry can be wrong. The made-up machine runs 8 % faster with `better`; every other point
# alike (the bowl flat), with the bowl's noise and spells.
def fold_machine(seed, rules_fold, better):
    def measure(params, size, round_):
        rng = random.Random(hashlib.sha256(repr((seed, sorted(params.items()), size, round_)).encode()).digest())
        g = 100.0 * (1 - 200.0 / size) * (1.2 if params.get("library") else 1)
        if not params.get("library") and params.get("fold", rules_fold) == better:
            g *= 1.08
        g *= math.exp(rng.gauss(0, 0.007))
        return g * (2 / 3 if rng.random() < 0.05 else 1)
    return tune.Synthetic(measure, dict(RULES, fold=rules_fold), identity=IDENTITY, sample_seconds=0.2,
                          plan=step_plan(RULES))


for rules_fold, better, want in ((2, 1, 1), (1, 2, 2), (1, 1, None)):
    path = fresh(os.path.join(work, "fold.txt"))
    status, out, err = run(["-o", path, "--seed", "3", "--budget", str(BUDGET)], fold_machine(3, rules_fold, better))
    got = wisdom(path) if status == 0 else None
    check(got is not None and all(got[t].get("fold") == want for t in ("1", "all")),
          "rules fold={}, fold={} 8 % faster: the wisdom says fold={} on both thread counts ({})".format(
              rules_fold, better, want, got))

# ---- the traffic beyond L2: a bowl whose optimum reads too much is not followed past the bound --

# mc 28 x kc 2112 reads 2/28 + 4/2112 = 0.073 bytes a FLOP beyond L2 (the step's --plan gives
# it), three times the rules' bound of 0.025: what a quiet machine might pick and a neighbour
# streaming memory would slow. No such point may be measured, and the search still moves as
# far towards it as the bound lets it.
TOO_DEEP = {"mc": 28, "kc": 2112, "nc": 1024}
m, calls = machine(0, optimum=TOO_DEEP)
path = fresh(os.path.join(work, "deep.txt"))
status, out, err = run(["-o", path, "--seed", "0", "--budget", str(BUDGET)], m)
got = wisdom(path) if status == 0 else None
measured = {p for p, _, _ in calls if "library" not in dict(p)}
over = sorted(p for p in measured
              if bytes_per_flop(dict(p).get("mc", RULES["mc"]), dict(p).get("kc", RULES["kc"])) > 0.025)
moved = got is not None and any(got[t].get("kc", RULES["kc"]) > RULES["kc"] for t in got)
check(status == 0 and not over and moved,
      "a bowl past the traffic bound (mc=28 kc=2112): none of {} points measured reads over 0.025 bytes a FLOP "
      "beyond L2 ({}), and kc still grew towards it ({})".format(len(measured), over[:3], got))

# ---- the record of the search (STEM.search.csv): what was measured, chained to the rules -----------

def record_of(path):
    """(header, rows) of the search record beside the wisdom file `path`."""
    with open(path[:-4] + ".search.csv", newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        return header, [dict(zip(header, row)) for row in reader]


def options_of(text):
    """{option: value} of an options field ("mc=224 kc=528")."""
    return {k: int(v) for k, v in (w.split("=") for w in text.split())}


def report_of(out):
    """{setting: {"candidates": N, "tuned/rules": estimate, "per size": {size: median}, "noise": the widest
    interval's half-width it closed}} of the report."""
    got, setting = {}, None
    for line in out.splitlines():
        m = re.match(r"^threads (1|all) \(", line)
        if m:
            setting = got.setdefault(m.group(1), {})
        m = re.match(r"^  tuned / rules +(\d\.\d{3}) \[.*per size: (.*)$", line)
        if m and setting is not None:
            setting["tuned/rules"] = float(m.group(1))
            setting["per size"] = {int(a): float(b) for a, b in (w.split() for w in m.group(2).split(", "))}
        m = re.match(r"^  decides differences of .* intervals \+-[0-9.]+ % to \+-([0-9.]+) %", line)
        if m and setting is not None:
            setting["noise"] = float(m.group(1)) / 100
        m = re.match(r"^  (\d+) candidates, \d+ samples", line)
        if m and setting is not None:
            setting["candidates"] = int(m.group(1))
    return got


for seed in range(2):
    m, calls = machine(seed)
    path = fresh(os.path.join(work, "record.txt"))
    status, out, err = run(["-o", path, "--seed", str(seed)], m, draw=True)
    header, rows = record_of(path)
    reported, got = report_of(out), wisdom(path)
    check(status == 0 and header == list(tune.SEARCH_COLUMNS) and "search: " + path[:-4] + ".search.csv" in out,
          "seed {}: the search record is written beside the wisdom file, with the documented columns".format(seed))
    measured = {}
    for params, _, _ in calls:
        p = dict(params)
        if not p.get("library"):
            measured.setdefault(str(p.pop("threads")), set()).add(tuple(sorted(p.items())))
    for t, threads in (("1", 1), ("all", 2)):
        mine = [r for r in rows if r["threads"] == t]
        searched = [r for r in mine if r["phase"] != "final"]
        options = set(tuple(sorted(options_of(r["options"]).items())) for r in searched)
        # Every candidate the search measured, once per batch it was judged in; the rules are
        # the first incumbent, never a candidate.
        check(len(searched) == reported[t]["candidates"] and options | {()} == measured[str(threads)]
              and all(r["thread_count"] == str(threads) for r in mine),
              "seed {}, threads {}: a row per candidate judged ({} rows, the report's {}), the same {} points the "
              "made-up machine was asked for".format(seed, t, len(searched), reported[t]["candidates"],
                                                     len(measured[str(threads)]) - 1))
        # The blocks of each row are those it ran with (the rules' where its options set none).
        check(all(int(r[c]) == options_of(r["options"]).get(c, RULES[c]) for r in mine for c in ("mc", "kc", "nc")),
              "seed {}, threads {}: each row's mc, kc, nc are its options', else the rules'".format(seed, t))
        # The incumbents: each batch compared with the last point adopted before it, and its
        # ratio to the rules carried on (chained) from that point's: times its own estimated ratio.
        chain_ok, incumbent, to_rules = True, "", 1.0
        for batch in sorted(set(int(r["batch"]) for r in searched)):
            here = [r for r in searched if int(r["batch"]) == batch]
            for r in here:
                chain_ok = chain_ok and r["vs"] == incumbent and abs(float(r["vs_to_rules"]) - to_rules) < 2e-4
                if r["ratio"]:
                    chain_ok = chain_ok and abs(float(r["ratio_to_rules"]) -
                                                float(r["vs_to_rules"]) * float(r["ratio"])) < 3e-4
            adopted = [r for r in here if r["adopted"] == "1"]
            chain_ok = chain_ok and len(adopted) <= 1
            if adopted:
                incumbent, to_rules = adopted[0]["options"], float(adopted[0]["ratio_to_rules"])
        winner = " ".join("{}={}".format(k, v) for k, v in got[t].items())
        check(chain_ok and all(r["winner"] == winner == incumbent for r in mine) and winner,
              "seed {}, threads {}: each batch against the last point adopted, its ratio to the rules that point's "
              "times its own; the winner ({}) is the last one adopted and the wisdom file's".format(seed, t, winner))
        final = [r for r in mine if r["phase"] == "final"]
        ok = len(final) == 1 and final[0]["options"] == winner and final[0]["adopted"] == "1"
        if ok:
            per_size = {int(a): float(b) for a, b in (w.split(":") for w in final[0]["per_size"].split())}
            ok = abs(float(final[0]["ratio"]) - reported[t]["tuned/rules"]) <= 0.0006 and \
                set(per_size) == set(reported[t]["per size"]) and \
                all(abs(per_size[n] - reported[t]["per size"][n]) <= 0.0006 for n in per_size)
        check(ok, "seed {}, threads {}: the final row is the winner against the rules, the report's tuned / rules "
                  "{} and its per-size medians".format(seed, t, reported[t]["tuned/rules"]))
        # The winner's ratio to the rules chained through the incumbents (measured only against
        # each incumbent) against the same ratio measured side by side in the final rounds.
        chained, confirmed = to_rules, reported[t]["tuned/rules"]
        check(abs(chained / confirmed - 1) <= 2 * reported[t]["noise"],
              "seed {}, threads {}: the winner's chained ratio to the rules, {:.4f}, is the final rounds' {:.3f} "
              "within twice the noise ({:.3f})".format(seed, t, chained, confirmed, reported[t]["noise"]))
        check(all(r["cpu"] == IDENTITY[0][4:] and r["uarch"] == "Emerald Rapids" and
                  [r["l1d"], r["l2"], r["l3"]] == IDENTITY[1].split()[1:] and r["complete"] == "1" and
                  [int(r["rules_" + c]) for c in ("mc", "kc", "nc")] == [RULES[c] for c in ("mc", "kc", "nc")]
                  for r in mine),
              "seed {}, threads {}: every row names the CPU, its caches and the rules' blocks".format(seed, t))
    figure = path[:-4] + ".tuning.png"
    try:
        import matplotlib  # noqa: F401
        drawable = True
    except ImportError:   # tune.py then draws with /usr/bin/python3 when that one has matplotlib
        drawable = "figure: " + figure in out
    if drawable:
        png = open(figure, "rb").read() if os.path.isfile(figure) else b""
        check(png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20000 and "figure: " + figure in out,
              "seed {}: the figure drawn beside the wisdom file by plots/plot_tuning.py ({} bytes)".format(
                  seed, len(png)))
    else:
        check(not os.path.exists(figure) and re.search(r"^figure: not drawn, no matplotlib .*draw it with: .*"
                                                       r"plot_tuning\.py ", out, re.M),
              "seed {}: no matplotlib: one line says how to draw the figure later".format(seed))

path = fresh(os.path.join(work, "notours.txt"))
with open(path[:-4] + ".search.csv", "w") as f:
    f.write("someone's,table\n1,2\n")
status, out, err = run(["-o", path, "--seed", "1"], machine(1)[0])
with open(path[:-4] + ".search.csv") as f:
    check(status == 3 and f.read() == "someone's,table\n1,2\n" and err.count("\n") == 1 and
          "not the search record" in err and not os.path.exists(path),
          "a file where the search record goes that is not one is not overwritten: exit 3 before any run, one line")
os.unlink(path[:-4] + ".search.csv")
status, out, err = run(["-o", "/dev/null", "--seed", "1", "--threads", "1"], machine(1, flat=True)[0])
check(status == 0 and "search:" not in out and not os.path.exists("/dev/null.search.csv"),
      "a device as the wisdom file: no search record, as no state")

# ---- a flat machine: nothing beats the rules, and noise is never adopted --------------------------

for seed in range(4):
    for sigma, spell in ((0.007, 0.05), (0.01, 0.10)):
        m, calls = machine(seed, flat=True, sigma=sigma, spell=spell)
        path = fresh(os.path.join(work, "flat.txt"))
        status, out, err = run(["-o", path, "--seed", str(seed)], m)
        got = wisdom(path) if status == 0 else None
        check(got == {"1": {}, "all": {}},
              "flat, seed {}, noise {:.1f} % and {:.0f} % of samples slowed by a third: the rules kept, the threads "
              "lines empty ({})".format(seed, 100 * sigma, 100 * spell, got))

# ---- a busy host: slow spells over time, which pairs cancel and absolute samples do not ---------

def spells(seed, gain=0.03, jitter=0.003, slow=0.15, spell=2.0):
    """A made-up busy host, as tools/noise makes one: the made-up clock in spells of `spell`
    seconds (ten samples), each slowed by `slow` or not, at even odds; a jitter of `jitter` per
    sample; and one planted optimum, mc = 224 (x2 the rules'), `gain` faster than everything
    else, which runs alike. Deterministic in the seed and the clock."""
    box = []

    def measure(params, size, round_):
        clock = box[0].clock
        rng = random.Random(hashlib.sha256(repr((seed, sorted(params.items()), size, round_, clock)).encode()).digest())
        g = 100.0 * (1 - 200.0 / size) * (1.2 if params.get("library") else 1)
        if not params.get("library") and params.get("mc") == 224:
            g *= 1 + gain
        if random.Random("{}:{}".format(seed, int(clock // spell))).random() < 0.5:
            g *= 1 - slow
        return g * math.exp(rng.gauss(0, jitter))

    box.append(tune.Synthetic(measure, RULES, identity=IDENTITY, sample_seconds=0.2, plan=step_plan(RULES)))
    return box[0]


def absolute(self, ours, theirs, rounds):
    """The old rule's view, for the comparison below: each of our samples over the geometric
    mean of all of theirs at its size in these rounds, not over its neighbour in time."""
    def at(job):
        out = {}
        for r in job.rows:
            if int(r["round"]) in rounds:
                out.setdefault(int(r["m"]), []).append(float(r["gflops_best"]))
        return out
    mine, other = at(ours), at(theirs)
    return {n: [v / math.exp(sum(math.log(w) for w in other[n]) / len(other[n])) for v in mine[n]]
            for n in mine if n in other}


PLANT = {"1": {"mc": 224}, "all": {"mc": 224}}
paired = tune.Search.compare
for seed in range(3):
    for rule in ("pairs", "absolute"):
        m = spells(seed)
        path = fresh(os.path.join(work, "spells.txt"))
        tune.Search.compare = paired if rule == "pairs" else absolute
        try:
            status, out, err = run(["-o", path, "--seed", str(seed), "--budget", str(BUDGET)], m)
        finally:
            tune.Search.compare = paired
        got = wisdom(path) if status == 0 else None
        if rule == "pairs":
            check(got == PLANT and out.count("search finished") == 2 and "open at the end" not in out and
                  m.clock <= 0.9 * BUDGET and re.search(r"^  decides differences of \d\.\d % or more", out, re.M),
                  "spells of 15 % over time, seed {}: decided by pairs, the planted 3 % (mc=224) found and nothing "
                  "else ({}); every decision closed, so it stopped early ({:.0f} s of {})".format(
                      seed, got, m.clock, BUDGET))
            check(re.search(r"^tune\.py: threads 1: .*; mc=224 [+-]\d+\.\d % \[[+-]\d+\.\d, [+-]\d+\.\d\] won;",
                            err, re.M),
                  "seed {}: the progress line gives each decision's interval and verdict".format(seed))
        else:
            check(status == 0 and got != PLANT and m.clock >= 0.9 * BUDGET,
                  "... decided by absolute samples, the same search does not find it ({}; {:.0f} s "
                  "used)".format(got, m.clock))
# A candidate at the margin itself (1 %, per-sample jitter 2 %) keeps its decision open: the
# search spends the budget on it.
m = spells(1, gain=0.01, jitter=0.02)
path = fresh(os.path.join(work, "spells.txt"))
status, out, err = run(["-o", path, "--seed", "1", "--threads", "1", "--budget", str(BUDGET)], m)
check(status == 0 and m.clock >= 0.9 * BUDGET and "open at the end" in out and "budget ended the search" in out,
      "a gain of 1 %, the margin, under 2 % jitter: the decision stays open and the search uses {:.0f} s of the {} "
      "s budget".format(m.clock, BUDGET))
status, out, err = run(["-o", path, "--seed", "1", "--threads", "1", "--budget", str(BUDGET), "--margin", "0.5",
                        "--fresh"], spells(1, gain=0.01, jitter=0.003))
check(status == 0 and wisdom(path) == {"1": {"mc": 224}} and "margin 0.5 %" in out,
      "--margin 0.5: the same 1 % with little jitter is found ({})".format(wisdom(path)))

# ---- which candidates run: nothing for a block size at or above every training size ---------------

seen = []
real_like = {"mc": 112, "kc": 1056, "nc": 37216, "one-slice": 1984}   # Emerald Rapids' rules


def real_like_measure(params, size, round_):
    seen.append(dict(params))
    return 100.0 * (1 + 0.01 * math.sin(len(seen)))


def search_on(rules, plan):
    """A Search on one thread of a made-up machine whose step gives `plan`."""
    tuner = tune.Tuner(tune.parse_args(["--threads", "1"]), tune.Synthetic(real_like_measure, rules,
                                                                             identity=IDENTITY, plan=plan), None, None)
    tuner.seed, tuner.state = 1, {"groups": {}}
    return tune.Search(tuner, "1", 1, 0)


path = fresh(os.path.join(work, "plateau.txt"))
status, out, err = run(["-o", path, "--seed", "1", "--threads", "1"],
                       tune.Synthetic(real_like_measure, real_like, identity=IDENTITY, plan=step_plan(real_like)))
check(status == 0 and not any("nc" in p for p in seen),
      "nc = 37216 on 300 MiB of L3: every rung of nc is above the largest size, so none is measured")
search = search_on(real_like, step_plan(real_like))
check(not any("kc" in p and "one-slice" not in p for p in seen) and
      all(search.options(tune.Point([r, 0, 0, 0])).get("one-slice") == 1984 for r in (-4, -1, 1, 2)),
      "a candidate that sets kc keeps the rules' one-slice depth (--kc alone would turn it off)")
search.measurer.close()
# The record's one-slice depth is the step's, from its plan: a step that plans 777 is recorded so.
search = search_on(real_like, lambda options, n: dict(step_plan(real_like)(options, n), one_slice=777))
check(all(search.effective(tune.Point([r, 0, 0, 0]))["one-slice"] == 777 for r in (-1, 0, 1)),
      "the search record's one-slice depth is the one the step's --plan gives")
search.measurer.close()
# A rung that changes nothing at the training sizes is passed over, not taken for a candidate
# nor for the end of the ladder: mc = 2240 and 1883 (one rung down) are both the whole matrix
# at n <= 1792, so one rung down from 2240 is 1582 (two rungs).
search = search_on(dict(real_like, mc=2240), step_plan(dict(real_like, mc=2240)))
down = search.move(search.incumbent, search.coords.index("mc"), -1)
check(down is not None and search.options(down).get("mc") == 1582 and
      search.move(search.incumbent, search.coords.index("mc"), 1) is None,
      "one rung down from mc = 2240 at n <= 1792 is mc = 1582, past 1883 which runs alike; up, nothing is new")
search.measurer.close()
# What runs alike is what the step's --plan says, not a rule of tune.py's: a plan that gives the
# direct path at n = 640 for any options makes mc one rung up from the rules run differently only
# at the other sizes; a step that plans the rules' blocks whatever the options leaves no block to move.
up = {}
for name, plan in (("rules", step_plan(RULES)), ("direct", step_plan(RULES, direct=(640,))),
                   ("deaf", lambda options, n: step_plan(RULES)({}, n))):
    search = search_on(RULES, plan)
    point = search.incumbent.moved(search.coords.index("mc"), 1)
    up[name] = (search.effect(point), search.effect(search.incumbent),
                [search.move(search.incumbent, i, 1) for i in range(len(search.coords))])
    search.measurer.close()
check(up["rules"][0] != up["direct"][0] and up["rules"][0][0][1:] == up["direct"][0][0][1:] and
      all(p is None for p in up["deaf"][2]) and up["rules"][2][1] is not None,
      "the effect of a point is the step's plan: a plan with path=direct at n = 640 changes it, and a step whose "
      "plan ignores the options gives no block candidate")
# --plan's lines as the step prints them; a size without one, or a field that is no value, is a failure.
said = "n=96 path=direct mc=112 kc=96 nc=3968 one_slice=1056 threads=2 outer_bytes_per_flop=0.0393 " \
    "max_outer_bytes_per_flop=0.0250\nn=1000 path=packed mc=112 kc=1000 nc=3968 one_slice=1056 threads=2 " \
    "outer_bytes_per_flop=0.0219 max_outer_bytes_per_flop=0.0250\n"
plans = tune.parse_plans(said, [1000, 96], "step10_tuned --plan")
refused = []
for text in (said.split("\n")[0], said.replace("kc=1000", "kc=")):
    try:
        tune.parse_plans(text, [1000, 96], "step10_tuned --plan")
    except tune.Failure as e:
        refused.append(e.status == 1 and str(e).startswith("step10_tuned --plan: no plan 'n="))
check([p["path"] for p in plans] == ["packed", "direct"] and plans[0]["kc"] == "1000" and refused == [True, True],
      "--plan's output is read per size in the order asked; a size without its line or a field without a value fails")
# The traffic bound is the plan's max_outer_bytes_per_flop: a step that allows 0.1 lets the search
# measure mc = 28 x kc = 2112's neighbours; at the bound of 0.025 none is (above).
m, calls = machine(0, optimum=TOO_DEEP)
m.plan = step_plan(RULES, bound=0.1)
status, out, err = run(["-o", fresh(os.path.join(work, "deep.txt")), "--seed", "0", "--budget", str(BUDGET)], m)
over = [p for p, _, _ in calls if "library" not in dict(p) and
        bytes_per_flop(dict(p).get("mc", RULES["mc"]), min(1792, dict(p).get("kc", RULES["kc"]))) > 0.025]
check(status == 0 and over, "a plan whose max_outer_bytes_per_flop is 0.1: points above 0.025 are measured "
      "({} of them)".format(len(over)))

# ---- resuming: after Ctrl-C, nothing measured again, the same result -----------------------------

m, whole = machine(11)
path = fresh(os.path.join(work, "whole.txt"))
status, out, err = run(["-o", path, "--seed", "11"], m)
with open(path) as f:
    uninterrupted = f.read()
first = []


def interrupt_at(count):
    if count == 150:
        os.kill(os.getpid(), signal.SIGINT)


m, calls = machine(11, calls=first, on_call=interrupt_at)
path = fresh(os.path.join(work, "resumed.txt"))
status, out, err = run(["-o", path, "--seed", "11"], m)
check(status == 130 and not os.path.exists(path) and os.path.exists(path + ".state") and len(first) < 200,
      "Ctrl-C after 150 samples: exit 130 once the group running ends ({} samples), no wisdom file, the state "
      "kept".format(len(first)))
# The record was written after every batch: what was judged before Ctrl-C is there, as the
# uninterrupted run judged it (all but the search's own columns, which say how far it got).
_, whole_rows = record_of(os.path.join(work, "whole.txt"))
_, cut_rows = record_of(path) if os.path.exists(path[:-4] + ".search.csv") else (None, [])
judged = [c for c in tune.SEARCH_COLUMNS if c not in ("winner", "complete")]
check(cut_rows and len(cut_rows) < len(whole_rows) and
      [[r[c] for c in judged] for r in cut_rows] == [[r[c] for c in judged] for r in whole_rows[:len(cut_rows)]]
      and all(r["complete"] == "0" for r in cut_rows),
      "after Ctrl-C the search record holds the {} rows judged before it, as the uninterrupted run has "
      "them".format(len(cut_rows)))
m, second = machine(11)
status, out, err = run(["-o", path], m)   # the same command but the seed, which the state keeps
with open(path) as f:
    resumed = f.read()
check(status == 0 and resumed == uninterrupted, "the rerun gives the uninterrupted run's wisdom file")
with open(path[:-4] + ".search.csv") as f, open(os.path.join(work, "whole.search.csv")) as g:
    check(f.read() == g.read(), "... and goes on with the search record to the uninterrupted run's")
check(not set(first) & set(second) and sorted(first + second) == sorted(whole),
      "the rerun measures none of the {} samples taken before it, and the two runs together take exactly the "
      "uninterrupted run's {}".format(len(first), len(whole)))
check(not os.path.exists(path + ".state"), "the state is removed once the search has ended")

# ... and after a budget that ran out, again and again
path = fresh(os.path.join(work, "budget.txt"))
taken, runs, done = [], 0, False
while runs < 12 and not done:
    m, _ = machine(11, calls=taken)
    status, out, err = run(["-o", path, "--seed", "11", "--budget", "60"], m)
    runs += 1
    done = status == 0 and not os.path.exists(path + ".state")
    if runs <= 2:
        check(status == 0 and m.clock <= 60 and wisdom(path) is not None and (runs == 2 or not done),
              "budget 60 s, run {}: stopped within it ({:.0f} s), the best so far written".format(runs, m.clock))
with open(path) as f:
    check(done and runs > 2 and f.read() == uninterrupted and set(whole) <= set(taken),
          "runs cut by a 60 s budget, each going on from the state: after {} runs the uninterrupted run's "
          "result".format(runs))
with open(path[:-4] + ".search.csv") as f, open(os.path.join(work, "whole.search.csv")) as g:
    check(f.read() == g.read(), "... and the uninterrupted run's search record")

# --fresh: the state is not used
m, calls = machine(11, on_call=interrupt_at)
path = fresh(os.path.join(work, "fresh.txt"))
run(["-o", path, "--seed", "11"], m)
m, again = machine(11)
status, out, err = run(["-o", path, "--seed", "11", "--fresh"], m)
check(status == 0 and sorted(again) == sorted(whole), "--fresh measures everything again")

# ---- the wisdom file -----------------------------------------------------------------------------

path = fresh(os.path.join(work, "theirs.txt"))
with open(path, "w") as f:
    f.write("someone's notes\n")
status, out, err = run(["-o", path, "--seed", "1"], machine(1)[0])
with open(path) as f:
    check(status == 3 and f.read() == "someone's notes\n" and err.count("\n") == 1 and "not a wisdom file" in err,
          "a file that is not a wisdom file is not overwritten: exit 3, one line ({})".format(err.strip()))
with open(fresh(path) + ".state", "w") as f:
    f.write("{}\n")
status, out, err = run(["-o", path, "--seed", "1"], machine(1)[0])
check(status == 3 and err.count("\n") == 1 and "not a state file" in err,
      "nor a state file that is not tune.py's: exit 3, one line")
os.unlink(path + ".state")
# Through a symbolic link: the target replaced, the link kept (plots/output_file.py's rules).
target = fresh(os.path.join(work, "target.txt"))
link = fresh(os.path.join(work, "link.txt"))
os.symlink(target, link)
status, out, err = run(["-o", link, "--seed", "1", "--threads", "all"], machine(1, flat=True)[0])
check(status == 0 and os.path.islink(link) and wisdom(target) == {"all": {}},
      "through a symbolic link: the target written, the link kept")
# One thread count tuned: the other's line is kept from the file there.
with open(target) as f:
    text = f.read().replace("threads all\n", "threads all mc=448\n")
with open(target, "w") as f:
    f.write(text)
status, out, err = run(["-o", target, "--seed", "1", "--threads", "1"], machine(1, flat=True)[0])
check(status == 0 and wisdom(target) == {"1": {}, "all": {"mc": 448}},
      "--threads 1 writes its line and keeps the file's threads all line")
with open(target) as f:
    text = f.read().replace("threads all mc=448\n", "threads all mc=4x8\n")
with open(target, "w") as f:
    f.write(text)
status, out, err = run(["-o", target, "--seed", "1", "--threads", "1"], machine(1, flat=True)[0])
check(status == 0 and wisdom(target) == {"1": {}} and "not kept" in err,
      "... but not a damaged one (mc=4x8), which step 10 would refuse the whole file for")
status, out, err = run(["-o", "/proc/no/such/wisdom.txt"], machine(1)[0])
check(status == 3 and err.count("\n") == 1, "a folder that cannot be made: exit 3, one line")
status, out, err = run(["-o", work], machine(1)[0])
check(status == 3 and err.count("\n") == 1, "a folder as the output: exit 3, one line")

# ---- the command line --------------------------------------------------------------------------

TOOL = [sys.executable, os.path.join(ROOT, "tools", "tune.py")]
for bad in (["--budget", "x"], ["--budget", "0"], ["--budget", "nan"], ["--threads", "3"], ["--sizes", "0"],
            ["--sizes", "10,x"], ["--rounds", "1"], ["--rounds", "99"], ["--seed", "-1"], ["--kernel", "a b"],
            ["--margin", "0"], ["--margin", "x"], ["--margin", "60"], ["--bogus"], ["-o"], ["extra"],
            ["--build", os.path.join(work, "no-build")]):
    r = subprocess.run(TOOL + bad + ["-o", os.path.join(work, "usage.txt")] * (bad != ["-o"]),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    check(r.returncode == 2 and r.stderr.count("\n") == 1 and r.stderr.startswith("tune.py: ") and not r.stdout
          and not os.path.exists(os.path.join(work, "usage.txt")),
          "usage error {}: exit 2, one line ({})".format(bad, r.stderr.strip()))
r = subprocess.run(TOOL + ["--bogus", "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                   universal_newlines=True)
check(r.returncode == 0 and "wisdom" in r.stdout and not r.stderr, "--help wins over a bad option: exit 0")

# ---- hostile inputs: damaged states, FIFOs, wild noise, names, a second tuner, SIGTERM -----------

def child(argv, timeout=20, code=""):
    """tune.main on a flat made-up machine in a child process, so that a hang is a failure of
    `timeout` seconds, not a hung test: (exit status or "hung", standard error)."""
    script = ("import sys; sys.path.insert(0, {!r}); import tune, test_machine\n{}\n"
              "sys.exit(tune.main(sys.argv[1:], machine=tune.Synthetic(lambda p, n, r: 100.0, test_machine.RULES, "
              "identity=test_machine.IDENTITY)))".format(os.path.join(ROOT, "tools"), code))
    try:
        r = subprocess.run([sys.executable, "-c", script] + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=timeout, cwd=work)
    except subprocess.TimeoutExpired:
        return "hung", ""
    return r.returncode, r.stderr


def stat_is_fifo(path):
    return os.path.lexists(path) and stat.S_ISFIFO(os.lstat(path).st_mode)


with open(os.path.join(work, "test_machine.py"), "w") as f:
    f.write("RULES = {!r}\nIDENTITY = {!r}\n".format(RULES, IDENTITY))
for where in (".state", ".search.csv"):
    path = fresh(os.path.join(work, "fifo.txt"))
    fifo = path + ".state" if where == ".state" else path[:-4] + where
    os.mkfifo(fifo)
    status, err = child(["-o", path, "--threads", "1", "--budget", "20", "--seed", "1"])
    check(status == 3 and err.count("\n") == 1 and "FIFO" in err and stat_is_fifo(fifo) and not os.path.exists(path),
          "a FIFO at the {} path: exit 3 and one line before any run, not a hang ({}: {})".format(
              where, status, err.strip()))
    os.unlink(fifo)

# A machine this noisy (samples a factor of e^N(0, 0.6) off; mc x2 2.5 times faster) keeps the
# first batch's decisions open: its kc candidates change nothing, and intervals of +-10-20 %
# cannot tell whether they gain 1 %. The search spends the budget on them and says so.


def wild(params, size, round_):
    rng = random.Random(hashlib.sha256(repr((sorted(params.items()), size, round_)).encode()).digest())
    return 100.0 * (2.5 if params.get("mc", 0) > RULES["mc"] else 1) * math.exp(rng.gauss(0, 0.6))


path = fresh(os.path.join(work, "wild.txt"))
m = tune.Synthetic(wild, RULES, identity=IDENTITY, plan=step_plan(RULES))
status, out, err = run(["-o", path, "--seed", "5", "--threads", "1", "--no-ref"], m)
_, rows = record_of(path)
check(status == 0 and wisdom(path) == {"1": {}} and not any(r["adopted"] == "1" for r in rows) and
      m.clock >= 0.9 * BUDGET and re.search(r"open at the end, the widest \+-\d+\.\d %", out) and
      any(r["decision"] == "open" for r in rows),
      "samples e^N(0, 0.6) off: the kc candidates stay open, nothing adopted, {:.0f} s of the {} s budget used, "
      "the report gives the open decisions' width".format(m.clock, BUDGET))

# A damaged state of tune.py: exit 3, one line, no traceback, the file left as it was.
path = fresh(os.path.join(work, "damaged.txt"))
status, out, err = run(["-o", path, "--seed", "11", "--threads", "1", "--budget", "25"], machine(11)[0])
with open(path + ".state") as f:
    good = json.load(f)
group = next(iter(good["groups"]["1"].values()))
job = next(iter(group))


def damaged(change):
    state = json.loads(json.dumps(good))
    change(state, state["groups"]["1"][next(iter(good["groups"]["1"]))][job])
    return json.dumps(state)


def setter(*keys, value):
    def change(state, record):
        target = state if keys[0] in ("seed", "groups") else record
        for k in keys[:-1]:
            target = target[k]
        if value is KeyError:
            del target[keys[-1]]
        else:
            target[keys[-1]] = value
    return change


cases = {"a group that is a list": setter("groups", "1", value=[]), "a string": setter("groups", "1", value="x"),
         "null": setter("groups", "1", value=None), "a seed 'abc'": setter("seed", value="abc"),
         "a row without gflops_best": setter("row", "gflops_best", value=KeyError),
         "a wall time 'x'": setter("wall", value="x"), "a negative wall time": setter("wall", value=-100.0),
         "GFLOPS nan": setter("row", "gflops_best", value="nan"), "GFLOPS -5": setter("row", "gflops_best", value="-5")}
texts_of = {name: damaged(change) for name, change in cases.items()}
texts_of["100,000 nested brackets"] = '{"tool": "' + tune.STATE_TOOL + '", "groups": ' + "[" * 100000 + "]" * 100000 + "}"
bad = []
for name, text in texts_of.items():
    with open(path + ".state", "w") as f:
        f.write(text)
    try:
        status, out, err = run(["-o", path, "--seed", "11", "--threads", "1", "--budget", "25"], machine(11)[0])
    except Exception as e:   # a traceback
        status, out, err = "a traceback", "", repr(e)
    with open(path + ".state") as f:
        kept = f.read() == text
    if not (status == 3 and err.count("\n") == 1 and "damaged state" in err and kept):
        bad.append("{}: exit {} {}".format(name, status, err.strip().splitlines()[-1:]))
check(not bad, "a damaged state (a group a list, a string, null; seed 'abc'; a row without gflops_best; a wall "
               "time 'x' or negative; GFLOPS nan or -5; 100,000 nested brackets): exit 3, one line, the file "
               "kept ({})".format(bad))
with open(path + ".state", "w") as f:
    f.write(texts_of["GFLOPS nan"])
status, out, err = run(["-o", path, "--seed", "11", "--threads", "1", "--budget", "25", "--fresh"], machine(11)[0])
check(status == 0 and wisdom(path) is not None, "--fresh measures afresh over a damaged state")

# Names: an empty -o, a folder under a file, and a legal 254-character name whose side files
# would be longer than a name may be.
for argv, status_wanted, said in ((["-o", ""], 2, "empty"), (["-o", "/etc/passwd/x.txt"], 3, "/etc/passwd is not a folder")):
    status, out, err = run(argv + ["--seed", "1"], machine(1)[0])
    check(status == status_wanted and err.count("\n") == 1 and said in err and "File exists" not in err,
          "-o {!r}: exit {}, one line ({})".format(argv[1], status_wanted, err.strip()))
path = fresh(os.path.join(work, "w" * 250 + ".txt"))
status, out, err = run(["-o", path, "--seed", "11", "--threads", "1", "--budget", "25"], machine(11)[0])
side = [n for n in os.listdir(work) if n.startswith("w" * 200)]
check(status == 0 and wisdom(path) is not None and len(side) == 3 and any(n.endswith(".state") for n in side) and
      any(n.endswith(".search.csv") for n in side),
      "a 254-character -o: written, its state and search record beside it under names cut to fit ({})".format(
          [n[240:] for n in side]))
status, out, err = run(["-o", path, "--seed", "11", "--threads", "1", "--budget", "25"], machine(11)[0])
check(status == 0 and "resuming from" in err, "... and the same command finds its state again")

# A stand-in build: cpuinfo --json (a recorded machine, its wisdom lines IDENTITY) and a step10_tuned (sh) that writes a harness row of 100
# GFLOPS, on as many threads as OMP_THREAD_LIMIT lets it (as the harness reports them; at the
# probe's n = 16 one thread, as step 10's least work per thread gives, unless --min-kflops 1); a
# sample (not the probe's n = 16) writes its pid to $STANDIN_MARK and, with STANDIN_HANG, waits
# on a child of its own (whose pid it writes too), as a job script's children would run.
standin = os.path.join(work, "standin")
os.makedirs(os.path.join(standin, "bin"))


def standin_cpuinfo(path):
    """A cpuinfo at `path` that answers --json with a recorded machine whose wisdom lines are IDENTITY."""
    with open(os.path.join(ROOT, "tests", "data", "zen3-busy", "machine.json")) as f:
        recorded = json.load(f)
    recorded["identity"]["wisdom_lines"] = IDENTITY
    with open(path + ".json", "w") as f:
        json.dump(recorded, f)
    with open(path, "w") as f:
        f.write('#!/bin/sh\n[ "$1" = --json ] || exit 2\ncat "{}"\n'.format(path + ".json"))
    os.chmod(path, 0o755)


standin_cpuinfo(os.path.join(standin, "bin", "cpuinfo"))
with open(os.path.join(standin, "bin", "step10_tuned"), "w") as f:
    f.write(r'''#!/bin/sh
size= csv= threads=1 mc=112 kc=1056 nc=2048 least= plan=
while [ $# -gt 0 ]; do
  case $1 in
    --no-verify) ;; --plan) plan=1 ;;
    --sizes) size=$2; shift ;; --csv) csv=$2; shift ;; --threads) threads=$2; shift ;;
    --min-kflops) least=$2; shift ;;
    --mc) mc=$2; shift ;; --kc) kc=$2; shift ;; --nc) nc=$2; shift ;;
    --*) shift ;;
  esac
  shift
done
[ -n "$OMP_THREAD_LIMIT" ] && [ "$OMP_THREAD_LIMIT" -lt "$threads" ] && threads=$OMP_THREAD_LIMIT
[ "$size" = 16 ] && [ "$least" != 1 ] && threads=1   # as step 10: a product this small runs on one
if [ -n "$plan" ]; then
  for n in $(echo "$size" | tr , ' '); do
    echo "n=$n path=packed mc=$mc kc=$kc nc=$nc one_slice=$kc threads=$threads outer_bytes_per_flop=0.0200" \
      "max_outer_bytes_per_flop=0.0250"
  done
  exit 0
fi
if [ "$size" != 16 ] && [ -n "$STANDIN_MARK" ]; then
  if [ -n "$STANDIN_HANG" ]; then
    sleep 60 & echo $$ $! > "$STANDIN_MARK.new" && mv "$STANDIN_MARK.new" "$STANDIN_MARK"; wait; exit 1
  fi
  echo $$ > "$STANDIN_MARK.new" && mv "$STANDIN_MARK.new" "$STANDIN_MARK"
fi
printf 'step,m,n,k,threads,gflops_best,gflops_median,seconds_best,max_rel_err,verified,kernel,reps,params\n' > "$csv"
printf '10_tuned,%s,%s,%s,%s,100,100,0.001,1e-7,1,avx512,1,mc=%s kc=%s nc=%s\n' "$size" "$size" "$size" \
  "$threads" "$mc" "$kc" "$nc" >> "$csv"
''')
for name in ("cpuinfo", "step10_tuned"):
    os.chmod(os.path.join(standin, "bin", name), 0o755)
STANDIN = TOOL + ["--build", standin, "--sizes", "96", "--no-ref", "--seed", "1"]


def alive(pid):
    try:
        with open("/proc/{}/stat".format(pid)) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


# SIGTERM while a sample runs: the sample ends with the tuner, which ends by SIGTERM, its files
# whole; and a second tuner on the same output meanwhile is refused (exit 3, one line).
mark = os.path.join(work, "sample.pid")
path = fresh(os.path.join(work, "term.txt"))
env = dict(os.environ, STANDIN_MARK=mark, STANDIN_HANG="1")
first = subprocess.Popen(STANDIN + ["-o", path, "--threads", "1", "--budget", "60"], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
for _ in range(200):
    if os.path.exists(mark) or first.poll() is not None:
        break
    subprocess.run(["sleep", "0.05"])
sample = [int(w) for w in open(mark).read().split()] if os.path.exists(mark) else None
second = subprocess.run(STANDIN + ["-o", path, "--threads", "1", "--budget", "5"], stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
check(second.returncode == 3 and second.stderr.count("\n") == 1 and "another tune.py" in second.stderr,
      "a second tuner on the same output while the first samples: exit 3, one line ({})".format(second.stderr.strip()))
first.send_signal(signal.SIGTERM)
try:
    first.communicate(timeout=20)
except subprocess.TimeoutExpired:
    first.kill()
    first.communicate()
for _ in range(40):
    if sample is None or not any(alive(pid) for pid in sample):
        break
    subprocess.run(["sleep", "0.05"])
leftovers = [n for n in os.listdir(work) if n.startswith(".term.") and n != ".term.txt.lock"]   # the lock stays
check(sample is not None and first.returncode == -signal.SIGTERM and not any(alive(pid) for pid in sample) and
      not leftovers, "SIGTERM during a sample: the tuner ends by it (exit {}), the sample's process and its child "
      "too, no temporary file left ({})".format(first.returncode, leftovers))
for pid in sample or []:
    if alive(pid):
        os.kill(pid, signal.SIGKILL)
if os.path.exists(path + ".state"):
    with open(path + ".state") as f:
        check(isinstance(json.load(f), dict), "... and the state it kept is whole")

# OMP_THREAD_LIMIT=1: step 10 runs on one thread whatever --threads says. "threads all" is not
# tuned on it (nor labelled so): --threads all refused, --threads both tunes the one-thread line.
if len(os.sched_getaffinity(0)) >= 2:
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    path = fresh(os.path.join(work, "limit.txt"))
    r = subprocess.run(STANDIN + ["-o", path, "--threads", "all", "--budget", "2"], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    check(r.returncode == 2 and r.stderr.count("\n") == 1 and "1 thread" in r.stderr and not os.path.exists(path),
          "OMP_THREAD_LIMIT=1 --threads all: exit 2, one line ({})".format(r.stderr.strip()))
    r = subprocess.run(STANDIN + ["-o", path, "--threads", "both", "--budget", "2"], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    lines = open(path).read().splitlines() if os.path.isfile(path) else []
    _, rows = record_of(path) if os.path.isfile(path[:-4] + ".search.csv") else (None, [])
    check(r.returncode == 0 and [l for l in lines if l.startswith("threads")] == ["threads 1"] and
          "threads all is not tuned" in r.stderr and all(row["thread_count"] == "1" for row in rows) and
          "threads all (" not in r.stdout,
          "OMP_THREAD_LIMIT=1 --threads both: only the threads 1 line, said why ({})".format(
              [l for l in r.stderr.splitlines() if "threads all" in l]))
    # Without the limit both lines are tuned: the probe's tiny product takes one thread by the
    # rules, which must not read as "step 10 runs on 1 thread here".
    r = subprocess.run(STANDIN + ["-o", fresh(path), "--threads", "both", "--budget", "2"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    lines = open(path).read().splitlines() if os.path.isfile(path) else []
    check(r.returncode == 0 and [l for l in lines if l.startswith("threads")] == ["threads 1", "threads all"] and
          "threads all is not tuned" not in r.stderr,
          "--threads both on {} CPUs: both lines tuned ({})".format(
              len(os.sched_getaffinity(0)), [l for l in r.stderr.splitlines() if "threads all" in l][:1]))
else:
    print("skip  OMP_THREAD_LIMIT=1 on one CPU: all is one thread anyway")

# ---- the real step 10, for a few seconds -------------------------------------------------------

step = os.path.join(BIN, "step10_tuned")
if not os.access(step, os.X_OK):
    print("skip  the real step 10: {} is not built".format(step))
elif subprocess.run([step, "--sizes", "96", "--plan"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                    env=dict(os.environ, GEMM_WISDOM="off")).returncode != 0:
    print("skip  the real step 10: {} has no --plan (an older build; rebuild it)".format(step))
else:
    build = os.path.join(work, "build")
    os.makedirs(os.path.join(build, "bin"))
    log = os.path.join(build, "environment.log")
    # step10_tuned through a wrapper that notes GEMM_WISDOM, as every candidate ran it.
    with open(os.path.join(build, "bin", "step10_tuned"), "w") as f:
        f.write('#!/bin/sh\necho "GEMM_WISDOM=${{GEMM_WISDOM-unset}}" >> "{}"\nexec "{}" "$@"\n'.format(log, step))
    os.chmod(os.path.join(build, "bin", "step10_tuned"), 0o755)
    cpuinfo = os.path.join(BIN, "cpuinfo")
    real_identity = os.access(cpuinfo, os.X_OK) and subprocess.run(
        [cpuinfo, "--json"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    if real_identity:
        os.symlink(cpuinfo, os.path.join(build, "bin", "cpuinfo"))
    else:
        standin_cpuinfo(os.path.join(build, "bin", "cpuinfo"))
    if os.access(os.path.join(BIN, "ref_openblas"), os.X_OK):
        os.symlink(os.path.join(BIN, "ref_openblas"), os.path.join(build, "bin", "ref_openblas"))
    r = subprocess.run(TOOL + ["--build", build, "--sizes", "96", "--threads", "1", "--budget", "8"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
    path = os.path.join(build, "wisdom", "step10_tuned.txt")
    lines = open(path).read().splitlines() if os.path.isfile(path) else []
    check(r.returncode == 0 and len(lines) == 7 and lines[0] == tune.HEADER and lines[1] == "format 1"
          and lines[2].startswith("cpu ") and lines[3].startswith("caches ") and re.match(r"^kernel [a-z0-9]+$", lines[4])
          and re.match(r"^threads 1( [a-z-]+=[0-9]+)*$", lines[5]) and re.match(r"^noise \d\.\d{3}$", lines[6]),
          "the real step 10 at n = 96 on 1 thread{}: exit 0 and a well-formed {} ({})".format(
              "" if real_identity else " (a stand-in cpuinfo --json)", path,
              r.stderr.strip().splitlines()[-1:] if r.returncode else lines))
    with open(log) as f:
        noted = f.read().split()
    check(noted and set(noted) == {"GEMM_WISDOM=off"},
          "every run of step 10 had GEMM_WISDOM=off ({} runs)".format(len(noted)))
    header, rows = record_of(path) if os.path.isfile(path[:-4] + ".search.csv") else ([], [])
    check(header == list(tune.SEARCH_COLUMNS) and len(lines) > 2 and
          all(row["cpu"] == lines[2][4:] and row["threads"] == "1" for row in rows) and
          ("figure: " + path[:-4] + ".tuning.png" in r.stdout or "draw it with" in r.stdout),
          "... and its search record ({} rows, the CPU as cpuinfo names it) and figure beside it".format(len(rows)))

shutil.rmtree(work, ignore_errors=True)
print("{} passed, {} failed".format("all" if failures == 0 else "some", failures))
sys.exit(1 if failures else 0)
