#!/usr/bin/env python3
"""The lab's other long tools end as interrupted, and a hanging step does not hang a map:

  - tools/bench_vs_openblas.sh and tools/ablation.sh, on Ctrl-C (SIGINT to the group, as a
    terminal sends it) or a program of theirs that exited 130 (the sampler, a step): exit 130
    at once, one line naming the stage; on SIGTERM to the group: that line, then ended by
    SIGTERM. No process left, the scratch folder removed, no ablation.csv written.
  - tools/block_map.py: a run that hangs (and a child it started) is killed, whole, after
    --timeout S, or after the sampler's default rule (tools/interleave.py's sample_timeout,
    its base made 1 s here): exit 1 and one line, no CSV.
  - tools/grade.sh, the same way during the build, the test suite, the sweep and the timing,
    and no PASS or FAIL verdict (an interrupted grading blames no step).

Without luck: fake executables write a marker file once their slow part has begun, and the
signal goes then.

    test_tool_interrupts.py ROOT BIN_DIR     (BIN_DIR: build/bin, for write_file)
"""
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
work = tempfile.mkdtemp(prefix="test_tool_interrupts.")
scratch = os.path.join(work, "tmp")   # the scripts' TMPDIR: their mktemp -d goes here
mark = os.path.join(work, "mark")
os.makedirs(scratch)

# A run above the probes' sizes (a sample, a timed run), or any run with FAKE_HANG: write
# the marker, then sleep (FAKE_CHILD: a child of its own sleeps too) or exit 130 (FAKE_130).
# FAKE_TIMED: a verified run (grade.sh's sweep) is quick, only the unverified timed runs are slow.
FAKE = r'''import os, subprocess, sys, time
a = sys.argv[1:]
if os.path.basename(sys.argv[0]) == "cpuinfo":
    print("Zen 5" if "--uarch" in a else "microarch  Zen 5")
    sys.exit(0)
size = a[a.index("--sizes") + 1] if "--sizes" in a else "16"
slow = os.environ.get("FAKE_HANG") or size not in ("8", "16")   # the preflight's and the probes' sizes
if slow and not (os.environ.get("FAKE_TIMED") and "--no-verify" not in a):
    if os.environ.get("FAKE_CHILD"):
        subprocess.Popen([sys.executable, "-S", "-c", "import time; time.sleep(60)", sys.argv[0]])
    open(os.environ["FAKE_MARK"], "w").write(str(os.getpid()))
    if os.environ.get("FAKE_130"):
        sys.exit(130)
    time.sleep(60)
if "--csv" in a:
    with open(a[a.index("--csv") + 1], "w") as f:
        f.write("step,m,n,k,threads,gflops_best,gflops_median,seconds_best,max_rel_err,verified,kernel,reps,cpu,uarch,"
                "params\n10_tuned,{0},{0},{0},1,9.0,9.0,0.01,1e-7,1,x,1,cpu,Zen 5,kc=256 mc=72\n".format(size))
'''
fakebin = os.path.join(work, "build", "bin")
os.makedirs(fakebin)
fake = os.path.join(work, "fake.py")
with open(fake, "w") as f:
    f.write("#!{} -S\n".format(PY) + FAKE)
os.chmod(fake, 0o755)
for name in ("ref_openblas", "step07_packing", "step08_avx512_14x32", "step09_openmp", "step10_tuned", "peak", "cpuinfo"):
    os.symlink(fake, os.path.join(fakebin, name))
shutil.copy(os.path.join(BIN, "write_file"), fakebin)
ENV = dict(os.environ, FAKE_MARK=mark, TMPDIR=scratch)


def check(ok, what):
    global failures
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures += 1


def processes(needle=""):
    """Processes of this test still alive (their command lines name its folder, and `needle`)."""
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/{}/cmdline".format(pid), "rb") as f:
                line = f.read()
        except OSError:   # gone meanwhile
            continue
        if work.encode() in line and needle.encode() in line and int(pid) != os.getpid():
            out.append(int(pid))
    return out


def signalled(command, target, signum, env):
    """Run `command` in its own session; once the marker is there send `signum` to the group
    (target None) or to the processes whose command lines name `target`. (status, seconds,
    stderr, processes left, stdout)."""
    if os.path.exists(mark):
        os.unlink(mark)
    p = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                         env=env, start_new_session=True)
    end = time.monotonic() + 30
    while not os.path.exists(mark) and time.monotonic() < end and p.poll() is None:
        time.sleep(0.02)
    if target is None:
        os.killpg(p.pid, signum)
    for pid in processes(target) if target else []:
        os.kill(pid, signum)
    out, err, took = ended(p)
    time.sleep(0.2)   # a child killed at its parent's end is gone by now
    left = processes()
    kill_left(left)
    return p.returncode, took, err if os.path.exists(mark) else "(never began) " + err, left, out


def expect(name, how, result, status, line):
    rc, took, err, left, _ = result
    lines = err.strip().splitlines()
    said = lines == [line] if status == 130 else bool(lines) and lines[-1] == line
    check(rc == status and took < 5 and said and not left and os.listdir(scratch) == [],
          "{}, {}: exit {} (wanted {}) in {:.1f} s, {} (left: {}, scratch: {}) ({})".format(
              name, how, rc, status, took, "said so" if said else "said wrong", left, os.listdir(scratch),
              err.strip()[-300:]))


# ---- tools/bench_vs_openblas.sh: one CPU (no all-core tables), the peak given ------------------
peak = os.path.join(work, "peak.csv")
with open(peak, "w") as f:
    f.write("isa,precision,threads,gflops\navx2,fp32,1,100\n")
bench = ["taskset", "-c", str(sorted(os.sched_getaffinity(0))[-1]), os.path.join(ROOT, "tools", "bench_vs_openblas.sh"),
         "--build", os.path.join(work, "build"), "--sizes", "64", "--rounds", "1", "--peak", peak]
line = "bench_vs_openblas.sh: cut short by {} during the sampling"
expect("bench_vs_openblas.sh", "the sampler alone interrupted (exit 130)",
       signalled(bench, "interleave.py", signal.SIGINT, ENV), 130, line.format("SIGINT"))
expect("bench_vs_openblas.sh", "Ctrl-C during the sampling", signalled(bench, None, signal.SIGINT, ENV),
       130, line.format("SIGINT"))
expect("bench_vs_openblas.sh", "SIGTERM during the sampling", signalled(bench, None, signal.SIGTERM, ENV),
       -signal.SIGTERM, line.format("SIGTERM"))

# ---- tools/ablation.sh: the runs (no probe built: the step's own clock) -------------------------
out = os.path.join(work, "ablation")
ablation = [os.path.join(ROOT, "tools", "ablation.sh"), "--build", os.path.join(work, "build"), "--sizes", "64",
            "--rounds", "1", "--reps", "1", "--out", out]
line = "ablation.sh: cut short by {} during the runs"
for how, target, signum, env, status in (("a run that exited 130", "", 0, dict(ENV, FAKE_130="1"), 130),
                                         ("Ctrl-C during a run", None, signal.SIGINT, ENV, 130),
                                         ("SIGTERM during a run", None, signal.SIGTERM, ENV, -signal.SIGTERM)):
    expect("ablation.sh", how, signalled(ablation, target, signum, env), status,
           line.format("SIGTERM" if signum == signal.SIGTERM else "SIGINT"))
    check(os.listdir(out) == [], "... nothing written in OUT ({})".format(os.listdir(out)))

# ---- tools/grade.sh: a scratch checkout (its results/ is written), a step 10 from step 09 ------
# The build and the test suite are stand-ins too: a cmake on PATH and build/tests/gemm_tests,
# quick, or slow (FAKE_SLOW=build or tests) after writing the marker.
co = os.path.join(work, "checkout")
for folder in ("tools", "plots"):
    shutil.copytree(os.path.join(ROOT, folder), os.path.join(co, folder))
os.makedirs(os.path.join(co, "common", "include", "gemm"))
shutil.copy(os.path.join(ROOT, "common", "include", "gemm", "harness.hpp"), os.path.join(co, "common", "include", "gemm"))
for step in ("09_openmp", "10_tuned"):
    os.makedirs(os.path.join(co, "steps", step))
with open(os.path.join(co, "steps", "10_tuned", "CMakeLists.txt"), "w") as f:
    f.write("# from: 09_openmp\n")
stand_in = '#!/bin/sh\n[ "${{FAKE_SLOW-}}" = {0} ] && {{ echo $$ > "$FAKE_MARK"; exec sleep 60; }}\n{1}\n'
path = os.path.join(work, "path")
os.makedirs(path)
os.makedirs(os.path.join(work, "build", "tests"))
for where, slow, then in ((os.path.join(path, "cmake"), "build", "exit 0"),
                          (os.path.join(work, "build", "tests", "gemm_tests"), "tests",
                           'echo "All tests passed (1 assertion in 1 test case)"')):
    with open(where, "w") as f:
        f.write(stand_in.format(slow, then))
    os.chmod(where, 0o755)
grade = [os.path.join(co, "tools", "grade.sh"), "10", "--build", os.path.join(work, "build"), "--sizes", "64",
         "--rounds", "1"]
grade_env = dict(ENV, PATH=path + os.pathsep + os.environ["PATH"])
line = "grade.sh: cut short by {} during the {}"
for how, target, signum, env, stage in (
        ("Ctrl-C during the build", None, signal.SIGINT, dict(grade_env, FAKE_SLOW="build"), "build"),
        ("Ctrl-C during the test suite", None, signal.SIGINT, dict(grade_env, FAKE_SLOW="tests"), "test suite"),
        ("Ctrl-C during the sweep", None, signal.SIGINT, grade_env, "sweep"),
        ("the step alone exited 130 in the sweep", "", 0, dict(grade_env, FAKE_130="1"), "sweep"),
        ("SIGTERM during the sweep", None, signal.SIGTERM, grade_env, "sweep"),
        ("Ctrl-C during the timing", None, signal.SIGINT, dict(grade_env, FAKE_TIMED="1"), "timing"),
        ("the scheduler alone interrupted (exit 130)", "interleave.py", signal.SIGINT,
         dict(grade_env, FAKE_TIMED="1"), "timing"),
        ("SIGTERM during the timing", None, signal.SIGTERM, dict(grade_env, FAKE_TIMED="1"), "timing")):
    result = signalled(grade, target, signum, env)
    status = -signal.SIGTERM if signum == signal.SIGTERM else 130
    expect("grade.sh", how, result, status, line.format("SIGTERM" if signum == signal.SIGTERM else "SIGINT", stage))
    check(result[4] == "", "... no verdict on stdout ({!r})".format(result[4][-300:]))

# ---- tools/block_map.py: a run that hangs ------------------------------------------------------
block_map = os.path.join(ROOT, "tools", "block_map.py")
hang = dict(ENV, FAKE_HANG="1", FAKE_CHILD="1")
csv_path = os.path.join(work, "map.csv")
default_rule = ("import sys; sys.path.insert(0, sys.argv[1]); import interleave; interleave.TIMEOUT_BASE = 1.0; "
                "import block_map; sys.exit(block_map.main(sys.argv[2:]))")
for how, command, said in (("--timeout 1", [PY, block_map, os.path.join(fakebin, "step10_tuned"), "--cpu", "none",
                                           "--timeout", "1", "--csv", csv_path], "(--timeout 1)"),
                           ("the default timeout (the sampler's rule, its base 1 s)",
                            [PY, "-c", default_rule, os.path.join(ROOT, "tools"), os.path.join(fakebin, "step10_tuned"),
                             "--cpu", "none", "--csv", csv_path], ", the default)")):
    start = time.monotonic()
    p = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, env=hang,
                         start_new_session=True)
    try:
        _, err = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:   # the map hangs with its run
        os.killpg(p.pid, signal.SIGKILL)
        _, err = p.communicate()
        err = "(hung: killed after 20 s) " + err
    took = time.monotonic() - start
    time.sleep(0.2)
    left = processes()
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    lines = err.strip().splitlines()
    check(p.returncode == 1 and len(lines) == 1 and "did not finish" in lines[0] and said in lines[0] and took < 10
          and not left and not os.path.exists(csv_path),
          "block_map.py, a run that hangs, {}: exit {} in {:.1f} s, one line, the run and its child killed "
          "(left: {}), no CSV ({})".format(how, p.returncode, took, left, err.strip()[-300:]))

shutil.rmtree(work, ignore_errors=True)
print("{} passed, {} failed".format("all" if failures == 0 else "some", failures))
sys.exit(1 if failures else 0)
