"""The figures of the energy study, analogues of the thesis' Figs. 7.2 to
7.12, and the sensitivity and generated-signal figures.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ...protocol import plots
from . import signals as energy
from .analysis import Analysis, utc_minute
from .params import Params
from .published import PUBLISHED

#: One colour per class, the same in every figure.
CLASS_COLORS = {"constant": "#1f77b4", "periodic": "#2ca02c", "variable": "#ff7f0e",
                "non-stationary": "#d62728", "idle": "#7f7f7f"}


def _minutes_axis(ax, n):
    ax.set_xlim(0, max(n, 1) / 60.0)
    ax.set_xlabel("hours")


def figure_overview(ds, p: Params, profiles_unit: str):
    """Heat map of every processor's signal (hourly means), the data at a glance."""
    da = energy.signal(ds, p.channel)
    v = np.asarray(da.values, dtype=float)              # host, package, time
    n_h = v.shape[2] // 60
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)      # hours without data: NaN
        hourly = np.nanmean(v[:, :, : n_h * 60].reshape(v.shape[0], v.shape[1], n_h, 60), axis=3) \
            if n_h else np.zeros(v.shape[:2] + (0,))
    img = hourly.reshape(-1, n_h)
    labels = [f"{h}/{k}" for h in ds.host.values.tolist() for k in ds.package.values.tolist()]
    with plots.style():
        fig = plots.figure(7.0, max(2.5, 0.06 * len(labels) + 1.2))
        ax = fig.subplots()
        im = ax.imshow(img, aspect="auto", interpolation="nearest", cmap="viridis",
                       extent=(0, n_h / 24.0, len(labels), 0))
        ax.set_xlabel(f"days since {utc_minute(int(ds.minute.values[0]))} UTC")
        hosts = ds.host.values.tolist()
        step = max(1, len(hosts) // 45)
        ax.set_yticks(np.arange(0, len(hosts), step) * 2 + 1.0, hosts[::step], fontsize=5)
        for y in range(2, len(labels), 2):
            ax.axhline(y, color="white", lw=0.3)
        ax.grid(False)
        fig.colorbar(im, ax=ax, label=f"{p.channel} ({profiles_unit}), hourly mean", shrink=0.8)
        ax.set_title("Every processor (two rows per host: package 1, package 2); white = no data")
    return fig


def _pick_history(a: Analysis, days: float):
    """The processor and the stretch of ``days`` with the most distinct classes."""
    by_proc: dict[tuple[str, int], list[int]] = {}
    for i, pr in enumerate(a.profiles):
        by_proc.setdefault((pr.host, pr.package), []).append(i)
    best, best_key = None, (-1, -1)
    span = int(days * 1440)
    for proc, idx in sorted(by_proc.items()):
        for i0 in idx:
            t0 = a.profiles[i0].start
            sel = [i for i in idx if a.profiles[i].start >= t0 and a.profiles[i].end <= t0 + span]
            labels = {a.columns["label"][i] for i in sel if a.columns["label"][i]}
            key = (len(labels), len(sel))
            if key > best_key:
                best_key, best = key, (proc, t0, sel)
    return best


def figure_history(a: Analysis, ds, p: Params, unit: str, days: float = 3.0):
    """Analogue of thesis Fig. 7.2: one processor's signal over a few days,
    cut into profiles, each shaded by its class."""
    pick = _pick_history(a, days)
    with plots.style():
        fig = plots.figure(7.0, 2.6)
        ax = fig.subplots()
        if pick is None:
            ax.text(0.5, 0.5, "no profile", ha="center", transform=ax.transAxes)
            return fig
        (host, pkg), t0, sel = pick
        da = energy.signal(ds, p.channel).sel(host=host, package=pkg)
        m0 = int(ds.minute.values[0])
        span = int(days * 1440)
        x = np.asarray(da.values, dtype=float)[t0 - m0: t0 - m0 + span]
        t = np.arange(x.size) / 60.0
        ax.plot(t, x, color="k", lw=0.6)
        idle = a.idle()
        for i in sel:
            pr = a.profiles[i]
            lab = a.columns["label"][i] or "dropped"
            if idle[i]:
                lab = "idle"
            colour = CLASS_COLORS.get(lab, "0.9")
            ax.axvspan((pr.start - t0) / 60.0, (pr.end - t0) / 60.0, color=colour, alpha=0.25, lw=0)
        from matplotlib.patches import Patch
        handles = [Patch(color=CLASS_COLORS[c], alpha=0.4, label=c) for c in (*energy.CLASSES, "idle")]
        handles.append(Patch(color="0.9", label="too short / dropped"))
        ax.legend(handles=handles, loc="upper center", ncols=6, fontsize=7, bbox_to_anchor=(0.5, 1.22))
        ax.set_ylabel(f"{p.channel} ({unit})")
        ax.set_xlabel(f"hours from {utc_minute(t0)} UTC; {host}, package {pkg}")
        ax.set_xlim(0, span / 60.0)
    return fig


def figure_aggregation(a: Analysis, ds, p: Params, unit: str, period_min: int = 5, hours: int = 6):
    """Analogue of Fig. 7.4: ``hours`` of one busy, stationary profile per
    minute (as bundled: already the mean of 12 samples) and averaged over
    ``period_min`` minutes (:func:`energy.aggregate`).  The profile shown is
    the one with the largest minute-to-minute noise among the stationary,
    non-idle profiles at least ``hours`` long."""
    c = a.columns
    idle = a.idle()
    best, key = None, -1.0
    for i, pr in enumerate(a.profiles):
        if c["dropped"][i] or idle[i] or c["minutes"][i] < hours * 60 or c["s_stat"][i] > p.stationarity:
            continue
        x = pr.values[: hours * 60]
        if np.isfinite(x).mean() < 0.95:
            continue
        noise = float(np.nanstd(np.diff(x)))
        if noise > key:
            key, best = noise, i
    with plots.style():
        fig = plots.figure(7.0, 3.4)
        axes = fig.subplots(2, 1, sharex=True, sharey=True)
        if best is None:
            axes[0].text(0.5, 0.5, "no profile long enough", ha="center", transform=axes[0].transAxes)
            return fig
        pr = a.profiles[best]
        x = pr.values[: hours * 60]
        t = np.arange(x.size) * 60.0
        bt, bm = energy.aggregate(t, x, period=period_min * 60.0)
        axes[0].plot(t / 3600.0, x, color="k", lw=0.6)
        axes[1].step(np.r_[bt, bt[-1] + period_min * 60.0] / 3600.0, np.r_[bm, bm[-1]], where="post",
                     color="C0", lw=0.9)
        axes[0].set_ylabel(f"per minute\n({unit})")
        axes[1].set_ylabel(f"{period_min}-min mean\n({unit})")
        axes[1].set_xlabel(f"hours from {utc_minute(pr.start)} UTC; {pr.host}, package {pr.package}")
    return fig


def figure_outliers(a: Analysis, p: Params):
    """Analogue of Fig. 7.5: a profile with its trimmed ends and its z-score outliers."""
    c = a.columns
    idle = a.idle()
    cand = [i for i in range(len(a)) if c["dropped"][i] == "" and 120 <= c["minutes"][i] <= 1440
            and not idle[i]]
    if not cand:
        cand = [i for i in range(len(a)) if c["dropped"][i] == ""]
    with plots.style():
        fig = plots.figure(7.0, 2.6)
        ax = fig.subplots()
        if not cand:
            return fig
        i = max(cand, key=lambda j: (c["outliers"][j], -j))
        pr = a.profiles[i]
        x = energy.normalise(pr.values, pr.lo, pr.hi)
        t = np.arange(x.size) / 60.0
        tr = p.trim
        out = np.zeros(x.size, dtype=bool)
        inner = energy.trim(x, tr)
        out[tr:tr + inner.size] = energy.zscore_outliers(inner, p.zscore) if p.zscore > 0 else False
        keep = np.ones(x.size, dtype=bool)
        keep[:tr] = False
        keep[x.size - tr:] = False
        keep &= ~out
        ax.plot(t, x, color="0.6", lw=0.5, zorder=1)
        ax.scatter(t[keep], x[keep], s=3, color="k", zorder=2, label="kept")
        ends = ~keep & ~out
        ax.scatter(t[ends], x[ends], s=10, color="C0", zorder=3, label=f"trimmed ({tr} min at each end)")
        ax.scatter(t[out], x[out], s=14, color="C3", marker="x", zorder=3,
                   label=f"outliers (|z| > {p.zscore:g})")
        ax.legend(loc="best", fontsize=7)
        ax.set_ylabel("scaled power")
        _minutes_axis(ax, x.size)
        ax.set_title(f"{pr.host}, package {pr.package}, from {utc_minute(pr.start)} UTC")
    return fig


def _examples(a: Analysis, per_class: int):
    """Per class, up to ``per_class`` non-idle profiles spread over the
    statistic that put them there (low, middle, high): deterministic."""
    c = a.columns
    idle = a.idle()
    out = {}
    for cls in energy.CLASSES:
        idx = [i for i in range(len(a)) if c["label"][i] == cls and not idle[i] and c["minutes"][i] >= 60]
        key = {"non-stationary": "s_stat", "constant": "v_stat", "periodic": "p_stat",
               "variable": "v_stat"}[cls]
        idx.sort(key=lambda i: (c[key][i], i))
        if len(idx) > per_class:
            pos = np.linspace(0, len(idx) - 1, per_class + 2)[1:-1].round().astype(int)
            idx = [idx[j] for j in pos]
        out[cls] = idx
    return out


def figure_examples(a: Analysis, per_class: int = 3):
    """Analogue of Figs. 7.6, 7.8 and 7.9: profiles of each class (scaled,
    after preprocessing), low, middle and high in the statistic that decided
    their class; S, V, P: the statistics of the three tests."""
    ex = _examples(a, per_class)
    c = a.columns
    with plots.style():
        fig = plots.figure(7.0, 1.45 * len(energy.CLASSES) + 0.4)
        axes = fig.subplots(len(energy.CLASSES), per_class, squeeze=False)
        for r, cls in enumerate(energy.CLASSES):
            for k in range(per_class):
                ax = axes[r, k]
                if k >= len(ex[cls]):
                    ax.axis("off")
                    continue
                i = ex[cls][k]
                x = a.prepared[i].values
                ax.plot(np.arange(x.size) / 60.0, x, color=CLASS_COLORS[cls], lw=0.7)
                ax.set_ylim(-0.05, 1.05)
                ax.set_title(f"S {c['s_stat'][i]:.2f}  V {c['v_stat'][i]:.2f}  P {c['p_stat'][i]:.2f}",
                             fontsize=7)
                if k == 0:
                    ax.set_ylabel(f"{cls}\nscaled power")
                if r == len(energy.CLASSES) - 1:
                    ax.set_xlabel("hours")
    return fig


def figure_periodograms(a: Analysis, tree: energy.Tree):
    """Analogue of Figs. 7.10 and 7.11: a periodic and a stationary
    non-periodic ('variable') profile: the signal, its periodogram (share of
    the variance per frequency; dotted: ``min_cycles``; dashed: the
    threshold of criterion ``share``) and its autocorrelation (grey: the
    lags of the dominant frequency; solid: the period T chosen, dotted: T/2;
    the ``acf`` statistic is (r(T) - r(T/2)) / 2)."""
    ex = _examples(a, 1)
    picks = [(cls, ex[cls][0]) for cls in ("periodic", "variable") if ex[cls]]
    with plots.style():
        fig = plots.figure(7.0, 1.9 * max(len(picks), 1) + 0.3)
        axes = fig.subplots(max(len(picks), 1), 3, squeeze=False, width_ratios=[1.3, 1, 1])
        for r, (cls, i) in enumerate(picks):
            pr = a.prepared[i]
            x = pr.filled
            n = x.size
            k, pw = energy.periodogram(x)
            share = pw / pw.sum() if pw.sum() > 0 else pw
            acf = energy.autocorrelation(x)
            colour = CLASS_COLORS[cls]
            axes[r, 0].plot(np.arange(n) / 60.0, x, color=colour, lw=0.7)
            axes[r, 0].set_ylabel(f"{cls}\nscaled power")
            axes[r, 0].set_xlabel("hours")
            axes[r, 1].vlines(k, 0, share, color=colour, lw=0.8)
            axes[r, 1].axvline(tree.min_cycles, color="0.5", lw=0.6, ls=":")
            if tree.criterion == "share":
                axes[r, 1].axhline(tree.periodicity, color="k", lw=0.8, ls="--")
            axes[r, 1].set_xscale("log")
            axes[r, 1].set_ylabel("share of variance")
            axes[r, 1].set_xlabel("cycles per profile")
            axes[r, 1].set_title(f"share {a.columns['p_share'][i]:.2f}, density "
                                 f"{a.columns['p_density'][i]:.2f}", fontsize=7)
            lags = np.arange(min(n, (2 * n) // 3 + 1))
            axes[r, 2].plot(lags, acf[:lags.size], color=colour, lw=0.8)
            cyc = a.columns["cycles"][i]
            if np.isfinite(cyc):
                axes[r, 2].axvspan(n / (cyc + 0.5), n / max(cyc - 0.5, 1e-9), color="0.85", lw=0)
                lag = int(a.columns["lag"][i])
                axes[r, 2].axvline(lag, color="k", lw=0.7)
                axes[r, 2].axvline(round(lag / 2), color="k", lw=0.7, ls=":")
            axes[r, 2].set_ylim(-1.05, 1.05)
            axes[r, 2].set_xlim(0, max(lags.size - 1, 1))
            axes[r, 2].set_ylabel("autocorrelation")
            axes[r, 2].set_xlabel("lag (minutes)")
            axes[r, 2].set_title(f"acf statistic {a.columns['p_acf'][i]:.2f}, period "
                                 f"{a.columns['period'][i]:.0f} min", fontsize=7)
    return fig


def figure_distribution(s: dict, method: str):
    """Analogue of Fig. 7.12: class shares by number and by duration, the
    thesis' approximate shares beside."""
    classes = list(energy.CLASSES)
    with plots.style():
        fig = plots.figure(7.0, 2.8)
        ax = fig.subplots()
        x = np.arange(len(classes))
        w = 0.27
        thesis = [PUBLISHED["constant_pct"] if c == "constant" else PUBLISHED["periodic_pct"]
                  if c == "periodic" else math.nan for c in classes]
        for j, (lab, vals, hatch) in enumerate((
                ("profiles (count)", [s["count"][c] for c in classes], None),
                ("duration", [s["duration"][c] for c in classes], "//"),
                ("thesis, jobs (approx.)", thesis, ".."))):
            bars = ax.bar(x + (j - 1) * w, np.nan_to_num(vals, nan=0.0), w,
                          color=[CLASS_COLORS[c] for c in classes],
                          alpha=1.0 if j == 0 else 0.55, hatch=hatch, edgecolor="k", lw=0.3, label=lab)
            for b, v in zip(bars, vals):
                if np.isfinite(v):
                    ax.text(b.get_x() + b.get_width() / 2, v + 1, f"{v:.0f}", ha="center", fontsize=6)
        ax.set_xticks(x, classes)
        ax.set_ylabel("%")
        ax.set_ylim(0, 105)
        ax.set_title(f"{method}: predictable (constant + periodic) {s['count']['predictable']:.0f}% of "
                     f"the profiles, {s['duration']['predictable']:.0f}% of the duration; thesis about "
                     f"{PUBLISHED['predictable_pct']:.0f}%", fontsize=8)
        from matplotlib.patches import Patch
        ax.legend(handles=[Patch(facecolor="0.4", edgecolor="k", label="profiles (count)"),
                           Patch(facecolor="0.8", hatch="//", edgecolor="k", label="duration"),
                           Patch(facecolor="0.8", hatch="..", edgecolor="k", label="thesis, jobs (approx.)")],
                  loc="upper right")
    return fig


def figure_methods(results: dict[str, dict[str, dict]]):
    """Stacked class shares (count and duration) for each way of cutting
    profiles, with and without idle profiles, and the thesis."""
    labels, stacks = [], []
    labels.append("thesis (jobs)")
    stacks.append([PUBLISHED["constant_pct"], PUBLISHED["periodic_pct"], math.nan, math.nan])
    for method, by_idle in results.items():
        for idle_key, s in by_idle.items():
            for key in ("count", "duration"):
                labels.append(f"{method}, {idle_key} idle, {key}")
                stacks.append([s[key][c] for c in energy.CLASSES])
    with plots.style():
        fig = plots.figure(7.0, 0.28 * len(labels) + 1.0)
        ax = fig.subplots()
        y = np.arange(len(labels))[::-1]
        left = np.zeros(len(labels))
        for j, cls in enumerate(energy.CLASSES):
            vals = np.array([st[j] for st in stacks], dtype=float)
            ax.barh(y, np.nan_to_num(vals), left=left, color=CLASS_COLORS[cls], label=cls, height=0.7)
            left += np.nan_to_num(vals)
        ax.barh(y[0], 100 - left[0], left=left[0], color="white", edgecolor="0.5", hatch="..", height=0.7,
                label="thesis: not given")
        ax.axvline(PUBLISHED["predictable_pct"], color="k", ls="--", lw=0.8)
        ax.set_yticks(y, labels, fontsize=7)
        ax.set_xlim(0, 100)
        ax.set_xlabel("% (dashed: the thesis' 75% predictable)")
        fig.legend(loc="outside lower center", ncols=5, fontsize=7)
    return fig


def figure_sensitivity(rows: list[dict], p: Params):
    """Class shares (by count) and the predictable share (count, duration)
    as each parameter varies; the thesis' 75% dotted."""
    params = list(dict.fromkeys(r["parameter"] for r in rows))
    n = len(params)
    ncols = 3
    nrows = max(1, math.ceil(n / ncols))
    with plots.style():
        fig = plots.figure(7.0, 1.9 * nrows + 0.5)
        axes = fig.subplots(nrows, ncols, squeeze=False)
        for ax in axes.flat[n:]:
            ax.axis("off")
        for ax, name in zip(axes.flat, params):
            rs = [r for r in rows if r["parameter"] == name]
            categorical = any(isinstance(r["value"], str) for r in rs)
            x = np.arange(len(rs), dtype=float) if categorical else np.array([r["value"] for r in rs], dtype=float)
            for cls in energy.CLASSES:
                ax.plot(x, [r[f"{cls} % (count)"] for r in rs], color=CLASS_COLORS[cls], lw=0.9, marker=".")
            ax.plot(x, [r["predictable % (count)"] for r in rs], color="k", lw=1.6)
            ax.plot(x, [r["predictable % (duration)"] for r in rs], color="k", lw=1.0, ls="--")
            ax.axhline(PUBLISHED["predictable_pct"], color="k", ls=":", lw=0.7)
            if categorical:
                ax.set_xticks(x, [str(r["value"]) for r in rs])
                ax.set_xlim(-0.5, len(rs) - 0.5)
                default = [i for i, r in enumerate(rs) if r["default"]]
                if default:
                    ax.axvline(default[0], color="0.6", lw=0.6)
            else:
                ax.axvline(float(getattr(p, name)), color="0.6", lw=0.6)
            ax.set_ylim(0, 100)
            title = f"{name} ({p.criterion})" if name == "periodicity" else name
            ax.set_title(title, fontsize=8)
        from matplotlib.lines import Line2D
        handles = [Line2D([], [], color=CLASS_COLORS[c], marker=".", label=c) for c in energy.CLASSES]
        handles += [Line2D([], [], color="k", lw=1.6, label="predictable (count)"),
                    Line2D([], [], color="k", ls="--", label="predictable (duration)"),
                    Line2D([], [], color="k", ls=":", lw=0.7, label="thesis 75%")]
        fig.legend(handles=handles, loc="outside lower center", ncols=4, fontsize=7)
    return fig


def figure_synthetic(records: list[dict]):
    """% of generated signals classified right, per kind, against the noise."""
    kinds = list(dict.fromkeys(r["kind"] for r in records))
    with plots.style():
        fig = plots.figure(7.0, 2.4)
        axes = fig.subplots(1, len(kinds), squeeze=False, sharey=True)[0]
        for ax, kind in zip(axes, kinds):
            rs = [r for r in records if r["kind"] == kind]
            x = [r["noise"] for r in rs]
            for key, style in (("stationarity", "-"), ("variability", "--"), ("periodicity", "-."),
                               ("class", "-")):
                y = [100 * r[key] if r[key] is not None else np.nan for r in rs]
                if np.all(np.isnan(y)):
                    continue
                ax.plot(x, y, ls=style, lw=1.8 if key == "class" else 0.9,
                        color="k" if key == "class" else None, marker=".", label=key)
            ax.set_title(f"{kind}\n(-> {energy.KINDS[kind]})", fontsize=7)
            ax.set_xlabel("noise (sd)")
            ax.set_ylim(-3, 103)
        axes[0].set_ylabel("% right")
        axes[0].legend(fontsize=6, loc="lower left")
    return fig
