"""Study 6 -- classification (being split into a package: for now the whole
study lives in cells.py, re-exported here)."""
from . import cells as _module

globals().update({k: v for k, v in vars(_module).items() if not k.startswith("__")})
__all__ = _module.__all__
