"""tools/block_map.py runs a real step over a kc x mc grid around the step's own block sizes
and writes one verified row per cell, its own cell marked; usage errors exit 2 with one line.

    test_block_map.py PATH/TO/tools/block_map.py PATH/TO/step06_blocking PATH/TO/step01_baseline
"""
import csv
import os
import re
import subprocess
import sys
import tempfile


def main():
    tool, blocked, plain = sys.argv[1:4]
    failures = []

    def expect(condition, what):
        if not condition:
            failures.append(what)

    def run(args):
        return subprocess.run([sys.executable, tool] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True)

    help_text = subprocess.run([blocked, "--help"], stdout=subprocess.PIPE, universal_newlines=True).stdout
    own = {name: int(re.search(r"--{} N .*\(here: (\d+);".format(name), help_text).group(1)) for name in ("kc", "mc")}

    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "map.csv")
        size = 400
        r = run([blocked, "--size", str(size), "--reps", "1", "--csv", out])
        expect(r.returncode == 0, "block_map.py: exit {}: {}".format(r.returncode, r.stderr))
        rows = []
        if os.path.exists(out):
            with open(out, newline="") as f:
                rows = list(csv.DictReader(f))
        kcs = sorted(set(int(row["kc"]) for row in rows))
        mcs = sorted(set(int(row["mc"]) for row in rows))
        expect(len(rows) == len(kcs) * len(mcs) and len(rows) >= 4,
               "block_map.py: a full grid, {} rows for kc {} x mc {}".format(len(rows), kcs, mcs))
        defaults = [row for row in rows if row["default"] == "1"]
        expect(len(defaults) == 1 and int(defaults[0]["kc"]) == own["kc"] and int(defaults[0]["mc"]) == own["mc"],
               "block_map.py: the step's own kc {} and mc {} should be one cell, marked".format(own["kc"], own["mc"]))
        # Around the default: a smaller value on each side, none above the size but the default.
        expect(min(kcs) < own["kc"] and min(mcs) < own["mc"], "block_map.py: no smaller kc or mc in {} x {}".format(kcs, mcs))
        expect(all(v <= size or v == own[name] for name, values in (("kc", kcs), ("mc", mcs)) for v in values),
               "block_map.py: a value above the size that is not the default: {} {}".format(kcs, mcs))
        expect(all(row["verified"] == "1" and float(row["gflops_best"]) > 0 and row["step"] == "06_blocking"
                   and row["n"] == str(size) for row in rows), "block_map.py: a row not verified or wrong: {}".format(rows))
        # --kc / --mc lists: exactly that grid.
        r = run([blocked, "--size", "64", "--reps", "1", "--kc", "16,32", "--mc", "8", "--csv", out])
        with open(out, newline="") as f:
            cells = sorted((int(row["kc"]), int(row["mc"])) for row in csv.DictReader(f))
        expect(r.returncode == 0 and cells == [(16, 8), (32, 8)], "block_map.py --kc 16,32 --mc 8: {}".format(cells))

        for args, name in (([plain, "--csv", out], os.path.basename(plain)),
                           ([blocked, "--kc", "16,x", "--csv", out], "--kc"),
                           ([os.path.join(d, "nothing"), "--csv", out], "nothing"),
                           ([blocked, "--cpu", "99999", "--csv", out], "--cpu")):
            r = run(args)
            lines = r.stderr.strip().splitlines()
            expect(r.returncode == 2 and len(lines) == 1 and name in lines[0],
                   "block_map.py {}: exit {}, stderr {!r}".format(args[1:], r.returncode, r.stderr))

    for f in failures:
        print("FAIL:", f)
    print("block-map tests: {} failed".format(len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
