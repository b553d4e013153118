"""Study 9 (energy): parameter validation, run() on a small generated CSV in
the bundled format (profiles of known class), the committed notebook, and
the notebook under papermill with tiny parameters."""
from __future__ import annotations

import json
from pathlib import Path

import nbformat
import numpy as np
import pytest

from schedlab import paths
from schedlab.errors import InputError
from schedlab.studies import energy as study

from test_energy import write_colmet_csv

NOTEBOOK = paths.NOTEBOOKS / "05-energy.ipynb"
LO, HI = 10.0, 120.0


def watts(scaled):
    return LO + (HI - LO) * np.asarray(scaled, dtype=float)


@pytest.fixture(scope="module")
def csv(tmp_path_factory) -> Path:
    """Two days of two hosts: idle stretches, a long constant run, a
    periodic stretch (10 min high, 10 min low), irregular bursts and level
    shifts; small noise everywhere."""
    rng = np.random.default_rng(11)
    n = 2880
    t = np.arange(n)
    square = np.where((t // 10) % 2 == 0, 0.8, 0.3)
    a1 = np.r_[np.zeros(300), np.full(600, 0.9), square[:600], np.zeros(200), np.full(1180, 0.5)]
    bursts = np.full(n, 0.6)
    for s in np.flatnonzero(rng.random(n) < 1 / 12):
        bursts[s:s + rng.integers(1, 7)] = 0.6 + rng.choice([-0.35, 0.35])
    a2 = np.r_[np.zeros(400), bursts[:800], np.full(900, 0.95), np.zeros(780)]
    b1 = np.r_[np.full(1000, 0.7), np.zeros(200), np.full(1680, 0.2)]
    b2 = np.r_[square[:1440], np.zeros(1440)]
    noise = lambda: rng.normal(0, 0.01, n)     # noqa: E731
    series = {
        "node1": {"pp0/package1": watts(a1 + noise()), "pp0/package2": watts(a2 + noise()),
                  "DRAM/package1": np.full(n, 5.0), "DRAM/package2": np.full(n, 5.0)},
        "node2": {"pp0/package1": watts(b1 + noise()), "pp0/package2": watts(b2 + noise()),
                  "DRAM/package1": np.full(n, 5.0), "DRAM/package2": np.full(n, 5.0)},
    }
    return write_colmet_csv(tmp_path_factory.mktemp("study") / "two-days.csv", series)


TINY = {"hosts": "all", "sensitivity": {"stationarity": [0.05, 0.1], "min_shift": [0.25, 0.5],
                                        "criterion": ["share", "acf"]},
        "synthetic_signals": 3, "synthetic_noises": [0.0, 0.1]}


def run(outdir, **kw):
    """The study through its driver, into ``outdir``."""
    from schedlab.protocol.study import run_study
    return run_study("energy", overrides=kw, outdir=outdir, log=None)


def validate(**kw):
    from schedlab.protocol import study as protocol
    return protocol.validate(study.Params, kw)


@pytest.fixture(scope="module")
def result(csv, tmp_path_factory):
    return run(tmp_path_factory.mktemp("out"), data=str(csv), **TINY)


# -------------------------------------------------------------- parameters --

def test_validate_defaults_and_errors(csv):
    p = validate()
    assert (p.hosts, p.method, p.criterion, p.periodicity, p.min_cycles) == (study.params.QUICK_HOSTS, "segments",
                                                                             "acf", 0.4, 3.0)
    assert validate(hosts="dahu").hosts == "dahu"
    assert validate(criterion="share").periodicity == 0.3          # the criterion's default
    assert validate(criterion="share", periodicity=0.5).periodicity == 0.5
    assert validate(hosts="node1, node2").hosts == ("node1", "node2")
    assert validate(hosts='["node1"]').hosts == ("node1",)
    assert validate(days="2").days == 2.0
    bad = [({"method": "jobs"}, "method"), ({"hosts": []}, "hosts"), ({"days": -1}, "days"),
           ({"data": "/no/such/file.csv"}, "data"), ({"n_windows": 1}, "n_windows"),
           ({"trim": 2.5}, "trim"), ({"stationarity": "high"}, "stationarity"),
           ({"sensitivity": {"colour": [1]}}, "sensitivity"), ({"include_idle": "maybe"}, "include_idle"),
           ({"sensitivity": {"criterion": ["wavelet"]}}, "criterion"), ({"windows": 3}, "not a parameter of this study"),
           ({"range_quantiles": [0.9, 0.1]}, "range_quantiles")]
    for kw, what in bad:
        with pytest.raises(InputError, match=what):
            validate(**kw)


def test_run_refuses_unknown_hosts(csv, tmp_path):
    with pytest.raises(InputError, match="not in the data"):
        run(tmp_path, data=str(csv), hosts=["node9"], sensitivity=False, synthetic_signals=0)
    with pytest.raises(InputError, match="matches no host"):
        run(tmp_path, data=str(csv), hosts="dahu", sensitivity=False, synthetic_signals=0)


# --------------------------------------------------------------------- run --

def test_run_writes_every_output(result):
    out = result["outdir"]
    for name in ("data", "units", "hosts", "funnel", "classes", "methods", "sensitivity", "synthetic"):
        assert (out / "tables" / f"{name}.csv").is_file() and (out / "tables" / f"{name}.md").is_file(), name
    for name in ("overview", "history", "aggregation", "outliers", "examples", "periodograms",
                 "distribution", "methods", "sensitivity", "synthetic"):
        assert (out / "figures" / f"{name}.png").is_file() and (out / "figures" / f"{name}.pdf").is_file(), name
    assert (out / "data" / "profiles.csv").is_file() and (out / "profiles.nc").is_file()
    assert not list(out.rglob("*.tmp"))
    doc = json.loads((out / "numbers.json").read_text())
    for key in ("data", "profiles", "shares", "methods", "thesis", "sensitivity", "synthetic",
                "parameters", "provenance", "predictable_count_pct"):
        assert key in doc, key
    assert doc["data"]["rows"] == 2 * 2880 and doc["data"]["hosts"] == 2
    assert doc["thesis"]["predictable_pct"] == 75.0


def test_run_classifies_the_generated_profiles(result):
    a = result["analysis"]
    s = result["shares"]
    assert sum(s["count"][c] for c in ("constant", "periodic", "variable", "non-stationary")) == pytest.approx(100)
    assert s["count"]["predictable"] == pytest.approx(s["count"]["constant"] + s["count"]["periodic"])
    labels = {(p.host, p.package, p.start - int(result["dataset"].minute.values[0])): lab
              for p, lab in zip(a.profiles, a.columns["label"])}
    # the square wave of node2 package 2 (first day) and of node1 package 1 (minutes 900-1500;
    # its first high phase, 0.8, joins the 0.9 run before it)
    assert labels.get(("node2", 2, 0)) == "periodic"
    near = [lab for (h, k, s0), lab in labels.items() if h == "node1" and k == 1 and abs(s0 - 900) <= 15]
    assert near == ["periodic"]
    # the long flat runs are constant; the idle stretches are counted apart
    assert labels.get(("node2", 1, 0)) == "constant"
    assert result["numbers"]["profiles"]["idle"] >= 4
    # the level-0.5 run of node1 package 1
    assert [lab for (h, k, s0), lab in labels.items() if h == "node1" and k == 1 and abs(s0 - 1700) <= 3] \
        == ["constant"]


def test_sensitivity_rows_and_relabelling(result):
    rows = result["sensitivity"]
    assert {r["parameter"] for r in rows} == {"stationarity", "min_shift", "criterion"}
    default = [r for r in rows if r["default"]]
    assert len(default) == 3
    for r in default:                       # the default value reproduces the main shares
        assert r["predictable % (count)"] == pytest.approx(result["shares"]["count"]["predictable"])
    strict = next(r for r in rows if r["parameter"] == "stationarity" and r["value"] == 0.05)
    assert strict["non-stationary % (count)"] >= result["shares"]["count"]["non-stationary"]


def test_methods_and_synthetic_in_numbers(result):
    m = result["numbers"]["methods"]
    assert set(m) == {"segments", "episodes", "windows"}
    for v in m.values():
        assert 0 <= v["count_predictable"] <= 100
    syn = result["numbers"]["synthetic"]
    assert syn["signals"] == 3 and set(syn["class_by_kind"]) == {"constant", "periodic", "irregular",
                                                                 "level-shift", "chaotic"}


def test_profiles_dataset(result):
    from schedlab.campaigns.store import read_dataset
    ds = read_dataset(result["outdir"] / "profiles.nc")
    a = result["analysis"]
    assert ds.sizes["profile"] == len(a)
    assert ds["minutes"].attrs["units"] == "min"
    assert ds.attrs["parameters"]["method"] == "segments"
    assert set(ds["label"].values.tolist()) - {""} <= {"constant", "periodic", "variable", "non-stationary"}
    assert ds["label"].values.tolist() == a.columns["label"].tolist()


# ---------------------------------------------------------------- notebook --

def test_params_files_are_valid():
    from schedlab.protocol import study as protocol
    from schedlab.studies.registry import get
    assert protocol.profile_params(get("energy"), "quick").hosts == study.params.QUICK_HOSTS
    assert protocol.profile_params(get("energy"), "full").hosts == "dahu"


def test_notebook_runs_on_a_small_csv(csv, tmp_path):
    papermill = pytest.importorskip("papermill")
    out = tmp_path / "out"
    papermill.execute_notebook(
        str(NOTEBOOK), str(tmp_path / "executed.ipynb"),
        parameters={"data": str(csv), "hosts": "all", "compare_methods": False,
                    "sensitivity": {"variability": [0.05, 0.1]}, "synthetic_signals": 2,
                    "outdir": str(out)},
        kernel_name="schedlab", progress_bar=False, cwd=str(tmp_path))
    doc = json.loads((out / "numbers.json").read_text())
    assert doc["data"]["hosts"] == 2 and doc["parameters"]["compare_methods"] is False
    assert set(doc["methods"]) == {"segments"}
    executed = nbformat.read(tmp_path / "executed.ipynb", as_version=4)
    shown = "".join(o.get("data", {}).get("text/markdown", "") for c in executed.cells
                    if c.cell_type == "code" for o in c.outputs)
    assert "Class shares" in shown and "the thesis reports about 75%" in shown


def test_published_values_are_data_with_their_sources():
    from schedlab.studies import load_published

    doc = load_published("schedlab.studies.energy")
    for name, table in doc.items():
        assert table["source"].startswith("zrigui2021 §"), name
    assert study.PUBLISHED["predictable_pct"] == 75.0 and study.PUBLISHED["jobs"] == 21885
    assert study.PUBLISHED["n_windows"] == 6 and study.PUBLISHED["periodicity_threshold"] == 1.0
    assert len(study.PUBLISHED) == 18 and len(study.PUBLISHED_NOTES) == 3
    # every value of the file is one key of PUBLISHED, each table's values in file order
    values = [k for t in doc.values() for k in t if k not in ("source", "notes", "approximate", "unit")]
    assert values == list(study.PUBLISHED)
