"""A static site of the compendium (``make site``, ``python -m schedlab.publish.site``):
plain HTML files in ``build/site/`` that work from ``file://`` and from any
static host, built offline from the repository alone.

* ``index.html``: the README's set-up section, the studies with their
  notebooks, the paper, the conformance cases;
* ``notebooks/<stem>.html``: each study notebook executed at the full profile
  (``shipped/full/notebooks/``), and ``notebooks/quick/<stem>.html`` the
  quick run's (``results/quick/notebooks/``) when present; a study not shipped
  with its notebook shows the source notebook, without outputs, and says so;
* ``scorecard.html``: every scorecard row of every study in ONE table,
  filterable by paper, study, trace and verdict (and free text), sortable by
  any column, the verdict counts above it; each row names the published item
  it compares with and links to the notebook section that shows it;
* ``paper.pdf`` (when ``paper/paper.pdf`` was built) and ``conformance/``;
* ``design.html`` and ``contributing.html``: the repository's ``docs/DESIGN.md``
  and ``CONTRIBUTING.md``, linked from every page's header.

Why this and not Jupyter Book 2 / MyST: ``mystmd`` builds its HTML theme from
a template it downloads at build time, and its site is an application that
needs a server, so it can be built neither offline nor read from ``file://``.
nbconvert (already in the lock: the notebooks' HTML of ``make reproduce``)
renders the notebooks, mistune (nbconvert's Markdown) the README and the
cases' notes; the scorecard's filtering and sorting are a few lines of our own
JavaScript in the page, its rows embedded as JSON (no fetch, no CDN).
"""
from __future__ import annotations

import argparse
import csv
import html
import re
import shutil
import sys
import time
from pathlib import Path

from .. import paths
from . import shipped
from ..errors import InputError
from ..files import atomic_folder
from ..names import inert_outputs, script_json

SITE = paths.ROOT / "build" / "site"

#: scripts and styles a page may not load from elsewhere (the site works offline)
_REMOTE = re.compile(r"<script[^>]*\bsrc=\"https?://[^\"]*\"[^>]*>\s*</script>|<link[^>]*\bhref=\"https?://[^\"]*\"[^>]*>",
                     re.I)

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1b1b1b;line-height:1.45}
header.site{background:#21364f;color:#fff;padding:.6em 1.2em}
header.site a{color:#fff;margin-right:1.2em;text-decoration:none;font-weight:600}
main{max-width:1200px;margin:0 auto;padding:1em 1.2em}main.wide{max-width:none}
table{border-collapse:collapse;font-size:.9em}
th,td{border:1px solid #ccd;padding:.25em .45em;vertical-align:top}
th{background:#eef1f6}
code,pre{background:#f4f4f6;font-size:.92em}
pre{padding:.6em;overflow:auto}
.filters label{margin-right:1em;white-space:nowrap}
.counts span{display:inline-block;margin:.2em .6em .2em 0;padding:.1em .5em;border-radius:.8em;background:#eef1f6}
#scorecard th{cursor:pointer;position:sticky;top:0}
#scorecard td.num{text-align:right;font-variant-numeric:tabular-nums}
#scorecard td.expl{max-width:28em;font-size:.85em}
.v-reproduced{background:#e3f4e1}.v-close{background:#eef7dc}.v-not-reproduced{background:#fbe3e1}
.v-inconclusive{background:#f3f0e0}.note{background:#fff6d6;padding:.5em .8em;border-left:4px solid #e0b000}
"""

SCORECARD_JS = r"""
(function () {
  var data = JSON.parse(document.getElementById('rows').textContent);
  var cols = data.columns, rows = data.rows, sortCol = -1, sortDir = 1;
  var filters = ['study', 'paper', 'trace', 'verdict'];
  var body = document.querySelector('#scorecard tbody');
  var idx = {}; cols.forEach(function (c, i) { idx[c.key] = i; });
  function options(key) {
    var sel = document.getElementById('f-' + key), seen = {};
    seen = Object.create(null);   /* a value such as __proto__ is a key like any other */
    rows.forEach(function (r) { seen[r[idx[key]]] = (seen[r[idx[key]]] || 0) + 1; });
    Object.keys(seen).sort().forEach(function (v) {
      var o = document.createElement('option'); o.value = v; o.textContent = v + ' (' + seen[v] + ')';
      sel.appendChild(o);
    });
    sel.addEventListener('change', draw);
  }
  function num(v) { var x = parseFloat(v); return isNaN(x) ? null : x; }
  function keep(r) {
    for (var i = 0; i < filters.length; i++) {
      var v = document.getElementById('f-' + filters[i]).value;
      if (v !== '' && r[idx[filters[i]]] !== v) return false;
    }
    var q = document.getElementById('f-text').value.toLowerCase();
    return q === '' || r.join(' ').toLowerCase().indexOf(q) >= 0;
  }
  function draw() {
    var shown = rows.filter(keep);
    if (sortCol >= 0) {
      shown.sort(function (a, b) {
        var x = num(a[sortCol]), y = num(b[sortCol]);
        if (x !== null && y !== null) return (x - y) * sortDir;
        if (x !== null) return -1; if (y !== null) return 1;
        return String(a[sortCol]).localeCompare(String(b[sortCol])) * sortDir;
      });
    }
    var counts = Object.create(null);
    shown.forEach(function (r) { counts[r[idx.verdict]] = (counts[r[idx.verdict]] || 0) + 1; });
    document.getElementById('shown').textContent = shown.length + ' of ' + rows.length + ' rows shown';
    var c = document.getElementById('counts-shown'); c.innerHTML = '';
    data.verdicts.forEach(function (v) {
      if (!counts[v]) return;
      var s = document.createElement('span'); s.className = 'v-' + v.replace(/[^a-z]+/g, '-');
      s.textContent = v + ': ' + counts[v]; c.appendChild(s);
    });
    var frag = document.createDocumentFragment();
    shown.forEach(function (r) {
      var tr = document.createElement('tr');
      tr.className = 'v-' + r[idx.verdict].replace(/[^a-z]+/g, '-');
      tr.setAttribute('data-verdict', r[idx.verdict]);
      cols.forEach(function (col, i) {
        var td = document.createElement('td');
        if (col.key === 'item') {
          var a = document.createElement('a'); a.href = r[idx.link]; a.textContent = r[i];
          a.title = 'the notebook section that shows it'; td.appendChild(a);
        } else if (col.key === 'link') { return; }
        else { td.textContent = r[i]; }
        if (col.num) td.className = 'num';
        if (col.key === 'explanation') td.className = 'expl';
        tr.appendChild(td);
      });
      frag.appendChild(tr);
    });
    body.innerHTML = ''; body.appendChild(frag);
  }
  document.querySelectorAll('#scorecard th').forEach(function (th) {
    th.addEventListener('click', function () {
      var i = +th.getAttribute('data-col');
      sortDir = (sortCol === i) ? -sortDir : 1; sortCol = i;
      document.querySelectorAll('#scorecard th').forEach(function (h) { h.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', sortDir > 0 ? 'ascending' : 'descending');
      draw();
    });
  });
  filters.forEach(options);
  document.getElementById('f-text').addEventListener('input', draw);
  var params = new URLSearchParams(location.search);
  filters.forEach(function (k) { if (params.get(k)) document.getElementById('f-' + k).value = params.get(k); });
  draw();
})();
"""


def _page(title: str, body: str, depth: int = 0, wide: bool = False) -> str:
    up = "../" * depth
    cls = ' class="wide"' if wide else ""
    nav = "".join(f'<a href="{up}{href}">{label}</a>' for href, label in
                  (("index.html", "schedlab"), ("scorecard.html", "Scorecard"), ("index.html#studies", "Notebooks"),
                   ("index.html#paper", "Paper"), ("conformance/index.html", "Conformance cases"),
                   ("design.html", "Design"), ("contributing.html", "Contributing")))
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{html.escape(title)}</title><style>{CSS}</style></head>\n"
            f"<body><header class=\"site\">{nav}</header><main{cls}>\n{body}\n</main></body>"
            f"</html>\n")


def _markdown(text: str) -> str:
    import mistune

    return mistune.html(text)


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s.replace("\u2013", "-").replace("\u2014", "-").replace("\u2212", "-")).strip().lower()


def _sections(page: str) -> list[tuple[str, str]]:
    """The headings of a notebook's page in order: (text, id), the ids as
    nbconvert wrote them."""
    out = []
    for m in re.finditer(r'<h[1-6] id="([^"]+)">(.*?)<a class="anchor-link"', page, re.S):
        out.append((html.unescape(re.sub(r"<[^>]+>", "", m.group(2))).strip(), m.group(1)))
    return out


def section_for(item: str, paper: str, sections: list[tuple[str, str]]) -> str | None:
    """The anchor of the notebook section a scorecard row comes from: the
    first heading that names its item (``Table 3``, ``Fig. 8``, ``Tables
    5.2-5.5``), else one naming its paper's section; None when none does."""
    item_n, paper_n = _norm(item), _norm(paper)
    for text, anchor in sections:
        if item_n and item_n in _norm(text):
            return anchor
    key = paper_n.split(" ")[-1] if "§" in paper_n else ""
    for text, anchor in sections:
        if key and key in _norm(text):
            return anchor
    return None


def _render_notebook(nb_path: Path, tables_dir: Path | None, banner: str, kind: str, depth: int = 1) -> str:
    """A notebook as a page of its own (nbconvert's lab template, nothing
    loaded from elsewhere); every table it shows that equals one of the
    study's CSVs gets the anchor ``table-<name>``."""
    import nbformat
    from nbconvert import HTMLExporter

    # figures at screen resolution, progress lines merged, as in the shipped notebooks (a no-op for those)
    nb = nbformat.reads(shipped.notebook_for_shipping(nb_path), as_version=4)
    inert_outputs(nb)       # what the notebook displayed is shown as text, never run as HTML
    if tables_dir is not None and tables_dir.is_dir():
        matched, _ = shipped.match_tables(nb, tables_dir)
        for (ci, oi, k), name in matched.items():
            if k == 0:
                o = nb.cells[ci].outputs[oi]
                md = o.data["text/markdown"]
                o.data["text/markdown"] = f'<a id="table-{name}"></a>\n\n' + ("".join(md) if isinstance(md, list) else md)
    body, _ = HTMLExporter(template_name="lab").from_notebook_node(nb)
    body = _REMOTE.sub("", body)
    up = "../" * depth
    note = (f'<div style="background:#21364f;padding:.5em 1em;font-family:system-ui,sans-serif">'
            f'<a style="color:#fff;font-weight:600;margin-right:1.2em" href="{up}index.html">schedlab</a>'
            f'<a style="color:#fff;font-weight:600" href="{up}scorecard.html">Scorecard</a></div>'
            f'<div class="note notebook-{kind}" style="margin:1em;background:#fff6d6;padding:.5em .8em;'
            f'border-left:4px solid #e0b000">{banner}</div>')
    body = re.sub(r"(<body[^>]*>)", lambda m: m.group(1) + note, body, count=1)
    return body


def _scorecard_rows(studies, sections_by_stem, log) -> tuple[list[list[str]], list[str]]:
    from ..protocol.scorecard import VERDICTS
    from ..studies.registry import BY_STEM

    rows, sources = [], []
    for stem, (csv_path, origin) in sorted(studies.items()):
        with open(csv_path, newline="") as f:
            recs = list(csv.DictReader(f))
        name = BY_STEM[stem].name if stem in BY_STEM else stem
        sources.append(f"{stem}: {len(recs)} rows ({origin})")
        for r in recs:
            anchor = section_for(r.get("item", ""), r.get("paper", ""), sections_by_stem.get(stem, []))
            link = f"notebooks/{stem}.html" + (f"#{anchor}" if anchor else "")
            lo, hi = r.get("ours 95% low", ""), r.get("ours 95% high", "")
            rows.append([name, r.get("paper", ""), r.get("item", ""), r.get("trace", ""), r.get("metric", ""),
                         _short(r.get("published", "")), _short(r.get("ours", "")),
                         f"[{_short(lo)}, {_short(hi)}]" if lo or hi else "", r.get("verdict", ""),
                         r.get("verdict, identified reading", ""), r.get("explanation", ""), link])
    order = {v: i for i, v in enumerate(VERDICTS)}
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    return rows, sources if order else sources


def _short(v: str) -> str:
    try:
        x = float(v)
    except (TypeError, ValueError):
        return v or ""
    return f"{x:.4g}"


def scorecard_body(rows: list[list[str]], sources: list[str], n_studies: int, VERDICTS) -> str:
    """The scorecard page's body: the rows as data (:func:`schedlab.names.script_json`
    in a ``<script type="application/json">``, drawn with ``textContent`` by
    :data:`SCORECARD_JS`), every other text escaped: no cell can add markup."""
    from ..protocol.scorecard import UNCOUNTED, count_records

    # the scorecard's one count of its rows' columns (the paper's numbers are the same function of the same CSVs)
    known = count_records([{"verdict": r[8]} for r in rows if r[8] in VERDICTS + UNCOUNTED])
    counts = {v: known[v] for v in tuple(VERDICTS) + UNCOUNTED}
    counts.update({v: n for v, n in ((r[8], sum(x[8] == r[8] for x in rows)) for r in rows) if v not in counts})
    columns = [{"key": "study", "label": "study"}, {"key": "paper", "label": "paper"},
               {"key": "item", "label": "published item"}, {"key": "trace", "label": "trace"},
               {"key": "metric", "label": "metric"}, {"key": "published", "label": "published", "num": True},
               {"key": "ours", "label": "ours", "num": True}, {"key": "interval", "label": "ours 95 %"},
               {"key": "verdict", "label": "verdict"}, {"key": "identified", "label": "verdict, identified reading"},
               {"key": "explanation", "label": "explanation"}, {"key": "link", "label": ""}]
    data = {"columns": columns, "rows": rows, "verdicts": list(VERDICTS) + sorted(set(counts) - set(VERDICTS))}
    head = "".join(f'<th data-col="{i}">{html.escape(c["label"])}</th>' for i, c in enumerate(columns)
                   if c["key"] != "link")
    selects = "".join(f'<label>{k} <select id="f-{k}"><option value="">all</option></select></label>'
                      for k in ("study", "paper", "trace", "verdict"))
    total = " ".join(f'<span class="v-{re.sub("[^a-z]+", "-", v)}">{html.escape(v)}: {n}</span>'
                     for v, n in counts.items() if n)
    linked = sum("#" in r[-1] for r in rows)
    embedded = script_json(data)    # no < > & U+2028/9: no cell can end or change the script element
    body = (f"<h1>Scorecard: every published value beside ours</h1>"
            f"<p>{len(rows)} rows from {n_studies} studies ({html.escape('; '.join(sources))}). Each row is one "
            f"value or claim a paper publishes, beside ours and our 95 % interval; the verdict under the paper's "
            f"text, and under a reading of its protocol identified on declared rows (DESIGN §10). The published item "
            f"links to the notebook section that shows it ({linked} rows to their section, the others to the "
            f"notebook's top). Click a column to sort.</p>"
            f'<p class="counts">All rows: {total}</p>'
            f'<p class="filters">{selects}<label>text <input id="f-text" type="search" size="18"></label></p>'
            f'<p class="counts"><b id="shown"></b> <span id="counts-shown"></span></p>'
            f'<table id="scorecard"><thead><tr>{head}</tr></thead><tbody></tbody></table>'
            f'<script type="application/json" id="rows">{embedded}</script>'
            f"<script>{SCORECARD_JS}</script>")
    return body


def build(out: Path = SITE, log=print) -> dict:
    """Build the site into ``out`` (replaced whole); returns what it holds."""

    from ..protocol.scorecard import VERDICTS
    from ..studies.registry import BY_STEM

    t0 = time.perf_counter()
    out = Path(out)
    with atomic_folder(out) as tmp:         # the old site stays whole until the new one is
        rows, linked, pages = _write_site(tmp, VERDICTS, BY_STEM, log)
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    info = {"out": paths.relative(out), "files": sum(1 for p in out.rglob("*") if p.is_file()), "bytes": size,
            "seconds": round(time.perf_counter() - t0, 1), "scorecard_rows": len(rows), "rows_linked_to_section": linked,
            "notebooks": {s: k for s, k, _ in pages}, "quick": [s for s, _, q in pages if q]}
    if log:
        log(f"site: {info['files']} files, {size / 1e6:.1f} MB in {info['out']}/ (open index.html) in "
            f"{info['seconds']:.1f} s; scorecard {len(rows)} rows ({linked} linked to their section)")
    return info

def _write_site(tmp: Path, VERDICTS, BY_STEM, log) -> tuple:
    """The site's files into ``tmp``: (scorecard rows, rows linked to a section, pages)."""
    (tmp / "notebooks" / "quick").mkdir(parents=True)
    base = shipped.folder("full")
    quick = paths.RESULTS / "quick"
    stems = [p.stem for p in sorted(paths.NOTEBOOKS.glob("*.ipynb"))]
    if not stems:
        raise InputError(f"{paths.relative(paths.NOTEBOOKS)}: no notebook")
    sections, pages, studies = {}, [], {}
    for i, stem in enumerate(stems, 1):
        full_nb = shipped.notebook_path(stem)
        tables = base / stem / "tables"
        if full_nb.exists():
            src, banner = full_nb, (f"This notebook was executed at the <b>full profile</b> (the papers' sizes): "
                                    f"<code>shipped/full/notebooks/{stem}.ipynb</code>.")
            kind = "full"
        else:
            src, banner = paths.NOTEBOOKS / f"{stem}.ipynb", (
                "Not shipped with its executed notebook yet (<code>python -m schedlab.publish.reproduce ship --profile "
                "full</code> adds it): the notebook's text and code only, without outputs.  Its full-size tables and "
                f"figures are in <code>shipped/full/{stem}/</code> and the paper.")
            kind = "source"
        page = _render_notebook(src, tables, banner, kind)
        (tmp / "notebooks" / f"{stem}.html").write_text(page)
        sections[stem] = _sections(page)
        qnb = quick / "notebooks" / f"{stem}.ipynb"
        has_quick = qnb.exists()
        if has_quick:
            qpage = _render_notebook(qnb, quick / stem / "tables",
                                     "This notebook is <b>your quick run</b> (<code>results/quick/</code>, "
                                     "the quick profile: fewer weeks and logs than the papers).", "quick", depth=2)
            (tmp / "notebooks" / "quick" / f"{stem}.html").write_text(qpage)
        if (tables / "scorecard.csv").exists():
            studies[stem] = (tables / "scorecard.csv", "shipped full")
        elif (quick / stem / "tables" / "scorecard.csv").exists():
            studies[stem] = (quick / stem / "tables" / "scorecard.csv", "quick run")
        pages.append((stem, kind, has_quick))
        if log:
            log(f"site: notebook {i}/{len(stems)} {stem} ({kind}{', quick run' if has_quick else ''})")

    rows, sources = _scorecard_rows(studies, sections, log)
    body = scorecard_body(rows, sources, len(studies), VERDICTS)
    linked = sum("#" in r[-1] for r in rows)
    (tmp / "scorecard.html").write_text(_page("schedlab scorecard", body, wide=True))

    # the paper
    pdf = paths.ROOT / "paper" / "paper.pdf"
    if pdf.exists():
        shutil.copyfile(pdf, tmp / "paper.pdf")
        paper_html = (f'<p><a href="paper.pdf">The paper (PDF, {pdf.stat().st_size / 1e6:.1f} MB)</a>: every study '
                      f"at full size, the verdict counts on its first pages.</p>")
    else:
        paper_html = "<p>The paper is not built yet (<code>make paper</code>, then <code>make site</code>).</p>"

    # the conformance cases
    cdir = paths.ROOT / "conformance"
    (tmp / "conformance" / "cases").mkdir(parents=True)
    cases = sorted((cdir / "cases").glob("*"))
    for c in cases:
        shutil.copyfile(c, tmp / "conformance" / "cases" / c.name)
    readme = (cdir / "README.md").read_text() if (cdir / "README.md").exists() else ""
    listing = "".join(f'<li><a href="cases/{html.escape(c.name)}">{html.escape(c.name)}</a></li>' for c in cases)
    (tmp / "conformance" / "index.html").write_text(_page(
        "schedlab conformance cases", _markdown(readme).replace('href="cases/', 'href="cases/')
        + f"<h2>The cases ({len(cases)} files)</h2><ul>{listing}</ul>", depth=1))

    # the repository's own guides: the design (docs/DESIGN.md) and how to contribute
    _guides(tmp)

    # the index: the README's set-up, the studies
    text = (paths.ROOT / "README.md").read_text()
    intro = text.split("\n## ", 1)[0]
    setup = re.search(r"\n## Set-up.*?(?=\n## )", text, re.S)
    setup_md = setup.group(0) if setup else ""
    setup_md = re.sub(r"\]\(shipped/full/notebooks/([^)]+)\.ipynb\)", r"](notebooks/\1.html)", setup_md)
    items = []
    for stem, kind, has_quick in pages:
        study = BY_STEM[stem].name if stem in BY_STEM else stem
        quick_link = f'<a href="notebooks/quick/{stem}.html">your quick run</a>' if has_quick else "—"
        items.append(f'<tr><td><code>{stem}</code></td><td>{study}</td>'
                     f'<td><a href="notebooks/{stem}.html">{"full size" if kind == "full" else "text and code (not shipped yet)"}</a></td>'
                     f'<td>{quick_link}</td>'
                     f'<td><a href="scorecard.html?study={study}">scorecard rows</a></td></tr>')
    body = (_markdown(intro)
            + '<h2 id="studies">The studies</h2><table><tr><th>notebook</th><th>study</th><th>executed at the papers\' '
              'sizes</th><th>quick run</th><th>scorecard</th></tr>' + "".join(items) + "</table>"
            + f'<p><a href="scorecard.html"><b>The scorecard</b></a>: {len(rows)} rows, filterable and sortable.</p>'
            + f'<h2 id="paper">The paper</h2>{paper_html}'
            + '<h2>Conformance cases</h2><p><a href="conformance/index.html">Small workloads with hand-derived expected '
              'EASY schedules</a>.</p>'
            + _markdown(setup_md))
    (tmp / "index.html").write_text(_page("schedlab", body))

    remote = [p for p in tmp.rglob("*.html") if _REMOTE.search(p.read_text())]
    if remote:
        raise InputError(f"site: {', '.join(map(str, remote))} load scripts or styles from the network")
    return rows, linked, pages


#: The guides the site shows beside the notebooks: (page, source, title).
GUIDES = (("design.html", "docs/DESIGN.md", "The design of schedlab"),
          ("contributing.html", "CONTRIBUTING.md", "Contributing to schedlab"))


def _guides(tmp: Path) -> None:
    """``design.html`` and ``contributing.html`` from the repository's
    Markdown; their links to each other point at the pages."""
    for page, source, title in GUIDES:
        text = (paths.ROOT / source).read_text()
        for other, other_source, _ in GUIDES:
            name = other_source.rsplit("/", 1)[-1]
            text = re.sub(rf"\]\((?:\.\./|docs/)?{re.escape(name)}\)", f"]({other})", text)
        (tmp / page).write_text(_page(title, _markdown(text)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(SITE), help="the site's folder (default build/site)")
    args = ap.parse_args(argv)
    try:
        build(Path(args.out))
    except InputError as exc:
        print(f"site: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
