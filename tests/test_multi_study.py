"""The mixed study's grid cell on simulate_mixed_many (csrc/multi.c): the
per-vector path's values, bit for bit (issue 33 item 1)."""
import numpy as np

from schedlab.science import optim
from schedlab.declared import validate
from schedlab.studies.mixed import cells


def test_grid_cell_unchanged():
    """The study's grid cell gives the per-vector path's values bit for bit."""
    p = validate(cells.GridInputs, {"trace": "SDSC-SP2", "unit": 4, "resolution": 8, "features": 3}, source="test")
    jobs, m, scales, thr, bf = cells._cell_setup(p, "grid")
    got = cells.grid_cell(p)["mean_bsld"][1]
    period = cells.Period(jobs, m, thr, bf)
    want = np.array([period.bsld(cells.mixed_policy(w, scales)) for w in optim.l1_lattice(3, 8)])
    assert np.array_equal(got, want)
