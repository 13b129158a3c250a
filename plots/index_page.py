#!/usr/bin/env python3
"""results/index.html: the whole run on one static page (run_all.sh writes it last); docs/contracts.md
("Results and targets") says what it holds and in which order.

    index_page.py [--results DIR] [--output PAGE]

No script, nothing from outside; standard library only. Prints the sizes left unsettled, then the page's path.
Exit 0; 2 DIR is not a folder or a file in it cannot be read; 3 PAGE cannot be written.
"""
import argparse
import collections
import csv
import glob
import html
import os
import re
import urllib.parse

import cli
import drawing   # its run(): no matplotlib imported
import output_file
from harness_csv import InputError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PROG = "index_page.py"
# (heading, file-name pattern) in the tutorial's order; a PNG none takes goes under "Other figures".
GROUPS = [("The machine's limits", r"^(bandwidth|peak).*\.png$"),
          ("Step by step", r"^step\d+_.*\.png$"),
          ("Every step at once", r"^overlay.*\.png$"),
          ("The staircase", r"^staircase.*\.png$"),
          ("The roofline", r"^roofline.*\.png$"),
          ("Thread scaling", r"^scaling.*\.png$"),
          ("Block sizes", r"^blockmap_.*\.png$"),
          ("Concepts", r"^concepts/.*\.png$")]
STYLE = """body { font-family: sans-serif; max-width: 1400px; margin: 1em auto; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }
.num { text-align: right; white-space: nowrap; }
.wide { overflow-x: auto; }
.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 1em; }
figure { margin: 0; }
figure img { width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-size: 0.9em; }
.note { color: #a40; }
pre { font-size: 0.8em; overflow-x: auto; }"""


def read_text(path):   # '' when there is none
    if not os.path.isfile(path):
        return ""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError as e:
        raise InputError("{}: cannot read ({})".format(path, e.strerror))


def link(target, page_dir):
    """`target` (a path) as a URL relative to the page's folder (a '#' or space in a name quoted)."""
    return urllib.parse.quote(os.path.relpath(target, page_dir).replace(os.sep, "/"))


def step_page(name):
    """steps/NN_slug/README.md of a figure named stepNN_... or blockmap_stepNN_..., or None."""
    match = re.match(r"^(?:blockmap_)?step(\d+)_", os.path.basename(name))
    if not match:
        return None
    pages = sorted(glob.glob(os.path.join(ROOT, "steps", "{:02d}_*".format(int(match.group(1))), "README.md")))
    return pages[0] if pages else None


def reading_section(name):
    """(docs/reading-plots.md, the anchor of its heading naming this figure or its kind, else ''),
    or (None, None) when there is no such page."""
    guide = os.path.join(ROOT, "docs", "reading-plots.md")
    headings = [l.lstrip("#").strip() for l in read_text(guide).splitlines() if l.startswith("## ")]
    if not headings:
        return None, None
    base = os.path.basename(name)
    found = next((h for wanted in (base, re.split(r"[_.]", base)[0]) for h in headings if wanted in h), "")
    return guide, re.sub(r"[^\w\- ]", "", found.lower()).replace(" ", "-")   # GitHub's anchor of the heading


def figures(folder, since):
    """([(heading, [PNG path relative to folder])], [old PNGs]) of folder/*.png and concepts/*.png,
    in the tutorial's order; a PNG older than `since` (an mtime) is old, left out."""
    pngs = glob.glob(os.path.join(folder, "*.png")) + glob.glob(os.path.join(folder, "concepts", "*.png"))
    found = sorted(os.path.relpath(p, folder).replace(os.sep, "/") for p in pngs)
    old = [p for p in found if since is not None and os.path.getmtime(os.path.join(folder, p)) < since]
    found = [p for p in found if p not in old]
    groups, taken = [], set()
    for heading, pattern in GROUPS + [("Other figures", "")]:   # the last takes every PNG left
        mine = [p for p in found if p not in taken and re.match(pattern, p)]
        if heading == "Step by step":   # by step number, each step's one-thread figure first
            mine.sort(key=lambda p: (int(re.match(r"^step(\d+)", p).group(1)), p))
        taken.update(mine)
        groups.append((heading, mine))
    return [(h, ps) for h, ps in groups if ps], old


def run_csvs(results):   # not samples/
    return sorted(glob.glob(os.path.join(results, "step*.csv"))) + sorted(glob.glob(os.path.join(results, "ref_*.csv")))


def unsettled(results):
    """[(label, threads, [sizes], sizes measured)] of the sizes whose `settled` column is 0."""
    out = []
    for path in run_csvs(results):
        try:
            with open(path, newline="", encoding="utf-8", errors="replace") as f:
                rows = list(csv.DictReader(f))
        except (OSError, csv.Error) as e:
            raise InputError("{}: cannot read ({})".format(path, e))
        by_threads, measured = {}, collections.Counter()
        for row in rows:
            threads = (row.get("threads") or "?").strip()
            measured[threads] += 1
            if (row.get("settled") or "").strip() == "0":
                by_threads.setdefault(threads, []).append((row.get("m") or "?").strip())
        label = os.path.splitext(os.path.basename(path))[0]
        out += [(label, t, sizes, measured[t]) for t, sizes in sorted(by_threads.items())]
    return out


def inline(text):
    """Markdown's `code`, **bold** and *emphasis* in one escaped line."""
    text = html.escape(text, quote=False)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    text = re.sub(r"\*\*(\S[^*]*?)\*\*", r"<strong>\1</strong>", text)
    return re.sub(r"(?<![\w*])\*(\S[^*]*?)\*(?![\w*])", r"<em>\1</em>", text)


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def table(lines):
    """A Markdown table (its lines) as HTML; the second line says each column's alignment."""
    right = [c.endswith(":") for c in cells(lines[1])] if len(lines) > 1 else []

    def row(tag, line):
        return "<tr>" + "".join("<{0}{1}>{2}</{0}>".format(tag, ' class="num"' if i < len(right) and right[i] else "",
                                                           inline(c)) for i, c in enumerate(cells(line))) + "</tr>"
    return ['<div class="wide"><table>', row("th", lines[0])] + [row("td", l) for l in lines[2:]] + ["</table></div>"]


def blocks(text):
    """Markdown as blocks: ('table', lines), ('list', items), ('heading', (level, text)), ('para', text)."""
    out, para = [], []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if para and (not line.strip() or line.startswith(("|", "#", "- "))):
            out.append(("para", " ".join(para)))
            para = []
        kind = "table" if line.startswith("|") else "list" if line.startswith("- ") else None
        if kind:   # a table goes on while its lines follow each other, a list across blank lines
            item = line if kind == "table" else line[2:]
            if out and out[-1][0] == kind and (kind == "list" or lines[i - 1].startswith("|")):
                out[-1][1].append(item)
            else:
                out.append((kind, [item]))
        elif line.startswith("#"):
            out.append(("heading", (len(line) - len(line.lstrip("#")), line.lstrip("#").strip())))
        elif line.strip() and out and out[-1][0] == "list" and line.startswith(" ") and not para:
            out[-1][1][-1] += " " + line.strip()
        elif line.strip():
            para.append(line.strip())
    return out + ([("para", " ".join(para))] if para else [])


def summary_parts(text):
    """(machine rows [(label, value)], HTML lines) of summary.md: its machine table apart, no title."""
    machine, out = [], []
    for kind, value in blocks(text):
        if kind == "table" and cells(value[0])[0].lower() == "machine":
            machine = [tuple((cells(l) + ["", ""])[:2]) for l in value[2:]]
        elif kind == "table":
            out += table(value)
        elif kind == "heading" and value[0] > 1:
            out.append("<h3>{}</h3>".format(inline(value[1])))
        elif kind == "list":
            out += ["<ul>"] + ["<li>{}</li>".format(inline(item)) for item in value] + ["</ul>"]
        elif kind == "para":
            out.append("<p>{}</p>".format(inline(value)))
    return machine, out


def machine_part(results, extra_rows):
    """The machine: machine.txt's lines, the rows of summary.md's machine table it lacks (the
    peak, the sampling), and cpuinfo.txt whole, folded."""
    lines = [line.partition(":") for line in read_text(os.path.join(results, "machine.txt")).splitlines()]
    rows = [(key.strip(), value.strip()) for key, sep, value in lines if sep]
    known = set(v for _, v in rows)
    rows += [(k, v) for k, v in extra_rows if v and v not in known and v != "unknown"]
    out = ["<h2>The machine</h2>"]
    if rows:
        out += ["<table>"] + ["<tr><th>{}</th><td>{}</td></tr>".format(html.escape(k), html.escape(v))
                              for k, v in rows] + ["</table>"]
    else:
        out.append("<p>No machine.txt in this run.</p>")
    cpuinfo = read_text(os.path.join(results, "cpuinfo.txt"))
    if cpuinfo:
        out += ["<details><summary>build/bin/cpuinfo: what this machine has and what each step runs</summary>",
                "<pre>{}</pre></details>".format(html.escape(cpuinfo))]
    return out, dict(rows)


def figure_html(png, page_dir):
    """One figure, linked to its step's page or its section of docs/reading-plots.md."""
    page = step_page(png)
    if page:
        target, text = link(page, page_dir), "the step's page ({})".format(os.path.basename(os.path.dirname(page)))
    else:
        guide, where = reading_section(png) if not png.startswith("concepts/") else (None, None)
        target = link(guide, page_dir) + ("#" + where if where else "") if guide else None
        text = "how to read it (docs/reading-plots.md)"
    caption = "<code>{}</code>".format(html.escape(png))
    if target:
        caption += ': <a href="{}">{}</a>'.format(html.escape(target), html.escape(text))
    return '<figure><a href="{0}"><img src="{0}" alt="{2}"></a><figcaption>{1}</figcaption></figure>'.format(
        html.escape(urllib.parse.quote(png)), caption, html.escape(png))


def figure_part(results, page_dir):
    """The figures' sections (the PNGs in page_dir), then notes of old PNGs and missing figures."""
    machine = os.path.join(results, "machine.txt")
    groups, old = figures(page_dir, os.path.getmtime(machine) if os.path.isfile(machine) else None)
    shown = set(p for _, ps in groups for p in ps)
    out = []
    for heading, pngs in groups:
        out += ["<h2>{}</h2>".format(html.escape(heading)), '<div class="figures">']
        out += [figure_html(png, page_dir) for png in pngs] + ["</div>"]
    drawn_from = [os.path.splitext(os.path.basename(p))[0] + ".png" for p in run_csvs(results)]
    missing = [p for p in drawn_from if p.startswith("step") and p not in shown]
    notes = []
    if missing:
        notes.append("Not drawn in this run (a CSV without its figure): {}.".format(", ".join(missing)))
    if old:
        notes.append("Left out, older than this run's machine.txt (figures of an earlier run): {}.".format(
            ", ".join(old)))
    if not groups:
        notes.append("No figures: this run drew none (matplotlib missing?).")
    return out + ['<p class="note">{}</p>'.format(html.escape(n)) for n in notes]


def render(results, page_dir):
    """The page's text, and the unsettled sizes as unsettled() gives them."""
    extra, summary_html = summary_parts(read_text(os.path.join(results, "summary.md")))
    machine_html, machine = machine_part(results, extra)
    still = unsettled(results)
    title = "SGEMM step by step: the run on {}{}".format(
        machine.get("uarch") or machine.get("cpu") or "this machine",
        ", " + machine["date"] if machine.get("date") else "")
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           "<title>{}</title>".format(html.escape(title)), "<style>", STYLE, "</style></head><body>",
           "<h1>{}</h1>".format(html.escape(title))] + machine_html
    out += ["<h2>Summary</h2>"] + (summary_html or ["<p>No summary.md in this run.</p>"])
    if still:
        out += ["<h3>Not settled</h3>", "<p>No second sample confirmed these sizes before the sampling ended: "
                "their points are drawn as unsettled, and their numbers are uncertain by as much as "
                "their samples disagree.</p>", "<ul>"]
        out += ["<li><code>{}</code> ({} thread{}): {}</li>".format(
            html.escape(label), html.escape(t), "" if t == "1" else "s",
            "every size" if len(sizes) == count else "n = " + html.escape(", ".join(sizes)))
            for label, t, sizes, count in still]
        out.append("</ul>")
    return "\n".join(out + figure_part(results, page_dir) + ["</body></html>"]) + "\n", still


def main(argv):
    parser = argparse.ArgumentParser(prog=PROG, description="The whole run on one static page.")
    parser.add_argument("--results", default=os.path.join(ROOT, "results"), help="the run's folder (results/)")
    parser.add_argument("--output", help="the page (default RESULTS/index.html); its folder holds the figures")
    args = parser.parse_args(argv)
    page = os.path.abspath(args.output or os.path.join(args.results, "index.html"))

    def write_page():
        if not os.path.isdir(args.results):
            raise InputError("{}: no such folder".format(args.results))
        output_file.check(page)
        text, still = render(args.results, os.path.dirname(page))
        output_file.write(page, text)
        if still:   # sizes unsettled of sizes measured, a curve each; the page lists the sizes
            print("   not settled (drawn hollow; the page lists the sizes): " + ", ".join(
                "{}{} {}/{}".format(label, "" if t == "1" else " ({} threads)".format(t), len(sizes), count)
                for label, t, sizes, count in still))
        print("   the whole run on one page: {}".format(page))
        return 0
    return drawing.run(PROG, write_page)   # bad input: 2; a page that cannot be written: 3


if __name__ == "__main__":
    cli.main_of(main, "index_page.py")
