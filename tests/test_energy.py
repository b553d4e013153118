"""schedlab.studies.energy.signals: the loader on small generated CSVs in the bundled format
(units, duplicates, wraps, gaps), checksums, the per-job path on a generated
job table and node series, the profile cutters, each preprocessing step, each
test of the tree on hand-made signals, and the tree on generated signals of
known class across noise levels (reporting how often each test is right)."""
from __future__ import annotations

import gzip
import hashlib
import math
from pathlib import Path

import numpy as np
import pytest

from schedlab.studies.energy import signals as E
from schedlab.errors import ChecksumError, InputError

M0 = 26_000_000                 # a unix minute (2019-06-08)
SAMPLE = 5.0                    # seconds per Colmet sample
HEADER = ",".join(E.COLUMNS)


def uj(watts):
    """Watts -> microjoules per 5-s sample (the file's unit)."""
    return np.asarray(watts, dtype=float) * SAMPLE * 1e6


def write_colmet_csv(path: Path, series: dict[str, dict[str, np.ndarray]], minute0: int = M0,
                     extra_rows: list[str] = (), skip: dict[str, np.ndarray] | None = None) -> Path:
    """A CSV in the bundled format.  ``series[host][column]``: watts per
    minute from ``minute0`` (columns of :data:`E.CHANNELS`; missing -> 0 W);
    ``skip[host]``: boolean mask of minutes without a row.  ``.gz`` paths
    are gzip-compressed."""
    lines = [HEADER]
    for host, cols in series.items():
        n = len(next(iter(cols.values())))
        mask = skip.get(host) if skip else None
        for i in range(n):
            if mask is not None and mask[i]:
                continue
            m = minute0 + i
            vals = [repr(float(uj(cols[c][i]))) if c in cols else "0.0" for c in E.CHANNELS]
            lines.append(",".join([host, str(m), repr(m * 60 + 27.5), *vals]))
    lines += list(extra_rows)
    text = "\n".join(lines) + "\n"
    path = Path(path)
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(text.encode(), mtime=0))
    else:
        path.write_text(text)
    return path


def sha(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# ================================================================= loader ==

@pytest.fixture(scope="module")
def small_csv(tmp_path_factory) -> Path:
    """Two hosts (listed b before a), 10 minutes; one duplicate row, one
    counter wrap, one impossible value and one missing minute."""
    n = 10
    i = np.arange(n, dtype=float)
    series = {
        "nodeb": {"pp0/package1": 50 + i, "DRAM/package1": np.full(n, 5.0),
                  "pp0/package2": np.full(n, 100.0), "DRAM/package2": np.full(n, 6.0)},
        "nodea": {"pp0/package1": np.full(n, 20.0), "DRAM/package1": np.full(n, 2.0),
                  "pp0/package2": np.full(n, 30.0), "DRAM/package2": np.full(n, 3.0)},
    }
    skip = {"nodea": i == 7}
    extra = [
        # a duplicate of nodeb's minute 2 with pp0/package1 = 60 W (mean with 52 W -> 56 W)
        f"nodeb,{M0 + 2},{(M0 + 2) * 60 + 27.5},{uj(60)},{uj(5)},{uj(100)},{uj(6)}",
    ]
    path = tmp_path_factory.mktemp("energy") / "small.csv.gz"
    write_colmet_csv(path, series, extra_rows=extra, skip=skip)
    # a wrap (negative) at nodea minute 3, pp0/package2; 1000 W at nodea minute 4, DRAM/package1
    text = gzip.decompress(path.read_bytes()).decode().splitlines()
    for k, line in enumerate(text):
        f = line.split(",")
        if f[0] == "nodea" and f[1] == str(M0 + 3):
            f[5] = repr(-2.1e10)
        if f[0] == "nodea" and f[1] == str(M0 + 4):
            f[4] = repr(float(uj(1000)))
        text[k] = ",".join(f)
    path.write_bytes(gzip.compress(("\n".join(text) + "\n").encode(), mtime=0))
    return path


def test_load_small_csv_shape_units_and_quirks(small_csv):
    ds = E.load(small_csv)
    assert ds.host.values.tolist() == ["nodea", "nodeb"]
    assert ds.package.values.tolist() == [1, 2]
    assert ds.sizes["time"] == 10
    assert ds.minute.values.tolist() == list(range(M0, M0 + 10))
    assert str(ds.time.values[0])[:16] == "2019-06-08T13:20"        # M0 * 60 s, UTC
    pp0 = ds["pp0"]
    np.testing.assert_allclose(pp0.sel(host="nodeb", package=1).values,
                               [50, 51, 56, 53, 54, 55, 56, 57, 58, 59])  # minute 2: (52 + 60) / 2
    a2 = pp0.sel(host="nodea", package=2).values
    assert math.isnan(a2[3]) and math.isnan(a2[7]) and a2[0] == pytest.approx(30.0)
    assert math.isnan(ds["dram"].sel(host="nodea", package=1).values[4])
    assert ds["pp0"].attrs["units"] == "W"
    assert ds.attrs["duplicate_keys"] == 1
    assert ds.attrs["masked_negative"]["pp0/package2"] == 1
    assert ds.attrs["masked_high"]["DRAM/package1"] == 1
    assert ds.attrs["rows"] == 20
    np.testing.assert_allclose(ds["samples_offset"].sel(host="nodeb").values, 27.5)


def test_load_raw_microjoules_and_other_sample_period(small_csv):
    raw = E.load(small_csv, unit="uJ")
    assert raw["pp0"].attrs["units"] == "uJ"
    assert raw["pp0"].sel(host="nodea", package=1).values[0] == pytest.approx(uj(20))
    ten = E.load(small_csv, sample_period=10.0)
    assert ten["pp0"].sel(host="nodea", package=1).values[0] == pytest.approx(10.0)
    with pytest.raises(InputError, match="unit"):
        E.load(small_csv, unit="kWh")
    with pytest.raises(InputError, match="sample_period"):
        E.load(small_csv, sample_period=0)


def test_unit_evidence_on_generated_rows(small_csv):
    ev = E.unit_evidence(E.read_csv(small_csv))
    assert ev["offset_27_5_share"] == 1.0
    c = ev["channels"]["pp0/package2"]
    assert c["negative"] == 1
    # -2.1e10 uJ + one wrap of 2^32 * 2^-14 J over 12 samples, in W
    expected = (-2.1e10 + 2 ** 32 * 2 ** -14 * 1e6 / 12) / 1e6 / 5
    assert c["negative_repaired_median_W"] == pytest.approx(expected)


def test_loader_refuses_malformed_files(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("hostname,timestamp_minute,timestamp\nh,1,60\n")
    with pytest.raises(InputError, match="missing column"):
        E.load(bad)
    bad.write_text(HEADER + "\nh,1,60,x,1,1,1\n")
    with pytest.raises(InputError, match="cannot read"):
        E.load(bad)
    with pytest.raises(InputError, match="not found"):
        E.load(tmp_path / "nope.csv")


def test_checksum_mismatch_raises(small_csv, tmp_path):
    good = sha(small_csv)
    E.load(small_csv, sha256=good)                             # passes
    with pytest.raises(ChecksumError, match="sha256 mismatch"):
        E.load(small_csv, sha256="0" * 64)
    # a registry beside an energy/ directory, as data/energy.toml is
    (tmp_path / "energy").mkdir()
    copy = tmp_path / "energy" / "d.csv.gz"
    copy.write_bytes(small_csv.read_bytes())
    reg = tmp_path / "energy.toml"
    reg.write_text(f'[d]\nfile = "d.csv.gz"\nsha256 = "{good}"\nrows = 20\n')
    assert E.load(registry=reg).attrs["sha256"] == good
    assert E.data_info(reg).rows == 20
    copy.write_bytes(small_csv.read_bytes() + gzip.compress(b"", mtime=0))   # same rows, other bytes
    with pytest.raises(ChecksumError):
        E.load(registry=reg)
    with pytest.raises(ChecksumError):
        E.load(copy, registry=reg)                             # the registered file by path
    E.load(copy, registry=reg, verify_checksum=False)          # explicitly unchecked
    reg.write_text("[d]\nfile = 3\n")
    with pytest.raises(InputError, match="file"):
        E.data_info(reg)


def test_bundled_registry_and_data():
    """The bundled file matches data/energy.toml, and what data/README.md
    says about its unit still holds."""
    info = E.data_info()
    assert info.path.parent == E.ENERGY_DIR
    assert info.path.is_file() and info.rows == 1038970 and info.hosts == 43
    raw = E.read_csv()                                          # verifies the checksum
    assert len(raw) == info.rows and raw.sha256 == info.sha256
    assert raw.host_names.size == info.hosts
    ev = E.unit_evidence(raw)
    assert ev["offset_27_5_share"] > 0.9
    for col in ("pp0/package1", "pp0/package2"):
        assert 120 < ev["channels"][col]["p99_W"] < 125.5       # just under the 125 W TDP
        assert ev["channels"][col]["negative_repaired_plausible_share"] > 0.99


# ============================================================== profiles ==

def node_dataset(tmp_path) -> "xarray.Dataset":  # noqa: F821
    """Two hosts, 240 minutes: n1 package 1 ramps 10 + i W, package 2 is
    100 W; n2 is 50 / 70 W; n2 has no rows in minutes 100-199."""
    n = 240
    i = np.arange(n, dtype=float)
    series = {"n1": {"pp0/package1": 10 + i, "pp0/package2": np.full(n, 100.0)},
              "n2": {"pp0/package1": np.full(n, 50.0), "pp0/package2": np.full(n, 70.0)}}
    path = write_colmet_csv(tmp_path / "nodes.csv", series, skip={"n2": (i >= 100) & (i < 200)})
    return E.load(path)


JOBS = {
    #          job      start (s)                  stop (s)          hosts        full
    "job_id": ["j1", "j2", "j3", "j4", "j5", "j6", "j7", "j8"],
    "start": [(M0 + 10) * 60 + 30, (M0 + 20) * 60, (M0 + 20) * 60, (M0 + 20) * 60, (M0 + 20) * 60,
              (M0 + 30) * 60, (M0 + 90) * 60, (M0 - 30) * 60],
    "stop": [(M0 + 50) * 60, (M0 + 60) * 60, (M0 + 60) * 60, (M0 + 60) * 60, (M0 + 60) * 60,
             (M0 + 30) * 60 + 40, (M0 + 150) * 60, (M0 + 30) * 60],
    "hosts": ["n1/1", "n1,n2", "n2", "n1", "n9", "n1", "n2", "n1"],
    "full": [True, True, "true", False, True, 1, True, True],
}


def test_job_profiles_from_generated_table_and_node_series(tmp_path):
    ds = node_dataset(tmp_path)
    profiles, report = E.job_profiles(ds, JOBS)
    by = {p.key: p for p in profiles}
    assert sorted(by) == ["j1", "j2", "j3"]
    # j1: whole minutes 11 .. 49 of package 1 of n1 (start 30 s into minute 10)
    j1 = by["j1"]
    assert (j1.start, j1.minutes, j1.package, j1.host) == (M0 + 11, 39, 1, "n1")
    np.testing.assert_allclose(j1.values, 10 + np.arange(11, 50))
    # j2: both packages of both hosts, averaged per minute
    np.testing.assert_allclose(by["j2"].values, (10 + np.arange(20, 60) + 100 + 50 + 70) / 4)
    assert by["j2"].host == "n1+n2" and by["j2"].package == 0 and by["j2"].meta["processors"] == 4
    np.testing.assert_allclose(by["j3"].values, 60.0)
    assert report.dropped == {"shared": ["j4"], "unknown-host": ["j5"], "too-short": ["j6"],
                              "missing-data": ["j7", "j8"]}
    assert report.counts() == {"jobs": 8, "kept": 3, "shared": 1, "unknown-host": 1, "too-short": 1,
                               "missing-data": 2}
    summed, _ = E.job_profiles(ds, JOBS, combine="sum")
    np.testing.assert_allclose({p.key: p for p in summed}["j3"].values, 120.0)
    # the power range travels with the profile (scaled by the number of processors for sums)
    assert {p.key: p for p in summed}["j2"].hi == pytest.approx(4 * by["j2"].hi)


def test_job_table_from_csv_with_oar_names(tmp_path):
    ds = node_dataset(tmp_path)
    f = tmp_path / "jobs.csv"
    f.write_text("job_id,start_time,stop_time,hosts,full\n"
                 f"42,{(M0 + 10) * 60},{(M0 + 40) * 60},n1+n2,yes\n")
    profiles, report = E.job_profiles(ds, f)
    assert [p.key for p in profiles] == ["42"] and profiles[0].minutes == 30
    with pytest.raises(InputError, match="missing column"):
        E.read_jobs({"job_id": [1], "start": [0], "stop": [1], "hosts": ["n1"]})
    with pytest.raises(InputError, match="start <= stop"):
        E.read_jobs({"job_id": [1], "start": [10], "stop": [1], "hosts": ["n1"], "full": [1]})
    with pytest.raises(InputError, match="boolean"):
        E.read_jobs({"job_id": [1], "start": [0], "stop": [1], "hosts": ["n1"], "full": ["maybe"]})


def levels_dataset(tmp_path, noise=0.01, seed=0):
    """One host whose package 1 runs 100 min at 20% of the range, 120 at
    90%, 80 at 50% and 60 idle; package 2 is idle then busy."""
    rng = np.random.default_rng(seed)
    lo, hi = 10.0, 110.0
    scaled = np.r_[np.full(100, 0.2), np.full(120, 0.9), np.full(80, 0.5), np.full(60, 0.0)]
    p1 = lo + (hi - lo) * (scaled + rng.normal(0, noise, scaled.size))
    p2 = lo + (hi - lo) * np.r_[np.zeros(150), np.full(210, 0.8)]
    path = write_colmet_csv(tmp_path / "levels.csv", {"h": {"pp0/package1": p1, "pp0/package2": p2}})
    return E.load(path), {1: (lo, hi), 2: (lo, hi)}


def test_segments_find_known_change_points(tmp_path):
    ds, ranges = levels_dataset(tmp_path)
    profs = [p for p in E.derive_profiles(ds, "segments", ranges=ranges) if p.package == 1]
    starts = [p.start - M0 for p in profs]
    assert len(profs) == 4
    assert all(abs(s - t) <= 2 for s, t in zip(starts, [0, 100, 220, 300]))
    # min_shift 0.45: the 0.9 -> 0.5 step (0.4) merges; the merged mean (0.74) stays
    # more than 0.45 away from its neighbours (0.2 and 0.0)
    coarse = [p for p in E.derive_profiles(ds, "segments", ranges=ranges, min_shift=0.45) if p.package == 1]
    assert [p.start - M0 for p in coarse] == [0, starts[1], starts[3]]
    assert len(E.derive_profiles(ds, "segments", ranges=ranges, min_shift=0.85)) == 2   # one per package
    cache = E.changepoints(ds, ranges=ranges)
    again = E.derive_profiles(ds, "segments", ranges=ranges, min_shift=0.45, cache=cache)
    assert [p.start for p in again if p.package == 1] == [p.start for p in coarse]


def test_episodes_and_windows(tmp_path):
    ds, ranges = levels_dataset(tmp_path)
    ep = E.derive_profiles(ds, "episodes", ranges=ranges, idle_level=0.1)
    assert [(p.package, p.start - M0, p.minutes) for p in ep] == [(1, 0, 300), (2, 150, 210)]
    win = E.derive_profiles(ds, "windows", ranges=ranges, window=100)
    assert [p.minutes for p in win if p.package == 1] == [100, 100, 100, 60]
    assert len({p.key for p in win}) == len(win)
    with pytest.raises(InputError, match="method"):
        E.derive_profiles(ds, "jobs")


def test_merge_segments_and_runs():
    x = np.r_[np.zeros(30), np.full(30, 0.05), np.full(30, 0.5), np.full(30, 0.52), np.zeros(30)]
    assert E.merge_segments(x, [30, 60, 90, 120, 150], 0.1) == [60, 120, 150]
    assert E.merge_segments(x, [30, 60, 90, 120, 150], 0.0) == [30, 60, 90, 120, 150]
    assert E.merge_segments(x, [30, 60, 90, 120, 150], 1.0) == [150]
    v = np.array([1, 1, 0, 1, 0, 0, 0, 1, 1], dtype=bool)
    assert E.runs(v) == [(0, 2), (3, 4), (7, 9)]
    assert E.runs(v, max_gap=1) == [(0, 4), (7, 9)]
    assert E.runs(v, max_gap=3) == [(0, 9)]
    assert E.runs(np.zeros(3, dtype=bool)) == []


# ========================================================= preprocessing ==

def test_aggregate_means_per_minute():
    t = np.arange(0, 180, 5.0)                       # 12 samples a minute for 3 minutes
    v = np.repeat([1.0, 2.0, 3.0], 12)
    v[13] = np.nan                                   # ignored
    starts, means = E.aggregate(t, v, period=60.0)
    assert starts.tolist() == [0.0, 60.0, 120.0]
    np.testing.assert_allclose(means, [1.0, 2.0, 3.0])
    starts, means = E.aggregate(np.array([0.0, 130.0]), np.array([1.0, 2.0]))
    assert starts.tolist() == [0.0, 60.0, 120.0] and math.isnan(means[1])
    with pytest.raises(InputError):
        E.aggregate(np.arange(3.0), np.arange(2.0))


def test_trim_zscore_normalise_fill():
    x = np.arange(20.0)
    assert E.trim(x, 3).tolist() == list(range(3, 17))
    assert E.trim(x, 2, 0).tolist() == list(range(2, 20))
    assert E.trim(x, 10).size == 0
    y = np.r_[np.zeros(50), 10.0, np.zeros(49)] + np.linspace(0, 0.1, 100)
    y[3] = np.nan
    out = E.zscore_outliers(y, 3.0)
    assert out.tolist().count(True) == 1 and out[50] and not out[3]
    assert not E.zscore_outliers(y, 0).any() and not E.zscore_outliers(np.ones(5), 3).any()
    np.testing.assert_allclose(E.normalise([10, 60, 110], 10, 110), [0.0, 0.5, 1.0])
    with pytest.raises(InputError):
        E.normalise([1.0], 2.0, 2.0)
    np.testing.assert_allclose(E.fill_gaps(np.array([np.nan, 1.0, np.nan, 3.0, np.nan])),
                               [1.0, 1.0, 2.0, 3.0, 3.0])


def test_preprocess_steps_and_drop_reasons():
    prep = E.Preprocessing(min_length=30, trim=5, zscore=3.0, max_gap=5)
    x = np.full(60, 60.0) + np.linspace(0, 1, 60)
    x[:5] = 0.0                                        # a start-up phase: trimmed
    x[30] = 200.0                                      # an outlier
    x[40:43] = np.nan                                  # a short gap
    pr = E.preprocess(x, 10.0, 110.0, prep)
    assert pr.dropped is None and pr.trimmed == 10 and pr.outliers == 1 and pr.gaps == 3
    assert pr.values.size == 50 and math.isnan(pr.values[25]) and pr.kept == 50 - 1 - 3
    assert np.isfinite(pr.filled).all()
    np.testing.assert_allclose(np.nanmin(pr.values), 0.5, atol=0.02)   # (60 - 10) / 100
    assert E.preprocess(x[:29], 10, 110, prep).dropped == "too-short"
    gap = x.copy()
    gap[20:30] = np.nan
    assert E.preprocess(gap, 10, 110, prep).dropped == "missing-data"
    assert E.preprocess(np.full(40, 50.0), 10, 110,
                        E.Preprocessing(min_length=30, trim=15, min_points=12)).dropped == "too-few-points"
    with pytest.raises(InputError, match="trim"):
        E.Preprocessing(trim=-1)
    with pytest.raises(InputError, match="zscore"):
        E.Preprocessing(zscore=-1.0)


# ================================================================== tree ==

def test_stationarity_test_statistic_and_verdict():
    x = np.r_[np.zeros(30), np.ones(30)]              # 6 windows: means 0 0 0 1 1 1
    r = E.stationarity_test(x, 6, 0.1)
    assert r.name == "stationarity"
    assert r.details["window_means"] == [0, 0, 0, 1, 1, 1]
    assert r.statistic == pytest.approx(np.std([0, 0, 0, 1, 1, 1], ddof=1))
    assert r.verdict is False
    flat = E.stationarity_test(np.full(60, 0.3), 6, 0.1)
    assert flat.statistic == pytest.approx(0.0, abs=1e-12) and flat.verdict is True
    uneven = np.arange(20.0)
    uneven[3] = np.nan                                # window means as np.array_split, NaN skipped
    means = [np.nanmean(w) for w in np.array_split(uneven, 6)]
    assert E.stationarity_test(uneven, 6).details["window_means"] == pytest.approx(means)
    with pytest.raises(InputError):
        E.stationarity_test(np.ones(3), 6)


def test_variability_test():
    x = np.r_[np.full(50, 0.4), np.full(50, 0.6)]
    r = E.variability_test(x, 0.1)
    assert r.statistic == pytest.approx(np.std(x, ddof=1)) and r.verdict is False
    assert E.variability_test(x, 0.2).verdict is True
    assert E.variability_test(np.full(10, 0.5)).statistic == 0.0


def test_periodicity_test_finds_a_known_period():
    t = np.arange(240)
    x = 0.5 + 0.3 * np.sin(2 * np.pi * t / 20)
    for criterion in E.CRITERIA:
        r = E.periodicity_test(x, E.DEFAULT_PERIODICITY[criterion], criterion)
        assert r.verdict is True, criterion
        assert r.details["period"] == pytest.approx(20.0) and r.details["cycles"] == 12
    square = 0.5 + 0.2 * np.sign(np.sin(2 * np.pi * (t + 0.5) / 30))
    r = E.periodicity_test(square)
    assert r.verdict and r.details["period"] == pytest.approx(240 / 8) and r.statistic > 0.9
    flat = E.periodicity_test(np.full(100, 0.4))
    assert flat.statistic == 0.0 and not flat.verdict


def test_periodicity_criteria_on_a_lone_bump():
    """Why 'acf' is the default: a lone dip in a short profile puts most of
    its variance at low frequencies (the share criterion says periodic) but
    does not repeat (the autocorrelation criterion says no)."""
    x = np.full(60, 0.9)
    x[24:29] = 0.2
    share = E.periodicity_test(x, 0.3, "share", min_cycles=2)
    acf = E.periodicity_test(x, 0.4, "acf", min_cycles=2)
    assert share.verdict and not acf.verdict
    assert acf.details["share"] == pytest.approx(share.statistic)
    # min_cycles: a single slow cycle is not a period
    slow = 0.5 + 0.3 * np.sin(2 * np.pi * np.arange(120) / 120)
    assert E.periodicity_test(slow, min_cycles=1.0).details["cycles"] == 1
    assert not E.periodicity_test(slow, min_cycles=3.0).verdict


def test_autocorrelation_and_periodogram():
    x = np.tile([0.0, 1.0], 50)
    r = E.autocorrelation(x)
    assert r[0] == pytest.approx(1.0) and r[1] == pytest.approx(-1.0) and r[2] == pytest.approx(1.0)
    k, p = E.periodogram(x)
    assert k[np.argmax(p)] == 50
    k, p = E.periodogram(np.sin(2 * np.pi * 7 * np.arange(140) / 140))
    assert k[np.argmax(p)] == 7 and p[6] / p.sum() == pytest.approx(1.0)
    assert not E.autocorrelation(np.ones(5)).any()


def test_classify_walks_the_tree():
    t = np.arange(240)
    cases = {
        "constant": np.full(240, 0.6),
        "periodic": 0.5 + 0.3 * np.sin(2 * np.pi * t / 24),
        "variable": 0.5 + 0.3 * ((t * 7919) % 97 / 97.0 - 0.5),     # bounded, aperiodic-looking
        "non-stationary": np.r_[np.full(120, 0.2), np.full(120, 0.8)],
    }
    got = {k: E.classify(v) for k, v in cases.items()}
    assert got["constant"].label == "constant"
    assert got["periodic"].label == "periodic"
    assert got["non-stationary"].label == "non-stationary"
    for c in got.values():
        assert {c.stationarity.name, c.variability.name, c.periodicity.name} == \
            {"stationarity", "variability", "periodicity"}
    assert [E.label(*v) for v in [(False, True, True), (True, True, True), (True, False, True),
                                  (True, False, False)]] == \
        ["non-stationary", "constant", "periodic", "variable"]
    with pytest.raises(InputError, match="n_windows"):
        E.Tree(n_windows=1)
    with pytest.raises(InputError, match="criterion"):
        E.Tree(criterion="wavelet")
    with pytest.raises(InputError, match="stationarity"):
        E.Tree(stationarity=-0.1)


# ================================================== generated signals ==

NOISES = (0.0, 0.02, 0.05, 0.1, 0.2)


@pytest.fixture(scope="module")
def accuracy():
    return E.tree_accuracy(NOISES, n_signals=40, seed=1)


def test_tree_on_generated_signals_of_known_class(accuracy, record_property):
    """How often each test is right, per kind and noise level (printed with
    ``pytest -s`` and recorded as a property); at low noise every kind must
    be recognised."""
    lines = [f"{'kind':<12} {'noise':>5}  {'stat':>5} {'var':>5} {'per':>5} {'T':>5} {'class':>5}"]
    fmt = lambda v: "  -  " if v is None else f"{100 * v:5.0f}"   # noqa: E731
    for r in accuracy:
        lines.append(f"{r['kind']:<12} {r['noise']:5.2f}  {fmt(r['stationarity'])} {fmt(r['variability'])} "
                     f"{fmt(r['periodicity'])} {fmt(r['period'])} {fmt(r['class'])}")
    report = "\n".join(lines)
    print("\n% of generated signals each test gets right\n" + report)
    record_property("tree_accuracy", report)
    low = {(r["kind"], r["noise"]): r for r in accuracy if r["noise"] <= 0.05}
    minimum = {"constant": 0.95, "periodic": 0.9, "irregular": 0.7, "level-shift": 0.9, "chaotic": 0.8}
    for (kind, noise), r in low.items():
        assert r["class"] >= minimum[kind], (kind, noise, r)
        assert r["stationarity"] >= minimum[kind], (kind, noise, r)
        if kind == "periodic":
            assert r["periodicity"] >= 0.9 and r["period"] >= 0.85, (noise, r)
        if kind == "constant":
            assert r["variability"] == 1.0 and r["periodicity"] == 1.0


def test_noise_beyond_the_variability_threshold_is_not_constant(accuracy):
    """The tree's definition at work: white noise of sd 0.2 (twice the
    variability threshold) on a flat signal is 'not constant'."""
    r = next(r for r in accuracy if r["kind"] == "constant" and r["noise"] == 0.2)
    assert r["variability"] <= 0.05 and r["stationarity"] >= 0.95


def test_synthetic_signals_are_what_they_claim():
    rng = np.random.default_rng(3)
    x, truth = E.synthetic("periodic", n=240, rng=rng, period=30, amplitude=0.4, level=0.5)
    assert truth == {"kind": "periodic", "class": "periodic", "period": 30.0, "stationary": True,
                     "constant": False, "periodic": True}
    assert set(np.round(x, 6)) == {0.3, 0.7}
    x, truth = E.synthetic("level-shift", n=100, rng=rng, level=0.5, amplitude=0.4)
    assert sorted(set(np.round(x, 6))) == [0.3, 0.7] and truth["class"] == "non-stationary"
    x, _ = E.synthetic("constant", n=50, noise=0.1, rng=rng)
    assert 0.05 < x.std() < 0.15
    with pytest.raises(InputError, match="kind"):
        E.synthetic("sawtooth")
    a = E.tree_accuracy((0.0,), n_signals=5, seed=7, kinds=["chaotic"])
    assert a == E.tree_accuracy((0.0,), n_signals=5, seed=7, kinds=["chaotic"])   # reproducible
