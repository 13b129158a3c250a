"""The figure set: plots/make_figures.py (run by run_all.sh) on small generated CSVs makes every
expected file (step figures, overlays, staircase, roofline, bandwidth, scaling, block-size map),
summary.md holds the right figures, --steps and --docs do what they say, and summary.py and
make_figures.py refuse malformed input (NaN or negative GFLOPS, a zero peak ...) with exit 2
and one line naming the file. What is inside each figure is tests/test_plot.py's part.

    test_figures.py PATH/TO/plots     (run by ctest with the interpreter that has matplotlib)
"""
import csv
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile

HEADER = "step,m,n,k,threads,gflops_best,gflops_median,seconds_best,max_rel_err,verified,kernel,reps,cpu\n"
SIZES = (100, 500, 900, 1500)


def harness_csv(step, threads, kernel, gflops, failed=()):
    """threads: a count, or a function of the size (step 09 runs small sizes on fewer)."""
    return HEADER + "".join(
        "{s},{n},{n},{n},{t},{g:.1f},{g:.1f},0.1,1e-7,{v},{k},3,Test CPU 9000\n".format(
            s=step, n=n, t=threads(n) if callable(threads) else threads, g=gflops(n),
            v=0 if n in failed else 1, k=kernel)
        for n in SIZES)


def padded(text):
    """summary.md with exactly one space each side of every "|", as the checks below read it."""
    return "\n".join(re.sub(r" *\| *", " | ", line).strip() for line in text.splitlines()) + "\n"


def spread_rows(results):
    """results/spread.csv as {(step, threads, csv, n): row}."""
    with open(os.path.join(results, "spread.csv"), newline="") as f:
        return {(r["step"], int(r["threads"]), r["csv"], int(r["n"])): r for r in csv.DictReader(f)}


def in_process(module, argv):
    """make_figures.main(argv) in this process: (its status, what it printed, the Python programs
    it started)."""
    started, real = [], subprocess.Popen

    def popen(command, *args, **kwargs):
        if any(str(word).endswith(".py") for word in (command if isinstance(command, list) else [command])):
            started.append(command)
        return real(command, *args, **kwargs)
    out = io.StringIO()
    subprocess.Popen, stdout, sys.stdout = popen, sys.stdout, out
    try:
        status = module.main(argv)
    finally:
        subprocess.Popen, sys.stdout = real, stdout
    return status, out.getvalue(), started


def main():
    plots = sys.argv[1]
    make_figures = os.path.join(plots, "make_figures.py")
    summary = os.path.join(plots, "summary.py")
    failures = []

    def expect(condition, what):
        if not condition:
            failures.append(what)

    def summary_text():
        with open(os.path.join(results, "summary.md")) as f:
            return padded(f.read())

    def run(args):
        return subprocess.run([sys.executable] + args, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True)

    with tempfile.TemporaryDirectory() as d:
        results = os.path.join(d, "results")
        docs = os.path.join(d, "docs", "figures")
        os.makedirs(results)

        def write(name, text):
            with open(os.path.join(results, name), "w") as f:
                f.write(text)

        write("step01_baseline.csv", harness_csv("01_baseline", 1, "scalar", lambda n: 1.0))
        write("step05_simd_4x4.csv", harness_csv("05_simd_4x4", 1, "sse", lambda n: 20.0))
        # Step 09 runs n = 100 on one thread, the rest on two.
        write("step09_openmp.csv", harness_csv("09_openmp", lambda n: 1 if n == 100 else 2, "avx512",
                                               lambda n: 40.0 if n == 100 else 150.0, failed=(1500,)))
        # Step 08 on one thread; step 10 on one thread and (its _mt CSV) on two, as run_all.sh
        # writes them.
        write("step08_avx512_14x32.csv", harness_csv("08_avx512_14x32", 1, "avx512", lambda n: 85.0))
        write("step10_tuned.csv", harness_csv("10_tuned", 1, "avx512", lambda n: 96.0))
        write("step10_tuned_mt.csv", harness_csv("10_tuned", lambda n: 1 if n == 100 else 2, "avx512",
                                                 lambda n: 50.0 if n == 100 else 176.0))
        write("ref_openblas.csv", harness_csv("ref_openblas", 1, "", lambda n: 80.0))
        write("ref_openblas_mt.csv", harness_csv("ref_openblas", 2, "", lambda n: 160.0))
        write("ref_blis.csv", harness_csv("ref_blis", 1, "", lambda n: 70.0))
        write("ref_blis_mt.csv", harness_csv("ref_blis", 2, "", lambda n: 140.0))
        write("peak.csv", "isa,precision,threads,gflops\nsse,fp32,1,40.0\navx512,fp32,1,100.0\n"
                          "avx512,fp64,1,50.0\navx512,fp32,2,200.0\navx512,fp64,2,100.0\n")
        write("machine.txt", "compiler: g++ 12.2.0\nflags: -O3 (test)\ndate: 2024-01-02\nrounds: 3\n"
                             "uarch: Test Lake\n")
        write("bandwidth.csv", "kind,bytes,threads,gbps,level,isa\nread,24576,1,300.0,L1,avx512\n"
                               "read,1048576,1,120.0,L2,avx512\nread,23068672,1,30.0,L3,avx512\n"
                               "read,1090519040,1,12.0,DRAM,avx512\nread,24576,2,600.0,L1,avx512\n"
                               "read,1048576,2,240.0,L2,avx512\nread,545259520,2,14.0,DRAM,avx512\n")
        write("cpuinfo.txt", "caches     L1d 48 KiB, L2 2 MiB per core, L3 64 MiB shared  [sysfs]\n\n"
                             "Steps built, the variant each runs here, and the block sizes it uses here:\n"
                             "  01_baseline           scalar   (no block sizes)\n"
                             "  09_openmp             avx512   mc = 112   rows\n"
                             "                                 kc = 1056   depth\n")
        # The roofline's machine (cpuinfo --json, as run_all.sh saves it): a recorded one.
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "zen3-busy", "machine.json")) as f:
            write("machine.json", f.read())
        os.makedirs(os.path.join(results, "scaling"))
        for threads, gflops in ((1, 80.0), (2, 150.0)):
            write(os.path.join("scaling", "step09_openmp.t{}.csv".format(threads)),
                  harness_csv("09_openmp", threads, "avx512", lambda n: gflops))
            write(os.path.join("scaling", "step10_tuned.t{}.csv".format(threads)),
                  harness_csv("10_tuned", threads, "avx512", lambda n: gflops + 10))
        write("blockmap_step08_avx512_14x32.csv",
              "step,n,kc,mc,default,gflops_best,gflops_median,verified,kernel,cpu,uarch\n"
              "08_avx512_14x32,1000,528,56,0,90.0,89.0,1,avx512,Test CPU 9000,\n"
              "08_avx512_14x32,1000,1056,56,0,95.0,94.0,1,avx512,Test CPU 9000,\n"
              "08_avx512_14x32,1000,528,112,0,92.0,91.0,1,avx512,Test CPU 9000,\n"
              "08_avx512_14x32,1000,1056,112,1,97.0,96.0,1,avx512,Test CPU 9000,\n")

        r = run([make_figures, "--results", results, "--docs", docs])
        expect(r.returncode == 0, "make_figures.py: exit {}: {}".format(r.returncode, r.stderr))
        expect(r.stdout.count("step09_openmp.png") == 1,
               "make_figures.py: step 09's CSV (1 and 2 threads) should make one figure:\n" + r.stdout)
        figures = ["step01_baseline.png", "step05_simd_4x4.png", "step08_avx512_14x32.png", "step09_openmp.png",
                   "step10_tuned.png", "step10_tuned_mt.png",
                   "overlay.png", "overlay_log.png", "overlay_mt.png", "staircase.png", "roofline.png",
                   "bandwidth.png", "scaling.png", "blockmap_step08_avx512_14x32.png"]
        for name in figures + ["summary.md"]:
            path = os.path.join(results, name)
            expect(os.path.isfile(path) and os.path.getsize(path) > 0, "missing or empty: " + name)
        for name in figures:
            path = os.path.join(results, name)
            if os.path.isfile(path):
                with open(path, "rb") as f:
                    expect(f.read(8) == b"\x89PNG\r\n\x1a\n", name + " is not a PNG")
            copy = os.path.join(docs, name)
            expect(os.path.isfile(copy) and os.path.getsize(copy) > 0, "--docs did not copy " + name)

        text = summary_text()
        # 05: 20 GFLOPS = 20% of the 1-thread peak (100), 0.25 of OpenBLAS (80); n = 1000 was
        # not measured, 900 is the nearest.
        expect("| 05_simd_4x4 | sse | 1 | 20.0 | 20% | 0.25 | 20.0 @900 | 20% | 0.25 |" in text,
               "summary.md: wrong row for step 05:\n" + text)
        # 09 on 2 threads: against the 2-thread peak (200) and the 2-thread OpenBLAS (160).
        expect("| 09_openmp | avx512 | 2 | 150.0 | 75% | 0.94 |" in text,
               "summary.md: wrong row for step 09:\n" + text)
        expect("| 09_openmp | avx512 | 1 |" not in text,
               "summary.md: step 09's one-thread row (n = 100 only) stands for none of 500, 1000, 1500:\n" + text)
        expect("| ref_openblas | - | 1 | 80.0 | 80% | 1.00 |" in text, "summary.md: no OpenBLAS row")
        expect("| ref_blis | - | 2 | 140.0 | 70% | 0.88 |" in text, "summary.md: no 2-thread BLIS row")
        expect("FAILED verification at n = 1500" in text, "summary.md: step 09's failed size not noted")
        # Step 10: a row on one thread (vs the 1-thread peak and OpenBLAS), one on two.
        expect("| 10_tuned | avx512 | 1 | 96.0 | 96% | 1.20 |" in text, "summary.md: no one-thread step 10 row:\n" + text)
        expect("| 10_tuned | avx512 | 2 | 176.0 | 88% | 1.10 |" in text, "summary.md: no two-thread step 10 row:\n" + text)
        for fact in ("Test CPU 9000", "g++ 12.2.0", "-O3 (test)", "2024-01-02",
                     "1 thread: 100.0 GFLOPS (avx512)", "2 threads: 200.0 GFLOPS (avx512)",
                     "| sampling | 3 rounds or more of every size, interleaved (tools/interleave.py) |"):
            expect(fact in text, "summary.md: missing '{}'".format(fact))
        # The summary lists the steps in order, before the references.
        expect(text.find("| 01_baseline") < text.find("| 05_simd_4x4") < text.find("| 09_openmp")
               < text.find("| 10_tuned | avx512 | 1") < text.find("| 10_tuned | avx512 | 2")
               < text.find("| ref_openblas"), "summary.md: rows out of order")

        # Which CSVs each figure is drawn from (the plot scripts' command lines, recorded): a
        # step's figure has the step before it on as many threads (10 on one thread: 08; 10 on
        # two: 09), else the one just before (09: 08); overlay.png the one-thread runs,
        # overlay_mt.png the two-thread ones, the staircase every step.
        sys.path.insert(0, plots)
        import make_figures as module
        calls = {}

        def record(target, script, argv, inputs):
            calls[os.path.basename(target)] = [os.path.basename(a) for a in argv if a.endswith(".csv")]
            return 0, None
        real, module.draw = module.draw, record   # each figure make_figures.py draws, recorded
        try:
            with open(os.devnull, "w") as quiet:
                stdout, sys.stdout = sys.stdout, quiet
                try:
                    module.main(["--results", results])
                finally:
                    sys.stdout = stdout
        finally:
            module.draw = real
        for figure, inputs in (("step10_tuned.png", ["step08_avx512_14x32.csv", "step10_tuned.csv"]),
                               ("step10_tuned_mt.png", ["step09_openmp.csv", "step10_tuned_mt.csv"]),
                               ("step09_openmp.png", ["step08_avx512_14x32.csv", "step09_openmp.csv"])):
            expect(calls.get(figure, [])[:2] == inputs, "{} drawn from {}, not {}".format(figure, calls.get(figure), inputs))
        expect("step10_tuned.csv" in calls.get("overlay.png", []) and "step10_tuned_mt.csv" not in calls.get("overlay.png", []),
               "overlay.png: step 10 on one thread only: {}".format(calls.get("overlay.png")))
        expect({"step09_openmp.csv", "step10_tuned_mt.csv"} <= set(calls.get("overlay_mt.png", [])) and
               "step10_tuned.csv" not in calls.get("overlay_mt.png", []),
               "overlay_mt.png: steps 09 and 10 on two threads: {}".format(calls.get("overlay_mt.png")))
        expect({"step08_avx512_14x32.csv", "step09_openmp.csv", "step10_tuned.csv", "step10_tuned_mt.csv"} <=
               set(calls.get("staircase.png", [])), "staircase.png: {}".format(calls.get("staircase.png")))
        expect("step10_tuned.t2.csv" in calls.get("scaling.png", []), "scaling.png: {}".format(calls.get("scaling.png")))

        expect("Test Lake" in text, "summary.md: no microarchitecture")

        # --steps 5: that step's figure (against step 01, the one before it), the overlays, the
        # staircase and roofline of step 05, the machine's figures; no other step's.
        for name in figures + ["summary.md"]:
            if os.path.exists(os.path.join(results, name)):
                os.remove(os.path.join(results, name))
        r = run([make_figures, "--results", results, "--steps", "5"])
        expect(r.returncode == 0, "--steps 5: exit {}: {}".format(r.returncode, r.stderr))
        made = sorted(n for n in os.listdir(results) if n.endswith(".png"))
        expect(made == ["bandwidth.png", "overlay.png", "overlay_log.png", "overlay_mt.png", "roofline.png",
                        "scaling.png", "staircase.png", "step05_simd_4x4.png"],
               "--steps 5 made {}".format(made))
        text = summary_text()
        expect("05_simd_4x4" in text and "01_baseline" not in text and "09_openmp" not in text,
               "--steps 5: summary.md should list step 05 only")

        # Without peak.csv the figures are drawn without the peak line, the roofline and the
        # scaling figure are left out (saying so); summary says so.
        # Drawn in this process, which starts no other (no Python process per figure).
        os.rename(os.path.join(results, "peak.csv"), os.path.join(d, "peak.csv"))
        status, out, started = in_process(module, ["--results", results, "--steps", "1"])
        expect(status == 0, "no peak.csv: exit {}".format(status))
        expect("no roofline.png" in out and "no scaling.png" in out and "figure: " in out,
               "no peak.csv: the roofline and scaling figures should be said to be left out: " + out)
        expect(not started, "make_figures.py started {}: every figure is drawn in its own process".format(started))
        with open(os.path.join(results, "summary.md")) as f:
            expect("no peak.csv" in f.read(), "summary.md without peak.csv should say so")
        os.rename(os.path.join(d, "peak.csv"), os.path.join(results, "peak.csv"))

        # A --no-verify CSV (verified=0, max_rel_err=nan) is unverified, not failed.
        write("step07_packing.csv", HEADER + "07_packing,500,500,500,1,30.0,29.0,0.1,nan,0,sse,3,Test CPU 9000\n")
        r = run([summary, "--results", results])
        text = summary_text()
        expect(r.returncode == 0 and "**07_packing** (1 thread): unverified" in text
               and "07_packing** (1 thread): FAILED" not in text,
               "summary.md: a --no-verify run should be 'unverified', not FAILED:\n" + text)
        # A library whose kernels the reader's variable chose: summary.md says so; not otherwise.
        expect("OPENBLAS_CORETYPE asks for" not in text, "summary.md: a forced-kernel note without a forced kernel")
        write("ref_openblas.csv", HEADER + "ref_openblas,500,500,500,1,80.0,79.0,0.1,1e-7,1,"
                                           "openblas 0.3.21 Haswell (OPENBLAS_CORETYPE=Haswell),3,x\n")
        r = run([summary, "--results", results])
        text = summary_text()
        expect(r.returncode == 0 and "**ref_openblas ran the kernels OPENBLAS_CORETYPE asks for** "
               "(openblas 0.3.21 Haswell (OPENBLAS_CORETYPE=Haswell))" in text,
               "summary.md: no note that OPENBLAS_CORETYPE chose the reference's kernels:\n" + text)
        write("ref_openblas.csv", harness_csv("ref_openblas", 1, "", lambda n: 80.0))
        # A CSV holding two thread counts: a row for each.
        write("step07_packing.csv", HEADER + "07_packing,500,500,500,1,30.0,29.0,0.1,1e-7,1,sse,3,x\n"
                                             "07_packing,500,500,500,2,55.0,54.0,0.1,1e-7,1,sse,3,x\n")
        r = run([summary, "--results", results])
        text = summary_text()
        expect("| 07_packing | sse | 1 | 30.0 |" in text and "| 07_packing | sse | 2 | 55.0 |" in text,
               "summary.md: one row per thread count:\n" + text)
        os.remove(os.path.join(results, "step07_packing.csv"))

        # Summary.md says where a step's own numbers disagree: a median sample far
        # below its best (step 05 at n = 500); a size no second sample confirmed (
        # tools/interleave.py's settled column, step 01 at n = 500, its spread from
        # results/samples/); a scaling run that measured the same size on as many threads
        # otherwise (step 09 at n = 900: 150 in the sweep, 100 there); nothing for what agrees.
        write("step05_simd_4x4.csv", HEADER + "05_simd_4x4,500,500,500,1,20.0,15.0,0.1,1e-7,1,sse,3,x\n"
                                              "05_simd_4x4,900,900,900,1,20.0,19.0,0.1,1e-7,1,sse,3,x\n")
        sampled_header = HEADER.rstrip("\n") + ",samples,settled\n"
        write("step01_baseline.csv", sampled_header + "".join(
            "01_baseline,{0},{0},{0},1,2.0,{1},0.1,1e-7,1,scalar,3,x,{2},{3}\n".format(
                n, 1.9 if n == 500 else 2.0, 5 if n == 500 else 3, 0 if n == 500 else 1) for n in SIZES))
        # ... and a size whose best a second sample confirmed, but with fewer samples than a
        # job this often disturbed needs (step 06 at n = 500: 1 of its 6 samples beyond the
        # best within 3 % of their size's best: a share of 17 %, 26 samples needed).
        write("step06_blocking.csv", sampled_header + "".join(
            "06_blocking,{0},{0},{0},1,2.0,2.0,0.1,1e-7,1,sse,3,x,{1},{2}\n".format(
                n, 5 if n == 500 else 3, 0 if n == 500 else 1) for n in SIZES))
        os.makedirs(os.path.join(results, "samples"))
        write(os.path.join("samples", "step06_blocking.csv"), HEADER.rstrip("\n") + ",run,round,seq\n" + "".join(
            "06_blocking,{2},{2},{2},1,{0},{0},0.1,1e-7,1,sse,3,x,r1,{1},{1}\n".format(g, i, n)
            for i, (n, g) in enumerate([(500, g) for g in (2.0, 1.99, 1.4, 1.3, 1.2)] + [(900, g) for g in (2.0, 1.5, 1.4)])))
        write(os.path.join("samples", "step01_baseline.csv"), HEADER.rstrip("\n") + ",run,round,seq\n" + "".join(
            "01_baseline,500,500,500,1,{0},{0},0.1,1e-7,1,scalar,3,x,r1,{1},{1}\n".format(g, i)
            for i, g in enumerate((2.0, 1.6, 1.9, 1.8, 1.7))))
        write(os.path.join("scaling", "step09_openmp.t2.csv"), harness_csv("09_openmp", 2, "avx512",
                                                                          lambda n: 100.0 if n == 900 else 150.0))
        r = run([summary, "--results", results])
        text = summary_text()
        # A row per curve (settled of measured, the worst spread and where, samples a
        # size, the share a spell disturbed), a line only for a curve with more to say; the per-size
        # detail in results/spread.csv.
        spread = text[text.find("Spread"):]
        table = {tuple(l.strip("| ").split(" | ")[:2]): l for l in spread.splitlines()
                 if l.startswith("| ") and "---" not in l and not l.startswith("| curve")}
        flagged = [l for l in spread.splitlines() if l.startswith("- **")]
        detail = spread_rows(results)
        expect(r.returncode == 0 and "| 01_baseline | 1 | 3/4 | 20% at 500 | 3-5 | 100% |" in spread,
               "summary.md: step 01: 3 of 4 sizes settled, 20 % apart at n = 500 (5 samples), none of its "
               "samples beyond the best within 3 % of it:\n" + spread)
        expect("| 06_blocking | 1 | 3/4 | 40% at 500 | 3-5 | 83% |" in spread,
               "summary.md: step 06: 5 of its 6 samples beyond the bests disturbed:\n" + spread)
        expect("| 05_simd_4x4 | 1 | - | - | - | - |" in spread, "summary.md: step 05 has no samples:\n" + spread)
        row = detail.get(("06_blocking", 1, "step06_blocking.csv", 500), {})
        expect(row.get("settled") == "0" and row.get("samples") == "5" and row.get("spread") == "0.4000"
               and row.get("gap") == "0.0050" and row.get("needed") == "26" and row.get("disturbed") == "0.8333",
               "spread.csv: step 06 at n = 500 confirmed (gap 0.5 %) but 26 samples needed: {}".format(row))
        row = detail.get(("05_simd_4x4", 1, "step05_simd_4x4.csv", 500), {})
        expect(row.get("gflops_median") == "15.0000" and row.get("samples") == "" and row.get("settled") == "",
               "spread.csv: step 05's median at n = 500, no samples: {}".format(row))
        expect(detail.get(("09_openmp", 2, "step09_openmp.csv", 900), {}).get("scaling_gflops") == "100.0000"
               and any(l.startswith("- **09_openmp** (2 threads): ") and "scaling run 33 % off at n = 900." in l
                       for l in flagged),
               "summary.md: step 09's sweep and scaling run disagree at n = 900:\n" + spread)
        # (and n = 100 on one thread, 40 GFLOPS for step 09, 50 for 10, where the one-thread scaling
        # runs made 80 and 90; no line for a curve with nothing more to say)
        expect(len(table) == 11 and len(flagged) == 2 and flagged[1] == "- **10_tuned** (2 threads): scaling run 44 % off at n = 100.",
               "summary.md: a line for a curve with nothing more to say:\n" + spread)
        # X OpenBLAS is the median over rounds of the ratio of the two samples taken
        # side by side (results/samples/), with their range; not the ratio of the two bests.
        sample_line = "{s},900,900,900,{t},{g},{g},0.1,1e-7,1,{k},3,x,r1,{r},{q}\n"
        write(os.path.join("samples", "step10_tuned.csv"), HEADER.rstrip("\n") + ",run,round,seq\n" + "".join(
            sample_line.format(s="10_tuned", t=1, g=g, k="avx512", r=r, q=2 * r) for r, g in ((1, 99.0), (2, 90.0), (3, 99.0), (4, 99.0))))
        write(os.path.join("samples", "ref_openblas.csv"), HEADER.rstrip("\n") + ",run,round,seq\n" + "".join(
            sample_line.format(s="ref_openblas", t=1, g=g, k="-", r=r, q=2 * r + 1) for r, g in ((1, 82.5), (2, 90.0), (3, 90.0), (4, 50.0))))
        r = run([summary, "--results", results])
        text = summary_text()
        row10 = next((l for l in text.splitlines() if l.startswith("| 10_tuned | avx512 | 1 |")), "")
        expect("| 96.0 @900 | 96% | 1.10 (1.00-1.20) |" in row10, "summary.md: step 10's ratio at n = 900 is the median of its "
               "paired rounds (1.20, 1.00, 1.10), with their range, not round 4's (OpenBLAS 50 against "
               "a best of 90: a spell):\n" + row10)
        expect(row10.startswith("| 10_tuned | avx512 | 1 | 96.0 | 96% | 1.20 |"),
               "summary.md: a size without samples keeps the ratio of the bests:\n" + row10)
        shutil.rmtree(os.path.join(results, "samples"))
        write("step01_baseline.csv", harness_csv("01_baseline", 1, "scalar", lambda n: 1.0))
        write(os.path.join("scaling", "step09_openmp.t2.csv"), harness_csv("09_openmp", 2, "avx512", lambda n: 150.0))

        # A size timed while other programs held the CPUs (cpu_wait >= 0.05) is named with its
        # share, one just under it is not, and nan (the OS did not say) is no number; a share
        # above 1 is malformed input.
        busy_header = HEADER.rstrip("\n") + ",uarch,params,cpu_wait\n"
        row = "06_blocking,{0},{0},{0},1,20.0,19.9,0.1,1e-7,1,sse,3,x,y,kc=256 mc=256,{1}\n"
        write("step06_blocking.csv", busy_header + row.format(500, "0.320") + row.format(1000, "0.049")
              + row.format(1500, "nan"))
        r = run([summary, "--results", results])
        text = summary_text()
        said = [l for l in text[text.find("Spread"):].splitlines() if l.startswith("- **06_blocking**")]
        expect(r.returncode == 0 and said == ["- **06_blocking** (1 thread): CPUs busy at n = 500."]
               and spread_rows(results)[("06_blocking", 1, "step06_blocking.csv", 500)]["cpu_wait"] == "0.3200",
               "summary.md: step 06 was busy at n = 500 only:\n" + text)
        write("step06_blocking.csv", busy_header + row.format(500, "1.5"))
        r = run([summary, "--results", results])
        expect(r.returncode == 2 and "cpu_wait" in r.stderr, "summary.py on cpu_wait 1.5: exit {}, {!r}".format(
            r.returncode, r.stderr))
        write("step06_blocking.csv", harness_csv("06_blocking", 1, "sse", lambda n: 20.0))
        write("step05_simd_4x4.csv", harness_csv("05_simd_4x4", 1, "sse", lambda n: 20.0))

        # A best above the measured peak at its thread count (the host ran the CPU faster for a
        # while) is named; the peak itself (100 on one thread, 200 on two) is not above it.
        write("step08_avx512_14x32.csv", HEADER + "08_avx512_14x32,500,500,500,1,104.5,100.0,0.1,1e-7,1,avx512,3,x\n"
                                                  "08_avx512_14x32,900,900,900,1,100.0,99.0,0.1,1e-7,1,avx512,3,x\n")
        r = run([summary, "--results", results])
        text = summary_text()
        said = [l for l in text[text.find("Spread"):].splitlines() if l.startswith("- **08_avx512_14x32**")]
        above = [n for (step, _, _, n), r in spread_rows(results).items() if step == "08_avx512_14x32" and r["above_peak"] == "1"]
        expect(r.returncode == 0 and said == ["- **08_avx512_14x32** (1 thread): above the peak at n = 500."]
               and above == [500], "summary.md: step 08 above the peak at n = 500 only: {}\n{}".format(above, text))
        write("step08_avx512_14x32.csv", harness_csv("08_avx512_14x32", 1, "avx512", lambda n: 85.0))

        # Step 10's all-core CSV runs n = 100 on one thread: that size is in its curve (as the
        # figures draw it), not a second one-thread curve beside the one-thread CSV's.
        far_at_100 = "10_tuned,100,100,100,{t},{g},{m},0.1,1e-7,1,avx512,3,x\n"
        write("step10_tuned.csv", HEADER + far_at_100.format(t=1, g=96.0, m=60.0))
        write("step10_tuned_mt.csv", HEADER + far_at_100.format(t=1, g=50.0, m=30.0)
              + "10_tuned,200,200,200,2,150.0,149.0,0.1,1e-7,1,avx512,3,x\n")
        r = run([summary, "--results", results])
        said = [l for l in summary_text().splitlines() if l.startswith("| 10_tuned | 1 |") or l.startswith("| 10_tuned | 2 |")]
        mt = spread_rows(results).get(("10_tuned", 2, "step10_tuned_mt.csv", 100), {})
        expect(r.returncode == 0 and len(said) == 2 and mt.get("ran_threads") == "1",
               "summary.md: step 10's two curves, its all-core one with n = 100 on one thread: {} {}".format(said, mt))
        write("step10_tuned.csv", harness_csv("10_tuned", 1, "avx512", lambda n: 96.0))
        write("step10_tuned_mt.csv", harness_csv("10_tuned", lambda n: 1 if n == 100 else 2, "avx512",
                                                 lambda n: 50.0 if n == 100 else 176.0))

        # NaN, inf, 1e309 or negative GFLOPS, a zero or NaN peak: exit 2 and one line
        # naming the file, from summary.py and make_figures.py alike.
        good05 = harness_csv("05_simd_4x4", 1, "sse", lambda n: 20.0)
        for value in ("nan", "inf", "1e309", "-5"):
            write("step05_simd_4x4.csv", HEADER + "05_simd_4x4,100,100,100,1,{},3,0.1,1e-7,1,sse,3,x\n".format(value))
            for script in (summary, make_figures):
                r = run([script, "--results", results])
                lines = r.stderr.strip().splitlines()
                expect(r.returncode == 2 and len(lines) == 1 and "step05_simd_4x4.csv" in lines[0],
                       "{} on GFLOPS {}: exit {}, stderr {!r}".format(os.path.basename(script), value,
                                                                      r.returncode, r.stderr))
        write("step05_simd_4x4.csv", good05)
        for value in ("0", "nan"):
            write("peak.csv", "isa,precision,threads,gflops\navx512,fp32,1,{}\n".format(value))
            for script in (summary, make_figures):
                r = run([script, "--results", results])
                lines = r.stderr.strip().splitlines()
                expect(r.returncode == 2 and len(lines) == 1 and "peak.csv" in lines[0],
                       "{} on a peak of {}: exit {}, stderr {!r}".format(os.path.basename(script), value,
                                                                         r.returncode, r.stderr))
        # run_all.sh measures the peak twice and keeps both rows: the better one is the peak,
        # whichever came first.
        for rows in ("avx512,fp32,1,80.0\navx512,fp32,1,100.0\n", "avx512,fp32,1,100.0\navx512,fp32,1,80.0\n"):
            write("peak.csv", "isa,precision,threads,gflops\n" + rows)
            r = run([summary, "--results", results])
            text = summary_text()
            expect(r.returncode == 0 and "| measured fp32 peak | 1 thread: 100.0 GFLOPS (avx512)" in text,
                   "summary.md: of two peak rows the better one: " + rows.replace("\n", " "))
        write("peak.csv", "isa,precision,threads,gflops\navx512,fp32,1,100.0\n")

        # Malformed input: exit 2, one line naming the file.
        write("step02_unroll_1x4.csv", "size,gflops\n100,3\n")
        for script in (summary, make_figures):
            r = run([script, "--results", results])
            lines = r.stderr.strip().splitlines()
            expect(r.returncode == 2 and len(lines) == 1 and "step02_unroll_1x4.csv" in lines[0],
                   "{} on a malformed CSV: exit {}, stderr {!r}".format(
                       os.path.basename(script), r.returncode, r.stderr))
        # A size past the harness's kMaxSize (10**20: a traceback in the figure, passed on whole
        # by make_figures.py) and a FIFO named like a step CSV (reading it waited for ever): exit
        # 2 and one line naming the file, at once.
        bad = os.path.join(results, "step02_unroll_1x4.csv")
        os.remove(bad)
        write("step02_unroll_1x4.csv", HEADER + "02_unroll_1x4,{0},{0},{0},1,3.0,2.0,0.1,1e-7,1,scalar,3,x\n".format(10 ** 20))
        for kind in ("a size of 10**20", "a FIFO"):
            if kind == "a FIFO":
                os.remove(bad)
                os.mkfifo(bad)
            for script in (summary, make_figures):
                try:
                    r = subprocess.run([sys.executable, script, "--results", results], stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
                except subprocess.TimeoutExpired:
                    failures.append("{} on {}: still running after 60 s".format(os.path.basename(script), kind))
                    continue
                lines = r.stderr.strip().splitlines()
                expect(r.returncode == 2 and len(lines) == 1 and "step02_unroll_1x4.csv" in lines[0],
                       "{} on {}: exit {}, stderr {!r}".format(os.path.basename(script), kind, r.returncode, r.stderr[-400:]))
        os.remove(bad)
        # cpuinfo.txt and machine.json as FIFOs: the figures that read them (roofline, bandwidth)
        # fail, one line each (they waited for ever), the rest are drawn, and their exit 2 (bad
        # input) is make_figures.py's; --at past kMaxSize: one line, exit 2.
        fifos = ("cpuinfo.txt", "machine.json")
        for name in fifos:
            os.rename(os.path.join(results, name), os.path.join(d, name))
            os.mkfifo(os.path.join(results, name))
        try:
            r = subprocess.run([sys.executable, make_figures, "--results", results], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
            lines = r.stderr.strip().splitlines()
            expect(r.returncode == 2 and len(lines) == 2 and all(l.startswith("make_figures.py: ") and
                                                                 any(name in l for name in fifos) for l in lines),
                   "make_figures.py with a FIFO cpuinfo.txt and machine.json: exit {}, stderr {!r}".format(
                       r.returncode, r.stderr[-400:]))
        except subprocess.TimeoutExpired:
            failures.append("make_figures.py with a FIFO cpuinfo.txt and machine.json: still running after 120 s")
        for name in fifos:
            os.remove(os.path.join(results, name))
            os.rename(os.path.join(d, name), os.path.join(results, name))
        r = run([make_figures, "--results", results, "--at", "46341"])
        expect(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "--at" in r.stderr,
               "make_figures.py --at 46341: exit {}, stderr {!r}".format(r.returncode, r.stderr[-400:]))
        r = run([summary, "--results", results, "--steps", "5;7"])
        expect(r.returncode == 2 and "--steps" in r.stderr, "summary.py --steps 5;7: exit {}".format(r.returncode))

    for f in failures:
        print("FAIL:", f)
    print("figure-set tests: {} failed".format(len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
