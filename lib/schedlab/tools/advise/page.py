"""The advisor's outputs: key numbers, tables and figures (through the
driver's :class:`~schedlab.protocol.study.Context`), the operator terms, the limits,
and ``report.html`` -- one self-contained page built with the trace
report's machinery (:mod:`schedlab.publish.trace_report`: its style, tables,
cleaning summary and study section)."""
from __future__ import annotations

import math

import html
import warnings
from datetime import datetime, timezone

import numpy as np

from ...engine import sim
from ...protocol.study import relpath
from ...studies import Table
from ...studies.thresholds import gain_ci
from .analysis import BASELINE, interval_problem
from .cells import parse

HOUR = 3600.0
UNITS = {"avgwait": "average wait", "bsld": "mean bounded slowdown", "ppbsld": "mean per-processor bounded slowdown"}
#: fewer source weeks than this in a half: the intervals are not to be trusted
ENOUGH_WEEKS = 10


def _h(x) -> str:
    return "n/a" if x is None or not np.isfinite(x) else f"{x / HOUR:.1f} h"


def _worst(adv, name: str) -> dict:
    """Mean over the held-out weeks of the worst waits of ``name``."""
    d = adv.detail.get(name)
    if d is None:
        return {}
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return {k: float(np.nanmean(d[k])) if np.isfinite(d[k]).any() else float("nan")
                for k in ("max_wait", "p99_wait", "top1_wait", "avg_wait")}


def _worst_ci(adv, name: str, key: str) -> tuple[float, float, float]:
    """Change (%) of a worst-wait measure against the baseline, with its interval (negative = worse)."""
    a, b = adv.detail.get(name), adv.detail.get(BASELINE)
    if a is None or b is None:
        return (float("nan"),) * 3
    return gain_ci(a[key], b[key], seed=adv.settings.seed)


def headline(adv) -> str:
    d = adv.decision
    if d.keep:
        return f"keep {BASELINE} ({d.reason})"
    r = d.row(d.recommended)
    return (f"deploy {d.recommended}: {UNITS[d.objective]} {r.test_gain:+.1f} % on the held-out weeks "
            f"(95 % interval {r.test_gain_ci[0]:+.1f} to {r.test_gain_ci[1]:+.1f} %)")


# ------------------------------------------------------------ operator terms --

def operator_terms(name: str) -> list[str]:
    """What a configuration means for a production scheduler, and where
    Slurm cannot express it exactly (Slurm's scheduling configuration guide
    and multifactor priority plugin documentation)."""
    if name == BASELINE:
        return ["EASY-FCFS-FCFS is plain EASY backfilling: jobs start in submission order, the first that does not "
                "fit gets a reservation, later jobs backfill in submission order when they do not delay it. "
                "In Slurm this is close to sched/backfill with priority by age only (PriorityWeightAge alone, or "
                "priority/basic); Slurm's backfill plans with every job's time limit, as EASY does with the "
                "requested time, but it protects the expected start of every higher-priority job it has tested, "
                "not only the first one (closer to conservative backfilling than to EASY)."]
    c = parse(name)
    order = {"FCFS": "submission time (oldest first)", "LCFS": "submission time (newest first)",
             "SPF": "requested time (shortest first)", "LPF": "requested time (longest first)",
             "SQF": "number of processors (fewest first)", "LQF": "number of processors (most first)",
             "SAF": "area, requested time x processors (smallest first)", "LAF": "area (largest first)",
             "SRF": "requested time / processors (smallest first)", "LRF": "requested time / processors (largest)",
             "SEXP": "expansion factor (smallest first)", "LEXP": "expansion factor (largest first)",
             "EXP": "expansion factor (largest first)", "WFP": "WFP score (wait / requested time)^3 x processors",
             "SJBF": "predicted runtime (shortest first)"}
    out = []
    if c.kind == "bandit":
        out.append("Online selection: every day, an epsilon-greedy rule picks one of 12 queue orders (explores at "
                   "random with probability 1/2, otherwise keeps the order with the lowest measured wait of the jobs "
                   "finished so far), jobs waiting more than 40 h lead both queues. It needs no offline tuning but a "
                   "controller outside the scheduler that measures the waits and changes the priority configuration "
                   "every day (in Slurm: rewriting the priority weights and `scontrol reconfigure`); no scheduler "
                   "does this by itself.")
        return out
    if c.kind == "mixed":
        wq, wp, wr = c.weights[:3]
        out.append(f"Mixed linear order for both queues: jobs sorted by {wq:g} x processors + {wp:g} x requested time "
                   f"+ {wr:g} x submission time, each divided by its mean over the training weeks (lowest first; "
                   "positive weights favour small, short and old jobs)"
                   + ("" if c.threshold is None else f"; jobs waiting more than {sim.format_duration(c.threshold)} "
                      "first, oldest first") + ". Slurm's multifactor priority is also a weighted sum, of age, job "
                   "size, fair share, partition and QOS, but it has no requested-time factor, its age term grows with "
                   "the wait (up to PriorityMaxAge) rather than ordering by submission, and it orders backfilling "
                   "the same way: the weights carry over only approximately.")
        return out
    out.append(f"Queue order (which job gets the reservation): {order.get(c.primary, c.primary)}; backfilling order "
               f"(which waiting jobs are tried first in the holes): {order.get(c.backfill, c.backfill)}.")
    if c.threshold is not None:
        out.append(f"Threshold: a job that has waited more than {sim.format_duration(c.threshold)} goes to the head "
                   "of the queue (oldest first), whatever the order says: an age-based override that bounds "
                   "starvation. Slurm's multifactor priority has an age factor, but it is added to the other "
                   "factors with weights: it raises old jobs gradually and cannot put every job older than T "
                   "ahead of all others exactly (a very large PriorityWeightAge with PriorityMaxAge = T comes "
                   "close only while the other factors are small).")
    if c.classes:
        out.append("Small-first: every week a classifier (a random forest on the requested time, the processors, "
                   "the time of submission and the user's recent jobs) is retrained on the weeks before, and "
                   "predicts whether each new job will be small (run no longer than the week's divider); "
                   "predicted-small jobs go first in both queues, and a wrong guess runs to completion. It needs "
                   "that classifier beside the scheduler. Slurm has no such class, but evaluates jobs by partition "
                   "PriorityTier before their priority: a job_submit plugin could route predicted-small jobs to a "
                   "partition or QOS of higher tier, which puts them first in every scheduling pass; the order "
                   "within each class is then Slurm's priority, not exactly the one simulated here.")
    if c.estimate != "requested":
        what = ("the mean of the user's last two completed runtimes (EASY++)" if c.estimate == "easy++"
                else "an online regression on 20 features of the job and its user (gaussier2015's E-Loss)")
        out.append(f"Runtime predictions: the reservation and the backfilling test use {what} instead of the "
                   f"requested time, extended ({c.correction}) when a job outlives it. The scheduler must collect "
                   "each user's completed runtimes and predict at submission; Slurm's backfill uses the user's "
                   "time limit and has no built-in predictor (a job_submit plugin can only rewrite the time limit, "
                   "which also changes when the job is killed).")
    if c.primary not in ("FCFS",) or c.backfill not in ("FCFS", c.primary):
        out.append("Slurm orders pending jobs by one priority (then submission time, then job id) for starting and "
                   "for backfilling alike: two different orders, or an order by requested time, area or expansion "
                   "factor, cannot be expressed exactly. Its job-size factor (PriorityFavorSmall, or "
                   "PriorityFlags=SMALL_RELATIVE_TO_TIME for size relative to the time limit) approximates SQF or "
                   "SRF-like orders as one weighted term among others.")
    elif c.primary == "FCFS" and c.backfill != "FCFS":
        out.append("Slurm backfills in the same priority order as it starts jobs: a backfilling order different "
                   "from the queue order cannot be expressed exactly.")
    return out


def limits(adv, weeks_in_log) -> list[str]:
    total, train, test = weeks_in_log
    w = adv.settings.weeks
    out = ["The simulation ignores the network and node topology (any job fits on any free processors), failures "
           "and drains, reservations and partitions, memory and other resources, and, most of all, how users would "
           "react to a new policy (they would change their requested times and submission habits).",
           "The jobs are the log's: their runtimes and requested times are taken as given; jobs that ran past their "
           "request are removed (lelong2017 §7.2).",
           "The online-bandit candidate learns within each held-out week only (day by day, from no knowledge at "
           "the start of the week), far less than online-bandit's selection over two years: it is a lower bound "
           "of what online selection would reach on this machine.",
           f"The log spans {total:.1f} weeks after cleaning: {train:.1f} to learn on and {test:.1f} held out. "
           f"Each half is resampled into {w} weeks by user (lelong2017 §4.1); resampled weeks recombine the "
           "same source weeks, so the intervals measure the spread over plausible weeks built from them, not over "
           "weeks the machine has not seen."]
    if min(train, test) < ENOUGH_WEEKS:
        out.append(f"That is fewer than {ENOUGH_WEEKS} source weeks in a half: too few for the intervals shown; "
                   "treat every number here as illustrative and collect a longer log (a year is a good size).")
    else:
        out.append(f"{min(train, test):.0f} or more source weeks per half is enough for the intervals shown to "
                   "mean what they say for weeks like these; a change of workload (new users, a new machine "
                   "partition) is not covered.")
    return out


# ---------------------------------------------------------------- numbers --

def numbers(adv, weeks_in_log, cleaning: dict, info) -> dict:
    d = adv.decision
    learned = d.row(d.learned)
    thr = adv.consistency.get(sim.format_duration(adv.settings.threshold))
    nums = {
        "log": info.name, "objective": d.objective, "recommended": d.recommended, "learned": d.learned,
        "keep": d.keep, "reason": d.reason, "weeks_per_half": d.weeks, "candidates": len(d.rows),
        "log_weeks": weeks_in_log[0], "train_source_weeks": weeks_in_log[1], "test_source_weeks": weeks_in_log[2],
        "learned_test_gain_pct": learned.test_gain, "learned_test_gain_low_pct": learned.test_gain_ci[0],
        "learned_test_gain_high_pct": learned.test_gain_ci[1], "learned_train_gain_pct": learned.train_gain,
        "learned_test_maxwait_rel": learned.test_maxwait_rel, "max_wait_risk": d.max_wait_risk,
        "spearman_train_test": d.spearman, "learned_test_rank": d.test_rank, "learned_on_test": d.learned_on_test,
        "learned_on_halves": list(d.learned_on_halves), "relearn_share": d.relearn_share,
        "runners_up": [r.name for r in d.rows if r.allowed and r.name != d.learned][:3],
        "worst_waits": {k: _worst(adv, k) for k in adv.detail},
        "thresholds_study": {label: {"pair": r.pair, "test_gain_pct": r.test_gain,
                                     "test_gain_ci_pct": list(r.test_gain_ci), "train_gain_pct": r.train_gain}
                             for label, r in adv.consistency.items()},
        "settings": adv.settings.record(),
        "provenance": {"inputs": {info.name: {"path": relpath(info.path), "sha256": info.sha256,
                                              "cleaning": cleaning}}},
    }
    if thr is not None:
        nums["thresholds_study_pair"] = thr.pair
    return nums


def _round2(x):
    """A value of a table the report shows (2 decimals; the numbers are in numbers.json)."""
    return round(float(x), 2) if np.isfinite(x) else None


def outputs(adv, ctx, train, test, names) -> None:
    """Tables and figures of the evidence, written through ``ctx``."""
    from ...protocol import plots

    d = adv.decision
    r2 = _round2
    rows = [[r.name, r.family, r.train_rank if r.allowed else "", r.test_rank, r2(r.train_gain), r2(r.test_gain),
             r2(r.test_gain_ci[0]), r2(r.test_gain_ci[1]), r2(r.train_maxwait_rel), r2(r.test_maxwait_rel),
             "yes" if r.allowed else "no"] for r in d.rows]
    ctx.table("candidates", Table(["candidate", "family", "train rank", "test rank", "train gain %", "test gain %",
                                   "test low %", "test high %", "train MaxWait x", "test MaxWait x",
                                   "within risk"], rows,
                                  title=f"Every candidate against {BASELINE} ({UNITS[d.objective]}; ratios of "
                                        "means over the same resampled weeks)"))
    wrows = []
    for name in adv.detail:
        w = _worst(adv, name)
        wrows.append([name, *(r2(w[k] / HOUR) for k in ("avg_wait", "max_wait", "p99_wait", "top1_wait"))])
    ctx.table("worst_waits", Table(["candidate", "AvgWait h", "MaxWait h", "99th percentile h", "worst 1 % mean h"],
                                   wrows, title="Waits on the held-out weeks (means over the weeks)"))
    crows = [[label, r.pair, r2(r.train_gain), r2(r.test_gain), r2(r.test_gain_ci[0]), r2(r.test_gain_ci[1])]
             for label, r in adv.consistency.items()]
    ctx.table("thresholds_study", Table(["threshold", "learned pair", "train gain %", "test gain %", "test low %",
                                         "test high %"], crows,
                                        title="The thresholds study's train/test protocol on this log (49 pairs "
                                              "per threshold, AvgWait)"))
    # -- figures: test vs train gain of every candidate; the learned one week by week
    fig = plots.figure(6.5, 4.2)
    ax = fig.add_subplot()
    fams = sorted({r.family for r in d.rows})
    for k, fam in enumerate(fams):
        rs = [r for r in d.rows if r.family == fam]
        ax.scatter([r.train_gain for r in rs], [r.test_gain for r in rs], s=14, label=fam, color=f"C{k}")
    lr = d.row(d.learned)
    ax.scatter([lr.train_gain], [lr.test_gain], s=90, facecolors="none", edgecolors="k", label=f"learned: {d.learned}")
    ax.axhline(0, color="0.5", lw=0.8)
    ax.axvline(0, color="0.5", lw=0.8)
    ax.set_xlabel(f"gain on the training weeks (%, {d.objective})")
    ax.set_ylabel("gain on the held-out weeks (%)")
    ax.legend(fontsize=7)
    ctx.figure("train_vs_test", fig)
    metric = d.metric
    i, b = names.index(d.learned), names.index(BASELINE)
    fig = plots.figure(6.5, 3.6)
    ax = fig.add_subplot()
    order = np.argsort(test[metric][b])
    x = np.arange(len(order))
    ax.plot(x, test[metric][b][order], "o-", ms=3, color="0.4", label=BASELINE)
    ax.plot(x, test[metric][i][order], "o-", ms=3, color="C3", label=d.learned)
    ax.set_xlabel(f"held-out resampled week (sorted by {BASELINE})")
    ax.set_ylabel(metric + (" (s)" if metric == "avg_wait" else ""))
    ax.legend(fontsize=7)
    ctx.figure("held_out_weeks", fig)
    ctx.json("findings.json", {"answer": headline(adv)})


# ------------------------------------------------------------------- text --

def _answer_lines(adv) -> list[tuple[str, str]]:
    """(label, text) of the answer block: the same on the page and in the terminal."""
    d = adv.decision
    lr = d.row(d.learned)
    base = _worst(adv, BASELINE)
    out = [("Recommendation", (f"deploy {d.recommended}" if not d.keep else f"keep {BASELINE}") +
            ("" if not d.keep else f" -- {d.reason}"))]
    show = d.learned if d.learned != BASELINE else None
    if show and not math.isfinite(lr.test_gain):
        out.append(("Gain on held-out weeks", f"not measurable: the baseline's {UNITS[d.objective]} on the held-out "
                    "weeks is 0 (nothing to reduce)"))
    elif show:
        w = _worst(adv, show)
        bad = interval_problem(*lr.test_gain_ci)
        interval = bad if bad else f"95 % interval {lr.test_gain_ci[0]:+.1f} to {lr.test_gain_ci[1]:+.1f} %"
        out.append(("Gain on held-out weeks", f"{UNITS[d.objective]} {lr.test_gain:+.1f} % "
                    f"({interval}; {lr.train_gain:+.1f} % on the training weeks) for {show}"))
        mx = _worst_ci(adv, show, "max_wait")
        top = _worst_ci(adv, show, "top1_wait")
        out.append(("MaxWait", f"{_h(w.get('max_wait'))} vs {_h(base.get('max_wait'))} "
                               f"({lr.test_maxwait_rel:.2f} x; change {-mx[0]:+.0f} %, interval {-mx[2]:+.0f} to "
                               f"{-mx[1]:+.0f} %)"))
        out.append(("Worst 1 % of waits", f"mean {_h(w.get('top1_wait'))} vs {_h(base.get('top1_wait'))} "
                                          f"(change {-top[0]:+.0f} %, interval {-top[2]:+.0f} to {-top[1]:+.0f} %); "
                                          f"99th percentile {_h(w.get('p99_wait'))} vs {_h(base.get('p99_wait'))}"))
    else:
        out.append(("Waits of EASY-FCFS-FCFS", f"AvgWait {_h(base.get('avg_wait'))}, MaxWait {_h(base.get('max_wait'))}, "
                                               f"worst 1 % {_h(base.get('top1_wait'))} (held-out weeks)"))
    agree = "the same" if set(d.learned_on_halves) == {d.learned} else ", ".join(d.learned_on_halves)
    out.append(("Stability", f"rank {d.test_rank} of {len(d.rows)} on the held-out weeks; train/test rank "
                             f"correlation {f'{d.spearman:.2f}' if math.isfinite(d.spearman) else 'undefined (no differences)'} (Spearman); each half of the training weeks picks "
                             f"{agree}; the held-out weeks alone would pick {d.learned_on_test}; "
                             f"{100 * d.relearn_share:.0f} % of {200} resamples of the training weeks pick it"))
    ups = [r for r in d.rows if r.allowed and r.name != d.learned][:3]
    out.append(("Runners-up", "; ".join(f"{r.name} ({r.test_gain:+.1f} %, {r.test_gain_ci[0]:+.1f} to "
                                        f"{r.test_gain_ci[1]:+.1f} %)" if math.isfinite(r.test_gain) else
                                        f"{r.name} (no measurable gain)" for r in ups)))
    return out


def first_screen(adv) -> str:
    """The answer as plain text (the terminal, the closing note)."""
    d = adv.decision
    lines = [f"schedlab advise {adv.numbers.get('log', adv.trace)}: {UNITS[d.objective]}, {d.weeks} resampled weeks "
             f"per half, {len(d.rows)} candidates",
             *(f"  {label}: {text}" for label, text in _answer_lines(adv))]
    few = too_few_weeks(adv.numbers.get("train_source_weeks"), adv.numbers.get("test_source_weeks"))
    if few:
        lines.append(f"  WARNING: {few}")
    return "\n".join(lines)


def too_few_weeks(train, test) -> str | None:
    """The terminal's (and the report's) warning when a half of the log has
    fewer than :data:`ENOUGH_WEEKS` source weeks; None otherwise."""
    if train is None or test is None or min(train, test) >= ENOUGH_WEEKS:
        return None
    down = lambda w: f"{math.floor(w * 10) / 10:.1f}"  # noqa: E731 -- 9.99 weeks is "9.9", never "10.0 ... fewer than 10"
    return (f"the log has {down(train)} source weeks to learn on and {down(test)} held out, fewer than {ENOUGH_WEEKS} "
            "in a half: too few for the intervals shown; treat every number as illustrative and collect a longer "
            "log (a year is a good size)")


def write(adv):
    """``report.html``: the answer, its stability, operator terms, limits, then the evidence."""
    from ...publish import trace_report as tr

    d, n = adv.decision, adv.numbers
    esc = html.escape
    weeks = (n["log_weeks"], n["train_source_weeks"], n["test_source_weeks"])
    box = "".join(f"<tr><th style='text-align:left'>{esc(a)}</th><td>{esc(b)}</td></tr>" for a, b in _answer_lines(adv))
    colour = "#e8f5e9" if not d.keep else "#fff4e0"
    thr = n.get("thresholds_study", {})
    cons = "; ".join(f"at T = {esc(k)}: {esc(v['pair'])}, held-out gain {v['test_gain_pct']:+.1f} % "
                     f"({v['test_gain_ci_pct'][0]:+.1f} to {v['test_gain_ci_pct'][1]:+.1f} %)" for k, v in thr.items())
    body = [f"<h1>Which configuration for {esc(n['log'])}?</h1>",
            f"<p>Objective: <b>{esc(UNITS[d.objective])}</b>. Learned on {d.weeks} weeks resampled from the earlier "
            f"half of the log, evaluated on {d.weeks} weeks resampled from the later half, every candidate on the "
            f"same weeks as {BASELINE}. Generated {datetime.now(timezone.utc).isoformat(timespec='seconds')} in "
            f"{adv.seconds:.0f} s.</p>",
            f"<table style='background:{colour};font-size:15px'>{box}</table>",
            "<h2>What it means for your scheduler</h2>",
            "".join(f"<p>{esc(t)}</p>" for t in operator_terms(d.recommended if not d.keep else d.learned)),
            "<h2>Limits</h2>", "<ul>" + "".join(f"<li>{esc(t)}</li>" for t in limits(adv, weeks)) + "</ul>",
            "<h2>Consistency with the thresholds study</h2>",
            f"<p>The thresholds study's train/test protocol (lelong2017 §7: 49 pairs, AvgWait, the same weeks) on "
            f"this log learns: {cons}. These are among the candidates above, with the same numbers when the "
            "objective is the average wait.</p>",
            tr._study_html(_entry_for_page(), adv.outdir, None)]
    page = adv.outdir / "report.html"
    from ...studies import write_text

    write_text(page, f"<!doctype html><html><head><meta charset='utf-8'><title>schedlab advise: {esc(n['log'])}"
                     f"</title><style>{tr._CSS}</style></head><body>" + "\n".join(body) + "</body></html>")
    adv.report = page
    return page


def _entry_for_page():
    from . import _entry

    e = _entry()

    class _Section:                     # the trace report's study section, for the advisor's folder
        stem, title, summary, papers = "advise", "The evidence", e.summary, e.papers
    return _Section
