"""Processor placement and Batsim's interval-set notation.

The engine counts processors; it does not name them.  Batsim's ``jobs.csv``
and every Gantt chart need processor ids, so :func:`place` assigns them
after the fact, from the schedule alone:

* processors are numbered ``0 .. m-1`` (Batsim's resource ids start at 0);
* events are taken in time order; at one instant every run that ends there
  releases its processors first, then the runs of zero length that start
  there take the lowest free ids (and give them back at once: they occupy
  no time), then the other runs that start there, in the order given
  (job input order), each take the **lowest free ids**;
* so identical schedules get identical placements, whatever the machine,
  the platform or the hash seed.

A placement is a list of intervals ``[(a, b), ...]`` (closed, disjoint,
ascending) per run; :func:`to_string` writes it in Batsim's canonical
interval-set notation (``"0-3 7 9-10"``), :func:`parse` reads any valid
notation back (https://batsim.readthedocs.io, "Interval set").

Cost: O(n log n) for the event order plus, per run, the intervals it takes
and gives back (the free set is a sorted list of intervals, so a machine of
80 000 processors costs no more than one of 100 when it is not fragmented).
"""
from __future__ import annotations

import bisect

import numpy as np

from ...errors import InputError

__all__ = ["place", "to_string", "parse", "size"]


def _take(free: list[list[int]], starts: list[int], q: int) -> list[tuple[int, int]]:
    """Remove the ``q`` lowest ids from ``free`` (sorted [a, b] intervals;
    ``starts`` mirrors their first ids)."""
    got, need, k = [], q, 0
    while need > 0:
        a, b = free[k]
        n = b - a + 1
        if n <= need:
            got.append((a, b))
            need -= n
            k += 1
        else:
            got.append((a, a + need - 1))
            free[k][0] = a + need
            starts[k] = a + need
            need = 0
    del free[:k]
    del starts[:k]
    return got


def _give(free: list[list[int]], starts: list[int], intervals) -> None:
    """Put ``intervals`` back into ``free``, merging neighbours; ``starts``
    mirrors the first ids of ``free`` for bisection."""
    for a, b in intervals:
        k = bisect.bisect_left(starts, a)
        merge_left = k > 0 and free[k - 1][1] + 1 == a
        merge_right = k < len(free) and free[k][0] == b + 1
        if merge_left and merge_right:
            free[k - 1][1] = free[k][1]
            del free[k]
            del starts[k]
        elif merge_left:
            free[k - 1][1] = b
        elif merge_right:
            free[k][0] = a
            starts[k] = a
        else:
            free.insert(k, [a, b])
            starts.insert(k, a)


def place(start, end, procs, m: int, labels=None) -> list[list[tuple[int, int]]]:
    """Processor ids of every run: lowest free ids at each start (see the
    module docstring).  ``start``/``end``/``procs`` are per run; ``labels``
    (optional) names the runs in errors.  Raises :class:`InputError` when
    the schedule needs more than ``m`` processors at some instant (it is not
    a valid schedule: ``schedlab check`` says which jobs)."""
    start = np.asarray(start, dtype=np.int64)
    end = np.asarray(end, dtype=np.int64)
    procs = np.asarray(procs, dtype=np.int64)
    n = start.shape[0]
    if end.shape[0] != n or procs.shape[0] != n:
        raise InputError("place: start, end and procs must have the same length")
    if n and (np.any(start < 0) or np.any(end < start)):
        i = int(np.flatnonzero((start < 0) | (end < start))[0])
        raise InputError(f"place: {_label(labels, i)} has no run (start {start[i]}, end {end[i]})")
    if n and (np.any(procs < 1) or np.any(procs > m)):
        i = int(np.flatnonzero((procs < 1) | (procs > m))[0])
        raise InputError(f"place: {_label(labels, i)} needs {procs[i]} processors, outside 1..m={m}")
    # events: (time, kind, index); kind 0 = release, 1 = zero-length start, 2 = start
    zero = end == start
    idx = np.arange(n)
    times = np.concatenate([end[~zero], start[zero], start[~zero]])
    kinds = np.concatenate([np.zeros((~zero).sum(), np.int64), np.ones(zero.sum(), np.int64),
                            np.full((~zero).sum(), 2, np.int64)])
    who = np.concatenate([idx[~zero], idx[zero], idx[~zero]])
    order = np.lexsort((who, kinds, times))
    free: list[list[int]] = [[0, m - 1]]
    starts: list[int] = [0]
    n_free = m
    out: list[list[tuple[int, int]] | None] = [None] * n
    for t, kind, j in zip(times[order].tolist(), kinds[order].tolist(), who[order].tolist()):
        if kind == 0:
            _give(free, starts, out[j])
            n_free += int(procs[j])
            continue
        q = int(procs[j])
        if q > n_free:
            raise InputError(f"place: at time {t}, {_label(labels, j)} needs {q} processors and only "
                             f"{n_free} of m={m} are free: more than m processors would be busy")
        got = _take(free, starts, q)
        out[j] = got
        if kind == 1:
            _give(free, starts, got)
        else:
            n_free -= q
    return out  # type: ignore[return-value]


def _label(labels, i: int) -> str:
    return f"job {labels[i]}" if labels is not None else f"run {i}"


def to_string(intervals) -> str:
    """Batsim's canonical interval-set string: ``a-b`` per interval, ``a``
    alone when a == b, separated by one space, ascending, maximal."""
    return " ".join(str(a) if a == b else f"{a}-{b}" for a, b in _merge(intervals))


def parse(text: str, where: str = "allocated_resources") -> list[tuple[int, int]]:
    """Read an interval-set string (any valid notation: ``"1-3 5 7"``,
    ``"5 2-2 7 1-3"``) into canonical sorted, merged intervals."""
    out = []
    for token in str(text).split():
        a, sep, b = token.partition("-")
        try:
            lo = int(a)
            hi = int(b) if sep else lo
        except ValueError:
            raise InputError(f"{where}: {token!r} is not an interval (expected a or a-b, "
                             f"non-negative integers)") from None
        if lo < 0 or hi < lo:
            raise InputError(f"{where}: {token!r} is not an interval (expected a <= b, both >= 0)")
        out.append((lo, hi))
    return _merge(out)


def _merge(intervals) -> list[tuple[int, int]]:
    """Intervals sorted, with touching or overlapping ones merged."""
    merged: list[list[int]] = []
    for a, b in sorted(intervals):
        if merged and a <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return [(a, b) for a, b in merged]


def size(intervals) -> int:
    """Number of processors of an interval list."""
    return sum(b - a + 1 for a, b in intervals)
