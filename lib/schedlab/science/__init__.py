"""Science shared by more than one study (each module says who uses it):
:mod:`~schedlab.science.optim` (the mixed study and the advisor),
:mod:`~schedlab.science.online_bandit` (the policies and selection studies),
:mod:`~schedlab.science.online_selection` (the selection and learning studies, :mod:`schedlab.gym`),
:mod:`~schedlab.science.thesis_readings` (the thresholds and mixed studies).
Science used by one study lives in that study's package.  Above the
campaigns and the protocol, below the studies."""
