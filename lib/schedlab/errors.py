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
