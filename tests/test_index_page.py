#!/usr/bin/env python3
"""plots/index_page.py (results/index.html, the whole run on one page), from a small made-up
run (CSVs, summary.md, machine.txt and tiny PNGs), then loaded in headless Chromium: every
image must load and every link name a file. Planted: a PNG removed after the page was
written, and the page copied to the --docs folder instead of written for it (its links to
the steps then point nowhere); each must fail the browser check. Exit 77 (skipped) when
there is no chromium, after the checks that need none.

    test_index_page.py ROOT OUT_DIR     (OUT_DIR keeps the screenshot: index_page.png)
"""
import html
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse
import zlib

ROOT, OUT_DIR = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
PAGE_SCRIPT = os.path.join(ROOT, "plots", "index_page.py")
failures = 0


def check(ok, what):
    global failures
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures += 1


def png(path, width, height, rgb):
    """A PNG of one colour, written by hand (no matplotlib needed)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


HEADER = "step,m,n,k,threads,gflops_best,gflops_median,seconds_best,max_rel_err,verified,kernel,reps,cpu,samples,settled\n"
# Every figure the made-up run has, in the order the page must show them.
FIGURES = ["bandwidth.png", "step01_baseline.png", "step05_simd_4x4.png", "step10_tuned.png", "step10_tuned_mt.png",
           "overlay.png", "overlay_log.png", "overlay_mt.png", "staircase.png", "roofline.png", "scaling.png",
           "blockmap_step06_blocking.png", "concepts/tile.png", "ablation #2.png"]


def make_run(results):
    """A run's folder as run_all.sh leaves it, machine.txt first (older than the figures)."""
    os.makedirs(results)
    with open(os.path.join(results, "machine.txt"), "w") as f:
        f.write("cpu: Made-up CPU <8 cores & more>\nuarch: Zen 9\ncores: 2\ndate: 2026-12-02 01:00 UTC\nrounds: 2\n")
    with open(os.path.join(results, "cpuinfo.txt"), "w") as f:
        f.write("CPU        Made-up CPU\nSteps built, the variant each runs here:\n  01_baseline  scalar\n")
    with open(os.path.join(results, "summary.md"), "w") as f:
        f.write("# SGEMM: where each step stands\n\n| machine | |\n|---|---|\n| CPU | Made-up CPU <8 cores & more> |\n"
                "| measured fp32 peak | 1 thread: 50.0 GFLOPS (avx2) |\n\nGFLOPS: the **best** sample at *each* size.\n\n"
                "| step | kernel | threads | GFLOPS n=500 |\n|---|---|---|--:|\n| 01_baseline | scalar | 1 | 1.5 |\n"
                "| 10_tuned | avx2 | 1 | 45.5 |\n\nSpread:\n- **01_baseline**: every size settled.\n")
    for name, settled in (("step01_baseline", "1"), ("step05_simd_4x4", "0"), ("step07_packing", "1"),
                          ("step10_tuned", "1"), ("step10_tuned_mt", "1"), ("ref_openblas", "0")):
        with open(os.path.join(results, name + ".csv"), "w") as f:
            f.write(HEADER + "".join("{0},{1},{1},{1},1,10,9,0.1,1e-7,1,x,3,c,3,{2}\n".format(
                name, size, settled if size == 200 else "1") for size in (100, 200, 300)))
    past = time.time() - 100
    os.utime(os.path.join(results, "machine.txt"), (past, past))
    for i, name in enumerate(FIGURES + ["stale.png"]):
        png(os.path.join(results, name), 64 + i, 48, (40 + 10 * i, 120, 200 - 10 * i))
    os.utime(os.path.join(results, "stale.png"), (past - 1000, past - 1000))   # an earlier run's


def make_page(results, output=None):
    return subprocess.run([sys.executable, PAGE_SCRIPT, "--results", results] + (["--output", output] if output else []),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)


work = tempfile.mkdtemp(prefix="index_page.")
results = os.path.join(work, "results")
make_run(results)
page = os.path.join(results, "index.html")
r = make_page(results)
text = open(page).read() if os.path.exists(page) else ""
check(r.returncode == 0 and r.stdout.strip().splitlines()[-1] == "   the whole run on one page: " + page,
      "the page is written and its path is the last line ({})".format(r.stderr.strip()))
check("step05_simd_4x4 1/3" in r.stdout and "ref_openblas 1/3" in r.stdout,
      "the sizes left unsettled are listed: {}".format(r.stdout.strip().splitlines()[0]))
shown = [urllib.parse.unquote(html.unescape(s)) for s in re.findall(r'<img src="([^"]+)"', text)]
check(shown == FIGURES and "ablation%20%232.png" in text,
      "every figure, in the tutorial's order, a name with '#' quoted: {}".format(shown))
check("<script" not in text.lower() and not re.search(r'(src|href)="[a-z]+:', text),
      "no script and nothing from outside the file system")
check("stale.png" not in shown and "earlier run): stale.png" in text and "step07_packing.png" in text,
      "a figure older than machine.txt is left out and named; a step CSV without its figure is named")
step05 = os.path.relpath(os.path.join(ROOT, "steps", "05_simd_4x4", "README.md"), results)
check('href="{}"'.format(step05) in text and text.count("docs/reading-plots.md#") >= 6,
      "a step's figure links to its page ({}), the others to their section of reading-plots.md".format(step05))
check("Made-up CPU &lt;8 cores &amp; more&gt;" in text and "1 thread: 50.0 GFLOPS (avx2)" in text
      and text.count("Made-up CPU &lt;8") == 1 and '<td class="num">45.5</td>' in text
      and "<strong>best</strong>" in text and "<em>each</em>" in text,
      "the machine from machine.txt (escaped, summary.md's other rows folded in once), summary.md's table")
r = make_page(os.path.join(work, "nothing"))
check(r.returncode == 2 and r.stderr.count("\n") == 1, "no results folder: exit 2, one line")
r = make_page(results, "/proc/index_page/index.html")
check(r.returncode == 3 and r.stderr.count("\n") == 1, "a page that cannot be written: exit 3, one line")

chromium = shutil.which("chromium") or shutil.which("chromium-browser")
if not chromium:
    shutil.rmtree(work, ignore_errors=True)
    print("SKIP: no chromium here (Debian: apt-get install chromium): the page was checked but not loaded in a browser")
    sys.exit(1 if failures else 77)

# Written into a copy of the page beside it (the published page has no script): once every
# image has loaded or failed, each image's width and each link as the browser resolved it.
PROBE = """<script>
window.addEventListener("load", function () {
  var out = [];
  document.querySelectorAll("img").forEach(function (i) { out.push("img " + i.naturalWidth + " " + i.getAttribute("src")); });
  document.querySelectorAll("a[href]").forEach(function (a) { out.push("href " + a.href); });
  var pre = document.createElement("pre");
  pre.id = "browser-check";
  pre.textContent = out.join("\\n");
  document.body.appendChild(pre);
});
</script>
"""


def browser(*options):
    env = dict(os.environ, HOME=work, XDG_CONFIG_HOME=work, XDG_CACHE_HOME=work)
    return subprocess.run([chromium, "--headless", "--disable-gpu", "--no-sandbox", "--user-data-dir=" + os.path.join(work, "profile")]
                          + list(options), stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                          env=env, timeout=120)


def browser_check(page):
    """What the browser found wrong with `page`: images that did not load, links to no file."""
    with open(page) as f:
        probe_page = f.read().replace("</body>", PROBE + "</body>")
    copy = os.path.join(os.path.dirname(page), ".browser-check.html")
    with open(copy, "w") as f:
        f.write(probe_page)
    r = browser("--run-all-compositor-stages-before-draw", "--virtual-time-budget=10000", "--dump-dom",
                "file://" + urllib.parse.quote(copy))
    os.unlink(copy)
    found = re.search(r'<pre id="browser-check">(.*?)</pre>', r.stdout, re.S)
    if not found:
        return ["the page did not load (chromium exit {}: {})".format(r.returncode, r.stderr.strip()[-200:])], 0
    problems, images = [], 0
    for line in html.unescape(found.group(1)).splitlines():
        kind, _, rest = line.partition(" ")
        if kind == "img":
            width, _, src = rest.partition(" ")
            images += 1
            if width == "0":
                problems.append("image not loaded: " + src)
        elif kind == "href":
            url = urllib.parse.urlparse(rest)
            if url.scheme != "file":
                problems.append("a link off the file system: " + rest)
            elif not os.path.exists(urllib.parse.unquote(url.path)):
                problems.append("broken link: " + rest)
    return problems, images


problems, images = browser_check(page)
check(not problems and images == len(FIGURES),
      "in Chromium every one of the {} images loaded and every link names a file: {}".format(images, problems))
shot = os.path.join(OUT_DIR, "index_page.png")
r = browser("--window-size=1400,3200", "--hide-scrollbars", "--screenshot=" + shot, "file://" + urllib.parse.quote(page))
check(os.path.isfile(shot) and os.path.getsize(shot) > 10000, "a screenshot: {}".format(shot))

# --docs: the page written for docs/figures/<cpu>/, beside the copies of the figures.
docs = os.path.join(work, "docs", "figures", "zen9")
for name in FIGURES:
    os.makedirs(os.path.dirname(os.path.join(docs, name)), exist_ok=True)
    shutil.copyfile(os.path.join(results, name), os.path.join(docs, name))
r = make_page(results, os.path.join(docs, "index.html"))
problems, images = browser_check(os.path.join(docs, "index.html"))
check(r.returncode == 0 and not problems and images == len(FIGURES),
      "the page written for the --docs folder loads there, its links rewritten for it: {}".format(problems))

# Planted: a figure gone after the page was written; the results page copied, not rewritten.
os.rename(os.path.join(results, "step05_simd_4x4.png"), os.path.join(work, "away.png"))
problems, _ = browser_check(page)
check("image not loaded: step05_simd_4x4.png" in problems and all("step05_simd_4x4.png" in p for p in problems),
      "planted, a PNG removed: the browser check fails: {}".format(problems))
os.rename(os.path.join(work, "away.png"), os.path.join(results, "step05_simd_4x4.png"))
shutil.copyfile(page, os.path.join(docs, "index.html"))
problems, _ = browser_check(os.path.join(docs, "index.html"))
check(problems and all(p.startswith("broken link: ") for p in problems),
      "planted, the page copied to the --docs folder as it is: its links to the steps are broken ({} found)".format(
          len(problems)))

shutil.rmtree(work, ignore_errors=True)
print("{} passed, {} failed".format("all" if failures == 0 else "some", failures))
sys.exit(1 if failures else 0)
