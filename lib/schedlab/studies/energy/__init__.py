"""Study 9 -- energy profiles (being split into a package)."""
from .figures import *  # noqa: F401,F403
from .figures import __all__  # noqa: F401
