"""Study 3 -- thresholds (being split into modules; see analysis)."""
from .analysis import *  # noqa: F401,F403
from .analysis import __all__, _spearman, table_thesis_5_6  # noqa: F401
