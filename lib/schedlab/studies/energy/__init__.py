"""Study 5 -- energy profiles: preprocessing and the stationarity /
variability / periodicity tree of thesis ch. 7 on real RAPL measurements.

The thesis (zrigui2021, :data:`THESIS`) classifies the energy profiles of
the jobs of 40 nodes of the Gricad *dahu* cluster (16 days from 2019-06-25)
as non-stationary, constant or periodic with a tree of three tests, and
finds that "around 75% of the total jobs (and respectively total execution
area) are predictable" (§7.4.6, Fig. 7.12; §7.5).  The compendium bundles
Colmet/RAPL measurements of the same cluster and period (``data/energy/``,
see ``data/README.md``), per node and minute -- but no job table.  So:

* **profiles** are cut from each processor's PP0 (cores) signal
  (:func:`schedlab.energy.derive_profiles`): by default change-point
  ``segments`` (pieces between level changes of at least ``min_shift`` of
  the processor's power range), beside idle-delimited ``episodes`` and
  fixed ``windows`` for comparison.  They are *segments of processor
  activity*, not jobs; the per-job path
  (:func:`schedlab.energy.job_profiles`) is there for data with a job table.
  Profiles whose mean lies at idle power (below ``idle_level`` of the range)
  are most likely processors without a job; they are left out of the
  shares unless ``include_idle``, and counted apart;
* **preprocessing** (thesis §7.4.1-7.4.2): minimum length ``min_length``
  minutes, ``trim`` minutes cut at each end, z-score outliers beyond
  ``zscore`` removed, gaps of at most ``max_gap`` minutes bridged; the data
  is already the per-minute aggregate the thesis used;
* **the tree** (§7.4.3-7.4.6) with every parameter exposed; each test
  returns its statistic and verdict (:mod:`schedlab.energy`);
* **shares** of the classes by number of profiles and by duration (the
  thesis' "number" and "area": one processor per profile, so area =
  duration), beside the thesis' values, for each way of cutting profiles;
* **sensitivity** of the shares to each parameter, one at a time;
* **the tree on generated signals** of known class across noise levels.

The notebook ``notebooks/05-energy.ipynb`` holds its parameters and calls the
driver (``run_study("energy", globals())``), which runs :func:`compute` and
writes tables, figures, ``data/profiles.csv``, ``profiles.nc`` and ``numbers.json``.

The package: :mod:`~schedlab.studies.energy.params` (:class:`Params`, each
parameter declared once), :mod:`~schedlab.studies.energy.cells` (cutting,
preprocessing and classifying the profiles; the sensitivity runs),
:mod:`~schedlab.studies.energy.analysis` (pure functions of the classified
profiles), :mod:`~schedlab.studies.energy.tables`,
:mod:`~schedlab.studies.energy.figures`, :mod:`~schedlab.studies.energy.report`
(the key numbers), :mod:`~schedlab.studies.energy.run` (:func:`compute`) and
``published.toml`` (the thesis' values, each with its source; read by
:mod:`~schedlab.studies.energy.published`).  The library part, the tests of
the tree and the data, is :mod:`schedlab.energy`.  Every public name is
re-exported here.
"""
from __future__ import annotations

from .analysis import Analysis, shares
from .cells import analyse, sensitivity
from .figures import (CLASS_COLORS, figure_aggregation, figure_distribution, figure_examples, figure_history,
                      figure_methods, figure_outliers, figure_overview, figure_periodograms, figure_sensitivity,
                      figure_synthetic)
from .params import PERIODICITY_GRID, SEGMENT_MIN_SIZE, SENSITIVITY, STUDY, Params
from .published import PUBLISHED, PUBLISHED_NOTES, THESIS
from .report import numbers
from .params import OUTPUTS, TINY  # noqa: F401  (the driver, schedlab.protocol.study.check_study)
from .run import compute
from .tables import (profiles_dataset, profiles_table, table_classes, table_data, table_funnel, table_hosts,
                     table_methods, table_sensitivity, table_synthetic, table_units)

__all__ = [
    "STUDY", "THESIS", "PUBLISHED", "PUBLISHED_NOTES", "CLASS_COLORS", "SENSITIVITY", "PERIODICITY_GRID",
    "Params", "compute", "Analysis", "analyse", "shares", "sensitivity",
    "numbers",
]
