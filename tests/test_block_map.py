"""tools/block_map.py runs a real step over a kc x mc grid around the step's own block sizes
and writes one verified row per cell, its own cell marked; a step with --one-slice (step 10)
gets its own depth in every cell and --threads is passed on (checked with a stand-in step that
logs its command lines); usage errors exit 2 with one line.

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

        # A stand-in for step 10: --help names --kc, --mc and --one-slice; each run logs its
        # options and writes a one-row harness CSV.
        fake, log = os.path.join(d, "step10_fake"), os.path.join(d, "argv.log")
        with open(fake, "w") as f:
            f.write("#!{}\nimport sys\n".format(sys.executable) +
                    "if '--help' in sys.argv:\n"
                    "    print('  --mc N  rows (here: 16; 0 = automatic)')\n"
                    "    print('  --kc N  depth (here: 64; 0 = automatic)')\n"
                    "    print('  --one-slice N  deepest k in one slice (here: 500; 0 = automatic)')\n"
                    "    sys.exit(0)\n"
                    "open({!r}, 'a').write(' '.join(sys.argv[1:]) + '\\n')\n".format(log) +
                    "out = sys.argv[sys.argv.index('--csv') + 1]\n"
                    "open(out, 'w').write('step,m,n,k,threads,gflops_best,gflops_median,seconds_best,max_rel_err,"
                    "verified,kernel,reps,cpu,uarch\\n10_fake,64,64,64,1,5.0,4.0,0.1,0.0,1,avx2,1,Test,Test\\n')\n")
        os.chmod(fake, 0o755)
        r = run([fake, "--size", "64", "--reps", "1", "--kc", "32,64", "--mc", "16", "--threads", "1", "--csv", out])
        with open(log) as f:
            calls = [line.split() for line in f]
        expect(r.returncode == 0 and len(calls) == 2 and
               all(c[c.index("--one-slice") + 1] == "500" and c[c.index("--threads") + 1] == "1"
                   for c in calls if "--one-slice" in c and "--threads" in c) and
               all("--one-slice" in c and "--threads" in c for c in calls),
               "block_map.py on a step with --one-slice, --threads 1: exit {}, runs {}".format(r.returncode, calls))
        with open(out, newline="") as f:
            marked = [(row["kc"], row["mc"]) for row in csv.DictReader(f) if row["default"] == "1"]
        expect(marked == [("64", "16")], "block_map.py: the stand-in's own cell: {}".format(marked))

        for args, name in (([plain, "--csv", out], os.path.basename(plain)),
                           ([blocked, "--threads", "0", "--csv", out], "--threads"),
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
