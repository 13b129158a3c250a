"""plots/output_file.py, the Python scripts' writer, keeps gemm::OutputFile's rules: a regular file
replaced whole (through a symbolic link, which stays), a FIFO or device written through and never
replaced, nothing created or changed by check(), a failed write leaving the old file and no
temporary behind; and the scripts exit 3 with one line naming a path they cannot write.

    test_output_file.py PATH/TO/plots     (any Python 3: the module needs the standard library only)
"""
import os
import resource
import signal
import stat
import subprocess
import sys
import tempfile
import threading

NOBODY = 65534


def main():
    plots = sys.argv[1]
    sys.path.insert(0, plots)
    import output_file
    from output_file import OutputError
    failures = []

    def expect(condition, what):
        if not condition:
            failures.append(what)

    def read(path):
        with open(path, "rb") as f:
            return f.read()

    def refused(call, path, what):
        """call() raises OutputError, one line naming `path`."""
        try:
            call()
        except OutputError as e:
            expect(path in str(e) and "\n" not in str(e), "{}: message {!r} does not name {}".format(what, str(e), path))
            return
        failures.append("{}: no OutputError".format(what))

    def in_child(body):
        """Runs body() in a forked child (limits or another user of its own); its exit status."""
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            try:
                os._exit(body())
            except BaseException as e:
                print("child: {!r}".format(e), file=sys.stderr)
                os._exit(99)
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) if hasattr(os, "waitstatus_to_exitcode") \
            else os.waitpid(pid, 0)[1] >> 8

    def own_device(folder, name):
        """A character device of the test's own ("null" or "full"): run as root, a writer that
        renamed over its path would otherwise replace the system's. Another user cannot make
        one, nor replace /dev's: that one is used. None: root that cannot make devices."""
        path = os.path.join(folder, "dev_" + name)
        try:
            os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3 if name == "null" else 7))
            return path
        except OSError:
            return None if os.geteuid() == 0 else "/dev/" + name

    def is_device(path):
        return stat.S_ISCHR(os.lstat(path).st_mode)

    with tempfile.TemporaryDirectory() as d:
        os.chmod(d, 0o755)   # another user (the read-only case) must reach its folders

        # A regular file: created with the mode a plain create gives, replaced keeping its
        # own, str or bytes; no temporary left, and nobody else's "NAME.tmp" touched.
        path = os.path.join(d, "res.csv")
        with open(path + ".tmp", "w") as f:
            f.write("not ours\n")
        output_file.write(path, "first\n")
        mask = os.umask(0)
        os.umask(mask)
        expect(stat.S_IMODE(os.stat(path).st_mode) == 0o666 & ~mask, "a new file's mode: {:o}".format(os.stat(path).st_mode))
        os.chmod(path, 0o640)
        output_file.write(path, b"a\nb\n")
        expect(read(path) == b"a\nb\n", "regular file: contents {!r}".format(read(path)))
        expect(stat.S_IMODE(os.stat(path).st_mode) == 0o640, "the old file's mode is kept")
        expect(os.path.exists(path + ".tmp") and read(path + ".tmp") == b"not ours\n", "res.csv.tmp, not ours, was changed")
        expect(sorted(os.listdir(d)) == ["res.csv", "res.csv.tmp"], "files left: {}".format(os.listdir(d)))
        if os.path.exists(path + ".tmp"):
            os.unlink(path + ".tmp")

        # A symbolic link stays; its target gets the contents, even one not there yet.
        os.symlink("res.csv", os.path.join(d, "link.csv"))
        output_file.write(os.path.join(d, "link.csv"), "through the link\n")
        expect(os.path.islink(os.path.join(d, "link.csv")), "the symbolic link was replaced")
        expect(read(path) == b"through the link\n", "the link's target: {!r}".format(read(path)))
        os.symlink(os.path.join(d, "made.csv"), os.path.join(d, "dangling.csv"))
        output_file.write(os.path.join(d, "dangling.csv"), "made\n")
        expect(os.path.islink(os.path.join(d, "dangling.csv")) and read(os.path.join(d, "made.csv")) == b"made\n",
               "a dangling link: its target is made, the link stays")

        # A FIFO is written through and stays a FIFO; check() does not open it (that would wait
        # for a reader, then end the reader's input).
        fifo = os.path.join(d, "pipe")
        os.mkfifo(fifo)
        checked = []
        checker = threading.Thread(target=lambda: checked.append(output_file.check(fifo)), daemon=True)
        checker.start()
        checker.join(5)
        if checker.is_alive():
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))   # lets a waiting open() go on
        expect(checked == [None], "check() of a FIFO without a reader did not return")
        received = []

        def reader():
            received.append(read(fifo))
        thread = threading.Thread(target=reader, daemon=True)
        thread.start()
        output_file.write(fifo, "header\nrow\n")
        thread.join(5)
        if thread.is_alive():   # nothing ever opened the FIFO to write: let the reader go
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            thread.join(5)
        expect(received == [b"header\nrow\n"], "the FIFO's reader got {!r}".format(received))
        expect(stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced")

        # Devices: written through, never replaced; a full one is an error naming it.
        null, full = own_device(d, "null"), own_device(d, "full")
        if null:
            output_file.write(null, "x\n")
            output_file.check(null)
            expect(is_device(null), "{} was replaced".format(null))
        if full:
            refused(lambda: output_file.write(full, "x\n"), full, "a full device")
            expect(is_device(full), "{} was replaced".format(full))

        # /dev/stdout: after what the program printed, not over it, even redirected to a file.
        printed = os.path.join(d, "stdout.txt")
        with open(printed, "w") as out:
            r = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); import output_file; "
                                "print('progress'); output_file.write('/dev/stdout', 'a,b\\n')", plots], stdout=out)
        expect(r.returncode == 0 and read(printed) == b"progress\na,b\n",
               "/dev/stdout: exit {}, {!r}".format(r.returncode, read(printed)))

        # Refused, by check() and write(), with nothing created: a folder that is not there, a
        # folder as the path, a link into a folder that is not there.
        before = sorted(os.listdir(d))
        for bad, what in ((os.path.join(d, "no", "x.csv"), "a missing folder"), (d, "a folder"),
                          (os.path.join(d, "into_nothing.csv"), "a link into a missing folder")):
            if what.startswith("a link"):
                os.symlink(os.path.join(d, "no", "y.csv"), bad)
                before = sorted(os.listdir(d))
            refused(lambda: output_file.check(bad), bad, "check(): " + what)
            refused(lambda: output_file.write(bad, "x\n"), bad, "write(): " + what)
        expect(sorted(os.listdir(d)) == before, "refusing created files: {}".format(sorted(os.listdir(d))))

        # A write that fails (a file size limit, as a full disk): the old file as it was, no
        # temporary left.
        def too_big():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
            try:
                output_file.write(path, "x" * 100000)
            except OutputError as e:
                return 3 if path in str(e) else 4
            return 0
        output_file.write(path, "old contents\n")
        files = sorted(os.listdir(d))
        expect(in_child(too_big) == 3, "a write beyond the file size limit did not raise OutputError naming the path")
        expect(read(path) == b"old contents\n", "a failed write changed the old file: {!r}".format(read(path)[:40]))
        expect(sorted(os.listdir(d)) == files, "a failed write left {}".format(sorted(set(os.listdir(d)) - set(files))))

        # Ctrl-C (or SIGTERM raised as an exception) in the middle of the write, or just
        # before the rename: raised as it came, the old file as it was, no temporary left.
        def interrupt(*args, **kwargs):
            raise KeyboardInterrupt()
        for name in ("write", "replace"):
            real = getattr(os, name)
            setattr(os, name, interrupt)
            try:
                output_file.write(path, "new contents\n")
                raised = None
            except BaseException as e:
                raised = e
            finally:
                setattr(os, name, real)
            expect(isinstance(raised, KeyboardInterrupt), "Ctrl-C during os.{}: raised {!r}".format(name, raised))
            expect(read(path) == b"old contents\n", "Ctrl-C during os.{} changed the old file".format(name))
            expect(sorted(os.listdir(d)) == files, "Ctrl-C during os.{} left {}".format(
                name, sorted(set(os.listdir(d)) - set(files))))

        # A read-only folder (root writes anywhere: that case runs as nobody).
        locked = os.path.join(d, "locked")
        os.mkdir(locked)
        with open(os.path.join(locked, "old.csv"), "w") as f:
            f.write("old\n")
        os.chmod(locked, 0o555)

        def read_only():
            if os.geteuid() == 0:
                os.setgid(NOBODY)
                os.setuid(NOBODY)
            codes = 0
            for name, bit in (("new.csv", 1), ("old.csv", 2)):
                target = os.path.join(locked, name)
                for call in (lambda: output_file.check(target), lambda: output_file.write(target, "x\n")):
                    try:
                        call()
                        codes |= bit
                    except OutputError as e:
                        if target not in str(e):
                            codes |= 4
            return codes
        expect(in_child(read_only) == 0, "a read-only folder: check() or write() did not refuse")
        expect(sorted(os.listdir(locked)) == ["old.csv"] and read(os.path.join(locked, "old.csv")) == b"old\n",
               "a read-only folder was changed: {}".format(os.listdir(locked)))
        os.chmod(locked, 0o755)

        # A name near the limit on one name (NAME_MAX, 255): the temporary beside it, .NAME.XXXXXX,
        # must still fit (a legal 250-character name failed with "File name too long").
        limit = os.pathconf(d, "PC_NAME_MAX")
        for length in (limit - 5, limit):
            long_name = os.path.join(d, "L" * (length - 4) + ".csv")
            before = sorted(os.listdir(d))
            try:
                output_file.check(long_name)
                output_file.write(long_name, "long\n")
                output_file.write(long_name, "longer\n")
                expect(read(long_name) == b"longer\n", "a {}-character name: contents {!r}".format(length, read(long_name)))
                os.unlink(long_name)
            except OutputError as e:
                failures.append("a {}-character name: {}".format(length, e))
            expect(sorted(os.listdir(d)) == before, "a {}-character name left {}".format(
                length, sorted(set(os.listdir(d)) - set(before))))

        # Standard output that cannot be written (> /dev/full): exit 3 and one line, not a
        # traceback, from any script (importing output_file is enough) and from summary.py.
        full = own_device(d, "full") or ("/dev/full" if os.path.exists("/dev/full") else None)   # only redirected to
        if full:
            script = "import sys; sys.path.insert(0, sys.argv[1]); import output_file; print('x' * {})"
            for size in (10, 100000):   # written at exit, or while running
                with open(full, "w") as out:
                    r = subprocess.run([sys.executable, "-c", script.format(size), plots], stdout=out,
                                       stderr=subprocess.PIPE, universal_newlines=True)
                lines = r.stderr.strip().splitlines()
                expect(r.returncode == 3 and len(lines) == 1 and "standard output" in lines[0],
                       "{} characters to a full standard output: exit {}, {!r}".format(size, r.returncode, r.stderr[-300:]))

        # A scratch folder (a script's working files) is removed however the script ends: at
        # exit, by SIGPIPE (a reader gone: still ended by SIGPIPE, with no traceback), by
        # SIGTERM (still ended by it) and on exit 3 (standard output full).
        scratch = ("import os, sys, time; sys.path.insert(0, sys.argv[1]); import output_file\n"
                   "path = output_file.scratch_folder('test_scratch.')\n"
                   "open(os.path.join(path, 'sample.csv'), 'w').write('x')\n"
                   "sys.stderr.write(path + '\\n'); sys.stderr.flush()\n"
                   "if sys.argv[2] == 'pipe':\n"
                   "    while True: print('a line', flush=True)\n"
                   "if sys.argv[2] == 'term': time.sleep(60)\n"
                   "if sys.argv[2] == 'full': print('x' * 100000)\n")
        endings = [("exit", 0), ("pipe", -signal.SIGPIPE), ("term", -signal.SIGTERM)] + ([("full", 3)] if full else [])
        for how, status in endings:
            out = open(full, "w") if how == "full" else subprocess.PIPE
            p = subprocess.Popen([sys.executable, "-c", scratch, plots, how], stdout=out, stderr=subprocess.PIPE,
                                 universal_newlines=True)
            path = p.stderr.readline().strip()
            if how == "pipe":
                p.stdout.readline()
                p.stdout.close()
            elif how == "term":
                p.send_signal(signal.SIGTERM)
            p.wait()
            rest = p.stderr.read()
            if how == "exit":
                p.stdout.close()
            if how == "full":
                out.close()
            expect(path.startswith(tempfile.gettempdir()) and p.returncode == status and not os.path.exists(path)
                   and "Traceback" not in rest,
                   "a scratch folder, the script ended by {}: exit {} (wanted {}), folder {} {}, {!r}".format(
                       how, p.returncode, status, path, "left" if os.path.exists(path) else "removed", rest[-300:]))

        # The scripts: a path they cannot write is exit 3 and one line naming it, before any
        # drawing; through a symbolic link the link stays.
        results = os.path.join(d, "results")
        os.mkdir(results)
        with open(os.path.join(results, "step01_baseline.csv"), "w") as f:
            f.write("step,m,n,k,threads,gflops_best,gflops_median,seconds_best,max_rel_err,verified,kernel,reps,cpu\n"
                    "01_baseline,500,500,500,1,1.5,1.4,0.1,1e-7,1,scalar,3,Test CPU\n")
        summary = os.path.join(plots, "summary.py")
        missing = os.path.join(d, "no", "summary.md")
        r = subprocess.run([sys.executable, summary, "--results", results, "-o", missing],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        lines = r.stderr.strip().splitlines()
        expect(r.returncode == 3 and len(lines) == 1 and missing in lines[0],
               "summary.py -o into a missing folder: exit {}, {!r}".format(r.returncode, r.stderr))
        os.symlink("kept.md", os.path.join(d, "summary_link.md"))
        r = subprocess.run([sys.executable, summary, "--results", results, "-o", os.path.join(d, "summary_link.md")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        expect(r.returncode == 0 and os.path.islink(os.path.join(d, "summary_link.md"))
               and b"01_baseline" in read(os.path.join(d, "kept.md")),
               "summary.py -o a link: exit {}, {}".format(r.returncode, r.stderr))
        if full:
            with open(full, "w") as out:
                r = subprocess.run([sys.executable, summary, "--results", results, "-o", os.path.join(d, "s.md")],
                                   stdout=out, stderr=subprocess.PIPE, universal_newlines=True)
            lines = r.stderr.strip().splitlines()
            expect(r.returncode == 3 and len(lines) == 1 and lines[0].startswith("summary.py: ")
                   and "standard output" in lines[0],
                   "summary.py > a full device: exit {}, {!r}".format(r.returncode, r.stderr[-300:]))
        try:
            import matplotlib  # noqa: F401
            have_matplotlib = True
        except ImportError:
            have_matplotlib = False
        if have_matplotlib:
            gflops = os.path.join(plots, "plot_gflops.py")
            csv = os.path.join(results, "step01_baseline.csv")
            missing = os.path.join(d, "no", "fig.png")
            r = subprocess.run([sys.executable, gflops, csv, "-o", missing],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
            lines = r.stderr.strip().splitlines()
            expect(r.returncode == 3 and len(lines) == 1 and missing in lines[0],
                   "plot_gflops.py -o into a missing folder: exit {}, {!r}".format(r.returncode, r.stderr))
            os.symlink("fig_target.svg", os.path.join(d, "fig_link.svg"))
            r = subprocess.run([sys.executable, gflops, csv, "-o", os.path.join(d, "fig_link.svg")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
            target = os.path.join(d, "fig_target.svg")
            expect(r.returncode == 0 and os.path.islink(os.path.join(d, "fig_link.svg")) and os.path.exists(target)
                   and read(target).lstrip().startswith(b"<?xml"),
                   "plot_gflops.py -o a link to an .svg: exit {}, {}".format(r.returncode, r.stderr))

    for f in failures:
        print("FAIL: " + f)
    print("{} failure(s)".format(len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
