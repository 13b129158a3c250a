"""The plotting scripts draw the right figure from small CSVs and exit 2, with one line naming
the file, on bad input. Each figure is looked inside (the matplotlib objects render() returns):
the curves, bars, points and lines it holds and the title it carries, not just that a PNG
appeared.

    test_plot.py PATH/TO/plots/plot_gflops.py   (run by ctest with the interpreter that has matplotlib)
"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile

HEADER = "step,m,n,k,threads,gflops_best,gflops_median,seconds_best,max_rel_err,verified,kernel,reps,cpu\n"
HEADER_UARCH = HEADER.rstrip("\n") + ",uarch\n"
PEAK = ("isa,precision,threads,gflops\nscalar,fp32,1,8.0\nsse,fp32,1,32.0\navx2,fp32,1,96.0\n"
        "avx512,fp32,1,160.0\navx512,fp64,1,80.0\nsse,fp32,2,64.0\navx512,fp32,2,320.0\n")
CPUINFO = """CPU        Test CPU (x86_64)
caches     L1d 48 KiB, L2 2 MiB per core, L3 64 MiB shared  [sysfs]

Steps built, the variant each runs here, and the block sizes it uses here:
  01_baseline           scalar   (no block sizes)
  05_simd_4x4           sse      (no block sizes)
  06_blocking           sse      kc = 384   depth of a block
                                 mc = 680   rows of A in a block
  08_avx512_14x32       avx512   mc = 112   rows of the packed A block, kept in L2
                                 kc = 1056   depth of the packed A and B blocks
                                 nc = 8192   columns of the packed B panel
  09_openmp             avx512   mc = 112   rows
                                 kc = 1056   depth
"""
# The roofline's machine (cpuinfo --json): a recorded one, with CPUINFO's caches and blocks.
BLOCKS = {"06_blocking": {"kc": 384, "mc": 680}, "08_avx512_14x32": {"mc": 112, "kc": 1056, "nc": 8192},
          "09_openmp": {"mc": 112, "kc": 1056}}


def machine_json(root):
    with open(os.path.join(root, "tests", "data", "zen3-busy", "machine.json")) as f:
        data = json.load(f)
    data["caches"].update(l1d=48 * 1024, l2=2 << 20, l3=64 << 20)
    for step in data["steps"]:
        step["params"] = [{"name": k, "value": v, "help": ""} for k, v in BLOCKS.get(step["slug"], {}).items()]
    return json.dumps(data)


BANDWIDTH = ("kind,bytes,threads,gbps,level,isa\n"
             "read,24576,1,300.0,L1,avx512\nread,1048576,1,120.0,L2,avx512\n"
             "read,23068672,1,30.0,L3,avx512\nread,1090519040,1,12.0,DRAM,avx512\n"
             "read,4194304,1,60.0,,avx512\n"
             "triad,24576,1,400.0,L1,avx512\ntriad,1048576,1,100.0,L2,avx512\n"
             "read,24576,2,600.0,L1,avx512\nread,1048576,2,240.0,L2,avx512\n"
             "read,16777216,2,55.0,L3,avx512\nread,545259520,2,14.0,DRAM,avx512\n")


def harness(step, kernel, values, threads=1, header=HEADER, uarch=None, verified=None, err="1e-7"):
    """A harness CSV: values is [(n, best, median)]."""
    lines = [header]
    for n, best, median in values:
        v = verified(n) if verified else 1
        row = "{},{n},{n},{n},{},{},{},0.1,{},{},{},3,Test CPU".format(step, threads, best, median, err, v, kernel, n=n)
        lines.append(row + ("," + uarch if uarch is not None else "") + "\n")
    return "".join(lines)


def main():
    plots = os.path.dirname(os.path.abspath(sys.argv[1]))
    sys.path.insert(0, plots)
    root = os.path.dirname(plots)
    import plot_bandwidth
    import plot_blockmap
    import plot_gflops
    import plot_roofline
    import plot_scaling
    import plot_staircase
    import roofline_model
    failures = []

    def expect(condition, what):
        if not condition:
            failures.append(what)

    def run(script, args):
        return subprocess.run([sys.executable, os.path.join(plots, script)] + args, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True)

    def refused(script, args, name, what, status=2):
        """exit `status` (2: bad input; 3: the output cannot be written) and one line on stderr naming `name`."""
        r = run(script, args)
        lines = r.stderr.strip().splitlines()
        expect(r.returncode == status and len(lines) == 1 and name in lines[0],
               "{} {}: exit {}, stderr {!r} (wanted {} and one line naming {})".format(script, what, r.returncode,
                                                                                        r.stderr, status, name))

    with tempfile.TemporaryDirectory() as d:
        def write(name, text):
            path = os.path.join(d, name)
            with open(path, "w") as f:
                f.write(text)
            return path

        def is_png(path, what):
            ok = os.path.isfile(path) and os.path.getsize(path) > 10000
            if ok:
                with open(path, "rb") as f:
                    ok = f.read(8) == b"\x89PNG\r\n\x1a\n"
            expect(ok, what + ": no PNG (or a suspiciously small one) at " + path)

        out = os.path.join(d, "out.png")
        peak = write("peak.csv", PEAK)
        s04 = write("s04.csv", harness("04_unroll_4x4", "scalar", [(n, 3 + n / 500, 2.5) for n in (100, 200, 300)]))
        s05 = write("s05.csv", harness("05_simd_4x4", "sse", [(n, 9 + n / 300, 8.0) for n in (100, 200, 300)],
                                       verified=lambda n: 0 if n == 300 else 1))
        s08 = write("s08.csv", harness("08_avx512_14x32", "avx512", [(n, 100.0 + n / 100, 90.0) for n in (500, 1000)],
                                       header=HEADER_UARCH, uarch="Test Lake"))

        # ---- plot_gflops.py: a PNG, and what is in it ------------------------------------------
        r = run("plot_gflops.py", [s04, s05, "--peak", peak, "--title", "test", "-o", out])
        expect(r.returncode == 0, "plot_gflops.py good input: exit {}: {}".format(r.returncode, r.stderr))
        is_png(out, "plot_gflops.py")

        fig = plot_gflops.render(plot_gflops.parse([s04, s05, "--peak", peak, "-o", out]))
        ax = fig.axes[0]
        title = ax.get_title()
        expect("05_simd_4x4" in title and "1 thread" in title and "Test CPU" in title,
               "plot_gflops.py: the title should name the step, the threads and the CPU: " + title)
        labels = ax.get_legend_handles_labels()[1]
        # Step 05 runs SSE: the dashed line and the % axis are the SSE peak; the best (AVX-512)
        # is far above, so it is named, not drawn; step 04's scalar ceiling is drawn.
        expect(any("sse peak" in l and "32.0" in l for l in labels), "plot_gflops.py: no SSE peak line: {}".format(labels))
        expect(any("avx512" in l and "far above" in l for l in labels),
               "plot_gflops.py: the machine's best peak is not named: {}".format(labels))
        expect(any("scalar peak" in l and "8.0" in l for l in labels),
               "plot_gflops.py: step 04's scalar ceiling is not drawn: {}".format(labels))
        right = ax.child_axes   # the secondary (%) axis
        expect(right and "sse" in right[0].get_ylabel(), "plot_gflops.py: the % axis should read against SSE")
        fig.canvas.draw()
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        expect(any(l == "FAILED verification" for l in legend) and any(l.get_marker() == "X" and
                                                                       list(l.get_xdata()) == [300] for l in ax.lines),
               "plot_gflops.py: step 05's failed size is not marked: {}".format(legend))
        # Best and median: a band under each curve (one PolyCollection per curve).
        expect(len(ax.collections) >= 2, "plot_gflops.py: no best-to-median band")

        # The microarchitecture: the uarch column first, else machine.txt's line, else the CPU.
        fig = plot_gflops.render(plot_gflops.parse([s08, "--peak", peak, "-o", out]))
        expect("Test Lake" in fig.axes[0].get_title(), "plot_gflops.py: the uarch column is not in the title")
        machine = write("machine.txt", "cpu: Test CPU\nuarch: Test Bridge\n")
        fig = plot_gflops.render(plot_gflops.parse([s04, "--machine", machine, "-o", out]))
        expect("Test Bridge" in fig.axes[0].get_title(), "plot_gflops.py: machine.txt's uarch is not in the title")

        # Repeated sizes are sorted, not a zigzag; one curve per thread count.
        zigzag = write("zigzag.csv", harness("05_simd_4x4", "sse", [(300, 12, 11), (100, 10, 9), (200, 11, 10),
                                                                     (100, 10.5, 9)]))
        fig = plot_gflops.render(plot_gflops.parse([zigzag, "-o", out]))
        xs = list(fig.axes[0].lines[0].get_xdata())
        expect(xs == sorted(xs), "plot_gflops.py: sizes drawn out of order (a zigzag): {}".format(xs))
        mixed = write("mixed.csv", harness("09_openmp", "avx512", [(100, 50, 40), (200, 60, 50)], threads=1) +
                      harness("09_openmp", "avx512", [(100, 90, 80), (200, 110, 100)], threads=2)[len(HEADER):])
        fig = plot_gflops.render(plot_gflops.parse([mixed, "--peak", peak, "-o", out]))
        curves = [l for l in fig.axes[0].lines if l.get_label().startswith("09_openmp") and l.get_marker() == "o"]
        expect(len(curves) == 2 and any("1 thread" in c.get_label() for c in curves)
               and any("2 threads" in c.get_label() for c in curves),
               "plot_gflops.py: mixed thread counts should be one curve each: {}".format([c.get_label() for c in curves]))

        # An unsettled size (tools/interleave.py's settled column) is a hollow point,
        # a settled one filled; the legend says once what hollow means, whatever the curves.
        sampled = HEADER.rstrip("\n") + ",samples,settled\n"
        unsettled = [write("u{}.csv".format(i), sampled + "".join(
            "{s},{n},{n},{n},1,{g},{g},0.1,1e-7,1,sse,3,x,4,{ok}\n".format(s=step, n=n, g=10 + i, ok=0 if n == 200 else 1)
            for n in (100, 200, 300))) for i, step in enumerate(("05_simd_4x4", "06_blocking"))]
        fig = plot_gflops.render(plot_gflops.parse(unsettled + ["-o", out]))
        ax = fig.axes[0]
        fig.canvas.draw()
        said = [t.get_text() for t in ax.get_legend().get_texts()]
        hollow = [l for l in ax.lines if l.get_label() == "_unsettled"]
        curve = [l for l in ax.lines if l.get_label() == "05_simd_4x4"]
        expect(len(hollow) == 2 and all(list(l.get_xdata()) == [200] and l.get_markerfacecolor() == "white"
                                        for l in hollow) and curve and list(curve[0].get_markevery() or []) == [0, 2]
               and sum("unsettled" in t for t in said) == 1 and not any("200" in t for t in said),
               "plot_gflops.py: n = 200 unsettled: hollow, once in the legend: {} {}".format(
                   [(l.get_label(), list(l.get_xdata())) for l in ax.lines], said))

        # --log: a log axis; an unverified CSV plots and says so.
        fig = plot_gflops.render(plot_gflops.parse([s04, s05, s08, "--log", "--peak", peak, "-o", out]))
        expect(fig.axes[0].get_yscale() == "log", "plot_gflops.py --log: the axis is not logarithmic")
        unchecked = write("unchecked.csv", harness("04_unroll_4x4", "scalar", [(100, 3.0, 3.0)], err="nan",
                                                   verified=lambda n: 0))
        r = run("plot_gflops.py", [unchecked, "-o", os.path.join(d, "unchecked.png")])
        expect(r.returncode == 0, "an unverified CSV (--no-verify) still plots: exit {}: {}".format(r.returncode, r.stderr))
        fig = plot_gflops.render(plot_gflops.parse([unchecked, "-o", out]))
        expect(any("unverified" in l for l in fig.axes[0].get_legend_handles_labels()[1]),
               "plot_gflops.py: an unverified curve should say so")
        r = run("plot_gflops.py", [s04, "--peak", peak, "--peak-isa", "sse", "-o", os.path.join(d, "sse.png")])
        expect(r.returncode == 0, "--peak-isa sse: exit {}: {}".format(r.returncode, r.stderr))

        # No scalar row in peak.csv (an older meter): a quarter of the SSE peak, and it says so.
        no_scalar = write("peak_noscalar.csv", PEAK.replace("scalar,fp32,1,8.0\n", ""))
        fig = plot_gflops.render(plot_gflops.parse([s04, "--peak", no_scalar, "-o", out]))
        expect(any("scalar peak" in l and "8.0" in l and "estimated" in l
                   for l in fig.axes[0].get_legend_handles_labels()[1]),
               "plot_gflops.py: without a scalar row, the scalar ceiling should be SSE / 4, said to be estimated")

        # ---- Bad input: exit 2, one line naming the file ---------------------------
        bad_inputs = {
            "empty.csv": "",
            "header_only.csv": HEADER,
            "wrong_columns.csv": "size,gflops\n100,3\n",
            "not_a_number.csv": HEADER + "04_unroll_4x4,100,100,100,1,fast,3,0.1,1e-7,1,scalar,3,x\n",
            "nan.csv": HEADER + "04_unroll_4x4,100,100,100,1,nan,3,0.1,1e-7,1,scalar,3,x\n",
            "inf.csv": HEADER + "04_unroll_4x4,100,100,100,1,inf,3,0.1,1e-7,1,scalar,3,x\n",
            "huge.csv": HEADER + "04_unroll_4x4,100,100,100,1,1e309,3,0.1,1e-7,1,scalar,3,x\n",
            "negative.csv": HEADER + "04_unroll_4x4,100,100,100,1,-5,3,0.1,1e-7,1,scalar,3,x\n",
            "median_nan.csv": HEADER + "04_unroll_4x4,100,100,100,1,3,nan,0.1,1e-7,1,scalar,3,x\n",
        }
        for name, text in bad_inputs.items():
            refused("plot_gflops.py", [write(name, text), "-o", os.path.join(d, "bad.png")], name, name)
        refused("plot_gflops.py", [os.path.join(d, "missing.csv"), "-o", out], "missing.csv", "missing file")
        refused("plot_gflops.py", [s04, "--peak", write("p_fp64.csv", "isa,precision,threads,gflops\nsse,fp64,1,10\n"),
                                   "-o", out], "p_fp64.csv", "peak without an fp32 row")
        for name, value in (("p_zero.csv", "0"), ("p_nan.csv", "nan"), ("p_neg.csv", "-3")):
            refused("plot_gflops.py", [s04, "--peak", write(name, "isa,precision,threads,gflops\nsse,fp32,1,{}\n".format(value)),
                                       "-o", out], name, "peak " + value)
        refused("plot_gflops.py", [s04, "-o", os.path.join(d, "out.xyz")], "out.xyz", "-o out.xyz")
        refused("plot_gflops.py", [s04, "-o", os.path.join(d, "no-such-folder", "out.png")], "out.png",
                "an output in a missing folder", status=3)

        # ---- plot_staircase.py ---------------------------------------------------------------
        s01 = write("s01.csv", harness("01_baseline", "scalar", [(500, 1.0, 0.9), (1000, 1.0, 0.9)]))
        s05b = write("s05b.csv", harness("05_simd_4x4", "sse", [(500, 16.0, 15.0), (1000, 12.0, 11.0)]))
        # Step 09 as it runs: a small size on one thread, n = 1000 on two. The figures at one
        # size take the row at that size, on the threads that ran it.
        s09 = write("s09.csv", harness("09_openmp", "avx512", [(100, 50.0, 45.0)], threads=1) +
                    harness("09_openmp", "avx512", [(1000, 200.0, 190.0)], threads=2)[len(HEADER):])
        ref = write("ref_openblas.csv", harness("ref_openblas", "openblas 0.3.21", [(1000, 140.0, 130.0)]))
        ref_mt = write("ref_openblas_mt.csv", harness("ref_openblas", "openblas 0.3.21", [(1000, 270.0, 260.0)],
                                                      threads=2))
        # Step 10 on one thread and on two: each bar's speed-up is over the last bar on as many.
        s10 = write("s10.csv", harness("10_tuned", "avx512", [(1000, 121.0, 120.0)], threads=1))
        s10mt = write("s10mt.csv", harness("10_tuned", "avx512", [(1000, 240.0, 230.0)], threads=2))
        r = run("plot_staircase.py", [s01, s05b, s08, s09, ref, "--peak", peak, "-o", out])
        expect(r.returncode == 0, "plot_staircase.py: exit {}: {}".format(r.returncode, r.stderr))
        is_png(out, "plot_staircase.py")
        fig = plot_staircase.render(plot_staircase.parse([s01, s05b, s08, s09, ref, ref_mt, "--peak", peak,
                                                          "-o", out]))
        ax = fig.axes[0]
        heights = [round(p.get_height(), 3) for p in ax.patches]
        expect(heights == [1.0, 12.0, 110.0, 200.0],
               "plot_staircase.py: the bars should be 01, 05, 08, 09 at n = 1000: {}".format(heights))
        texts = [t.get_text() for t in ax.texts]
        expect(any(t == "12.0\n\u00d712 vs 01" for t in texts),
               "plot_staircase.py: step 05's label should give 12.0 and x12 over step 01: {}".format(texts))
        expect(any("\u00d79.2 vs 05" in t for t in texts), "plot_staircase.py: 08 over 05 is x9.2: {}".format(texts))
        expect(any(t.startswith("200.0\n\u00d71.8 vs 08") for t in texts),
               "plot_staircase.py: 09 (2 threads) over 08 (the bar before, none on 2 threads) is x1.8: {}".format(texts))
        labels = ax.get_legend_handles_labels()[1]
        expect(any("ref_openblas, 1 thread: 140.0" in l for l in labels), "plot_staircase.py: no OpenBLAS line")
        # The two-thread bar has the library's two-thread line beside it (against one-thread
        # libraries only, a 2-thread bar would look ahead of a library it trails).
        expect(any("ref_openblas, 2 threads: 270.0" in l for l in labels),
               "plot_staircase.py: no OpenBLAS line on 2 threads beside the 2-thread bar: {}".format(labels))
        expect(any("2 threads" in l and "320.0" in l for l in labels), "plot_staircase.py: no all-core peak line")
        expect(ax.get_yscale() == "log", "plot_staircase.py: the axis should be logarithmic")
        expect("2 threads" in ax.get_title() or "1 and 2 threads" in ax.get_title(),
               "plot_staircase.py: the title should give the thread counts: " + ax.get_title())
        fig = plot_staircase.render(plot_staircase.parse([s01, s08, s09, s10, s10mt, "--peak", peak, "-o", out]))
        ax = fig.axes[0]
        heights = [round(p.get_height(), 3) for p in ax.patches]
        expect(heights == [1.0, 110.0, 200.0, 121.0, 240.0],
               "plot_staircase.py: the bars should be 01, 08, 09, 10 on 1 thread, 10 on 2: {}".format(heights))
        texts = [t.get_text() for t in ax.texts]
        expect(any(t.startswith("121.0\n\u00d71.1 vs 08") for t in texts),
               "plot_staircase.py: step 10 on one thread should be over step 08: {}".format(texts))
        expect(any(t.startswith("240.0\n\u00d71.2 vs 09") for t in texts),
               "plot_staircase.py: step 10 on two threads should be over step 09: {}".format(texts))
        fig = plot_staircase.render(plot_staircase.parse([s01, s05b, "--at", "500", "-o", out]))
        expect([round(p.get_height(), 3) for p in fig.axes[0].patches] == [1.0, 16.0],
               "plot_staircase.py --at 500: the bars should be at n = 500")
        refused("plot_staircase.py", [ref, "-o", out], "ref_openblas.csv", "only a reference CSV")
        refused("plot_staircase.py", [write("neg2.csv", bad_inputs["negative.csv"]), "-o", out], "neg2.csv", "negative")

        # ---- The roofline model, and plot_roofline.py ----------------------------------------
        caches = {"L1": 48 * 1024, "L2": 2 << 20, "L3": 64 << 20}
        traffic = roofline_model.bytes_per_fma(1, (1, 1), 1000, caches)
        # Step 01: A and B loaded (4 + 4 bytes), the sum stored to C (4), never loaded: 12 bytes
        # per multiply-add, 2/12 flop/B. Its B column (1000 lines, 64 KB) misses L1: a line per
        # multiply-add from L2, plus A's 4 bytes.
        expect(abs(traffic["L1"] - 12) < 1e-9 and abs(traffic["L2"] - 68) < 1e-9,
               "roofline model, step 01: {}".format(traffic))
        # Step 02 as compiled: per step of p, 4 x (load A, multiply by B, add, store to C), A
        # loaded again after each store (C might be A): 12 bytes per multiply-add too, not the
        # 5 of a 1 x 4 tile plus C. B's rows: a line per 4 multiply-adds from L2, plus A's 1.
        traffic = roofline_model.bytes_per_fma(2, (1, 4), 1000, caches)
        expect(abs(traffic["L1"] - 12) < 1e-9 and abs(traffic["L2"] - 17) < 1e-9,
               "roofline model, step 02: {}".format(traffic))
        # (Steps 08-10's tiles are the kernels' constants, through the registry: test_machine.py.)
        tile = roofline_model.intensity(roofline_model.bytes_per_fma(8, (14, 32), 1000, caches,
                                                                     {"kc": 1056, "mc": 112, "nc": 8192}))
        # 14 x 32 tile: 448 multiply-adds per 46 floats loaded, 2 * 448 / 184 = 4.87 flop/B,
        # a little less for the C tile (8 bytes per element, once per kc = 1000).
        expect(abs(tile["L1"] - 896 / (184 + 448 * 8 / 1000)) < 1e-6, "roofline model, step 08 L1: {}".format(tile))
        refused("plot_roofline.py", [s01, "--peak", peak, "--bandwidth", write("bw0.csv", BANDWIDTH),
                                     "--cpuinfo", write("noinfo.json", "nothing here\n"), "-o", out],
                "noinfo.json", "a machine.json that is not JSON")
        no_caches = json.loads(machine_json(root))
        no_caches["caches"]["l2"] = 0
        refused("plot_roofline.py", [s01, "--peak", peak, "--bandwidth", write("bw0.csv", BANDWIDTH),
                                     "--cpuinfo", write("nocache.json", json.dumps(no_caches)), "-o", out],
                "nocache.json", "a machine.json without an L2 size")
        del no_caches["steps"][0]["slug"]
        refused("plot_roofline.py", [s01, "--peak", peak, "--bandwidth", write("bw0.csv", BANDWIDTH),
                                     "--cpuinfo", write("noslug.json", json.dumps(no_caches)), "-o", out],
                "noslug.json", "a machine.json with a step without its slug")
        bandwidth = write("bandwidth.csv", BANDWIDTH)
        cpuinfo = write("cpuinfo.txt", CPUINFO)
        machine_file = write("machine.json", machine_json(root))
        s06 = write("s06.csv", harness("06_blocking", "sse", [(1000, 13.0, 12.0)]))
        args = [s01, s05b, s06, s08, s09, "--peak", peak, "--bandwidth", bandwidth, "--cpuinfo", machine_file, "-o", out]
        r = run("plot_roofline.py", args)
        expect(r.returncode == 0, "plot_roofline.py: exit {}: {}".format(r.returncode, r.stderr))
        is_png(out, "plot_roofline.py")
        fig = plot_roofline.render(plot_roofline.parse(args))
        expect(len(fig.axes) == 2, "plot_roofline.py: one panel per thread count (1 and 2): {}".format(len(fig.axes)))
        one = fig.axes[0]
        points = [(l.get_xdata()[0], l.get_ydata()[0]) for l in one.lines
                  if l.get_marker() == "o" and len(l.get_xdata())]   # (not the legend's sample)
        # Step 01 at 1.0 GFLOPS, bounded by L2: 2/68 flop/B.
        expect(any(abs(x - 2 / 68) < 1e-6 and abs(y - 1.0) < 1e-9 for x, y in points),
               "plot_roofline.py: no point for step 01 at (2/68 flop/B, 1.0 GFLOPS): {}".format(points))
        expect(len(points) == 4, "plot_roofline.py: 4 one-thread steps, {} points".format(len(points)))
        roofs = [l for l in one.lines if list(l.get_xdata()) == list(plot_roofline.X_RANGE)
                 and l.get_ydata()[0] == l.get_ydata()[1]]
        expect(sorted(round(l.get_ydata()[0], 1) for l in roofs) == [8.0, 32.0, 96.0, 160.0],
               "plot_roofline.py: compute roofs should be scalar, sse, avx2, avx512")
        memory = [l.get_label() for l in one.lines if "GB/s" in l.get_label()]
        expect(len(memory) == 4 and "L1 read: 300 GB/s" in memory, "plot_roofline.py: memory roofs {}".format(memory))
        expect(len([l for l in fig.axes[1].lines if l.get_marker() == "o" and len(l.get_xdata())]) == 1,
               "plot_roofline.py: the 2-thread panel should hold step 09")
        expect("Roofline" in fig._suptitle.get_text(), "plot_roofline.py: no title")
        # Two compute roofs 4 % apart (avx 92, avx2 96: Zen 3 has avx 97, avx2 102): their labels
        # at the right edge must not print over each other.
        close = write("peak_close.csv", PEAK + "avx,fp32,1,92.0\n")
        fig = plot_roofline.render(plot_roofline.parse([s01, "--peak", close, "--bandwidth", bandwidth,
                                                        "--cpuinfo", machine_file, "-o", out]))
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        labels = [t for t in fig.axes[0].texts if t.get_text().strip().split(" ")[0] in ("avx", "avx2")]
        boxes = [t.get_window_extent(renderer) for t in labels]
        expect(len(boxes) == 2 and not boxes[0].overlaps(boxes[1]),
               "plot_roofline.py: the avx 92 and avx2 96 labels overlap: {}".format([t.get_text() for t in labels]))
        # Equal roofs (AVX-512 on a core that splits 512-bit FMAs, as Zen 4 does): one label
        # naming both, not two printed over each other.
        equal = write("peak_equal.csv", PEAK.replace("avx2,fp32,1,96.0", "avx2,fp32,1,158.0"))
        fig = plot_roofline.render(plot_roofline.parse([s01, "--peak", equal, "--bandwidth", bandwidth,
                                                        "--cpuinfo", machine_file, "-o", out]))
        said = [t.get_text().strip() for t in fig.axes[0].texts if "avx" in t.get_text().split(" ")[0]]
        expect(said == ["avx512, avx2 160"],
               "plot_roofline.py: avx512 160 and avx2 158 should share one label: {}".format(said))
        # The blocks of the variant that ran come from the CSV's params column where it has one
        # (a forced --kernel avx2 runs other blocks than cpuinfo reports): kc = 125 there, so
        # the C tile costs 8 bytes per 125 steps of p at L1, not per 1000.
        s08p = write("s08p.csv", "step,m,n,k,threads,gflops_best,gflops_median,seconds_best,max_rel_err,"
                                 "verified,kernel,reps,cpu,uarch,params\n08_avx512_14x32,1000,1000,1000,1,90.0,85.0,"
                                 "0.02,1e-7,1,avx512,3,Test,Test,mc=112 kc=125 nc=8192\n")
        import harness_csv
        run08 = harness_csv.load_run(s08p)
        expect(run08["rows"][0]["params"] == {"mc": 112, "kc": 125, "nc": 8192},
               "harness_csv: the params column: {}".format(run08["rows"][0]["params"]))
        import machine
        pts, _ = plot_roofline.points([run08], 1, 1000, caches, machine.parse(machine_json(root), "machine.json"),
                                      harness_csv.level_bandwidth(harness_csv.load_bandwidth(bandwidth), 1))
        expect(len(pts) == 1 and abs(pts[0]["intensities"]["L1"] - 896 / (184 + 448 * 8 / 125)) < 1e-6,
               "plot_roofline.py: step 08's blocks should come from its params column: {}".format(pts))
        # Step 10's path at a size is its plan's (cpuinfo --json --sizes): in place (path=direct), the
        # unblocked nest's traffic; packed, the blocked one's. The model does not guess the step's rule.
        s10 = harness_csv.load_run(write("s10.csv", harness("10_tuned", "avx512", [(200, 90.0, 85.0)])))
        at200 = {}
        for path in ("direct", "packed"):
            data = json.loads(machine_json(root))
            for step in data["steps"]:
                if step["number"] == 10:
                    step["plans"] = [{"size": 200, "threads": 1, "plan": {"path": path}}]
                    step["tile"] = {"mr": 14, "nr": 32}
                    step["params"] = [{"name": k, "value": v, "help": ""} for k, v in (("mc", 112), ("kc", 200))]
                    for v in step["variants"]:
                        v["tile"] = {"mr": 14, "nr": 32}
            pts, _ = plot_roofline.points([s10], 1, 200, caches, machine.parse(json.dumps(data), "machine.json"),
                                          harness_csv.level_bandwidth(harness_csv.load_bandwidth(bandwidth), 1))
            at200[path] = pts[0]["intensities"]["L1"] if len(pts) == 1 else None
        nest10 = dict(roofline_model.STEPS[10], mr=14, nr=32)
        in_place = roofline_model.intensity(roofline_model.unblocked(200, nest10, caches))["L1"]
        expect(at200["direct"] is not None and abs(at200["direct"] - in_place) < 1e-9
               and at200["packed"] is not None and abs(at200["packed"] - in_place) > 1e-3,
               "plot_roofline.py: step 10's path should be its plan's: {} (in place: {})".format(at200, in_place))

        # ---- plot_scaling.py ------------------------------------------------------------------
        t1 = write("t1.csv", harness("09_openmp", "avx512", [(1000, 150.0, 140.0)], threads=1))
        t2 = write("t2.csv", harness("09_openmp", "avx512", [(1000, 240.0, 230.0)], threads=2))
        r = run("plot_scaling.py", [t1, t2, "--peak", peak, "-o", out])
        expect(r.returncode == 0, "plot_scaling.py: exit {}: {}".format(r.returncode, r.stderr))
        is_png(out, "plot_scaling.py")
        fig = plot_scaling.render(plot_scaling.parse([t1, t2, "--peak", peak, "-o", out]))
        left, right = fig.axes[0], fig.axes[1]
        step = [l for l in left.lines if l.get_label() == "09_openmp"]
        expect(step and list(step[0].get_ydata()) == [150.0, 240.0], "plot_scaling.py: GFLOPS against threads")
        of_peak = [l for l in right.lines if "% of the peak" in l.get_label()]
        scaling = [l for l in right.lines if "GFLOPS(1)" in l.get_label()]
        # 150/160 and 240/320 of the peak; 240 / (2 x 150) = 80% scaling.
        expect(of_peak and [round(v, 2) for v in of_peak[0].get_ydata()] == [93.75, 75.0],
               "plot_scaling.py: % of the peak at t threads")
        expect(scaling and [round(v, 2) for v in scaling[0].get_ydata()] == [100.0, 80.0],
               "plot_scaling.py: GFLOPS(t) / (t x GFLOPS(1))")
        refused("plot_scaling.py", [t1, "--peak", write("p1.csv", "isa,precision,threads,gflops\nsse,fp64,1,1\n"),
                                    "-o", out], "p1.csv", "a peak.csv without fp32 rows")

        # ---- plot_bandwidth.py ----------------------------------------------------------------
        r = run("plot_bandwidth.py", [bandwidth, "--cpuinfo", cpuinfo, "-o", out])
        expect(r.returncode == 0, "plot_bandwidth.py: exit {}: {}".format(r.returncode, r.stderr))
        is_png(out, "plot_bandwidth.py")
        fig = plot_bandwidth.render(plot_bandwidth.parse([bandwidth, "-o", out]))
        curves = sorted(l.get_label() for l in fig.axes[0].lines if not l.get_label().startswith("_"))
        expect(curves == ["read, 1 thread", "read, 2 threads", "triad, 1 thread"],
               "plot_bandwidth.py: curves {}".format(curves))
        read1 = [l for l in fig.axes[0].lines if l.get_label() == "read, 1 thread"][0]
        expect(list(read1.get_xdata()) == sorted(read1.get_xdata()), "plot_bandwidth.py: sizes out of order")
        refused("plot_bandwidth.py", [write("bwbad.csv", "kind,bytes,threads,gbps\nwrite,100,1,3\n"), "-o", out],
                "bwbad.csv", "an unknown kind")
        refused("plot_bandwidth.py", [write("bwnan.csv", "kind,bytes,threads,gbps\nread,100,1,nan\n"), "-o", out],
                "bwnan.csv", "a NaN bandwidth")

        # ---- plot_blockmap.py -----------------------------------------------------------------
        cells = ["step,n,kc,mc,default,gflops_best,gflops_median,verified,kernel,cpu,uarch"]
        for kc in (128, 256):
            for mc in (56, 112, 224):
                g = 100 + kc / 16 - abs(mc - 112) / 4
                cells.append("08_avx512_14x32,1000,{},{},{},{},{},1,avx512,Test CPU,".format(
                    kc, mc, int(kc == 256 and mc == 112), g, g - 1))
        bm = write("bm.csv", "\n".join(cells) + "\n")
        r = run("plot_blockmap.py", [bm, "-o", out])
        expect(r.returncode == 0, "plot_blockmap.py: exit {}: {}".format(r.returncode, r.stderr))
        is_png(out, "plot_blockmap.py")
        fig = plot_blockmap.render(plot_blockmap.parse([bm, "-o", out]))
        ax = fig.axes[0]
        image = ax.images[0].get_array()
        expect(image.shape == (3, 2) and abs(image[1][1] - 116.0) < 1e-9,
               "plot_blockmap.py: the map should be mc (3 rows) x kc (2 columns), 116 at kc 256, mc 112")
        boxes = [(p.get_x(), p.get_y()) for p in ax.patches]
        expect(boxes == [(0.5, 0.5)], "plot_blockmap.py: the default (kc 256, mc 112) should be outlined: {}".format(boxes))
        expect(any("best" in t.get_text() and "116.0" in t.get_text() for t in ax.texts),
               "plot_blockmap.py: the best cell should be marked")
        refused("plot_blockmap.py", [write("bm2.csv", "\n".join(cells + [cells[1]]) + "\n"), "-o", out], "bm2.csv",
                "a cell twice")

        # ---- Extreme input: one line and exit 2, never a traceback or a wait --------------------
        # Numbers past what the harness writes: a size above kMaxSize (46340), a thread count
        # past any machine, GFLOPS of 1e7 and more (1e308 made the axis limits infinite).
        row = "04_unroll_4x4,{m},100,100,{t},{g},2,0.1,1e-7,1,scalar,3,x\n"
        for name, fields in (("m_huge.csv", dict(m="1" + "0" * 20, t=1, g=3)), ("m_46341.csv", dict(m=46341, t=1, g=3)),
                             ("t_huge.csv", dict(m=100, t="1" + "0" * 20, g=3)), ("g_huge.csv", dict(m=100, t=1, g="1e308"))):
            refused("plot_gflops.py", [write(name, HEADER + row.format(**fields)), "-o", out], name, name)
        refused("plot_gflops.py", [s04, "--peak", write("p_huge.csv", "isa,precision,threads,gflops\nsse,fp32,1,1e308\n"),
                                   "-o", out], "p_huge.csv", "a peak of 1e308")
        t_huge = write("t_huge09.csv", harness("09_openmp", "avx512", [(1000, 150.0, 140.0)], threads="1" + "0" * 20))
        refused("plot_scaling.py", [t_huge, "--peak", peak, "-o", out], "t_huge09.csv", "threads 1e20")
        bw_huge = write("bw_huge.csv", "kind,bytes,threads,gbps\nread,{},1,3\nread,100,1,1e308\n".format("1" + "0" * 20))
        refused("plot_bandwidth.py", [bw_huge, "-o", out], "bw_huge.csv", "bytes 1e20")
        # A FIFO where a CSV should be: refused at once (reading it would wait for a writer).
        fifo = os.path.join(d, "fifo.csv")
        os.mkfifo(fifo)
        try:
            r = subprocess.run([sys.executable, os.path.join(plots, "plot_gflops.py"), fifo, "-o", out],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=20)
            expect(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "fifo.csv" in r.stderr,
                   "plot_gflops.py on a FIFO: exit {}, {!r}".format(r.returncode, r.stderr))
        except subprocess.TimeoutExpired:
            failures.append("plot_gflops.py on a FIFO: still waiting after 20 s")
        # Text from the CSVs is text, not mathtext: a step or uarch of $\frac{$ is drawn as written.
        tex = write("tex.csv", harness("05_$\\frac{$", "sse", [(100, 3.0, 2.0), (1000, 4.0, 3.0)], header=HEADER_UARCH,
                                       uarch="$\\frac{$"))
        tex_t = write("tex2.csv", harness("05_$\\frac{$", "sse", [(1000, 6.0, 5.0)], threads=2, header=HEADER_UARCH,
                                          uarch="$\\frac{$"))
        for script, args in (("plot_gflops.py", [tex, "--peak", peak]), ("plot_staircase.py", [tex, "--peak", peak]),
                             ("plot_scaling.py", [tex, tex_t, "--peak", peak]),
                             ("plot_roofline.py", [tex, "--peak", peak, "--bandwidth", bandwidth, "--cpuinfo", machine_file])):
            r = run(script, args + ["-o", out])
            expect(r.returncode == 0 and not r.stderr, "{} with $\\frac{{$ in the CSV: exit {}, {!r}".format(
                script, r.returncode, r.stderr[-300:]))
        fig = plot_gflops.render(plot_gflops.parse([tex, "-o", out]))
        fig.canvas.draw()
        expect(any(t.get_text().startswith("05_\\$\\frac{\\$") for t in fig.axes[0].get_legend().get_texts()),
               "plot_gflops.py: the legend should show the step as written (each $ escaped for mathtext)")
        bm_tex = write("bm_tex.csv", "\n".join([cells[0]] + [c.replace("08_avx512_14x32", "08_$\\frac{$")
                                                               .replace("Test CPU,", "Test CPU,$\\frac{$")
                                                               for c in cells[1:]]) + "\n")
        r = run("plot_blockmap.py", [bm_tex, "-o", out])
        expect(r.returncode == 0 and not r.stderr, "plot_blockmap.py with $\\frac{{$: exit {}, {!r}".format(
            r.returncode, r.stderr[-300:]))

        # ---- Figures that agree with each other ----------------------------------------
        from matplotlib.colors import to_hex
        import matplotlib.pyplot as plt
        import drawing
        plt.close("all")

        def drawn(ax, label):
            """The lines of `ax` with this exact label."""
            return [l for l in ax.lines if l.get_label() == label]

        def look(line):
            """What tells two lines apart: dash pattern, width, colour."""
            dashes = getattr(line, "_unscaled_dash_pattern", (0, None))[1]
            return (line.get_linestyle(), tuple(dashes or ()), line.get_linewidth(), to_hex(line.get_color()))

        blis_mt = write("ref_blis_mt.csv", harness("ref_blis", "blis 0.9.0", [(1000, 260.0, 250.0)], threads=2))
        # (a) One colour per series, whatever figure it is in and whatever else is drawn there:
        # step 09 second in its own figure, first in overlay_mt.png, third bar of the staircase,
        # alone in scaling.png (it was green in one, orange in another, where BLIS was orange).
        own09 = plot_gflops.render(plot_gflops.parse([s08, s09, "--peak", peak, "-o", out])).axes[0]
        overlay_mt = plot_gflops.render(plot_gflops.parse([s09, ref_mt, blis_mt, "--peak", peak, "-o", out])).axes[0]
        stairs = plot_staircase.render(plot_staircase.parse([s01, s08, s09, ref, ref_mt, blis_mt, "-o", out])).axes[0]
        scaling = plot_scaling.render(plot_scaling.parse([t1, t2, "--peak", peak, "-o", out])).axes[0]
        colours09 = [to_hex(l.get_color()) for ax in (own09, overlay_mt) for l in drawn(ax, "09_openmp (2 threads)")]
        colours09 += [to_hex(stairs.patches[2].get_facecolor()), to_hex(drawn(scaling, "09_openmp")[0].get_color())]
        expect(len(colours09) == 4 and len(set(colours09)) == 1,
               "palette: step 09 in its figure, overlay_mt, the staircase and scaling: {}".format(colours09))
        openblas = [to_hex(l.get_color()) for l in overlay_mt.lines if l.get_label().startswith("ref_openblas")]
        openblas += [to_hex(l.get_color()) for l in stairs.lines if l.get_label().startswith("ref_openblas")]
        blis = [to_hex(l.get_color()) for ax in (overlay_mt, stairs) for l in ax.lines if l.get_label().startswith("ref_blis")]
        expect(len(openblas) == 3 and len(set(openblas)) == 1 and len(blis) == 2 and len(set(blis)) == 1,
               "palette: OpenBLAS {} and BLIS {} in overlay_mt and the staircase".format(openblas, blis))
        expect(len(set(colours09[:1] + openblas[:1] + blis[:1] +
                       [to_hex(drawn(own09, "08_avx512_14x32")[0].get_color())])) == 4,
               "palette: step 09, step 08, OpenBLAS and BLIS should differ")
        palette = [drawing.series_colour("{:02d}_x".format(n)) for n in range(1, 11)] + \
            [drawing.series_colour(r) for r in ("ref_openblas", "ref_blis")]
        expect(len(set(to_hex(c) for c in palette)) == 12, "palette: steps 01-10 and the libraries share colours")

        # (b) One line style per ceiling: the scalar and SSE peaks were the same grey dotted line.
        overlay = plot_gflops.render(plot_gflops.parse([s04, s05, s08, "--log", "--peak", peak, "-o", out])).axes[0]
        ceilings = {isa: look(l) for l in overlay.lines for isa in ("scalar", "sse", "avx512")
                    if "{} peak".format(isa) in l.get_label()}
        expect(len(ceilings) == 3 and len(set(ceilings.values())) == 3,
               "overlay: the scalar, SSE and AVX-512 peaks should each have a style: {}".format(ceilings))
        styles = [tuple(sorted((k, str(v)) for k, v in drawing.ceiling_style(isa, many).items()))
                  for isa in ("scalar", "sse", "avx", "avx2", "avx512") for many in (False, True)]
        expect(len(set(styles)) == len(styles), "drawing.ceiling_style: two ceilings look alike")
        # The all-core peak is not the one-thread one (step 09's figure has both), and the same
        # ceiling looks the same on the staircase as in a curve figure.
        mt_lines = [look(l) for l in own09.lines if "avx512 peak" in l.get_label()]
        expect(len(mt_lines) == 2 and mt_lines[0] != mt_lines[1],
               "step 09's figure: the 1-thread and 2-thread AVX-512 peaks should differ: {}".format(mt_lines))
        stairs_peak = plot_staircase.render(plot_staircase.parse([s01, s08, "--peak", peak, "-o", out])).axes[0]
        one_stairs = [look(l) for l in stairs_peak.lines if l.get_label().startswith("measured avx512 peak, 1 thread")]
        expect(one_stairs == [ceilings.get("avx512")],
               "the 1-thread AVX-512 peak: {} on the staircase, {} in the overlay".format(one_stairs, ceilings.get("avx512")))

        # (e) Step 09's n = 100 on one thread: in its curve, ringed, the legend saying why, and
        # its own ceiling (the one-thread peak) drawn beside it.
        alone = plot_gflops.render(plot_gflops.parse([s09, "--peak", peak, "-o", out])).axes[0]
        curve = drawn(alone, "09_openmp (2 threads)")
        rings = [l for l in alone.lines if l.get_label() == "_fewer"]
        said = [t.get_text() for t in alone.get_legend().get_texts()]
        expect(len(curve) == 1 and list(curve[0].get_xdata()) == [100, 1000],
               "step 09: n = 100 (1 thread) belongs to its curve: {}".format([l.get_label() for l in alone.lines]))
        # The legend says once what a ring means, naming no size.
        expect(len(rings) == 1 and list(rings[0].get_xdata()) == [100] and list(rings[0].get_ydata()) == [50.0]
               and rings[0].get_markerfacecolor() == "white"
               and sum("fewer threads" in t and "100" not in t for t in said) == 1,
               "step 09: n = 100 on one thread should be ringed and said why: {} {}".format(
                   [l.get_label() for l in alone.lines], said))
        expect(any("avx512 peak, 1 thread" in l.get_label() and list(l.get_ydata()) == [160.0, 160.0]
                   for l in alone.lines), "step 09: no one-thread ceiling beside its one-thread point")

        plt.close("all")
        # (c) bandwidth.png: the level labels of three thread counts whose L1 points are a few %
        # apart do not cover each other (nor the legend).
        close = write("bw_close.csv", "kind,bytes,threads,gbps,level,isa\n"
                                      "read,24576,1,300.0,L1,avx512\nread,24576,2,310.0,L1,avx512\n"
                                      "read,24576,4,305.0,L1,avx512\nread,1048576,1,120.0,L2,avx512\n"
                                      "read,1048576,2,125.0,L2,avx512\nread,1048576,4,240.0,L2,avx512\n")
        fig = plot_bandwidth.render(plot_bandwidth.parse([close, "-o", out]))
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        names = [t for t in fig.axes[0].texts if t.get_text().startswith(("L1 ", "L2 "))]
        boxes = [t.get_window_extent(renderer) for t in names]
        boxes.append(fig.axes[0].get_legend().get_window_extent(renderer))
        overlaps = [(names[i].get_text(), j < len(names) and names[j].get_text() or "legend")
                    for i in range(len(names)) for j in range(i + 1, len(boxes)) if boxes[i].overlaps(boxes[j])]
        expect(len(names) == 6 and not overlaps, "bandwidth.png: {} labels, overlapping: {}".format(len(names), overlaps))

        # (d) The roofline: a point, the dotted line to its bound and the caption come from the
        # same numbers. Step 01 is bound by L2 with bandwidth.csv as it is, by DRAM when DRAM is
        # slow; step 08 by its ISA's peak. Whatever the caption names must be what the drawing
        # shows: of the step's points (one per level, each at its intensity against that level),
        # the one nearest below its own roof is the large one, in the colour of the bound.
        slow = write("bw_slow.csv", BANDWIDTH.replace("read,1090519040,1,12.0,DRAM", "read,1090519040,1,0.01,DRAM"))
        level_of = {to_hex(c): lv for lv, c in plot_roofline.LEVEL_COLOURS.items()}
        for bw_file, step_csv, gflops, expected in ((bandwidth, s01, 1.0, "L2"), (slow, s01, 1.0, "DRAM"),
                                                    (bandwidth, s08, 110.0, "compute")):
            fig = plot_roofline.render(plot_roofline.parse([step_csv, "--peak", peak, "--bandwidth", bw_file,
                                                            "--cpuinfo", machine_file, "-o", out]))
            ax = fig.axes[0]
            what = "roofline, {} with {}".format(os.path.basename(step_csv), os.path.basename(bw_file))
            roof_of = {l.get_label().split()[0]: l.get_ydata()[0] / l.get_xdata()[0]
                       for l in ax.lines if "GB/s" in l.get_label()}
            big = [l for l in ax.lines if l.get_marker() == "o" and len(l.get_xdata()) and l.get_ydata()[0] == gflops]
            hollow = [(x, level_of[to_hex(e)]) for c in ax.collections
                      for (x, y), e in zip(c.get_offsets(), c.get_edgecolors()) if y == gflops]
            caption_lines = [line for t in ax.texts for line in t.get_text().splitlines()
                             if line.startswith(os.path.basename(step_csv)[1:3] + " ")]
            if len(big) != 1 or len(caption_lines) != 1:
                expect(False, "{}: {} points, captions {}".format(what, len(big), caption_lines))
                continue
            x = big[0].get_xdata()[0]
            colour = to_hex(big[0].get_color())
            # Each level's roof at its own point: the large point's level is the lowest.
            at = dict((lv, roof_of[lv] * hx) for hx, lv in hollow)
            level = level_of.get(colour)
            riser = [l for l in ax.lines if len(l.get_xdata()) == 2 and l.get_xdata()[0] == l.get_xdata()[1] == x]
            if expected == "compute":
                own = 160.0
                expect(colour == to_hex(plot_roofline.COMPUTE_COLOUR) and "bound by the avx512 peak" in caption_lines[0]
                       and riser and abs(riser[0].get_ydata()[1] - own) < 1e-6,
                       "{}: should be bound by the avx512 peak (160): colour {}, caption {!r}".format(
                           what, colour, caption_lines[0]))
                continue
            if level is None:
                expect(False, "{}: the point's colour {} is no level's; caption {!r}".format(what, colour, caption_lines[0]))
                continue
            at[level] = roof_of[level] * x
            lowest = min(at, key=at.get)
            expect(level == expected == lowest and "bound by {} (".format(expected) in caption_lines[0]
                   and " vs {} ".format(expected) in caption_lines[0],
                   "{}: the point's colour says {}, the lowest roof at the step's points is {} ({}), the caption "
                   "says {!r}; expected {}".format(what, level, lowest, at, caption_lines[0], expected))
            expect(riser and abs(riser[0].get_ydata()[1] - at[expected]) < 1e-6 * at[expected],
                   "{}: the dotted line should end at the {} roof, {}: {}".format(
                       what, expected, at.get(expected), [list(r.get_ydata()) for r in riser]))

    for f in failures:
        print("FAIL:", f)
    print("plot tests: {} failed".format(len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
