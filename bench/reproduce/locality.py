"""Data-locality-aware batch scheduling (Gonthier, Larsson, Marchal, Nettelblad, Thibault):
FCFS, EFT, LEA, LEO and LEM, each with and without backfilling, on one locality workload.

``schedbench reproduce locality [--workload FILE|DATASET|SPEC] [--mode reference|paper]
[--schedulers ...] [--system PLATFORM] --out DIR``

Workloads (``--workload``)
--------------------------
* a file in the authors' 24-token format, or a dataset in it (default ``locality-day``, the
  authors' calibration day): run as it is;
* an SWF trace — a ``.swf`` / ``.swf.gz`` file, a dataset (``kth-sp2``) or an SWF workload
  spec as ``schedbench simulate`` takes it (``kth-sp2+head:20000``): converted with the rules of
  the model note §3 and replayed on the platform (below); a trace without users (the
  Lublin–Feitelson model: every user −1) is refused, since §3's file chains and the user
  sessions are built from users;
* the seeded generator by a spec, ``locality:jobs=N[,nodes=,days=,users=,seed=,load=,
  mean_session=,pre_share=,evaluated_share=]`` (``instances/locality_io.py``:
  ``GENERATOR_KEYS`` holds each key's bounds); ``nodes`` is the platform's size (default 486).

Platform (``--system``)
-----------------------
The paper's, by default: 486 nodes × 20 cores, 0.1 GB/s per node, node memory as the authors'
machine file (450 × 128 GB, 32 × 256 GB, 4 × 1 TB; memory only fixes the scan order, §1).
``locality:N`` takes N such nodes; a machine file in the authors' format
(``locality-day/machine``) is read as it is. The platform's name and size are printed and
written in every summary row (``platform``, ``nodes``, ``cores_per_node``).

Converted traces
----------------
A public trace was recorded on a machine far smaller than the paper's (KTH-SP2: 100
processors). Replayed as it is on 486 × 20 cores it would fill 1 % of the machine: no queue,
every job starts at once and the schedulers differ only in which idle node they pick. Sized to
its widest job instead (5 nodes for KTH-SP2), node choice stops being about files (minimum
below). So a trace is **replayed at its own offered load**: its
submissions are compressed by ``f = platform cores / trace processors`` (the ``MaxProcs``
header, else the widest job; KTH-SP2 on the paper's platform: f = 97.2), so the same jobs —
sizes, run times, walltimes, users — arrive f times as often, and the platform is as loaded as
the trace's own machine was (KTH-SP2: offered load 0.85 over the evaluated day). Kept as they
are: run times and walltimes (a 128 GB load takes 1,280 s whatever f; the stretch and the
transfer share depend on that ratio), the log's waits (history starts), and the §3 file chains,
built on the log's own submission times, so that a session of the trace stays one file. Lost:
the time of day (a replayed day holds f days of the log). ``--arrival-factor F`` sets f.
The window is on the compressed time axis: the warm-up day, then ``--evaluated-days`` (default
1, the calibration day's length; KTH-SP2's 333 days fill 3.4 compressed days) from
``--evaluated-start`` (default one day after the first submission); a window that ends after
the trace's last submission is refused, naming how many days fit.

Minimum platform
----------------
Refused with one line naming the option (``--system``, or the spec's ``nodes``):

* fewer than :data:`MIN_NODES` (10) nodes: on so few nodes node choice is not about files. On
  generated workloads at offered load 0.9 (three seeds per size, ``locality.md``), EFT — which
  ignores files — moves transfer + wait against FCFS by −28 % to +30 % on 1–2 nodes, as much
  as LEA does, and on 5 nodes by up to 14 %, more than a third of LEA's saving (the agreement
  table's own line for "barely moves"); from 10 nodes on EFT stays within 5 % of FCFS and
  under a third of LEA's saving on every seed: below 10 nodes the transfer findings are decided
  by chance;
* a platform that cannot hold the evaluated load: the evaluated jobs alone offering more than
  :data:`MAX_OFFERED_LOAD` (2) times its cores over the evaluated window (the calibration day on
  20 nodes offers 3.8). The queue then only grows over the window, every evaluated job's wait
  is the backlog's, and every scheduler measures the same thing: how far behind the machine is.

Reference mode on sparse workloads
----------------------------------
Reference mode's gate opens only on the reference's grid, t0 + 30·k (``LocalityOptions.
gate_clock``). On a workload too sparse for job ends and arrivals to fall on it (small
generated workloads; a trace replayed at f = 1) some evaluated job is never planned: the
authors' simulator loops until its clock overflows; we stop with exit status 2 and one line
naming the job and the remedies — ``--gate-clock since-run`` (the gate counted from the
scheduler's last run), ``--gate 0`` or ``--mode paper``. We never switch the clock ourselves:
the gate changes stretch several-fold, so another clock runs only when asked, and then every
output says so (the ``gate_clock`` column of summary.csv, the ``setting`` column of
agreement.csv, ``run.json``, the printed header and footer).

Outputs
-------
* ``DIR/summary.csv`` (and the same rows as ``DIR/results.csv``) — one row per scheduler:
  ``scheduler, evaluated_jobs, transfer_wait_s, mean_stretch, mean_bounded_stretch,
  core_time_s, queue_time_mean_s``, the reductions against the baseline (FCFS, or FCFS-BF for
  -BF variants), the session counts, and the setting: ``mode, gate_s, gate_clock, platform,
  nodes, cores_per_node, workload, arrival_factor, offered_load``;
* ``DIR/<scheduler>/jobs.csv`` — per evaluated job: ``job_id, submit_s, start_s, end_s, node,
  cores, transfer_s, load_wait_s, stretch``;
* ``DIR/plots/*.png`` — transfer + wait and stretch reductions, per-session improvement as box
  plots (whiskers at the 12.5th and 87.5th percentiles), its empirical CDF, and the counts of
  faster / equal / slower sessions;
* ``DIR/agreement.csv`` — ``finding, paper, ours, agree, reason, setting``: every published
  finding (LEA cuts transfer + wait the most; EFT and LEO barely move it; LEM in between; core
  time almost unchanged; LEA, LEO and LEM cut the mean stretch, bounded stretch and queue time;
  user sessions gain), per family, agreeing (``yes``), not (``no``) or ``not measurable``, with
  the reason wherever it is not ``yes``;
* ``DIR/run.json`` — the workload, the platform, every run option, the notes of the conversion.

Reference mode follows the authors' simulator job for job (``simcore/locality/``); paper mode
the published text's rules. ``--gate S`` overrides the scheduling gate (the gate study).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from schedbench.bench._io import save_figure
from schedbench.bench.progress import progress
from schedbench.instances import datasets
from schedbench.instances.locality_io import (
    DAY_S,
    GENERATOR_PREFIX,
    generate_locality,
    parse_generator_spec,
    read_locality,
    read_locality_machine,
    replay_factor,
    swf_to_locality,
    trace_processors,
)
from schedbench.instances.systems import locality_platform
from schedbench.simcore.errors import ConfigError, SchedbenchError
from schedbench.simcore.locality import (
    LocalityOptions,
    LocalityPlatform,
    LocalityResult,
    LocalityWorkload,
    simulate_locality,
)
from schedbench.simcore.locality.metrics import (
    baseline_of,
    compare_sessions,
    job_table,
    locality_metrics,
    reductions,
)
from schedbench.simcore.locality.schedulers import SCHEDULER_NAMES
from schedbench.simcore.safeio import atomic_write_text, ensure_dir, open_output

PAPER = "locality"
SUMMARY = "data-locality-aware scheduling: FCFS/EFT/LEA/LEO/LEM (+BF) on a locality workload"

SUMMARY_COLUMNS = (
    "scheduler",
    "evaluated_jobs",
    "transfer_wait_s",
    "mean_stretch",
    "mean_bounded_stretch",
    "core_time_s",
    "queue_time_mean_s",
    "baseline",
    "transfer_wait_reduction",
    "mean_stretch_reduction",
    "core_time_reduction",
    "sessions",
    "sessions_faster",
    "sessions_equal",
    "sessions_slower",
    "session_improvement_median",
    "transfer_s",
    "load_wait_s",
    "mode",
    "gate_s",
    "gate_clock",
    "platform",
    "nodes",
    "cores_per_node",
    "workload",
    "arrival_factor",
    "offered_load",
    "wall_s",
)
#: agreement.csv: the columns every reproduction writes, and the run's setting on every row
#: (mode, gate and its clock, platform, arrival factor: each changes the results).
AGREEMENT_COLUMNS = ("finding", "paper", "ours", "agree", "reason", "setting")
JOB_COLUMNS = (
    "job_id",
    "submit_s",
    "start_s",
    "end_s",
    "node",
    "cores",
    "transfer_s",
    "load_wait_s",
    "stretch",
)
#: The workload when none is given: the calibration day (2022-09-10, Rackham) of the authors.
DEFAULT_WORKLOAD = "locality-day"
#: The smallest platform accepted (module docstring, "Minimum platform"): below it a scheduler
#: that ignores files moves transfer + wait by more than a third of LEA's saving.
MIN_NODES = 10
#: The largest offered load of the evaluated jobs a platform is asked to carry (module
#: docstring): above it the queue only grows and the waiting measured is the backlog's.
MAX_OFFERED_LOAD = 2.0
#: Bounds of the SWF replay options (a factor past this compresses a year into minutes).
MAX_ARRIVAL_FACTOR = 10_000.0
MAX_EVALUATED_DAYS = 30
#: Evaluated days of a converted trace: one, as the calibration day (a trace replayed on the
#: paper's platform is compressed: KTH-SP2's 333 days fill 3.4).
DEFAULT_EVALUATED_DAYS = 1
#: "barely moves": a reduction whose size is under this share of LEA's (agreement table).
BARELY_SHARE = 1 / 3
#: "almost unchanged": every core-time reduction within ±this.
CORE_TIME_TOLERANCE = 0.05


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--workload",
        default=DEFAULT_WORKLOAD,
        metavar="FILE|DATASET|SPEC",
        help="a locality workload (24-token format), an SWF trace to convert (.swf, .swf.gz, or "
        "an SWF workload spec such as 'kth-sp2+head:5000'), a dataset (schedbench data: e.g. "
        "kth-sp2, locality-day), or the generator: 'locality:jobs=N[,nodes=,days=,users=,seed=,"
        f"load=,mean_session=]'; default {DEFAULT_WORKLOAD}, the authors' calibration day",
    )
    p.add_argument("--mode", choices=("reference", "paper"), default="reference")
    p.add_argument(
        "--schedulers",
        nargs="+",
        default=list(SCHEDULER_NAMES),
        metavar="NAME",
        help=f"schedulers to run (default all ten: {' '.join(SCHEDULER_NAMES)}); the baselines "
        "fcfs / fcfs-bf are added when a variant needs them",
    )
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument(
        "--system",
        default=None,
        help="locality platform: 'locality' (the paper's 486 x 20 cores, the default), "
        f"'locality:NODES' (at least {MIN_NODES}), or a machine file in the authors' format "
        "(e.g. locality-day/machine); a generator spec's nodes= sets it too",
    )
    p.add_argument(
        "--gate", type=int, default=None, help="scheduling gate in seconds (overrides the mode's)"
    )
    p.add_argument(
        "--gate-clock",
        choices=("grid", "since-run"),
        default=None,
        help="reference mode: which seconds the gate opens: 'grid' (the authors' simulator, the "
        "default) or 'since-run' (gate seconds after the scheduler last ran; for workloads too "
        "sparse for the grid; marked in every output)",
    )
    p.add_argument(
        "--arrival-factor",
        type=float,
        default=None,
        metavar="F",
        help="SWF only: submissions F times as dense (default: the platform's cores over the "
        "trace's processors, which replays the trace at its own offered load)",
    )
    p.add_argument(
        "--evaluated-start",
        type=int,
        default=None,
        help="SWF only: evaluated window start, seconds after the first submission (after the "
        "arrival factor; default one day)",
    )
    p.add_argument(
        "--evaluated-days",
        type=int,
        default=None,
        help=f"SWF only: evaluated days (default {DEFAULT_EVALUATED_DAYS})",
    )
    p.add_argument("--quick", action="store_true", help="only fcfs, eft, lea, leo, lem (no -bf)")


@dataclass(frozen=True)
class Prepared:
    """A workload ready to run, with what the outputs say about it."""

    workload: LocalityWorkload
    platform: LocalityPlatform
    #: what the user named (a path, a dataset, a spec)
    name: str
    #: "locality file", "SWF trace" or "generator"
    form: str
    #: submissions compressed by this factor (SWF traces; 1 otherwise)
    arrival_factor: float = 1.0
    #: lines for the log: what was converted, and by which rule
    notes: tuple[str, ...] = ()
    #: the option that set the platform's size (named in a refusal)
    platform_from: str = "--system"

    @property
    def offered_load(self) -> float:
        """The evaluated jobs' core-seconds (cores × delay) over the machine's core-seconds in
        the evaluated window (first to last evaluated submission, at least one hour)."""
        return evaluated_offered_load(self.workload, self.platform)

    def platform_text(self) -> str:
        p = self.platform
        return f"{p.name} ({p.nodes} nodes x {p.cores_per_node} cores)"


def evaluated_offered_load(w: LocalityWorkload, platform: LocalityPlatform) -> float:
    """See :attr:`Prepared.offered_load`."""
    ev = w.evaluated
    if ev.size == 0:
        return 0.0
    span = max(int(w.submit[ev].max() - w.submit[ev].min()), 3600)
    work = float(np.sum(w.cores[ev] * w.delay[ev]))
    return work / (platform.nodes * platform.cores_per_node * span)


def _refuse(key: str, msg: str) -> ConfigError:
    return ConfigError(f"{key}: {msg}")


def _platform(spec: str | None, default: str) -> LocalityPlatform:
    text = spec or default
    if text.partition(":")[0] == "locality":
        try:
            platform: LocalityPlatform = locality_platform(text)
        except SchedbenchError as exc:
            raise _refuse("--system", str(exc)) from exc
        return platform
    path = datasets.resolve_file(text)
    if not path.is_file():
        raise ConfigError(
            f"--system {text!r}: expected 'locality', 'locality:NODES' or a machine file in the "
            "authors' format (no such file or dataset)"
        )
    return read_locality_machine(path)


def load_workload(args: argparse.Namespace) -> Prepared:
    """The workload ``--workload`` names, on the platform it runs on (``--system``, else the
    paper's). Refuses (:class:`ConfigError`, one line naming the option) a workload form it
    cannot read, SWF-only options with another form, and a platform the schedulers cannot be
    told apart on (:func:`check_platform`)."""
    text = args.workload
    swf_only = {
        "--arrival-factor": args.arrival_factor,
        "--evaluated-start": args.evaluated_start,
        "--evaluated-days": args.evaluated_days,
    }
    if text.startswith(GENERATOR_PREFIX):
        prepared = _generated(text, args)
    else:
        path = datasets.resolve_file(text)  # a file, else a dataset name
        fmt = _format_of(text, path)
        if fmt == "swf":
            prepared = _replayed(text, args, path=path)
        elif fmt == "spec":
            prepared = _replayed(text, args, path=None)
        else:
            w = read_locality(path)
            prepared = Prepared(w, _platform(args.system, "locality"), text, "locality file")
    if prepared.form != "SWF trace":
        given = [k for k, v in swf_only.items() if v is not None]
        if given:
            raise _refuse(
                given[0],
                f"only for SWF traces; {text!r} is a {prepared.form} "
                + (
                    "(its categories fix the evaluated jobs)"
                    if prepared.form == "locality file"
                    else "(give days= in the spec)"
                ),
            )
    check_platform(prepared)
    return prepared


def _format_of(text: str, path: Path) -> str:
    """'swf', 'locality' or 'spec' (an SWF workload spec: a generator or transforms)."""
    if datasets.is_ref(text):
        _ds, f = datasets.resolve(text)
        fmt = f.format if f is not None else ""
        if fmt not in ("swf", "locality"):
            what = f"a {fmt} file" if fmt else "a dataset of several files"
            raise ConfigError(
                f"--workload {text!r}: {what}, not a locality or SWF workload (schedbench data "
                "lists the datasets)"
            )
        return fmt
    if path.exists():
        return "swf" if path.name.endswith((".swf", ".swf.gz")) else "locality"
    if "+" in text or ":" in text:
        return "spec"
    raise ConfigError(
        f"--workload {text!r}: no such file, not a dataset (schedbench data) and not a spec "
        f"({GENERATOR_PREFIX}jobs=N,... or an SWF workload spec)"
    )


def _generated(text: str, args: argparse.Namespace) -> Prepared:
    """The seeded generator by a spec; its ``nodes`` and the platform are one figure."""
    kw = parse_generator_spec(text)
    paper = locality_platform("locality")
    if args.system is not None:
        platform = _platform(args.system, "locality")
        if "nodes" in kw and kw["nodes"] != platform.nodes:
            raise _refuse(
                "--system",
                f"{platform.nodes} nodes, but the spec says nodes={kw['nodes']}: give one of them",
            )
        kw["nodes"] = platform.nodes
        given = "--system"
    else:
        given = "--workload key 'nodes'" if "nodes" in kw else "--system"
        kw.setdefault("nodes", paper.nodes)
        platform = (
            paper if kw["nodes"] == paper.nodes else locality_platform(f"locality:{kw['nodes']}")
        )
    kw["cores_per_node"] = platform.cores_per_node
    w = generate_locality(**kw)
    return Prepared(w, platform, text, "generator", platform_from=given)


def _replayed(text: str, args: argparse.Namespace, path: Path | None) -> Prepared:
    """An SWF trace converted with the §3 rules and replayed on the platform (module
    docstring, "Converted traces")."""
    from schedbench.instances.swf import read_swf
    from schedbench.instances.workloads import load_workload as load_swf_spec

    trace = read_swf(path) if path is not None else load_swf_spec(text)
    table = np.asarray(trace.swf)
    if table.shape[0] and np.all(table[:, 11] < 0):
        raise ConfigError(
            f"--workload {text!r}: the trace records no users (every user id is -1, as in the "
            "Lublin-Feitelson model), so the file chains and user sessions of the model's §3 "
            f"mean nothing; use a trace with users or the generator ({GENERATOR_PREFIX}jobs=N)"
        )
    platform = _platform(args.system, "locality")
    cores = platform.nodes * platform.cores_per_node
    procs, procs_from = trace_processors(table, trace.machine_size)
    if args.arrival_factor is None:
        factor = replay_factor(cores, procs)
        rule = f"the platform's {cores} cores / the trace's {procs} processors"
    else:
        factor = float(args.arrival_factor)
        if not (np.isfinite(factor) and 0 < factor <= MAX_ARRIVAL_FACTOR):
            raise _refuse(
                "--arrival-factor",
                f"expected a number in (0, {MAX_ARRIVAL_FACTOR:g}], got {args.arrival_factor!r}",
            )
        rule = "--arrival-factor"
    days = DEFAULT_EVALUATED_DAYS if args.evaluated_days is None else args.evaluated_days
    if not 1 <= days <= MAX_EVALUATED_DAYS:
        raise _refuse("--evaluated-days", f"expected 1..{MAX_EVALUATED_DAYS}, got {days}")
    if args.evaluated_start is not None and args.evaluated_start < 0:
        raise _refuse("--evaluated-start", f"expected seconds >= 0, got {args.evaluated_start}")
    w, report = swf_to_locality(
        table,
        evaluated_days=days,
        evaluated_offset=args.evaluated_start,
        nodes=platform.nodes,
        cores_per_node=platform.cores_per_node,
        arrival_factor=factor,
        source=text,
    )
    if report.evaluated_end > report.trace_end:
        fit = (report.trace_end - report.evaluated_start) // DAY_S
        # the log's span is the compressed one times f: the largest f that fits the window
        f_max = report.trace_end * factor / max(report.evaluated_end, 1)
        raise _refuse(
            "--evaluated-days",
            f"the trace with arrivals x {factor:.4g} ends {report.trace_end / DAY_S:.2f} days "
            f"after its first submission, before the {days} evaluated day(s) from day "
            f"{report.evaluated_start / DAY_S:.2f} end"
            + (f"; at most {fit} fit" if fit >= 1 else "")
            + f" (or give --arrival-factor at most {f_max:.3g}, or --system with fewer nodes)",
        )
    notes = (
        f"converted from SWF with the model's §3 rules ({report.to_dict()['counts']})",
        f"trace recorded on {procs} processors ({procs_from}); arrivals x {factor:.4g} "
        f"({rule}): {days} evaluated day(s) from day {report.evaluated_start / DAY_S:.2f} of "
        f"{report.trace_end / DAY_S:.2f}",
    )
    return Prepared(w, platform, text, "SWF trace", factor, notes)


def check_platform(prepared: Prepared) -> None:
    """Refuse a platform on which the schedulers cannot be told apart (module docstring,
    "Minimum platform"): fewer than :data:`MIN_NODES` nodes, or fewer nodes than hold the
    evaluated jobs' offered load at :data:`MAX_OFFERED_LOAD`."""
    p = prepared.platform
    if p.nodes < MIN_NODES:
        raise _refuse(
            prepared.platform_from,
            f"{p.nodes} node(s) is below the minimum of {MIN_NODES}: on so few nodes a "
            "scheduler that ignores files moves transfer + wait as much as the locality ones "
            "(bench/reproduce/locality.md, 'Minimum platform')",
        )
    if prepared.workload.evaluated.size == 0:
        raise ConfigError(f"--workload {prepared.name!r}: no evaluated (category 1) job")
    load = prepared.offered_load
    if load > MAX_OFFERED_LOAD:
        need = math.ceil(p.nodes * load / MAX_OFFERED_LOAD)
        raise _refuse(
            prepared.platform_from,
            f"{p.nodes} nodes cannot hold the evaluated load: the evaluated jobs alone offer "
            f"{load:.2f} x the machine's cores (at most {MAX_OFFERED_LOAD:g}), so the queue "
            f"only grows and every scheduler's waiting is the backlog's; give at least {need} "
            "nodes" + (" or a smaller --arrival-factor" if prepared.form == "SWF trace" else ""),
        )


def _fmt(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.6g}"
    return v


def _write_csv(path: Path, columns: tuple[str, ...], rows: list[dict[str, Any]]) -> None:
    ensure_dir(path.parent)
    with open_output(path, newline="") as fh:
        wr = csv.writer(fh)
        wr.writerow(columns)
        for r in rows:
            wr.writerow([_fmt(r.get(c)) for c in columns])


def _write_jobs(path: Path, result: LocalityResult) -> None:
    table = job_table(result)
    ensure_dir(path.parent)
    with open_output(path, newline="") as fh:
        wr = csv.writer(fh)
        wr.writerow(JOB_COLUMNS)
        cols = [table[c] for c in JOB_COLUMNS]
        for k in range(len(cols[0])):
            wr.writerow(
                [
                    f"{c[k]:.6f}" if name == "stretch" else int(c[k])
                    for name, c in zip(JOB_COLUMNS, cols, strict=True)
                ]
            )


def _not_measurable(finding: str, paper: str, reason: str) -> dict[str, Any]:
    return {
        "finding": finding,
        "paper": paper,
        "ours": "-",
        "agree": "not measurable",
        "reason": reason,
    }


def _missing(rows: dict[str, dict[str, Any]], names: list[str]) -> str:
    gone = [n for n in names if n not in rows]
    return f"not run: {', '.join(gone)} (--schedulers)" if gone else ""


FAMILIES = (("", "without backfilling"), ("-bf", "with backfilling"))


def agreement_rows(rows: dict[str, dict[str, Any]], reuse_share: float) -> list[dict[str, Any]]:
    """The published findings against ours, per family (plain, -BF): every finding has a row,
    agreeing ("yes"), not ("no", with the reason) or "not measurable" (with the reason: a
    scheduler not run, a baseline of 0)."""
    out: list[dict[str, Any]] = []
    for suffix, family in FAMILIES:
        eft, lea, leo, lem = (f"{b}{suffix}" for b in ("eft", "lea", "leo", "lem"))
        names = [eft, lea, leo, lem]
        findings = (
            (
                f"LEA cuts transfer + wait the most ({family})",
                "LEA has the largest reduction of transfer + wait against FCFS",
            ),
            (
                f"EFT and LEO barely move transfer + wait ({family})",
                "EFT and LEO stay close to FCFS",
            ),
            (
                f"LEM lies between EFT/LEO and LEA ({family})",
                "LEM's reduction is between EFT's and LEA's",
            ),
        )
        missing = _missing(rows, [f"fcfs{suffix}", *names])
        got = {n: rows[n].get("transfer_wait_reduction") for n in names if n in rows}
        if not missing and any(v is None for v in got.values()):
            missing = f"the baseline fcfs{suffix} has no transfer + wait to reduce (0)"
        if missing:
            out += [_not_measurable(f, paper, missing) for f, paper in findings]
            continue
        red: dict[str, float] = {n: float(v) for n, v in got.items() if v is not None}
        r_lea, r_eft, r_leo, r_lem = red[lea], red[eft], red[leo], red[lem]
        best = max(red, key=lambda n: red[n])
        low_reuse = (
            f"only {reuse_share:.0%} of the evaluated jobs share a file with an earlier job, "
            "so there is little transfer to save"
            if reuse_share < 0.5
            else ""
        )
        ok1 = best == lea
        out.append(
            {
                "finding": findings[0][0],
                "paper": findings[0][1],
                "ours": ", ".join(f"{n} {red[n]:+.1%}" for n in names),
                "agree": "yes" if ok1 else "no",
                "reason": "" if ok1 else (low_reuse or f"{best} reduces it more on this workload"),
            }
        )
        limit = BARELY_SHARE * abs(r_lea)
        ok2 = abs(r_eft) <= limit and abs(r_leo) <= limit
        out.append(
            {
                "finding": findings[1][0],
                "paper": findings[1][1],
                "ours": f"{eft} {r_eft:+.1%}, {leo} {r_leo:+.1%} ({lea} {r_lea:+.1%}; 'barely' "
                f"= under a third of {lea}'s)",
                "agree": "yes" if ok2 else "no",
                "reason": ""
                if ok2
                else (
                    f"{eft} already reuses files on this workload (jobs of a session fit on the "
                    "node that holds their file at the same time)"
                    if abs(r_eft) > limit
                    else f"{leo} often finds no node free now and scores like {lea}"
                ),
            }
        )
        ok3 = min(r_eft, r_leo) <= r_lem <= r_lea or max(r_eft, r_leo) <= r_lem <= r_lea
        out.append(
            {
                "finding": findings[2][0],
                "paper": findings[2][1],
                "ours": f"{lem} {r_lem:+.1%} between {eft} {r_eft:+.1%} / {leo} {r_leo:+.1%} "
                f"and {lea} {r_lea:+.1%}",
                "agree": "yes" if ok3 else "no",
                "reason": ""
                if ok3
                else (
                    f"{lem} switches to LEA's weights only when every node runs a job; on this "
                    "workload the machine is rarely that full"
                    if r_lem <= min(r_eft, r_leo)
                    else f"{lem} runs with LEA's weights most of the time (the machine is full)"
                ),
            }
        )
    ct: dict[str, float] = {
        n: float(r["core_time_reduction"])
        for n, r in rows.items()
        if r.get("core_time_reduction") is not None
    }
    core_finding = "core time almost unchanged"
    core_paper = "the locality schedulers save transfers without using more core time"
    ct = {n: v for n, v in ct.items() if not n.startswith("fcfs")}
    if not ct:
        out.append(
            _not_measurable(
                core_finding, core_paper, "no locality scheduler run beside its baseline"
            )
        )
    else:
        worst = max(ct, key=lambda n: abs(ct[n]))
        ok4 = abs(ct[worst]) <= CORE_TIME_TOLERANCE
        out.append(
            {
                "finding": core_finding,
                "paper": core_paper,
                "ours": f"largest change {worst} {ct[worst]:+.1%} (tolerance ±{CORE_TIME_TOLERANCE:.0%})",
                "agree": "yes" if ok4 else "no",
                "reason": ""
                if ok4
                else "loads count in core time (cores are held while loading); saved loads show up here",
            }
        )
    out += waiting_rows(rows)
    return out


#: What the paper says about waiting (the draft's abstract; the published text measures it as
#: stretch and per user session, model note §8).
PAPER_WAITING = (
    "locality-aware scheduling cuts transfers 'and thus reduce[s] the mean waiting time of a "
    "job' (abstract)"
)
PAPER_SESSIONS = (
    "users gain: sessions (a user's jobs on one file, §8) faster rather than slower than under "
    "the baseline (the abstract's aim; §8 reports faster / equal / slower counts)"
)


def waiting_rows(rows: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The findings about waiting, per family: mean stretch, mean bounded stretch and mean
    queue time of the three locality schedulers (LEA, LEO, LEM) against the baseline, and
    their user sessions (faster / equal / slower, median improvement). Each agrees when all
    three do not make jobs (or sessions) wait longer; the reason names what differs: EFT,
    which ignores files, tells whether the cause is the score family's planning or locality."""
    out: list[dict[str, Any]] = []
    metrics = (
        ("mean_stretch", "mean stretch"),
        ("mean_bounded_stretch", "mean bounded stretch"),
        ("queue_time_mean_s", "mean queue time"),
    )
    for suffix, family in FAMILIES:
        base = f"fcfs{suffix}"
        names = [f"{b}{suffix}" for b in ("lea", "leo", "lem")]
        eft = f"eft{suffix}"
        missing = _missing(rows, [base, *names])
        if missing:
            out += [
                _not_measurable(
                    f"LEA, LEO and LEM cut the {label} ({family})", PAPER_WAITING, missing
                )
                for _key, label in metrics
            ]
            out.append(
                _not_measurable(
                    f"user sessions gain under LEA, LEO and LEM ({family})", PAPER_SESSIONS, missing
                )
            )
            continue
        for key, label in metrics:
            b = float(rows[base][key])
            shown = [*names, eft] if eft in rows else names
            if b == 0:
                out.append(
                    {
                        "finding": f"LEA, LEO and LEM cut the {label} ({family})",
                        "paper": PAPER_WAITING,
                        "ours": f"{base}: 0",
                        "agree": "not measurable",
                        "reason": f"the baseline's {label} is 0: nothing to cut",
                    }
                )
                continue
            red = {n: (b - float(rows[n][key])) / b for n in shown}
            worse = [n for n in names if red[n] < 0]
            reasons = []
            eft_worse = eft in red and red[eft] < 0
            if worse and eft_worse:
                reasons.append(
                    f"EFT, which ignores files, is worse too ({eft} {red[eft]:+.1%}): the score "
                    "family's planning costs waiting by itself (it stops at the first job asking "
                    "for more cores than are idle; FCFS plans on until every core is claimed, §4)"
                )
            # worse than EFT as well: the file weight adds waiting on top of the planning
            beyond = [n for n in worse if not eft_worse or red[n] < red[eft]]
            if beyond:
                reasons.append(
                    f"{', '.join(beyond)} wait{'s' if len(beyond) == 1 else ''} longer "
                    f"{'than EFT as well' if eft_worse else 'while EFT does not'}: the load "
                    "weight (500 × the transfer time) holds jobs for the nodes that have their file"
                )
            reason = "; ".join(reasons)
            out.append(
                {
                    "finding": f"LEA, LEO and LEM cut the {label} ({family})",
                    "paper": PAPER_WAITING,
                    "ours": ", ".join(f"{n} {red[n]:+.1%}" for n in shown)
                    + f" against {base} ({b:.6g})",
                    "agree": "no" if worse else "yes",
                    "reason": reason,
                }
            )
        keys = ("sessions_faster", "sessions_equal", "sessions_slower")
        counts: dict[str, tuple[int, int, int, float]] = {}
        for n in names:
            got = [rows[n].get(k) for k in keys]
            if all(isinstance(v, (int, np.integer)) for v in got):
                median = rows[n].get("session_improvement_median") or 0.0
                counts[n] = (int(got[0] or 0), int(got[1] or 0), int(got[2] or 0), float(median))
        if len(counts) < len(names) or not any(sum(c[:3]) for c in counts.values()):
            out.append(
                {
                    "finding": f"user sessions gain under LEA, LEO and LEM ({family})",
                    "paper": PAPER_SESSIONS,
                    "ours": "no sessions",
                    "agree": "not measurable",
                    "reason": "no evaluated sessions to compare (or no baseline run)",
                }
            )
            continue
        slower = [n for n, c in counts.items() if c[2] > c[0]]
        out.append(
            {
                "finding": f"user sessions gain under LEA, LEO and LEM ({family})",
                "paper": PAPER_SESSIONS,
                "ours": "; ".join(
                    f"{n} {c[0]} faster / {c[1]} equal / {c[2]} slower, median improvement "
                    f"{c[3]:.3g}"
                    for n, c in counts.items()
                ),
                "agree": "no" if slower else "yes",
                "reason": ""
                if not slower
                else (
                    f"{', '.join(slower)}: more sessions slower than faster; a session's value is "
                    "its summed stretch, so the sessions follow the stretch rows above"
                ),
            }
        )
    return out


def _reuse_share(w: LocalityWorkload) -> float:
    ev = w.evaluated
    if ev.size == 0:
        return 0.0
    first_use: dict[int, int] = {}
    for i in range(len(w)):
        first_use.setdefault(int(w.file[i]), i)
    reused = sum(1 for i in ev if first_use[int(w.file[i])] < i)
    return reused / ev.size


def plot(out: Path, rows: dict[str, dict[str, Any]], sessions: dict[str, np.ndarray]) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ensure_dir(out)
    files: list[Path] = []
    names = [
        n
        for n in rows
        if rows[n].get("transfer_wait_reduction") is not None and not n.startswith("fcfs")
    ]
    if names:
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
        for ax, key, title in (
            (axes[0], "transfer_wait_reduction", "transfer + wait reduction"),
            (axes[1], "mean_stretch_reduction", "mean stretch reduction"),
        ):
            vals = [100 * (rows[n].get(key) or 0.0) for n in names]
            ax.bar(
                names,
                vals,
                color=["#4c72b0" if not n.endswith("-bf") else "#dd8452" for n in names],
            )
            ax.axhline(0, color="black", lw=0.8)
            ax.set_title(title + " vs FCFS / FCFS-BF")
            ax.set_ylabel("%")
            ax.tick_params(axis="x", rotation=45)
        fig.tight_layout()
        p = out / "reductions.png"
        save_figure(fig, p, dpi=120)
        plt.close(fig)
        files.append(p)
    snames = [n for n in names if n in sessions and sessions[n].size]
    if snames:
        fig, ax = plt.subplots(figsize=(8, 3.6))
        ax.boxplot([sessions[n] for n in snames], whis=(12.5, 87.5), showfliers=False)
        ax.set_xticks(range(1, len(snames) + 1), snames, rotation=45)
        ax.axhline(1, color="black", lw=0.8)
        ax.set_yscale("log")
        ax.set_ylabel("baseline / scheduler (summed stretch)")
        ax.set_title("per-session improvement (whiskers 12.5 / 87.5 %)")
        fig.tight_layout()
        p = out / "sessions_box.png"
        save_figure(fig, p, dpi=120)
        plt.close(fig)
        files.append(p)
        fig, ax = plt.subplots(figsize=(6, 4))
        for n in snames:
            x = np.sort(sessions[n])
            ax.step(x, np.arange(1, x.size + 1) / x.size, where="post", label=n)
        ax.axvline(1, color="black", lw=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("improvement (baseline / scheduler)")
        ax.set_ylabel("share of sessions")
        ax.set_title("empirical CDF of session improvement")
        ax.legend(fontsize=7)
        fig.tight_layout()
        p = out / "sessions_ecdf.png"
        save_figure(fig, p, dpi=120)
        plt.close(fig)
        files.append(p)
        fig, ax = plt.subplots(figsize=(8, 3.6))
        bottom = np.zeros(len(snames))
        for key, color in (
            ("sessions_faster", "#55a868"),
            ("sessions_equal", "#cccccc"),
            ("sessions_slower", "#c44e52"),
        ):
            counts = np.array([rows[n].get(key) or 0 for n in snames], dtype=float)
            ax.bar(snames, counts, bottom=bottom, color=color, label=key.split("_")[1])
            bottom += counts
        ax.tick_params(axis="x", rotation=45)
        ax.set_ylabel("sessions")
        ax.set_title("sessions faster / equal / slower than the baseline")
        ax.legend(fontsize=8)
        fig.tight_layout()
        p = out / "sessions_counts.png"
        save_figure(fig, p, dpi=120)
        plt.close(fig)
        files.append(p)
    return files


def run_schedulers(
    w: LocalityWorkload,
    platform: LocalityPlatform,
    options: LocalityOptions,
    names: list[str],
    *,
    log: Any = None,
    show_progress: bool = False,
) -> dict[str, LocalityResult]:
    """Each scheduler in turn, with a bar per scheduler (evaluated jobs started, ETA)."""
    results: dict[str, LocalityResult] = {}
    n_eval = int(w.evaluated.size)
    for name in names:
        t0 = time.perf_counter()
        with progress(n_eval, name, "job", disable=not show_progress) as bar:
            results[name] = simulate_locality(
                w,
                name,
                platform,
                options,
                progress=(lambda done, _total: bar.set_done(done)) if bar.shown else None,
            )
        if log is not None:
            log(f"{name}: {time.perf_counter() - t0:.1f} s")
    return results


def summarise(
    results: dict[str, LocalityResult],
    options: LocalityOptions,
    about: dict[str, Any] | None = None,
) -> tuple[dict[str, dict[str, Any]], dict[str, np.ndarray]]:
    """One summary row per scheduler; ``about`` (the platform, the workload, the gate clock)
    is copied into every row."""
    rows: dict[str, dict[str, Any]] = {}
    sessions: dict[str, np.ndarray] = {}
    metrics = {n: locality_metrics(r) for n, r in results.items()}
    for name, r in results.items():
        row: dict[str, Any] = {"scheduler": name, **metrics[name]}
        base = baseline_of(name)
        row["baseline"] = base
        if base in results:
            row.update(reductions(metrics[name], metrics[base]))
            cmp = compare_sessions(r, results[base])
            row.update(cmp.to_metrics())
            sessions[name] = cmp.improvement
        row["mode"] = options.mode
        row["gate_s"] = options.gate_s
        row.update(about or {})
        row["wall_s"] = r.wall_s
        rows[name] = row
    return rows, sessions


def options_of(args: argparse.Namespace) -> LocalityOptions:
    """The run options of ``--mode``, ``--gate`` and ``--gate-clock``."""
    changes: dict[str, Any] = {}
    if args.gate is not None:
        if args.gate < 0:
            raise _refuse("--gate", f"expected seconds >= 0, got {args.gate}")
        changes["gate_s"] = args.gate
    if args.gate_clock is not None:
        changes["gate_clock"] = args.gate_clock
    return LocalityOptions.for_mode(args.mode, **changes)


def setting_text(options: LocalityOptions, prepared: Prepared) -> str:
    """The run's setting in one phrase (every agreement row carries it): mode, gate and its
    clock, platform, arrival factor."""
    gate = (
        "no gate"
        if options.gate_s == 0
        else f"gate {options.gate_s} s "
        + ("on the reference's grid" if options.gate_clock == "grid" else "since the last run")
    )
    text = f"{options.mode} mode, {gate}, {prepared.platform_text()}"
    if prepared.arrival_factor != 1.0:
        text += f", arrivals x {prepared.arrival_factor:.4g}"
    return text


def _scheduler_names(args: argparse.Namespace) -> list[str]:
    names = list(dict.fromkeys(args.schedulers))
    if args.quick:
        names = [n for n in names if not n.endswith("-bf")] or ["fcfs", "eft", "lea", "leo", "lem"]
    known = set(SCHEDULER_NAMES)
    bad = [n for n in names if n not in known]
    if bad:
        raise ConfigError(f"--schedulers: unknown {bad[0]!r}; known: {', '.join(SCHEDULER_NAMES)}")
    for n in list(names):
        base = baseline_of(n)
        if base not in names:
            names.insert(0, base)
    return names


def run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    try:
        prepared = load_workload(args)
        names = _scheduler_names(args)
        options = options_of(args)
        w, platform = prepared.workload, prepared.platform
        log = lambda msg: print(f"reproduce locality: {msg}", file=sys.stderr)  # noqa: E731
        for note in prepared.notes:
            log(note)
        setting = setting_text(options, prepared)
        head = (
            f"{prepared.name} ({prepared.form}): {len(w):,} jobs ({w.evaluated.size:,} "
            f"evaluated, offered load {prepared.offered_load:.2f}); {setting}"
        )
        print(head)
        results = run_schedulers(
            w,
            platform,
            options,
            names,
            log=log,
            show_progress=not getattr(args, "no_progress", False),
        )
    except SchedbenchError as exc:
        print(f"schedbench: error: {exc}", file=sys.stderr)
        return 2
    about = {
        "gate_clock": options.gate_clock if options.gate_s else "",
        "platform": platform.name,
        "nodes": platform.nodes,
        "cores_per_node": platform.cores_per_node,
        "workload": prepared.name,
        "arrival_factor": prepared.arrival_factor,
        "offered_load": prepared.offered_load,
    }
    rows, sessions = summarise(results, options, about)
    _write_csv(out / "summary.csv", SUMMARY_COLUMNS, list(rows.values()))
    # results.csv is every reproduction's common name for its table: the same rows.
    _write_csv(out / "results.csv", SUMMARY_COLUMNS, list(rows.values()))
    for name, r in results.items():
        _write_jobs(out / name / "jobs.csv", r)
    plot(out / "plots", rows, sessions)
    agreement = [{**a, "setting": setting} for a in agreement_rows(rows, _reuse_share(w))]
    _write_csv(out / "agreement.csv", AGREEMENT_COLUMNS, agreement)
    atomic_write_text(
        out / "run.json",
        json.dumps(
            {
                "workload": prepared.name,
                "form": prepared.form,
                "jobs": len(w),
                "evaluated_jobs": int(w.evaluated.size),
                "offered_load": prepared.offered_load,
                "arrival_factor": prepared.arrival_factor,
                "notes": list(prepared.notes),
                "platform": {
                    "name": platform.name,
                    "nodes": platform.nodes,
                    "cores_per_node": platform.cores_per_node,
                    "bandwidth_gbps": platform.bandwidth_gbps,
                },
                "options": options.to_dict(),
                "setting": setting,
                "schedulers": names,
            },
            indent=2,
        )
        + "\n",
    )
    from tabulate import tabulate

    print(
        tabulate(
            [
                [r[c] for c in ("scheduler", "transfer_wait_s", "mean_stretch", "core_time_s")]
                + [_fmt(r.get("transfer_wait_reduction"))]
                for r in rows.values()
            ],
            headers=["scheduler", "transfer+wait s", "mean stretch", "core time s", "tw reduction"],
        )
    )
    print()
    print(
        tabulate(
            [[a["finding"], a["agree"], a["ours"]] for a in agreement],
            headers=["finding", "agree", "ours"],
        )
    )
    print(f"\n({setting})")
    print(f"written to {out}/ (summary.csv, <scheduler>/jobs.csv, plots/, agreement.csv, run.json)")
    return 0
