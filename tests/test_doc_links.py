#!/usr/bin/env python3
"""Every link of the tutorial's pages leads somewhere: a relative link names a file or folder
of the checkout, and a #fragment names a heading of its page, as GitHub makes the anchors.

    test_doc_links.py ROOT      (ROOT: the checkout; its *.md outside build folders and results/)

Exit 0 when all links resolve, 1 with one line per broken link.
"""
import os
import re
import sys

SKIP_DIRS = {".git", "results", "node_modules", "__pycache__"}
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def pages(root):
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("build"))
        for name in sorted(files):
            if name.endswith(".md"):
                yield os.path.join(folder, name)


def prose(text, blank_code=True):
    """The page's lines outside fenced code blocks, with inline code blanked out (not in
    headings' text, which makes their anchors)."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            out.append("")
            continue
        out.append("" if fenced or line.startswith("    ") and not line.strip().startswith(("-", "*", "|"))
                   else re.sub(r"`[^`]*`", "``", line) if blank_code else line)
    return out


def slug(heading):
    """GitHub's anchor for a heading: markup dropped, lower case, punctuation other than - and
    _ removed, spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)   # a link: its text
    text = text.replace("`", "").replace("*", "")
    text = text.lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        found, seen = set(), {}
        with open(path, encoding="utf-8") as f:
            for line in prose(f.read(), blank_code=False):
                m = HEADING.match(line)
                if m:
                    base = slug(m.group(2))
                    n = seen.get(base, 0)
                    seen[base] = n + 1
                    found.add(base if n == 0 else "{}-{}".format(base, n))
        cache[path] = found
    return cache[path]


def broken(root):
    out = []
    for page in pages(root):
        with open(page, encoding="utf-8") as f:
            lines = prose(f.read())
        for number, line in enumerate(lines, 1):
            for target in LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):      # http:, https:, mailto:
                    continue
                path, _, fragment = target.partition("#")
                where = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
                said = "{}:{}: ({})".format(os.path.relpath(page, root), number, target)
                if not os.path.exists(where):
                    out.append(said + " names no file of the checkout")
                elif fragment and where.endswith(".md") and fragment not in anchors(where):
                    out.append(said + " names no heading of {}".format(os.path.relpath(where, root)))
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.stderr.write("usage: test_doc_links.py ROOT\n")
        sys.exit(2)
    root = os.path.abspath(sys.argv[1])
    problems = broken(root)
    count = sum(1 for _ in pages(root))
    for p in problems:
        print("FAIL  " + p)
    print("{} pages, {} broken link{}".format(count, len(problems), "" if len(problems) == 1 else "s"))
    sys.exit(1 if problems else 0)
