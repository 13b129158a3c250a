#!/usr/bin/env python3
"""Sample several executables side by side, spread over the whole run: the one scheduler of
run_all.sh, make step-N, tools/grade.sh, tools/bench_vs_openblas.sh and tools/tune.py.
Options, files and exit status: docs/contracts.md, "Sampled runs"; why it samples this way:
docs/harness.md, "How a run samples".
"""
import csv
import io
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "plots"))
import cli  # noqa: E402  (plots/cli.py: one-line usage errors, children in their own group)
import output_file  # noqa: E402  (plots/output_file.py: every file goes through it)
import samples as stats  # noqa: E402  (plots/samples.py: what is drawn from the samples)
import harness_csv  # noqa: E402  (plots/harness_csv.py: the CSV columns, one list)

PROG = "interleave.py"
SLOW_SAMPLE = 1.0    # seconds: a job whose samples take longer goes first or last at its size
# The extra samples of unsettled sizes: at most EXTRA_SHARE of the rounds' time, spread over
# EXTRA_ROUNDS rounds (why these values: docs/tuning-log.md, "The scheduler's constants").
EXTRA_SHARE, EXTRA_ROUNDS = 1.0, 10
MAX_SAMPLES = 16
# The least share worth() takes: where nearly every sample is disturbed the count must still tell.
WORTH_SHARE = 0.3
# --settle: samples of one size at most, and the seconds between progress lines (terminal, log).
SETTLE_MAX_SAMPLES = 200
PROGRESS_EVERY, PROGRESS_EVERY_LOG = 2.0, 30.0
# The options every sample gets from the scheduler: a job that gives one itself is a usage error.
OURS = ("--sizes", "--warmup", "--reps", "--time-limit", "--csv", "--no-verify")
# Without --timeout, a sample has hung after TIMEOUT_BASE s plus its products' time at TIMEOUT_RATE GFLOPS.
TIMEOUT_BASE, TIMEOUT_RATE = 120.0, 0.1
# Seconds the CSV pipe's reader waits once the job ended (only a child that left its group holds it).
PIPE_WAIT = 5.0


def sample_timeout(size, products=1):
    """The default --timeout at `size` of a run that computes `products` products."""
    return TIMEOUT_BASE + products * 2.0 * size ** 3 / (TIMEOUT_RATE * 1e9)


def worth(share, count, cost):
    """One more sample's worth a second: the chance (1 - share)^count that all `count` samples
    so far fell in a spell (share: plots/samples.py quiet_share), over its cost in seconds."""
    share = min(max(share, WORTH_SHARE), 0.95)
    return (1.0 - share) ** count / max(cost, 1e-3)


class Job:
    def __init__(self, label, command, ref):
        self.label, self.command, self.ref = label, command, ref
        self.header = None          # the harness's columns, from its first sample
        self.rows = []              # every sample, dicts of strings, SAMPLE_COLUMNS included
        self.wall = {}              # size -> [seconds a sample took, start to end]
        self.failed = ""            # why it stopped, when it did
        self.wrong = False          # a result failed verification
        self.skipped = ""           # the CPU cannot run it (exit 77): its one line

    def values(self, size):
        return [float(r["gflops_best"]) for r in self.rows if int(r["m"]) == size]

    def cost(self, size):
        return stats.median(self.wall.get(size) or [0.5])


def parse_job(text, ref):
    label, sep, command = text.partition("=")
    if not sep or not re.match(r"^[A-Za-z0-9_.-]{1,%d}$" % stats.MAX_LABEL, label) or label.startswith("."):
        raise ValueError("'{}': not LABEL=COMMAND with a LABEL of letters, digits, _ . -".format(shown(text, 60)))
    words = shlex.split(command)
    if not words:
        raise ValueError("'{}': no command".format(shown(text, 60)))
    given = [w.partition("=")[0] for w in words[1:] if w.partition("=")[0] in OURS]
    if given:
        raise ValueError("{}: {} is the scheduler's to give (it passes {} to every sample)".format(
            label, given[0], " ".join(OURS)))
    return Job(label, words, ref)


def parse_sizes(text):
    if not re.match(r"^[0-9]{1,9}(,[0-9]{1,9})*$", text):
        raise ValueError("--sizes '{}': not a list of sizes such as 100,200".format(shown(text, 60)))
    sizes = [int(s) for s in text.split(",")]
    for s in sizes:
        if not 1 <= s <= harness_csv.MAX_SIZE:
            raise ValueError("--sizes: {} is not from 1 to {}".format(s, harness_csv.MAX_SIZE))
    return list(dict.fromkeys(sizes))


class Scheduler:
    def __init__(self, args, jobs, sizes, out):
        self.args, self.jobs, self.sizes, self.out = args, jobs, sizes, out
        self.rng = random.Random(args.seed)
        self.run_id = "{}-{}".format(int(time.time()), os.getpid())
        self.round = self.seq = 0
        self.clock = time.monotonic   # a test makes it virtual
        self.started = self.clock()
        self.settle_end = None   # --settle: the clock's time at which sampling ends
        self.said_at = None      # when the progress line was last said

    def live(self):
        return [j for j in self.jobs if not j.failed and not j.skipped]

    def timeout(self, size):
        return self.args.timeout if self.args.timeout is not None else sample_timeout(size)

    def sample(self, job, size):
        """One run of `job` at `size`; its row joins job.rows."""
        verify = not self.args.no_verify and not any(int(r["m"]) == size for r in job.rows)
        command = job.command + ["--sizes", str(size), "--warmup", "0", "--reps", str(self.args.max_reps),
                                 "--time-limit", repr(self.args.sample_time)] + ([] if verify else ["--no-verify"])
        self.seq += 1
        start = time.monotonic()
        timeout = self.timeout(size)
        try:
            done, text = run_piped(command, timeout)
        except subprocess.TimeoutExpired:
            job.failed = "{} at n={} did not finish in {:g} s (--timeout {:g}{})".format(
                job.label, size, timeout, timeout, "" if self.args.timeout is not None else ", the default")
            return
        except OSError as e:
            job.failed = "{} at n={} cannot run: {}".format(job.label, size, e.strerror)
            return
        if done.returncode == -signal.SIGINT:
            raise KeyboardInterrupt   # a SIGINT meant for the run: it ends, not the job
        job.wall.setdefault(size, []).append(time.monotonic() - start)
        line = shown(last_line(done.stderr))
        if done.returncode == 77:
            job.skipped = line or "exit 77"
        elif done.returncode not in (0, 1):
            job.failed = "{} at n={} {}{}".format(job.label, size, how_it_ended(done.returncode),
                                                  " (" + line + ")" if line else "")
        else:
            self.take_row(job, size, done.returncode, text, line)

    def take_row(self, job, size, status, text, line):
        """The row of a sample that exited with `status` (0 or 1) and wrote the CSV `text`."""
        ended = "{} at n={} exited {} but".format(job.label, size, status)
        if not text:
            job.failed = ended + " wrote no CSV"
            return
        try:
            header, rows = stats.rows_of(text)
        except csv.Error as e:
            job.failed = "{} its CSV cannot be read ({})".format(ended, e)
            return
        problem = _not_a_row(header, rows, size)
        if problem:
            job.failed = "{} its CSV is not the contract's: {}".format(ended, problem)
            return
        if job.header is None:
            job.header = header
        for row in rows:
            row.update({"run": self.run_id, "round": str(self.round), "seq": str(self.seq)})
            job.rows.append(row)
            if row["verified"].strip() == "0" and row["max_rel_err"].strip().lower() != "nan":
                job.wrong = True
        if status == 1 and not job.wrong:
            job.failed = "{} at n={} exited with 1{}".format(job.label, size, " (" + line + ")" if line else "")

    def paths(self, job):
        return os.path.join(self.out, job.label + ".csv"), os.path.join(self.out, "samples", job.label + ".csv")

    def save(self, job):
        if job.header is None:
            return
        whole, raw = self.paths(job)
        columns = job.header + [c for c in stats.SAMPLE_COLUMNS if c not in job.header]
        text = io.StringIO()
        writer = csv.DictWriter(text, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        writer.writerows(job.rows)
        output_file.write(raw, text.getvalue())
        output_file.write(whole, stats.aggregate(job.header, job.rows, self.args.tolerance))

    def run_group(self, size, jobs):
        """The jobs at one size, one right after the other: random order, slow ones at an end."""
        jobs = list(jobs)
        self.rng.shuffle(jobs)
        slow = [j for j in jobs if j.cost(size) > SLOW_SAMPLE and size in j.wall]
        fast = [j for j in jobs if j not in slow]
        for job in slow + fast if self.rng.random() < 0.5 else fast + slow:
            if job.failed or job.skipped:
                continue
            self.sample(job, size)
            if job.skipped:
                self.say_skipped(job)
            elif job.failed:
                print("{}: {}".format(PROG, job.failed), file=sys.stderr, flush=True)
        for job in jobs:
            self.save(job)

    def preflight(self):
        """Each job once at n = 8, unverified: the usage errors' lines (found before any sample),
        and a job the CPU cannot run left out now."""
        problems = []
        for job in self.jobs:
            command = job.command + ["--sizes", "8", "--warmup", "0", "--reps", "1", "--no-verify"]
            try:
                done = cli.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               timeout=self.timeout(8))
            except subprocess.TimeoutExpired:
                continue   # the samples will say so
            except OSError as e:
                problems.append("{}: cannot run {}: {}".format(job.label, job.command[0], e.strerror))
                continue
            line = last_line(done.stderr)
            if done.returncode == 2:
                problems.append("{}: {}".format(job.label, line or "exit 2 (usage error)"))
            elif done.returncode == 77:
                job.skipped = line or "exit 77"
                self.say_skipped(job)
        return problems

    def say_skipped(self, job):
        """A job the CPU cannot run (exit 77): said, and no files of it left from an older run."""
        print("   skipped: this CPU cannot run {} ({})".format(job.label, job.skipped), flush=True)
        for path in self.paths(job):
            if os.path.isfile(path):
                os.unlink(path)

    def base_rounds(self):
        for r in range(1, self.args.rounds + 1):
            self.round = r
            start = self.clock()
            sizes = list(self.sizes)
            self.rng.shuffle(sizes)
            for size in sizes:
                self.run_group(size, self.live())
            count = sum(1 for j in self.jobs for row in j.rows if row["round"] == str(r))
            print("   round {} of {}{}: {} samples in {:.0f} s".format(
                r, self.args.rounds, " (every result verified)" if r == 1 and not self.args.no_verify else "",
                count, self.clock() - start), flush=True)

    def extra_budget(self):
        return max(0.0, EXTRA_SHARE * (self.clock() - self.started))

    def shares(self):
        """{job: its quiet share (plots/samples.py)} of the live jobs."""
        return {job: stats.quiet_share([job.values(s) for s in self.sizes], self.args.tolerance) for job in self.live()}

    def unsettled(self):
        """[(gap, job, size)] of the sizes not settled (plots/samples.py), widest gap first."""
        out = []
        for job, share in self.shares().items():
            needed = stats.needed_samples(share)
            for size in self.sizes:
                values = job.values(size)
                if values and not stats.settled(values, self.args.tolerance, needed):
                    out.append((stats.gap(values), job, size))
        out.sort(key=lambda t: -t[0])
        return out

    def extra_rounds(self, budget, rounds=EXTRA_ROUNDS):
        """The unsettled sizes' samples: `rounds` rounds that each spend an equal part of `budget`,
        then rounds that spend what is left, until no size wants more (extra_plan())."""
        start = self.clock()
        spent_samples = r = 0
        while True:
            left = budget - (self.clock() - start)
            plan = self.extra_plan(left / max(1, rounds - r), left) if left > 0 else {}
            if not plan:
                break
            r += 1
            self.round += 1
            sizes = list(plan)
            self.rng.shuffle(sizes)
            for size in sizes:
                if sum(j.cost(size) for j in plan[size]) > budget - (self.clock() - start):
                    continue
                self.run_group(size, plan[size])
                spent_samples += len(plan[size])
                self.progress()
        self.progress(last=True)
        return spent_samples, self.clock() - start

    def progress(self, last=False):
        """--settle: 'settling: S of N sizes settled, M:SS left', in place on a terminal; `last` ends it."""
        if self.settle_end is None:
            return
        tty = sys.stdout.isatty()
        now = self.clock()
        every = PROGRESS_EVERY if tty else PROGRESS_EVERY_LOG
        if (not last and self.said_at is not None and now - self.said_at < every) or (last and self.said_at is None):
            return
        self.said_at = now
        total = sum(1 for job in self.live() for size in self.sizes if job.values(size))
        left = max(0, int(self.settle_end - now))
        line = "   settling: {} of {} sizes settled, {}:{:02d} left".format(
            total - len(self.unsettled()), total, left // 60, left % 60)
        if tty:
            print("\r" + line + "\x1b[K", end="\n" if last else "", flush=True)
        elif not last:
            print(line, flush=True)

    def extra_plan(self, share, left):
        """{size: [jobs]} of one extra round: the unsettled (job, size) worth most a second first,
        each with the --ref jobs on as many threads beside it, within `share` seconds (the first
        even past it, when it fits in `left`)."""
        shares = self.shares()
        wanted = [(j, s) for _, j, s in self.unsettled() if len(j.values(s)) < self.args.max_samples]
        ranked = sorted(wanted, key=lambda t: -worth(shares[t[0]], len(t[0].values(t[1])), t[0].cost(t[1])))
        refs = [j for j in self.live() if j.ref]
        plan, spent = {}, 0.0
        for job, size in ranked:
            group = plan.get(size, [])
            if job in group:
                continue
            adds = [job] + ([r for r in refs if r not in group and _threads(r) == _threads(job)
                             and len(r.values(size)) < self.args.max_samples] if not job.ref else [])
            cost = sum(j.cost(size) for j in adds)
            if spent + cost > (share if plan else left):
                continue
            plan[size] = group + adds
            spent += cost
        return plan

    def report(self):
        """One line per job with sizes left unsettled: how far apart the two best samples are,
        or, where they agree, how many samples a job this often disturbed needs."""
        still = self.unsettled()
        took = ""
        if self.settle_end is not None:
            took = " after {:.0f} s of sampling (--settle {:g})".format(
                self.clock() - (self.settle_end - self.args.settle), self.args.settle)
        tolerance = 100 * self.args.tolerance
        if not still:
            print("   every size settled{}: a second sample within {:.0f} % of the best".format(took, tolerance),
                  flush=True)
            return
        if self.settle_end is not None:
            print("   still unsettled{}, drawn as unsettled: no second sample within {:.0f} % of the best, among "
                  "enough samples, confirmed it:".format(took, tolerance), flush=True)
        else:
            print("   unsettled (the budget ran out before a second sample within {:.0f} % of the best, among "
                  "enough samples, confirmed it):".format(tolerance), flush=True)
        shares = self.shares()
        for job in [j for j in self.jobs if any(t[1] is j for t in still)]:
            needed = stats.needed_samples(shares[job])
            parts = ["{} ({:.0f} % apart)".format(size, 100 * g) if g > self.args.tolerance
                     else "{} ({} of {} samples)".format(size, len(job.values(size)), needed)
                     for g, _, size in sorted((t for t in still if t[1] is job), key=lambda t: t[2])]
            print("     {}: n = {}".format(job.label, ", ".join(parts)), flush=True)


def run_piped(command, timeout):
    """(the finished run of `command`, the CSV it wrote to `--csv /dev/fd/N`, a pipe a thread
    drains as the rows come: no file per sample, and a large CSV cannot block the job)."""
    read_end, write_end = os.pipe()
    chunks = []

    def drain():
        with os.fdopen(read_end, "rb") as pipe:
            chunks.extend(iter(lambda: pipe.read1(65536), b""))

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        done = cli.run(command + ["--csv", "/dev/fd/{}".format(write_end)], stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout, pass_fds=(write_end,))
    finally:
        os.close(write_end)   # the job's copies ended with its group: the reader sees the end
        reader.join(PIPE_WAIT)
    return done, b"".join(chunks).decode("utf-8", "replace")


def last_line(stderr):
    """The last line that is not blank of a child's stderr (bytes), or ""."""
    lines = stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[-1] if lines else ""


def how_it_ended(status):
    """'exited with N' or 'crashed with SIGNAME' of a child's return code."""
    if status > 0:
        return "exited with {}".format(status)
    try:
        return "crashed with " + signal.Signals(-status).name
    except ValueError:
        return "crashed with signal {}".format(-status)


def _not_a_row(header, rows, size):
    """Why a sample's CSV is not one harness row at `size` with a GFLOPS above 0, or ""."""
    missing = [c for c in harness_csv.REQUIRED if c not in header]
    if missing:
        return "no {} column".format(missing[0])
    if len(rows) != 1:
        return "{} rows, not one".format(len(rows))
    row = rows[0]
    try:
        ok = int(row["m"]) == size and int(row["threads"]) >= 1 and 0 < float(row["gflops_best"]) < 1e9 \
            and float(row["gflops_median"]) >= 0
    except (TypeError, ValueError):
        ok = False
    return "" if ok else "not a row of n = {} with a GFLOPS above 0".format(size)


def shown(text, limit=300):
    """A program's line as a message shows it: control characters as '?', at most `limit`."""
    return harness_csv.shown(text.strip(), limit)


def _threads(job):
    """A job's threads, from its first sample (pairs are of as many threads)."""
    return job.rows[0].get("threads") if job.rows else None


def sample_all(scheduler, args):
    """The rounds, the extra samples (within --budget, or until --settle's deadline), the report."""
    if args.settle is not None:
        scheduler.settle_end = scheduler.clock() + args.settle
    scheduler.base_rounds()
    if args.settle is not None:
        budget = max(0.0, scheduler.settle_end - scheduler.clock())
        if budget == 0 and scheduler.unsettled():
            print("   the {} rounds took all of --settle {:g}: no time left for more samples".format(
                args.rounds, args.settle), flush=True)
    else:
        budget = args.budget if args.budget is not None else scheduler.extra_budget()
    if scheduler.unsettled() and budget > 0:
        count, spent = scheduler.extra_rounds(budget)
        print("   more samples where they disagreed: {} in {:.0f} s ({} {:.0f} s)".format(
            count, spent, "time left" if args.settle is not None else "budget", budget), flush=True)
    scheduler.report()


def make_parser():
    parser = cli.Parser(prog=PROG, description="Sample harness executables side by side, "
                        "spread over the run (docs/contracts.md, \"Sampled runs\").")
    add = parser.add_argument
    add("--out", required=True, type=cli.name, help="folder of LABEL.csv and samples/LABEL.csv")
    add("--job", action="append", default=[], metavar="LABEL=COMMAND", help="a job to sample")
    add("--ref", action="append", default=[], metavar="LABEL=COMMAND", help="a library the jobs are compared with")
    add("--sizes", default=",".join(str(n) for n in range(100, 1501, 100)),
        help="square sizes (default 100,200,...,1500)")
    add("--rounds", type=int, default=3, help="samples of every size of every job (default 3)")
    add("--sample-time", type=float, default=0.1, help="seconds of timed calls in one sample (its --time-limit; "
        "default 0.1)")
    add("--max-reps", type=int, default=20, help="at most this many timed calls a sample (20)")
    add("--tolerance", type=float, default=stats.TOLERANCE,
        help="a second sample this close to the best settles a size (default 0.03)")
    add("--max-samples", type=int, help="samples of one size at most (default {}, {} with --settle)".format(
        MAX_SAMPLES, SETTLE_MAX_SAMPLES))
    add("--budget", type=float, help="seconds for the samples of unsettled sizes (default: {:.0f} %% of the rounds' "
        "time)".format(100 * EXTRA_SHARE))
    add("--seed", type=int, help="the order's random seed (default: new each run)")
    add("--no-verify", action="store_true", help="pass --no-verify to every sample")
    add("--timeout", type=float, help="seconds one sample may take; a job still running then has "
        "failed (default: {:.0f} s plus its product's time at {:g} GFLOPS)".format(TIMEOUT_BASE, TIMEOUT_RATE))
    add("--settle", type=float, metavar="S", help="sample what is unsettled until every size settles "
        "or S seconds after the sampling began (instead of --budget)")
    return parser


def checked(args):
    """(jobs, sizes) of the parsed `args`, their defaults filled in; a ValueError is a usage error."""
    jobs = [parse_job(t, False) for t in args.job] + [parse_job(t, True) for t in args.ref]
    sizes = parse_sizes(args.sizes)
    if not jobs:
        raise ValueError("no --job given")
    if args.settle is not None and args.budget is not None:
        raise ValueError("--settle and --budget: give one (--settle S bounds the whole sampling)")
    if args.max_samples is None:
        args.max_samples = SETTLE_MAX_SAMPLES if args.settle is not None else MAX_SAMPLES
    labels = [j.label for j in jobs]
    twice = sorted(set(label for label in labels if labels.count(label) > 1))
    if twice:
        raise ValueError("a label is given twice: {}".format(", ".join(twice)))
    for name, value, lo, hi in (("--rounds", args.rounds, 1, 1000), ("--max-reps", args.max_reps, 1, 1000000),
                                ("--max-samples", args.max_samples, 1, 1000)):
        if not lo <= value <= hi:
            raise ValueError("{} '{}': must be from {} to {}".format(name, value, lo, hi))
    for name, value, lo, hi in (("--sample-time", args.sample_time, 1e-6, 3600), ("--tolerance", args.tolerance, 0, 1),
                                ("--budget", args.budget if args.budget is not None else 0, 0, 1e6),
                                ("--timeout", args.timeout if args.timeout is not None else 1, 1e-3, 1e7),
                                ("--settle", args.settle if args.settle is not None else 1, 1e-3, 1e6)):
        if not lo <= value <= hi:   # NaN too
            raise ValueError("{} '{}': must be from {:g} to {:g}".format(name, value, lo, hi))
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1 << 31)
    return jobs, sizes


def said(text, status):
    """One line on stderr, and the exit status."""
    print("{}: {}".format(PROG, text), file=sys.stderr)
    return status


def stopped(scheduler, jobs, signum):
    """After Ctrl-C (SIGINT) or SIGTERM: every sample taken is kept, the group under way's too,
    and a second signal must not cut the saving short. 130, or ends by SIGTERM."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        for job in jobs:
            scheduler.save(job)
    except output_file.OutputError as e:
        return said(e, 3)
    print("{}{}: {}; the files hold the {} samples taken".format(
        "\n" if sys.stdout.isatty() else "", PROG, "interrupted" if signum == signal.SIGINT else "terminated",
        sum(len(j.rows) for j in jobs)), file=sys.stderr)
    if signum == signal.SIGTERM:
        cli.end_by(signum)
    return 130


def main(argv):
    args = make_parser().parse_args(argv)
    try:
        jobs, sizes = checked(args)
    except ValueError as e:
        return said(e, 2)
    try:
        os.makedirs(os.path.join(args.out, "samples"), exist_ok=True)
    except OSError as e:
        return said("cannot write {}: {}".format(args.out, e.strerror), 3)
    scheduler = Scheduler(args, jobs, sizes, args.out)
    cli.on_sigterm()
    try:
        for job in jobs:
            for path in scheduler.paths(job):
                output_file.check(path)
    except output_file.OutputError as e:
        return said(e, 3)
    print("   {} job{} x {} size{}, {} round{} and more samples where they disagree{} (seed {})".format(
        len(jobs), "s" if len(jobs) > 1 else "", len(sizes), "s" if len(sizes) > 1 else "", args.rounds,
        "s" if args.rounds > 1 else "", "" if args.settle is None else
        ", until every size settles or for at most {:g} s in all".format(args.settle), args.seed), flush=True)
    try:
        problems = scheduler.preflight()
        if problems:
            return said(problems[0], 2)
        sample_all(scheduler, args)
    except (KeyboardInterrupt, cli.Terminated) as e:   # the sample under way died with its group (cli.run)
        return stopped(scheduler, jobs, signal.SIGTERM if isinstance(e, cli.Terminated) else signal.SIGINT)
    except output_file.OutputError as e:
        return said(e, 3)
    for job in jobs:
        if job.wrong:
            said("{}: a result FAILED verification (see its CSV)".format(job.label), 1)
    return 1 if any(j.failed or j.wrong for j in jobs) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
