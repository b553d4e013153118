"""Issue 32, items 4 and 5: one machine-size parser and one rule for repeated
parameters in every command, Ctrl-C as one line and exit 130, errors from
dask workers as the local one-line error, every OSError naming its file,
outputs with the umask's mode (netCDF included)."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from schedlab.tools import cli
from schedlab import paths
from schedlab.workloads import traces, workload
from schedlab.errors import InputError

KTH = "KTH-SP2"


# ---- one machine-size parser, one rule for repeated parameters ----

@pytest.mark.parametrize("value", ["99999999999999999999", str(2**31), "0", "-3", "1e3", "\u0663"])
def test_one_parser_refuses_the_same_machine_sizes_everywhere(value, tmp_path, capsys):
    with pytest.raises(InputError, match="machine"):
        workload.machine_choice(value)
    with pytest.raises(InputError, match="machine"):
        traces.spec_options(f"m={value}", "x.swf")
    for argv in (["simulate", KTH, "-m", value], ["check", "x.csv", "-m", value],
                 ["traces", "import", "x.psv", "--format", "sacct", "-o", str(tmp_path / "o.swf"), "--max-procs", value],
                 ["advise", KTH, "-m", value]):
        with pytest.raises(SystemExit) as exc:
            cli.main(argv)
        assert exc.value.code == 2
        assert "machine" in capsys.readouterr().err


def test_a_study_run_on_a_trace_refuses_a_machine_beyond_the_core(tmp_path, capsys):
    # was accepted (load 6.8e-19) while simulate refused it
    spec = f"{paths.TRACES / 'KTH-SP2-1996-2.1-cln.swf.gz'}?m=99999999999999999999"
    rc = cli.main(["study", "run", "traces", "--trace", spec, "--outdir", str(tmp_path / "o"), "--no-progress"])
    assert rc == 2 and "more than the core simulates" in capsys.readouterr().err
    assert not (tmp_path / "o" / "numbers.json").exists()


def test_a_repeated_parameter_is_refused_in_every_command(tmp_path, capsys):
    with pytest.raises(InputError, match="m given twice"):
        traces.spec_options("m=5&m=6", "x.swf")
    assert cli.main(["simulate", f"{KTH}?m=5&m=6"]) == 2
    assert "m given twice" in capsys.readouterr().err
    assert cli.main(["study", "run", "traces", "--set", "weeks=3", "--set", "weeks=4",
                     "--outdir", str(tmp_path / "o")]) == 2
    assert "weeks given twice" in capsys.readouterr().err


# ---- Ctrl-C: one line, exit 130 ----

def test_ctrl_c_in_a_campaign_is_one_line_and_exit_130(monkeypatch, tmp_path, capsys):
    from schedlab.campaigns import runner

    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(runner, "run", interrupted)
    spec = paths.ROOT / "campaigns" / "lelong2017-kth.yaml"
    assert cli.main(["campaign", str(spec), "--cache", str(tmp_path / "cache")]) == 130
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "interrupted" in err and str(tmp_path / "cache") in err and "resume" in err


def test_ctrl_c_on_a_real_campaign_prints_one_line(tmp_path):
    """SIGINT to the process group (what a terminal's Ctrl-C does) while the
    cells run: one line on stderr (no traceback), exit 130, cells kept."""
    import signal
    import time
    spec = tmp_path / "c.yaml"
    spec.write_text(textwrap.dedent(f"""
        name: ctrl-c
        cell: simulate
        dims:
          half: [train, test]
          primary: [FCFS, LCFS, SPF, LPF, SQF, LQF, LEXP]
          backfill: [FCFS, LCFS, SPF, LPF, SQF, LQF, LEXP]
        params: {{trace: KTH-SP2, overrun: drop, workload: resample, weeks: 20, seed: 7, estimate: requested}}
        metrics: [avg_wait]
    """))
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "schedlab.tools.cli", "campaign", str(spec), "--workers", "1",
                             "--cache", str(tmp_path / "cache"), "-o", str(tmp_path / "c.nc"), "--batch", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and not any((tmp_path / "cache").rglob("*.npz")):
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    lines = [line for line in err.splitlines() if line.strip() and "cells/s" not in line and "%|" not in line]
    assert len(lines) == 1 and "interrupted" in lines[0] and "resume" in lines[0], err
    assert "Traceback" not in err


# ---- errors inside dask workers: the one line a local run gives ----

def test_a_cell_error_in_a_dask_worker_is_one_line(tmp_path):
    (tmp_path / "failcell.py").write_text(textwrap.dedent("""
        from schedlab.errors import InputError
        def cell(p):
            raise InputError("resample: no jobs to resample")
    """))
    (tmp_path / "c.yaml").write_text("name: failing\ncell: failcell:cell\ndims:\n  k: [1, 2, 3]\nparams: {}\n"
                                     "metrics: [avg_wait]\n")
    env = dict(os.environ, SCHEDLAB_CELL_MODULES="failcell",
               PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-m", "schedlab.tools.cli", "campaign", str(tmp_path / "c.yaml"), "--workers", "1",
                        "--cache", str(tmp_path / "cache"), "-o", str(tmp_path / "o.nc"), "--no-progress"],
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert r.returncode == 2
    assert r.stderr.strip() == "schedlab: error: resample: no jobs to resample", r.stderr
    assert "Compute Failed" not in r.stderr and "Traceback" not in r.stderr


# ---- advise: a log it cannot split says so before any campaign ----

def _log(path, submit, weeks_note=""):
    from schedlab.workloads.swf import write_swf
    n = len(submit)
    run = np.full(n, 600)
    fields = {"job_id": np.arange(1, n + 1), "submit": np.asarray(submit), "wait": np.zeros(n, np.int64),
              "run": run, "alloc_procs": np.full(n, 2), "req_procs": np.full(n, 2), "req_time": run,
              "status": np.ones(n, np.int64), "user": np.arange(n) % 3 + 1}
    return write_swf(path, fields, header_lines=["Version: 2.2", "MaxProcs: 8"])


def test_advise_on_jobs_all_submitted_at_once_says_what_it_needs(tmp_path, capsys):
    log = _log(tmp_path / "burst.swf", np.zeros(40, np.int64))
    rc = cli.main(["advise", str(log), "--no-notebook", "--no-progress", "--workers", "1",
                   "--cache", str(tmp_path / "cache"), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert rc == 2
    assert "submitted over 0 s" in err and "0 job(s) to learn on" in err and "weeks" in err, err
    assert "Compute Failed" not in err and "resample: no jobs" not in err
    assert not (tmp_path / "cache").exists()          # refused before any campaign


# ---- every OSError names its file; outputs get the umask's mode ----

_WRITES = textwrap.dedent("""
    import os, resource, signal, sys
    import numpy as np
    import xarray as xr
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    from schedlab.protocol import plots
    from schedlab.campaigns import store
    from schedlab.campaigns.cache import Cache
    from schedlab.tools.cli import os_error_line
    out = sys.argv[1]
    resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000))
    fig = plots.figure(4, 3)
    ax = fig.subplots()
    ax.plot(np.random.default_rng(0).random(5000))
    for name, write in (("figure", lambda: plots.savefig(fig, os.path.join(out, "fig"))),
                        ("cache", lambda: Cache(os.path.join(out, "cache"), "c").put(
                            "a" * 64, {"avg_wait": ((), np.random.default_rng(1).random(5000))})),
                        ("netcdf", lambda: store.write_dataset(xr.Dataset(
                            {"avg_wait": (("sample",), np.random.default_rng(2).random(5000))}),
                            os.path.join(out, "d.nc")))):
        try:
            write()
            print(name, "written")
        except OSError as exc:
            print(name, os_error_line(exc))
""")


def test_a_write_past_the_file_size_limit_names_the_file(tmp_path):
    r = subprocess.run([sys.executable, "-c", _WRITES, str(tmp_path)], capture_output=True, text=True, timeout=300)
    lines = dict(line.split(" ", 1) for line in r.stdout.splitlines())
    assert set(lines) == {"figure", "cache", "netcdf"}, r.stdout + r.stderr
    assert str(tmp_path / "fig.png") in lines["figure"] and "File too large" in lines["figure"], lines
    assert str(tmp_path / "cache") in lines["cache"] and "File too large" in lines["cache"], lines
    assert str(tmp_path / "d.nc") in lines["netcdf"], lines


@pytest.mark.parametrize("mask", [0o022, 0o027])
def test_every_output_gets_the_umask_s_mode(tmp_path, mask):
    import xarray as xr

    from schedlab.workloads import importers
    from schedlab.protocol import plots
    from schedlab.campaigns import store
    from schedlab.campaigns.cache import Cache
    from schedlab.workloads.importers import batsim
    from schedlab.publish.reproduce import write_json_atomic

    old = os.umask(mask)
    try:
        ds = xr.Dataset({"avg_wait": (("sample",), np.arange(3.0))})
        nc = store.write_dataset(ds, tmp_path / "d.nc")
        cache = Cache(tmp_path / "cache", "c")
        cache.put("a" * 64, {"avg_wait": ((), np.float64(1.0))})
        fig = plots.figure(2, 2)
        figs = plots.savefig(fig, tmp_path / "f")
        write_json_atomic(tmp_path / "j.json", {"a": 1})
        conv = importers.convert(paths.ROOT / "data" / "site-logs" / "slurm-22.05" / "sacct-allocations.psv",
                                 "sacct", max_procs=2)
        swf = conv.write(tmp_path / "s.swf")
        batsim.write_workload(swf, tmp_path / "w.json")
        plain = tmp_path / "plain"
        plain.write_text("x")
    finally:
        os.umask(old)
    want = plain.stat().st_mode & 0o777
    assert want == 0o666 & ~mask
    outputs = [nc, cache.path("a" * 64), *figs, tmp_path / "j.json", swf, tmp_path / "w.json"]
    assert {str(p): oct(p.stat().st_mode & 0o777) for p in map(__import__("pathlib").Path, outputs)} == \
        {str(p): oct(want) for p in map(__import__("pathlib").Path, outputs)}
