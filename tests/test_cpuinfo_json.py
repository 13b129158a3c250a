"""bin/cpuinfo --json and plots/machine.py: the JSON is one valid object that machine.py accepts;
it agrees with cpuinfo's other outputs (--identity, --steps) and with the kernels' own tile
constants; --sizes and --threads give each step a plan per product; bad values are one line and
exit 2; strings are escaped (a wisdom path with a quote, a backslash and a tab); machine.py
refuses malformed JSON with one line, exit 3.

    test_cpuinfo_json.py ROOT BIN_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT, BIN = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
sys.path.insert(0, os.path.join(ROOT, "plots"))
import machine  # noqa: E402
from harness_csv import InputError  # noqa: E402

CPUINFO = os.path.join(BIN, "cpuinfo")
failures = []


def expect(condition, what):
    if not condition:
        failures.append(what)


def run(args, env=None, program=None):
    return subprocess.run((program or [CPUINFO]) + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, env=env, timeout=120)


def kernel_tiles(header):
    """{isa: (mr, nr)} of a step's kernel constants (kMrAvx512 = 14, kNrAvx512 = 32 ...)."""
    with open(os.path.join(ROOT, header)) as f:
        return {isa.lower(): (int(mr), int(nr))
                for isa, mr, nr in re.findall(r"kMr(\w+)\s*=\s*(\d+)\s*,\s*kNr\1\s*=\s*(\d+)", f.read())}


def agrees_with_other_outputs(m):
    identity = run(["--identity"]).stdout.splitlines()
    expect(list(m.identity.wisdom_lines) == identity,
           "wisdom_lines {} are not cpuinfo --identity's {}".format(m.identity.wisdom_lines, identity))
    expect(m.identity.label == run(["--uarch"]).stdout.strip(), "label is not cpuinfo --uarch's")
    steps = ["{} {} {} {}".format(s.number, s.slug, "parallel" if s.parallel else "serial", s.variant or "unsupported")
             for s in m.steps]
    expect(steps == run(["--steps"]).stdout.splitlines(), "steps are not cpuinfo --steps': {}".format(steps))
    expect(m.caches["L1"] > 0 and m.caches["L2"] > 0, "no L1 or L2 size: {}".format(m.caches))


def tiles_are_the_kernels(m):
    # Steps 08 and 09 run step 08's kernels: the registry's tiles are their constants.
    wanted = kernel_tiles("steps/08_avx512_14x32/microkernels.hpp")
    for number in (8, 9):
        s = m.step(number)
        if s is None:
            continue
        found = {v: t for v, t in s.tiles.items() if v in wanted}
        expect(found and all(wanted[v] == t for v, t in found.items()),
               "step {:02d}'s tiles {} are not the kernels' {}".format(number, s.tiles, wanted))
        if s.variant in wanted:
            expect(s.tile == wanted[s.variant], "step {:02d} runs {} here, its tile is {}, not {}".format(
                number, s.variant, s.tile, wanted[s.variant]))
    lessons = {1: (1, 1), 2: (1, 4), 3: (1, 4), 4: (4, 4), 5: (4, 4), 6: (4, 4), 7: (4, 4)}
    for number, tile in lessons.items():
        s = m.step(number)
        if s is not None and s.variant:
            expect(s.tile == tile, "step {:02d}'s tile is {}, not {}".format(number, s.tile, tile))


def plans(m):
    for s in m.steps:
        if s.variant is None:
            expect(not s.plans, "{}: plans for a step that does not run here".format(s.slug))
            continue
        expect(sorted(s.plans) == [(64, 1), (64, 2), (512, 1), (512, 2)],
               "{}: plans for {} , not 64 and 512 on 1 and 2 threads".format(s.slug, sorted(s.plans)))
        expect(all(isinstance(p, dict) for p in s.plans.values()), "{}: a plan is not an object".format(s.slug))


def refusals():
    for args in (["--sizes", "0"], ["--sizes", "12,x"], ["--sizes", "46341"], ["--threads", "0"],
                 ["--threads", "100000"], ["--sizes"], ["--sizes", "5", "--sizes", "6"], ["--sizes", "5,5"],
                 ["--what"], ["--sizes", ""]):
        r = run(["--json"] + args)
        lines = r.stderr.splitlines()
        expect(r.returncode == 2 and len(lines) == 1 and lines[0].startswith("cpuinfo: ") and not r.stdout,
               "cpuinfo --json {}: exit {}, stderr {!r}, {} bytes out (wanted 2, one line)".format(
                   " ".join(args), r.returncode, r.stderr, len(r.stdout)))
    r = run(["--steps", "--json"])
    expect(r.returncode == 2, "cpuinfo --steps --json: exit {}".format(r.returncode))


def escaping(tmp):
    # Step 10's note names its wisdom file: a path with a quote and a backslash must come back
    # whole through the JSON (a control character the note shows as '?').
    path = os.path.join(tmp, 'wis"dom\\file.txt')
    r = run(["--json"], env=dict(os.environ, GEMM_WISDOM=path))
    try:
        data = json.loads(r.stdout)
    except ValueError as e:
        failures.append("cpuinfo --json with GEMM_WISDOM={!r}: not JSON ({})".format(path, e))
        return
    notes = [s.get("tuned", {}).get("note", "") for s in data["steps"]]
    if any("tuned" in s for s in data["steps"]):
        expect(any(path in note for note in notes), "the wisdom path {!r} is not in the notes {}".format(path, notes))


def malformed(tmp):
    good = run(["--json"]).stdout
    cases = {"not_json.json": "cpu: x\n", "truncated.json": good[:len(good) // 2],
             "no_format.json": json.dumps({"steps": []}),
             "bad_tile.json": good.replace('"mr": 14', '"mr": "14"', 1) if '"mr": 14' in good else "[",
             "bool_size.json": good.replace('"l1d": ', '"l1d": true, "x": ', 1)}
    for name, text in cases.items():
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(text)
        r = run([path], program=[sys.executable, os.path.join(ROOT, "plots", "machine.py")])
        lines = r.stderr.splitlines()
        expect(r.returncode == 3 and len(lines) == 1 and name in lines[0],
               "machine.py {}: exit {}, stderr {!r} (wanted 3, one line naming it)".format(name, r.returncode, r.stderr))
    fifo = os.path.join(tmp, "fifo.json")
    os.mkfifo(fifo)
    try:
        machine.load(fifo)
        failures.append("machine.load of a FIFO: no error")
    except InputError as e:
        expect("fifo.json" in str(e), "machine.load of a FIFO: {}".format(e))


def main():
    r = run(["--json", "--sizes", "512,64", "--threads", "1,2"])
    if r.returncode != 0:
        print("cpuinfo --json: exit {}: {}".format(r.returncode, r.stderr))
        return 1
    try:
        m = machine.parse(r.stdout, "cpuinfo --json")
        saved = machine.from_build(os.path.dirname(BIN))
    except InputError as e:
        print("machine.py refuses cpuinfo --json: {}".format(e))
        return 1
    expect(saved.identity == m.identity and [s.slug for s in saved.steps] == [s.slug for s in m.steps],
           "machine.from_build and a parsed copy disagree")
    txt = run([os.path.join(ROOT, "plots", "machine.py"), "--build", os.path.dirname(BIN), "--txt"],
              program=[sys.executable])
    expect(txt.returncode == 0 and txt.stdout.splitlines() == m.txt_lines(),
           "machine.py --txt: exit {}, {!r}".format(txt.returncode, txt.stdout))
    agrees_with_other_outputs(m)
    tiles_are_the_kernels(m)
    plans(m)
    refusals()
    with tempfile.TemporaryDirectory() as tmp:
        escaping(tmp)
        malformed(tmp)
    for f in failures:
        print("FAIL: " + f)
    print("cpuinfo --json tests: {} failed".format(len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
