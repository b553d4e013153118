"""Instruction counts of the C core on the studies' two typical workloads
(issue 19, item 5), for callgrind: repeatable whatever the machine's load.

  python bench/callgrind_core.py prep DIR       # inputs, once (slow: loads the traces)
  valgrind --tool=callgrind '--toggle-collect=*sl_sim_run' \\
      python bench/callgrind_core.py mixed DIR  # or: mixedfcfs DIR, curie DIR [SAF,SEXP]
  callgrind_annotate callgrind.out.<pid> | head

(The core is one LTO unit with hidden symbols: sl_sim_run is inlined into
cffi's wrapper _cffi_f_sl_sim_run, so the toggle names the wrapper by its
suffix; the wrapper's own instructions are a few hundred per call.)

* mixed: 4 weeks of SDSC-BLUE (the mixed-policies study's units) under 41
  static mixed policies of 3 weights (every 40th point of l1_lattice(3, 20)),
  threshold 200000 s, backfilling in the same order -- as
  ``mixed.cells.Period.bsld`` runs them (a clone of a fresh simulation,
  set_policy, run); mixedfcfs: the same with FCFS backfilling (the study's
  other backfilling choice).
* curie: a 4-week resample of CEA-Curie under EASY(P, 40 h) with
  threshold_backfill (``selection.cells.easy``) for P = SAF, SEXP, LEXP, FCFS.

Each run prints a digest of every output, so that two builds can also be
compared for identical schedules.
"""
from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import numpy as np

from schedlab.engine import sim

WEEKS = (10, 25, 40, 55)
CURIE_POLICIES = ("SAF", "SEXP", "LEXP", "FCFS")


def prep(out: Path) -> None:
    from schedlab.science import optim
    from schedlab.studies.mixed import cells
    from schedlab.studies.selection import cells as sel

    out.mkdir(parents=True, exist_ok=True)
    units, m, scales = cells.trace_units("SDSC-BLUE")
    arrays = {"m": np.array([m]), "scales": np.array(scales), "lattice": optim.l1_lattice(3, 20)[::40]}
    for w in WEEKS:
        jobs = units[w]
        for f in ("submit", "run", "req", "procs", "id"):
            arrays[f"w{w}_{f}"] = getattr(jobs, f)
        print(f"SDSC-BLUE week {w}: {len(jobs)} jobs")
    np.savez(out / "mixed.npz", **arrays)
    jobs, m = sel.resampled("CEA-Curie", None, 4, 2017, 0)
    np.savez(out / "curie.npz", m=np.array([m]),
             **{f: getattr(jobs, f) for f in ("submit", "run", "req", "procs", "id")})
    print(f"CEA-Curie 4-week resample: {len(jobs)} jobs, m={m}")


def _jobs(z, prefix=""):
    return sim.Jobs(*(z[prefix + f] for f in ("submit", "run", "req", "procs", "id")))


def _digest(h, c: sim.Simulation) -> None:
    for a in (c._start, c._end, c._flags):
        h.update(np.ascontiguousarray(a).tobytes())


def mixed(d: Path, backfill: str = "same") -> None:
    z = np.load(d / "mixed.npz")
    m, scales = int(z["m"][0]), tuple(z["scales"])
    h = hashlib.sha256()
    for w in WEEKS:
        jobs = _jobs(z, f"w{w}_")
        proto = None
        for weights in z["lattice"]:
            mp = sim.Mixed(tuple(float(x) for x in weights), scales)
            policy = sim.Policy(mp, mp if backfill == "same" else backfill, 200_000)
            if proto is None:
                proto = sim.Simulation(jobs, m, policy)
            with proto.clone() as c:
                c.set_policy(policy)
                c.run()
                _digest(h, c)
        proto.close()
    print("mixed", len(WEEKS), "weeks x", len(z["lattice"]), "policies, backfill", backfill, ":", h.hexdigest()[:16])


def curie(d: Path, policies=CURIE_POLICIES) -> None:
    z = np.load(d / "curie.npz")
    m, jobs = int(z["m"][0]), _jobs(z)
    h = hashlib.sha256()
    for p in policies:
        with sim.Simulation(jobs, m, sim.Policy(p, p, 40 * 3600, threshold_backfill=True)) as c:
            c.run()
            _digest(h, c)
    print("curie", len(jobs), "jobs x", policies, ":", h.hexdigest()[:16])


if __name__ == "__main__":
    args = [Path(sys.argv[2])] + ([tuple(sys.argv[3].split(","))] if len(sys.argv) > 3 else [])
    {"prep": prep, "mixed": mixed, "mixedfcfs": lambda d: mixed(d, "FCFS"), "curie": curie}[sys.argv[1]](*args)
