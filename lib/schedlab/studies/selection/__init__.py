"""Study package ``schedlab.studies.selection``: being split into modules; for now
every name of the former module ``studies/selection.py`` (now ``cells.py``)."""
from . import cells as _module

globals().update({k: v for k, v in vars(_module).items() if not k.startswith("__")})
__all__ = getattr(_module, "__all__", [k for k in vars(_module) if not k.startswith("_")])
__doc__ = _module.__doc__
