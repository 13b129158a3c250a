#!/usr/bin/env python3
"""plots/plot_tuning.py, the figure of the tuner's search: drawn from the search record that
tools/tune.py writes on a made-up machine (what the figure holds: a panel per thread count,
the rules' point and the winner labelled with their values, the colours centred on 1, what
the search resolved, the CPU and its caches in the title, the switches), and malformed records
refused with exit 2 and one line naming the file, an output that cannot be written with exit 3.

    test_plot_tuning.py ROOT     (ROOT: the checkout; run with a Python that has matplotlib)
"""
import contextlib
import csv
import hashlib
import io
import math
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(sys.argv[1])
PLOTS = os.path.join(ROOT, "plots")
sys.path.insert(0, PLOTS)
sys.path.insert(0, os.path.join(ROOT, "tools"))
import plot_tuning  # noqa: E402
import tune  # noqa: E402

failures = 0


def check(ok, what):
    global failures
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures += 1


IDENTITY = ["cpu GenuineIntel 6 207 Emerald Rapids", "caches 49152 2097152 314572800"]
RULES = {"mc": 112, "kc": 1056, "nc": 2048, "one-slice": 1056}
OPTIMUM = {"mc": 224, "kc": 528, "nc": 1024}


def bowl(seed, flat=False):
    """A made-up machine: a bowl in log2 of the blocks (the optimum off the rules), no-copy-b 5 %
    faster, 0.5 % noise; deterministic in its arguments."""
    def measure(params, size, round_):
        rng = random.Random(hashlib.sha256(repr((seed, sorted(params.items()), size, round_)).encode()).digest())
        if params.get("library"):
            return 120.0
        q = 0 if flat else sum(math.log2(params.get(c, RULES[c]) / OPTIMUM[c]) ** 2 for c in OPTIMUM)
        g = 100.0 / (1 + 0.15 * q) * (1.05 if params.get("no-copy-b") and not flat else 1.0)
        return g * math.exp(rng.gauss(0, 0.005))
    return tune.Synthetic(measure, RULES, identity=IDENTITY, sample_seconds=0.2)


def search_record(folder, name, machine, argv=()):
    """The search record tools/tune.py writes for a made-up machine (its figure not drawn)."""
    path = os.path.join(folder, name + ".txt")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = tune.main(["-o", path, "--seed", "7"] + list(argv), machine=machine)
    record = os.path.join(folder, name + ".search.csv")
    check(status == 0 and os.path.isfile(record), "tune.py on a made-up machine writes {} (exit {}{})".format(
        os.path.basename(record), status, err.getvalue().strip().splitlines()[-1:]))
    return record


def run(args):
    return subprocess.run([sys.executable, os.path.join(PLOTS, "plot_tuning.py")] + args, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=120)


def refused(args, name, what, status=2):
    r = run(args)
    lines = r.stderr.strip().splitlines()
    check(r.returncode == status and len(lines) == 1 and name in lines[0] and lines[0].startswith("plot_tuning.py: ")
          and not r.stdout, "{}: exit {} and one line naming {} (exit {}: {})".format(
              what, status, name, r.returncode, r.stderr.strip()))


def texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts]


with tempfile.TemporaryDirectory() as d:
    bowl_csv = search_record(d, "bowl", bowl(1))
    flat_csv = search_record(d, "flat", bowl(2, flat=True), ["--threads", "1"])
    out = os.path.join(d, "tuning.png")

    # ---- a figure, and what is in it -------------------------------------------------------------
    r = run([bowl_csv, "-o", out])
    png = open(out, "rb").read() if os.path.isfile(out) else b""
    check(r.returncode == 0 and not r.stderr and png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20000,
          "the bowl's search drawn: exit 0, a PNG of {} bytes ({})".format(len(png), r.stderr.strip()))
    with open(bowl_csv, newline="") as f:
        rows = list(csv.DictReader(f))
    fig = plot_tuning.render(plot_tuning.parse([bowl_csv, "-o", out]))
    title = fig._suptitle.get_text()
    check("Emerald Rapids" in title and "1 and 2 threads" in title and "L2 2 MiB" in title and "L3 300 MiB" in title,
          "the title names the CPU, the thread counts and the caches: {!r}".format(title))
    planes = [ax for ax in fig.axes if ax.get_xlabel().startswith("kc") and ax.get_ylabel().startswith("mc")]
    check(len(planes) == 2 and "1 thread" in planes[0].get_title() and "2 threads" in planes[1].get_title(),
          "a kc x mc plane per thread count: {}".format([ax.get_title() for ax in planes]))
    for t, ax in zip(("1", "all"), planes):
        mine = [row for row in rows if row["threads"] == t]
        winner = next(row for row in reversed(mine) if row["adopted"] == "1" and row["phase"] != "final")
        labels = [x.get_text() for x in ax.texts]
        want = "winner: kc {}, mc {}, nc {}".format(winner["kc"], winner["mc"], winner["nc"])
        check(any(x.startswith(want) and "no-copy-b" in x and "\u00d7{:.3f}".format(float(winner["ratio_to_rules"]))
                  in x for x in labels) and any(x.startswith("rules: kc 1056, mc 112, nc 2048") for x in labels),
              "threads {}: the winner and the rules labelled with their values: {}".format(t, labels))
        closed = max(float(row["noise"]) for row in mine if row["decision"] in ("won", "lost"))
        check("decides \u00b1{:.1f} %".format(100 * closed) in ax.get_title(),
              "threads {}: the title gives the widest interval of a decision closed: {!r}".format(t, ax.get_title()))
        # Every block candidate that moved in kc x mc is a point (the others are in the nc strip).
        points = sum(len(c.get_offsets()) for c in ax.collections if len(c.get_offsets()) and c.get_sizes()[0] < 100)
        moved = [row for row in mine if row["phase"] in ("coarse", "polish")]
        check(0 < points <= len(moved), "threads {}: {} candidates drawn in the plane, of {} block candidates".format(
            t, points, len(moved)))
    bars = [ax for ax in fig.axes if "colorbar" in ax.get_label() or ax.get_ylabel().startswith("ratio to the rules")]
    check(len(bars) == 2 and "chained through the incumbents" in bars[0].get_ylabel(),
          "a colour bar per panel, labelled: {}".format([ax.get_ylabel() for ax in bars]))
    norms = [c.norm for ax in planes for c in ax.collections if getattr(c, "norm", None) is not None
             and c.get_array() is not None]
    check(norms and all(abs((n.vmin + n.vmax) / 2 - 1.0) < 1e-9 for n in norms),
          "the colours are centred on a ratio of 1.0 (the rules)")
    switches = [ax for ax in fig.axes if ax.get_xlabel().startswith("switches tried")]
    ticks = [t.get_text() for ax in switches for t in ax.get_yticklabels()]
    check(len(switches) == 2 and "no-copy-b" in ticks and any(t.startswith("final rounds") for t in ticks),
          "the switches tried and the final rounds: {}".format(ticks))
    notes = " ".join(texts(fig))
    check("A block kc\u00b7mc\u00b74 B" in notes and "% of L2" in notes and "% of L3" in notes,
          "what the rules' and the winner's blocks take of L2 and L3 is written")

    fig = plot_tuning.render(plot_tuning.parse([flat_csv, "-o", out]))
    labels = texts(fig)
    check(len(fig.axes) >= 1 and any("no candidate beat them" in x for x in labels)
          and not any(x.startswith("winner:") for x in labels) and "1 thread" in fig._suptitle.get_text(),
          "a search the rules won: one panel, the rules labelled as the winner")

    # Text from the record is drawn as written, never as mathtext.
    with open(bowl_csv) as f:
        text = f.read()
    tex = os.path.join(d, "tex.csv")
    with open(tex, "w") as f:
        f.write(text.replace("Emerald Rapids", "$\\frac{$ Lake"))
    r = run([tex, "-o", out])
    check(r.returncode == 0 and not r.stderr, "a CPU named $\\frac{{$: drawn ({})".format(r.stderr.strip()))

    # The tuner's own record on a machine this noisy (samples e^N(0, 0.6) off: intervals of tens
    # of per cent) is drawn.
    def wild(params, size, round_):
        rng = random.Random(hashlib.sha256(repr((sorted(params.items()), size, round_)).encode()).digest())
        return 100.0 * math.exp(rng.gauss(0, 0.6))
    wild_csv = search_record(d, "wild", tune.Synthetic(wild, RULES, identity=IDENTITY), ["--threads", "1", "--no-ref"])
    with open(wild_csv, newline="") as f:
        noise = max(float(row["noise"]) for row in csv.DictReader(f) if row["noise"])
    r = run([wild_csv, "-o", out])
    check(noise > 0.15 and r.returncode == 0 and not r.stderr,
          "the tuner's record with intervals up to +-{:.0f} %: drawn ({})".format(100 * noise, r.stderr.strip()))

    # ---- malformed records: exit 2, one line naming the file -------------------------------------
    header, *lines = text.splitlines(keepends=True)
    first = lines[0].rstrip("\n").split(",")
    columns = header.rstrip("\n").split(",")

    def changed(column, value):
        row = list(first)
        row[columns.index(column)] = value
        return header + ",".join(row) + "\n" + "".join(lines[1:])

    bad = {"empty.csv": "", "header_only.csv": header, "harness.csv": "step,m,n,k\n01_baseline,100,100,100\n",
           "ratio_nan.csv": changed("ratio", "nan"), "ratio_inf.csv": changed("ratio_to_rules", "inf"),
           "ratio_huge.csv": changed("ratio", "1e300"), "kc_word.csv": changed("kc", "deep"),
           "kc_huge.csv": changed("kc", "99999999999999999999"), "kc_zero.csv": changed("kc", "0"),
           "threads.csv": changed("threads", "3"), "phase.csv": changed("phase", "warmup"),
           "adopted.csv": changed("adopted", "yes"), "noise.csv": changed("noise", "-0.1"),
           "switch.csv": changed("switches", "no-$copy"), "rules.csv": changed("rules_mc", "113"),
           "short_row.csv": header + ",".join(first[:5]) + "\n",
           # a winner no row adopted, in every row of its thread count
           "winner.csv": header + "".join(",".join(row.rstrip("\n").split(",")[:columns.index("winner")] + ["mc=999"] +
                                                   row.rstrip("\n").split(",")[columns.index("winner") + 1:]) + "\n"
                                          for row in lines)}
    for name, content in bad.items():
        path = os.path.join(d, name)
        with open(path, "w") as f:
            f.write(content)
        refused([path, "-o", out], name, name)
    refused([os.path.join(d, "missing.csv"), "-o", out], "missing.csv", "a missing file")
    fifo = os.path.join(d, "fifo.csv")
    os.mkfifo(fifo)
    refused([fifo, "-o", out], "fifo.csv", "a FIFO (not read: reading would wait)")
    refused([bowl_csv, "-o", os.path.join(d, "out.xyz")], "out.xyz", "-o out.xyz")
    refused([bowl_csv, "-o", os.path.join(d, "no-such-folder", "out.png")], "out.png",
            "an output in a missing folder", status=3)

print("{} passed, {} failed".format("all" if failures == 0 else "some", failures))
sys.exit(1 if failures else 0)
