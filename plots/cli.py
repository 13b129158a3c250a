"""The command-line rules the Python tools share (docs/contracts.md, "Exit status"):

  - Parser: argparse whose usage errors, its own type errors included, are one line on
    stderr, "PROG: MESSAGE", and exit 2 (argparse's own prints the whole usage first); name,
    the type of a path option, refuses an empty one.
  - run(): a child in its own process group, so that a timeout, Ctrl-C or SIGTERM ends the
    child and whatever it started (a job script's own children), never leaving one behind.
  - on_sigterm(): SIGTERM raised as Terminated, so that what a program does on Ctrl-C (stop
    its children, keep what it measured) runs on a kill too; end_by() then ends it by the
    signal, as its default action would.
  - interrupted(): Ctrl-C's one line and exit 130, for a script's main (no traceback);
    main_of(): a script's entry with both rules.

Standard library only (Python 3.7+).
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys


class Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, "{}: {}\n".format(self.prog, message.replace("\n", " ")))


def name(text):
    """argparse's type of a file or folder name: an empty one is a usage error, never the
    default's stand-in nor the working folder."""
    if not text:
        raise argparse.ArgumentTypeError("'': an empty name")
    return text


class Terminated(BaseException):
    """SIGTERM, raised where the program is (a BaseException, like KeyboardInterrupt)."""


def _raise_terminated(signum, frame):
    raise Terminated()


def on_sigterm():
    """From now on SIGTERM raises Terminated (call it after anything that sets its own handler,
    such as plots/output_file.py's scratch_folder())."""
    signal.signal(signal.SIGTERM, _raise_terminated)


def end_by(signum, scratch=()):
    """Remove the folders in `scratch`, then end by `signum` as its default action would."""
    for path in scratch:
        shutil.rmtree(path, ignore_errors=True)
    sys.stdout.flush()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def kill_group(process):
    """SIGKILL to the whole group `process` leads (not reaped yet, so its id is still that
    group's), then reap it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        pass
    process.wait()


def run(command, timeout=None, **options):
    """subprocess.run(command, timeout=timeout, **options), the child the leader of a new
    session: on a timeout, Ctrl-C, SIGTERM (Terminated) or any other exception the whole group
    is killed and reaped before it is raised."""
    process = None
    try:
        # Ctrl-C and SIGTERM wait while the child is made (they would leave it unnamed, and
        # it does not see a terminal's Ctrl-C); the child gets the mask it would have had.
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        try:
            process = subprocess.Popen(command, start_new_session=True,
                                       preexec_fn=lambda: signal.pthread_sigmask(signal.SIG_SETMASK, held),
                                       **options)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
        out, err = process.communicate(timeout=timeout)
    except BaseException:
        if process is not None:
            kill_group(process)
        raise
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def interrupted(prog, what=""):
    """Ctrl-C's line ("PROG: interrupted", then `what`) and its exit status, 130."""
    print("{}{}: interrupted{}".format("\n" if sys.stderr.isatty() else "", prog, what), file=sys.stderr)
    return 130


def main_of(main, prog, what=""):
    """Exit with main(sys.argv[1:])'s status; Ctrl-C: interrupted()'s line and 130; SIGTERM:
    ended by it. What was being written through plots/output_file.py is left as it was."""
    on_sigterm()
    try:
        status = main(sys.argv[1:])
    except KeyboardInterrupt:
        status = interrupted(prog, what)
    except Terminated:
        end_by(signal.SIGTERM)
    sys.exit(status)
