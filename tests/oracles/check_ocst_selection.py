"""The seeds' selection code (ocst zenodo-up 9f6d02f with obandit 42766b8) beside the
selection study's strategies (issue 52 item 1): run by `make oracle-selection`, not
collected by `make test` (ocst must be built: tools/oracles/build_ocst_selection.sh).

The study ships the oracle's readings in lib/schedlab/studies/selection/oracle.json
(CI has no ocst); these checks say the file is what this build gives: the same
commits, and the KTH-SP2 readings recomputed bit for bit (ocst's random draws are
seeded by the resample index, ours by the study's streams).
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "oracles" / "ocst-selection"
ORACLE = ROOT / "lib" / "schedlab" / "studies" / "selection" / "oracle.json"

pytestmark = pytest.mark.skipif(not (BUILD / "ocs").exists(),
                                reason=f"ocst's selection code not built ({BUILD}): bash tools/oracles/build_ocst_selection.sh")


def test_the_stored_readings_come_from_this_build():
    stamp = json.loads((BUILD / "BUILD.json").read_text())
    o = json.loads(ORACLE.read_text())
    assert o["ocst_commit"] == stamp["commit"] and o["obandit_commit"] == stamp["obandit_commit"]


def test_kth_readings_recompute(tmp_path):
    o = json.loads(ORACLE.read_text())
    rec = o["traces"]["KTH-SP2"]
    k = rec["resamples"][0]
    out = tmp_path / "kth.json"
    subprocess.run([sys.executable, str(ROOT / "tools" / "oracles" / "ocst_selection.py"), "--traces", "KTH-SP2",
                    "--samples", "1", "--first", str(k), "--json", str(out)], check=True, capture_output=True)
    new = json.loads(out.read_text())["traces"]["KTH-SP2"]
    for who in ("ocst", "engine"):
        for key, v in new[who].items():
            assert v[0] == rec[who][key][0], (who, key)
