#!/usr/bin/env python3
"""The machine a run measured, as one Python definition: what `bin/cpuinfo --json` says
(docs/contracts.md, "bin/cpuinfo --json"), read from the program or from a saved copy
(results/machine.json, which run_all.sh writes), checked, and given typed access.

    import machine
    m = machine.from_build("build", sizes=[512], threads=[1, 2])   # runs build/bin/cpuinfo --json
    m = machine.load("results/machine.json")
    m.identity.label, m.identity.wisdom_lines      # "Zen 4", ("cpu AuthenticAMD 25 17 Zen 4", "caches ...")
    m.caches                                       # {"L1": 32768, "L2": 1048576, "L3": 33554432}
    m.peak_isas["avx512"].fp32_per_cycle           # 32
    m.step("08_avx512_14x32").tile_of("avx2")      # (6, 16)
    m.step(10).params                              # {"mc": 112, "kc": 704, ...}
    m.step(10).plan(512, 2)                        # {"threads": 2, ...} or None

Standard library only. A file or output that is not such a JSON object is an InputError
(plots/harness_csv.py) whose text names it, on one line. As a program:

    machine.py FILE | --build DIR   [--txt]

checks the JSON and prints nothing (exit 0), or with --txt the lines of results/machine.txt
it describes ("cpu: NAME", "uarch: LABEL"); a malformed JSON: one line, exit 3; a usage
error: exit 2.
"""
import json
import os
import subprocess
import sys
from collections import namedtuple

import cli

from harness_csv import InputError, open_regular, printable

FORMAT = "gemm-steps cpuinfo 1"

Identity = namedtuple("Identity", "name arch vendor family model stepping microarch label wisdom_lines")
PeakIsa = namedtuple("PeakIsa", "name fp32_per_cycle fp64_per_cycle source")


class Step:
    """One registered step: number, slug, parallel, variant (None: not supported here), tile
    ((mr, nr) of that variant, or None), tiles {variant: (mr, nr)}, params {name: value} in
    effect here, tuned_source (None for a step without wisdom), plans {(size, threads): {key: value}}."""

    def __init__(self, number, slug, parallel, variant, tile, tiles, params, tuned_source, plans):
        self.number, self.slug, self.parallel, self.variant = number, slug, parallel, variant
        self.tiles, self.params, self.tuned_source, self.plans = tiles, params, tuned_source, plans
        # A step whose tile is a param of its own (step 10's tile-rows and tile-cols) says it there.
        declared = (params.get("tile-rows", 0), params.get("tile-cols", 0))
        self.tile = (tile or (declared if all(declared) else None)) if variant else None

    def tile_of(self, variant):
        """(mr, nr) of a variant of this step (the one that ran, from a CSV's kernel column), or None."""
        return self.tiles.get(variant) or (self.tile if variant == self.variant else None)

    def plan(self, size, threads):
        """What the step would run for m = n = k = size on `threads` threads, or None when
        cpuinfo was not asked for that product."""
        return self.plans.get((size, threads))


class Machine:
    def __init__(self, identity, caches, caches_source, logical_cpus, physical_cores, os_ghz, features,
                 peak_isas, csv_columns, steps):
        self.identity, self.caches, self.caches_source = identity, caches, caches_source
        self.logical_cpus, self.physical_cores, self.os_ghz = logical_cpus, physical_cores, os_ghz
        self.features, self.peak_isas, self.csv_columns, self.steps = features, peak_isas, csv_columns, steps

    def step(self, key):
        """The step of that number (5) or slug ('05_simd_4x4'), or None."""
        for s in self.steps:
            if s.number == key or s.slug == key:
                return s
        return None

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
                {str: "a string", int: "a whole number", list: "a list", dict: "an object", bool: "true or false"}.get(
                    kind, "a number")))
        return value

    def count(self, obj, key, path):
        value = self.get(obj, key, int, path)
        if value < 0:
            raise InputError("{}: cpuinfo --json's {}{} is {}, below 0".format(self.where, path, key, value))
        return value


def _tile(r, obj, path):
    tile = r.get(obj, "tile", (dict, type(None)), path)
    if tile is None:
        return None
    mr, nr = r.count(tile, "mr", path + "tile."), r.count(tile, "nr", path + "tile.")
    return (mr, nr) if mr > 0 and nr > 0 else None


def _step(r, obj, i):
    path = "steps[{}].".format(i)
    number, slug = r.count(obj, "number", path), r.get(obj, "slug", str, path)
    threading = r.get(obj, "threading", str, path)
    if threading not in ("parallel", "serial"):
        raise InputError("{}: cpuinfo --json's {}threading is {!r}, not parallel or serial".format(r.where, path, threading))
    variant = r.get(obj, "variant", str, path)
    tile = _tile(r, obj, path)
    tiles = {}
    for j, v in enumerate(r.get(obj, "variants", list, path)):
        its = _tile(r, v, "{}variants[{}].".format(path, j))
        if its:
            tiles[r.get(v, "name", str, path + "variants[{}].".format(j))] = its
    params = {}
    for j, p in enumerate(r.get(obj, "params", list, path)):
        where = "{}params[{}].".format(path, j)
        params[r.get(p, "name", str, where)] = r.get(p, "value", int, where)
    tuned = r.get(obj, "tuned", dict, path, optional=True)
    plans = {}
    for j, p in enumerate(r.get(obj, "plans", list, path)):
        where = "{}plans[{}].".format(path, j)
        plan = r.get(p, "plan", dict, where)
        plans[(r.count(p, "size", where), r.count(p, "threads", where))] = dict(plan)
    source = r.get(tuned, "source", str, path + "tuned.") if tuned is not None else None
    return Step(number, slug, threading == "parallel", None if variant == "unsupported" else variant, tile, tiles,
                params, source, plans)


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
    clock = r.get(data, "clock", dict, "")
    ghz = r.get(clock, "os_ghz", (int, float, type(None)), "clock.")
    features = r.get(r.get(data, "features", dict, ""), "names", list, "features.")
    isas = {}
    for j, isa in enumerate(r.get(r.get(data, "peak", dict, ""), "isas", list, "peak.")):
        where_isa = "peak.isas[{}].".format(j)
        name = r.get(isa, "name", str, where_isa)
        isas[name] = PeakIsa(name, r.get(isa, "fp32_per_cycle", (int, float), where_isa),
                             r.get(isa, "fp64_per_cycle", (int, float), where_isa), r.get(isa, "source", str, where_isa))
    columns = r.get(data, "csv_columns", list, "")
    if not columns or not all(isinstance(col, str) for col in columns):
        raise InputError("{}: cpuinfo --json's csv_columns is not a list of names".format(where))
    steps = [_step(r, s, j) for j, s in enumerate(r.get(data, "steps", list, ""))]
    return Machine(identity, caches, r.get(c, "source", str, "caches."), r.count(cpus, "logical", "cpus."),
                   r.count(cpus, "physical_cores", "cpus."), ghz or 0.0, [str(f) for f in features], isas, columns,
                   steps)


def load(path):
    """The Machine of a saved cpuinfo --json (results/machine.json); a results/cpuinfo.txt
    (the human report, which older callers pass) means the machine.json beside it."""
    beside = os.path.join(os.path.dirname(os.path.abspath(path)), "machine.json")
    if os.path.basename(path) == "cpuinfo.txt" and os.path.isfile(beside):
        path = beside
    try:
        with open_regular(path) as f:   # a FIFO: one line, not a wait
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError("{}: cannot read ({})".format(path, getattr(e, "strerror", None) or e))
    return parse(text, path)


def cpuinfo_command(build, sizes=(), threads=()):
    command = [os.path.join(build, "bin", "cpuinfo"), "--json"]
    if sizes:
        command += ["--sizes", ",".join(str(s) for s in sizes)]
    if threads:
        command += ["--threads", ",".join(str(t) for t in threads)]
    return command


def from_build(build, sizes=(), threads=()):
    """The Machine of build/bin/cpuinfo --json, run now (with each step's plan for m = n = k
    in `sizes` on each count in `threads`)."""
    command = cpuinfo_command(build, sizes, threads)
    try:
        # Its own process group, stdin closed: an interrupted caller leaves no cpuinfo behind.
        done = cli.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise InputError("{}: cannot run ({})".format(command[0], getattr(e, "strerror", None) or e))
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or ["exit {}".format(done.returncode)])[-1]
        raise InputError("{}: {}".format(" ".join(command), printable(why)))
    return parse(done.stdout, command[0] + " --json")


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
