"""Small helpers for the files schedlab writes: every output gets the mode a
plain ``open()`` or ``mkdir()`` would give it under the user's umask (the
atomic writers make their temporary files with ``mkstemp``/``mkdtemp``,
mode 0600/0700), an OSError while writing names its file, and every file is
written atomically by one writer (:func:`atomic`, :func:`write_bytes`): a
temporary file beside the target, then ``os.replace``, so an interrupted run
never leaves half a file."""
from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["umask", "umask_mode", "naming", "atomic", "write_bytes"]


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
