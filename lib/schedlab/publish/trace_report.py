"""Every trace-based study on a user's own logs, and one page to read it.

``make reproduce TRACES="a.swf b.swf?request=runtime"`` (or ``python -m
schedlab.publish.trace_report a.swf ...``) runs each study whose parameters
name traces through its notebook (papermill, kernel ``schedlab``, the
profile's sizes) with every trace parameter set to those logs, into
``results/traces/<their names>/``: ``<NN-study>/`` (tables, figures,
datasets, numbers), ``notebooks/`` and ``html/`` (the executed notebooks),
and ``report.html``: a single self-contained page with, per study, how
each log was cleaned (the choices, the machine size and where it came
from, what was removed, the warnings), the study's findings, its tables
and its figures.  A study that fails is reported on the page with its
error, and the others still run.
"""
from __future__ import annotations

import base64
import csv
import json
import os
import sys
import time
import traceback
from pathlib import Path

from .. import paths
from ..errors import InputError, NotebookError
from ..files import atomic
from ..names import html_text


def trace_studies():
    """The registry entries of the studies that take traces (and their
    trace parameters: name -> whether it takes a list)."""
    from ..studies.registry import STUDIES
    from ..protocol.study import study_module, trace_fields

    out = []
    for entry in STUDIES:
        mod = study_module(entry)
        fields = trace_fields(mod.Params) if hasattr(mod, "Params") else {}
        if fields:
            out.append((entry, fields))
    return out


def run(specs, profile: str = "quick", only=None, log=print, out=None, status: dict | None = None) -> Path:
    """Run every trace-based study (or those named in ``only``) on the
    traces ``specs`` (registry names, SWF paths or trace specs with cleaning
    choices) into ``out`` (default ``results/traces/<their names>/``);
    returns the path of ``report.html``; ``status`` (a dict, filled): each
    study's outcome."""
    from ..workloads import traces as _traces
    from .reproduce import run_notebook
    from ..protocol.study import own_label
    from ..workloads.traces import text

    infos = _traces.trace_list(list(specs), "TRACES")
    texts = [text(i) for i in infos]
    root = Path(out) if out is not None else paths.RESULTS / "traces" / own_label(infos)
    root.mkdir(parents=True, exist_ok=True)
    studies = trace_studies()
    if only:
        known = {e.name for e, _ in studies} | {e.stem for e, _ in studies}
        bad = [s for s in only if s not in known]
        if bad:
            raise InputError(f"not a trace-based study: {', '.join(bad)} (known: "
                             f"{', '.join(e.name for e, _ in studies)})")
        studies = [(e, f) for e, f in studies if e.name in only or e.stem in only]
    status = {} if status is None else status
    log(f"{len(studies)} studies on {', '.join(i.name for i in infos)} (profile {profile}): "
        f"outputs in {root.relative_to(paths.ROOT) if root.is_relative_to(paths.ROOT) else root}")
    for entry, fields in studies:
        overrides = {k: (list(texts) if many else texts[0]) for k, many in fields.items()}
        t = time.time()
        log(f"running {entry.stem} ...")
        try:
            run_notebook(paths.ROOT / entry.notebook, profile, results=root, overrides=overrides)
            status[entry.stem] = {"ok": True, "seconds": round(time.time() - t, 1)}
            log(f"  {entry.stem} done in {time.time() - t:.1f} s")
        except Exception as exc:                      # noqa: BLE001 -- reported on the page, others go on
            status[entry.stem] = {"ok": False, "seconds": round(time.time() - t, 1),
                                  "error": error_line(exc),
                                  "trace": (getattr(exc, "traceback", None) if isinstance(exc, NotebookError)
                                            else traceback.format_exc())[-8000:]}
            log(f"  {entry.stem} FAILED: {status[entry.stem]['error']}")
    with atomic(root / "status.json") as tmp:
        tmp.write_text(json.dumps(status, indent=1))
    page = write(root, [e for e, _ in studies], [i.name for i in infos], profile, status)
    failed = [s for s, v in status.items() if not v["ok"]]
    log(f"wrote {page}" + (f"; {len(failed)} failed: {', '.join(failed)}" if failed else ""))
    return page


def error_line(exc) -> str:
    """A study's failure as one line, its message whole: a schedlab error
    raised in its notebook as that message, another error in the notebook as
    its class and value (papermill's ``ename: evalue``), else ``Class:
    message``."""
    if isinstance(exc, NotebookError):
        return f"{exc.kind}: {exc}"
    if hasattr(exc, "ename") and hasattr(exc, "evalue"):
        return f"{exc.ename}: {exc.evalue}"
    return f"{type(exc).__name__}: {exc}"


def split_logs(text: str) -> list[str]:
    """The logs of ``make reproduce TRACES="..."`` (given as text, never
    through a shell): the whole text when it names one existing file (a path
    may hold blanks and quotes), else shell-style words (``'my log.swf'``,
    ``my\\ log.swf``) split here, in Python; nothing is expanded or run."""
    import shlex

    stripped = text.strip()
    if not stripped:
        raise InputError("TRACES: no log given")
    base = stripped.partition("?")[0]
    if Path(base).expanduser().is_file():
        return [stripped]
    try:
        words = shlex.split(stripped, comments=False, posix=True)
    except ValueError as exc:
        raise InputError(f"TRACES: cannot split {stripped!r} into logs ({exc}); quote a log whose name holds "
                         "a blank or a quote, e.g. TRACES=\"'my log.swf' b.swf\"") from None
    return words


# ------------------------------------------------------------------ the page --

_CSS = """
body{font:15px/1.45 system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.6em}h2{border-top:2px solid #ccc;padding-top:.6em;margin-top:2em}h3{font-size:1.05em}
table{border-collapse:collapse;margin:.5em 0 1em;font-size:13px}td,th{border:1px solid #ddd;padding:2px 6px}
th{background:#f4f4f4}td.n{text-align:right;font-variant-numeric:tabular-nums}
.warn{background:#fff4e0;border-left:4px solid #e69500;padding:.3em .7em;margin:.3em 0}
.fail{background:#fde8e8;border-left:4px solid #c22;padding:.3em .7em}
img{max-width:100%;border:1px solid #eee}details{margin:.4em 0}pre{white-space:pre-wrap;font-size:12px}
nav a{margin-right:1em}
"""


_esc = html_text    # the one HTML escaper (schedlab.names)


def _table_html(path: Path) -> str:
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    if not rows:
        return ""
    head = "".join(f"<th>{_esc(c)}</th>" for c in rows[0])

    def cell(c):
        try:
            float(c)
            return f'<td class="n">{_esc(c)}</td>'
        except ValueError:
            return f"<td>{_esc(c)}</td>"
    body = "".join("<tr>" + "".join(cell(c) for c in r) + "</tr>" for r in rows[1:])
    return f"<table><tr>{head}</tr>{body}</table>"


def _cleaning_html(inputs: dict) -> str:
    out = []
    for name, d in inputs.items():
        c = d.get("cleaning")
        if not c:
            continue
        choices = ", ".join(f"{k} = {v}" for k, v in c["choices"].items())
        out.append(f"<p><b>{_esc(name)}</b> ({_esc(d.get('path', ''))}): {c['jobs_out']:,} of {c['jobs_in']:,} "
                   f"jobs kept ({100 * c['removed_share']:.1f} % removed, {100 * c['removed_work_share']:.1f} % "
                   f"of the processor time); m = {c['m']} ({_esc(c['m_source'])}); {_esc(choices)}.</p>")
        rows = "".join(f"<tr><td>{_esc(s)}</td><td class='n'>{n:,}</td><td>{_esc(a)}</td><td>{_esc(r)}</td></tr>"
                       for s, n, a, r in c["steps"] if n)
        if rows:
            out.append(f"<details><summary>cleaning steps</summary><table><tr><th>step</th><th>jobs</th>"
                       f"<th>action</th><th>reason</th></tr>{rows}</table></details>")
        out += [f'<div class="warn">{_esc(w)}</div>' for w in c.get("warnings", [])]
    return "\n".join(out)


def _study_html(entry, folder: Path, state: dict | None) -> str:
    parts = [f'<h2 id="{entry.stem}">{_esc(entry.title)}</h2>',
             f"<p><i>{_esc(entry.summary)}</i> ({_esc(entry.papers)}) &mdash; "
             f'<a href="html/{entry.stem}.html">the executed notebook</a></p>']
    if state and not state["ok"]:
        parts.append(f'<div class="fail"><b>This study failed</b> after {state["seconds"]} s: '
                     f'<pre>{_esc(state["error"])}</pre></div>')
    numbers = folder / "numbers.json"
    if numbers.is_file():
        nums = json.loads(numbers.read_text())
        parts.append("<h3>The logs as this study cleaned them</h3>")
        parts.append(_cleaning_html(nums.get("provenance", {}).get("inputs", {})))
        for note in nums.get("left_out") or []:
            parts.append(f'<div class="warn">Left out: {_esc(note)}</div>')
    found = folder / "findings.json"
    if found.is_file():
        items = json.loads(found.read_text())
        texts = [v for v in items.values() if isinstance(v, str) and v.strip()]
        if texts:
            parts.append("<h3>Findings</h3>" + "".join(f"<p>{_esc(t)}</p>" for t in texts))
    figs = sorted((folder / "figures").glob("*.png")) if (folder / "figures").is_dir() else []
    for f in figs:
        data = base64.b64encode(f.read_bytes()).decode()
        parts.append(f'<figure><img alt="{_esc(f.stem)}" src="data:image/png;base64,{data}">'
                     f"<figcaption>{_esc(f.stem)}</figcaption></figure>")
    tabs = sorted((folder / "tables").glob("*.csv")) if (folder / "tables").is_dir() else []
    if tabs:
        parts.append("<h3>Tables</h3>")
        parts += [f"<details><summary>{_esc(t.stem)}</summary>{_table_html(t)}</details>" for t in tabs]
    return "\n".join(parts)


def write(root: Path, entries, names, profile: str, status: dict | None = None) -> Path:
    """``root/report.html`` from the studies' outputs under ``root``."""
    from datetime import datetime, timezone

    status = status or {}
    nav = " ".join(f'<a href="#{e.stem}">{_esc(e.title)}</a>' for e in entries)
    ok = sum(1 for e in entries if status.get(e.stem, {}).get("ok", True))
    body = [f"<h1>schedlab on {_esc(', '.join(names))}</h1>",
            f"<p>{ok} of {len(entries)} trace-based studies ran to their end with the <b>{_esc(profile)}</b> "
            f"profile's sizes on these logs ({datetime.now(timezone.utc).isoformat(timespec='seconds')}). "
            "What each study did to the logs (the cleaning choices, the machine size and where it came from, "
            "what was removed) is stated at the top of its section, and recorded in its "
            "<code>numbers.json</code>.</p>", f"<nav>{nav}</nav>"]
    body += [_study_html(e, root / e.stem, status.get(e.stem)) for e in entries]
    page = root / "report.html"
    with atomic(page) as tmp:
        tmp.write_text(f"<!doctype html><html><head><meta charset='utf-8'><title>schedlab: "
                       f"{_esc(', '.join(names))}</title><style>{_CSS}</style></head><body>"
                       + "\n".join(body) + "</body></html>")
    return page


def main(argv=None) -> int:
    """``python -m schedlab.publish.trace_report LOG ... [--profile P] [--studies a,b]``
    (``make reproduce TRACES="..."``): every trace-based study on the logs."""
    import argparse
    import time

    from ..protocol.study import PROFILES

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("logs", nargs="*", help="the logs: SWF paths, registry names or PATH?request=..&m=..")
    ap.add_argument("--logs-from-env", default=None, metavar="VAR",
                    help="the logs from environment variable VAR instead (make reproduce TRACES=...: split "
                         "shell-style in Python, one existing file whatever its name holds)")
    ap.add_argument("--studies", default=None, help="only these studies (comma-separated names or notebook stems)")
    ap.add_argument("--profile", default="quick", choices=PROFILES)
    ap.add_argument("--out", default=None, metavar="DIR", help="the outputs' folder (default results/traces/<names>/)")
    args = ap.parse_args(argv)
    t0 = time.time()
    status: dict = {}
    try:
        logs = list(args.logs)
        if args.logs_from_env:
            if logs:
                raise InputError("give the logs as arguments or with --logs-from-env, not both")
            logs = split_logs(os.environ.get(args.logs_from_env, ""))
        if not logs:
            raise InputError("give at least one log")
        page = run(logs, args.profile, only=args.studies.split(",") if args.studies else None, status=status,
                   out=args.out)
    except InputError as exc:
        print(f"trace report: {exc}", file=sys.stderr)
        return 2
    failed = [s for s, v in status.items() if not v["ok"]]
    print(f"open {page} (trace report done in {time.time() - t0:.1f} s)")
    if failed:
        print(f"trace report: {len(failed)} of {len(status)} studies failed:", file=sys.stderr)
        for s in failed:
            print(f"  {s}: {status[s]['error']}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
