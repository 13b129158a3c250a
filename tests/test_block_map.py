"""tools/block_map.py runs a real step over a kc x mc grid around the blocks the step really
runs (its CSV's params, not its --help: step 08's AVX2 kernel, forced here with --kernel avx2
and Zen 3's caches through GEMM_CACHES, has other blocks than the AVX-512 one --help shows),
labels each cell with the blocks that ran (--mc 28 runs as 30 on AVX2), outlines the step's
own cell, and writes one verified row per cell; a step with --one-slice (step 10) gets its own
depth in every cell, --threads and --kernel are passed on (checked with a stand-in step that
logs its command lines); failed cells name the step as the others do; the CSV is replaced
whole, through plots/output_file.py; usage errors exit 2 and an unwritable --csv exits 3, with
one line, before any run.

    test_block_map.py PATH/TO/tools/block_map.py PATH/TO/step06_blocking PATH/TO/step01_baseline
"""
import csv
import os
import re
import stat
import subprocess
import sys
import tempfile

ZEN3 = "32K,512K,32M"   # GEMM_CACHES: the AVX2-only laptop of issue 28


def main():
    tool, blocked, plain = sys.argv[1:4]
    step08 = os.path.join(os.path.dirname(blocked), "step08_avx512_14x32")
    failures = []

    def expect(condition, what):
        if not condition:
            failures.append(what)

    def run(args, env=None):
        return subprocess.run([sys.executable, tool] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, env=env)

    def read(path):
        if not os.path.exists(path):
            return []
        with open(path, newline="") as f:
            return list(csv.DictReader(f))

    def params(text):
        return dict((k, int(v)) for k, _, v in (item.partition("=") for item in text.split()) if v.isdigit())

    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "map.csv")

        def reported(exe, options, env=None):
            """The params a step's own CSV reports for these options (a tiny run), or None."""
            probe = os.path.join(d, "probe.csv")
            r = subprocess.run([exe, "--sizes", "16", "--reps", "1"] + options + ["--csv", probe],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            return params(read(probe)[0]["params"]) if r.returncode == 0 else None

        # ---- Step 06, a real grid around its own blocks -------------------------------------
        own = reported(blocked, [])
        size = 400
        r = run([blocked, "--size", str(size), "--reps", "1", "--csv", out])
        expect(r.returncode == 0, "block_map.py: exit {}: {}".format(r.returncode, r.stderr))
        rows = read(out)
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
        # --kc / --mc lists: exactly that grid. The CSV is replaced whole (a new file renamed
        # over the old, plots/output_file.py), never written in place: a second name of the
        # old file still holds the old map.
        old = os.path.join(d, "old-map.csv")
        os.link(out, old)
        r = run([blocked, "--size", "64", "--reps", "1", "--kc", "16,32", "--mc", "8", "--csv", out])
        cells = sorted((int(row["kc"]), int(row["mc"])) for row in read(out))
        expect(r.returncode == 0 and cells == [(16, 8), (32, 8)], "block_map.py --kc 16,32 --mc 8: {}".format(cells))
        expect(len(read(old)) == len(rows), "block_map.py: the CSV was written in place, not replaced whole")

        # ---- Step 08 on an AVX2 core: the blocks that run, not --help's --------------------------
        env = dict(os.environ, GEMM_CACHES=ZEN3)
        avx2 = reported(step08, ["--kernel", "avx2"], env) if os.access(step08, os.X_OK) else None
        if avx2 is None:
            print("note: no AVX2 step 08 here: its map on an AVX2 core is not checked")
        else:
            help_text = subprocess.run([step08, "--kernel", "avx2", "--help"], stdout=subprocess.PIPE,
                                       universal_newlines=True, env=env).stdout
            shown = {n: int(re.search(r"--{} N .*\(here: (\d+);".format(n), help_text).group(1)) for n in ("kc", "mc")}
            # n = 160: the grid's smaller kc and mc (a quarter and half of 256 and 252) fit in it
            r = run([step08, "--kernel", "avx2", "--size", "160", "--reps", "1", "--csv", out], env)
            rows = read(out)
            marked = [(int(row["kc"]), int(row["mc"])) for row in rows if row["default"] == "1"]
            expect(r.returncode == 0 and marked == [(avx2["kc"], avx2["mc"])],
                   "block_map.py, step 08 --kernel avx2 (Zen 3 caches): own cell {}, the AVX2 kernel runs kc {} mc {} "
                   "(--help says {}); exit {}: {}".format(marked, avx2["kc"], avx2["mc"], shown, r.returncode, r.stderr))
            expect(all(int(row["mc"]) % 6 == 0 and row["kernel"] == "avx2" for row in rows) and len(rows) >= 2,
                   "block_map.py, step 08 --kernel avx2: mc in multiples of the kernel's 6 rows: {}".format(
                       [(row["kc"], row["mc"], row["kernel"]) for row in rows]))
            # Labels are what ran: --mc 28, 56 run as 30, 60 (read back from the params column).
            r = run([step08, "--kernel", "avx2", "--size", "48", "--reps", "1", "--kc", "64", "--mc", "28,56",
                     "--csv", out], env)
            rows = read(out)
            expect(r.returncode == 0 and sorted(int(row["mc"]) for row in rows) == [30, 60] and
                   all(params(row["params"])["mc"] == int(row["mc"]) and params(row["params"])["kc"] == int(row["kc"])
                       for row in rows),
                   "block_map.py --mc 28,56 on AVX2: the labels should be the 30 and 60 that ran: {}".format(
                       [(row["kc"], row["mc"], row["params"]) for row in rows]))

        # ---- A stand-in for step 10 ---------------------------------------------------------
        # It reports its blocks in params as step 10 does (mc rounded up to 6 rows, --one-slice
        # its own depth unless set), logs its options, and dies at kc = 32 with no CSV row.
        fake, log = os.path.join(d, "step10_fake"), os.path.join(d, "argv.log")
        with open(fake, "w") as f:
            f.write("#!{}\nimport sys\n".format(sys.executable) +
                    "a = sys.argv[1:]\n"
                    "def opt(name, default):\n"
                    "    return int(a[a.index(name) + 1]) if name in a else default\n"
                    "open({!r}, 'a').write(' '.join(a) + '\\n')\n".format(log) +
                    "kc, mc = opt('--kc', 64), -(-opt('--mc', 18) // 6) * 6\n"
                    "one = opt('--one-slice', kc if '--kc' in a else 500)\n"
                    "n = opt('--sizes', 0)\n"
                    "if kc == 32 and n > 16:\n"
                    "    sys.exit(1)\n"
                    "out = a[a.index('--csv') + 1]\n"
                    "open(out, 'w').write('step,m,n,k,threads,gflops_best,gflops_median,seconds_best,max_rel_err,"
                    "verified,kernel,reps,cpu,uarch,params\\n10_fake,{n},{n},{n},1,5.0,4.0,0.1,0.0,1,avx2,1,Test,Test,"
                    "mc={mc} kc={kc} one-slice={one}\\n'.format(n=n, mc=mc, kc=kc, one=one))\n")
        os.chmod(fake, 0o755)

        def calls():
            if not os.path.exists(log):
                return []
            with open(log) as f:
                return [line.split() for line in f]

        r = run([fake, "--size", "64", "--reps", "1", "--kc", "32,64", "--mc", "16", "--threads", "1",
                 "--kernel", "avx2", "--csv", out])
        timed = [c for c in calls() if c[c.index("--sizes") + 1] == "64"]
        expect(r.returncode == 1 and len(timed) == 2 and
               all("--threads" in c and c[c.index("--threads") + 1] == "1" and
                   "--kernel" in c and c[c.index("--kernel") + 1] == "avx2" for c in calls()) and
               all(c[c.index("--one-slice") + 1] == "500" for c in timed if "--kc" in c),
               "block_map.py on a step with --one-slice, --threads 1, --kernel avx2: exit {}, runs {}".format(
                   r.returncode, timed))
        rows = read(out)
        expect(sorted((row["kc"], row["mc"], row["verified"]) for row in rows) == [("32", "18", "0"), ("64", "18", "1")],
               "block_map.py: --mc 16 ran as 18, kc 32 failed: {}".format(rows))
        expect(rows and all(row["step"] == "10_fake" for row in rows),
               "block_map.py: a failed cell should name the step as the others do: {}".format([row["step"] for row in rows]))
        # The own cell (kc 64, mc 18 here) runs with no block option: the step as it runs.
        expect([row["default"] for row in rows if row["kc"] == "64"] == ["1"] and
               any(c[c.index("--sizes") + 1] == "64" and "--kc" not in c and "--mc" not in c for c in timed),
               "block_map.py: the stand-in's own cell should run without --kc and --mc: {}".format(timed))

        # Bad input: exit 2 (usage) or 3 (the CSV), one line naming the problem, before any run.
        os.remove(log)
        with open(out, "w") as f:
            f.write("the old map\n")
        for args, status, name in (([fake, "--size", "46341", "--csv", out], 2, "46341"),
                                   ([fake, "--csv", os.path.join(d, "no-such-folder", "map.csv")], 3, "map.csv"),
                                   ([fake, "--csv", d], 3, d)):
            r = run(args)
            lines = r.stderr.strip().splitlines()
            expect(r.returncode == status and len(lines) == 1 and name in lines[0] and not calls(),
                   "block_map.py {}: exit {} (wanted {}), stderr {!r}, {} runs before it".format(
                       args[1:], r.returncode, status, r.stderr, len(calls())))
        with open(out) as f:
            expect(f.read() == "the old map\n", "block_map.py: a refused command line changed the old CSV")
        if os.path.exists("/dev/full") and stat.S_ISCHR(os.stat("/dev/full").st_mode):
            r = run([fake, "--size", "32", "--reps", "1", "--kc", "64", "--mc", "16", "--csv", "/dev/full"])
            expect(r.returncode == 3 and "/dev/full" in r.stderr,
                   "block_map.py --csv /dev/full: exit {}, stderr {!r}".format(r.returncode, r.stderr))

        # A reader that stops at the first line (`| head -n 1`): the tool ends as the C++
        # programs do, by SIGPIPE, with nothing on stderr (it printed a BrokenPipeError
        # traceback), and the old CSV stays.
        reader, writer = os.pipe()
        p = subprocess.Popen([sys.executable, tool, blocked, "--size", "48", "--reps", "1", "--kc", "16,32,48",
                              "--mc", "16", "--csv", out], stdout=writer, stderr=subprocess.PIPE)
        os.close(writer)
        with os.fdopen(reader, "rb") as r_end:
            r_end.readline()
        err = p.communicate()[1].decode()
        expect(p.returncode == -13 and "Traceback" not in err and err == "",
               "block_map.py | head -n 1: exit {}, stderr {!r}".format(p.returncode, err))
        with open(out) as f:
            expect(f.read() == "the old map\n", "block_map.py, its reader gone: the old CSV changed")

        for args, name in (([plain, "--csv", out], os.path.basename(plain)),
                           ([blocked, "--threads", "0", "--csv", out], "--threads"),
                           ([blocked, "--kc", "16,x", "--csv", out], "--kc"),
                           ([os.path.join(d, "nothing"), "--csv", out], "nothing"),
                           ([blocked, "--kernel", "no-such-kernel", "--csv", out], "no-such-kernel"),
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
