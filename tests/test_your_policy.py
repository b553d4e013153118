"""Your policy through the papers' protocol (issue 43, item 5): the policies
study's ``extra_policies`` put a user's expressions in the online-bandit
part beside the built-in policies, on the same resampled traces, with the
same tables; an expression equal to a built-in gets its very numbers."""
import numpy as np
import pytest

from schedlab import validators
from schedlab.errors import InputError
from schedlab.protocol import study
from schedlab.studies.policies.params import TINY


def test_extra_policies_are_names_or_expressions_checked_once():
    got = validators.policy_specs(["spf", "expr: wait/req ", "EXPR:procs"], "extra_policies")
    assert got == ("SPF", "expr:wait/req", "expr:procs")
    for bad, says in ((["expr:__import__('os')"], "unknown function"), (["SPF", "spf"], "listed twice"),
                      ([["SPF"]], "expected a policy name"), (["MIXED(1,0,0)"], "pure queue policy or an expression")):
        with pytest.raises(InputError, match=says):
            validators.policy_specs(bad, "extra_policies")


def test_an_expression_in_the_policy_comparison_gets_the_numbers_of_its_builtin(tmp_path):
    log = study.tiny_log(tmp_path / "tiny.swf", m=16)
    ov = dict(TINY, bandit_policies=["FCFS", "SPF"], extra_policies=["expr:req", "expr:wait / max(req, 1) + procs / m"],
              lelong_trace=None, table_traces=[], thesis_traces=[], bandit_traces=[str(log)], bandit_weeks=4)
    res = study.run_study("policies", overrides=ov, outdir=tmp_path / "out", workers=1, cache_dir=tmp_path / "cache",
                          log=None)
    (bd,) = res["bandit"]
    assert bd.policies == ("FCFS", "SPF", "expr:req", "expr:wait / max(req, 1) + procs / m")
    w = {p: bd.dataset.sum_wait.sel(policy=p).values for p in bd.policies}
    assert w["FCFS"].sum() > 0
    assert np.array_equal(w["SPF"], w["expr:req"])
    assert bd.change["SPF"] == bd.change["expr:req"]
    table = (tmp_path / "out" / "tables" / "bandit_table2_ci.csv").read_text()
    assert "expr:wait / max(req, 1) + procs / m" in table


def test_the_advisor_takes_an_expression_as_a_candidate():
    from schedlab.tools.advise.cells import parse
    c = parse("expr: wait / max(req, 1) - procs/m |T=20h")
    assert (c.label, c.primary, c.threshold, c.family) == (
        "expr:wait / max(req, 1) - procs/m|T=20h", "expr:wait / max(req, 1) - procs/m", 72000,
        "your policy (expression)")
    assert parse("expr:req").threshold is None
    with pytest.raises(InputError, match="unknown function"):
        parse("expr:__import__('os').getcwd()")
    with pytest.raises(InputError, match="only T=<duration>"):
        parse("expr:req|est=easy++")


def test_the_advisor_command_line_adds_candidates_to_the_defaults():
    from schedlab.tools import cli
    from schedlab.tools.advise import EXTRA_CANDIDATES
    args = cli.build_parser().parse_args(["advise", "KTH-SP2", "--candidates", "expr:req", "--candidates", "expr:-req"])
    assert args.candidates == ["expr:req", "expr:-req"] and len(EXTRA_CANDIDATES) == 3


def test_the_selection_study_chooses_among_the_arms_it_is_given(tmp_path):
    """The online-selection study's arms (``policies``): an expression equal
    to a built-in gets its very fixed-policy numbers, every strategy runs
    over the given list (its choices index it), Table 2 gets the arm as a
    column, and the scorecard's claims are shown but not compared."""
    import csv
    from schedlab.studies.selection.params import TINY as SEL_TINY

    log = study.tiny_log(tmp_path / "tiny.swf", m=16)
    arms = ["FCFS", "SPF", "expr:req", "expr:wait / max(req, 1) + procs / m"]
    ov = dict(SEL_TINY, traces=[str(log)], policies=arms, periods=["day"], resamples=2)
    res = study.run_study("selection", overrides=ov, outdir=tmp_path / "out", workers=1,
                          cache_dir=tmp_path / "cache", log=None)
    (r,) = res["results"]
    assert r.policies == arms
    assert np.array_equal(r.fixed.sum_wait.sel(policy="SPF").values, r.fixed.sum_wait.sel(policy="expr:req").values)
    chosen = r.strategies.policy_chosen.values
    assert chosen.min() >= 0 and chosen.max() < len(arms)
    assert set(np.unique(chosen[:, :, list(r.strategies.strategy.values).index("random")])) == set(range(len(arms)))
    with open(tmp_path / "out" / "tables" / "table2.csv", newline="") as fh:
        header = next(csv.reader(fh))
    assert header[-2:] == arms[-2:]
    assert {row.verdict for row in res["scorecard"]} == {"not compared"}
    for bad, says in ((["SPF", "LPF"], "must include FCFS"), (["FCFS"], "at least one other"),
                      (["FCFS", "expr:__import__('os')"], "unknown function")):
        with pytest.raises(InputError, match=says):
            study.run_study("selection", overrides=dict(ov, policies=bad), outdir=tmp_path / "bad", workers=1,
                            cache_dir=tmp_path / "cache", log=None)
