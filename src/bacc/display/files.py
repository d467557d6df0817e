"""Where bacc writes a file: a regular file replaced atomically, a pipe or terminal written
directly, or standard output (``-``); anything else is refused.

The rules, as a careful Unix tool follows them:

- ``-`` means standard output.
- A regular file (or a path that does not exist yet) is written to a temporary file in the same
  folder and renamed over the path only when complete, so that a failed write leaves the
  previous file intact and no partial one. A new file gets the permissions the umask gives
  (``0666 & ~umask``, as ``cmd > file`` does); an existing file keeps its mode, and one the
  user may not write is refused, as ``cmd > file`` refuses it.
- A symbolic link is followed: the file it points to is replaced, the link stays.
- A named pipe (FIFO) or a character device (``/dev/null``, a terminal, ``/dev/stdout``, the
  ``/dev/fd/N`` of a shell's process substitution) is written directly, as ``cmd > fifo`` does:
  it is never replaced by a regular file.
- Anything else (a folder, a block device, a socket, a link to nothing) is refused with a
  :class:`~bacc.BaccError`, before any work when :func:`check_output_path` is called first.
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path

from ..errors import BaccError

__all__ = ["STDOUT", "check_output_path", "is_stdout", "new_file_mode", "write_text"]

#: The path that means standard output.
STDOUT = "-"

_REGULAR, _MISSING, _STREAM = "regular", "missing", "stream"


def is_stdout(path: str | os.PathLike | None) -> bool:
    """Whether ``path`` means standard output (``-``)."""
    return path is not None and os.fspath(path) == STDOUT


def _kind(path: str, what: str) -> str:
    """``"regular"``, ``"missing"`` or ``"stream"`` for a path bacc may write, else an error."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            raise BaccError(f"cannot write {what} to {path}: it is a link to a file that does "
                            "not exist; give the file's own path with -o") from None
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise BaccError(f"cannot write {what} to {path}: the folder {folder} does not "
                            "exist") from None
        return _MISSING
    except NotADirectoryError:
        raise BaccError(f"cannot write {what} to {path}: a part of the path is not a "
                        "folder") from None
    except OSError as exc:
        raise BaccError(f"cannot write {what} to {path}: {exc.strerror or exc}") from None
    mode = st.st_mode
    if stat.S_ISREG(mode):
        return _REGULAR
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        return _STREAM
    if stat.S_ISDIR(mode):
        raise BaccError(f"cannot write {what} to {path}: it is a folder; give a file name "
                        "with -o")
    kind = "a block device" if stat.S_ISBLK(mode) else (
        "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
    raise BaccError(f"cannot write {what} to {path}: it is {kind}, which bacc does not "
                    "replace; give a file name with -o")


def check_output_path(path: str | os.PathLike, what: str = "the report") -> None:
    """Refuse, before any work, a path that :func:`write_text` would refuse.

    Parameters
    ----------
    path : str or path-like
        ``-`` (standard output), a regular file, a path in an existing folder, a named pipe or
        a character device.
    what : str
        What is written, for the message (``"the report"``).

    Raises
    ------
    BaccError
        A folder, a block device, a socket, a link to nothing, or a missing folder.
    """
    if not is_stdout(path):
        _kind(os.fspath(path), what)


def new_file_mode() -> int:
    """The permissions of a new file under the current umask: ``0o666 & ~umask``."""
    umask = None
    try:  # read without changing it (Linux)
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    umask = int(line.split()[1], 8)
                    break
    except (OSError, ValueError):
        umask = None
    if umask is None:
        umask = os.umask(0o022)
        os.umask(umask)
    return 0o666 & ~umask


def write_text(path: str | os.PathLike, text: str, what: str = "the report") -> Path:
    """Write ``text`` (UTF-8) to ``path`` by the rules of this module; return the path.

    Parameters
    ----------
    path : str or path-like
        Where to write (``-`` for standard output).
    text : str
        The whole content.
    what : str
        What is written, for error messages.

    Returns
    -------
    Path
        ``path`` as given.

    Raises
    ------
    BaccError
        A path that is not written (see :func:`check_output_path`), or a failed write (full
        disk, no permission); a failed write leaves a previous regular file intact.
    """
    p = os.fspath(path)
    data = text.encode("utf-8")
    if is_stdout(p):
        _write_stdout(data)
        return Path(p)
    kind = _kind(p, what)
    try:
        if kind == _STREAM:
            _write_stream(p, data)
        else:
            _replace(os.path.realpath(p), data, existing=kind == _REGULAR)
    except OSError as exc:
        raise BaccError(f"cannot write {what} to {p}: {exc.strerror or exc}") from None
    return Path(p)


def _write_stdout(data: bytes) -> None:
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a text-only stream (e.g. captured)
        sys.stdout.write(data.decode("utf-8"))
    else:
        buffer.write(data)
        buffer.flush()


def _write_stream(path: str, data: bytes) -> None:
    """Write to a named pipe or character device in place (no create, no truncate)."""
    fd = os.open(path, os.O_WRONLY | getattr(os, "O_NOCTTY", 0))
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def _replace(target: str, data: bytes, *, existing: bool) -> None:
    """Write a temporary file beside ``target`` and rename it over ``target``."""
    folder, name = os.path.split(target)
    if existing and not os.access(target, os.W_OK):  # as ``cmd > file`` would refuse
        raise PermissionError(13, "Permission denied")
    mode = stat.S_IMODE(os.stat(target).st_mode) if existing else new_file_mode()
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder or ".")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
        os.replace(tmp, target)
        tmp = None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
