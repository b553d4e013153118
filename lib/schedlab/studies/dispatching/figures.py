"""The figures of the dispatching study (drawing only)."""
from __future__ import annotations

import numpy as np

from ...protocol import plots


def _smooth(x: np.ndarray, w: int) -> np.ndarray:
    """The running mean over the last ``w`` epochs (fewer at the start)."""
    c = np.cumsum(np.insert(np.asarray(x, float), 0, 0.0))
    i = np.arange(1, len(x) + 1)
    return (c[i] - c[np.maximum(i - w, 0)]) / np.minimum(i, w)


def figure_learning(curves: dict[str, dict], envs: int):
    """Per log, the learning curve of each agent: above, the greedy agent's
    mean bounded slowdown on fixed validation sequences of the training half
    after each check, beside each heuristic's on the same sequences; below,
    the agent's mean on each epoch's training sequences (sampled actions)
    over SJF's on the same sequences, as a running mean (below 1: better than
    SJF)."""
    with plots.style():
        fig = plots.figure(6.5, 5.6 * len(curves))
        for k, (trace, c) in enumerate(curves.items()):
            agents = c["agents"]
            shades = np.linspace(0.0, 0.55, len(agents))
            ax = fig.add_subplot(2 * len(curves), 1, 2 * k + 1)
            for i, (h, v) in enumerate(c["reference"].items()):
                ax.axhline(v, color=f"C{i}", lw=0.9, ls="--", label=h)
            for shade, (name, a) in zip(shades, agents.items()):
                ax.plot(a["check_epoch"], a["check_bsld"], color=str(shade), marker="o", ms=3, lw=1.6,
                        label=f"{name} (greedy)")
            ax.set_xlabel(f"epoch ({envs} training episodes each)")
            ax.set_ylabel("mean bsld")
            ax.set_title(f"{trace}: validation sequences (first half)")
            ax.legend(loc="upper right", ncol=3, fontsize="small")
            ax = fig.add_subplot(2 * len(curves), 1, 2 * k + 2)
            for shade, (name, a) in zip(shades, agents.items()):
                r = a["agent"] / a["sjf"]
                w = max(1, len(r) // 20)
                epochs = np.arange(1, len(r) + 1)
                if len(agents) == 1:
                    ax.plot(epochs, r, color="tab:blue", alpha=0.25, lw=0.8)
                ax.plot(epochs, _smooth(r, w), color="tab:blue" if len(agents) == 1 else str(shade), lw=1.6,
                        label=f"{name} / SJF" + (f" (running mean of {w})" if w > 1 else ""))
            ax.axhline(1.0, color="k", lw=0.8)
            ax.set_yscale("log")
            ax.set_xlabel(f"epoch ({envs} training episodes each)")
            ax.set_ylabel("mean bsld, ratio")
            ax.set_title(f"{trace}: each epoch's training sequences (sampled actions)")
            ax.legend(loc="upper right", fontsize="small")
    return fig


def figure_heldout(rows: list[dict], traces: list[str]):
    """Per log, each arm's mean bounded slowdown on the held-out sequences with its interval."""
    with plots.style():
        fig = plots.figure(6.5, 2.6 * len(traces))
        for k, t in enumerate(traces):
            ax = fig.add_subplot(len(traces), 1, k + 1)
            rs = sorted((r for r in rows if r["trace"] == t), key=lambda r: r["mean_bsld"])
            y = np.arange(len(rs))
            colours = ["tab:red" if r["kind"] == "learned" else "0.45" for r in rs]
            ax.errorbar([r["mean_bsld"] for r in rs], y,
                        xerr=[[r["mean_bsld"] - r["low"] for r in rs], [r["high"] - r["mean_bsld"] for r in rs]],
                        fmt="none", ecolor="0.3", capsize=2)
            ax.scatter([r["mean_bsld"] for r in rs], y, c=colours, zorder=3)
            ax.set_yticks(y, [r["arm"] for r in rs])
            ax.set_xlabel("mean bounded slowdown over the held-out sequences (95 % interval)")
            ax.set_title(f"{t}: held-out sequences (second half)")
    return fig
