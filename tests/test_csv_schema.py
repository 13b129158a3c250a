"""The harness CSV's columns are defined once per language and the definitions agree: Python's
(plots/harness_csv.py COLUMNS) is the C++ writer's list (common/src/csv.cpp, which
`cpuinfo --json` reports as csv_columns), the header step 01 writes, and each row of it has
that many fields; the shell tools' check (`plots/harness_csv.py check`) passes that CSV, requires
each of harness_csv's REQUIRED columns and names the first problem of a file that is not one.

    test_csv_schema.py ROOT BIN_DIR
"""
import csv
import json
import os
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


def check(*args):
    done = subprocess.run([sys.executable, os.path.join(ROOT, "plots", "harness_csv.py"), "check"] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    return done.returncode, done.stdout.strip()


def check_command(good, tmp):
    """The shell tools' check: step 01's CSV passes; each REQUIRED column, a size, a field or a verification
    missing is exit 2 and one line naming it."""
    expect(check("--sizes", "8,16", "--verified", good) == (0, ""), "check of step 01's CSV: {}".format(
        check("--sizes", "8,16", "--verified", good)))
    with open(good) as f:
        lines = f.read().splitlines()
    header = lines[0].split(",")
    bad = os.path.join(tmp, "bad.csv")

    def problem(text, *args):
        with open(bad, "w") as f:
            f.write(text)
        return check(*(args + (bad,)))
    for i, name in enumerate(harness_csv.REQUIRED):
        renamed = ",".join(header[:i] + ["x"] + header[i + 1:])
        got = problem("\n".join([renamed] + lines[1:]) + "\n")
        expect(got == (2, "{}:1: no {} column: not a harness CSV".format(bad, name)),
               "check without column {}: {}".format(name, got))
    unverified = lines[1].split(",")
    unverified[header.index("verified")] = "0"
    cases = [(lines[:2], ("--sizes", "8,16"), "{}: no row for size 16 (m = n = k = 16)".format(bad)),
             (lines + [lines[1] + ",1"], (), "{}:4: {} fields, the header has {}".format(
                 bad, len(header) + 1, len(header))),
             ([lines[0], ",".join(unverified)], ("--verified",), "{}:2: not verified (verified=0".format(bad)),
             ([lines[0], lines[1].replace(",8,8,8,", ",8,-8,8,", 1)], (), "{}:2: column n is '-8'".format(bad)),
             ([lines[0], lines[1].replace(",8,8,8,", ",8,8,0,", 1)], (), "{}:2: column k is '0'".format(bad)),
             (lines[:2] + [""], (), "{}:3: 0 fields, the header has {}".format(bad, len(header))),
             ([], (), "{}: empty file, not a harness CSV".format(bad))]
    for rows, args, said in cases:
        got = problem("".join(r + "\n" for r in rows), *args)
        expect(got[0] == 2 and got[1].startswith(said), "check {} of {}: {}, not {}".format(args, rows, got, said))


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
            expect([r["m"] for r in loaded["rows"]] == [8, 16],
                   "harness_csv.load_run of step 01's CSV: {}".format(loaded))
            check_command(out, tmp)
    for f in failures:
        print("FAIL: " + f)
    print("CSV schema tests: {} failed".format(len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
