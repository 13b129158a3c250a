#!/usr/bin/env python3
"""The machine a run measured: what `bin/cpuinfo --json` says (docs/contracts.md, "bin/cpuinfo --json"),
from the program or a saved copy (results/machine.json), checked and given typed access:

    m = machine.from_build("build", sizes=[512], threads=[1, 2])   # or machine.load("results/machine.json")
    m.identity.label, m.caches["L2"], m.peak_isas["avx512"].fp32_per_cycle, m.step(10).plans[(512, 2)]

Standard library only. Malformed input is an InputError (plots/harness_csv.py) naming it, on one line.
As a program, `machine.py FILE | --build DIR [--txt]` checks the JSON and prints nothing, or with --txt
results/machine.txt's "cpu:" and "uarch:" lines; exit 0, 3 malformed JSON (one line), 2 usage error.
"""
import json
import os
import subprocess
import sys
from collections import namedtuple

import cli

from harness_csv import InputError, open_regular, printable

FORMAT = "gemm-steps cpuinfo 1"
KINDS = {str: "a string", int: "a whole number", list: "a list", dict: "an object", bool: "true or false"}

Identity = namedtuple("Identity", "name arch vendor family model stepping microarch label wisdom_lines")
PeakIsa = namedtuple("PeakIsa", "name fp32_per_cycle fp64_per_cycle source")


class Step(namedtuple("Step", "number slug parallel variant tile tiles params tuned_source plans")):
    """A registered step; variant None: not supported here; tile: (mr, nr) of that variant;
    tiles: {variant: (mr, nr)}; plans: {(size, threads): plan}; tuned_source None: no wisdom."""

    def tile_of(self, variant):
        """(mr, nr) of a variant of this step (the one a CSV's kernel column names), or None."""
        return self.tiles.get(variant) or (self.tile if variant == self.variant else None)


class Machine(namedtuple("Machine", "identity caches caches_source logical_cpus physical_cores os_ghz features "
                                    "peak_isas csv_columns steps")):
    def step(self, key):
        """The step of that number (5) or slug ('05_simd_4x4'), or None."""
        return next((s for s in self.steps if s.number == key or s.slug == key), None)

    def txt_lines(self):
        """results/machine.txt's lines about the CPU."""
        return ["cpu: " + printable(self.identity.name), "uarch: " + printable(self.identity.label)]


class _Reader:
    """Typed fields of the JSON, each problem an InputError naming the source and the field."""

    def __init__(self, where):
        self.where = where

    def get(self, obj, key, kind, path, optional=False):
        if not isinstance(obj, dict) or key not in obj:
            if optional:
                return None
            raise InputError("{}: not cpuinfo --json output (no {}{})".format(self.where, path, key))
        value = obj[key]
        # bool is an int to Python: a number must not be true or false
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise InputError("{}: cpuinfo --json's {}{} is {!r}, not {}".format(
                self.where, path, key, value if not isinstance(value, (dict, list)) else type(value).__name__,
                KINDS.get(kind, "a number")))
        return value

    def count(self, obj, key, path):
        value = self.get(obj, key, int, path)
        if value < 0:
            raise InputError("{}: cpuinfo --json's {}{} is {}, below 0".format(self.where, path, key, value))
        return value

    def each(self, obj, key, path):
        """[(its path, item)] of a list field."""
        return [("{}{}[{}].".format(path, key, j), item) for j, item in enumerate(self.get(obj, key, list, path))]


def _tile(r, obj, path):
    tile = r.get(obj, "tile", (dict, type(None)), path)
    if tile is None:
        return None
    mr, nr = r.count(tile, "mr", path + "tile."), r.count(tile, "nr", path + "tile.")
    return (mr, nr) if mr > 0 and nr > 0 else None


def _step(r, obj, path):
    number, slug = r.count(obj, "number", path), r.get(obj, "slug", str, path)
    threading = r.get(obj, "threading", str, path)
    if threading not in ("parallel", "serial"):
        raise InputError("{}: cpuinfo --json's {}threading is {!r}, not parallel or serial".format(
            r.where, path, threading))
    variant = r.get(obj, "variant", str, path)
    tile = _tile(r, obj, path)
    tiles = {}
    for where, v in r.each(obj, "variants", path):
        its = _tile(r, v, where)
        if its:
            tiles[r.get(v, "name", str, where)] = its
    params = {r.get(p, "name", str, where): r.get(p, "value", int, where) for where, p in r.each(obj, "params", path)}
    tuned = r.get(obj, "tuned", dict, path, optional=True)
    plans = {}
    for where, p in r.each(obj, "plans", path):
        plan = r.get(p, "plan", dict, where)
        plans[(r.count(p, "size", where), r.count(p, "threads", where))] = dict(plan)
    source = r.get(tuned, "source", str, path + "tuned.") if tuned is not None else None
    variant = None if variant == "unsupported" else variant
    # A step whose tile is a param of its own (step 10's tile-rows and tile-cols) says it there.
    declared = (params.get("tile-rows", 0), params.get("tile-cols", 0))
    tile = (tile or (declared if all(declared) else None)) if variant else None
    return Step(number, slug, threading == "parallel", variant, tile, tiles, params, source, plans)


def parse(text, where):
    """The Machine a cpuinfo --json text describes; `where` names it in errors."""
    try:
        data = json.loads(text)
    except ValueError as e:
        raise InputError("{}: not JSON ({})".format(where, printable(e)))
    r = _Reader(where)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError("{}: not cpuinfo --json output (no \"format\": \"{}\")".format(where, FORMAT))
    i = r.get(data, "identity", dict, "")
    lines = r.get(i, "wisdom_lines", list, "identity.")
    if len(lines) != 2 or not all(isinstance(line, str) for line in lines):
        raise InputError("{}: cpuinfo --json's identity.wisdom_lines is not two lines".format(where))
    identity = Identity(*(r.get(i, key, str, "identity.") for key in ("name", "arch", "vendor")),
                        *(r.count(i, key, "identity.") for key in ("family", "model", "stepping")),
                        r.get(i, "microarch", str, "identity."), r.get(i, "label", str, "identity."), tuple(lines))
    c = r.get(data, "caches", dict, "")
    caches = {"L1": r.count(c, "l1d", "caches."), "L2": r.count(c, "l2", "caches."), "L3": r.count(c, "l3", "caches.")}
    cpus = r.get(data, "cpus", dict, "")
    ghz = r.get(r.get(data, "clock", dict, ""), "os_ghz", (int, float, type(None)), "clock.")
    features = r.get(r.get(data, "features", dict, ""), "names", list, "features.")
    isas = {}
    for at, isa in r.each(r.get(data, "peak", dict, ""), "isas", "peak."):
        name = r.get(isa, "name", str, at)
        isas[name] = PeakIsa(name, r.get(isa, "fp32_per_cycle", (int, float), at),
                             r.get(isa, "fp64_per_cycle", (int, float), at), r.get(isa, "source", str, at))
    columns = r.get(data, "csv_columns", list, "")
    if not columns or not all(isinstance(col, str) for col in columns):
        raise InputError("{}: cpuinfo --json's csv_columns is not a list of names".format(where))
    steps = [_step(r, s, at) for at, s in r.each(data, "steps", "")]
    return Machine(identity, caches, r.get(c, "source", str, "caches."), r.count(cpus, "logical", "cpus."),
                   r.count(cpus, "physical_cores", "cpus."), ghz or 0.0, [str(f) for f in features], isas, columns,
                   steps)


def load(path):
    """The Machine of a saved cpuinfo --json; a results/cpuinfo.txt (the human report, which older
    callers pass) means the machine.json beside it."""
    beside = os.path.join(os.path.dirname(os.path.abspath(path)), "machine.json")
    if os.path.basename(path) == "cpuinfo.txt" and os.path.isfile(beside):
        path = beside
    try:
        with open_regular(path) as f:   # a FIFO: one line, not a wait
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError("{}: cannot read ({})".format(path, getattr(e, "strerror", None) or e))
    return parse(text, path)


def from_build(build, sizes=(), threads=()):
    """The Machine of build/bin/cpuinfo --json, run now (with each step's plan for m = n = k in
    `sizes` on each count in `threads`)."""
    command = [os.path.join(build, "bin", "cpuinfo"), "--json"]
    for option, values in (("--sizes", sizes), ("--threads", threads)):
        if values:
            command += [option, ",".join(str(v) for v in values)]
    return parse(run_tool(command, timeout=120), command[0] + " --json")


def run_tool(command, timeout=None):
    """`command`'s output; it failing to run or to exit 0 is an InputError with its last line of stderr."""
    try:
        # Its own process group, stdin closed: an interrupted caller leaves no child behind.
        done = cli.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise InputError("{}: cannot run ({})".format(command[0], getattr(e, "strerror", None) or e))
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or ["exit {}".format(done.returncode)])[-1]
        raise InputError("{}: {}".format(" ".join(command), printable(why)))
    return done.stdout


def main(argv):
    import argparse
    parser = argparse.ArgumentParser(prog="machine.py", description="Check a cpuinfo --json description.")
    parser.add_argument("file", nargs="?", help="a saved cpuinfo --json (results/machine.json)")
    parser.add_argument("--build", help="run BUILD/bin/cpuinfo --json instead")
    parser.add_argument("--txt", action="store_true", help="print machine.txt's cpu: and uarch: lines")
    args = parser.parse_args(argv)
    if (args.file is None) == (args.build is None):
        parser.error("give a FILE or --build DIR")
    try:
        m = load(args.file) if args.file else from_build(args.build)
    except InputError as e:
        print("machine.py: {}".format(e), file=sys.stderr)
        return 3
    if args.txt:
        print("\n".join(m.txt_lines()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
