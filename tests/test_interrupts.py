#!/usr/bin/env python3
"""Ctrl-C and SIGTERM end every stage of the run as interrupted, and the Python tools' usage
errors are one line: tools/interleave.py, tools/block_map.py, plots/make_figures.py,
plots/summary.py, cmake/RunStep.cmake (make step-N) and ./run_all.sh at each of its stages,
run on fake, slow executables (a fake cmake, cpuinfo, peak and steps) in a scratch copy of
the checkout's layout. Each signal is sent once a marker file says its stage has begun; each
check asserts the exit status, the time to end (a generous 5 s for run_all.sh's 2 s), that no
process of the test is left, and what results/ holds.

    test_interrupts.py ROOT BIN_DIR     (ROOT: the checkout; BIN_DIR: build/bin, for write_file)
"""
import csv
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from signalled import ended, kill_left  # noqa: E402

ROOT, BIN = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
PY = sys.executable
failures = 0


def check(ok, what):
    global failures
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures += 1


work = tempfile.mkdtemp(prefix="h11-interrupts.")
marks = os.path.join(work, "marks")
os.makedirs(marks)

# One fake for every executable, its part by its name and command line. FAKE_SLOW names the
# part that, once its marker is written, sleeps (ending on SIGINT as the C++ programs do,
# or ignoring it with FAKE_DEAF=1): build, peak, sample, scaling, blockmap, hang.
FAKE = r'''import os, signal, subprocess, sys, time
name, a = os.path.basename(sys.argv[0]), sys.argv[1:]
csv_path = a[a.index("--csv") + 1] if "--csv" in a else ""
if name == "cmake":
    part = "build" if "--build" in a else "configure"
elif name == "ctest":
    part = "tests"
elif name == "cpuinfo":
    part = "cpuinfo"
elif name in ("peak", "bandwidth"):
    part = "peak" if name == "peak" else "bandwidth"
elif "--time-limit" in a:
    part = "sample"
elif "/scaling/" in csv_path:
    part = "scaling"
elif "block_map." in csv_path:
    part = "blockmap"
else:
    part = "other"
slow = os.environ.get("FAKE_SLOW") == part
if slow and part == "sample" and os.environ.get("FAKE_SLOW_AFTER"):   # one sample at a time: count them
    count = os.path.join(os.environ["FAKE_MARKS"], "count")
    with open(count, "a") as f:
        f.write("x")
    slow = os.path.getsize(count) > int(os.environ["FAKE_SLOW_AFTER"])
signal.signal(signal.SIGINT, signal.SIG_IGN if os.environ.get("FAKE_DEAF") else signal.SIG_DFL)
if slow:
    if os.environ.get("FAKE_CHILD"):   # a job script's own child, the same command line
        subprocess.Popen([sys.executable, sys.argv[0]] + a, env=dict(os.environ, FAKE_CHILD=""))
    open(os.path.join(os.environ["FAKE_MARKS"], part), "w").write(str(os.getpid()))
    time.sleep(60)
if name == "cpuinfo":
    if "--steps" in a:
        print("1 01_baseline serial scalar\n6 06_blocking serial scalar\n9 09_openmp parallel avx2")
    elif "--uarch" in a:
        print("Zen 5")
    elif "--json" in a:   # a recorded machine (plots/machine.py checks it)
        print(open(os.environ["FAKE_MACHINE_JSON"]).read(), end="")
    else:
        print("Steps built for this CPU:\n  step01_baseline")
    sys.exit(0)
if not csv_path or name in ("cmake", "peak", "bandwidth"):
    sys.exit(0)
size = int(a[a.index("--sizes") + 1]) if "--sizes" in a else 64
kc = a[a.index("--kc") + 1] if "--kc" in a else "256"
mc = a[a.index("--mc") + 1] if "--mc" in a else "72"
g = {"step01_baseline": 2.0, "step06_blocking": 20.0}.get(name, 40.0)
step = name[4:] if name.startswith("step") else name
threads = a[a.index("--threads") + 1] if "--threads" in a else "1"
with open(csv_path, "w") as f:
    f.write("step,m,n,k,threads,gflops_best,gflops_median,seconds_best,max_rel_err,verified,kernel,reps,"
            "cpu,uarch,params,cpu_wait\n{0},{1},{1},{1},{2},{3},{3},0.01,1e-7,1,x,1,cpu,Zen 5,kc={4} mc={5},0.000\n"
            .format(step, size, threads, g, kc, mc))
'''
fakebin = os.path.join(work, "fakebin")
os.makedirs(fakebin)
fake = os.path.join(fakebin, "fake.py")
with open(fake, "w") as f:
    f.write("#!{} -S\n".format(PY) + FAKE)   # this Python itself, without site: a fast start
os.chmod(fake, 0o755)
os.symlink(fake, os.path.join(fakebin, "cmake"))
os.symlink(fake, os.path.join(fakebin, "ctest"))
ENV = dict(os.environ, FAKE_MARKS=marks, FAKE_MACHINE_JSON=os.path.join(ROOT, "tests", "data", "zen3-busy", "machine.json"), PATH=fakebin + os.pathsep + os.environ.get("PATH", ""))


def started(part, timeout=30.0):
    """Wait until the fake's marker says `part` has begun."""
    path = os.path.join(marks, part)
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if os.path.exists(path):
            return True
        time.sleep(0.02)
    return False


def left_over():
    """Processes of this test still alive (their command lines name its scratch folder)."""
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/{}/cmdline".format(pid), "rb") as f:
                if work.encode() in f.read() and int(pid) != os.getpid():
                    out.append(pid)
        except OSError:   # gone meanwhile
            pass
    return out


def reset_marks():
    for name in os.listdir(marks):
        os.unlink(os.path.join(marks, name))


def signalled(command, part, signum, group=True, env=None, cwd=None):
    """Run `command` in its own session; once `part` has begun send `signum` (to the whole group,
    as a terminal's Ctrl-C, or to the process alone); (exit status, seconds to end, stdout, stderr)."""
    reset_marks()
    p = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                         env=env or ENV, cwd=cwd, start_new_session=True)
    began = started(part)
    if group:
        os.killpg(p.pid, signum)
    else:
        p.send_signal(signum)
    out, err, took = ended(p)
    time.sleep(0.2)   # a child killed at the parent's end is gone by now
    orphans = left_over()
    kill_left(orphans)
    if not began:
        err = "(the stage never began) " + err
    return p.returncode, took, out, err, orphans


def rows_of(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def job(label):
    return "{}={} {}".format(label, PY, os.path.join(fakebin, label))


for name in ("cpuinfo", "peak", "bandwidth", "step01_baseline", "step06_blocking", "step09_openmp"):
    os.symlink(fake, os.path.join(fakebin, name))
interleave = [PY, os.path.join(ROOT, "tools", "interleave.py")]

# ---- tools/interleave.py ----------------------------------------------------------------------
out = os.path.join(work, "term")
rc, took, _, err, orphans = signalled(interleave + ["--out", out, "--sizes", "64,128", "--rounds", "3",
                                                    "--job", job("step01_baseline")],
                                      "sample", signal.SIGTERM, group=False, env=dict(ENV, FAKE_SLOW="sample"))
check(rc == -signal.SIGTERM and took < 5 and not orphans and "Traceback" not in err,
      "interleave.py, SIGTERM during a sample: ends by SIGTERM in {:.1f} s, the sample stopped with it "
      "(left: {}) ({})".format(took, orphans, err.strip()[-200:]))

rc, took, _, err, orphans = signalled(interleave + ["--out", os.path.join(work, "int"), "--sizes", "64", "--job",
                                                    job("step01_baseline")],
                                      "sample", signal.SIGINT, env=dict(ENV, FAKE_SLOW="sample", FAKE_DEAF="1"))
check(rc == 130 and took < 5 and not orphans and "Traceback" not in err and err.strip().count("\n") == 0,
      "interleave.py, Ctrl-C during a sample that ignores SIGINT: exit 130 in {:.1f} s, one line, the sample "
      "killed (left: {}) ({})".format(took, orphans, err.strip()[-200:]))

reset_marks()
start = time.monotonic()
r = subprocess.run(interleave + ["--out", os.path.join(work, "timeout"), "--sizes", "64", "--timeout", "1",
                                 "--job", job("step01_baseline")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                   universal_newlines=True, env=dict(ENV, FAKE_SLOW="sample", FAKE_CHILD="1"), timeout=60)
took = time.monotonic() - start
time.sleep(0.2)
orphans = left_over()
check(r.returncode == 1 and "--timeout 1" in r.stderr and not orphans and took < 10,
      "interleave.py --timeout 1: the job and the child it started are killed, exit 1 in {:.1f} s "
      "(left: {}) ({})".format(took, orphans, r.stderr.strip()[-200:]))
for pid in orphans:
    os.kill(int(pid), signal.SIGKILL)


def usage_check(command, what, cwd=None):
    r = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                       env=ENV, cwd=cwd, timeout=60)
    check(r.returncode == 2 and r.stderr.strip().count("\n") == 0 and r.stderr.strip() and "Traceback" not in r.stderr,
          "{}: exit 2, one line ({}: {})".format(what, r.returncode, r.stderr.strip()[:300]))
    return r


empty = os.path.join(work, "empty-cwd")
os.makedirs(empty)
usage_check(interleave + ["--out", "", "--job", job("step01_baseline")], "interleave.py --out ''", cwd=empty)
check(os.listdir(empty) == [], "interleave.py --out '': nothing written in the working folder")
for bad in (["--rounds", "abc"], ["--seed", "abc"], ["--sample-time", "x"], ["--bogus"]):
    usage_check(interleave + ["--out", os.path.join(work, "u")] + bad + ["--job", job("step01_baseline")],
                "interleave.py " + " ".join(bad))
for option in ("--csv x.csv", "--sizes 64", "--reps 3", "--no-verify", "--csv=x.csv", "--time-limit 1"):
    r = usage_check(interleave + ["--out", os.path.join(work, "twice"), "--sizes", "64",
                                  "--job", job("step01_baseline") + " " + option],
                    "interleave.py, a job with the scheduler's own " + option.split()[0])
    check(not os.path.exists(os.path.join(work, "twice", "samples", "step01_baseline.csv")),
          "... refused before any sample")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import interleave as sampler  # noqa: E402
check(hasattr(sampler, "sample_timeout") and all(0 < sampler.sample_timeout(n) < float("inf") for n in (8, 1500, 46340))
      and sampler.sample_timeout(1500) < sampler.sample_timeout(46340),
      "interleave.py: a default --timeout for every size, longer for larger sizes")

# ---- tools/block_map.py, plots/make_figures.py, plots/summary.py -----------------------------
block_map = [PY, os.path.join(ROOT, "tools", "block_map.py")]
rc, took, _, err, orphans = signalled(block_map + [os.path.join(fakebin, "step06_blocking"), "--size", "64",
                                                   "--cpu", "none", "--csv", os.path.join(work, "bm.csv")],
                                      "blockmap", signal.SIGINT, env=dict(ENV, FAKE_SLOW="blockmap"))
check(rc == 130 and took < 5 and not orphans and "Traceback" not in err and err.strip().count("\n") == 0
      and not os.path.exists(os.path.join(work, "bm.csv")),
      "block_map.py, Ctrl-C during a run: exit 130 in {:.1f} s, one line, no CSV (left: {}) ({})".format(
          took, orphans, err.strip()[-200:]))
rc, took, _, err, orphans = signalled(block_map + [os.path.join(fakebin, "step06_blocking"), "--size", "64",
                                                   "--cpu", "none", "--csv", os.path.join(work, "bm.csv")],
                                      "blockmap", signal.SIGTERM, group=False, env=dict(ENV, FAKE_SLOW="blockmap"))
check(rc == -signal.SIGTERM and took < 5 and not orphans and "Traceback" not in err,
      "block_map.py, SIGTERM to it alone during a run: ends by SIGTERM in {:.1f} s, the run stopped with it "
      "(left: {}) ({})".format(took, orphans, err.strip()[-200:]))
for bad in (["--size", "abc"], ["--bogus"]):
    usage_check(block_map + [os.path.join(fakebin, "step06_blocking")] + bad, "block_map.py " + " ".join(bad))

# A results folder of eight step CSVs: make_figures.py draws one figure each, seconds of work.
figs = os.path.join(work, "figs")
os.makedirs(figs)
for i in range(1, 9):
    with open(os.path.join(figs, "step0{}_s{}.csv".format(i, i)), "w") as f:
        f.write("step,m,n,k,threads,gflops_best,gflops_median,seconds_best,max_rel_err,verified,kernel,reps\n")
        for n in (64, 128, 256):
            f.write("0{0}_s{0},{1},{1},{1},1,{2},{2},0.01,1e-7,1,x,3\n".format(i, n, i * 2.0))
make_figures = [PY, os.path.join(ROOT, "plots", "make_figures.py")]
reset_marks()
p = subprocess.Popen(make_figures + ["--results", figs], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     universal_newlines=True, env=ENV, start_new_session=True)
first = p.stdout.readline()   # "   figure: ...": its first figure is drawn, seven more to go
start = time.monotonic()
os.killpg(p.pid, signal.SIGINT)
try:
    out, err = p.communicate(timeout=30)
except subprocess.TimeoutExpired:
    os.killpg(p.pid, signal.SIGKILL)
    out, err = p.communicate()
took = time.monotonic() - start
time.sleep(0.2)
orphans = left_over()
check("figure:" in first and p.returncode == 130 and took < 5 and "Traceback" not in err
      and err.strip().count("\n") == 0 and not orphans,
      "make_figures.py, Ctrl-C while drawing: exit 130 in {:.1f} s, one line, the plot under way stopped "
      "(left: {}) ({}: {})".format(took, orphans, p.returncode, err.strip()[-300:]))
for bad in (["--at", "abc"], ["--bogus"]):
    usage_check(make_figures + ["--results", figs] + bad, "make_figures.py " + " ".join(bad))
usage_check([PY, os.path.join(ROOT, "plots", "summary.py"), "--results", figs, "--bogus"], "summary.py --bogus")
# An empty name is a usage error, never the default file's stand-in nor the working folder.
for command, what in ((make_figures + ["--results", figs, "--docs", ""], "make_figures.py --docs ''"),
                      (make_figures + ["--results", ""], "make_figures.py --results ''"),
                      ([PY, os.path.join(ROOT, "plots", "summary.py"), "--results", figs, "-o", ""], "summary.py -o ''"),
                      (block_map + [os.path.join(fakebin, "step06_blocking"), "--csv", ""], "block_map.py --csv ''")):
    usage_check(command, what, cwd=empty)
check(os.listdir(empty) == [] and not os.path.exists(os.path.join(figs, "summary.md")),
      "... nothing written, in the working folder or as the default")

# ---- make step-N (cmake/RunStep.cmake): the sampler's usage error --------------------------------
r = subprocess.run(["cmake", "-DEXE=" + os.path.join(fakebin, "step01_baseline"), "-DSLUG=01_baseline",
                    "-DRESULTS=" + os.path.join(work, "step-results"), "-DSAMPLER_PYTHON=" + PY,
                    "-DINTERLEAVE=" + os.path.join(ROOT, "tools", "interleave.py"),
                    "-P", os.path.join(ROOT, "cmake", "RunStep.cmake")],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                   env=dict(os.environ, GEMM_SAMPLER_ARGS="--rounds abc"), timeout=60)
said = [l for l in (r.stdout + r.stderr).splitlines() if l.strip()]
check(r.returncode != 0 and len(said) <= 3 and any(l.startswith("interleave.py: ") for l in said),
      "make step-N with a sampler usage error: its one line and at most two of cmake's ({})".format(said))

# ---- ./run_all.sh, stage by stage ------------------------------------------------------------------
# A checkout of links to the real one, with a fake build folder: run_all.sh writes results/
# beside itself, and its cmake is the fake on PATH.
co = os.path.join(work, "checkout")
os.makedirs(co)
for name in ("tools", "plots", "common", "steps", "docs"):
    os.symlink(os.path.join(ROOT, name), os.path.join(co, name))
shutil.copy(os.path.join(ROOT, "run_all.sh"), co)
build = os.path.join(co, "fakebuild")
os.makedirs(os.path.join(build, "bin"))
for name in ("cpuinfo", "peak", "bandwidth", "step01_baseline", "step06_blocking", "step09_openmp"):
    os.symlink(fake, os.path.join(build, "bin", name))
shutil.copy(os.path.join(BIN, "write_file"), os.path.join(build, "bin"))
with open(os.path.join(build, "CMakeCache.txt"), "w") as f:
    f.write("GEMM_PYTHON:FILEPATH={}\nCMAKE_CXX_COMPILER:FILEPATH=/bin/true\n".format(PY))
results = os.path.join(co, "results")
run_all = [os.path.join(co, "run_all.sh"), "--no-install", "--build", build, "--quick", "--threads", "2"]


def old_results():
    """results/ as an earlier, whole run left it."""
    shutil.rmtree(results, ignore_errors=True)
    os.makedirs(results)
    for name, text in (("summary.md", "old summary\n"), ("overlay.png", "old figure\n"), ("machine.txt", "old\n")):
        with open(os.path.join(results, name), "w") as f:
            f.write(text)


def read(name):
    try:
        with open(os.path.join(results, name)) as f:
            return f.read()
    except OSError:
        return None


# Each with only the steps its stage needs, one round.
for part, stage, steps in (("build", "the build", "1"), ("peak", "the peak", "1"), ("sample", "the sampling", "1,6"),
                           ("scaling", "the scaling run", "9"), ("blockmap", "the block maps", "6")):
    old_results()
    rc, took, out, err, orphans = signalled(run_all + ["--steps", steps, "--rounds", "1"], part, signal.SIGINT,
                                            env=dict(ENV, FAKE_SLOW=part, FAKE_SLOW_AFTER="4"))
    partial = read("PARTIAL")
    if part == "build":
        state = partial is None and read("summary.md") == "old summary\n" and read("machine.txt") == "old\n"
        said = "results/ the old run's"
    else:
        state = partial is not None and stage in partial and read("summary.md") == "old summary\n"
        said = "results/PARTIAL names {}".format(stage)
    check(rc == 130 and took < 5 and not orphans and state and "Traceback" not in err,
          "run_all.sh, Ctrl-C during {}: exit 130 in {:.1f} s, {} (left: {}) ({}: {} / {})".format(
              stage, took, said, orphans, rc, err.strip()[-300:], (partial or "").strip()[:200]))
    if part == "sample":
        check(os.path.exists(os.path.join(results, "samples", "step01_baseline.csv")) or
              os.path.exists(os.path.join(results, "samples", "step06_blocking.csv")),
              "... the samples taken are kept")

# SIGTERM to the whole run during the sampling: the samples kept, the mark left, the run
# ended by SIGTERM.
old_results()
rc, took, out, err, orphans = signalled(run_all + ["--steps", "1", "--rounds", "1"], "sample", signal.SIGTERM,
                                        env=dict(ENV, FAKE_SLOW="sample", FAKE_SLOW_AFTER="2"))
partial = read("PARTIAL")
check(rc == -signal.SIGTERM and took < 5 and not orphans and partial is not None and "SIGTERM during the sampling" in partial
      and os.path.exists(os.path.join(results, "samples", "step01_baseline.csv")),
      "run_all.sh, SIGTERM during the sampling: ended by SIGTERM in {:.1f} s, samples kept, results/PARTIAL "
      "(left: {}) ({}: {})".format(took, orphans, rc, err.strip()[-300:]))

# --test: Ctrl-C during the test suite names it.
rc, took, out, err, orphans = signalled([os.path.join(co, "run_all.sh"), "--no-install", "--build", build, "--test"],
                                        "tests", signal.SIGINT, env=dict(ENV, FAKE_SLOW="tests"))
check(rc == 130 and took < 5 and not orphans and "during the test suite" in err,
      "run_all.sh --test, Ctrl-C during the test suite: exit 130 in {:.1f} s, said so ({})".format(took, err.strip()))

# Ctrl-C once the figures are under way (their stage's line said).
old_results()
reset_marks()
p = subprocess.Popen(run_all + ["--steps", "1", "--rounds", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                     env=ENV, start_new_session=True)
for line in p.stdout:
    if line.startswith("== figures"):
        break
start = time.monotonic()
os.killpg(p.pid, signal.SIGINT)
try:
    out, err = p.communicate(timeout=30)
except subprocess.TimeoutExpired:
    os.killpg(p.pid, signal.SIGKILL)
    out, err = p.communicate()
took = time.monotonic() - start
time.sleep(0.2)
partial = read("PARTIAL")
check(p.returncode == 130 and took < 5 and not left_over() and partial is not None and "figures" in partial,
      "run_all.sh, Ctrl-C during the figures: exit 130 in {:.1f} s, results/PARTIAL ({}: {})".format(
          took, p.returncode, err.strip()[-300:]))

# A whole run removes the mark; --steps 05 is step 5, a number too long for any step is named as given.
r = subprocess.run(run_all + ["--steps", "01", "--rounds", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                   universal_newlines=True, env=ENV, timeout=120)
check(read("PARTIAL") is None and os.path.exists(os.path.join(results, "step01_baseline.csv"))
      and "matches no built step" not in r.stderr,
      "run_all.sh --steps 01 (a whole run): step 1 sampled, results/PARTIAL gone ({}: {})".format(
          r.returncode, r.stderr.strip()[-300:]))
r = usage_check(run_all + ["--steps", "99999999999999999999"], "run_all.sh --steps 99999999999999999999")
check("no step 99999999999999999999" in r.stderr, "... named as given")

shutil.rmtree(work, ignore_errors=True)
print("{} passed, {} failed".format("all" if failures == 0 else "some", failures))
sys.exit(1 if failures else 0)
