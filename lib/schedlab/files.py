"""Small helpers for the files schedlab writes: every output gets the mode a
plain ``open()`` or ``mkdir()`` would give it under the user's umask (the
atomic writers make their temporary files with ``mkstemp``/``mkdtemp``,
mode 0600/0700), an OSError while writing names its file, and every file is
written atomically by one writer (:func:`atomic`, :func:`write_bytes`): a
temporary file beside the target, then ``os.replace``, so an interrupted run
never leaves half a file.  A path that exists and is not a regular file (a
device, a FIFO, a socket, a folder; :func:`atomic_folder`: anything but a
folder) is refused in one line (:func:`replaceable`), before and again just
before the rename: renaming over ``/dev/null`` would replace the system's
null device with a regular file."""
from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from .errors import InputError

__all__ = ["umask", "umask_mode", "naming", "replaceable", "atomic", "atomic_folder", "write_bytes"]

#: What a path that is not a regular file is, by the test of its mode.
_KINDS = ((stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"), (stat.S_ISFIFO, "FIFO"),
          (stat.S_ISSOCK, "socket"), (stat.S_ISDIR, "directory"))


def replaceable(path, directory: bool = False) -> None:
    """Raise :class:`InputError` in one line if ``path`` exists (through a
    symbolic link) and is not a regular file -- with ``directory``, not a
    folder -- so that no writer renames over a device, a FIFO, a socket or
    a folder.  A missing path (or a dangling link) is fine."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return
    if stat.S_ISDIR(mode) if directory else stat.S_ISREG(mode):
        return
    kind = next((k for test, k in _KINDS if test(mode)), "special file")
    want = "a folder" if directory else "a regular file"
    raise InputError(f"{os.fspath(path)}: exists and is a {kind}, not {want}: refusing to replace it "
                     f"(choose another output path)")


def umask() -> int:
    """The process's umask (read without changing it for long)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def umask_mode(path, directory: bool = False) -> None:
    """Give ``path`` (a file, or a directory) the mode the umask gives a new one."""
    os.chmod(path, (0o777 if directory else 0o666) & ~umask())


@contextlib.contextmanager
def naming(path):
    """An OSError raised inside (a write that ran out of space or past
    ``ulimit -f``: no file name) re-raised naming ``path``."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None:
            raise
        raise OSError(exc.errno, exc.strerror or str(exc) or type(exc).__name__, os.fspath(path)) from exc


@contextlib.contextmanager
def atomic(path, *, suffix: str = ".tmp", fsync: bool = False):
    """The one atomic writer: yields a temporary path in ``path``'s folder
    (created if needed; the name keeps ``suffix`` for writers that choose a
    format by it); when the block ends normally the file gets the umask's
    mode (and, with ``fsync``, reaches the disk) and replaces ``path``;
    otherwise it is removed.  An OSError names ``path``."""
    path = Path(path)
    replaceable(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=suffix)
    os.close(fd)
    try:
        with naming(path):
            yield Path(tmp)
            if fsync:
                with open(tmp, "rb+") as fh:
                    os.fsync(fh.fileno())
            umask_mode(tmp)
            replaceable(path)           # again: it may have been made while the file was written
            os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def write_bytes(path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (:func:`atomic`, with fsync)."""
    path = Path(path)
    with atomic(path, fsync=True) as tmp:
        tmp.write_bytes(data)
    return path


@contextlib.contextmanager
def atomic_folder(path):
    """:func:`atomic` for a folder: yields a temporary folder beside ``path``;
    when the block ends normally it gets the umask's mode and replaces
    ``path`` (an existing one is removed first); otherwise it is removed."""
    import shutil

    path = Path(path)
    replaceable(path, directory=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}."))
    try:
        with naming(path):
            yield tmp
            umask_mode(tmp, directory=True)
            replaceable(path, directory=True)
            if path.exists():
                shutil.rmtree(path)
            os.replace(tmp, path)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
