"""Study 2 -- policies (being split into modules; see analysis)."""
from .analysis import *  # noqa: F401,F403
from .analysis import __all__  # noqa: F401
