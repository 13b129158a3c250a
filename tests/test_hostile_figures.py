"""Hostile inputs to summary.py, make_figures.py and plot_gflops.py, each small and quick: a
malformed samples file (a row with m = abc or 64.0, threads = abc, a short row, an inf or a
NaN sample, garbage, a folder or a FIFO in its place) is exit 2 with one line naming it, never
a traceback, a hang or a summary made of missing data; a thousand unsettled sizes draw; a
plot script's exit 2 is make_figures.py's exit 2; a 600-character step name, an ESC or a
newline in one are drawn and written harmlessly; the overlay keeps a step whose step column
is not its file's slug; summary.py --steps naming no step is exit 2.

    test_hostile_figures.py PATH/TO/plots   (the interpreter that has matplotlib)
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

HEADER = "step,m,n,k,threads,gflops_best,gflops_median,seconds_best,max_rel_err,verified,kernel,reps,cpu"
SIZES = (100, 500, 1000)


def aggregated(step, gflops, sizes=SIZES, settled=1):
    return HEADER + ",samples,settled\n" + "".join(
        "{},{n},{n},{n},1,{g},{g},0.1,1e-7,1,scalar,3,Test CPU,3,{s}\n".format(step, n=n, g=gflops, s=settled)
        for n in sizes)


def sample_rows(step, gflops, sizes=SIZES):
    return HEADER + ",run,round,seq\n" + "".join(
        "{},{n},{n},{n},1,{g},{g},0.1,1e-7,1,scalar,3,Test CPU,1,{r},{q}\n".format(step, n=n, g=gflops * (1 - 0.01 * r),
                                                                               r=r, q=i)
        for r in (1, 2) for i, n in enumerate(sizes))


def gflops(line, value):
    """A samples row with its gflops_best replaced."""
    fields = line.split(",")
    return ",".join(fields[:5] + [value] + fields[6:])


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def results_folder(root):
    """A small results/: steps 01 and 02 and OpenBLAS, with their samples."""
    if os.path.isdir(root):
        shutil.rmtree(root)
    for step, name, g in (("01_baseline", "step01_baseline", 1.0), ("02_unroll_1x4", "step02_unroll_1x4", 2.0),
                          ("ref_openblas", "ref_openblas", 50.0)):
        write(os.path.join(root, name + ".csv"), aggregated(step, g))
        write(os.path.join(root, "samples", name + ".csv"), sample_rows(step, g))
    return root


def main():
    plots = sys.argv[1]
    failures = []

    def run(script, *args, timeout=60):
        start = time.time()
        try:
            done = subprocess.run([sys.executable, os.path.join(plots, script)] + list(args), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, universal_newlines=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, "", "(still running after {} s)".format(timeout), timeout
        return done.returncode, done.stdout, done.stderr, time.time() - start

    def expect(condition, what, err=""):
        if not condition:
            failures.append(what + (": " + err.strip()[-600:] if err else ""))

    def refused(rc, err, name):
        """Exit 2 with one line on stderr naming `name`."""
        lines = err.strip().splitlines()
        return rc == 2 and len(lines) == 1 and name in lines[0] and "Traceback" not in err

    with tempfile.TemporaryDirectory() as d:
        res = os.path.join(d, "results")
        samples = os.path.join(res, "samples", "step01_baseline.csv")
        good = sample_rows("01_baseline", 1.0).splitlines()

        # Items 14 and 15: every malformed samples file, to summary.py and make_figures.py.
        bad_files = {
            "m = abc": good[:2] + [good[2].replace(",500,500,500,", ",abc,500,500,")],
            "m = 64.0": good[:2] + [good[2].replace(",500,500,500,", ",64.0,500,500,")],
            "threads = abc": good[:2] + [good[2].replace(",500,500,500,1,", ",500,500,500,abc,")],
            "a short row": good[:2] + ["01_baseline,500,500"],
            "an inf sample": good[:2] + [gflops(good[2], "inf")],
            "NaN samples": [good[0]] + [gflops(line, "nan") for line in good[1:]],
            "garbage": ["\x00\x01garbage\xff", "not,a,csv"],
            "a header only": [good[0]],
        }
        for what, lines in bad_files.items():
            results_folder(res)
            write(samples, "\n".join(lines) + "\n")
            for script in ("summary.py", "make_figures.py"):
                rc, _, err, _ = run(script, "--results", res)
                expect(refused(rc, err, samples), "{}, samples with {}: exit {}, want 2 and one line naming {}".format(
                    script, what, rc, samples), err)
        for what in ("a folder", "a FIFO"):
            results_folder(res)
            os.remove(samples)
            os.mkdir(samples) if what == "a folder" else os.mkfifo(samples)
            for script in ("summary.py", "make_figures.py"):
                rc, _, err, _ = run(script, "--results", res, timeout=30)
                expect(refused(rc, err, samples), "{}, {} in place of a samples file: exit {}, want 2 and one line".format(
                    script, what, rc), err)

        # An empty samples/ folder: no samples, said as such (not a spread of 0 %).
        results_folder(res)
        shutil.rmtree(os.path.join(res, "samples"))
        os.mkdir(os.path.join(res, "samples"))
        rc, out, err, _ = run("summary.py", "--results", res)
        expect(rc == 0 and "0% at" not in out, "summary.py, an empty samples/: exit {}, want 0 and no spread "
               "measured".format(rc), err)

        # Item 22: --steps naming no step there is exit 2, not a summary without steps.
        results_folder(res)
        rc, _, err, _ = run("summary.py", "--results", res, "--steps", "99")
        expect(refused(rc, err, "99"), "summary.py --steps 99: exit {}, want 2 and one line".format(rc), err)

        # Item 22: an ESC and a newline in a step name reach summary.md as '?', the table whole.
        results_folder(res)
        os.remove(os.path.join(res, "samples", "step02_unroll_1x4.csv"))
        write(os.path.join(res, "step02_unroll_1x4.csv"), aggregated('"02_un\x1b[31mroll\nx"', 2.0))
        rc, out, err, _ = run("summary.py", "--results", res)
        with open(os.path.join(res, "summary.md")) if rc == 0 else open(os.devnull) as f:
            text = f.read()
        expect(rc == 0 and "\x1b" not in text and "02_un?[31mroll?x" in text and "\x1b" not in out,
               "summary.py: an ESC and a newline in a step name: exit {}, want 0, shown as '?'".format(rc), err)

        # Item 22: the figures keep a step whose step column is not its file's slug (the
        # overlay took only the runs summary.collect numbered, by their step column).
        sys.path.insert(0, plots)
        import plot_gflops
        import summary
        results_folder(res)
        write(os.path.join(res, "step02_unroll_1x4.csv"), aggregated("renamed", 2.0))
        numbers = {r["step"]: r["number"] for r in summary.collect(res)}
        expect(numbers.get("renamed") == 2, "summary.collect: step02_unroll_1x4.csv whose step column is 'renamed' "
               "is not step 2: {}".format(numbers))

        # Item 22: a 600-character step name: drawn, the title within the canvas, the legend
        # kept, no warnings.
        long_name = "11_" + "x" * 597
        write(os.path.join(res, "step11_long.csv"), aggregated(long_name, 3.0))
        rc, _, err, _ = run("plot_gflops.py", os.path.join(res, "step11_long.csv"), "-o", os.path.join(d, "long.png"))
        expect(rc == 0 and not err.strip(), "plot_gflops.py, a 600-character step name: exit {}, want 0 and "
               "nothing on stderr".format(rc), err)
        fig = plot_gflops.render(plot_gflops.parse([os.path.join(res, "step11_long.csv"), "-o", os.path.join(d, "l.png")]))
        fig.canvas.draw()
        box = fig.axes[0].title.get_window_extent(fig.canvas.get_renderer())
        width = fig.get_figwidth() * fig.dpi
        expect(box.x0 >= 0 and box.x1 <= width + 1, "plot_gflops.py, a 600-character step name: the title "
               "({:.0f}-{:.0f} px) overflows the {:.0f}-px canvas".format(box.x0, box.x1, width))
        legend = fig.axes[0].get_legend()
        expect(legend is not None and 0 <= legend.get_window_extent().x0 and legend.get_window_extent().x1 <= width + 1,
               "plot_gflops.py, a 600-character step name: the legend is lost or wider than the canvas")

        # The same for a 600-character CPU name, in a figure whose title is not wrapped.
        import plot_staircase
        write(os.path.join(res, "step11_cpu.csv"), aggregated("11_cpu", 3.0).replace("Test CPU", "A hostile CPU name " * 32))
        fig = plot_staircase.render(plot_staircase.parse([os.path.join(res, "step11_cpu.csv"), "-o",
                                                          os.path.join(d, "s.png")]))
        fig.canvas.draw()
        box = fig.axes[0].title.get_window_extent(fig.canvas.get_renderer())
        width = fig.get_figwidth() * fig.dpi
        expect(box.x0 >= 0 and box.x1 <= width + 1, "plot_staircase.py, a 600-character CPU name: the title "
               "({:.0f}-{:.0f} px) overflows the {:.0f}-px canvas".format(box.x0, box.x1, width))

        # Item 16: 1,000 unsettled sizes draw, quickly.
        many = tuple(range(8, 8008, 8))
        write(os.path.join(res, "step11_many.csv"), aggregated("11_many", 3.0, many, settled=0))
        rc, _, err, seconds = run("plot_gflops.py", os.path.join(res, "step11_many.csv"), "-o",
                                  os.path.join(d, "many.png"), timeout=120)
        expect(rc == 0 and not err.strip() and seconds < 60, "plot_gflops.py, 1,000 unsettled sizes: exit {} after "
               "{:.0f} s, want 0 within a minute".format(rc, seconds), err)

        # Item 16: a plot script's exit 2 (a bad block map) is make_figures.py's 2, with its line.
        results_folder(res)
        write(os.path.join(res, "blockmap_step01_baseline.csv"), "garbage\n")
        rc, _, err, _ = run("make_figures.py", "--results", res, "--steps", "1", timeout=300)
        expect(rc == 2 and "blockmap_step01_baseline" in err and "Traceback" not in err,
               "make_figures.py, a bad block map CSV: exit {}, want 2 naming it".format(rc), err)

    for f in failures:
        print("FAIL: " + f)
    print("hostile figure inputs: {} failure(s)".format(len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
