"""``python -m schedlab.studies.mixed time [TRACE] [--week N] [--budget B]``:
the wall time of one weekly optimisation per optimiser (:func:`.run.main`)."""
from .run import main

raise SystemExit(main())
