"""``make reproduce``: regenerate every result of the compendium.

1. the EASY-FCFS-FCFS baseline of the six main traces
   (``results/engine/baseline.json``);
2. every study notebook in ``notebooks/``, executed by papermill with the
   parameters of ``params/<profile>/<notebook>.yaml``: the executed copy in
   ``results/<profile>/notebooks/``, its HTML in ``results/<profile>/html/``,
   the study's tables, figures, datasets and numbers in
   ``results/<profile>/<notebook>/``;
3. the paper (``schedlab.publish.paper``): ``paper/paper.pdf``.

Usage: ``python -m schedlab.publish.reproduce [all|baseline|notebook [STEM ...]|paper]
[--profile quick|full] [--from shipped|run]``; ``ship [STEM ...] --profile full``
copies a finished full run's small products into ``shipped/full/``
(:mod:`schedlab.publish.shipped`), ``verify-shipped`` checks every file under it
(``migrate-shipped``: a format-1 manifest to format 2; ``ship-files F ...``:
benchmark JSONs beside the studies); or ``traces LOG [LOG ...] [--studies a,b]``: every
trace-based study on the user's logs with a one-page report
(:mod:`schedlab.publish.trace_report`, ``make reproduce TRACES="..."``); the Makefile runs the notebooks as separate targets
so that ``make -j`` runs independent studies in parallel.
Each output is written to a temporary file and renamed when complete, so an
interrupted run never leaves a half-written result.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from .. import __version__, paths
from ..workloads import traces, workload
from ..engine import sim
from ..errors import InputError, SchedlabError, from_notebook
from ..files import atomic

PROFILES = ("quick", "full")
#: The Jupyter kernel every notebook names and runs in: this environment,
#: registered by ``make install`` (so JupyterLab runs what make reproduce runs).
KERNEL = "schedlab"


def baseline(names=None, policy="EASY-FCFS-FCFS", estimate="requested", overrun="kill") -> list[dict]:
    """Summary metrics of one policy on the main traces (cleaning defaults)."""
    rows = []
    reg = traces.registry()
    for name in names or [n for n, i in reg.items() if i.main]:
        info = reg[name]
        jobs, report = workload.clean(traces.load(name), m=info.m, overrun=overrun)
        t = time.perf_counter()
        s = sim.simulate(jobs, info.m, policy, estimate=estimate)
        wall = time.perf_counter() - t
        summ = s.summary()
        rows.append({"trace": name, "sha256": info.sha256, "m": info.m, "jobs": len(jobs),
                     "jobs_in_file": report.jobs_in, "policy": str(s.policy), "estimate": estimate,
                     "overrun": overrun, "avg_wait_s": summ["avg_wait"], "max_wait_s": summ["max_wait"],
                     "mean_bsld": summ["mean_bsld"], "mean_ppbsld": summ["mean_ppbsld"],
                     "utilisation": summ["utilisation"], "backfilled": summ["backfilled"],
                     "killed": summ["killed"], "sim_wall_s": wall})
    return rows


def write_json_atomic(path: Path, obj) -> None:
    with atomic(path) as tmp, open(tmp, "w") as f:
        json.dump(obj, f, indent=2)


def notebook_parameters(nb: Path) -> dict[str, int]:
    """The names the ``parameters``-tagged cell of notebook ``nb`` assigns
    (what papermill may override), each with its line in that cell."""
    import ast

    import nbformat

    cells = [c for c in nbformat.read(str(nb), as_version=4).cells
             if c.cell_type == "code" and "parameters" in c.metadata.get("tags", [])]
    if len(cells) != 1:
        raise InputError(f"{nb}: expected one cell tagged 'parameters', found {len(cells)}")
    names: dict[str, int] = {}
    for node in ast.parse(cells[0].source).body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        for t in targets:
            if isinstance(t, ast.Name):
                names.setdefault(t.id, node.lineno)
    return names


def notebook_params(stem: str, profile: str) -> dict:
    """The YAML parameters of a notebook for a profile, each checked to be
    a parameter of the notebook (papermill would silently add a misspelt one)."""
    if profile not in PROFILES:
        raise InputError(f"unknown profile {profile!r}; expected one of {PROFILES}")
    f = paths.ROOT / "params" / profile / f"{stem}.yaml"
    if not f.exists():
        raise InputError(f"{f}: missing parameters file for notebook {stem} (profile {profile})")
    from .. import validators

    params = validators.read_yaml(f.read_text(), str(f)) or {}
    if not isinstance(params, dict):
        raise InputError(f"{f}: expected a mapping of parameter names to values")
    nb = paths.NOTEBOOKS / f"{stem}.ipynb"
    if nb.exists():
        known = notebook_parameters(nb)
        unknown = [k for k in params if k not in known]
        if unknown:
            text = f.read_text().splitlines()
            line = next((i + 1 for i, t in enumerate(text) if t.split(":")[0].strip() == str(unknown[0])), 0)
            raise InputError(f"{f}:{line}: {unknown[0]!r} is not a parameter of notebooks/{nb.name} "
                             f"(its parameters: {', '.join(known)})")
    return params


def notebook_inputs(stem: str, profile: str, overrides: dict | None = None) -> dict:
    """What papermill gives notebook ``stem`` for ``profile``: the values
    ``params/<profile>/`` sets and, for a study on the protocol, every other
    value of the profile that differs from the notebook's parameters cell (which
    holds the quick profile's): a key only ``params/quick/`` sets
    (classification's ``traces``) would otherwise keep its quick value and the
    run would go to ``results/custom/``; then the profile's name.
    ``overrides`` (the user's traces) win."""
    params = {**notebook_params(stem, profile), **(overrides or {})}
    if _on_protocol(stem):
        from ..protocol.study import profile_params
        from ..studies.registry import BY_STEM

        entry = BY_STEM[stem]
        cell = profile_params(entry, "quick").record()
        differ = {k: v for k, v in profile_params(entry, profile).record().items() if cell.get(k) != v}
        params = {**differ, **params}
        params["profile"] = profile
    return params


def run_notebook(nb: Path, profile: str, results: Path | None = None, overrides: dict | None = None) -> Path:
    """Execute one notebook with papermill into ``results/<profile>/``:
    the executed copy in ``notebooks/``, its HTML in ``html/``, and the
    study's outputs in ``<stem>/``.  A study on the protocol
    (:mod:`schedlab.protocol.study`) gets its profile's name and values and its driver
    chooses the folder; its progress lines reach this terminal while papermill
    keeps the kernel's output for the notebook.  ``overrides``: parameter
    values that replace the profile's (the user's traces)."""
    results = Path(results or paths.RESULTS / profile)
    params = notebook_inputs(nb.stem, profile, overrides)
    if _on_protocol(nb.stem):
        if results != paths.RESULTS / profile:
            params.setdefault("outdir", str(results / nb.stem))
    else:
        params.setdefault("outdir", str(results / nb.stem))
    return execute(nb, results / "notebooks" / nb.name, results / "html" / (nb.stem + ".html"), params,
                   results / "notebooks" / f"{nb.stem}.progress", prefix=f"[{nb.stem}] ")


def execute(nb: Path, executed: Path, html: Path, params: dict, progress_file: Path, prefix: str = "") -> Path:
    """Run notebook ``nb`` with papermill in this environment's kernel into
    ``executed`` (written whole or not at all), then its HTML into ``html``;
    the progress lines its driver writes to ``progress_file`` are shown on
    this terminal (with ``prefix``) while it runs."""
    import papermill

    from ..campaigns.runner import PROGRESS_ENV

    old = os.environ.get(PROGRESS_ENV)
    progress_file.parent.mkdir(parents=True, exist_ok=True)
    fd, progress = tempfile.mkstemp(dir=progress_file.parent, prefix=f".{progress_file.name}.")  # scratch, for the terminal
    os.close(fd)
    try:
        with atomic(executed, suffix=".ipynb") as tmp:
            os.environ[PROGRESS_ENV] = progress
            with _Tail(progress, prefix):
                try:
                    with tempfile.TemporaryDirectory(prefix="schedlab-kernel-") as sockets:
                        papermill.execute_notebook(str(nb), str(tmp), parameters=params, kernel_name=KERNEL,
                                                   cwd=str(nb.parent), progress_bar=False,
                                                   kernel_manager_class=_ipc_kernels(sockets))
                except papermill.PapermillExecutionError as exc:
                    # a schedlab error inside the notebook: its one-line message, not the kernel's traceback
                    raise from_notebook(exc, nb.name) from None
    finally:
        if old is None:
            os.environ.pop(PROGRESS_ENV, None)
        else:
            os.environ[PROGRESS_ENV] = old
        os.unlink(progress)
    _write_html(executed, html)
    return executed


def _ipc_kernels(folder: str):
    """A kernel manager whose kernel talks to papermill over IPC sockets in
    ``folder`` (private to this user, removed afterwards) instead of TCP on
    localhost: nothing listens on a port, and the kernel has no reason to
    warn "running over TCP without encryption" on every notebook."""
    from jupyter_client.manager import AsyncKernelManager

    class IPCKernelManager(AsyncKernelManager):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.transport = "ipc"
            self.ip = os.path.join(folder, "kernel")

    return IPCKernelManager


def _on_protocol(stem: str) -> bool:
    """Whether the study of notebook ``stem`` runs through the driver (schedlab.protocol.study)."""
    import importlib

    from ..studies.registry import BY_STEM

    entry = BY_STEM.get(stem)
    return entry is not None and hasattr(importlib.import_module(entry.module), "compute")


def _write_html(executed: Path, html_path: Path) -> None:
    import nbformat
    from nbconvert import HTMLExporter

    from ..names import inert_outputs

    nb = nbformat.read(executed, as_version=4)
    inert_outputs(nb)       # what the notebook displayed is shown as text, never run as HTML
    html, _ = HTMLExporter().from_notebook_node(nb)
    with atomic(html_path) as tmp:
        tmp.write_text(html)


class _Tail:
    """Prints the lines appended to a file while the block runs (a thread)."""

    def __init__(self, path: str, prefix: str = ""):
        import threading

        self.path, self.prefix, self.stop = path, prefix, threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        pos = 0
        while True:
            stopping = self.stop.wait(1.0)
            try:
                with open(self.path) as fh:
                    fh.seek(pos)
                    chunk = fh.read()
                    pos = fh.tell()
            except FileNotFoundError:
                chunk = ""
            for line in chunk.splitlines():
                print(self.prefix + line, flush=True)
            if stopping:
                return

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(timeout=5)


def notebooks() -> list[Path]:
    return sorted(paths.NOTEBOOKS.glob("*.ipynb"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("action", nargs="?", default="all",
                    choices=["all", "baseline", "notebook", "paper", "ship", "ship-files", "verify-shipped",
                             "migrate-shipped"])
    ap.add_argument("stems", nargs="*", help="notebook stems for 'notebook' (default: all); the user's logs go "
                                             "to python -m schedlab.publish.trace_report")
    ap.add_argument("--profile", default="quick", choices=PROFILES)
    ap.add_argument("--from", dest="source", default="shipped", choices=["shipped", "run"],
                    help="for 'paper' and 'all': read each study from the full-size results shipped in shipped/full/ "
                         "(default; this run's own results for a study not shipped, and a quick run is checked "
                         "against them), or from this run's results only")
    ap.add_argument("--cache", default=None, metavar="DIR",
                    help="for 'notebook': the cache of computed cells (default results/cache); "
                         "bench/bench_profile.py --notebooks gives its own, emptied first")
    ap.add_argument("--into", default=None, metavar="DIR",
                    help="for 'ship' and 'verify-shipped': DIR/<profile>/ instead of shipped/full/ (e.g. a trial "
                         "ship of a quick run: ship --profile quick --into /tmp/trial)")
    args = ap.parse_intermixed_args(argv)     # stems before or after the options (ship --profile full 10-your-policy)
    if args.cache is not None and args.action != "notebook":
        raise SystemExit(f"reproduce {args.action}: --cache is for notebook only")
    t0 = time.time()
    if args.action in ("ship", "ship-files", "verify-shipped", "migrate-shipped"):
        from . import shipped
        root = Path(args.into) if args.into else None
        if root is not None and args.action not in ("ship", "verify-shipped"):
            raise SystemExit(f"reproduce {args.action}: --into is for ship and verify-shipped only")
        # shipped/ holds the full profile only; another profile only --into a trial folder
        profile = args.profile if root is not None else "full"
        try:
            if args.action == "ship":
                shipped.ship(args.stems or None, profile=profile, root=root)
            elif args.action == "ship-files":
                if not args.stems:
                    raise InputError("give the files, e.g. results/bench/bench-profile-x.json")
                shipped.ship_files(args.stems)
            elif args.action == "migrate-shipped":
                shipped.migrate("full")
            problems = shipped.verify(profile, root)
            missing_nb = shipped.without_notebook(profile, root)
        except InputError as exc:
            raise SystemExit(f"reproduce {args.action}: {exc}") from None
        for p in problems:
            print(p)
        where = paths.relative(shipped.folder(profile, root))
        nbs = sorted(shipped.folder(profile, root).glob(f"{shipped.NOTEBOOKS}/*.ipynb"))
        print(f"{where}: {len(shipped.read_manifest(profile, root).get('studies', {}))} studies, "
              f"{'every file as shipped' if not problems else f'{len(problems)} problem(s)'}; "
              f"{len(nbs)} executed notebooks ({sum(p.stat().st_size for p in nbs) / 1e6:.1f} MB)"
              + (f"; shipped before notebooks were, without theirs (re-ship them): {', '.join(missing_nb)}"
                 if missing_nb else ""))
        return 1 if problems else 0
    if args.action in ("all", "baseline"):
        rows = baseline()
        out = paths.RESULTS / "engine" / "baseline.json"
        write_json_atomic(out, {"schedlab": __version__, "core": sim.VERSION,
                                "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                                "rows": rows})
        print(f"{'trace':<10} {'m':>6} {'jobs':>7} {'AvgWait (s)':>12} {'MaxWait (s)':>12} {'mean bsld':>10}")
        for r in rows:
            print(f"{r['trace']:<10} {r['m']:>6} {r['jobs']:>7} {r['avg_wait_s']:>12.1f} "
                  f"{r['max_wait_s']:>12.0f} {r['mean_bsld']:>10.2f}")
        print(f"wrote {out}")
    if args.action in ("all", "notebook"):
        known = {nb.stem: nb for nb in notebooks()}
        unknown = set(args.stems) - set(known)
        if unknown:
            raise SystemExit(f"unknown notebook(s) {sorted(unknown)}; known: {sorted(known)}")
        failed: list[str] = []
        for stem in args.stems or sorted(known):
            t = time.time()
            print(f"running {stem}.ipynb (profile {args.profile}) ...", flush=True)
            try:
                executed = run_notebook(known[stem], args.profile,
                                        overrides={"cache_dir": args.cache} if args.cache and _on_protocol(stem)
                                        else None)
            except SchedlabError as exc:    # the study's message, whole, on one line; the others still run
                failed.append(f"{stem}: {getattr(exc, 'kind', type(exc).__name__)}: {exc}")
                print(f"reproduce: {failed[-1]}", file=sys.stderr, flush=True)
                continue
            print(f"  -> {executed.relative_to(paths.ROOT)} in {time.time() - t:.1f} s", flush=True)
        if failed:                          # make reproduce exits non-zero, each message whole
            print(f"reproduce: {len(failed)} notebook(s) failed:", file=sys.stderr)
            for line in failed:
                print(f"  {line}", file=sys.stderr)
            return 1
    if args.action in ("all", "paper"):
        from . import paper
        pdf = paper.build(args.profile, use_shipped=args.source == "shipped")
        print(f"wrote {pdf.relative_to(paths.ROOT)}")
        numbers = json.loads((paths.PAPER / "numbers.json").read_text())
        srcs = numbers["meta"].get("sources", {})
        ship_ = sorted(k for k, v in srcs.items() if v["from"] == "shipped")
        if ship_:
            print(f"the paper shows the shipped full-size results of {', '.join(ship_)}; "
                  f"this run's {args.profile} results of {', '.join(sorted(set(srcs) - set(ship_))) or 'none'}")
        print_verdicts(numbers)
        qc = numbers.get("quick_check")
        if qc:
            t = qc["total"]

            def unmatched(c) -> str:
                # rows one side has and the other not (e.g. a claim over another set of traces)
                parts = [f"{s} {c[s]}" for s in ("only in quick", "only in full") if c.get(s)]
                return f" ({', '.join(parts)})" if parts else ""

            print(f"quick against shipped full: {t['agree']} scorecard rows agree, {t['disagree']} disagree, "
                  f"{t['not comparable']} not comparable{unmatched(t)} (paper/generated/quick_check.csv)")
            for study, c in sorted(qc["counts"].items()):
                print(f"  {study:<15} agree {c['agree']:>4}  disagree {c['disagree']:>4}  "
                      f"not comparable {c['not comparable']:>4} {unmatched(c)}".rstrip())
    print(f"reproduce {args.action} done in {time.time() - t0:.1f} s")
    return 0


def print_verdicts(numbers: dict) -> None:
    """The scorecard's counts as the paper's opening table gives them: by
    verdict under the papers' text; under the identified readings, counted on
    their held-out rows only (the fit rows apart); and the rows that are not
    results (workload descriptions, properties) and the others not counted."""
    from ..protocol.scorecard import INPUTS, UNCOUNTED, VERDICTS

    cards = {k: v["scorecard"] for k, v in numbers.items() if isinstance(v, dict) and "scorecard" in v}
    if not cards:
        return
    for key, title in (("counts", "the papers' text"),
                       ("counts under identified readings", "identified readings, held-out rows only")):
        total = {v: sum(c.get(key, c["counts"]).get(v, 0) for c in cards.values()) for v in VERDICTS + UNCOUNTED}
        counted = sum(total[v] for v in VERDICTS)
        good = total["reproduced"] + total["close"]
        extra = ""
        if key != "counts":
            fit = sum(c.get(key, {}).get("fit rows", 0) for c in cards.values())
            extra = f" ({fit} fit rows kept under the text)"
        print(f"scorecard under {title}: {good} of {counted} reproduced or close ({100 * good / max(counted, 1):.1f} %)"
              f"{extra}: " + ", ".join(f"{v} {total[v]}" for v in VERDICTS if total[v]))
    total = {v: sum(c["counts"].get(v, 0) for c in cards.values()) for v in UNCOUNTED}
    by_rule = {v: sum(c["counts"].get("inputs, by the rule", {}).get(v, 0) for c in cards.values()) for v in VERDICTS}
    print("scorecard, not results (never in reproduced or close): "
          + ", ".join(f"{v} {total[v]}" for v in INPUTS if total[v])
          + " (by the rule: " + ", ".join(f"{v} {n}" for v, n in by_rule.items() if n) + ")")
    print("scorecard, shown but not counted: "
          + ", ".join(f"{v} {total[v]}" for v in UNCOUNTED if v not in INPUTS and total[v]))


if __name__ == "__main__":
    sys.exit(main())
