"""The parameters of the dispatching study, declared once (default = the
quick profile's value; params/full/12-dispatching.yaml holds the full
profile's values that differ)."""
from __future__ import annotations

from dataclasses import dataclass

from ...declared import integer, number, one_of
from ...protocol.study import Outputs, param
from ...protocol.study import Params as StudyParams
from ...workloads import traces as _traces
from ..registry import name_of

STUDY = name_of(__name__)


def _seeds(value, name: str) -> tuple:
    """A non-empty list of distinct integers >= 0."""
    from ...errors import InputError
    from ...validators import as_list

    out = tuple(integer(0)(v, f"{name}[{i}]") for i, v in enumerate(as_list(value, name)))
    if not out or len(set(out)) != len(out):
        raise InputError(f"{name}: expected distinct seeds, got {value!r}")
    return out


@dataclass(frozen=True)
class Params(StudyParams):
    """The dispatching study's parameters (quick: a short training, 100 held-out sequences)."""

    traces: tuple = param(("SDSC-SP2",), check=_traces.trace_tuple,
                          help="the logs (RLScheduler's is SDSC-SP2): an agent is trained on each log's first half "
                               "and evaluated on sequences of its second half")
    rules: str = param("schedgym", check=one_of("schedgym", "schedgym-nobackfill", "easy"),
                       help="the scheduling rules: SchedGym's with backfilling (RLScheduler's published setting), "
                            "without, or EASY's")
    sequence: int = param(256, unit="jobs", check=integer(2),
                          help="jobs per sequence, for training and evaluation (SchedGym's JOB_SEQUENCE_SIZE)")
    sequences: int = param(100, check=integer(1), help="held-out sequences drawn from each log's second half")
    epochs: int = param(60, check=integer(1), help="training epochs (one Adam step each)")
    envs: int = param(64, check=integer(2), help="environments of the vector: episodes per epoch")
    group: int = param(8, check=integer(2),
                       help="episodes of the same sequence per epoch (the leave-one-out baseline's group)")
    lr: float = param(0.01, check=number(1e-6, 1.0),
                      help="Adam's step size at the first epoch (annealed linearly to a tenth at the last)")
    train_seeds: tuple = param((0,), check=_seeds,
                               help="one agent trained per seed (its sequences, its sampling, its initial weights)")
    seed: int = param(0, check=integer(0), help="seed of the held-out and validation draws and of the bootstrap")


#: The parameters of a tiny run of the study (seconds, on a generated log).
TINY = {"sequence": 32, "sequences": 12, "epochs": 2, "envs": 4, "group": 2, "train_seeds": [0, 1]}

#: What the study writes, by name (schedlab.protocol.study.Outputs).
OUTPUTS = Outputs(tables=("heldout",), figures=("learning", "heldout"),
                  datasets=("agent-{trace}", "heuristics-{trace}"))
