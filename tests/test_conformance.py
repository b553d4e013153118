"""The EASY conformance suite (conformance/): the engine, the pure-Python
reference simulator and ``schedlab check`` agree with every hand-derived
expected schedule; a schedule that differs is named job by job."""
import numpy as np
import pytest
from reference import reference_simulate

from schedlab.workloads import check, formats
from schedlab.tools import cli, conformance
from schedlab.errors import InputError

CASES = conformance.cases()


def test_the_suite_is_there_and_each_case_says_what_it_tests():
    assert len(CASES) >= 20
    names = [c.name for c in CASES]
    assert len(set(names)) == len(names)
    for c in CASES:
        assert c.path.stem == c.name and len(c.tests) > 20
        assert 2 <= len(c.jobs) <= 10 and c.m >= 1


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_engine_gives_every_expected_start(case):
    s = conformance.simulate_case(case)
    assert s.start.tolist() == case.expected_start.tolist()
    assert conformance.compare(s, case) == []


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_reference_simulator_gives_every_expected_start(case):
    j, p = case.jobs, case.policy
    r = reference_simulate(j.submit.tolist(), j.run.tolist(), j.req.tolist(), j.procs.tolist(), j.id.tolist(),
                           case.m, p.primary, p.backfill, threshold=p.threshold, estimate=case.estimate,
                           overrun=case.overrun)
    assert r["start"] == case.expected_start.tolist()


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_expected_schedule_passes_check_and_a_late_start_fails(case, tmp_path):
    s = conformance.simulate_case(case)
    path = formats.write(s, tmp_path / "out.csv", "batsim-csv")
    r = check.check(path, case.m, case.policy, estimate=case.estimate)
    assert r.ok, r.report()
    # another simulator's output that starts the last-started job one second late
    sf = formats.read(path)
    k = int(np.argmax(sf.start))
    sf.start[k] += 1
    sf.end[k] += 1
    assert not check.check(sf, case.m, case.policy, estimate=case.estimate).ok
    assert conformance.compare(sf, case) == [f"{case.name}: job {sf.ids[k]}: starts at {sf.start[k]:g}, "
                                             f"expected {int(sf.start[k]) - 1}"]


def test_check_case_from_the_command_line(tmp_path, capsys):
    case = next(c for c in CASES if c.name.startswith("06"))
    s = conformance.simulate_case(case)
    good = formats.write(s, tmp_path / "good.swf", "swf")
    assert cli.main(["check", str(good), "--case", str(case.path)]) == 0
    out = capsys.readouterr().out
    assert "valid" in out and "conforms" in out
    # a simulator that forgets the second job ending at the shadow time: job 5 waits until 10
    sf = formats.read(good)
    k = sf.ids.index("5")
    lines = good.read_text().splitlines()
    body = [ln for ln in lines if not ln.startswith(";")]
    fields = body[k].split()
    assert fields[0] == "5"
    fields[2] = str(10 - int(fields[1]))
    bad = tmp_path / "bad.swf"
    bad.write_text("\n".join([ln for ln in lines if ln.startswith(";")] +
                             [" ".join(fields) if i == k else ln for i, ln in enumerate(body)]) + "\n")
    assert cli.main(["check", str(bad), "--case", str(case.path)]) == 1
    out = capsys.readouterr().out
    assert "job 5: starts at 10, expected 2" in out and "not-started" in out


def test_a_case_without_its_header_keys_is_refused(tmp_path):
    src = CASES[0].path.read_text().splitlines()
    (tmp_path / "x.swf").write_text("\n".join(ln for ln in src if not ln.startswith("; Policy")) + "\n")
    with pytest.raises(InputError, match=r"x.swf: header key 'Policy' missing"):
        conformance.load(tmp_path / "x.swf")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_a_case_s_schedule_with_processors_shared_or_miscounted_fails(case, tmp_path):
    """Issue 32: the Batsim output of each case, with a job's processors given
    to another job running at the same time (where two jobs overlap), or
    with an execution_time that disagrees with its start and finish."""
    s = conformance.simulate_case(case)
    sf = formats.read(formats.write(s, tmp_path / "out.csv", "batsim-csv"))
    overlap = [(i, j) for i in range(sf.n) for j in range(sf.n) if i != j and sf.start[i] <= sf.start[j] < sf.end[i]
               and sf.end[j] > sf.start[j] and sf.allocated[i] and sf.allocated[j]]
    if overlap:
        i, j = overlap[0]
        sf.allocated[j] = [(sf.allocated[i][0][0], sf.allocated[i][0][0] + int(sf.procs[j]) - 1)]
        r = check.check(sf, case.m, case.policy, estimate=case.estimate)
        assert {sf.ids[i], sf.ids[j]} <= r.jobs("shared-processors"), r.report()
    sf = formats.read(tmp_path / "out.csv")
    sf.execution[0] += 7
    r = check.check(sf, case.m, case.policy, estimate=case.estimate)
    assert r.jobs("execution-time") == {sf.ids[0]}, r.report()
