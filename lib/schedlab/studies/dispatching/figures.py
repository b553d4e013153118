"""The figures of the dispatching study (drawing only)."""
from __future__ import annotations

from ...protocol import plots


def figure_waits(datasets: dict, policy: str):
    """The mean wait of each simulated week, one line per trace."""
    with plots.style():
        fig = plots.figure(6.5, 3.0)
        ax = fig.add_subplot(111)
        for name, ds in datasets.items():
            ax.plot(ds["week"].values, ds["avg_wait"].values / 3600, marker="o", ms=3,
                    color=plots.trace_color(name), label=name)
        ax.set_xlabel("week of the log")
        ax.set_ylabel("mean wait (h)")
        ax.set_title(f"{policy}, each week simulated alone")
        ax.legend(loc="upper right")
    return fig
