"""The one way the Python scripts write a file, by gemm::OutputFile's rules (docs/contracts.md "The CSV"): a
regular file is replaced atomically (a failed write leaves the old), a link followed, a device written
through; a problem is an OutputError, "cannot write PATH: ...". Importing it ends the script by SIGPIPE
when its reader stops early, and with exit 3 and one line when standard output cannot be written.
"""
import atexit
import errno
import fcntl
import hashlib
import os
import shutil
import signal
import stat
import sys
import tempfile

if hasattr(signal, "SIGPIPE"):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)

_scratch = []   # the scratch folders made by this process


def _remove_scratch():
    while _scratch:
        shutil.rmtree(_scratch.pop(), ignore_errors=True)


def _end_by(signum, frame=None):
    _remove_scratch()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def scratch_folder(prefix):
    """A new temporary folder for working files, removed at exit and on SIGPIPE or SIGTERM."""
    path = tempfile.mkdtemp(prefix=prefix)
    if not _scratch:
        atexit.register(_remove_scratch)
        for name in ("SIGPIPE", "SIGTERM"):
            if hasattr(signal, name):
                signal.signal(getattr(signal, name), _end_by)
    _scratch.append(path)
    return path


class _Stdout:
    """sys.stdout whose failed write or flush ends the process with exit 3 and one line (not a traceback)."""

    def __init__(self, stream):
        self._stream = stream

    def _failed(self, error):
        if error.errno == errno.EPIPE and hasattr(signal, "SIGPIPE"):
            _end_by(signal.SIGPIPE)   # the reader is gone (a scratch folder made SIGPIPE's handler ours)
        _remove_scratch()
        name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "python3"
        try:
            os.write(2, "{}: cannot write standard output: {}\n".format(name, _reason(error)).encode())
        finally:
            os._exit(3)

    def write(self, text):
        try:
            return self._stream.write(text)
        except OSError as e:
            self._failed(e)

    def flush(self):
        try:
            self._stream.flush()
        except OSError as e:
            self._failed(e)

    def __getattr__(self, name):
        return getattr(self._stream, name)


if sys.stdout is not None and not isinstance(sys.stdout, _Stdout):
    sys.stdout = _Stdout(sys.stdout)


class OutputError(Exception):
    pass


def _problem(path, detail):
    return OutputError("cannot write {}: {}".format(path, detail))


def _reason(error):
    return error.strerror or str(error)


def _descriptor(target):
    for prefix in ("/proc/self/fd/", "/dev/fd/"):
        if target.startswith(prefix) and target[len(prefix):].isdigit():
            return int(target[len(prefix):])
    return None


def _follow_links(path):
    """The file `path` names after its links, and whether they reached /proc or /dev/fd (a descriptor)."""
    current = path
    for _ in range(40):
        if current.startswith("/proc/") or current.startswith("/dev/fd/"):
            return current, True
        try:
            if not stat.S_ISLNK(os.lstat(current).st_mode):
                return current, False
            link = os.readlink(current)
        except FileNotFoundError:
            return current, False
        except OSError as e:
            raise _problem(path, _reason(e))
        current = link if os.path.isabs(link) else os.path.join(os.path.dirname(current), link)
    raise _problem(path, os.strerror(errno.ELOOP))


def _kind(path):
    """('stream' for a device, FIFO or descriptor, or 'file', target); OutputError for a folder."""
    if not path:
        raise OutputError("cannot write '': the path is empty")
    target, fd_link = _follow_links(path)
    if fd_link:
        return "stream", target
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return "file", target
    except OSError as e:
        raise _problem(path, _reason(e))
    if stat.S_ISDIR(mode):
        raise _problem(path, "it is a folder")
    return ("file" if stat.S_ISREG(mode) else "stream"), target


def _name_max(folder):
    try:
        return os.pathconf(folder or ".", "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


def _temporary(path, target):
    """(fd, name) of a new file .NAME.XXXXXXXX beside `target`, NAME cut to fit NAME_MAX; else OutputError."""
    folder, name = os.path.split(target)
    folder = folder or "."
    limit = _name_max(folder)
    keep = max(1, limit - len(".." + "X" * 8)) if limit > 0 else len(name)
    prefix = "." + os.fsdecode(os.fsencode(name)[:keep]) + "."   # the limit counts bytes
    try:
        return tempfile.mkstemp(prefix=prefix, dir=folder)
    except OSError as e:
        raise _problem(path, _reason(e))


def check(path):
    """Raises OutputError unless `path` can be written; changes nothing there."""
    path = os.fspath(path)
    kind, target = _kind(path)
    if kind == "stream":
        descriptor = _descriptor(target)
        if descriptor is not None:
            try:
                flags = fcntl.fcntl(descriptor, fcntl.F_GETFL)
            except OSError as e:
                raise _problem(path, _reason(e))
            if flags & os.O_ACCMODE == os.O_RDONLY:
                raise _problem(path, "it is open for reading only")
        elif not os.access(target, os.W_OK):   # not opened: opening a FIFO would wait for its reader
            raise _problem(path, os.strerror(errno.EACCES))
        return
    fd, probe = _temporary(path, target)
    os.close(fd)
    os.unlink(probe)


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if written <= 0:
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        view = view[written:]


def _write_through(path, target, data):
    sys.stdout.flush()   # what the script printed comes first on a shared terminal or file
    descriptor = _descriptor(target)
    try:
        # Appending: /dev/stdout redirected to a file gets the data after what was printed.
        fd = os.dup(descriptor) if descriptor is not None else \
            os.open(target, os.O_WRONLY | os.O_APPEND | os.O_NOCTTY | os.O_CLOEXEC)
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
    except OSError as e:
        raise _problem(path, _reason(e))


def write(path, data):
    """Makes `path` hold `data` (bytes, or str as UTF-8), or raises OutputError and leaves what was there."""
    path = os.fspath(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    kind, target = _kind(path)
    if kind == "stream":
        return _write_through(path, target, data)
    fd, temporary = _temporary(path, target)
    try:
        try:   # the new file gets the old one's permissions, or those a plain create would give
            try:
                mode = stat.S_IMODE(os.stat(target).st_mode)
            except FileNotFoundError:
                mask = os.umask(0o22)
                os.umask(mask)
                mode = 0o666 & ~mask
            os.fchmod(fd, mode)
            _write_all(fd, data)
        finally:
            os.close(fd)
        os.replace(temporary, target)
    except BaseException as e:   # Ctrl-C or SIGTERM's exception too: no temporary left beside the path
        try:
            os.unlink(temporary)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise _problem(path, _reason(e))
        raise


class signals_held:
    """SIGINT and SIGTERM held while a file is written: no temporary left, no file half replaced."""
    def __enter__(self):
        self.held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})

    def __exit__(self, *_):
        signal.pthread_sigmask(signal.SIG_SETMASK, self.held)


def write_whole(path, data):
    """write() with Ctrl-C and SIGTERM held until it is done."""
    with signals_held():
        write(path, data)


def side_path(path, suffix):
    """PATH + suffix; a name longer than the folder takes (NAME_MAX) is cut and ended by a hash of
    the whole, so every legal PATH has its side files, always the same."""
    folder, name = os.path.split(path)
    limit, whole = _name_max(folder), os.fsencode(name + suffix)
    if len(whole) <= limit:
        return path + suffix
    tag = "~" + hashlib.sha256(whole).hexdigest()[:12] + suffix
    return os.path.join(folder, os.fsdecode(os.fsencode(name)[:max(1, limit - len(os.fsencode(tag)))]) + tag)


def check_regular(path, what):
    """check(), and that `path` is a regular file or nothing (a FIFO would hang): `what` names what it should be."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else \
            "a socket" if stat.S_ISSOCK(mode) else "a device"
        raise _problem(path, "it is {}, not {}; remove it or give -o".format(kind, what))
    check(path)


def make_folder(path):
    """Makes the folder of PATH, or says why not (an ancestor that is a file, not 'File exists')."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        reason, above = e.strerror, folder
        while not os.path.lexists(above) and os.path.dirname(above) != above:
            above = os.path.dirname(above)
        if os.path.exists(above) and not os.path.isdir(above):
            reason = "{} is not a folder".format(above)
        raise _problem(path, reason)


def lock(path, target, holder):
    """An flock(2) on .NAME.lock beside PATH's target (the kernel lets go however the program ends): its fd;
    OutputError when another `holder` has it."""
    name = side_path(os.path.join(os.path.dirname(target), "." + os.path.basename(target)), ".lock")
    try:
        fd = os.open(name, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)
    except OSError as e:
        raise _problem(path, "its lock {}: {}".format(name, e.strerror))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _problem(path, "its lock {} is no regular file; remove it".format(name))
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        os.close(fd)
        if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            raise OutputError("another {} is writing {} (it holds {}): wait for it to end".format(holder, path, name))
        raise _problem(path, "its lock {}: {}".format(name, e.strerror))
    except OutputError:
        os.close(fd)
        raise
    return fd
