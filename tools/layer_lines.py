"""Lines of Python per layer of the library and per study (issue 31's
closing figures): ``python3 tools/layer_lines.py [REPO]``.

The layers are the folders of lib/schedlab (README, "Layout"): the modules at
the top level are the floor, each package below is one layer, listed from
the bottom up in ``LAYERS`` (the order ``tests/test_layers.py`` enforces:
a layer imports only from the layers before it).  ``studies/`` is one layer
whose packages are the studies; its ``__init__.py`` and ``registry.py``
(the study package's shared names and the list of studies) are counted
with the protocol.  A folder of lib/schedlab missing from LAYERS is listed,
so that the table never hides a file."""
from __future__ import annotations

import sys
from pathlib import Path

#: the layers, bottom up: (folder under lib/schedlab, "" for the top level; what it holds)
LAYERS = [
    ("", "floor: errors, paths, files, jobs, declared, validators, stats, lockfile"),
    ("engine", "engine: C core binding, sim, metrics, losses, learned reference"),
    ("workloads", "workloads: traces, SWF, cleaning, importers, formats, check"),
    ("campaigns", "campaigns: runner, cache, cells, datasets"),
    ("protocol", "protocol: driver, scorecard, plots (+ studies registry)"),
    ("science", "science shared by several studies"),
    ("studies", "studies"),
    ("publish", "publish: paper, reproduce, shipped, reports, site"),
    ("tools", "tools: cli, advise, conformance"),
]

#: files of studies/ that belong to the protocol layer (not to any one study)
PROTOCOL_IN_STUDIES = ("__init__.py", "registry.py")


def lines(p: Path) -> int:
    return sum(1 for _ in p.open(encoding="utf-8"))


def layer_files(lib: Path) -> dict[str, list[Path]]:
    """folder -> the .py files of that layer (the top level: only its own files)."""
    out: dict[str, list[Path]] = {}
    for folder, _ in LAYERS:
        if folder == "":
            out[folder] = sorted(lib.glob("*.py"))
        elif folder == "studies":
            out[folder] = sorted(f for f in (lib / folder).rglob("*.py")
                                 if f.parent != lib / folder or f.name not in PROTOCOL_IN_STUDIES)
        else:
            out[folder] = sorted((lib / folder).rglob("*.py")) if (lib / folder).is_dir() else []
    out["protocol"] = out["protocol"] + [lib / "studies" / n for n in PROTOCOL_IN_STUDIES
                                          if (lib / "studies" / n).is_file()]
    return out


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    root = Path(argv[0]) if argv else Path(__file__).resolve().parents[1]
    lib = root / "lib" / "schedlab"
    files = layer_files(lib)
    seen: set[Path] = set()
    print(f"{'layer (bottom up)':<72} {'files':>5} {'lines':>7}")
    for folder, what in LAYERS:
        fs = files[folder]
        seen |= set(fs)
        name = f"{folder or '(top level)'}/ -- {what}" if folder else f"(top level) -- {what}"
        print(f"{name:<72} {len(fs):>5} {sum(map(lines, fs)):>7}")
        if folder == "studies":
            for d in sorted(x for x in (lib / "studies").iterdir() if x.is_dir() and not x.name.startswith("_")):
                study = sorted(d.rglob("*.py"))
                print(f"  study {d.name:<64} {len(study):>5} {sum(map(lines, study)):>7}")
    for f in sorted(set(lib.rglob("*.py")) - seen):
        print(f"  not in a layer: {f.relative_to(lib)} ({lines(f)} lines)")
    every = list(lib.rglob("*.py"))
    print(f"{'library total':<72} {len(every):>5} {sum(map(lines, every)):>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
