"""Small helpers for the files schedlab writes: every output gets the mode a
plain ``open()`` or ``mkdir()`` would give it under the user's umask (the
atomic writers make their temporary files with ``mkstemp``/``mkdtemp``,
mode 0600/0700), and an OSError while writing names its file."""
from __future__ import annotations

import contextlib
import os

__all__ = ["umask", "umask_mode", "naming"]


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
