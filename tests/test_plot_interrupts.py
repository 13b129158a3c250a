#!/usr/bin/env python3
"""Ctrl-C and SIGTERM in the middle of writing a figure end every script that can be run alone
as interrupted: plots/concepts.py, plots/index_page.py and each plots/plot_*.py. Ctrl-C (SIGINT
to the script's group, as a terminal sends it): exit 130, one line, no traceback; SIGTERM: ended
by SIGTERM, no traceback; either way the output folder holds only what it held (the old figure
as it was, no temporary beside it).

Without luck: each script runs under a wrapper whose output_file writer writes half the data,
then a marker file, then sleeps; the signal is sent once the marker is there. All the scripts
run at once (the cost is matplotlib's start and the drawing: a few seconds in all).

    test_plot_interrupts.py ROOT     (ROOT: the checkout; a Python with matplotlib)
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from signalled import ended  # noqa: E402

ROOT = os.path.abspath(sys.argv[1])
PLOTS, DATA = os.path.join(ROOT, "plots"), os.path.join(ROOT, "tests", "data", "zen3-busy")
FIGURES = os.path.join(ROOT, "docs", "figures")
failures = 0

# The writer stalls inside its write: the temporary file is made and half written.
STALL = r'''import os, runpy, sys, time
sys.path.insert(0, sys.argv[1])
import output_file
def stalled(fd, data):
    os.write(fd, data[:len(data) // 2])
    open(os.environ["STALL_MARK"], "w").close()
    time.sleep(60)
output_file._write_all = stalled
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
'''


def check(ok, what):
    global failures
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures += 1


def data(*names):
    return [os.path.join(DATA, n) for n in names]


def scripts(out):
    """(script, its arguments, the file it writes) for each, its output under the folder `out`."""
    fig = os.path.join(out, "fig.png")
    cpuinfo, peak, bandwidth = data("cpuinfo.txt", "peak.csv", "bandwidth.csv")
    return [
        ("concepts.py", ["--out", out, "--machine", data("machine.json")[0], "--only", "five_loops"],
         os.path.join(out, "five_loops.png")),
        ("index_page.py", ["--results", DATA, "--output", os.path.join(out, "index.html")],
         os.path.join(out, "index.html")),
        ("plot_gflops.py", data("step01_baseline.csv") + ["-o", fig], fig),
        ("plot_staircase.py", data("step01_baseline.csv", "step06_blocking.csv") + ["--at", "1000", "-o", fig], fig),
        ("plot_roofline.py", data("step06_blocking.csv") + ["--peak", peak, "--bandwidth", bandwidth,
                                                           "--cpuinfo", data("machine.json")[0], "--at", "1000",
                                                           "-o", fig], fig),
        ("plot_bandwidth.py", [bandwidth, "--cpuinfo", cpuinfo, "-o", fig], fig),
        ("plot_scaling.py", data("scaling/step09_openmp.t1.csv", "scaling/step09_openmp.t2.csv")
         + ["--peak", peak, "--at", "1000", "-o", fig], fig),
        ("plot_blockmap.py", data("blockmap_step06_blocking.csv") + ["-o", fig], fig),
        ("plot_ablation.py", [os.path.join(FIGURES, "zen4", "ablation.csv"), "-o", fig], fig),
        ("plot_tuning.py", [os.path.join(FIGURES, "emerald-rapids", "step10_tuning.search.csv"), "-o", fig], fig),
    ]


def wait_for(path, process, timeout=60.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end and process.poll() is None:
        if os.path.exists(path):
            return True
        time.sleep(0.02)
    return os.path.exists(path)


def wave(work, signum):
    """Every script at once, each stalled in its write, then `signum`; checks each."""
    runs = []
    for i in range(len(scripts(work))):
        folder = os.path.join(work, "{}-{}".format(signum, i))
        script, argv, target = scripts(folder)[i]
        os.makedirs(folder)
        with open(target, "w") as f:
            f.write("old\n")
        mark = os.path.join(work, "mark-{}-{}".format(signum, i))
        p = subprocess.Popen([sys.executable, "-c", STALL, PLOTS, os.path.join(PLOTS, script)] + argv,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                             env=dict(os.environ, STALL_MARK=mark), start_new_session=True)
        runs.append((script, p, mark, folder, target))
    for script, p, mark, folder, target in runs:
        began = wait_for(mark, p)
        # Ctrl-C goes to the terminal's whole group; SIGTERM to the script alone (kill PID).
        if signum == signal.SIGINT:
            os.killpg(p.pid, signum)
        else:
            p.send_signal(signum)
        out, err, took = ended(p, timeout=20)
        with open(target) as f:
            kept = f.read() == "old\n"
        left = sorted(os.listdir(folder))
        wanted = 130 if signum == signal.SIGINT else -signal.SIGTERM
        lines = err.strip().splitlines()
        said = len(lines) == 1 and lines[0] == script + ": interrupted" if signum == signal.SIGINT else not lines
        check(began and p.returncode == wanted and said and took < 5 and kept
              and left == [os.path.basename(target)],
              "{}, {} while writing: exit {} (wanted {}) in {:.1f} s, {}, the old file {}, folder {} ({})".format(
                  script, signal.Signals(signum).name, p.returncode, wanted, took,
                  "said as it should" if said else "said wrong", "kept" if kept else "changed", left,
                  ("" if began else "(the write never began) ") + err.strip()[-300:]))


def main():
    work = tempfile.mkdtemp(prefix="test_plot_interrupts.")
    try:
        wave(work, signal.SIGINT)
        wave(work, signal.SIGTERM)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("{} passed, {} failed".format("all" if failures == 0 else "some", failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
