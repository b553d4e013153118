"""Study 4 -- mixed policies (being split into a package: for now the whole
study lives in run.py, re-exported here)."""
from . import run as _module

globals().update({k: v for k, v in vars(_module).items() if not k.startswith("__")})
__all__ = _module.__all__
