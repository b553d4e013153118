"""``python -m schedlab.studies.mixed time ...`` (see :func:`run.main`)."""
from .run import main

raise SystemExit(main())
