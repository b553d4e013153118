"""Results shipped with the repository: the small products of a full-profile
run, so that every clone's paper shows the papers' protocols at full size
without spending the hour they take.

``shipped/<profile>/<NN-study>/`` holds what the study's run wrote except its
datasets: ``numbers.json`` (with its provenance: commit, parameters, inputs
and checksums, timing), ``findings.json``, ``parameters.json``,
``tables/*.csv`` (the scorecard among them) and ``figures/*.png``.
``shipped/<profile>/MANIFEST.json`` gives each file's sha256 and, per study,
the commit it ran at and its wall time; :func:`verify` checks them.

* :func:`ship` copies a finished run in (``python -m schedlab.reproduce ship
  [STEM ...] --profile full``), one study at a time if need be;
* :func:`sources` says, per study, where the paper reads it from: the shipped
  results by default, this run's when a study is not shipped or when asked
  (``python -m schedlab.reproduce paper --from run``);
* :func:`quick_check` compares a quick run's scorecard rows with the shipped
  full ones: agreeing within their intervals, or listed as disagreements.
"""
from __future__ import annotations

import csv
import hashlib
import json
import math
import os
import shutil
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from . import paths
from .errors import InputError

SHIPPED = paths.ROOT / "shipped"
MANIFEST = "MANIFEST.json"
#: what a shipped study holds (relative globs); datasets and notebooks stay out
PRODUCTS = ("numbers.json", "findings.json", "parameters.json", "tables/*.csv", "figures/*.png")


def folder(profile: str = "full", root: Path | None = None) -> Path:
    return Path(root or SHIPPED) / profile


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _files(study_dir: Path) -> list[Path]:
    out = []
    for pattern in PRODUCTS:
        out.extend(sorted(study_dir.glob(pattern)))
    return out


def read_manifest(profile: str = "full", root: Path | None = None) -> dict:
    p = folder(profile, root) / MANIFEST
    if not p.exists():
        return {"profile": profile, "studies": {}}
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError) as exc:
        raise InputError(f"{paths.relative(p)}: unreadable manifest ({exc})") from exc


def _write_manifest(manifest: dict, profile: str, root: Path | None) -> None:
    p = folder(profile, root) / MANIFEST
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=".manifest.", suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, p)


def ship(stems=None, profile: str = "full", results: Path | None = None, root: Path | None = None,
         log=print) -> list[str]:
    """Copy the finished runs of ``stems`` (default: every study that has a
    ``numbers.json`` in ``results/<profile>/``) into ``shipped/<profile>/``,
    replacing what was there, and record them in the manifest.  A run of
    other values than the profile's (``results/custom``) cannot be given:
    the driver only writes ``results/<profile>/`` for the profile's own."""
    from .studies.registry import STUDIES, get

    results = Path(results or paths.RESULTS / profile)
    entries = [get(s) for s in stems] if stems else [e for e in STUDIES if (results / e.stem / "numbers.json").exists()]
    if not entries:
        raise InputError(f"{paths.relative(results)}: no finished study to ship (run the {profile} profile first)")
    dest_root = folder(profile, root)
    dest_root.mkdir(parents=True, exist_ok=True)
    manifest = read_manifest(profile, root)
    shipped = []
    for e in entries:
        src = results / e.stem
        nfile = src / "numbers.json"
        if not nfile.exists():
            raise InputError(f"{paths.relative(nfile)}: missing: study {e.name} has not finished a {profile} run")
        numbers = json.loads(nfile.read_text())
        prov = numbers.get("provenance", {})
        if prov.get("profile") not in (None, profile):
            raise InputError(f"{paths.relative(nfile)}: a {prov.get('profile')} run, not {profile}")
        tmp = Path(tempfile.mkdtemp(dir=dest_root, prefix=f".{e.stem}."))
        files = {}
        for f in _files(src):
            rel = f.relative_to(src).as_posix()
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, tmp / rel)
            files[rel] = _sha256(tmp / rel)
        final = dest_root / e.stem
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
        timing = numbers.get("timing", {})
        manifest.setdefault("studies", {})[e.stem] = {
            "study": e.name, "commit": (prov.get("git") or {}).get("commit"),
            "dirty": (prov.get("git") or {}).get("dirty"), "created": prov.get("created"), "wall_s": timing.get("wall_s"),
            "jobs_simulated": timing.get("jobs_simulated"), "cells_computed": timing.get("cells_computed"),
            "shipped": datetime.now(timezone.utc).isoformat(timespec="seconds"), "files": files}
        manifest["profile"] = profile
        _write_manifest(manifest, profile, root)
        shipped.append(e.stem)
        if log:
            log(f"shipped {e.stem}: {len(files)} files, {sum((final / r).stat().st_size for r in files) / 1e6:.1f} MB "
                f"into {paths.relative(final)}")
    return shipped


def verify(profile: str = "full", root: Path | None = None) -> list[str]:
    """Problems of the shipped results: a file missing, altered or not in the
    manifest.  Empty when every shipped file is what was shipped."""
    base = folder(profile, root)
    manifest = read_manifest(profile, root)
    problems = []
    for stem, entry in sorted(manifest.get("studies", {}).items()):
        d = base / stem
        listed = entry.get("files", {})
        for rel, digest in sorted(listed.items()):
            p = d / rel
            if not p.exists():
                problems.append(f"{paths.relative(p)}: missing")
            elif _sha256(p) != digest:
                problems.append(f"{paths.relative(p)}: differs from what was shipped (sha256)")
        for p in _files(d):
            if p.relative_to(d).as_posix() not in listed:
                problems.append(f"{paths.relative(p)}: not in {MANIFEST}")
    return problems


def sources(profile: str, results: Path, use_shipped: bool = True, root: Path | None = None) -> dict[str, tuple[Path, str]]:
    """Per study stem, the folder the paper reads and what it is: ``shipped``
    (the full-size results of this repository) or ``run`` (this build's own,
    of ``profile``)."""
    out = {}
    if Path(results).exists():
        for d in sorted(p for p in Path(results).iterdir() if (p / "numbers.json").exists()):
            out[d.name] = (d, "run")
    if use_shipped:
        base = folder("full", root)
        for stem in read_manifest("full", root).get("studies", {}):
            if (base / stem / "numbers.json").exists():
                out[stem] = (base / stem, "shipped")
    return out


# ------------------------------------------------------------ quick check --

KEY = ("paper", "item", "trace", "metric")


def _num(x):
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def read_scorecard(path: Path) -> dict[tuple, dict]:
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    out = {}
    for r in rows:
        k = tuple(r[c] for c in KEY)
        n = 2
        while k in out:            # the same comparison twice (rare): keep both apart
            k = tuple(r[c] for c in KEY[:-1]) + (f"{r['metric']} #{n}",)
            n += 1
        out[k] = r
    return out


def agree(quick: dict, full: dict) -> tuple[str, str]:
    """Whether one quick row agrees with its full row: (status, why).
    ``agree``: the same value, or either value inside the other's 95 %
    interval (a claim: the same outcome); ``disagree`` otherwise;
    ``not comparable``: the quick profile's protocol differs for this row
    (its verdict is "not compared") or the full row is not compared."""
    from .scorecard import NOT_COMPARED

    if NOT_COMPARED in (quick["verdict"], full["verdict"]):
        return "not comparable", "a protocol that differs from the paper's (not compared in the scorecard)"
    if quick["rule"] == "claim" or full["rule"] == "claim":
        same = quick["verdict"] == full["verdict"]
        return ("agree" if same else "disagree"), f"claim {'holds' if full['verdict'] == 'reproduced' else 'fails'} " \
                                                   f"at full size, {'holds' if quick['verdict'] == 'reproduced' else 'fails'} in quick"
    q, f = _num(quick["ours"]), _num(full["ours"])
    if q is None or f is None:
        same = quick["ours"] == full["ours"]
        return ("agree" if same else "disagree"), "" if same else f"{quick['ours']!r} vs {full['ours']!r}"
    if q == f or abs(q - f) <= 1e-9 * max(abs(q), abs(f)):
        return "agree", "equal"
    for (lo, hi), v, whose in (((quick["ours 95% low"], quick["ours 95% high"]), f, "quick"),
                               ((full["ours 95% low"], full["ours 95% high"]), q, "full")):
        lo, hi = _num(lo), _num(hi)
        if lo is not None and hi is not None and lo <= v <= hi:
            return "agree", f"inside the {whose} interval"
    rel = abs(q - f) / abs(f) if f else math.inf
    has = any(_num(r[c]) is not None for r in (quick, full) for c in ("ours 95% low", "ours 95% high"))
    return "disagree", (f"{rel:.1%} apart, outside both intervals" if has else f"{rel:.1%} apart (no interval)")


STATUSES = ("agree", "disagree", "not comparable", "only in quick", "only in full")


def quick_check(quick_results: Path, root: Path | None = None) -> tuple[list[list], dict]:
    """Every scorecard row of a quick run beside the shipped full row:
    returns the rows ``[study, paper, item, trace, metric, full, quick, status,
    why]`` and the counts by study and status."""
    from .studies.registry import BY_STEM

    base = folder("full", root)
    rows, counts = [], {}
    for stem in sorted(read_manifest("full", root).get("studies", {})):
        fcsv, qcsv = base / stem / "tables" / "scorecard.csv", Path(quick_results) / stem / "tables" / "scorecard.csv"
        if not (fcsv.exists() and qcsv.exists()):
            continue
        study = BY_STEM[stem].name if stem in BY_STEM else stem
        full, quick = read_scorecard(fcsv), read_scorecard(qcsv)
        c = counts.setdefault(study, {s: 0 for s in STATUSES})
        for k in sorted(set(full) | set(quick)):
            if k not in full:
                status, why, fv, qv = "only in quick", "", "", quick[k]["ours"]
            elif k not in quick:
                status, why, fv, qv = "only in full", "", full[k]["ours"], ""
            else:
                status, why = agree(quick[k], full[k])
                fv, qv = full[k]["ours"], quick[k]["ours"]
            c[status] += 1
            rows.append([study, *k, fv, qv, status, why])
    return rows, counts


QUICK_CHECK_COLUMNS = ["study", "paper", "item", "trace", "metric", "full (shipped)", "quick (this run)", "status",
                       "why"]
