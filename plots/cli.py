"""The command-line rules the Python tools share (docs/contracts.md, "Exit status"): one-line usage errors
(exit 2), children in their own process group, SIGTERM raised as Terminated, Ctrl-C as exit 130.
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys


class Parser(argparse.ArgumentParser):
    """argparse whose usage errors are one line, "PROG: MESSAGE", exit 2 (not the whole usage)."""

    def error(self, message):
        self.exit(2, "{}: {}\n".format(self.prog, message.replace("\n", " ")))


def name(text):
    """argparse type of a file or folder name: an empty one is a usage error, never the working folder."""
    if not text:
        raise argparse.ArgumentTypeError("'': an empty name")
    return text


class Terminated(BaseException):
    """SIGTERM, raised where the program is (a BaseException, like KeyboardInterrupt)."""


def _raise_terminated(signum, frame):
    raise Terminated()


def on_sigterm():
    """From now on SIGTERM raises Terminated (call it after anything that sets its own handler)."""
    signal.signal(signal.SIGTERM, _raise_terminated)


def end_by(signum, scratch=()):
    for path in scratch:
        shutil.rmtree(path, ignore_errors=True)
    sys.stdout.flush()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def run(command, timeout=None, **options):
    """subprocess.run() in a new session: on any exception the whole group is killed and reaped first."""
    process = None
    try:
        # Ctrl-C and SIGTERM wait while the child is made (they would leave it unnamed); the child gets the old mask.
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        try:
            process = subprocess.Popen(command, start_new_session=True,
                                       preexec_fn=lambda: signal.pthread_sigmask(signal.SIG_SETMASK, held),
                                       **options)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
        out, err = process.communicate(timeout=timeout)
    except BaseException:
        if process is not None:   # not reaped yet, so its id is still the group's: SIGKILL to it, then reap
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except OSError:
                pass
            process.wait()
        raise
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def interrupted(prog, what=""):
    """Ctrl-C's line ("PROG: interrupted", then `what`) and its exit status, 130."""
    print("{}{}: interrupted{}".format("\n" if sys.stderr.isatty() else "", prog, what), file=sys.stderr)
    return 130


def main_of(main, prog, what=""):
    """Exit with main(sys.argv[1:])'s status; Ctrl-C: interrupted()'s line and 130; SIGTERM: ended by it."""
    on_sigterm()
    try:
        status = main(sys.argv[1:])
    except KeyboardInterrupt:
        status = interrupted(prog, what)
    except Terminated:
        end_by(signal.SIGTERM)
    sys.exit(status)
