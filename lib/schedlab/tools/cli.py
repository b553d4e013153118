"""The ``schedlab`` command line.

    schedlab simulate TRACE [--policy EASY-SPF-FCFS | --primary P --backfill P]
                            [--threshold 20h] [--estimate requested|actual|col:NAME]
                            [--column NAME=FILE] [--correction none|requested|incremental|doubling]
                            [--overrun kill|drop] [-m M|peak] [--request CHOICE]
                            [-o OUT [--format swf|batsim-csv]]
    schedlab traces list | info NAME|PATH | verify
    schedlab traces import FILE --format sacct|sacct-json|batsim -o out.swf [--max-procs M] [--salt S] [--duplicates keep-first]
    schedlab traces export NAME|PATH --format batsim -o workload.json
    schedlab traces fetch NAME... | --all [--dest DIR] [--url URL]
    schedlab check SCHEDULE [-m M] [--policy EASY-P_R-P_B [--threshold T]] [--estimate requested|actual]
    schedlab check SCHEDULE --case conformance/cases/NN-name.swf
    schedlab study list
    schedlab study run NAME [--profile quick|full] [--trace PATH ...] [--set key=value ...] [--column NAME=SOURCE ...]
                       [--scheduler ADDR]
    schedlab advise LOG [--format swf|sacct|sacct-json|batsim] [-m M] [--objective avgwait|bsld|ppbsld]
                        [--max-wait-risk X] [--out DIR] [--scheduler ADDR] [--workers N]
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time

import numpy as np

from .. import __version__
from ..errors import SchedlabError


def _load_jobs(args):
    import warnings

    from ..workloads import traces

    spec = args.trace
    if args.request:
        spec = traces.with_options(traces.resolve(spec), traces.spec_options(f"request={args.request}", spec))
    m = None
    if args.m is not None:
        m = workload_machine(args.m)
        if not isinstance(m, int):
            spec = traces.with_options(traces.resolve(spec), {"m": m})
            m = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # printed below, once, on stderr
        c = traces.cleaned(spec, m=m, overrun=args.overrun)
    for w in c.report.warnings:
        print(f"schedlab: warning: {w}", file=sys.stderr)
    return c.info, c.trace, c.jobs, c.report, c.m


def workload_machine(text):
    from ..workloads import workload
    return workload.machine_choice(text)


def machine_arg(text):
    """argparse type of every integer machine size (-m, --max-procs): the
    one parser, :func:`schedlab.workloads.workload.machine_size`."""
    from ..workloads import workload
    try:
        return workload.machine_size(text)
    except SchedlabError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def workers_arg(text):
    """argparse type of every --workers: an integer >= 1 (a local cluster of
    none would wait forever for a worker)."""
    from .. import validators
    try:
        return validators.integer(text, "--workers", 1)
    except SchedlabError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def machine_or_choice_arg(text):
    """argparse type of simulate's -m: a size or header/peak/auto."""
    from ..workloads import workload
    try:
        return workload.machine_choice(text)
    except SchedlabError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def cmd_simulate(args) -> int:
    from ..engine import sim

    t0 = time.perf_counter()
    info, trace, jobs, report, m = _load_jobs(args)
    t1 = time.perf_counter()
    if args.column:
        from ..workloads import columns
        named = dict(columns.parse_column_arg(c) for c in args.column)
        jobs = columns.with_columns(jobs, {k: columns.read_column(f, jobs.id, k) for k, f in named.items()})
    if args.policy:
        policy = sim.Policy.parse(args.policy, args.threshold)
    else:
        policy = sim.Policy(args.primary, args.backfill, args.threshold)
    if args.estimate not in ("requested", "actual") and not args.estimate.startswith("col:"):
        raise SchedlabError(f"--estimate {args.estimate!r}: expected requested, actual or col:NAME")
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", sim.UncorrectedEstimateWarning)
        sched = sim.simulate(jobs, m, policy, estimate=args.estimate, correction=args.correction)
    for w in caught:
        if issubclass(w.category, sim.UncorrectedEstimateWarning):
            print(f"schedlab: warning: {w.message}", file=sys.stderr)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    t2 = time.perf_counter()
    s = sched.summary()
    if args.verbose:
        print(report)
    print(f"trace       {info.name} ({len(jobs)} jobs after cleaning, {trace.n} in file), m = {m} "
          f"({report.m_source})")
    print("cleaning    " + ", ".join(f"{k} {v}" for k, v in report.choices.items())
          + f"; {100 * report.removed_share:.1f} % of the jobs and {100 * report.removed_work_share:.1f} % of "
            f"the processor time removed")
    print(f"policy      {policy}, estimate = {args.estimate}, correction = {args.correction}, "
          f"overrun = {args.overrun}")
    print(f"AvgWait     {s['avg_wait']:.1f} s")
    print(f"MaxWait     {s['max_wait']:.0f} s")
    print(f"mean bsld   {s['mean_bsld']:.3f}")
    print(f"mean ppbsld {s['mean_ppbsld']:.4f}")
    print(f"utilisation {s['utilisation']:.3f}")
    print(f"backfilled  {s['backfilled']} jobs; killed at p~ {s['killed']}; forced by threshold {s['forced']}")
    print(f"time        read+clean {t1 - t0:.3f} s, simulate {t2 - t1:.3f} s")
    if args.output:
        from ..workloads import formats
        with writing(args.output):
            formats.write(sched, args.output, args.format, trace=trace, workload_name=info.name)
        print(f"wrote       {args.output} ({args.format})")
    return 0


def _list_traces() -> int:
    from ..workloads import traces

    reg = traces.registry()
    print(f"{'name':<12} {'jobs':>8} {'m':>7}  file")
    for info in reg.values():
        if info.origin == "bundled":
            print(f"{info.name:<12} {info.jobs:>8} {info.m:>7}  {info.file}{'  *' if info.main else ''}")
            continue
        if not info.path.is_file():
            state = "fetched, but the file is missing (make data)"
        else:
            state = "fetched, sha256 " + ("trusted on first use" if info.tofu else "checked")
        jobs, m = (info.jobs or "-"), (info.m or "-")
        print(f"{info.name:<12} {jobs:>8} {m:>7}  {info.file}  [{state}]")
    fetched = {info.file for info in reg.values()}
    for fx in traces.fetchable().values():
        if fx.name not in reg and fx.file not in fetched:
            print(f"{fx.name:<12} {'-':>8} {'-':>7}  {fx.file}  [not fetched (make data)]")
    print("* main trace of the papers")
    return 0


def _fetch_traces(args) -> int:
    from ..workloads import traces

    if args.all and args.names:
        raise SchedlabError("traces fetch: give trace names or --all, not both")
    if not args.all and not args.names:
        raise SchedlabError("traces fetch: which traces? give their names or --all "
                            f"(fetchable: {', '.join(traces.fetchable()) or 'none'})")
    if args.url and (args.all or len(args.names) != 1):
        raise SchedlabError("traces fetch: --url goes with a single trace name")
    names = list(traces.fetchable()) if args.all else args.names
    for name in names:  # every name known before anything is downloaded
        traces._find_fetchable(name)
    failed = []
    for name in names:
        try:
            traces.fetch(name, dest=args.dest, url=args.url, log=lambda msg: print(msg, flush=True))
        except SchedlabError as exc:
            print(f"schedlab: error: {exc}", file=sys.stderr)
            failed.append(name)
        except KeyboardInterrupt:
            print(f"schedlab: interrupted while fetching {name}: nothing of it was kept", file=sys.stderr)
            return 130
    if failed:
        print(f"schedlab: not fetched: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def cmd_traces(args) -> int:
    from ..workloads import traces

    if args.action == "list":
        return _list_traces()
    if args.action == "fetch":
        return _fetch_traces(args)
    if args.action == "verify":
        bad = 0
        for name, ok, msg in traces.verify_all(bundled_only=args.bundled):
            print(f"{'ok ' if ok else 'BAD'} {name}: {msg}")
            bad += not ok
        return 1 if bad else 0
    if args.action == "import":
        return _import_trace(args)
    if args.action == "export":
        return _export_trace(args)
    if args.action == "info":
        info = traces.resolve(args.name)
        tr = traces.load(args.name)
        f = tr.fields
        span = (f["submit"].max() - f["submit"].min()) / 86400 if tr.n else 0
        print(f"name     {info.name}\nfile     {info.path}\njobs     {tr.n}\nm        {info.m}"
              f"\nusers    {len(np.unique(f['user']))}\nperiod   {span:.1f} days")
        for k, v in tr.header.items():
            print(f"header   {k}: {v}")
        return 0
    raise SchedlabError(f"unknown traces action {args.action!r}")


def _import_trace(args) -> int:
    from ..workloads import importers

    if os.path.exists(args.output) and not args.force:
        raise SchedlabError(f"{args.output}: exists; give --force to replace it")
    result = importers.write(args.file, args.output, args.format, max_procs=args.max_procs, salt=args.salt,
                             tz=args.tz, installation=args.installation, duplicates=args.duplicates)
    print(result.report)
    print(f"wrote {args.output} ({result.n} jobs)")
    return 0


def _export_trace(args) -> int:
    from ..workloads import traces
    from ..workloads.importers import batsim

    info = traces.resolve(args.name)
    trace = traces.load(info)
    with writing(args.output):
        report = batsim.write_workload(trace, args.output, m=args.m or info.m)
    print(report)
    print(f"wrote {args.output}")
    return 0


def cmd_campaign(args) -> int:
    from ..campaigns import store
    from ..campaigns.runner import run
    from ..campaigns.spec import Campaign

    spec = Campaign.from_yaml(args.spec)
    ds = run(spec, scheduler=args.scheduler, workers=args.workers, cache_dir=args.cache,
             progress=not args.no_progress, batch=args.batch)
    out = args.output or (paths_results() / "campaigns" / f"{spec.name}.nc")
    with writing(out):
        store.write_dataset(ds, out)
    print(f"wrote {out}")
    return 0


def _study_list() -> int:
    import importlib

    from ..studies.registry import PROBLEMS, STUDIES

    for problem in PROBLEMS.values():       # a package left out never hides the others
        print(f"schedlab: warning: {problem}", file=sys.stderr)
    print(f"{'name':<15} {'notebook':<38} {'protocol':<9} papers")
    for e in STUDIES:
        mod = importlib.import_module(e.module)
        ok = "yes" if hasattr(mod, "Params") and hasattr(mod, "compute") else "not yet"
        print(f"{e.name:<15} {e.notebook:<38} {ok:<9} {e.papers}")
    return 0


def _settings(items) -> dict:
    """``--set key=value`` pairs, each value read as YAML (10 -> int,
    [a, b] -> list, 20h -> text), then checked by the study's validators."""
    import yaml

    from ..validators import read_yaml, shown

    out = {}
    for item in items or []:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise SchedlabError(f"--set {shown(item)}: expected key=value")
        key = key.strip()
        where = f"--set {key if key.isidentifier() and len(key) <= 60 else shown(key)}"
        if key in out:
            raise SchedlabError(f"{where} given twice; give each parameter once")
        try:
            out[key] = read_yaml(text, where) if text.strip() else None
        except yaml.YAMLError:
            out[key] = text
    return out


def cmd_study(args) -> int:
    if args.action == "list":
        return _study_list()
    if args.action == "new":
        from ..protocol.scaffold import new_study

        new_study(args.name, args.title, args.paper, log=print)
        return 0
    from ..protocol.study import run_study

    overrides = _settings(args.set)
    if args.column:             # the study's columns parameter, one NAME=SOURCE each
        if "columns" in overrides:
            raise SchedlabError("study run: the columns are given twice (--column and --set columns=); give them once")
        overrides["columns"] = list(args.column)
    result = run_study(args.name, profile=args.profile, overrides=overrides, outdir=args.outdir,
                       traces=args.trace,
                       workers=args.workers, scheduler=args.scheduler, cache_dir=args.cache,
                       progress=not args.no_progress)
    from ..protocol.study import relpath
    print(f"outputs in {relpath(result['outdir'])} ({len(result['files'])} files, {result['seconds']:.1f} s)")
    return 0


def cmd_check(args) -> int:
    from ..workloads import check

    policy, m, threshold, estimate, case = args.policy, args.m, args.threshold, args.estimate, None
    if args.case:
        from . import conformance
        if policy or threshold is not None or m is not None:
            raise SchedlabError("check: --case gives m, the policy, the threshold and the estimate; "
                                "do not give them too")
        case = conformance.load(args.case)
        policy, m, estimate = case.policy, case.m, case.estimate
    if policy is None and (threshold is not None or args.threshold_backfill):
        raise SchedlabError("check: --threshold goes with --policy")
    result = check.check(args.schedule, m, policy, threshold, estimate, args.threshold_backfill or None)
    print(result.report(None if args.all else args.limit))
    ok = result.ok
    if case is not None:
        diff = conformance.compare(args.schedule, case)
        if diff:
            print(f"does NOT conform to case {case.name} ({case.tests}): {len(diff)} job(s)")
            print("\n".join(f"  {d}" for d in diff))
        else:
            print(f"conforms to case {case.name}: every start as expected ({case.tests})")
        ok = ok and not diff
    return 0 if ok else 1


def paths_results():
    from .. import paths
    return paths.RESULTS


class _Parser(argparse.ArgumentParser):
    """argparse with the house's one-line errors: ``schedlab simulate: error:
    argument -m: ...`` and where to read more, not the usage block first (the
    usage is what ``--help`` is for).  Subcommands' parsers are of this class
    too (argparse makes them of the parent's)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="schedlab", description="Tuning EASY-backfilling: simulator and studies")
    p.add_argument("--version", action="version", version=f"schedlab {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("simulate", help="simulate EASY-P_R-P_B on a trace and print a summary")
    s.add_argument("trace", help="registry name (e.g. KTH-SP2) or path to an SWF file (.gz/.bz2 ok)")
    s.add_argument("--policy", help="EASY-<P_R>-<P_B>, e.g. EASY-SPF-FCFS, or 'expr:<expression>' for both queues "
                   "(overrides --primary/--backfill)")
    s.add_argument("--primary", default="FCFS", help="primary queue policy (default FCFS): a name or "
                   "'expr:<expression>', e.g. 'expr:wait/req + procs/m' (schedlab.expr)")
    s.add_argument("--backfill", default="FCFS", help="backfilling queue policy (default FCFS): a name or "
                   "'expr:<expression>'")
    s.add_argument("--column", action="append", default=[], metavar="NAME=FILE",
                   help="a per-job column from a CSV of 'job id,value' lines, for col.NAME in expressions "
                   "or --estimate col:NAME (repeatable)")
    s.add_argument("--threshold", default=None, help="waiting-time threshold, e.g. 20h (default none)")
    s.add_argument("--estimate", default="requested", help="requested (default), actual, or col:NAME (a --column)")
    s.add_argument("--correction", default="none", choices=["none", "requested", "incremental", "doubling"],
                   help="what the scheduler expects of a running job that outlives its estimate: none (default: "
                   "it ends now; warned when some estimates are below their runtimes), requested (its requested "
                   "time), incremental or doubling (gaussier2015 §5.2)")
    s.add_argument("--overrun", default="kill", choices=["kill", "drop"],
                   help="jobs with p > p~: killed at p~ (default) or dropped when cleaning")
    s.add_argument("-m", type=machine_or_choice_arg, default=None, help="machine size: a number, or header, peak (the log's peak "
                   "concurrent allocation) or auto (default: registry / header MaxProcs, else peak)")
    s.add_argument("--request", default=None, help="jobs without a requested time: auto (default), drop, runtime, "
                   "runtime*K, user-max, partition-max or limit:SECONDS")
    s.add_argument("-o", "--output", help="write the simulated schedule (SWF with waits, or Batsim's jobs.csv)")
    s.add_argument("--format", default="swf", choices=["swf", "batsim-csv"],
                   help="format of -o: swf (default) or batsim-csv (Batsim's jobs.csv, read by evalys; "
                        "processors placed at the lowest free ids)")
    s.add_argument("-v", "--verbose", action="store_true", help="print the cleaning report")
    s.set_defaults(func=cmd_simulate)
    c = sub.add_parser("campaign", help="run (or resume) a campaign grid on dask; write its dataset")
    c.add_argument("spec", help="campaign YAML file")
    c.add_argument("--scheduler", default=None,
                   help="address of an existing dask scheduler (default: $SCHEDLAB_SCHEDULER, else a local cluster)")
    c.add_argument("--workers", type=workers_arg, default=None, help="local cluster workers (default: all cores)")
    c.add_argument("--cache", default=None, help="cache directory (default results/cache)")
    c.add_argument("--batch", type=int, default=None, help="cells per task (default: automatic)")
    c.add_argument("-o", "--output", default=None, help="netCDF output (default results/campaigns/NAME.nc)")
    c.add_argument("--no-progress", action="store_true")
    c.set_defaults(func=cmd_campaign)
    t = sub.add_parser("traces", help="traces: list, info, verify checksums, fetch the ones not bundled")
    t.set_defaults(func=cmd_traces)
    ta = t.add_subparsers(dest="action", required=True)
    ta.add_parser("list", help="the registered traces, and those `traces fetch` can download")
    ti = ta.add_parser("info", help="what a trace holds (registry name or path to an SWF file)")
    ti.add_argument("name", help="registry name or path to an SWF file")
    tv = ta.add_parser("verify", help="check the sha256 of every registered trace, bundled or fetched")
    tv.add_argument("--bundled", action="store_true",
                    help="only the traces bundled in data/traces/ (what the studies use)")
    tf = ta.add_parser("fetch", help="download logs of data/fetch.toml (needs the network; make data)",
                       description="Download Parallel Workloads Archive logs that are not bundled "
                                   "(data/fetch.toml), check them and register them in "
                                   "data/traces.local.toml.  Exit status 1 if any could not be fetched.")
    tf.add_argument("names", nargs="*", metavar="NAME", help="trace names of data/fetch.toml")
    tf.add_argument("--all", action="store_true", help="every log of data/fetch.toml")
    tf.add_argument("--dest", default=None, help="directory to save them in (default data/traces)")
    tf.add_argument("--url", default=None, help="download from this URL instead (one name only; a mirror)")
    tim = ta.add_parser("import", help="convert site accounting (Slurm sacct, Batsim) to SWF",
                        description="Convert sacct --parsable2 output (with or without steps), sacct --json or "
                                    "a Batsim workload JSON to SWF, with a report of the jobs read, written and "
                                    "skipped.  Nothing is written unless the whole file converts.")
    tim.add_argument("file", help="the accounting file")
    tim.add_argument("--format", required=True, choices=["sacct", "sacct-json", "batsim"])
    tim.add_argument("-o", "--output", required=True, help="the SWF file to write (.gz/.bz2/.xz compress it)")
    tim.add_argument("--max-procs", type=machine_arg, default=None,
                     help="the machine's processors (MaxProcs in the header; sacct does not record it)")
    tim.add_argument("--salt", default=None, help="number users/groups/partitions by a salted hash "
                     "(shareable: the numbers cannot be traced back without the salt)")
    tim.add_argument("--tz", default="UTC", help="time zone of sacct's times (IANA name, default UTC)")
    tim.add_argument("--installation", default=None, help="the machine's name for the header")
    tim.add_argument("--duplicates", default="refuse", choices=["refuse", "keep-first"],
                     help="repeated records (the same job id and step): refuse the file (default) or keep the "
                          "first of each and name the others in the report")
    tim.add_argument("--force", action="store_true", help="replace the output if it exists")
    tex = ta.add_parser("export", help="write a trace as a Batsim workload JSON (walltime = requested time, "
                        "delay = runtime)")
    tex.add_argument("name", help="registry name or path to an SWF file")
    tex.add_argument("--format", required=True, choices=["batsim"])
    tex.add_argument("-o", "--output", required=True, help="the JSON file to write")
    tex.add_argument("-m", type=machine_arg, default=None, help="nb_res (default: registry / header MaxProcs)")
    ck = sub.add_parser("check", help="check a schedule (SWF with waits or Batsim jobs.csv) against EASY-P_R-P_B",
                        description="Report every violation of a schedule with its job ids: a start before "
                                    "submission, more than m processors busy, a job running past its requested "
                                    "time, and with --policy the EASY rules at every pass (a backfilled job that "
                                    "delays the head's reservation, a job that fits at a pass and does not start, "
                                    "a start EASY does not make).  Exit status 0 only for a valid schedule, 1 "
                                    "for violations, 2 for unreadable input.")
    ck.add_argument("schedule", help="SWF file with waits (e.g. simulate -o) or Batsim's jobs.csv")
    ck.add_argument("-m", type=machine_arg, default=None, help="machine size (default: the SWF header's MaxProcs)")
    ck.add_argument("--policy", default=None, help="the policy the schedule claims, EASY-<P_R>-<P_B> "
                    "(default: only the checks that need no policy)")
    ck.add_argument("--threshold", default=None, help="its waiting-time threshold, e.g. 20h (default none)")
    ck.add_argument("--threshold-backfill", action="store_true",
                    help="the threshold also leads the backfilling order")
    ck.add_argument("--estimate", default="requested", choices=["requested", "actual"],
                    help="what the scheduler expects a job to take: its requested time (default) or its run")
    ck.add_argument("--case", default=None, help="a conformance case (conformance/cases/*.swf): its m, policy, "
                    "threshold and estimate, and compare every start with the expected one")
    ck.add_argument("--limit", type=int, default=50, help="violations printed (default 50)")
    ck.add_argument("--all", action="store_true", help="print every violation")
    ck.set_defaults(func=cmd_check)
    st = sub.add_parser("study", help="the studies of the compendium: list them, run one, start a new one",
                        description="Run a study with the same driver as its notebook and make reproduce.")
    st.set_defaults(func=cmd_study)
    sa = st.add_subparsers(dest="action", required=True)
    sa.add_parser("list", help="the registered studies")
    sn = sa.add_parser("new", help="start a new study: its package, notebook, parameter files and paper section",
                       description="Write a new study that runs and passes check_study as it is (numbered after "
                                   "the last study), then print what to edit next.")
    sn.add_argument("name", help="the study's name: lower-case letters, digits and _ (its Python package)")
    sn.add_argument("--title", default=None, help="its title (notebook and paper section; default: the name)")
    sn.add_argument("--paper", default=None, help="the papers it reproduces, e.g. 'lelong2017 §5' (default: none yet)")
    sr = sa.add_parser("run", help="run one study (outputs in results/<profile>/<NN-study>/)")
    sr.add_argument("name", help="study name (schedlab study list), notebook stem or number")
    sr.add_argument("--profile", default="quick", choices=["quick", "full"])
    sr.add_argument("--trace", action="append", metavar="PATH",
                    help="run on this trace instead (repeatable; a registry name, an SWF path, or "
                         "PATH?request=...&m=... with cleaning choices): every trace parameter of the study "
                         "takes it; outputs in results/traces/<names>/")
    sr.add_argument("--set", action="append", metavar="KEY=VALUE",
                    help="change one parameter (repeatable); the outputs then go to results/custom/")
    sr.add_argument("--column", action="append", default=[], metavar="NAME=FILE|module:function",
                    help="a per-job column for col.NAME in the study's policies (repeatable): a CSV of 'job id,"
                         "value' lines for the log's jobs, or a function of the cleaned jobs importable by the "
                         "workers; it follows the jobs through resampling (the study's columns parameter)")
    sr.add_argument("--scheduler", default=None,
                    help="address of a dask scheduler (a site cluster; default $SCHEDLAB_SCHEDULER, else local)")
    sr.add_argument("--workers", type=workers_arg, default=None, help="local cluster workers (default: all cores)")
    sr.add_argument("--cache", default=None, help="cache directory (default results/cache)")
    sr.add_argument("--outdir", default=None, help="output folder (default results/<profile>/<NN-study>)")
    sr.add_argument("--no-progress", action="store_true")
    ad = sub.add_parser("advise", help="which EASY configuration should this machine run, what it gains on "
                                       "held-out weeks, at what risk (a report)",
                        description="Learn on the earlier half of the log, evaluate every candidate on the same "
                                    "held-out weeks against EASY-FCFS-FCFS, and write report.html and the executed "
                                    "notebook (default folder results/advise/<log>/).")
    ad.add_argument("log", help="the log: an SWF file, a registry name, PATH?request=...&m=..., or a site "
                                "accounting file with --format")
    ad.add_argument("--format", default="swf", help="swf (default), sacct, sacct-json or batsim (imported first)")
    ad.add_argument("-m", type=machine_arg, default=None, help="machine size (processors)")
    ad.add_argument("--candidates", action="append", default=[], metavar="LABEL",
                    help="another candidate besides the defaults, e.g. 'expr:wait / req + procs / m' (a policy "
                         "expression ordering both queues; '|T=20h' adds a threshold) or EASY-SPF-LPF/T=10h "
                         "(repeatable)")
    ad.add_argument("--objective", default="avgwait", help="avgwait (default), bsld or ppbsld")
    ad.add_argument("--max-wait-risk", default=None, metavar="X",
                    help="largest accepted ratio of the mean weekly MaxWait to EASY-FCFS-FCFS's, e.g. 1.5")
    ad.add_argument("--weeks", type=int, default=None, help="resampled weeks per half (default 30)")
    ad.add_argument("--out", default=None, help="output folder (default results/advise/<log>/)")
    ad.add_argument("--scheduler", default=None,
                    help="address of a dask scheduler (a site cluster; default $SCHEDLAB_SCHEDULER, else local)")
    ad.add_argument("--workers", type=workers_arg, default=None, help="local cluster workers (default: all cores)")
    ad.add_argument("--cache", default=None, help="cache directory (default results/cache, shared with the studies)")
    ad.add_argument("--no-notebook", action="store_true",
                    help="run the Python function only (no executed notebook beside the report)")
    ad.add_argument("--no-progress", action="store_true")
    ad.set_defaults(func=cmd_advise)
    return p


def cmd_advise(args) -> int:
    from .advise import cli_run

    return cli_run(args)


@contextlib.contextmanager
def writing(path):
    """Turn an OSError while writing ``path`` (read-only directory, full
    disk, file size limit ...) into a one-line error naming it."""
    try:
        yield
    except OSError as e:
        raise SchedlabError(f"{path}: cannot write: {e.strerror or e}") from e


def os_error_line(e: OSError) -> str:
    """One line for an OSError: the file (both, for a rename) and the reason."""
    where = " -> ".join(str(f) for f in (e.filename, e.filename2) if f is not None)
    reason = e.strerror or str(e) or type(e).__name__
    return f"{where}: {reason}" if where else reason


def interrupted_line(args) -> str:
    """What Ctrl-C leaves: for the commands that cache their cells, where
    the cells computed so far are kept and how to resume."""
    if getattr(args, "func", None) in (cmd_campaign, cmd_study, cmd_advise):
        from .. import paths
        cache = getattr(args, "cache", None) or paths.relative(paths.RESULTS / "cache")
        return (f"schedlab: interrupted: the cells computed so far are kept in the cache ({cache}); "
                "run the same command again to resume from them")
    return "schedlab: interrupted: nothing was written"


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if getattr(args, "scheduler", None) is not None:    # every --scheduler, checked before any work
            from .. import validators
            validators.scheduler_address(args.scheduler)
        return args.func(args)
    except SchedlabError as e:
        print(f"schedlab: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:   # a missing file, a read-only directory, a full disk: one line, no traceback
        print(f"schedlab: error: {os_error_line(e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:   # Ctrl-C: one line, the shell's status for SIGINT
        print(f"\n{interrupted_line(args)}", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
