"""plots/concepts.py draws each concept picture from the numbers the code uses: the labels a
picture carries (its matplotlib Text artists) are the block sizes of the machine record (cpuinfo --json) it
was given, the tile shapes of the source tree it read and the sizes asked for; every text lies
inside the canvas; the command line writes the PNGs and refuses bad input with exit 2.

    test_concepts.py REPO_ROOT [CPUINFO_EXE]
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(sys.argv[1])
CPUINFO = sys.argv[2] if len(sys.argv) > 2 else None
sys.path.insert(0, os.path.join(ROOT, "plots"))
import concepts   # noqa: E402



def machine_record(l1, l2, l3, isa, mc, kc, nc):
    """A cpuinfo --json (a recorded one) with these caches (KiB, KiB, MiB) and step 08's and
    09's kernel and blocks."""
    with open(os.path.join(ROOT, "tests", "data", "zen3-busy", "machine.json")) as f:
        record = json.load(f)
    record["identity"]["label"] = "Test Core"
    record["caches"].update(l1d=l1 << 10, l2=l2 << 10, l3=l3 << 20)
    for step in record["steps"]:
        if step["slug"] in ("08_avx512_14x32", "09_openmp"):
            step["variant"] = isa
            for param in step["params"]:
                param["value"] = {"mc": mc, "kc": kc, "nc": nc}.get(param["name"], param["value"])
    return json.dumps(record)


# Two machines: an AVX2 laptop and an AVX-512 server, with blocks no rule gives (so that a
# picture that computed them itself, or kept a number, would not match).
ZEN3 = dict(l1=32, l2=512, l3=32, isa="avx2", mc=72, kc=336, nc=4096)
BIG = dict(l1=48, l2=2048, l3=64, isa="avx512", mc=98, kc=608, nc=6144)
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL: " + what)


def texts(fig):
    from matplotlib.text import Text
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]


def joined(fig):
    return "\n".join(t.get_text() for t in texts(fig))


def inside(name, fig):
    """Everything drawn within the canvas (1 pixel of slack): each axes' extent as drawn (its
    tick labels inside the view included), and each text by name."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    width, height = fig.canvas.get_width_height()

    def out(box):
        return box.x0 < -1 or box.y0 < -1 or box.x1 > width + 1 or box.y1 > height + 1
    for ax in fig.axes + [c for a in fig.axes for c in a.child_axes]:
        if out(ax.get_tightbbox(renderer)):
            check(False, "{}: the axes '{}' leave the {}x{} canvas".format(name, ax.get_title()[:30], width, height))
    named = list(fig.texts) + [t for ax in fig.axes for t in ax.texts + [ax.title]]
    named += [t for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()]
    for t in named:
        if t.get_visible() and t.get_text().strip() and out(t.get_window_extent(renderer)):
            check(False, "{}: text {!r} leaves the {}x{} canvas at {}".format(
                name, t.get_text()[:40], width, height, t.get_window_extent(renderer).bounds))


def draw(tmp, machine, only, source=ROOT, extra=()):
    record = os.path.join(tmp, "machine-{}.json".format(machine["isa"]))
    with open(record, "w") as f:
        f.write(machine_record(**machine))
    args = concepts.parse(["--out", tmp, "--machine", record, "--source", source, "--only", ",".join(only)]
                          + list(extra))
    return concepts.figures(args)


def five_loops(tmp):
    for machine in (ZEN3, BIG):
        fig = draw(tmp, machine, ["five_loops"])["five_loops"]
        text = joined(fig)
        mr, nr = concepts.step08_tiles(ROOT)[machine["isa"]]
        for want in ("mc = {}".format(machine["mc"]), "kc = {}".format(machine["kc"]),
                     "nc = {}".format(machine["nc"]), "L1d {} KiB".format(machine["l1"]),
                     "L2 {}".format(concepts.kib(machine["l2"] << 10)), "L3 {} MiB".format(machine["l3"]),
                     "kc x NR = {} x {}".format(machine["kc"], nr), "MR = {}".format(mr)):
            check(want in text, "five_loops ({}): no label '{}'".format(machine["isa"], want))
        sliver = machine["kc"] * nr * 4
        level = "L1" if sliver <= machine["l1"] << 10 else "L2"
        check("{}: in {}".format(concepts.kib(sliver), level) in text,
              "five_loops ({}): the B sliver ({} bytes) not said to be in {}".format(machine["isa"], sliver, level))
        inside("five_loops " + machine["isa"], fig)


def register_files(tmp):
    figs = draw(tmp, ZEN3, ["register_file_4x4", "register_file_6x16", "register_file_14x32"])
    wants = {"register_file_4x4": ("4 x 4 tile", "4 accumulators + 1 B + 4 broadcasts = 9 of the 16 xmm",
                                   "no FMA"),
             "register_file_6x16": ("6 x 16 tile", "12 accumulators + 2 B + 1 broadcast = 15 of the 16 ymm",
                                    "12 FMAs"),
             "register_file_14x32": ("14 x 32 tile", "28 accumulators + 2 B + 1 broadcast = 31 of the 32 zmm",
                                     "28 FMAs")}
    for name, fig in figs.items():
        text = joined(fig)
        for want in wants[name]:
            check(want in text, "{}: no label '{}'".format(name, want))
        inside(name, fig)
    # The same picture from a source tree whose AVX-512 tile is 14 x 16: its labels follow.
    copy = os.path.join(tmp, "src")
    for path in ("steps/08_avx512_14x32/microkernels.hpp", "steps/08_avx512_14x32/microkernel_avx2.cpp",
                 "steps/08_avx512_14x32/microkernel_avx512.cpp", "steps/05_simd_4x4/kernel_sse.cpp",
                 "steps/09_openmp/parallel_nest.cpp"):
        os.makedirs(os.path.dirname(os.path.join(copy, path)), exist_ok=True)
        shutil.copy(os.path.join(ROOT, path), os.path.join(copy, path))
    header = os.path.join(copy, "steps/08_avx512_14x32/microkernels.hpp")
    with open(header) as f:
        text = f.read()
    changed = re.sub(r"kNrAvx512 = \d+", "kNrAvx512 = 16", text)
    check(changed != text, "microkernels.hpp: no 'kNrAvx512 = N' to change")
    with open(header, "w") as f:
        f.write(changed)
    text = joined(draw(tmp, ZEN3, ["register_file_14x32"], source=copy)["register_file_14x32"])
    for want in ("14 x 16 tile", "14 accumulators + 1 B + 1 broadcast = 16 of the 32 zmm"):
        check(want in text, "register_file_14x32 with NR = 16: no label '{}'".format(want))


def walk(tmp):
    for n in (32, 40):
        fig = draw(tmp, ZEN3, ["step01_walk"], extra=["--walk-n", str(n)])["step01_walk"]
        a = len({(n // 4 * n + p) * 4 // 64 for p in range(n)})
        want = "{} + {} + 1 = {} lines".format(a, n, a + n + 1)
        check(want in joined(fig), "step01_walk at n = {}: no label '{}'".format(n, want))
        check("(n = {})".format(n) in joined(fig), "step01_walk: no n = {} in the title".format(n))
        inside("step01_walk", fig)


def packing(tmp):
    for machine in (ZEN3, BIG):
        fig = draw(tmp, machine, ["packing"])["packing"]
        text = joined(fig)
        mr, nr = concepts.step08_tiles(ROOT)[machine["isa"]]
        ways = (machine["l1"] << 10) // 4096
        for want in ("(kc = {})".format(machine["kc"]), "64 sets x {} ways".format(ways),
                     "{} lines in {} of 64 sets".format(machine["kc"] * max(1, nr * 4 // 64), max(1, nr * 4 // 64))):
            check(want in text, "packing ({}): no label '{}'".format(machine["isa"], want))
        # The second A sliver starts MR * kc floats in; the second B sliver kc * NR.
        numbers = {t.get_text() for t in texts(fig)}
        for offset in (mr * machine["kc"], nr * machine["kc"]):
            check(str(offset) in numbers, "packing ({}): no cell at offset {}".format(machine["isa"], offset))
        inside("packing " + machine["isa"], fig)


def threads(tmp):
    per_thread = 8
    for machine, n in ((ZEN3, 512), (BIG, 1800)):   # 16 blocks (8 a thread); 20 (from mc)
        fig = draw(tmp, machine, ["threads"], extra=["--threads-n", str(n)])["threads"]
        text = joined(fig)
        mr = concepts.step08_tiles(ROOT)[machine["isa"]][0]
        tiles = (n + mr - 1) // mr
        count = max((tiles * mr + machine["mc"] - 1) // machine["mc"], 2 * per_thread)
        count = (count + 1) // 2 * 2
        check("n = {}: threads share the ic loop, {} blocks".format(n, count) in text,
              "threads ({}): not {} blocks at n = {}".format(machine["isa"], count, n))
        check("kc = {}, nc = {}".format(machine["kc"], machine["nc"]) in text, "threads: no kc and nc labels")
        rows = sorted((int(a), int(b)) for a, b in re.findall(r"rows (\d+)-(\d+), thread", text))
        check(rows and rows[0][0] == 0 and rows[-1][1] == n - 1 and
              all(rows[i][1] + 1 == rows[i + 1][0] for i in range(len(rows) - 1)),
              "threads: the blocks of C do not cover rows 0..{} once: {}".format(n - 1, rows[:4]))
        check(text.count("barrier:") == 2, "threads: the two barriers of a slice not named")
        inside("threads " + machine["isa"], fig)
    # The timeline cuts k as step 09 does, into equal slices: k = 1000 in kc = 336 is 334, 334
    # and 332, not 336, 336 and 328; block b0's C boxes, one a slice, give the depths.
    mr, nr = concepts.step08_tiles(ROOT)["avx2"]
    blk = {"mc": 72, "kc": 336, "nc": 4096}
    spans = concepts.row_blocks(1000, 2, blk["mc"], mr, per_thread)
    boxes, _ = concepts.schedule(1000, 2, blk, (mr, nr), spans)
    depths = sorted((round(length / (2.0 * spans[0][1] * 1000)) for t in boxes for _, length, kind, label in t
                     if kind == "C" and label == "b0"), reverse=True)
    check(depths == [334, 334, 332], "threads: the slices of k at n = 1000, kc = 336: {}".format(depths))


def reading_plots(tmp):
    fig = draw(tmp, ZEN3, ["reading_plots"])["reading_plots"]
    notes = {a.get_text().split("\n")[0]: a for a in fig.axes[0].texts if hasattr(a, "xy")}
    for want in ("the curve", "the band", "an unsettled point", "a library's line", "the peak line",
                 "right-hand axis"):
        check(any(k.startswith(want) for k in notes), "reading_plots: no note '{}'".format(want))
    data = os.path.join(ROOT, "docs", "figures", "zen3", "reading-plots")
    with open(os.path.join(data, "peak.csv")) as f:
        peak = [float(l.split(",")[3]) for l in f if l.startswith("avx2,fp32,1,")]
    for key, note in notes.items():
        if key.startswith("the peak line"):
            check(peak and abs(note.xy[1] - peak[0]) < 1e-9, "reading_plots: the peak note is not at the peak")
        if key.startswith("the curve"):
            import csv
            with open([os.path.join(data, f) for f in os.listdir(data) if f.startswith("step")][0]) as f:
                best = {float(r["m"]): float(r["gflops_best"]) for r in csv.DictReader(f)}
            check(best.get(note.xy[0]) == note.xy[1], "reading_plots: the curve note is not on the curve")
    inside("reading_plots", fig)


def command_line(tmp):
    report = os.path.join(tmp, "machine-avx2.json")
    out = os.path.join(tmp, "out")
    script = os.path.join(ROOT, "plots", "concepts.py")
    done = subprocess.run([sys.executable, script, "--out", out, "--machine", report,
                           "--only", "step01_walk,five_loops"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check(done.returncode == 0, "concepts.py exited {}: {}".format(done.returncode, done.stderr.decode()[-300:]))
    for name in ("step01_walk", "five_loops"):
        path = os.path.join(out, name + ".png")
        with open(path, "rb") if os.path.exists(path) else open(os.devnull, "rb") as f:
            check(f.read(8) == b"\x89PNG\r\n\x1a\n", "concepts.py wrote no PNG at " + path)
    # A CPU that runs no step 08 kernel: the pictures of its blocks left out and said so.
    with open(os.path.join(tmp, "machine-none.json"), "w") as f:
        f.write(machine_record(**dict(ZEN3, isa="unsupported")))
    done = subprocess.run([sys.executable, script, "--out", os.path.join(tmp, "none"), "--machine",
                           os.path.join(tmp, "machine-none.json"), "--only", "step01_walk,five_loops"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    check(done.returncode == 0 and "no five_loops.png" in done.stdout and
          os.path.exists(os.path.join(tmp, "none", "step01_walk.png")) and
          not os.path.exists(os.path.join(tmp, "none", "five_loops.png")),
          "concepts.py on a CPU without a step 08 kernel: exit {}, {!r}".format(done.returncode, done.stdout +
                                                                             done.stderr))
    with open(os.path.join(tmp, "not-json.json"), "w") as f:
        f.write("caches     L1d 32 KiB, L2 512 KiB per core, L3 32 MiB shared  [sysfs]\n")
    for bad in (["--only", "nothing"], ["--machine", os.path.join(tmp, "missing.json")], ["--walk-n", "0"],
                ["--machine", os.path.join(tmp, "not-json.json")],
                ["--kernel", "avx2", "--machine", os.path.join(tmp, "machine-avx512.json")]):
        args = [sys.executable, script, "--out", out] + (["--machine", report] if "--machine" not in bad
                                                         else []) + bad
        done = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        lines = done.stderr.strip().splitlines()
        check(done.returncode == 2 and len(lines) == 1 and "Traceback" not in done.stderr,
              "concepts.py {}: exit {} with {!r}, not 2 and one line".format(" ".join(bad), done.returncode,
                                                                              done.stderr[-200:]))


def real_cpuinfo(tmp):
    """With the real cpuinfo under GEMM_CACHES, five_loops shows the blocks it reports."""
    import machine
    if not os.access(CPUINFO, os.X_OK):
        check(False, "{}: not an executable (build the cpuinfo target)".format(CPUINFO))
        return
    env = dict(os.environ, GEMM_CACHES="32K,512K,32M")
    text = subprocess.run([CPUINFO, "--json"], stdout=subprocess.PIPE, universal_newlines=True, env=env).stdout
    blocks = machine.parse(text, CPUINFO).step("08_avx512_14x32").params
    old = os.environ.get("GEMM_CACHES")
    os.environ["GEMM_CACHES"] = env["GEMM_CACHES"]
    try:
        args = concepts.parse(["--out", tmp, "--cpuinfo-bin", CPUINFO, "--only", "five_loops"])
        label = joined(concepts.figures(args)["five_loops"])
    finally:
        if old is None:
            del os.environ["GEMM_CACHES"]
        else:
            os.environ["GEMM_CACHES"] = old
    for key in ("mc", "kc", "nc"):
        check("{} = {}".format(key, blocks[key]) in label, "five_loops from {}: no '{} = {}'".format(
            CPUINFO, key, blocks[key]))


def main():
    tmp = tempfile.mkdtemp(prefix="test_concepts.")
    try:
        for test in (five_loops, register_files, walk, packing, threads, reading_plots, command_line):
            test(tmp)
        if CPUINFO:
            real_cpuinfo(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("{} failure(s)".format(len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
