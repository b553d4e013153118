"""make site: the static site of build/site/ (schedlab.publish.site), built here into a
temporary folder: every notebook a page, the scorecard of every study one
table with every row, nothing loaded from the network."""
import csv
import json
import re

import pytest

from schedlab import paths
from schedlab.publish import shipped, site


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "site"
    info = site.build(out, log=None)
    return out, info


def _rows():
    n = {}
    for nb in sorted(paths.NOTEBOOKS.glob("*.ipynb")):
        for f in (shipped.folder("full") / nb.stem / "tables" / "scorecard.csv",
                  paths.RESULTS / "quick" / nb.stem / "tables" / "scorecard.csv"):
            if f.exists():
                with open(f, newline="") as fh:
                    n[nb.stem] = list(csv.DictReader(fh))
                break
    return n


def test_every_notebook_has_a_page_and_the_index_links_them(built):
    out, info = built
    index = (out / "index.html").read_text()
    for nb in sorted(paths.NOTEBOOKS.glob("*.ipynb")):
        page = out / "notebooks" / f"{nb.stem}.html"
        assert page.exists() and f'href="notebooks/{nb.stem}.html"' in index, nb.stem
        text = page.read_text()
        assert ('class="note notebook-full"' in text) == shipped.notebook_path(nb.stem).exists(), nb.stem
        assert ('class="note notebook-source"' in text) != shipped.notebook_path(nb.stem).exists(), nb.stem
    assert "Set-up" in index and 'href="scorecard.html"' in index and 'href="conformance/index.html"' in index
    cases = sorted((paths.ROOT / "conformance" / "cases").glob("*.swf"))
    assert all((out / "conformance" / "cases" / c.name).exists() for c in cases) and cases


def test_the_design_and_the_contributor_s_guide_are_pages_of_the_site(built):
    out, _ = built
    index = (out / "index.html").read_text()
    assert 'href="design.html"' in index and 'href="contributing.html"' in index
    design, guide = (out / "design.html").read_text(), (out / "contributing.html").read_text()
    assert "The house" in design and "Fidelity: how a miss gets explained" in design
    assert "A new study" in guide and 'href="design.html"' in guide          # its link to the design, made local
    assert 'href="contributing.html"' in design


def test_the_scorecard_is_one_table_of_every_row_of_every_study(built):
    out, info = built
    page = (out / "scorecard.html").read_text()
    data = json.loads(re.search(r'<script type="application/json" id="rows">(.*?)</script>', page, re.S)
                      .group(1).replace("<\\/", "</"))
    expected = _rows()
    assert len(data["rows"]) == sum(map(len, expected.values())) == info["scorecard_rows"] > 0
    keys = [c["key"] for c in data["columns"]]
    verdicts = [r[keys.index("verdict")] for r in data["rows"]]
    assert sorted(verdicts) == sorted(r["verdict"] for rows in expected.values() for r in rows)
    for v in set(verdicts):        # the counts above the table
        assert f">{v}: {verdicts.count(v)}</span>" in page, v
    # ... are the scorecard's one count of the CSVs' columns, the function behind the paper's numbers
    from schedlab.protocol.scorecard import VERDICTS, count_records
    every = count_records([r for rows in expected.values() for r in rows])
    assert all(f">{v}: {every[v]}</span>" in page for v in VERDICTS if every[v])
    for r in data["rows"]:
        link = r[keys.index("link")]
        target = out / link.split("#")[0]
        assert target.exists(), link
        if "#" in link:            # the section exists in the page it links to
            assert f'id="{link.split("#", 1)[1]}"' in target.read_text(), link
    assert info["rows_linked_to_section"] > len(data["rows"]) // 2
    for k in ("study", "paper", "trace", "verdict"):
        assert f'id="f-{k}"' in page


def test_nothing_is_loaded_from_the_network(built):
    out, _ = built
    for p in out.rglob("*.html"):
        text = p.read_text()
        assert not re.search(r"<script[^>]*src=\"https?://", text), p
        assert not re.search(r"<link[^>]*href=\"https?://", text), p


def test_section_for_finds_the_heading_that_names_the_item():
    sections = [("Study 2", "Study-2"), ("The logs (lelong2017 §7.2, Table 3)", "The-logs-(lelong2017-§7.2,-Table-3)"),
                ("Thesis Tables 5.2\u20135.5: thresholds", "Thesis-Tables-5.2\u20135.5:-thresholds")]
    assert site.section_for("Table 3", "lelong2017 §7.2", sections) == sections[1][1]
    assert site.section_for("Tables 5.2-5.5", "thesis §5.8", sections) == sections[2][1]
    assert site.section_for("Fig. 9", "elsewhere", sections) is None
