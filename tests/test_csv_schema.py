"""The harness CSV's columns are defined once per language and the definitions agree: Python's
(plots/harness_csv.py COLUMNS) is the C++ writer's list (common/src/csv.cpp, which
`cpuinfo --json` reports as csv_columns), the header step 01 writes, and each row of it has
that many fields; the shell tools' check (tools/harness_csv.awk) requires harness_csv's
REQUIRED columns.

    test_csv_schema.py ROOT BIN_DIR
"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT, BIN = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
sys.path.insert(0, os.path.join(ROOT, "plots"))
import harness_csv  # noqa: E402

failures = []


def expect(condition, what):
    if not condition:
        failures.append(what)


def main():
    done = subprocess.run([os.path.join(BIN, "cpuinfo"), "--json"], stdout=subprocess.PIPE, universal_newlines=True)
    cpp = json.loads(done.stdout)["csv_columns"]
    expect(cpp == harness_csv.COLUMNS,
           "cpuinfo --json's csv_columns (common/src/csv.cpp) {} are not plots/harness_csv.py's COLUMNS {}".format(
               cpp, harness_csv.COLUMNS))
    expect(harness_csv.REQUIRED == harness_csv.COLUMNS[:len(harness_csv.REQUIRED)],
           "harness_csv.REQUIRED is not the first columns of COLUMNS")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "s01.csv")
        run = subprocess.run([os.path.join(BIN, "step01_baseline"), "--sizes", "8,16", "--reps", "1", "--warmup", "0",
                              "--csv", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        expect(run.returncode == 0, "step01_baseline: exit {}: {}".format(run.returncode, run.stderr[-300:]))
        if run.returncode == 0:
            with open(out, newline="") as f:
                rows = list(csv.reader(f))
            expect(rows[0] == harness_csv.COLUMNS,
                   "step01_baseline's header {} is not harness_csv.COLUMNS {}".format(rows[0], harness_csv.COLUMNS))
            expect(len(rows) == 3 and all(len(r) == len(rows[0]) for r in rows[1:]),
                   "step01_baseline's rows do not have the header's {} fields: {}".format(len(rows[0]), rows[1:]))
            loaded = harness_csv.load_run(out)
            expect([r["m"] for r in loaded["rows"]] == [8, 16], "harness_csv.load_run of step 01's CSV: {}".format(loaded))
    # The shell tools' twin checks the same required columns.
    with open(os.path.join(ROOT, "tools", "harness_csv.awk")) as f:
        awk = re.search(r'split\("([^"]*)", required', f.read())
    expect(awk is not None and awk.group(1).split() == harness_csv.REQUIRED,
           "tools/harness_csv.awk requires {}, harness_csv.REQUIRED is {}".format(
               awk.group(1).split() if awk else None, harness_csv.REQUIRED))
    for f in failures:
        print("FAIL: " + f)
    print("CSV schema tests: {} failed".format(len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
