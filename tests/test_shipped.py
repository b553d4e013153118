"""Shipped full-size results: what `reproduce ship` copies, the manifest's
checksums, where the paper reads each study from, and the quick build's check
against the shipped scorecard."""
import base64
import csv
import io
import json
import shutil

import pytest

from schedlab.publish import paper, shipped
from schedlab.errors import InputError
from schedlab.protocol.scorecard import COLUMNS
from schedlab.studies import Table


def write_study(results, stem, rows, profile="full"):
    d = results / stem
    (d / "tables").mkdir(parents=True)
    (d / "figures").mkdir()
    (d / "datasets").mkdir()
    (d / "numbers.json").write_text(json.dumps({"provenance": {"profile": profile, "git": {"commit": "abc", "dirty": False},
                                                               "created": "2026-11-24T00:00:00+00:00"},
                                                "timing": {"wall_s": 12.5, "jobs_simulated": 1000}}))
    (d / "findings.json").write_text("{}")
    (d / "parameters.json").write_text("{}")
    (d / "figures" / "f.png").write_bytes(b"\x89PNG fake")
    (d / "datasets" / "big.nc").write_bytes(b"0" * 1000)
    with open(d / "tables" / "scorecard.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        w.writerows(rows)
    write_notebook(results / "notebooks" / f"{stem}.ipynb", Table(COLUMNS, rows, title="Scorecard").to_markdown())
    return d


def png(width, height, dpi=150):
    from PIL import Image
    buf = io.BytesIO()
    Image.new("RGBA", (width, height), (200, 30, 30, 255)).save(buf, format="PNG", dpi=(dpi, dpi))
    return base64.b64encode(buf.getvalue()).decode()


def write_notebook(path, markdown, image=None):
    """An executed notebook as papermill leaves it: a cell showing a table as
    the studies' notebooks do (Markdown), progress lines, a figure."""
    import nbformat
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell('show("scorecard")\nfigure("f")')
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="cells 1/2\n"),
                    nbformat.v4.new_output("stream", name="stdout", text="cells 2/2\n"),
                    nbformat.v4.new_output("display_data", data={"text/markdown": markdown, "text/plain": "<Markdown>"}),
                    nbformat.v4.new_output("display_data", data={"image/png": image or png(300, 150),
                                                                  "text/plain": "<Image>"})]
    nb.cells = [nbformat.v4.new_markdown_cell("# Study"), cell]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))
    return path


def row(item, ours, low="", high="", verdict="close", rule="value", metric="AVEbsld"):
    cells = {"paper": "p2020", "item": item, "trace": "KTH-SP2", "metric": metric, "published": 10, "ours": ours,
             "ours 95% low": low, "ours 95% high": high, "rule": rule, "verdict": verdict,
             "explanation": "unexplained"}
    return [cells.get(c, "") for c in COLUMNS]


def test_ship_copies_the_small_products_and_verify_catches_any_change(tmp_path):
    results = tmp_path / "results" / "full"
    write_study(results, "01-policy-comparison", [row("Table 1", 9.0)])
    root = tmp_path / "shipped"
    assert shipped.ship(None, "full", results=results, root=root, log=None) == ["01-policy-comparison"]
    d = root / "full" / "01-policy-comparison"
    assert sorted(p.relative_to(d).as_posix() for p in d.rglob("*") if p.is_file()) == [
        "figures/f.png", "findings.json", "numbers.json", "parameters.json", "tables/scorecard.csv"]   # no datasets
    m = shipped.read_manifest("full", root)["studies"]["01-policy-comparison"]
    assert m["commit"] == "abc" and m["wall_s"] == 12.5 and m["jobs_simulated"] == 1000
    assert shipped.verify("full", root) == []
    (d / "tables" / "scorecard.csv").write_text("altered")
    (d / "tables" / "extra.csv").write_text("x")
    (d / "findings.json").unlink()
    problems = "\n".join(shipped.verify("full", root))
    assert "scorecard.csv: differs" in problems and "extra.csv: not in MANIFEST" in problems
    assert "findings.json: missing" in problems


def test_ship_refuses_an_unfinished_or_other_profile_run(tmp_path):
    results = tmp_path / "results" / "full"
    with pytest.raises(InputError, match="no finished study"):
        shipped.ship(None, "full", results=results, root=tmp_path / "s", log=None)
    write_study(results, "02-thresholds", [], profile="quick")
    with pytest.raises(InputError, match="a quick run, not full"):
        shipped.ship(["thresholds"], "full", results=results, root=tmp_path / "s", log=None)
    with pytest.raises(InputError, match="has not finished"):
        shipped.ship(["mixed"], "full", results=results, root=tmp_path / "s", log=None)


def test_quick_check_judges_each_row_by_the_intervals(tmp_path):
    full_rows = [row("equal", 5.0), row("in full interval", 5.0, 4.0, 6.0), row("in quick interval", 5.0),
                 row("apart", 5.0, 4.9, 5.1), row("apart, no interval", 5.0),
                 row("claim", "yes", rule="claim", verdict="reproduced"),
                 row("claim flips", "yes", rule="claim", verdict="reproduced"),
                 row("window", 5.0, verdict="not compared"), row("full only", 1.0)]
    quick_rows = [row("equal", 5.0), row("in full interval", 5.9), row("in quick interval", 9.0, 4.0, 10.0),
                  row("apart", 7.0, 6.5, 7.5), row("apart, no interval", 5.5),
                  row("claim", "yes", rule="claim", verdict="reproduced"),
                  row("claim flips", "no", rule="claim", verdict="not reproduced"),
                  row("window", 3.0, verdict="not compared"), row("quick only", 1.0)]
    root = tmp_path / "shipped"
    write_study(tmp_path / "full", "01-policy-comparison", full_rows)
    shipped.ship(None, "full", results=tmp_path / "full", root=root, log=None)
    write_study(tmp_path / "quick", "01-policy-comparison", quick_rows, profile="quick")
    rows, counts = shipped.quick_check(tmp_path / "quick", root=root)
    status = {r[2]: r[7] for r in rows}
    assert status == {"equal": "agree", "in full interval": "agree", "in quick interval": "agree",
                      "apart": "disagree", "apart, no interval": "disagree", "claim": "agree",
                      "claim flips": "disagree", "window": "not comparable", "full only": "only in full",
                      "quick only": "only in quick"}
    assert counts["policies"]["agree"] == 4 and counts["policies"]["disagree"] == 3
    why = {r[2]: r[8] for r in rows}
    assert why["apart, no interval"] == "10.0% apart (no interval)"


def test_the_paper_reads_shipped_studies_and_checks_the_quick_run(tmp_path, paper_copy):
    from test_study_traces import write_tiny
    from schedlab.protocol.study import run_study

    trace = write_tiny(tmp_path / "tiny.swf")
    full, quick = tmp_path / "results" / "full", tmp_path / "results" / "quick"
    run_study("traces", profile="full", overrides={"traces": [str(trace)]}, outdir=full / "00-traces", log=None)
    # a custom run is recorded as such; ship it as if it were the profile's own
    nfile = full / "00-traces" / "numbers.json"
    n = json.loads(nfile.read_text())
    n["provenance"]["profile"] = "full"
    # its executed notebook, as papermill would leave it: showing the study's tables
    write_notebook(full / "notebooks" / "00-traces.ipynb",
                   "\n".join(f.read_text() for f in sorted((full / "00-traces" / "tables").glob("*.md"))))
    nfile.write_text(json.dumps(n))
    card = [row("Table 4.1", 5.0, 4.0, 6.0)]        # a tiny log has no published rows: one stands in
    write_card = lambda d: shutil.copy(write_study(tmp_path / "cards" / d.parent.name, d.name, card) / "tables" /  # noqa: E731
                                       "scorecard.csv", d / "tables" / "scorecard.csv")
    write_card(full / "00-traces")
    root = tmp_path / "shipped"
    shipped.ship(["traces"], "full", results=full, root=root, log=None)
    run_study("traces", overrides={"traces": [str(trace)]}, outdir=quick / "00-traces", log=None)
    write_card(quick / "00-traces")
    numbers = paper.collect(quick, paper_copy, "quick", shipped_root=root)
    assert numbers["meta"]["sources"]["traces"]["from"] == "shipped"
    assert numbers["quick_check"]["total"]["disagree"] == 0 and numbers["quick_check"]["total"]["agree"] == 1
    assert (paper_copy / "generated" / "quick_check.csv").exists()
    paper.compile_pdf(paper_copy)
    # asked for this run's own: no shipped study, no check
    numbers = paper.collect(quick, paper_copy, "quick", use_shipped=False, shipped_root=root)
    assert numbers["meta"]["sources"]["traces"]["from"] == "run" and "quick_check" not in numbers


def test_the_repository_s_shipped_results_are_intact_and_full_size():
    manifest = shipped.read_manifest("full")
    assert shipped.verify("full") == []
    for stem, entry in manifest.get("studies", {}).items():
        numbers = json.loads((shipped.folder("full") / stem / "numbers.json").read_text())
        assert numbers["provenance"]["profile"] == "full", stem
        assert entry["commit"] and entry["wall_s"] > 0, stem



def test_no_shipped_miss_says_only_unexplained():
    """DESIGN §10 at the papers' sizes: a counted miss of the shipped full
    scorecards names the readings tried or a reason.  The driver's strict check
    runs at the quick profile, where rows compared only at full size (CEA-Curie,
    lawson2005's cross-trace claims) are shown uncompared; this reads what is shipped."""
    from schedlab.protocol.scorecard import MISSES

    bare = []
    for f in sorted(shipped.folder("full").glob("*/tables/scorecard.csv")):
        with open(f, newline="") as fh:
            for row in csv.DictReader(fh):
                if row["verdict"] in MISSES and row["explanation"].strip() in ("", "unexplained"):
                    bare.append(f"{f.parent.parent.name}: {row['paper']} | {row['item']} | {row['trace']}")
    assert bare == [], bare

# ---- issue 32, item 2: verify-shipped vouches for the whole folder ----

def _shipped_copy(tmp_path):
    """A copy of the repository's shipped/ (format 2 manifest, bench JSONs)."""
    root = tmp_path / "shipped"
    shutil.copytree(shipped.SHIPPED, root)
    assert shipped.verify("full", root) == []
    return root


def _verify_cli(root, monkeypatch, capsys):
    from schedlab.publish import reproduce
    monkeypatch.setattr(shipped, "SHIPPED", root)
    try:
        rc = reproduce.main(["verify-shipped"])
    except SystemExit as exc:
        rc = exc.code
    out = capsys.readouterr()
    return rc, out.out + out.err + ("" if isinstance(rc, int) else str(rc))


def test_verify_shipped_fails_without_a_manifest(tmp_path, monkeypatch, capsys):
    root = _shipped_copy(tmp_path)
    (root / "full" / "MANIFEST.json").unlink()
    with pytest.raises(InputError, match="MANIFEST.json: missing"):
        shipped.verify("full", root)
    rc, text = _verify_cli(root, monkeypatch, capsys)
    assert rc not in (0, None) and "MANIFEST.json: missing" in text and "every file as shipped" not in text


def test_verify_shipped_fails_on_an_unreadable_manifest(tmp_path):
    root = _shipped_copy(tmp_path)
    (root / "full" / "MANIFEST.json").write_text("{not json")
    with pytest.raises(InputError, match="unreadable manifest"):
        shipped.verify("full", root)
    (root / "full" / "MANIFEST.json").write_text('{"studies": []}')
    with pytest.raises(InputError, match="unreadable manifest"):
        shipped.verify("full", root)


def test_a_study_dropped_from_the_manifest_and_then_edited_is_caught(tmp_path):
    root = _shipped_copy(tmp_path)
    m = json.loads((root / "full" / "MANIFEST.json").read_text())
    del m["studies"]["02-thresholds"]
    m["checksum"] = shipped.checksum(m)            # even with the checksum redone
    (root / "full" / "MANIFEST.json").write_text(json.dumps(m))
    (root / "full" / "02-thresholds" / "findings.json").write_text("{}")
    problems = "\n".join(shipped.verify("full", root))
    assert "02-thresholds/findings.json: not in MANIFEST.json" in problems
    assert "02-thresholds/numbers.json: not in MANIFEST.json" in problems


def test_an_edited_benchmark_json_is_caught(tmp_path, monkeypatch, capsys):
    root = _shipped_copy(tmp_path)
    bench = sorted((root / "full").glob("bench-profile-*.json"))
    assert bench
    bench[0].write_text(bench[0].read_text().replace("1", "2", 1))
    problems = "\n".join(shipped.verify("full", root))
    assert f"{bench[0].name}: differs from what was shipped" in problems
    rc, text = _verify_cli(root, monkeypatch, capsys)
    assert rc == 1 and "differs" in text


def test_a_stray_file_and_an_edited_manifest_are_caught(tmp_path):
    root = _shipped_copy(tmp_path)
    (root / "full" / "notes.txt").write_text("x")
    (root / "full" / "01-policy-comparison" / "tables" / "extra.csv").write_text("x")
    problems = "\n".join(shipped.verify("full", root))
    assert "full/notes.txt: not in MANIFEST.json" in problems and "extra.csv: not in MANIFEST.json" in problems
    p = root / "full" / "MANIFEST.json"
    m = json.loads(p.read_text())
    m["studies"]["00-traces"]["wall_s"] = 1.0      # an entry edited by hand, checksum left as it was
    p.write_text(json.dumps(m))
    assert any("checksum does not match" in x for x in shipped.verify("full", root))


def test_migrate_lists_the_bench_files_and_refuses_to_bless_an_edit(tmp_path):
    root = _shipped_copy(tmp_path)
    p = root / "full" / "MANIFEST.json"
    m = json.loads(p.read_text())
    for k in ("checksum", "files", "format"):
        m.pop(k)
    p.write_text(json.dumps(m))                    # format 1, as shipped before issue 32
    assert any("no checksum" in x for x in shipped.verify("full", root))
    before = {f: f.read_bytes() for f in (root / "full").rglob("*") if f.is_file() and f.name != "MANIFEST.json"}
    shipped.migrate("full", root, log=None)
    assert shipped.verify("full", root) == []
    assert {f: f.read_bytes() for f in before} == before      # only the manifest was written
    assert sorted(json.loads(p.read_text())["files"]) == sorted(f.name for f in (root / "full").glob("bench-*.json"))
    p.write_text(json.dumps(m))
    (root / "full" / "05-energy" / "findings.json").write_text("{}")
    with pytest.raises(InputError, match="not migrated"):
        shipped.migrate("full", root, log=None)


def test_ship_files_lists_a_benchmark_beside_the_studies(tmp_path):
    root = _shipped_copy(tmp_path)
    new = tmp_path / "bench-profile-new.json"
    new.write_text("{}")
    shipped.ship_files([new], "full", root, log=None)
    assert shipped.verify("full", root) == []
    with pytest.raises(InputError, match="not a file shipped beside"):
        shipped.ship_files([tmp_path / "other.json"], "full", root, log=None)


# ---- issue 34, item 1: the executed notebooks shipped beside the studies ----

def test_ship_writes_the_executed_notebook_at_screen_resolution(tmp_path):
    import nbformat
    from PIL import Image
    results = tmp_path / "results" / "full"
    write_study(results, "01-policy-comparison", [row("Table 1", 9.0), row("Table 2", 11.25, 10, 12.5)])
    root = tmp_path / "shipped"
    shipped.ship(None, "full", results=results, root=root, log=None)
    nbp = shipped.notebook_path("01-policy-comparison", "full", root)
    entry = shipped.read_manifest("full", root)["studies"]["01-policy-comparison"]
    assert entry["notebook"] == shipped._sha256(nbp)
    assert shipped.verify("full", root) == [] and shipped.without_notebook("full", root) == []
    nb = nbformat.read(str(nbp), as_version=4)
    outs = nb.cells[1].outputs
    assert [o.output_type for o in outs] == ["stream", "display_data", "display_data"]   # progress lines merged
    assert outs[0].text == "cells 1/2\ncells 2/2\n"
    with Image.open(io.BytesIO(base64.b64decode(outs[2].data["image/png"]))) as im:
        assert im.size == (200, 100)                                  # 150 dpi -> 100 dpi
    matched, problems = shipped.match_tables(nb, root / "full" / "01-policy-comparison" / "tables")
    assert problems == [] and list(matched.values()) == ["scorecard"]


def test_a_shipped_notebook_whose_tables_differ_from_the_csv_is_caught(tmp_path):
    results = tmp_path / "results" / "full"
    d = write_study(results, "02-thresholds", [row("Table 3", 9.0), row("Fig. 8", 0.125)])
    root = tmp_path / "shipped"
    text = (d / "tables" / "scorecard.csv").read_text()
    (d / "tables" / "scorecard.csv").write_text(text.replace("0.125", "0.135"))     # a stale notebook
    with pytest.raises(InputError, match=r"(?s)not the run of .*0\.12.*0\.135"):
        shipped.ship(None, "full", results=results, root=root, log=None)
    (d / "tables" / "scorecard.csv").write_text(text)
    shipped.ship(None, "full", results=results, root=root, log=None)
    assert shipped.verify("full", root) == []
    # a notebook edited and re-listed in the manifest: its table no longer equals the CSV
    nbp = shipped.notebook_path("02-thresholds", "full", root)
    nbp.write_text(nbp.read_text().replace("| 9.00 |", "| 9.01 |"))
    manifest = shipped.read_manifest("full", root)
    manifest["studies"]["02-thresholds"]["notebook"] = shipped._sha256(nbp)
    shipped._write_manifest(manifest, "full", root)
    problems = "\n".join(shipped.verify("full", root))
    assert "differs from tables/scorecard.csv" in problems and "'9.01'" in problems
    nbp.unlink()
    assert "notebooks/02-thresholds.ipynb: missing" in "\n".join(shipped.verify("full", root))


def test_ship_refuses_a_study_without_its_executed_notebook(tmp_path):
    results = tmp_path / "results" / "full"
    write_study(results, "08-multiqueue", [row("Table 1", 9.0)])
    (results / "notebooks" / "08-multiqueue.ipynb").unlink()
    with pytest.raises(InputError, match="08-multiqueue.ipynb: missing.*reproduce notebook 08-multiqueue"):
        shipped.ship(None, "full", results=results, root=tmp_path / "s", log=None)
    write_notebook(results / "notebooks" / "08-multiqueue.ipynb", "no table here")
    with pytest.raises(InputError, match="shows none of the tables"):
        shipped.ship(None, "full", results=results, root=tmp_path / "s", log=None)


def test_a_trial_ship_of_a_quick_run_goes_into_the_folder_given(tmp_path, monkeypatch, capsys):
    from schedlab import paths
    from schedlab.publish import reproduce
    write_study(tmp_path / "results" / "quick", "00-traces", [row("Table 4.1", 3.5)], profile="quick")
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    before = shipped._sha256(shipped.SHIPPED / "full" / "MANIFEST.json")
    assert reproduce.main(["ship", "--profile", "quick", "--into", str(tmp_path / "trial")]) == 0
    assert "1 executed notebooks" in capsys.readouterr().out
    assert (tmp_path / "trial" / "quick" / "notebooks" / "00-traces.ipynb").exists()
    assert shipped._sha256(shipped.SHIPPED / "full" / "MANIFEST.json") == before     # shipped/ untouched
    # the stems may follow the options (this run's "ship --profile full 10-your-policy" was refused)
    write_study(tmp_path / "results" / "quick", "02-thresholds", [row("Table 3", 9.0)], profile="quick")
    assert reproduce.main(["ship", "--profile", "quick", "--into", str(tmp_path / "trial2"), "02-thresholds"]) == 0
    assert [p.name for p in (tmp_path / "trial2" / "quick" / "notebooks").iterdir()] == ["02-thresholds.ipynb"]


def test_the_repository_s_shipped_notebooks_show_their_study_s_tables():
    """Every executed notebook in shipped/full/notebooks/ has outputs, and
    every table it shows equals shipped/full/<study>/tables/*.csv."""
    base = shipped.folder("full")
    nbs = sorted((base / shipped.NOTEBOOKS).glob("*.ipynb"))
    for nbp in nbs:
        assert (base / nbp.stem / "tables").is_dir(), f"{nbp.name}: no shipped study {nbp.stem}"
        assert shipped.notebook_problems(nbp, base / nbp.stem / "tables") == []
    missing = shipped.without_notebook("full")
    if missing:
        pytest.skip(f"shipped before the notebooks were, not re-shipped yet (python -m schedlab.publish.reproduce ship "
                    f"--profile full after make reproduce PROFILE=full): {', '.join(missing)}; "
                    f"{len(nbs)} shipped notebooks checked")


def test_every_source_notebook_and_the_readme_link_to_the_shipped_copy():
    """Each shipped notebook is linked from its source notebook and the README
    (a study not shipped yet, e.g. one just made by `schedlab study new`, has no copy to link)."""
    from schedlab import paths
    readme = (paths.ROOT / "README.md").read_text()
    shipped_nbs = [nbp for nbp in sorted(paths.NOTEBOOKS.glob("*.ipynb")) if shipped.notebook_path(nbp.stem).exists()]
    assert shipped_nbs
    for nbp in shipped_nbs:
        first = "".join(json.loads(nbp.read_text())["cells"][0]["source"])
        assert f"](../shipped/full/notebooks/{nbp.name})" in first, nbp.name
        assert f"](shipped/full/notebooks/{nbp.name})" in readme, nbp.name


# ---- issue 52, item 2: every summary is its rows ----

def test_every_count_the_paper_shows_recomputes_from_the_shipped_rows():
    """The counts by verdict and each group's summary in the shipped numbers.json (what the paper's opening
    tables read) equal the same function of the shipped scorecard.csv's columns.  Fails on summaries stored
    at run time and not recomputed when the rows were re-judged (6 of 10 groups before issue 52)."""
    from schedlab.protocol import scorecard as sc

    base = shipped.folder("full")
    for path in sorted(base.glob("*/tables/scorecard.csv")):
        study = path.parent.parent.name
        numbers = json.loads((path.parent.parent / "numbers.json").read_text())["scorecard"]
        with open(path, newline="") as fh:
            recs = list(csv.DictReader(fh))
        for key, ident in (("counts", False), ("counts under identified readings", True)):
            assert sc.count_records(recs, identified=ident) == numbers[key], (study, key)
        groups = sc.group_records(recs)
        shown = {s["group"]: s for s in numbers.get("readings", [])}
        assert set(groups) == set(shown), study
        for name, g in groups.items():
            s = shown[name]
            assert (g["rows"], g["fit rows"], g["held-out rows"]) == (s["rows"], s["fit rows"], s["held-out rows"]), name
            text = s["candidates"]["the paper's text"]
            assert g["text"] == {"fit good": text["fit good"], "held-out good": text["held-out good"]}, name
            if s["identified"]:
                chosen = s["candidates"][s["chosen"]]
                assert g["reading"] == {"fit good": chosen["fit good"], "held-out good": chosen["held-out good"]}, name


def test_the_shipped_scorecards_are_a_fixed_point_of_the_rescore(tmp_path):
    """Re-judging the shipped scorecards by the house's tool changes no count, no group's choice and none of
    its candidates' counts: the summaries (the readings the rows carry, non-identified groups' choices
    included) are what the rows give."""
    import importlib.util
    import sys

    from schedlab import paths

    spec = importlib.util.spec_from_file_location("scorecard_rescore", paths.ROOT / "tools" / "scorecard_rescore.py")
    tool = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = tool          # its dataclasses look their module up
    spec.loader.exec_module(tool)
    base = shipped.folder("full")
    for path in sorted(base.glob("*/tables/scorecard.csv")):
        folder = path.parent.parent
        before = json.loads((folder / "numbers.json").read_text())["scorecard"]
        after = tool.rescore(folder, tmp_path / folder.name, log=lambda *a: None)
        for key in ("counts", "counts under identified readings", "identified on the fitted log's other weeks"):
            assert after[key] == before[key], (folder.name, key)

        def counted(summaries):     # the values printed at 4 significant digits move the median errors only
            return [{**{k: v for k, v in s.items() if k != "candidates"},
                     "candidates": {n: (c["fit good"], c["held-out good"]) for n, c in s["candidates"].items()}}
                    for s in summaries]
        assert counted(after["readings"]) == counted(before["readings"]), folder.name


def test_a_run_the_notebook_makes_inside_the_study_is_matched_and_shipped(tmp_path):
    """Study 10's notebook runs the same driver on the user's model into ``your-model/`` and shows
    its table, titled as the study's own: the table matches that run's CSV (not the study's), both
    runs' products are shipped, and a stale nested table is still caught (the 7c9970d full run's
    ship was refused: the nested table was compared with the study's CSV)."""
    import nbformat
    results = tmp_path / "results" / "full"
    d = write_study(results, "10-your-policy", [row("Table 1", 9.0)])
    sub = write_study(d, "your-model", [row("Table 1", 7.5)])
    nbp = results / "notebooks" / "10-your-policy.ipynb"
    nb = nbformat.read(str(nbp), as_version=4)
    nested = nbformat.read(str(d / "notebooks" / "your-model.ipynb"), as_version=4)
    nb.cells.append(nested.cells[1])            # the nested run's table, shown by the study's notebook
    nbformat.write(nb, str(nbp))
    matched, problems = shipped.match_tables(nb, d / "tables")
    assert problems == [] and sorted(matched.values()) == ["scorecard", "your-model/scorecard"]
    root = tmp_path / "shipped"
    shipped.ship(["10-your-policy"], "full", results=results, root=root, log=None)
    files = set(shipped.read_manifest("full", root)["studies"]["10-your-policy"]["files"])
    assert {"tables/scorecard.csv", "your-model/tables/scorecard.csv", "your-model/numbers.json"} <= files
    assert not any(f.startswith(("datasets/", "notebooks/", "your-model/datasets/")) for f in files)
    assert shipped.verify("full", root) == []
    text = (sub / "tables" / "scorecard.csv").read_text()
    (sub / "tables" / "scorecard.csv").write_text(text.replace("7.5", "7.7"))
    with pytest.raises(InputError, match=r"your-model/tables/scorecard\.csv"):
        shipped.ship(["10-your-policy"], "full", results=results, root=root, log=None)
