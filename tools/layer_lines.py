"""Lines of Python per layer of the library and per study (issue 31's
closing figures): ``python3 tools/layer_lines.py [REPO]``.  A module's layer
is named in LAYERS (by path under lib/schedlab); anything unnamed is listed
so that the table never hides a file."""
from __future__ import annotations

import sys
from pathlib import Path

#: layer -> module paths (files or folders) under lib/schedlab
LAYERS = {
    "floor (errors, paths, files, declared values, validators)": [
        "errors.py", "paths.py", "files.py", "declared.py", "validators.py", "values.py", "stats.py", "__init__.py"],
    "engine binding (C core, jobs, metrics, learned estimates)": [
        "_build.py", "sim.py", "jobs.py", "metrics.py", "losses.py", "prediction.py"],
    "workloads (traces, SWF, cleaning, importers, formats)": [
        "traces.py", "swf.py", "workload.py", "importers", "formats"],
    "campaigns (runner, cache, cells, datasets)": ["campaign.py", "store.py"],
    "study protocol (driver, registry, scorecard)": [
        "study.py", "scorecard.py", "studies/__init__.py", "studies/registry.py"],
    "science shared by studies": ["optim.py", "online_bandit.py", "thesis_readings.py"],
    "paper build (reproduce, shipped, plots, reports, site)": [
        "paper.py", "reproduce.py", "shipped.py", "plots.py", "trace_report.py", "site.py"],
    "tools (cli, check, advise, conformance, lock)": [
        "cli.py", "check.py", "advise", "conformance.py", "lockfile.py"],
}


def lines(p: Path) -> int:
    return sum(1 for _ in p.open(encoding="utf-8"))


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    root = Path(argv[0]) if argv else Path(__file__).resolve().parents[1]
    lib = root / "lib" / "schedlab"
    seen: set[Path] = set()
    print(f"{'layer':<62} {'files':>5} {'lines':>7}")
    for layer, parts in LAYERS.items():
        files = []
        for part in parts:
            p = lib / part
            files += sorted(p.rglob("*.py")) if p.is_dir() else ([p] if p.is_file() else [])
        seen |= set(files)
        print(f"{layer:<62} {len(files):>5} {sum(map(lines, files)):>7}")
    studies = lib / "studies"
    total = 0
    for d in sorted(x for x in studies.iterdir() if x.is_dir() and not x.name.startswith("_")):
        files = sorted(d.rglob("*.py"))
        seen |= set(files)
        n = sum(map(lines, files))
        total += n
        print(f"  study {d.name:<54} {len(files):>5} {n:>7}")
    print(f"{'studies (all)':<62} {'':>5} {total:>7}")
    rest = sorted(set(lib.rglob("*.py")) - seen)
    for f in rest:
        print(f"  unassigned: {f.relative_to(lib)} ({lines(f)} lines)")
    print(f"{'library total':<62} {len(list(lib.rglob('*.py'))):>5} {sum(map(lines, lib.rglob('*.py'))):>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
