"""``schedbench simulate``: one trace-driven simulation, written to a directory.

    schedbench simulate --workload (SWF path | dataset name | generator spec) [--system (preset | TOML)]
        [--policy naive|window] [--solver NAME [--set k=v ...]] [--window N]
        [--priority fcfs|wfp] [--backfill easy|conservative|none]
        [--lifecycle classic|three-phase] [--out DIR] ...

Writes to ``--out`` (default ``results/simulate/<workload>_<policy>_<hash>``) the files of
``bench/run/outputs.py`` (``jobs.csv``, ``metrics.json``, ``schedule.swf``) and
``decisions.jsonl`` — one line per solver decision (window policy), written as the simulation
goes, so it survives a crash.

If the simulation stops on an error or Ctrl-C, what was computed so far is still written
(``metrics.json`` then says ``"aborted": true`` and the unfinished jobs have empty times).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

from schedbench.bench.cli._common import add_budget_args, add_set_args
from schedbench.bench.progress import progress
from schedbench.bench.report.terminal import format_summary
from schedbench.bench.run.outputs import write_outputs
from schedbench.bench.run.simulation import assemble, build_policy, load
from schedbench.bench.suite.schema import Scenario
from schedbench.instances.systems import PRESETS
from schedbench.instances.units import rejection_warning
from schedbench.simcore.engine import LIFECYCLES
from schedbench.simcore.metrics import solver_pass_warning
from schedbench.simcore.policies import BACKFILLS
from schedbench.simcore.policy_registry import load_policy_class, policy_class, policy_options
from schedbench.simcore.priority import PRIORITIES
from schedbench.simcore.problem import Budget
from schedbench.simcore.recording import DecisionRecorder
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
        help="SWF file, dataset (schedbench data: e.g. kth-sp2) or generator spec, e.g. "
        "lublin:jobs=10000,nodes=256,seed=1; transforms: +bbsched:S4 +arrivals:1.5 +head:1000",
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
        metavar="NAME|module:Class",
        help="a registered policy (see 'schedbench policies': naive, the Slurm-like baseline; "
        "window, a solver picks from the window; plug-ins) or module:Class; "
        "default naive, or window when --solver is given",
    )
    p.add_argument(
        "--policy-set",
        dest="policy_params",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="policy option (repeatable; values read as Python literals, else as text)",
    )
    p.add_argument(
        "--solver",
        default=None,
        help="registered solver for the window policy, or module:Class of a plug-in",
    )
    add_set_args(p)
    p.add_argument(
        "--window",
        type=int,
        default=None,
        help="window size (default 20, BBSched; a Cerberus policy: its mode's, 10; 0 = whole queue)",
    )
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
    from schedbench.bench.run.cerberus import is_cerberus_policy

    if is_cerberus_policy(policy_name):
        return run_cerberus(args, policy_name)
    if args.window is None:
        args.window = 20
    cls = load_policy_class(policy_name) if ":" in policy_name else policy_class(policy_name)
    decides = "solver" in policy_options(cls)  # the policy poses decision problems to a solver
    if decides and not args.solver:
        print(
            f"schedbench: error: --policy {policy_name} needs --solver NAME "
            "(see 'schedbench solvers')",
            file=sys.stderr,
        )
        return 2
    if args.solver and not decides:
        print(
            f"schedbench: error: --solver is only used by a policy that decides with a solver "
            f"(--policy window); {policy_name} takes none",
            file=sys.stderr,
        )
        return 2
    if args.record_decisions and not decides:
        print(
            "schedbench: error: --record-decisions needs a policy that poses decision problems "
            "(--policy window --solver NAME; --solver naive records the baseline's decisions)",
            file=sys.stderr,
        )
        return 2
    scenario = Scenario(
        name="simulate",
        workload=args.workload,
        system=args.system or "",
        priority=args.priority,
        backfill=args.backfill,
        lifecycle=args.lifecycle,
        window=args.window,
        starvation_bound=args.starvation_bound,
        warmup_s=args.warmup,
        cooldown_s=args.cooldown,
        policy_options=tuple(sorted(_literals(args.policy_params).items())),
    )
    unknown = [k for k, _v in scenario.policy_options if k not in policy_options(cls)]
    if unknown:
        print(
            f"schedbench: error: --policy-set {unknown[0]}: policy {policy_name!r} has no option "
            f"{unknown[0]!r}; its options: {', '.join(policy_options(cls))}",
            file=sys.stderr,
        )
        return 2
    loaded = load(scenario, on_bad_line="skip" if args.skip_bad_lines else "error")
    workload, system = loaded.workload, loaded.system
    budget = Budget(deadline_s=args.budget, seed=args.seed)
    solver = None
    if decides:
        params = registry.parse_assignments(args.params)
        solver = registry.make_solver(args.solver, params)  # a name, or module:Class
        warm_up(solver)
    policy_text = build_policy(policy_name, solver, scenario, budget).describe()
    out = (
        Path(args.out)
        if args.out
        else Path("results")
        / "simulate"
        / default_out_name(
            args.workload,
            policy_text,
            f"{args.system}|{args.priority}|{args.lifecycle}|{args.params}|{args.seed}",
        )
    )
    out.mkdir(parents=True, exist_ok=True)

    bar = progress(len(workload), "simulate", "job", disable=args.no_progress)
    log_file = (out / "decisions.jsonl").open("w") if decides else None

    def log(entry: dict[str, Any]) -> None:
        assert log_file is not None
        log_file.write(json.dumps(entry) + "\n")
        log_file.flush()

    recorder = None
    if args.record_decisions:
        recorder = DecisionRecorder(
            args.record_decisions, workload=workload.source, system=system.name
        )
    built = assemble(
        scenario,
        loaded,
        policy=policy_name,
        solver=solver,
        budget=budget,
        record_problem=recorder,
        on_invalid=args.on_invalid,
        progress=bar.set_done if bar.shown else None,
        progress_every=max(100, len(workload) // 200),
        decision_log=log if log_file else None,
    )
    sim, policy, unit_notes = built.simulation, built.policy, list(built.unit_notes)
    t0 = time.perf_counter()
    error: BaseException | None = None
    try:
        result = sim.run()
    except (Exception, KeyboardInterrupt) as exc:  # keep what was computed, then report
        error = exc
        result = sim.snapshot()
    wall = time.perf_counter() - t0
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
            "window": args.window if "window" in policy_options(cls) else None,
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
    write_outputs(result, out, built.window, budget_s=args.budget)
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
    warning = solver_pass_warning(metrics["metrics"])
    if warning:
        print(warning, file=sys.stderr)
    print(
        f"written: {out}/jobs.csv, metrics.json, schedule.swf"
        + (", decisions.jsonl" if decides else "")
    )
    return 0


def run_cerberus(args: argparse.Namespace, policy_name: str) -> int:
    """``schedbench simulate --policy cerberus-...``: one run on the Cerberus/BBSim core
    (``simcore/cerberus/``; options in ``bench/run/cerberus.py``). Writes ``jobs.csv``,
    ``usage.csv``, ``metrics.json`` and ``knapsack_calls.csv`` to ``--out``."""
    from schedbench.bench.run import cerberus as cb
    from schedbench.instances.cerberus import is_cerberus_spec, load_cerberus_workload
    from schedbench.instances.systems import resolve_system

    def fail(message: str) -> int:
        print(f"schedbench: error: {message}", file=sys.stderr)
        return 2

    if not is_cerberus_spec(args.workload):
        return fail(
            f"--policy {policy_name} runs on a Cerberus workload: a .csv workload file or "
            f"cerberus:jobs=N,seed=S (see instances/cerberus.py), not {args.workload!r}"
        )
    system = resolve_system(args.system or "cerberus")
    options = _literals(args.policy_params)
    config = cb.cerberus_config(options, window=args.window)
    decides = cb.takes_solver(policy_name)
    if not decides and any(k in options for k in (*cb.SOLVER_OPTIONS, "on_fault")):
        return fail(f"--policy-set: cerberus policy {policy_name} is FCFS and takes no solver")
    per_queue = cb.queue_solvers(options) if decides else {}
    if args.solver and not decides:
        return fail(f"--solver: cerberus policy {policy_name} is FCFS and takes no solver")
    if args.record_decisions and not decides:
        return fail(f"--record-decisions: cerberus policy {policy_name} poses no decision problems")
    workload = load_cerberus_workload(args.workload, max_cores=system.nodes)
    budget = Budget(deadline_s=args.budget, seed=args.seed)
    solver = None
    if args.solver:
        solver = registry.make_solver(args.solver, registry.parse_assignments(args.params))
        warm_up(solver)
    solver_id = getattr(solver, "id", config.solver if decides else "")
    label = f"{policy_name}{':' + solver_id if decides else ''}" + "".join(
        f" {k}={v.id}" for k, v in per_queue.items()
    )
    out = (
        Path(args.out)
        if args.out
        else Path("results")
        / "simulate"
        / default_out_name(args.workload, label, f"{args.system}|{config.label}|{args.seed}")
    )
    recorder = None
    if args.record_decisions:
        recorder = DecisionRecorder(
            args.record_decisions, workload=workload.source, system=system.name
        )
    bar = progress(len(workload), "simulate", "job", disable=args.no_progress)
    try:
        result = cb.run_cerberus(
            workload,
            system,
            policy_name,
            solver=solver,
            config=config,
            budget=budget,
            record=recorder,
            progress=(lambda done, _total: bar.set_done(done)) if bar.shown else None,
            per_queue=per_queue,
            fault=options.get("on_fault"),
        )
    finally:
        bar.close()
        if recorder is not None:
            recorder.close()
    metrics = cb.write_outputs(result, out, budget_s=args.budget)
    print(
        f"{workload.source}: {len(workload)} jobs on {system.name} ({system.nodes} cores, "
        f"{system.bb_gb / 1000:g} TB BB) with {label}, mode {config.label}; "
        f"simulated in {result.wall_s:.2f} s"
    )
    from schedbench.bench.report.terminal import format_metrics

    names = (*cb.METRIC_NAMES, "decisions", "decision_latency_median_s", "decision_latency_max_s")
    print(format_metrics({k: v for k, v in metrics.items() if v is not None}, names))
    if recorder is not None:
        print(f"recorded {recorder.count} decision problems to {args.record_decisions}")
    print(
        f"written: {out}/jobs.csv, usage.csv, metrics.json"
        + (", knapsack_calls.csv" if result.calls else "")
    )
    return 0


def _literals(items: list[str]) -> dict[str, Any]:
    """``--policy-set`` items: each value a Python literal (``3``, ``0.5``, ``True``), else text."""
    out: dict[str, Any] = {}
    for key, value in registry.parse_assignments(items).items():
        try:
            out[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            out[key] = value  # plain text, e.g. a name
    return out


COMMANDS = {"simulate": run}
