"""The registry of the studies: one entry each, the single place from which
the notebooks' names, the results folders, the paper's keys and sections and
the README's study table are derived (tests/test_study_protocol.py fails when
any of them drifts).

An entry is data only: importing this module imports no study.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    """One study: ``name`` (its package ``schedlab.studies.<name>``, its key in
    ``paper/numbers.json`` and ``paper/generated/``), ``number`` and ``slug``
    (its notebook ``notebooks/<NN>-<slug>.ipynb`` and results folder
    ``results/<profile>/<NN>-<slug>/``), ``title`` (README and paper section
    heading), ``summary`` (the README's one line), ``papers`` (keys and
    sections of the papers it reproduces), ``data`` (what it reads)."""

    name: str
    number: int
    slug: str
    title: str
    summary: str
    papers: str
    data: tuple[str, ...] = ("traces",)
    #: the study's package when it is not ``schedlab.studies.<name>`` (a site's own study)
    package: str = ""

    @property
    def stem(self) -> str:
        return f"{self.number:02d}-{self.slug}"

    @property
    def notebook(self) -> str:
        return f"notebooks/{self.stem}.ipynb"

    @property
    def module(self) -> str:
        return self.package or f"schedlab.studies.{self.name}"

    @property
    def registered(self) -> bool:
        return BY_NAME.get(self.name) is self

    @property
    def section(self) -> str:
        """The paper's section file."""
        return f"sections/{self.name}.typ"


STUDIES: tuple[Entry, ...] = (
    Entry("traces", 0, "traces", "Workload traces",
          "the workloads: sizes, loads, premature jobs, dividers", "thesis ch. 4, 6"),
    Entry("policies", 1, "policy-comparison", "Policy comparison",
          "the 7x7 EASY-P_R-P_B pairs, policies with a threshold, 12 policies over two years",
          "lelong2017 §3-5, thesis ch. 4, online-bandit Table 2"),
    Entry("thresholds", 2, "thresholds", "Thresholds and generalisation",
          "the waiting-time threshold, train/test learning of the pair", "lelong2017 §6-7, thesis §5.8"),
    Entry("mixed", 3, "mixed-policies", "Mixed policies",
          "weekly-optimal mixed linear policies, xNES and CMA-ES", "thesis ch. 5"),
    Entry("classification", 4, "classification", "Job-size classification",
          "online small/large classifier, small-first queues, kill-and-requeue", "thesis ch. 6"),
    Entry("energy", 5, "energy", "Energy profiles",
          "energy profiles of the Gricad dahu nodes (RAPL)", "thesis ch. 7", ("data/energy",)),
    Entry("prediction", 6, "runtime-prediction", "Runtime prediction for backfilling",
          "EASY++, learned predictions (E-Loss), corrections, EASY-SJBF", "gaussier2015"),
    Entry("selection", 7, "online-selection", "Online policy selection",
          "choosing the policy online: full, noisy and bandit feedback", "online-bandit §5-6"),
    Entry("multiqueue", 8, "multiqueue", "Self-adaptive multiple-queue backfilling",
          "self-adaptive multiple-queue backfilling", "lawson2005"),
    Entry("schedules", 9, "schedules", "One EASY pass, drawn",
          "one EASY pass on a real excerpt: queue, shadow time, extra processors, backfills; Gantt charts",
          "lelong2017 Algorithm 1"),
    Entry("yourpolicy", 10, "your-policy", "Your own policy",
          "your priority as a policy expression, measured with online-bandit's protocol beside the built-ins",
          "online-bandit §6.1 protocol"),
)

BY_NAME = {e.name: e for e in STUDIES}
BY_STEM = {e.stem: e for e in STUDIES}


def get(name_or_stem: str) -> Entry:
    """The entry of a study by name (``policies``), notebook stem
    (``01-policy-comparison``) or number (``1``)."""
    from ..errors import InputError

    key = str(name_or_stem).strip()
    if key in BY_NAME:
        return BY_NAME[key]
    if key in BY_STEM:
        return BY_STEM[key]
    for e in STUDIES:
        if key in (str(e.number), f"{e.number:02d}", e.slug):
            return e
    raise InputError(f"unknown study {name_or_stem!r}; the studies: {', '.join(e.name for e in STUDIES)}")


def readme_table() -> str:
    """The README's table of the studies."""
    lines = ["| notebook | study | papers | run at full size |", "|---|---|---|---|"]
    lines += [f"| `{e.stem}` | {e.summary} | {e.papers} | [executed](shipped/full/notebooks/{e.stem}.ipynb) |"
              for e in STUDIES]
    return "\n".join(lines) + "\n"


def name_of(module: str) -> str:
    """The registered name of the study a module belongs to
    (``schedlab.studies.mixed.params`` -> ``mixed``): a study's ``STUDY``
    comes from here, so its name is written once, in this registry."""
    parts = module.split(".")
    if parts[:2] != ["schedlab", "studies"] or len(parts) < 3 or parts[2] not in BY_NAME:
        raise ValueError(f"{module} is not a module of a registered study")
    return parts[2]
