"""Study 1 -- traces: workload characterisation (being split into a package)."""
from .analysis import *  # noqa: F401,F403
from .analysis import __all__  # noqa: F401
