"""The figures of the schedules study (drawing only: the passes and tables come from analysis)."""
from __future__ import annotations

from ...protocol import plots


def figure_pass(sf, m, d, policy: str):
    """The Gantt chart around the pass ``d``: from a little before it to the
    end of the head's reservation."""
    tab = plots.schedule_table(sf, m)
    gap = float(d.shadow) - float(d.t)
    lo = float(d.t) - 0.6 * gap
    hi = float(d.shadow) + max(1.2 * float(tab["requested"][d.head]), 0.8 * gap)
    with plots.style():
        fig = plots.figure(7.0, 3.8)
        ax = fig.add_subplot(111)
        plots.gantt(ax, tab, window=(lo, hi), reservation=d,
                    title=f"{policy}: the pass at t = {d.t:.0f} s (dotted), the head's shadow time (dashed)")
        ax.ticklabel_format(axis="x", useOffset=False, style="plain")
    return fig


def figure_timeline(sf_a, sf_b, m, labels):
    with plots.style():
        fig = plots.figure(7.0, 3.4)
        a1, a2 = fig.subplots(2, 1, sharex=True)
        plots.utilisation_and_queue(a1, a2, sf_a, m, label=labels[0], color=plots.SCHEDULE_COLORS["busy"])
        plots.utilisation_and_queue(a1, a2, sf_b, m, label=labels[1], color=plots.SCHEDULE_COLORS["backfilled"])
        a1.legend(loc="lower right")
    return fig


def figure_compare(sf_a, sf_b, m, labels):
    return plots.compare_gantt(sf_a, sf_b, labels, m, width=7.0, height=3.0)
