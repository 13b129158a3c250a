#!/usr/bin/env python3
"""The tutorial's pages keep their conventions (docs/contracts.md, "The pages"). The pages are
README.md, docs/**/*.md and steps/NN_slug/README.md (the lesson pages).

  excerpts  a line `<!-- excerpt: PATH NAME -->` is followed by a ```cpp block that holds
            exactly the lines of PATH (from the checkout's root) between its lines
            `// >>> NAME` and `// <<< NAME`, their common indentation removed (lines of other
            markers left out, so excerpts may nest); each of the lesson pages 05-10 has one
  rules     README.md: at most 900 words, its first ```sh block within its first 150 words,
            an image within its first 40 lines; lesson pages within their budgets (01-07: 1,300
            words, 08: 3,000, 09: 2,000, 10: 3,500); on README.md and the lesson pages no
            commit hash, no path outside the checkout, and on README.md no host's timing; on
            lesson pages none of the words issue, session, seed (outside ```cpp blocks). On
            every page: each fence names its kind (```sh, ```text, ```cpp ...; ```bash or a bare
            ``` does not), no command in an indented block, no prompt in a ```sh block, and a
            line marked `# not run by the tests:` gives a reason. Words count as `wc -w` does.
  links     every relative link and image (markdown or <img src>) names a file or folder of
            the checkout, inside it; an #anchor into a page names one of its headings
  commands  every ```sh block, lines marked `# not run by the tests: REASON` (and the lines
            they continue) left out, runs as one bash script under `set -e`, within --timeout
            seconds, from the root of a scratch copy of the checkout whose build/ is the lab
            tests' shared build (tests/lab_copy.sh: WORK/src, built in WORK/build; brought up to
            date, or built, once before the first page). Each page gets a fresh copy; its
            blocks run in order.
            `make step-N` samples two sizes once (GEMM_SAMPLER_ARGS, cmake/RunStep.cmake); a
            `diff` that finds differences (exit 1) is not a failure, nor a block that exits 77
            (a CPU that lacks what it needs); what a block leaves running is ended after it.

    test_pages.py ROOT [--part LIST] [--only TEXT]... [--list] [--work DIR] [--timeout S] [--keep]
                  [--except TEXT]...

  --part LIST   excerpts,rules,links (the default) and/or commands (needs --work)
  --only TEXT   only the pages whose path (from ROOT) contains TEXT
  --list        what the pages hold (words, excerpts, sh blocks and their skipped lines); checks nothing
  --work DIR    the lab tests' scratch folder (ctest: build/tests/labs)
  --timeout S   seconds one sh block may take (default 120; a page marks what takes over a minute)
  --keep        leave the last page's scratch copy in WORK/src
  --except TEXT do not run the sh blocks that hold TEXT (said in the output; for debugging)

Exit status: 0 every check passed; 1 a check failed (one line each: page:line: what); 2 usage.
Standard library only.
"""
import argparse
import difflib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import test_doc_links as doc_links  # noqa: E402  (its link pattern, prose() and GitHub's anchors)

PROG = "test_pages.py"
LESSON = re.compile(r"^steps/(\d\d)_[a-z0-9_]+/README\.md$")
BUDGETS = {1: 1300, 2: 1300, 3: 1300, 4: 1300, 5: 1300, 6: 1300, 7: 1300, 8: 3000, 9: 2000, 10: 3500}
EXCERPT_PAGES = range(5, 11)          # lesson pages that show the code that changed
README_WORDS, README_FIRST_SH_WORDS, README_IMAGE_LINES = 900, 150, 40

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^\s`]*)")
EXCERPT = re.compile(r"^<!--\s*excerpt:\s*(\S+)\s+(\S+)\s*-->\s*$")
OPEN, CLOSE = re.compile(r"^\s*//\s*>>>\s*(\S+)\s*$"), re.compile(r"^\s*//\s*<<<\s*(\S+)\s*$")
SKIP_MARK = re.compile(r"(?:^|\s)#\s*not run by the tests:(.*)$")
NEAR_MARK = re.compile(r"#.*\bnot\s+run\b", re.I)
SHELL_FENCES = {"bash", "shell", "console", "zsh", "shell-session", "sh-session", "terminal"}
COMMAND = re.compile(r"^(\./[\w.-]|cmake\s|ctest\b|make\s|cd\s|build/bin/|tools/[\w.-]+\.(?:sh|py)|"
                     r"plots/[\w.-]+\.py|taskset\s|OMP_\w+=|GEMM_\w+=|python3?\s|/usr/bin/|diff\s|"
                     r"objdump\s|perf\s|git\s|sudo\s|apt(?:-get)?\s|\$\s)")
HASH = re.compile(r"(?<![0-9A-Za-z_])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![0-9A-Za-z_])")
HISTORY = re.compile(r"\b(issues?|sessions?|seeds?)\b", re.I)
OUTSIDE = ("/work/", "/home/", "../shared", "../../..")
HOSTS = re.compile(r"\b(Cascade Lake|Emerald Rapids|Sapphire Rapids|Granite Rapids|Ice Lake|Skylake|"
                   r"Zen ?[1-5]|Xeon|EPYC|Ryzen|Graviton|Neoverse|KVM|VMs?|hosts?)\b")
DURATION = re.compile(r"\b\d+(?:[.,]\d+)?(?:\s*(?:-|–|to)\s*\d+(?:[.,]\d+)?)?\s*"
                      r"(?:ms|s|secs?|seconds?|min|mins|minutes?|h|hours?)\b")
IMAGE = re.compile(r"!\[[^\]]*\]\([^)\s]+|<img\s[^>]*src=")
HTML_LINK = re.compile(r"<(?:img|a)\s[^>]*(?:src|href)=\"([^\"]+)\"")
TAIL = 25   # lines of a failing block's output shown


class Block:
    def __init__(self, line, info, body, closed):
        self.line, self.info, self.body, self.closed = line, info, body, closed   # line: the opening fence's

    def commands(self):
        """The lines a test runs: each marked line left out with the lines it continues (a
        trailing backslash); returns (script lines, [(line number, reason)] of those left out)."""
        kept, skipped = [], []
        for number, text in enumerate(self.body, self.line + 1):
            m = SKIP_MARK.search(text)
            if m:
                while kept and kept[-1][1].rstrip().endswith("\\"):
                    kept.pop()
                skipped.append((number, m.group(1).strip()))
            else:
                kept.append((number, text))
        return [t for _, t in kept], skipped


class Page:
    def __init__(self, root, rel):
        self.rel, self.path = rel, os.path.join(root, rel)
        with open(self.path, encoding="utf-8") as f:
            self.text = f.read()
        self.lines = self.text.splitlines()
        self.blocks, self.in_fence = [], [False] * len(self.lines)
        i = 0
        while i < len(self.lines):
            m = FENCE.match(self.lines[i])
            if not m:
                i += 1
                continue
            indent, mark = len(m.group(1)), m.group(2)
            close = re.compile(r"^\s*" + re.escape(mark[0]) + "{%d,}\\s*$" % len(mark))
            j, body = i + 1, []
            while j < len(self.lines) and not close.match(self.lines[j]):
                line = self.lines[j]
                cut = min(indent, len(line) - len(line.lstrip(" ")))
                body.append(line[cut:])
                j += 1
            for k in range(i, min(j + 1, len(self.lines))):
                self.in_fence[k] = True
            self.blocks.append(Block(i + 1, m.group(3).lower(), body, j < len(self.lines)))
            i = j + 1
        m = LESSON.match(rel)
        self.step = int(m.group(1)) if m else None

    def words(self, upto=None):
        return len("\n".join(self.lines[:upto]).split())

    def block_at(self, line):
        return next((b for b in self.blocks if b.line == line), None)

    def excerpts(self):
        """[(line, path, name, the ```cpp block or None, problem or None)] of the excerpt lines."""
        out = []
        for number, text in enumerate(self.lines, 1):
            if self.in_fence[number - 1] or not text.strip().startswith("<!--") or "excerpt" not in text:
                continue
            m = EXCERPT.match(text.strip())
            if not m:
                out.append((number, None, None, None, "an excerpt line is `<!-- excerpt: PATH NAME -->`, "
                            "alone on its line: {!r}".format(text.strip())))
                continue
            nxt = number
            while nxt < len(self.lines) and not self.lines[nxt].strip():
                nxt += 1
            block = self.block_at(nxt + 1)
            if block is None or block.info != "cpp":
                out.append((number, m.group(1), m.group(2), None, "the excerpt line is not followed by a ```cpp block"))
            else:
                out.append((number, m.group(1), m.group(2), block, None))
        return out


def find_pages(root, only):
    rels = ["README.md"] if os.path.isfile(os.path.join(root, "README.md")) else []
    for folder, dirs, files in os.walk(os.path.join(root, "docs")):
        dirs[:] = sorted(dirs)
        rels += sorted(os.path.relpath(os.path.join(folder, f), root) for f in files if f.endswith(".md"))
    steps = os.path.join(root, "steps")
    for d in sorted(os.listdir(steps)) if os.path.isdir(steps) else []:
        rel = "steps/{}/README.md".format(d)
        if LESSON.match(rel) and os.path.isfile(os.path.join(root, rel)):
            rels.append(rel)
    rels = [r.replace(os.sep, "/") for r in rels]
    # --only README.md is that page; other text picks every page whose path holds it.
    return [Page(root, r) for r in rels if not only or any(t == r or t not in rels and t in r for t in only)]


# --- excerpts ---------------------------------------------------------------------------------

def source_lines(root, path, name):
    """The excerpt NAME of PATH as the page must show it, or raises ValueError(why not)."""
    full = os.path.normpath(os.path.join(root, path))
    if not full.startswith(root + os.sep) or not os.path.isfile(full):
        raise ValueError("{}: no such file in the checkout".format(path))
    with open(full, encoding="utf-8") as f:
        lines = f.read().splitlines()
    opens = [i for i, t in enumerate(lines) if OPEN.match(t) and OPEN.match(t).group(1) == name]
    closes = [i for i, t in enumerate(lines) if CLOSE.match(t) and CLOSE.match(t).group(1) == name]
    if not opens:
        raise ValueError("{} has no line `// >>> {}`".format(path, name))
    if len(opens) > 1 or len(closes) > 1:
        raise ValueError("{} marks {!r} more than once (lines {})".format(
            path, name, ", ".join(str(i + 1) for i in sorted(opens + closes))))
    if not closes or closes[0] < opens[0]:
        raise ValueError("{}:{}: `// >>> {}` has no `// <<< {}` after it".format(path, opens[0] + 1, name, name))
    inner = [t for t in lines[opens[0] + 1:closes[0]] if not OPEN.match(t) and not CLOSE.match(t)]
    text = textwrap.dedent("\n".join(inner))
    return [t.rstrip() for t in text.split("\n")] if inner else [], opens[0] + 2


def check_excerpts(root, pages, fail):
    count = 0
    for page in pages:
        found = page.excerpts()
        count += len(found)
        for line, path, name, block, problem in found:
            where = "{}:{}".format(page.rel, line)
            if problem:
                fail(where, problem)
                continue
            try:
                want, first = source_lines(root, path, name)
            except ValueError as e:
                fail(where, "excerpt {} {}: {}".format(path, name, e))
                continue
            have = [t.rstrip() for t in block.body]
            if have != want:
                i = next((k for k in range(max(len(have), len(want)))
                          if k >= len(have) or k >= len(want) or have[k] != want[k]))
                diff = difflib.unified_diff(want, have, "{} (lines {}-{})".format(path, first, first + len(want) - 1),
                                            "{} (lines {}-{})".format(page.rel, block.line + 1, block.line + len(have)),
                                            lineterm="", n=1)
                fail("{}:{}".format(page.rel, block.line + 1 + i),
                     "excerpt {} {} differs from its source from the page's line {} on:\n    {}".format(
                         path, name, block.line + 1 + i, "\n    ".join(list(diff)[:16])))
        if page.step in EXCERPT_PAGES and not any(p is None for *_, p in found):
            fail(page.rel + ":1", "lesson page {:02d} shows no excerpt of its code (`<!-- excerpt: PATH NAME -->` "
                 "before a ```cpp block)".format(page.step))
    return count


# --- rules ------------------------------------------------------------------------------------

def outside_cpp(page):
    """(line number, text) of the page's lines, the contents of ```cpp blocks left out."""
    cpp = set()
    for b in page.blocks:
        if b.info == "cpp":
            cpp.update(range(b.line, b.line + len(b.body) + 2))
    return [(n, t) for n, t in enumerate(page.lines, 1) if n not in cpp]


def sentences(page):
    """(first line, text) of each sentence of the page's prose (fenced blocks left out)."""
    out, para, start = [], [], 0
    for n, t in enumerate(page.lines + [""], 1):
        prose = n <= len(page.lines) and not page.in_fence[n - 1] and t.strip()
        if prose:
            if not para:
                start = n
            para.append(t.strip())
            continue
        if para:
            for s in re.split(r"(?<=[.!?])\s+(?=[A-Z(`*])", " ".join(para)):
                out.append((start, s))
            para = []
    return out


def check_rules(root, pages, fail):
    for page in pages:
        rel = page.rel
        # Fences and the commands in them (every page).
        for b in page.blocks:
            where = "{}:{}".format(rel, b.line)
            if not b.closed:
                fail(where, "a fence that is never closed")
            if not b.info:
                fail(where, "a ``` fence without a kind: commands go in ```sh, output and sketches in ```text, C++ in ```cpp")
            elif b.info in SHELL_FENCES:
                fail(where, "```{}: commands go in ```sh blocks (the tests run those)".format(b.info))
            if b.info != "sh":
                continue
            for n, t in enumerate(b.body, b.line + 1):
                m = SKIP_MARK.search(t)
                if m and not m.group(1).strip():
                    fail("{}:{}".format(rel, n), "`# not run by the tests:` gives no reason after the colon")
                elif not m and NEAR_MARK.search(t):
                    fail("{}:{}".format(rel, n), "a line the tests should skip ends with exactly "
                         "`# not run by the tests: REASON`: {!r}".format(t.strip()))
                if t.lstrip().startswith("$ "):
                    fail("{}:{}".format(rel, n), "a prompt in a ```sh block (the tests run it as typed): {!r}".format(t.strip()))
        previous = ""
        for n, t in enumerate(page.lines, 1):
            if page.in_fence[n - 1]:
                previous = "fence"
                continue
            indented = t.startswith("    ") and t.strip()
            if indented and previous in ("", "code") and COMMAND.match(t.strip()):
                fail("{}:{}".format(rel, n), "a command in an indented block: put it in a ```sh block "
                     "(or output in ```text): {!r}".format(t.strip()[:80]))
            previous = "code" if indented and previous in ("", "code") else ("" if not t.strip() else "text")

        # README.md: the front door.
        if rel == "README.md":
            words = page.words()
            if words > README_WORDS:
                fail(rel + ":1", "{} words, more than {}".format(words, README_WORDS))
            sh = next((b for b in page.blocks if b.info == "sh"), None)
            if sh is None:
                fail(rel + ":1", "no ```sh block")
            elif page.words(sh.line - 1) > README_FIRST_SH_WORDS:
                fail("{}:{}".format(rel, sh.line), "the first ```sh block comes after {} words, not within the first {}".format(
                    page.words(sh.line - 1), README_FIRST_SH_WORDS))
            if not any(IMAGE.search(t) for t in page.lines[:README_IMAGE_LINES]):
                fail(rel + ":1", "no image in the first {} lines".format(README_IMAGE_LINES))
            for start, s in sentences(page):
                host, took = HOSTS.search(s), DURATION.search(s)
                if host and took:
                    fail("{}:{}".format(rel, start), "a host's timing ({!r} beside {!r}): timings of other machines "
                         "belong in docs/figures/README.md or docs/harness.md".format(host.group(0), took.group(0)))
        # Lesson pages: their budgets and no word of the project's history.
        if page.step is not None and page.step in BUDGETS:
            words = page.words()
            if words > BUDGETS[page.step]:
                fail(rel + ":1", "{} words, more than the {} of a step {:02d} page".format(words, BUDGETS[page.step], page.step))
            for n, t in outside_cpp(page):
                for m in HISTORY.finditer(t):
                    fail("{}:{}".format(rel, n), "the word {!r} (a lesson page speaks of the lesson, not of "
                         "the project's history)".format(m.group(0)))
        if rel == "README.md" or page.step is not None:
            for n, t in outside_cpp(page):
                for m in HASH.finditer(t):
                    fail("{}:{}".format(rel, n), "a commit hash {!r}".format(m.group(0)))
                for s in OUTSIDE:
                    if s in t:
                        fail("{}:{}".format(rel, n), "a path outside the checkout ({!r})".format(s))


# --- links ------------------------------------------------------------------------------------

def check_links(root, pages, fail):
    count = 0
    for page in pages:
        prose = doc_links.prose(page.text)
        for n, line in enumerate(prose, 1):
            raw = page.lines[n - 1] if n <= len(page.lines) and not page.in_fence[n - 1] else ""
            targets = doc_links.LINK.findall(line) + HTML_LINK.findall(raw)
            for target in targets:
                if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
                    continue
                count += 1
                path, _, fragment = target.partition("#")
                where = os.path.normpath(os.path.join(os.path.dirname(page.path), path)) if path else page.path
                said = "{}:{}".format(page.rel, n)
                if where != root and not where.startswith(root + os.sep):
                    fail(said, "({}) leads outside the checkout".format(target))
                elif not os.path.exists(where):
                    fail(said, "({}) names no file of the checkout".format(target))
                elif fragment and where.endswith(".md") and fragment not in doc_links.anchors(where):
                    fail(said, "({}) names no heading of {}".format(target, os.path.relpath(where, root)))
    return count


# --- commands ---------------------------------------------------------------------------------

PREAMBLE = """set -e
# diff finds differences (exit 1): that is what the page shows it for; only trouble (2) fails.
diff() { command diff "$@" || [ $? -eq 1 ]; }
"""


def signal_group(pgid, signum):
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def run(cmd, cwd, env, timeout=None):
    """(exit status, or None when it ran out of time, and the output) of cmd in a process
    group of its own, stdin empty; what it left running in the background is ended after it."""
    with tempfile.TemporaryFile() as out:   # not a pipe: a background child would hold it open
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            rc = None
        except BaseException:                # Ctrl-C: end the block too
            signal_group(proc.pid, signal.SIGKILL)
            raise
        signal_group(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            signal_group(proc.pid, signal.SIGKILL)
            proc.wait()
        time.sleep(0.1)
        signal_group(proc.pid, signal.SIGKILL)
        out.seek(0)
        return rc, out.read().decode("utf-8", "replace")


def tail(out):
    lines = out.rstrip("\n").splitlines()
    return "\n      | ".join([""] + lines[-TAIL:]) if lines else " (no output)"


def check_commands(root, pages, work, timeout, keep, excepted, fail):
    runnable = []
    for page in pages:
        blocks = [(b, b.commands()) for b in page.blocks if b.info == "sh"]
        if any(any(t.strip() and not t.strip().startswith("#") for t in kept) for b, (kept, _) in blocks):
            runnable.append((page, blocks))
    if not runnable:
        print("no page has a ```sh block to run")
        return 0
    work = os.path.abspath(work)
    src, build = os.path.join(work, "src"), os.path.join(work, "build")
    os.makedirs(build, exist_ok=True)
    build = os.path.realpath(build)
    cmake = shutil.which("cmake")
    if not cmake:
        fail(PROG, "no cmake on PATH")
        return 0
    env = dict(os.environ)
    env.update(PATH=os.path.join(HERE, "pages_path") + os.pathsep + env.get("PATH", ""),
               GEMM_PAGES_CMAKE=cmake, GEMM_PAGES_BUILD=build,
               GEMM_SAMPLER_ARGS="--sizes 64,96 --rounds 1 --budget 0")
    jobs = str(max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))
    ran, built = 0, False
    for page, blocks in runnable:
        # A fresh copy for every page, by the lab tests' own copy (the same path, so their build serves).
        start = time.time()
        rc, out = run(["bash", "-c", 'fail() { echo "$*"; exit 1; }; . "$1"; lab_copy "$2" "$3"', "lab_copy",
                       os.path.join(HERE, "lab_copy.sh"), root, work], cwd=work, env=env)
        if rc != 0:
            fail(page.rel, "cannot make the scratch copy in {}:{}".format(src, tail(out)))
            return ran
        os.symlink(os.path.relpath(build, src), os.path.join(src, "build"))
        if not built:   # once, from the first copy: later pages' own build commands bring it up to date
            if not os.path.isfile(os.path.join(build, "CMakeCache.txt")):
                print("  configuring and building {} (once: the lab tests and later runs reuse it) ...".format(build),
                      flush=True)
                rc, out = run([cmake, "-S", src, "-B", build, "-DGEMM_BUILD_TESTS=ON"], cwd=src, env=env)
            if rc == 0:
                rc, out = run([cmake, "--build", build, "-j", jobs], cwd=src, env=env)
            if rc != 0:
                fail(page.rel, "the scratch build in {} failed:{}".format(build, tail(out)))
                return ran
            built = True
            print("  the scratch copy and its build ready in {:.1f} s".format(time.time() - start), flush=True)
        failed_before = False
        for b, (kept, skipped) in blocks:
            if not any(t.strip() and not t.strip().startswith("#") for t in kept):
                continue
            first_line = next(t.strip() for t in kept if t.strip() and not t.strip().startswith("#"))
            where = "{}:{}".format(page.rel, b.line)
            if any(e in "\n".join(kept) for e in excepted):
                print("  --  {} `{}` not run (--except)".format(where, first_line[:70]), flush=True)
                continue
            start = time.time()
            rc, out = run(["bash", "--noprofile", "--norc", "-c", PREAMBLE + "\n".join(kept) + "\n", "page-block"],
                          cwd=src, env=env, timeout=timeout)
            took = time.time() - start
            ran += 1
            after = " (an earlier block of this page failed)" if failed_before else ""
            if rc is None:
                fail(where, "the ```sh block `{}` did not finish in {} s{}; the end of its output:{}".format(
                    first_line, timeout, after, tail(out)))
                failed_before = True
            elif rc == 77:   # the harness's "this CPU cannot run it" (docs/contracts.md, "Exit status")
                print("  --  {} `{}` exited with 77 (this CPU lacks what it needs): skipped, not failed".format(
                    where, first_line[:70]), flush=True)
            elif rc != 0:
                fail(where, "the ```sh block `{}` exited with {} after {:.1f} s{}; the end of its output:{}".format(
                    first_line, rc, took, after, tail(out)))
                failed_before = True
            else:
                slow = "; over a minute: mark it `# not run by the tests: ...` or make it shorter" if took > 60 else ""
                print("  ok  {} `{}` ({:.1f} s{}{})".format(where, first_line[:70], took,
                      ", {} line{} not run".format(len(skipped), "" if len(skipped) == 1 else "s") if skipped else "", slow),
                      flush=True)
    if not keep:
        shutil.rmtree(src, ignore_errors=True)   # the build stays for the lab tests
    return ran


# --- main -------------------------------------------------------------------------------------

def list_pages(root, pages):
    for page in pages:
        budget = " (budget {})".format(BUDGETS[page.step]) if page.step in BUDGETS else \
            " (budget {})".format(README_WORDS) if page.rel == "README.md" else ""
        print("{}: {} words{}".format(page.rel, page.words(), budget))
        for line, path, name, block, problem in page.excerpts():
            print("  {:5} excerpt {} {}{}".format(line, path, name, ": " + problem if problem else
                                                  " ({} lines)".format(len(block.body))))
        for b in page.blocks:
            if b.info != "sh":
                continue
            kept, skipped = b.commands()
            shown = next((t.strip() for t in kept if t.strip()), "(nothing to run)")
            print("  {:5} sh      {} line{} to run: {}".format(b.line, len(kept), "" if len(kept) == 1 else "s", shown[:70]))
            for n, reason in skipped:
                print("  {:5}   not run: {}".format(n, reason))


def main(argv):
    ap = argparse.ArgumentParser(prog=PROG, description="The pages' conventions (see the top of this file).")
    ap.add_argument("root")
    ap.add_argument("--part", default="excerpts,rules,links")
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--work")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--except", dest="excepted", action="append", default=[])
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args(argv)
    parts = set(p for p in args.part.split(",") if p)
    unknown = parts - {"excerpts", "rules", "links", "commands"}
    if unknown or not parts:
        ap.error("--part {!r}: a list of excerpts, rules, links, commands".format(args.part))
    if "commands" in parts and not args.work:
        ap.error("--part commands needs --work DIR (the lab tests' scratch folder)")
    if args.timeout <= 0:
        ap.error("--timeout must be positive")
    root = os.path.realpath(args.root)
    if not os.path.isdir(os.path.join(root, "steps")):
        ap.error("{}: not the checkout (no steps/)".format(args.root))
    start = time.time()
    pages = find_pages(root, args.only)
    if not pages:
        ap.error("no page matches --only {}".format(" ".join(args.only)))
    if args.list:
        list_pages(root, pages)
        return 0
    failures, held = [], []

    def fail(where, what):
        failures.append(where)
        print("FAIL  {}: {}".format(where, what), flush=True)

    def hold(where, what):   # the quick checks' failures, printed page by page, line by line
        failures.append(where)
        held.append((where, what))

    said = []
    if "excerpts" in parts:
        said.append("{} excerpts".format(check_excerpts(root, pages, hold)))
    if "rules" in parts:
        check_rules(root, pages, hold)
        said.append("the rules")
    if "links" in parts:
        said.append("{} links".format(check_links(root, pages, hold)))
    order = {p.rel: i for i, p in enumerate(pages)}

    def place(item):
        page, _, line = item[0].rpartition(":")
        return (order.get(page, -1), int(line) if line.isdigit() else 0)
    for where, what in sorted(held, key=place):
        print("FAIL  {}: {}".format(where, what))
    if "commands" in parts:
        said.append("{} sh blocks run".format(check_commands(root, pages, args.work, args.timeout, args.keep,
                                                                   args.excepted, fail)))
    print("{} pages: {}; {} failure{} ({:.1f} s)".format(len(pages), ", ".join(said), len(failures),
                                                          "" if len(failures) == 1 else "s", time.time() - start))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
