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

* :func:`ship` copies a finished run in (``python -m schedlab.publish.reproduce ship
  [STEM ...] --profile full``), one study at a time if need be, with the run's
  executed notebook (``results/<profile>/notebooks/<stem>.ipynb``) as
  ``shipped/<profile>/notebooks/<stem>.ipynb``: outputs embedded, figures
  resampled to screen resolution (:data:`SCREEN_DPI`), refused unless every
  table it shows equals the study's ``tables/*.csv`` (:func:`notebook_problems`);
  the manifest gives its sha256 under the study's ``notebook``;
* :func:`sources` says, per study, where the paper reads it from: the shipped
  results by default, this run's when a study is not shipped or when asked
  (``python -m schedlab.publish.reproduce paper --from run``);
* :func:`quick_check` compares a quick run's scorecard rows with the shipped
  full ones: agreeing within their intervals, or listed as disagreements.
"""
from __future__ import annotations

import csv
import hashlib
import json
import math
import shutil
from datetime import datetime, timezone
from pathlib import Path

from .. import paths
from ..errors import InputError
from ..files import atomic, atomic_folder
from ..names import md_uncell

SHIPPED = paths.ROOT / "shipped"
MANIFEST = "MANIFEST.json"
#: what a shipped study holds (relative globs); datasets and notebooks stay out
PRODUCTS = ("numbers.json", "findings.json", "parameters.json", "tables/*.csv", "figures/*.png")
#: a run the notebook makes inside the study's folder (study 10's ``your-model/``: the same driver on
#: the user's model) is shipped with its products too, since the notebook shows its tables
NESTED = tuple(f"*/{pattern}" for pattern in PRODUCTS)


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
    for pattern in PRODUCTS + NESTED:
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
    with atomic(p) as tmp, open(tmp, "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


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


# ------------------------------------------------------ executed notebooks --

#: the folder of the executed notebooks, beside the studies
NOTEBOOKS = "notebooks"
#: figures in a shipped notebook: resampled from the study's PNG (savefig at 150 dpi) to this
SCREEN_DPI = 100


def notebook_path(stem: str, profile: str = "full", root: Path | None = None) -> Path:
    """Where study ``stem``'s executed notebook is shipped."""
    return folder(profile, root) / NOTEBOOKS / f"{stem}.ipynb"


def _split_row(line: str) -> list[str]:
    import re

    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [md_uncell(c.strip()) for c in re.split(r"(?<!\\)\|", inner)]


def markdown_tables(text: str) -> list[dict]:
    """The tables of a Markdown text as :meth:`schedlab.table.Table.to_markdown`
    writes them: ``{"title", "columns", "rows"}`` each (cells as shown)."""
    out, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and set(lines[i + 1].replace("|", "").strip()) <= set(":- ") \
                and lines[i + 1].startswith("|"):
            title = ""
            for back in range(i - 1, -1, -1):
                if lines[back].strip():
                    t = lines[back].strip()
                    title = md_uncell(t[2:-2]) if t.startswith("**") and t.endswith("**") else ""
                    break
            columns, rows, j = _split_row(lines[i]), [], i + 2
            while j < len(lines) and lines[j].startswith("|"):
                rows.append(_split_row(lines[j]))
                j += 1
            out.append({"title": title, "columns": columns, "rows": rows})
            i = j
        else:
            i += 1
    return out


def notebook_tables(nb) -> list[tuple[int, int, dict]]:
    """Every Markdown table an executed notebook shows: ``(cell index, output
    index, table)``."""
    found = []
    for ci, cell in enumerate(nb["cells"]):
        for oi, o in enumerate(cell.get("outputs", []) if cell.get("cell_type") == "code" else []):
            md = o.get("data", {}).get("text/markdown") if o.get("output_type") in ("display_data", "execute_result") else None
            if md is None:
                continue
            md = "".join(md) if isinstance(md, list) else md
            for t in markdown_tables(md):
                found.append((ci, oi, t))
    return found


def _shown_equals(shown: str, value: str) -> bool:
    """Whether a cell shown in a notebook is the CSV's value as Table.to_markdown
    shows it (floats rounded to the decimals shown)."""
    import re

    if shown == value:
        return True
    m = re.fullmatch(r"-?\d+(?:\.(\d+))?", shown)
    if not m or value == "":
        return False
    try:
        v = float(value)
    except ValueError:
        return False
    return f"{v:.{len(m.group(1) or '')}f}" == shown


def _table_disagreement(t: dict, header: list[str], rows: list[list[str]]) -> str | None:
    if len(t["rows"]) != len(rows):
        return f"{len(t['rows'])} rows shown, {len(rows)} in the CSV"
    for i, (shown, value) in enumerate(zip(t["rows"], rows)):
        if len(shown) != len(value):
            return f"row {i + 1}: {len(shown)} cells shown, {len(value)} in the CSV"
        for c, s, v in zip(header, shown, value):
            if not _shown_equals(s, v):
                return f"row {i + 1}, column {c!r}: shown {s!r}, the CSV holds {v!r}"
    return None


def match_tables(nb, tables_dir: Path) -> tuple[dict, list[str]]:
    """Match every table an executed notebook shows with the study's
    ``tables/*.csv`` (and those of a run the notebook made inside the
    study's folder, ``<run>/tables/*.csv``, named ``<run>/<name>``): a shown
    table whose columns are those of a CSV must equal one such CSV (values
    as shown: floats to the decimals shown).  Returns ``({(cell, output, k):
    csv name}, problems)``; a table whose columns no CSV has (the
    parameters) is neither."""
    csvs = {}            # name -> (header, rows, the file as a message names it)
    tables_dir = Path(tables_dir)
    files = sorted(tables_dir.glob("*.csv"))
    if tables_dir.name == "tables":
        files += sorted(tables_dir.parent.glob("*/tables/*.csv"))
    for f in files:
        with open(f, newline="") as fh:
            rows = list(csv.reader(fh))
        if rows:
            run = "" if f.parent == tables_dir else f"{f.parent.parent.name}/"
            csvs[f"{run}{f.stem}"] = (rows[0], rows[1:], f"{run}tables/{f.name}")
    matched, problems, seen = {}, [], {}
    for ci, oi, t in notebook_tables(nb):
        k = seen[(ci, oi)] = seen.get((ci, oi), -1) + 1
        same = {name: hr for name, hr in csvs.items() if hr[0] == t["columns"]}
        if not same:
            continue
        why = {name: _table_disagreement(t, header, rows) for name, (header, rows, _) in same.items()}
        ok = [name for name, w in why.items() if w is None]
        if ok:
            matched[(ci, oi, k)] = ok[0]
        else:
            label = f"table {t['title']!r}" if t["title"] else "a table"
            problems.append(f"cell {ci + 1}: {label} differs from " + "; ".join(
                f"{csvs[name][2]} ({w})" for name, w in why.items()))
    return matched, problems


def notebook_problems(nb_path: Path, tables_dir: Path) -> list[str]:
    """Problems of an executed notebook against its study's tables: one it
    shows that differs from the CSV, or none of the study's tables shown."""
    import nbformat

    where = paths.relative(Path(nb_path))
    try:
        nb = nbformat.read(str(nb_path), as_version=4)
    except Exception as exc:           # noqa: BLE001 -- unreadable is a problem to report, whatever its kind
        return [f"{where}: unreadable notebook ({exc})"]
    if not any(c.get("outputs") for c in nb.cells if c.cell_type == "code"):
        return [f"{where}: no outputs (not an executed notebook)"]
    matched, problems = match_tables(nb, tables_dir)
    problems = [f"{where}: {p}" for p in problems]
    if not matched and any(Path(tables_dir).glob("*.csv")) and not problems:
        problems.append(f"{where}: shows none of the tables of {paths.relative(Path(tables_dir))}")
    return problems


def _screen_png(data: str, dpi: float) -> str:
    """A base64 PNG resampled from ``dpi`` to :data:`SCREEN_DPI`."""
    import base64
    import io

    from PIL import Image

    raw = base64.b64decode(data)
    if dpi <= SCREEN_DPI:
        return data
    with Image.open(io.BytesIO(raw)) as im:
        scale = SCREEN_DPI / dpi
        small = im.convert("RGBA").resize((max(1, round(im.width * scale)), max(1, round(im.height * scale))),
                                          Image.LANCZOS)
        flat = Image.new("RGB", small.size, (255, 255, 255))     # the figures' white background
        flat.paste(small, mask=small.split()[3])
        # 256 colours: a plot's few colours and their anti-aliasing (a third of the RGBA PNG's size)
        flat = flat.quantize(colors=256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
        buf = io.BytesIO()
        flat.save(buf, format="PNG", optimize=True, dpi=(SCREEN_DPI, SCREEN_DPI))
    return base64.b64encode(buf.getvalue()).decode("ascii")


def notebook_for_shipping(src: Path) -> str:
    """The text of an executed notebook as shipped: its figures at screen
    resolution (from the PNG's own dpi, else the compendium's savefig dpi),
    consecutive stream outputs of a cell merged (the progress lines)."""
    import base64
    import io

    import nbformat
    from PIL import Image

    from ..protocol.plots import RC

    nb = nbformat.read(str(src), as_version=4)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        merged = []
        for o in cell.outputs:
            if o.output_type == "stream" and merged and merged[-1].output_type == "stream" \
                    and merged[-1].name == o.name:
                merged[-1].text += o.text
                continue
            if o.output_type in ("display_data", "execute_result") and "image/png" in o.get("data", {}):
                data = o.data["image/png"]
                with Image.open(io.BytesIO(base64.b64decode(data))) as im:
                    dpi = float((im.info.get("dpi") or (RC["savefig.dpi"],))[0]) or RC["savefig.dpi"]
                o.data["image/png"] = _screen_png(data, round(dpi))
            merged.append(o)
        cell.outputs = merged
    return nbformat.writes(nb) + "\n"


def ship(stems=None, profile: str = "full", results: Path | None = None, root: Path | None = None,
         log=print) -> list[str]:
    """Copy the finished runs of ``stems`` (default: every study that has a
    ``numbers.json`` in ``results/<profile>/``) into ``shipped/<profile>/``,
    replacing what was there, and record them in the manifest.  A run of
    other values than the profile's (``results/custom``) cannot be given:
    the driver only writes ``results/<profile>/`` for the profile's own."""
    from ..studies.registry import STUDIES, get

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
        nb_src = results / NOTEBOOKS / f"{e.stem}.ipynb"
        if not nb_src.exists():
            raise InputError(f"{paths.relative(nb_src)}: missing: study {e.name}'s executed notebook (run it with "
                             f"python -m schedlab.publish.reproduce notebook {e.stem} --profile {profile}, or make reproduce "
                             f"PROFILE={profile}; schedlab study run writes no notebook)")
        nb_problems = notebook_problems(nb_src, src / "tables")
        if nb_problems:
            raise InputError(f"{paths.relative(nb_src)}: not the run of {paths.relative(src)} (re-run the notebook):\n  "
                             + "\n  ".join(nb_problems))
        nb_text = notebook_for_shipping(nb_src)
        files = {}
        final = dest_root / e.stem
        with atomic_folder(final) as tmp:
            for f in _files(src):
                rel = f.relative_to(src).as_posix()
                (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(f, tmp / rel)
                files[rel] = _sha256(tmp / rel)
        nb_dest = notebook_path(e.stem, profile, root)
        with atomic(nb_dest, suffix=".ipynb") as nb_tmp:
            nb_tmp.write_text(nb_text, encoding="utf-8")
        timing = numbers.get("timing", {})
        manifest.setdefault("studies", {})[e.stem] = {
            "notebook": _sha256(nb_dest),
            "study": e.name, "commit": (prov.get("git") or {}).get("commit"),
            "dirty": (prov.get("git") or {}).get("dirty"), "created": prov.get("created"), "wall_s": timing.get("wall_s"),
            "jobs_simulated": timing.get("jobs_simulated"), "cells_computed": timing.get("cells_computed"),
            "shipped": datetime.now(timezone.utc).isoformat(timespec="seconds"), "files": files}
        manifest["profile"] = profile
        _write_manifest(manifest, profile, root)
        shipped.append(e.stem)
        if log:
            log(f"shipped {e.stem}: {len(files)} files, {sum((final / r).stat().st_size for r in files) / 1e6:.1f} MB "
                f"into {paths.relative(final)}; its executed notebook, {nb_dest.stat().st_size / 1e6:.1f} MB, "
                f"as {paths.relative(nb_dest)}")
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
                            "python -m schedlab.publish.reproduce migrate-shipped")
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
        if "notebook" in entry:
            p = base / NOTEBOOKS / f"{stem}.ipynb"
            known.add(p)
            if not p.exists():
                problems.append(f"{paths.relative(p)}: missing")
            elif _sha256(p) != entry["notebook"]:
                problems.append(f"{paths.relative(p)}: differs from what was shipped (sha256)")
            else:
                problems += notebook_problems(p, d / "tables")
    if base.is_dir():
        for p in sorted(base.rglob("*")):
            if p.is_file() and p not in known:
                problems.append(f"{paths.relative(p)}: not in {MANIFEST}")
    return problems


def without_notebook(profile: str = "full", root: Path | None = None) -> list[str]:
    """The shipped studies whose executed notebook is not shipped (shipped
    before notebooks were: a re-ship adds it)."""
    return sorted(stem for stem, e in read_manifest(profile, root).get("studies", {}).items() if "notebook" not in e)


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
            with atomic(base / f.name) as tmp:
                shutil.copyfile(f, tmp)
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
    from ..protocol.scorecard import NOT_COMPARED

    if NOT_COMPARED in (quick["verdict"], full["verdict"]):
        return "not comparable", "a protocol that differs from the paper's (not compared in the scorecard)"
    if quick["rule"] == "claim" or full["rule"] == "claim":
        # a claim's outcome is its verdict by the rule (a row outside the count keeps it in that column)
        qv, fv = (r.get("verdict by the rule") or r["verdict"] for r in (quick, full))
        same = qv == fv
        return ("agree" if same else "disagree"), f"claim {'holds' if fv == 'reproduced' else 'fails'} " \
                                                   f"at full size, {'holds' if qv == 'reproduced' else 'fails'} in quick"
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
    from ..studies.registry import BY_STEM

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
