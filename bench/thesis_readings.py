"""Thesis Tables 5.2-5.5 under every candidate reading of the protocol
(issue 30, item 2; DESIGN §10): the thresholds study's own campaigns (the
counted one and the readings one, cached under results/cache like a study
run), its scorecard rows, and :func:`schedlab.protocol.scorecard.identify` with the
declared fit (the SDSC-SP2 rows).  Prints

1. ours / published for every reading, trace, threshold column and policy;
2. per reading: reproduced-or-close rows on the fit rows and on the held-out
   rows, per held-out trace, and the median |log(ours / published)|;
3. the chosen reading, whether it is identified, and the held-out rows still
   not reproduced under it.

With ``--table51``: thesis Table 5.1 instead (the mixed study's readings
campaign on SDSC-SP2, its pure policies' training (weeks 29-64) and testing
(65-100) sums under every reading, identify() fitted on the training column).

Usage: python bench/thesis_readings.py [--traces SDSC-SP2,KTH-SP2,CTC-SP2,SDSC-BLUE] [--no-ratios] [--table51]
"""
from __future__ import annotations

import argparse
import math
import sys

from schedlab.campaigns.runner import Runner
from schedlab.protocol.study import validate
from schedlab.protocol.scorecard import GOOD
from schedlab.studies.thresholds import Params
from schedlab.studies.thresholds.analysis import thesis_reading_sums, thesis_tables
from schedlab.studies.thresholds.cells import thesis_campaign
from schedlab.studies.thresholds.readings import THESIS_TEXT_READING, reading_name, thesis_readings_campaign
from schedlab.studies.thresholds.params import PUBLISHED, THESIS_COLUMN_NAMES, THESIS_THRESHOLDS
from schedlab.studies.thresholds.scorecard import THESIS_FIT_TRACE, thesis_rows

TEXT = "text: " + reading_name(*THESIS_TEXT_READING)
PAPER = "the paper's text"     # identify()'s key of the counted reading


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--traces", default=None, help="comma-separated (default: the thesis' four)")
    ap.add_argument("--no-ratios", action="store_true", help="skip the full ratio table")
    ap.add_argument("--table51", action="store_true", help="thesis Table 5.1 (mixed study) instead")
    args = ap.parse_args()
    if args.table51:
        return table51()
    kw = {} if args.traces is None else {"thesis_traces": args.traces.split(",")}
    p = validate(Params, kw, source="bench/thesis_readings.py")
    runner = Runner()
    results = []
    for ref in p.thesis_traces:
        print(f"# {ref.name}", file=sys.stderr)
        r = thesis_tables(runner.run(thesis_campaign(p, ref), progress=True), ref.name)
        thesis_reading_sums(runner.run(thesis_readings_campaign(p, ref), progress=True), r, p.thesis_thresholds)
        results.append(r)
    rows = [row for row in thesis_rows(p, results) if row.readings]
    if not rows:
        print("no comparable thesis rows")
        return 1
    names = [rd.name for rd in rows[0].readings]
    pols = results[0].policies

    def value(row, name):
        return row.ours if name == TEXT else next(rd.ours for rd in row.readings if rd.name == name)

    def verdict(row, name):
        return row.verdict if name == TEXT else next(rd.verdict for rd in row.readings if rd.name == name)

    if not args.no_ratios:
        print("## ours / published, by reading, trace, threshold column and policy\n")
        print("| trace | reading | T | " + " | ".join(pols) + " |")
        print("|---|---|---|" + "---|" * len(pols))
        for r in results:
            for name in [TEXT] + names:
                for t in r.thresholds:
                    if t not in THESIS_THRESHOLDS:
                        continue
                    cells = []
                    for pol in pols:
                        row = next((x for x in rows if x.trace == r.trace and x.metric.endswith(
                            f"EASY-{pol}-{pol}, threshold {'none' if t is None else f'{t} s'}")), None)
                        cells.append("" if row is None else f"{value(row, name) / row.published:.2f}")
                    print(f"| {r.trace} | {name} | {THESIS_COLUMN_NAMES[t]} | " + " | ".join(cells) + " |")
        print()

    traces = [r.trace for r in results]
    held_traces = [t for t in traces if t != THESIS_FIT_TRACE]
    print(f"## reproduced or close, by reading (fit: the {THESIS_FIT_TRACE} rows, declared before measuring)\n")
    print("| reading | fit | held-out | " + " | ".join(held_traces) + " | fit median abs log | held-out median abs log |")
    print("|---|---|---|" + "---|" * len(held_traces) + "---|---|")

    def med(rs, name):
        e = sorted(abs(math.log(value(x, name) / x.published)) for x in rs)
        return e[len(e) // 2] if e else float("nan")

    fit = [x for x in rows if x.trace == THESIS_FIT_TRACE]
    held = [x for x in rows if x.trace != THESIS_FIT_TRACE]
    for name in [TEXT] + names:
        per = [sum(verdict(x, name) in GOOD for x in held if x.trace == t) for t in held_traces]
        tot = [sum(1 for x in held if x.trace == t) for t in held_traces]
        print(f"| {name} | {sum(verdict(x, name) in GOOD for x in fit)}/{len(fit)} | "
              f"{sum(verdict(x, name) in GOOD for x in held)}/{len(held)} | "
              + " | ".join(f"{a}/{b}" for a, b in zip(per, tot)) + f" | {med(fit, name):.3f} | {med(held, name):.3f} |")
    s = rows[0].readings[0].summary
    print(f"\nchosen on the fit rows: {s['chosen']}; identified: {s['identified']} "
          f"(held-out good {s['candidates'].get(s['chosen'], {}).get('held-out good') if s['chosen'] else '-'}"
          f"/{s['held-out rows']}; the paper's text {s['candidates'][PAPER]['held-out good']})")
    if s["chosen"]:
        left = [x for x in held if verdict(x, s["chosen"]) not in GOOD]
        print(f"\nheld-out rows not reproduced or close under {s['chosen']} ({len(left)}):")
        for x in left:
            print(f"  {x.trace:9s} {x.metric.split(', ', 1)[1]:40s} published {x.published:8.2f}  "
                  f"ours {value(x, s['chosen']):8.2f}  ratio {value(x, s['chosen']) / x.published:.2f}")
    return 0


def table51() -> int:
    import types

    import numpy as np

    from schedlab.protocol.scorecard import Reading, Row, identify
    from schedlab.studies.mixed.analysis import reading_sums
    from schedlab.studies.mixed.cells import POLICIES, THRESHOLD
    from schedlab.studies.mixed.readings import readings_campaign
    from schedlab.studies.mixed.params import THESIS_SPLIT
    from schedlab.studies.mixed.params import Params as MixedParams
    from schedlab.studies.mixed.scorecard import (TABLE_5_1_FIT, TABLE_5_1_FIT_LABEL, TABLE_5_1_GROUP, THESIS,
                                                  TEXT_READING)
    from schedlab.studies.mixed.tables import PUBLISHED as MPUB
    from schedlab.science.thesis_readings import BSLD_VARIABLE

    p = validate(MixedParams, {"traces": ["SDSC-SP2"]}, source="bench/thesis_readings.py")
    info = p.traces[0]
    (a, b), (c, d) = THESIS_SPLIT["SDSC-SP2"]
    units = np.arange(1, 101)
    lr = types.SimpleNamespace(trace="SDSC-SP2", units=units, train=(units >= a) & (units <= b),
                               test=(units >= c) & (units <= d))
    ds = Runner().run(readings_campaign(info, units.tolist(), THRESHOLD, p.backfill), progress=True)
    sums, texts = reading_sums(ds, lr)
    text = np.asarray(ds[BSLD_VARIABLE[10]].sel(overrun="kill", crossing="recorded", align="first").transpose("unit", "policy"))
    rows = []
    for name, pub in MPUB["table_5_1"].items():
        if name not in POLICIES:
            continue
        k_pol = POLICIES.index(name)
        for k, part, mask in ((0, "training", lr.train), (1, "testing", lr.test)):
            row = Row(THESIS, "Table 5.1", "SDSC-SP2", f"sum of weekly mean bsld, {name}, {part} weeks", pub[k],
                      float(np.nansum(text[mask, k_pol])), reading=TEXT_READING)
            row.readings = [Reading(rn, texts[rn], rs[name][k]) for rn, rs in sums.items()]
            rows.append(row)
    s = identify(rows, group=TABLE_5_1_GROUP, fit=lambda r: r.metric.endswith(f"{TABLE_5_1_FIT} weeks"),
                 fit_label=TABLE_5_1_FIT_LABEL)
    pols = [n for n in MPUB["table_5_1"] if n in POLICIES]
    print(f"## thesis Table 5.1 (SDSC-SP2, threshold {THRESHOLD} s): ours / published\n")
    print("| reading | column | " + " | ".join(pols) + " | good |")
    print("|---|---|" + "---|" * (len(pols) + 1))
    for rn in [TEXT] + list(sums):
        for part in ("training", "testing"):
            rs = [r for r in rows if r.metric.endswith(f"{part} weeks")]
            vals = [r.ours if rn == TEXT else next(x.ours for x in r.readings if x.name == rn) for r in rs]
            ver = [r.verdict if rn == TEXT else next(x.verdict for x in r.readings if x.name == rn) for r in rs]
            print(f"| {rn} | {part} | " + " | ".join(f"{v / r.published:.2f}" for v, r in zip(vals, rs))
                  + f" | {sum(v in GOOD for v in ver)}/{len(rs)} |")
    print(f"\nfit: {s['fit']}; chosen: {s['chosen']}; identified: {s['identified']}; "
          f"held-out good under it: {s['candidates'][s['chosen']]['held-out good'] if s['chosen'] else '-'}"
          f"/{s['held-out rows']} (the paper's text {s['candidates'][PAPER]['held-out good']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
