"""``schedbench simulate``: one trace-driven simulation, written to a directory.

    schedbench simulate --workload (SWF path | generator spec) [--system (preset | TOML)]
        [--policy naive|window] [--solver NAME [--set k=v ...]] [--window N]
        [--priority fcfs|wfp] [--backfill easy|conservative|none]
        [--lifecycle classic|three-phase] [--out DIR] ...

Writes to ``--out`` (default ``results/simulate/<workload>-<policy>``):

* ``jobs.csv`` — one row per job: ``id, submit, start, end, nodes, requested_time, runtime,
  wait, bb_gb, ssd_gb, status`` (+ ``first_alloc, last_release`` for the three-phase lifecycle);
  empty cells for times that never happened;
* ``metrics.json`` — every metric of ``simcore/metrics.py`` with its definition, the wait
  breakdowns by job size, burst-buffer request and runtime (BBSched Figures 9–11), the counters,
  the configuration and the workload's cleaning counts;
* ``decisions.jsonl`` — one line per solver decision (window policy), written as the simulation
  goes, so it survives a crash;
* ``schedule.swf`` — the workload with the simulated wait and run times (SWF fields 3, 4, 11).

If the simulation stops on an error or Ctrl-C, what was computed so far is still written
(``metrics.json`` then says ``"aborted": true`` and the unfinished jobs have empty times).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import re
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from schedbench.bench._cli_common import add_budget_args
from schedbench.instances.systems import PRESETS, resolve_system
from schedbench.instances.units import fit_units, rejection_warning
from schedbench.instances.workloads import load_workload
from schedbench.simcore.engine import LIFECYCLES, SimOptions, Simulation
from schedbench.simcore.metrics import (
    MeasurementWindow,
    compute_metrics,
    format_summary,
)
from schedbench.simcore.policies import BACKFILLS, POLICIES, NaivePolicy, WindowPolicy
from schedbench.simcore.priority import PRIORITIES
from schedbench.simcore.problem import Budget
from schedbench.simcore.schedule import JobState, ScheduleResult
from schedbench.simcore.solver import warm_up
from schedbench.solvers import registry


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "simulate",
        help="simulate a workload under a policy and write per-job records, metrics, decisions",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument(
        "--workload",
        required=True,
        metavar="SPEC",
        help="SWF file or generator spec, e.g. lublin:jobs=10000,nodes=256,seed=1; "
        "transforms: +bbsched:S4 +arrivals:1.5 +head:1000",
    )
    p.add_argument(
        "--system",
        default=None,
        metavar="PRESET|TOML",
        help=f"machine: {', '.join(PRESETS)} or a .toml file "
        "(default: the SWF header's MaxNodes, else MaxProcs)",
    )
    p.add_argument(
        "--policy",
        default=None,
        choices=sorted(POLICIES),
        help="naive (Slurm-like baseline) or window (a solver picks from the window); "
        "default naive, or window when --solver is given",
    )
    p.add_argument(
        "--solver",
        default=None,
        help="registered solver for the window policy, or module:Class of a plug-in",
    )
    p.add_argument(
        "--set",
        dest="params",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="solver parameter (repeatable)",
    )
    p.add_argument("--window", type=int, default=20, help="window size (default 20, BBSched)")
    p.add_argument(
        "--starvation-bound",
        type=int,
        default=50,
        help="passes a job may stay in the window before it must start (default 50)",
    )
    p.add_argument(
        "--priority",
        default="fcfs",
        choices=sorted(PRIORITIES),
        help="base scheduler order (default fcfs)",
    )
    p.add_argument("--backfill", default="easy", choices=BACKFILLS, help="default easy")
    p.add_argument("--lifecycle", default="classic", choices=LIFECYCLES, help="default classic")
    add_budget_args(p)
    p.add_argument(
        "--on-invalid",
        default="raise",
        choices=("raise", "fallback"),
        help="an invalid decision stops the run (default) or falls back to naive",
    )
    p.add_argument(
        "--warmup",
        type=float,
        default=0.0,
        metavar="S",
        help="seconds after the first submission excluded from the metrics",
    )
    p.add_argument(
        "--cooldown",
        type=float,
        default=0.0,
        metavar="S",
        help="seconds before the last submission excluded from the metrics",
    )
    p.add_argument(
        "--skip-bad-lines",
        action="store_true",
        help="skip (and count) malformed SWF lines instead of stopping",
    )
    p.add_argument("--out", default=None, metavar="DIR", help="output directory")
    p.add_argument(
        "--record-decisions",
        default=None,
        metavar="FILE",
        help="store every decision problem posed (JSON lines) for replay in suites; "
        "window policy only (use --solver naive to record the baseline's)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _slug(text: str, limit: int = 48) -> str:
    """``text`` as a readable, shell- and glob-safe name part: runs of anything but letters,
    digits, ``.`` and ``-`` become ``-``; cut at a word boundary within ``limit`` characters."""
    words = [w for w in re.split(r"[^A-Za-z0-9.]+", text) if w]
    out = ""
    for word in words:
        if out and len(out) + 1 + len(word) > limit:
            break
        out = f"{out}-{word}" if out else word[:limit]
    return out or "run"


def default_out_name(workload: str, policy: str, extra: str = "") -> str:
    """The default ``--out`` folder name: the workload (a trace's file name, or the generator
    spec) and the policy, each cut at a word boundary, plus 8 hex digits of a hash of the
    whole configuration so that two runs that differ only past the cut do not collide."""
    first = workload.split("+")[0]
    if "/" in first or first.endswith((".swf", ".gz")):
        name = Path(first).name.removesuffix(".gz").removesuffix(".swf")
        workload_part = _slug(name + workload[len(first) :])
    else:
        workload_part = _slug(workload)
    digest = hashlib.sha256(f"{workload}|{policy}|{extra}".encode()).hexdigest()[:8]
    return f"{workload_part}_{_slug(policy, 32)}_{digest}"


def run(args: argparse.Namespace) -> int:
    policy_name = args.policy or ("window" if args.solver else "naive")
    if policy_name == "window" and not args.solver:
        print(
            "schedbench: error: --policy window needs --solver NAME (see 'schedbench solvers')",
            file=sys.stderr,
        )
        return 2
    if policy_name == "naive" and args.solver:
        print("schedbench: error: --solver is only used by --policy window", file=sys.stderr)
        return 2
    workload = load_workload(args.workload, on_bad_line="skip" if args.skip_bad_lines else "error")
    system = resolve_system(args.system, workload=workload)
    workload, unit_notes = fit_units(workload, system)
    budget = Budget(deadline_s=args.budget, seed=args.seed)
    if policy_name == "window":
        params = registry.parse_assignments(args.params)
        solver = registry.make_solver(args.solver, params)  # a name, or module:Class
        warm_up(solver)
        policy: Any = WindowPolicy(
            solver,
            window=args.window,
            starvation_bound=args.starvation_bound,
            budget=budget,
            backfill=args.backfill,
        )
    else:
        policy = NaivePolicy(backfill=args.backfill)
    out = (
        Path(args.out)
        if args.out
        else Path("results")
        / "simulate"
        / default_out_name(
            args.workload,
            policy.describe(),
            f"{args.system}|{args.priority}|{args.lifecycle}|{args.params}|{args.seed}",
        )
    )
    out.mkdir(parents=True, exist_ok=True)
    window = MeasurementWindow(warmup_s=args.warmup, cooldown_s=args.cooldown)

    bar = _progress(len(workload), disable=args.no_progress)
    log_file = (out / "decisions.jsonl").open("w") if policy_name == "window" else None

    def log(entry: dict[str, Any]) -> None:
        assert log_file is not None
        log_file.write(json.dumps(entry) + "\n")
        log_file.flush()

    recorder = None
    if args.record_decisions:
        if policy_name != "window":
            print(
                "schedbench: error: --record-decisions needs the window policy "
                "(--solver NAME; --solver naive records the baseline's decisions)",
                file=sys.stderr,
            )
            return 2
        from schedbench.instances.recorded import DecisionRecorder

        recorder = DecisionRecorder(
            args.record_decisions, workload=workload.source, system=system.name
        )
    options = SimOptions(
        record_problem=recorder,
        lifecycle=args.lifecycle,
        priority=args.priority,
        on_invalid=args.on_invalid,
        progress=bar.set_done if bar else None,
        progress_every=max(100, len(workload) // 200),
        decision_log=log if log_file else None,
    )
    sim = Simulation(workload, system, policy, options)
    t0 = time.perf_counter()
    error: BaseException | None = None
    try:
        result = sim.run()
    except (Exception, KeyboardInterrupt) as exc:  # keep what was computed, then report
        error = exc
        result = sim.snapshot()
    wall = time.perf_counter() - t0
    if bar:
        bar.close()
    if log_file:
        log_file.close()
    if recorder is not None:
        recorder.close()
        result.config["recorded_decisions"] = recorder.count
    rejected = int(result.counters.get("rejected", 0))
    reasons = {k: int(v) for k, v in result.counters.items() if k.startswith("rejected_")}
    result.config.update(
        {
            "wall_s": round(wall, 3),
            "jobs_per_s": round(len(workload) / wall, 1) if wall > 0 else None,
            "backfill": args.backfill,
            "window": args.window if policy_name == "window" else None,
            "budget_s": args.budget,
            "cleaning": dict(workload.cleaning),
            "units": {
                "job_sizes": workload.size_unit,
                "machine": system.unit,
                "notes": unit_notes,
            },
            "rejected": {
                "total": rejected,
                **{k.removeprefix("rejected_"): v for k, v in reasons.items()},
            },
        }
    )
    if error is not None:
        result.config["error"] = f"{type(error).__name__}: {error}"
    write_outputs(result, out, window, budget_s=args.budget)
    if error is not None:
        print(
            f"schedbench: error: simulation stopped at t={sim.now:g}: {error}\n"
            f"  partial results written to {out}/",
            file=sys.stderr,
        )
        return 2 if not isinstance(error, KeyboardInterrupt) else 130
    metrics = json.loads((out / "metrics.json").read_text())
    for note in unit_notes:
        print(f"note: {note}", file=sys.stderr)
    print(
        f"{workload.source}: {len(workload)} jobs on {system.name} ({system.nodes} {system.unit}"
        + (f", {system.bb_gb:g} GB BB" if system.bb_gb else "")
        + f") with {policy.describe()}, "
        f"{args.priority}; simulated in {wall:.2f} s ({len(workload) / max(wall, 1e-9):,.0f} jobs/s)"
    )
    print(format_summary(metrics["metrics"]))
    cancelled = int(workload.cleaning.get("no_processors", 0))
    print(
        f"jobs: {len(workload):,} simulated, {rejected:,} rejected as never fitting"
        + (f" ({', '.join(f'{k[9:]} {v}' for k, v in reasons.items())})" if reasons else "")
        + (f"; {cancelled:,} cancelled without a size dropped by the reader" if cancelled else "")
    )
    warning = rejection_warning(workload, system, rejected, reasons)
    if warning:
        print(warning, file=sys.stderr)
    print(
        f"written: {out}/jobs.csv, metrics.json, schedule.swf"
        + (", decisions.jsonl" if policy_name == "window" else "")
    )
    return 0


class _Bar:
    def __init__(self, total: int, disable: bool):
        from tqdm import tqdm

        self._bar = tqdm(
            total=total,
            unit="job",
            disable=disable or None,
            file=sys.stderr,
            mininterval=0.5,
            smoothing=0.1,
        )
        self._done = 0

    def set_done(self, done: int) -> None:
        self._bar.update(done - self._done)
        self._done = done

    def close(self) -> None:
        self._bar.close()


def _progress(total: int, disable: bool) -> _Bar | None:
    return None if disable else _Bar(total, disable)


def _cell(x: float) -> str:
    if math.isnan(x):
        return ""
    return str(int(x)) if x == int(x) else f"{x:.6f}".rstrip("0").rstrip(".")


def write_jobs_csv(result: ScheduleResult, path: Path) -> None:
    w = result.workload
    names = {s.value: s.name.lower() for s in JobState}
    three = not np.array_equal(
        result.first_alloc, result.start, equal_nan=True
    ) or not np.array_equal(result.last_release, result.end, equal_nan=True)
    cols = [
        "id",
        "submit",
        "start",
        "end",
        "nodes",
        "requested_time",
        "runtime",
        "wait",
        "bb_gb",
        "ssd_gb",
        "status",
    ] + (["first_alloc", "last_release"] if three else [])
    wait = result.start - w.submit
    with path.open("w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(cols)
        rows = zip(
            w.job_id.tolist(),
            w.submit.tolist(),
            result.start.tolist(),
            result.end.tolist(),
            w.nodes.tolist(),
            w.requested_time.tolist(),
            w.runtime.tolist(),
            wait.tolist(),
            w.bb_gb.tolist(),
            w.ssd_gb.tolist(),
            result.state.tolist(),
            result.first_alloc.tolist(),
            result.last_release.tolist(),
            strict=True,
        )
        for r in rows:
            line = [
                r[0],
                _cell(r[1]),
                _cell(r[2]),
                _cell(r[3]),
                r[4],
                _cell(r[5]),
                _cell(r[6]),
                _cell(r[7]),
                _cell(r[8]),
                _cell(r[9]),
                names[r[10]],
            ]
            if three:
                line += [_cell(r[11]), _cell(r[12])]
            out.writerow(line)


def write_outputs(
    result: ScheduleResult, out: Path, window: MeasurementWindow, *, budget_s: float
) -> None:
    """jobs.csv, metrics.json and schedule.swf; each written to a temporary name, then renamed."""
    from schedbench.instances.swf import write_swf

    tmp = out / "jobs.csv.tmp"
    write_jobs_csv(result, tmp)
    tmp.replace(out / "jobs.csv")
    try:
        metrics = compute_metrics(result, window, budget_s=budget_s)
    except Exception as exc:  # e.g. a window longer than an aborted run: keep the rest
        metrics = {"error": f"{type(exc).__name__}: {exc}"}
    doc = {
        "metrics": metrics,
        "counters": result.counters,
        "config": result.config,
        "system": result.system.to_dict(),
    }
    tmp = out / "metrics.json.tmp"
    tmp.write_text(json.dumps(doc, indent=2, default=_json_default, allow_nan=False))
    tmp.replace(out / "metrics.json")
    tmp = out / "schedule.swf.tmp"
    write_swf(result.workload, tmp, result=result)
    tmp.replace(out / "schedule.swf")


def _json_default(x: Any) -> Any:
    if isinstance(x, np.generic):
        return x.item()
    raise TypeError(f"not JSON serialisable: {type(x).__name__}")
