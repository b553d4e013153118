"""The thresholds study's rows of the scorecard (:mod:`schedlab.scorecard`):
lelong2017 §7.4 (Fig. 8's AvgWait diminutions on the testing weeks, and its
MaxWait claim on CEA-Curie)."""
from __future__ import annotations

from ...scorecard import Row
from .params import PUBLISHED


def rows(p, fig8: dict) -> list[Row]:
    out: list[Row] = []
    at_20h = p.threshold == 72000
    why_not = "" if at_20h else "the paper's Fig. 8 is at T = 20 h; this run's threshold differs"
    for name, r in fig8.items():
        pub = PUBLISHED["fig8_gain_pct"].get(name)
        if pub is not None:
            out.append(Row("lelong2017 §7.4", "Fig. 8", name,
                           f"AvgWait diminution of the learned pair ({r.pair}), testing weeks (%)", pub, r.test_gain,
                           *r.test_gain_ci, baseline=0.0, comparable=at_20h,
                           explanation=why_not or "unexplained"))
    if "CEA-Curie" in fig8:
        cea, pub = fig8["CEA-Curie"], PUBLISHED["fig8_cea_maxwait_s"]
        for key, ours in (("learned", cea.test_max), ("baseline", cea.test_base_max)):
            out.append(Row("lelong2017 §7.4", "text", "CEA-Curie", f"mean MaxWait, {key}, testing weeks (s)",
                           pub[key], ours, comparable=at_20h, explanation=why_not or "unexplained"))
        above = [n for n, r in fig8.items() if r.test_max > r.test_base_max]
        out.append(Row("lelong2017 §7.4", "claim: the learned pair's MaxWait is above the baseline's only on "
                       "CEA-Curie", ", ".join(fig8), "mean MaxWait vs EASY-FCFS-FCFS, testing weeks",
                       "CEA-Curie", ", ".join(above) or "none", rule="claim", holds=above == ["CEA-Curie"],
                       comparable=at_20h, explanation=why_not or "unexplained"))
    return out
