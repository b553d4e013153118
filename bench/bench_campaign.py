"""Campaign benchmark (issue 4): the lelong2017-size campaign on KTH-SP2 --
49 policy pairs x 250 resampled weeks x 2 halves = 98 cells, 24,500 week-long
simulations -- on a local dask cluster, from an empty cache, then again from
the cache.  Target: under 3 minutes on this 2-core machine.

Usage: python bench/bench_campaign.py [--workers N]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from schedlab.campaigns.runner import run
from schedlab.campaigns.spec import Campaign
from schedlab import paths

TARGET_S = 180.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=None, help="default: all cores")
    args = ap.parse_args()
    spec = Campaign.from_yaml(paths.ROOT / "campaigns" / "lelong2017-kth.yaml")
    with tempfile.TemporaryDirectory() as cache:
        t = time.perf_counter()
        ds = run(spec, workers=args.workers, cache_dir=Path(cache), progress=False, log=lambda *a: None)
        cold = time.perf_counter() - t
        t = time.perf_counter()
        run(spec, workers=args.workers, cache_dir=Path(cache), progress=False, log=lambda *a: None)
        warm = time.perf_counter() - t
    sims = int(ds.sizes["half"] * ds.sizes["primary"] * ds.sizes["backfill"] * ds.sizes["week"])
    jobs = int(ds.jobs.sum())
    print(f"lelong2017-size campaign on KTH-SP2: {ds.attrs['cells_total']} cells, {sims} week simulations, "
          f"{jobs:,} simulated jobs, {ds.attrs['workers']} workers")
    print(f"cold (empty cache)  {cold:8.1f} s   {sims / cold:8.0f} weeks/s   target < {TARGET_S:.0f} s: "
          f"{'met' if cold < TARGET_S else 'NOT MET'}")
    print(f"warm (all cached)   {warm:8.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
