"""A profile, study by study, from a cold cache (issue 19): per study the wall
time, the campaign cells computed, the jobs simulated (every job completed by
the engine, in the driver and in the campaign workers: ``timing.jobs_simulated``
of the study's ``numbers.json``) and jobs/s, and the peak memory (the largest
resident set of any process reaped so far: the studies' and their workers').  Target: the full profile under 60 minutes on this 2-core machine.

Each study runs in a fresh subprocess (``schedlab study run NAME --profile P``),
as ``make reproduce`` runs one notebook each, on a cache directory of its own
(default ``results/cache-bench``) emptied once, before the first study: the
profile starts cold, as a fresh clone's ``make reproduce PROFILE=full`` does,
and a study takes from the cache only the cells an earlier study of the run
computed (the "cached" column; e.g. the selection study's fixed-policy runs
are the policies study's online-bandit part).  ``--cold-each`` empties it
before every study instead.  Its products go where the driver puts them,
``results/<profile>/<NN-study>/``, so that a full run can be shipped
afterwards (``python -m schedlab.publish.reproduce ship``).  The figures are also
written to ``results/bench/profile-<profile>.json``.

``--notebooks`` runs each study as its notebook instead (as ``make reproduce``
does, one at a time), so that the same cold run leaves the executed notebooks
for shipping.

``--resume`` continues an interrupted run (a session that ended, a killed
machine): it reads the figures file the run was writing (``--out``), keeps the
studies it finished, keeps the cache, and runs the others.  It refuses a file
from another commit, profile or mode: the point of one run is one commit.  A
study that was interrupted midway would take the cells it had computed from
the cache, so ``--resume`` removes every cache file written after the figures
file's last write (the studies run one at a time: those are the interrupted
study's cells), and its figures stay cold.  The file records each
pass (when it ended, its seconds, its studies); the run stays "cold" when its
first pass was.

Usage: python bench/bench_profile.py [--profile full] [--studies a,b] [--cache DIR]
       [--keep-cache | --cold-each | --resume] [--workers N | --notebooks] [--out FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from schedlab import paths
from schedlab.studies.registry import STUDIES, get

TARGET_S = 3600.0


def run_one(entry, profile: str, cache: Path, workers: int | None, notebook: bool = False) -> dict:
    if notebook:
        # the study's notebook, executed as make reproduce executes it: the executed copy and its
        # HTML go to results/<profile>/notebooks/ and html/, ready for ``reproduce ship``
        cmd = [sys.executable, "-m", "schedlab.publish.reproduce", "notebook", entry.stem, "--profile", profile,
               "--cache", str(cache)]
    else:
        cmd = [sys.executable, "-m", "schedlab.tools.cli", "study", "run", entry.name, "--profile", profile,
               "--cache", str(cache), "--no-progress"]
    if workers:
        cmd += ["--workers", str(workers)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    row = {"study": entry.name, "stem": entry.stem, "wall_s": round(wall, 1), "rc": proc.returncode,
           # the study process and its dask workers, as far as they were reaped (a bound, not exact)
           "cpu_s": round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 1),
           "max_rss_mb": round(after.ru_maxrss / 1024, 0)}
    if proc.returncode != 0:
        row["error"] = proc.stdout[-3000:]
        return row
    nfile = paths.RESULTS / profile / entry.stem / "numbers.json"
    if not nfile.exists():           # e.g. a notebook whose values were not the profile's: results/custom/
        row["rc"], row["error"] = 1, f"{paths.relative(nfile)}: not written (the output went elsewhere)\n" + \
            proc.stdout[-2000:]
        return row
    numbers = json.loads(nfile.read_text())
    timing = numbers.get("timing", {})
    row["cells"] = int(timing.get("cells_computed", 0))
    row["cached"] = int(timing.get("cells_cached", 0))
    row["jobs"] = int(timing.get("jobs_simulated", 0))
    row["jobs_per_s"] = round(row["jobs"] / wall) if wall > 0 else None
    return row


def target_verdict(profile: str, total: float, ran: int, studies: int, ok: bool, cold: bool) -> str:
    """The target is about a whole profile from a cold cache: judged only then."""
    head = f"target: the {profile} profile under {TARGET_S / 60:.0f} min: "
    if ran < studies or not ok or not cold:
        why = (f"{ran} of {studies} studies ran" if ran < studies else "a study failed" if not ok
               else "the cache was kept")
        return head + f"not judged ({why}; {total / 60:.1f} min)"
    return head + f"{'met' if total < TARGET_S else 'NOT MET'} ({total / 60:.1f} min)"


def resumable(previous: dict, *, commit: str, profile: str, notebooks: bool) -> tuple[list[dict], list[dict]]:
    """The finished studies (rc 0) and the passes of an interrupted run's figures, if the run
    is this one (same commit, profile and mode); a clear error otherwise."""
    for key, want in (("commit", commit), ("profile", profile), ("notebooks", notebooks)):
        if previous.get(key) != want:
            raise SystemExit(f"bench_profile --resume: the figures file is from {key} {previous.get(key)!r}, "
                             f"this run is {want!r}; one run is one commit, profile and mode")
    if previous.get("complete"):
        raise SystemExit("bench_profile --resume: that run is complete; nothing to resume")
    done = [r for r in previous.get("studies", []) if r.get("rc") == 0]
    passes = previous.get("passes") or [{"ended": previous.get("created"), "total_s": previous.get("total_s", 0.0),
                                         "studies": [r["study"] for r in previous.get("studies", [])]}]
    return done, passes


def drop_interrupted(cache: Path, since: str) -> int:
    """Remove the cache files written after ``since`` (the figures file's last write, ISO time):
    the cells of the study that was interrupted, so that it runs cold again.  Returns how many."""
    if not cache.is_dir():
        return 0
    t = datetime.fromisoformat(since).timestamp()
    gone = 0
    for f in cache.rglob("*"):
        if f.is_file() and f.stat().st_mtime > t:
            f.unlink()
            gone += 1
    return gone


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profile", default="full", choices=["quick", "full"])
    ap.add_argument("--studies", default=None, help="comma-separated names or numbers (default: every study)")
    ap.add_argument("--cache", default=str(paths.RESULTS / "cache-bench"),
                    help="the benchmark's own cache directory, emptied before the first study")
    ap.add_argument("--keep-cache", action="store_true",
                    help="do not empty the cache first (then the figures are not from a cold cache)")
    ap.add_argument("--cold-each", action="store_true",
                    help="empty the cache before every study (no study takes another's cells)")
    ap.add_argument("--resume", action="store_true",
                    help="continue the interrupted run whose figures are in --out: keep its finished studies and "
                         "the cache, run the others (same commit, profile and mode only)")
    ap.add_argument("--out", default=None,
                    help="where to write the figures (default results/bench/profile-<profile>.json)")
    ap.add_argument("--workers", type=int, default=None, help="default: all cores")
    ap.add_argument("--notebooks", action="store_true",
                    help="run each study as its notebook (papermill), so that one cold run leaves the executed "
                         "notebooks that `python -m schedlab.publish.reproduce ship` ships with the results")
    args = ap.parse_args()
    entries = [get(s.strip()) for s in args.studies.split(",")] if args.studies else list(STUDIES)
    cache = Path(args.cache)
    if cache.resolve() == (paths.RESULTS / "cache").resolve() and not (args.keep_cache or args.resume):
        raise SystemExit("bench_profile: --cache results/cache would empty the user's cache; give another folder")
    if args.workers and args.notebooks:
        raise SystemExit("bench_profile: --workers is for study runs; a notebook takes its profile's workers")
    if args.keep_cache and args.cold_each:
        raise SystemExit("bench_profile: --keep-cache and --cold-each contradict each other")
    out = Path(args.out) if args.out else paths.RESULTS / "bench" / f"profile-{args.profile}.json"
    rows, passes, cold = [], [], not args.keep_cache
    if args.resume:
        if args.cold_each:
            raise SystemExit("bench_profile: --resume keeps the cache; --cold-each contradicts it")
        if not out.exists():
            raise SystemExit(f"bench_profile --resume: {out}: no figures file to resume (give the run's --out)")
        previous = json.loads(out.read_text())
        rows, passes = resumable(previous, commit=paths.git_commit(), profile=args.profile,
                                 notebooks=bool(args.notebooks))
        cold, args.keep_cache = bool(previous.get("cold")), True
        finished = {r["study"] for r in rows}
        entries = [e for e in entries if e.name not in finished]
        gone = drop_interrupted(cache, previous["created"])
        if gone:
            print(f"removed {gone} cache files the interrupted study had written (it runs cold again)", flush=True)
        print(f"resuming {paths.relative(out)}: {len(finished)} studies finished in {len(passes)} pass(es) "
              f"({', '.join(sorted(finished)) or 'none'}), {len(entries)} to run", flush=True)
    how = ("kept" if args.keep_cache else "emptied before every study" if args.cold_each
           else "emptied before the first study: cold")
    print(f"profile {args.profile}, {len(entries)} studies, {os.cpu_count()} cores, cache {cache} ({how})",
          flush=True)
    print(f"{'study':<16} {'wall (s)':>9} {'cells':>7} {'cached':>7} {'jobs simulated':>15} {'jobs/s':>10} "
          f"{'peak RSS':>9}", flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    earlier = sum(p["total_s"] for p in passes)
    here = len(rows)
    t0 = time.perf_counter()

    def write(total: float, done: bool) -> None:
        # after every study, so that an interrupted profile keeps the figures of the studies it finished
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        record = {"created": now, "commit": paths.git_commit(), "cores": os.cpu_count(), "profile": args.profile,
                  "cold": cold, "cold_each": bool(args.cold_each), "notebooks": bool(args.notebooks),
                  "complete": done, "total_s": round(earlier + total, 1), "studies": rows}
        if passes:
            record["passes"] = passes + [{"ended": now, "total_s": round(total, 1),
                                          "studies": [r["study"] for r in rows[here:]]}]
        out.write_text(json.dumps(record, indent=1))

    for i, entry in enumerate(entries):
        if not args.keep_cache and (i == 0 or args.cold_each) and cache.exists():
            shutil.rmtree(cache)
        r = run_one(entry, args.profile, cache, args.workers, notebook=args.notebooks)
        rows.append(r)
        write(time.perf_counter() - t0, False)
        if r["rc"] != 0:
            print(f"{entry.name:<16} {r['wall_s']:>9.1f}  FAILED (exit {r['rc']}):\n{r['error']}", flush=True)
            continue
        print(f"{entry.name:<16} {r['wall_s']:>9.1f} {r['cells']:>7} {r['cached']:>7} {r['jobs']:>15,} "
              f"{r['jobs_per_s'] or 0:>10,} {r['max_rss_mb']:>6.0f} MB", flush=True)
    total = time.perf_counter() - t0
    jobs = sum(r.get("jobs", 0) for r in rows)
    whole = earlier + total
    print(f"{'total':<16} {whole:>9.1f} {sum(r.get('cells', 0) for r in rows):>7} "
          f"{sum(r.get('cached', 0) for r in rows):>7} {jobs:>15,} {round(jobs / whole) if whole else 0:>10,}")
    print(target_verdict(args.profile, whole, len(rows), len(STUDIES), all(r["rc"] == 0 for r in rows), cold=cold))
    write(total, True)
    print(f"wrote {paths.relative(out)}")
    return 0 if all(r["rc"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
