"""The worker side of a suite run: one cell in, one :class:`CellRecord` out, never an exception.

A decision cell's payload carries its problem as JSON with the problem kind's name and import
path (``simcore/kinds/``), so a worker process finds any kind, even one its parent registered
in-process; the kind rebuilds the problem, checks the answer (``timed_solve``) and scores it
against the exact reference. A simulation cell runs its scenario on its simulation core
(``simcore/core.py``; found by name, or by import path in a worker process) and keeps the
core's metrics.
"""

from __future__ import annotations

import math
import time
import traceback
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from schedbench.bench.run.isolate import solve_isolated
from schedbench.bench.run.supervisor import Failure
from schedbench.bench.store.provenance import commit_of_checkout
from schedbench.bench.store.records import COMPLETED, CellRecord
from schedbench.bench.suite.plan import DecisionCell, SimulationCell, redact_outside
from schedbench.simcore.core import RunHooks, SimulationCore, get_core
from schedbench.simcore.errors import SchedbenchError
from schedbench.simcore.kinds.base import get_kind
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.solver import timed_solve
from schedbench.solvers.registry import warm_solver, warm_solver_by_id


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _numbers(metrics: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in metrics.items() if isinstance(v, (int, float)) or v is None}


def execute_decision(payload: dict[str, Any]) -> CellRecord:
    """Run one decision cell; never raises (errors become records with status ``error``)."""
    t0 = time.perf_counter()
    cell: DecisionCell = payload["cell"]
    kind = get_kind(cell.kind, payload["kind_ref"])
    problem = kind.problem_from_dict(payload["problem"])
    reference = kind.decision_from_dict(payload["reference"]) if payload["reference"] else None
    budget = Budget(deadline_s=cell.budget_s, seed=cell.seed)
    started = now_iso()
    error = None
    try:
        if payload["isolate"]:
            decision = solve_isolated(cell.solver, problem, budget)
        else:
            solver = warm_solver(cell.solver.name, dict(cell.solver.params))
            decision = timed_solve(solver, problem, budget)
    except Exception as exc:  # a plug-in that raises: recorded as this cell's error, run goes on
        error = f"{type(exc).__name__}: {exc}"
        decision = kind.error_decision(error, solver=cell.solver.id)
    if error is None and decision.status in (Status.ERROR, Status.TIMEOUT) and decision.notes:
        error = "; ".join(decision.notes)  # the reason, where reports and the terminal show it
    try:
        metrics = kind.quality(problem, decision, reference, budget_s=cell.budget_s)
    except (SchedbenchError, ValueError) as exc:  # an answer the metrics cannot read
        metrics = {"status": decision.status.value, "feasible": False}
        error = error or f"quality: {type(exc).__name__}: {exc}"
    metrics = _numbers(metrics)
    doc = kind.decision_to_dict(decision)
    if reference is not None:  # the exact answer, for the report's front plots
        points = [p.objectives for p in getattr(reference, "pareto", ())]
        doc["reference_pareto"] = [list(p) for p in points] or (
            [list(reference.objectives)] if reference.objectives else None
        )
    else:
        doc["reference_pareto"] = None
    names = getattr(problem, "objective_names", None)
    if names:
        doc["objective_names"] = list(names)
    latency = decision.latency_s if math.isfinite(decision.latency_s) else None
    metrics["worker_overhead_s"] = max(0.0, time.perf_counter() - t0 - (latency or 0.0))
    return CellRecord(
        suite="",
        cell_id=cell.cell_id,
        kind="decision",
        problem_kind=kind.name,
        family=cell.family,
        instance=cell.instance,
        instance_hash=cell.instance_hash,
        solver=cell.solver.id,
        solver_name=cell.solver.name,
        params=dict(cell.solver.params),
        repetition=cell.repetition,
        seed=cell.seed,
        budget_s=cell.budget_s,
        status=decision.status.value,
        latency_s=latency,
        isolated=bool(payload["isolate"]),
        started_at=started,
        finished_at=now_iso(),
        metrics=metrics,
        decision=doc,
        error=error,
    )


def _policy_label(cell: SimulationCell) -> str:
    return cell.policy if cell.solver is None else f"{cell.policy_name}:{cell.solver.id}"


def execute_simulation(payload: dict[str, Any]) -> CellRecord:
    """Run one simulation cell on its core; never raises."""
    cell: SimulationCell = payload["cell"]
    sc = cell.scenario
    started = now_iso()
    error = None
    metrics: dict[str, Any] = {}
    status = COMPLETED
    params: dict[str, Any] = {"system": sc.system}
    try:
        core = get_core(sc.core, payload.get("core_ref"))
        params = {**core.record_params(sc.spec), "core": core.name}
        metrics = _run_cell(core, cell, payload.get("runs_dir"))
    except Exception as exc:  # recorded as this cell's error (status "error"); the run goes on
        status = "error"
        error = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}"
        base = payload.get("base_dir")
        if base:  # never quote a file outside the suite's folder: a trust boundary
            message = f"{type(exc).__name__}: {exc}"
            redacted = redact_outside(message, [sc.workload.split("+")[0]], Path(base))
            if redacted != message:
                error = redacted  # without the traceback, which may quote the file too
    return CellRecord(
        suite="",
        cell_id=cell.cell_id,
        kind="simulation",
        family=sc.name,
        instance=sc.workload,
        instance_hash=cell.scenario_hash,
        solver=_policy_label(cell),
        solver_name=cell.solver.name if cell.solver else cell.policy_name,
        params=params,
        repetition=cell.repetition,
        seed=cell.seed,
        budget_s=cell.budget_s,
        status=status,
        latency_s=metrics.get("decision_latency_median_s"),
        isolated=False,
        started_at=started,
        finished_at=now_iso(),
        metrics=metrics,
        error=error,
    )


def _run_cell(core: SimulationCore, cell: SimulationCell, runs_dir: str | None) -> dict[str, Any]:
    """A simulation cell on its core: its numeric metrics, the wall time and the counters;
    with ``runs_dir``, its files for the report's pictures."""
    sc = cell.scenario
    solver = (
        None if cell.solver is None else warm_solver(cell.solver.name, dict(cell.solver.params))
    )
    hooks = RunHooks(
        budget=Budget(deadline_s=cell.budget_s, seed=cell.seed),
        solver=solver,
        solvers=warm_solver_by_id,
    )
    run = core.run(sc.spec, core.load(sc.spec), cell.policy_name, hooks)
    if run.error is not None:
        raise run.error
    if runs_dir:  # the schedule, for the report's pictures
        run.config["cell_id"] = cell.cell_id
        commit = {"commit": commit_of_checkout()}  # the pictures' captions say where they came from
        core.write(run, Path(runs_dir) / cell.cell_id, config=commit, full=False)
    metrics = _numbers(run.metrics)
    metrics["wall_s"] = run.wall_s
    metrics.update({f"count_{k}": v for k, v in run.counters.items() if isinstance(v, int)})
    return metrics


def execute(payload: dict[str, Any]) -> CellRecord:
    fn = execute_decision if payload["kind"] == "decision" else execute_simulation
    return fn(payload)


def failed_record(payload: dict[str, Any], failure: Failure) -> CellRecord:
    """The record of a cell whose worker was lost (killed at its deadline, exited, crashed,
    raised SystemExit/KeyboardInterrupt): status ``timeout`` or ``error``, the reason in
    ``error``."""
    cell = payload["cell"]
    is_dec = payload["kind"] == "decision"
    return CellRecord(
        suite="",
        cell_id=cell.cell_id,
        kind=payload["kind"],
        problem_kind=cell.kind if is_dec else None,
        family=cell.family,
        instance=cell.instance if is_dec else cell.scenario.workload,
        instance_hash=cell.instance_hash if is_dec else cell.scenario_hash,
        solver=cell.solver.id if is_dec else _policy_label(cell),
        solver_name=cell.solver.name if cell.solver else "naive",
        params=dict(cell.solver.params) if cell.solver else {},
        repetition=cell.repetition,
        seed=cell.seed,
        budget_s=cell.budget_s,
        status="timeout" if failure.kind == "timeout" else "error",
        isolated=bool(payload.get("isolate")),
        finished_at=now_iso(),
        error=f"{failure.kind}: {failure.reason}",
    )
