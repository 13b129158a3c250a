"""What the interrupt tests share: the end of a signalled run, and the clean-up after it.

Standard library only; imported by tests/test_interrupts.py, test_tool_interrupts.py and
test_plot_interrupts.py from their own folder.
"""
import os
import signal
import subprocess
import time


def ended(p, timeout=30):
    """(stdout, stderr, seconds) of `p` (the leader of its own session) once it ends; past
    `timeout` its whole group is killed, so that a run that ignored the signal cannot hang
    the test."""
    start = time.monotonic()
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
    return out, err, time.monotonic() - start


def kill_left(pids):
    """SIGKILL to each process left behind (the test reports them; the next case must not see
    them). A child killed at its parent's end needs a moment to be gone: the caller waits."""
    for pid in pids:
        try:
            os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass
