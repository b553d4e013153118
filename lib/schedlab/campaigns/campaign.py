"""Transitional: the names of the modules campaign.py was split into, until
every caller imports them from there (removed in the next commit)."""
from ..workloads.workload import OVERRUN_CHOICES as OVERRUNS  # noqa: F401
from ..declared import CellInputs  # noqa: F401
from .assembly import assemble, provenance  # noqa: F401
from .cache import Cache, CacheWarning  # noqa: F401
from .cells import (CELL_MODULES_ENV, CELLS, DEFAULT_METRICS, RunInputs, SimulateInputs, TraceInputs,  # noqa: F401
                    _import_cell, _module_allowed, allow_cell_modules, cell, cell_modules, resolve_cell,
                    simulate_cell, workload_for)
from .fingerprint import _trace_identity, _trace_sha, _traces_of, cell_fingerprint, module_closure  # noqa: F401
from .runner import (PROGRESS_ENV, PROGRESS_EVERY, SCHEDULER_ENV, CellFailed, Runner, local_cluster,  # noqa: F401
                     progress_line, run)
from .spec import MAX_CELLS, MAX_NAME, MAX_SPEC_BYTES, MAX_SPEC_VALUES, SPEC_KEYS, Campaign, check_name  # noqa: F401
