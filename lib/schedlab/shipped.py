"""Results shipped with the repository: the small products of a full-profile
run, so that every clone's paper shows the papers' protocols at full size
without spending the hour they take.

``shipped/<profile>/<NN-study>/`` holds what the study's run wrote except its
datasets: ``numbers.json`` (with its provenance: commit, parameters, inputs
and checksums, timing), ``findings.json``, ``parameters.json``,
``tables/*.csv`` (the scorecard among them) and ``figures/*.png``.
``shipped/<profile>/MANIFEST.json`` gives each file's sha256 and, per study,
the commit it ran at and its wall time; the files beside the studies (the
benchmark JSONs ``bench-profile-*.json``) are in its ``files``, and its
``checksum`` is the sha256 of its entries (everything else in it, as
canonical JSON), so an edit of the manifest by hand shows.  :func:`verify`
vouches for the whole folder: a missing or unreadable manifest, a manifest
whose checksum fails, a file missing or altered, and any file under the
folder that the manifest does not list (a study dropped from it, a stray
file) are each a problem.  :func:`migrate` brings a manifest of format 1
(no checksum, no ``files``) to format 2, after checking its studies.

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
from .files import umask_mode

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


#: the manifest's format: 2 adds ``files`` (beside the studies) and ``checksum``
FORMAT = 2
#: files beside the studies that the manifest lists (relative globs)
EXTRAS = ("bench-profile-*.json",)


def read_manifest(profile: str = "full", root: Path | None = None, *, missing_ok: bool = True) -> dict:
    """The manifest of ``shipped/<profile>/``; an empty one when there is
    none and ``missing_ok`` (shipping a first study), else InputError."""
    p = folder(profile, root) / MANIFEST
    if not p.exists():
        if not missing_ok:
            raise InputError(f"{paths.relative(p)}: missing: nothing in {paths.relative(p.parent)} can be vouched for")
        return {"profile": profile, "studies": {}}
    try:
        manifest = json.loads(p.read_text())
    except (OSError, ValueError) as exc:
        raise InputError(f"{paths.relative(p)}: unreadable manifest ({exc})") from exc
    if not isinstance(manifest, dict) or not isinstance(manifest.get("studies", {}), dict) \
            or not isinstance(manifest.get("files", {}), dict) \
            or not all(isinstance(e, dict) and isinstance(e.get("files", {}), dict)
                       for e in manifest.get("studies", {}).values()):
        raise InputError(f"{paths.relative(p)}: unreadable manifest (not an object with 'studies' of 'files')")
    return manifest


def checksum(manifest: dict) -> str:
    """The sha256 of a manifest's entries: everything but ``checksum``, as
    canonical JSON (sorted keys, no spaces)."""
    body = {k: v for k, v in manifest.items() if k != "checksum"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _write_manifest(manifest: dict, profile: str, root: Path | None) -> None:
    p = folder(profile, root) / MANIFEST
    manifest = dict(manifest, format=FORMAT)
    manifest.setdefault("files", {})
    manifest["checksum"] = checksum(manifest)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=".manifest.", suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    umask_mode(tmp)
    os.replace(tmp, p)


def _extras(base: Path) -> list[Path]:
    return sorted({p for pattern in EXTRAS for p in base.glob(pattern) if p.is_file()})


def migrate(profile: str = "full", root: Path | None = None, log=print) -> dict:
    """Rewrite a format-1 manifest as format 2: the files beside the studies
    (:data:`EXTRAS`) listed with their sha256, and the checksum.  Refused
    when the studies do not verify as they are (migrating must not bless an
    edit).  Nothing but the manifest is written."""
    base = folder(profile, root)
    manifest = read_manifest(profile, root, missing_ok=False)
    if manifest.get("format") == FORMAT:
        raise InputError(f"{paths.relative(base / MANIFEST)}: already format {FORMAT}")
    problems = [p for p in verify(profile, root, _migrating=True)]
    if problems:
        raise InputError(f"{paths.relative(base / MANIFEST)}: not migrated, the studies do not verify:\n  "
                         + "\n  ".join(problems))
    manifest["files"] = {p.name: _sha256(p) for p in _extras(base)}
    _write_manifest(manifest, profile, root)
    if log:
        log(f"{paths.relative(base / MANIFEST)}: format {FORMAT}, {len(manifest['files'])} files beside the "
            f"studies listed ({', '.join(manifest['files'])}), checksum written")
    return read_manifest(profile, root)


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
        umask_mode(tmp, directory=True)
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


def verify(profile: str = "full", root: Path | None = None, *, _migrating: bool = False) -> list[str]:
    """Problems of the shipped results: the manifest missing or unreadable
    (InputError), its checksum failing, a file missing, altered, or anywhere
    under the folder without being in the manifest.  Empty when every file
    under ``shipped/<profile>/`` is what was shipped."""
    base = folder(profile, root)
    manifest = read_manifest(profile, root, missing_ok=False)
    rel_manifest = paths.relative(base / MANIFEST)
    problems = []
    if not _migrating:
        if "checksum" not in manifest:
            problems.append(f"{rel_manifest}: no checksum (format {manifest.get('format', 1)}): migrate it with "
                            "python -m schedlab.reproduce migrate-shipped")
        elif manifest["checksum"] != checksum(manifest):
            problems.append(f"{rel_manifest}: its checksum does not match its entries (the manifest was edited)")
    if not manifest.get("studies"):
        problems.append(f"{rel_manifest}: lists no study")
    known = {base / MANIFEST}
    for rel, digest in sorted(manifest.get("files", {}).items()):
        p = base / rel
        if "/" in rel or rel.startswith("."):
            problems.append(f"{rel_manifest}: files: {rel!r} is not a file beside the studies")
            continue
        known.add(p)
        if not p.exists():
            problems.append(f"{paths.relative(p)}: missing")
        elif _sha256(p) != digest:
            problems.append(f"{paths.relative(p)}: differs from what was shipped (sha256)")
    if _migrating:
        known.update(_extras(base))
    for stem, entry in sorted(manifest.get("studies", {}).items()):
        d = base / stem
        listed = entry.get("files", {})
        for rel, digest in sorted(listed.items()):
            p = d / rel
            if ".." in Path(rel).parts or Path(rel).is_absolute():
                problems.append(f"{rel_manifest}: studies: {stem}: {rel!r} is outside the study's folder")
                continue
            if not p.exists():
                problems.append(f"{paths.relative(p)}: missing")
            elif _sha256(p) != digest:
                problems.append(f"{paths.relative(p)}: differs from what was shipped (sha256)")
            known.add(p)
    if base.is_dir():
        for p in sorted(base.rglob("*")):
            if p.is_file() and p not in known:
                problems.append(f"{paths.relative(p)}: not in {MANIFEST}")
    return problems


def ship_files(files, profile: str = "full", root: Path | None = None, log=print) -> list[str]:
    """Copy files that go beside the studies (:data:`EXTRAS`: the benchmark
    JSONs of bench/bench_profile.py) into ``shipped/<profile>/`` and list
    them in the manifest with their sha256."""
    import fnmatch

    base = folder(profile, root)
    manifest = read_manifest(profile, root, missing_ok=False)
    names = []
    for f in map(Path, files):
        if not any(fnmatch.fnmatch(f.name, pattern) for pattern in EXTRAS):
            raise InputError(f"{f}: not a file shipped beside the studies ({', '.join(EXTRAS)})")
        if not f.is_file():
            raise InputError(f"{f}: no such file")
        if f.resolve() != (base / f.name).resolve():
            shutil.copyfile(f, base / f.name)
        manifest.setdefault("files", {})[f.name] = _sha256(base / f.name)
        names.append(f.name)
        if log:
            log(f"shipped {f.name} into {paths.relative(base)}")
    _write_manifest(manifest, profile, root)
    return names


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
