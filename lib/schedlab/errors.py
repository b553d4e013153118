"""Exception classes of schedlab; C status codes map onto them."""
from __future__ import annotations


class SchedlabError(Exception):
    """Base class of every error schedlab raises on purpose."""


class InputError(SchedlabError, ValueError):
    """Bad input data or arguments (a job, a policy spec, a parameter)."""


class SWFFormatError(InputError):
    """A malformed line of an SWF file; names the file, line and field."""

    def __init__(self, path, line: int, field: str | None, message: str):
        self.path, self.line, self.field = str(path), line, field
        where = f"{self.path}:{line}" + (f": field {field}" if field else "")
        super().__init__(f"{where}: {message}")


class SimulationError(SchedlabError):
    """The C core refused a call (status code and its message)."""

    def __init__(self, code: int, message: str):
        self.code = code
        super().__init__(message)


class ChecksumError(SchedlabError):
    """A data file does not match the checksum of its registry entry."""


class FetchError(SchedlabError):
    """A download failed (the URL could not be reached or the transfer broke off)."""


class NotebookError(SchedlabError):
    """A :class:`SchedlabError` raised inside a notebook that papermill
    executed (a study, the advisor, the trace report), as its one-line
    message; ``kind`` is the class it was raised as, ``notebook`` the
    notebook, ``traceback`` the kernel's traceback (for a log file)."""

    def __init__(self, message: str, kind: str = "SchedlabError", notebook: str = "", traceback: str = ""):
        self.kind, self.notebook, self.traceback = kind, notebook, traceback
        super().__init__(message)


class NotebookInputError(NotebookError, InputError):
    """:class:`NotebookError` of an :class:`InputError` (bad input: exit 2)."""


def _subclasses(cls: type) -> list[type]:
    out = [cls]
    for sub in cls.__subclasses__():
        out += _subclasses(sub)
    return out


def from_notebook(exc, notebook: str = "") -> Exception:
    """The error to raise for papermill's ``PapermillExecutionError``
    ``exc``: a :class:`NotebookError` (:class:`NotebookInputError` for an
    input error) with the message the notebook's code raised when that was
    a schedlab error or an ``OSError`` (a missing file, a refused connection),
    else ``exc`` itself (a bug keeps its traceback)."""
    ename, evalue = getattr(exc, "ename", None), getattr(exc, "evalue", None)
    import builtins

    known = {c.__name__: c for c in _subclasses(SchedlabError)}
    cls = known.get(ename)
    builtin = getattr(builtins, str(ename), None)
    if cls is None and isinstance(builtin, type) and issubclass(builtin, OSError):
        cls = SchedlabError     # a missing file, an unreachable scheduler: one line, as outside a notebook
    if cls is None or evalue is None:
        return exc
    import re

    tb = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(getattr(exc, "traceback", None) or []))
    kind = NotebookInputError if issubclass(cls, InputError) else NotebookError
    return kind(str(evalue), ename, notebook, tb)
