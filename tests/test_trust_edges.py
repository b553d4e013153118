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

from schedlab import cli, paths, traces, workload
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
    from schedlab import campaign

    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(campaign, "run", interrupted)
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
    proc = subprocess.Popen([sys.executable, "-m", "schedlab.cli", "campaign", str(spec), "--workers", "1",
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
