"""Run a suite's cells on an executor and store every finished cell at once.

Flow (``run_suite``):

1. expand the suite (``bench/suite.py``) into decision and simulation cells; with ``--resume``
   drop the cells the store already holds (refuse to run over stored cells without ``--resume``
   or ``--force``, so no work is wasted by accident);
2. exact references for the decision problems: taken from the instance source when it publishes
   them (OR-Library optima, the Zitzler–Thiele front), else computed **once** by the reference
   solver in this process and cached by instance fingerprint (``bench.quality.ReferenceCache``
   next to the store); a reference that is not proven optimal is not used (metrics "missing");
3. cells go to the executor — ``local`` (a process pool; spawn start method, so every worker is a
   clean interpreter) or ``dask`` (a ``distributed`` cluster: started locally with ``--workers``
   or an existing one at ``--scheduler``); workers build the solver once per process (warm-up
   untimed) and return plain dicts;
4. the main process commits each finished cell to the SQLite store as it arrives (one
   transaction per cell), so Ctrl-C, ``kill -9`` or a crashing solver loses no finished cell.

Every row records ``concurrency``: how many cells could run at the same time (the worker count).
Latency tables use rows measured alone (concurrency 1) unless asked otherwise.

Isolation (``--isolate`` or ``isolate = true`` per solver): the solve runs in a child process
that is killed at deadline + grace (``GRACE_S``); a hang is recorded as ``timeout``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import multiprocessing as mp
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from schedbench.bench.quality import ReferenceCache, decision_from_dict, decision_quality
from schedbench.bench.store import ConcurrentRunError, ResultStore, StoreError
from schedbench.bench.suite import (
    DecisionCell,
    Instance,
    SimulationCell,
    SolverSpec,
    Suite,
    build_solver,
    decision_cells,
    expand_instances,
    reference_solver,
    simulation_cells,
)
from schedbench.bench.supervisor import Failure, SupervisedPool
from schedbench.bench.supervisor import exit_reason as _exit_reason
from schedbench.simcore.errors import SchedbenchError
from schedbench.simcore.fdcapture import stdout_to_stderr
from schedbench.simcore.problem import Budget, Decision, SelectionProblem, Status
from schedbench.simcore.solver import timed_solve, warm_up

GRACE_S = 5.0
#: Time a spawned isolation child may take to import and warm up before its clock starts.
ISOLATION_STARTUP_S = 120.0


class RunError(SchedbenchError, RuntimeError):
    """A run that cannot start (stored cells without --resume/--force, a bad executor)."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


# ---------------------------------------------------------------------- worker side
_SOLVERS: dict[str, Any] = {}


def _solver(spec: SolverSpec) -> Any:
    key = f"{spec.name}|{spec.params}"
    solver = _SOLVERS.get(key)
    if solver is None:
        solver = build_solver(spec)
        warm_up(solver)
        _SOLVERS[key] = solver
    return solver


def _isolated_child(spec: SolverSpec, problem: dict, budget: tuple[float, int], conn: Any) -> None:
    stdout_to_stderr()  # the parent's stdout is not ours to write on (simcore/fdcapture.py)
    try:
        solver = build_solver(spec)
        warm_up(solver)
        conn.send(("ready", None))
        decision = timed_solve(solver, SelectionProblem.from_dict(problem), Budget(*budget))
        conn.send(("done", decision.to_dict()))
    except BaseException as exc:  # report, never hang the parent
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def solve_isolated(
    spec: SolverSpec, problem: SelectionProblem, budget: Budget, grace_s: float | None = None
) -> Decision:
    """Solve in a child process; kill it at ``deadline + grace`` (a hang becomes ``timeout``).

    The clock starts when the child has imported and warmed up its solver (spawn start-up is not
    the solver's latency); ``grace_s`` defaults to :data:`GRACE_S`.
    """
    grace_s = GRACE_S if grace_s is None else grace_s
    if mp.current_process().daemon:
        # A daemonic process (e.g. a worker of someone else's Dask cluster) may not start
        # children: solve here, unprotected, and say so.
        decision = timed_solve(build_solver(spec), problem, budget)
        note = "not isolated: this worker process is daemonic and may not start children"
        return dataclasses.replace(decision, notes=(*decision.notes, note))
    ctx = mp.get_context("spawn")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(
        target=_isolated_child,
        args=(spec, problem.to_dict(), (budget.deadline_s, budget.seed), send),
        daemon=True,
    )
    proc.start()
    send.close()
    try:
        if not recv.poll(ISOLATION_STARTUP_S):
            return Decision(
                Status.ERROR, notes=("isolated solver did not start in time",), solver=spec.id
            )
        kind, payload = recv.recv()
        if kind != "ready":
            return Decision(Status.ERROR, notes=(str(payload),), solver=spec.id)
        start = time.perf_counter()
        limit = budget.deadline_s + grace_s
        if not recv.poll(limit):
            return Decision(
                Status.TIMEOUT,
                notes=(f"killed at deadline + grace ({limit:g} s)",),
                solver=spec.id,
                latency_s=time.perf_counter() - start,
            )
        kind, payload = recv.recv()
        if kind == "error":
            return Decision(
                Status.ERROR,
                notes=(str(payload),),
                solver=spec.id,
                latency_s=time.perf_counter() - start,
            )
        return decision_from_dict(payload)
    except EOFError:  # the child died (segfault, os._exit)
        proc.join(5)  # exitcode is None until the child has been reaped
        return Decision(
            Status.ERROR,
            notes=(f"isolated solver died ({_exit_reason(proc.exitcode)})",),
            solver=spec.id,
        )
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join(5)
        recv.close()


def execute_decision(payload: dict[str, Any]) -> dict[str, Any]:
    """Run one decision cell; never raises (errors become rows with status ``error``)."""
    t0 = time.perf_counter()
    cell: DecisionCell = payload["cell"]
    problem = SelectionProblem.from_dict(payload["problem"])
    reference = decision_from_dict(payload["reference"]) if payload["reference"] else None
    budget = Budget(deadline_s=cell.budget_s, seed=cell.seed)
    started = _now()
    error = None
    try:
        if payload["isolate"]:
            decision = solve_isolated(cell.solver, problem, budget)
        else:
            decision = timed_solve(_solver(cell.solver), problem, budget)
    except Exception as exc:  # a plug-in that raises: recorded, the run goes on
        error = f"{type(exc).__name__}: {exc}"
        decision = Decision(Status.ERROR, notes=(error,), solver=cell.solver.id)
    if error is None and decision.status in (Status.ERROR, Status.TIMEOUT) and decision.notes:
        error = "; ".join(decision.notes)  # the reason, where reports and the terminal show it
    try:
        metrics = decision_quality(decision, reference, budget_s=cell.budget_s, problem=problem)
    except Exception as exc:  # an answer the metrics cannot read (e.g. malformed selection)
        metrics = {"status": decision.status.value, "feasible": False}
        error = error or f"quality: {type(exc).__name__}: {exc}"
    metrics = {k: v for k, v in metrics.items() if isinstance(v, (int, float)) or v is None}
    doc = decision.to_dict()
    doc["reference_pareto"] = (
        [list(p.objectives) for p in reference.pareto]
        if reference and reference.pareto
        else ([list(reference.objectives)] if reference and reference.objectives else None)
    )
    doc["objective_names"] = list(problem.objective_names)
    latency = decision.latency_s if math.isfinite(decision.latency_s) else None
    row: dict[str, Any] = {
        "cell_id": cell.cell_id,
        "kind": "decision",
        "family": cell.family,
        "instance": cell.instance,
        "instance_hash": problem.fingerprint(),
        "solver": cell.solver.id,
        "solver_name": cell.solver.name,
        "params": dict(cell.solver.params),
        "repetition": cell.repetition,
        "seed": cell.seed,
        "budget_s": cell.budget_s,
        "status": decision.status.value,
        "latency_s": latency,
        "isolated": bool(payload["isolate"]),
        "started_at": started,
        "finished_at": _now(),
        "metrics": metrics,
        "decision": doc,
        "error": error,
    }
    row["metrics"]["worker_overhead_s"] = max(0.0, time.perf_counter() - t0 - (latency or 0.0))
    return row


_WORKLOADS: dict[str, Any] = {}


def execute_simulation(payload: dict[str, Any]) -> dict[str, Any]:
    """Run one simulation cell; never raises."""
    from schedbench.instances.systems import resolve_system
    from schedbench.instances.units import fit_units
    from schedbench.instances.workloads import load_workload
    from schedbench.simcore.engine import SimOptions, simulate
    from schedbench.simcore.metrics import MeasurementWindow, compute_metrics
    from schedbench.simcore.policies import NaivePolicy, WindowPolicy

    cell: SimulationCell = payload["cell"]
    sc = cell.scenario
    started = _now()
    error = None
    metrics: dict[str, Any] = {}
    status = "completed"
    try:
        workload = _WORKLOADS.get(sc.workload)
        if workload is None:
            workload = _WORKLOADS[sc.workload] = load_workload(sc.workload)
        system = resolve_system(sc.system, workload=workload)
        workload, _notes = fit_units(workload, system)
        budget = Budget(deadline_s=cell.budget_s, seed=cell.seed)
        if cell.solver is None:
            policy: Any = NaivePolicy(backfill=sc.backfill)
        else:
            policy = WindowPolicy(
                _solver(cell.solver),
                window=sc.window,
                starvation_bound=sc.starvation_bound,
                budget=budget,
                backfill=sc.backfill,
            )
        t = time.perf_counter()
        result = simulate(
            workload, system, policy, SimOptions(lifecycle=sc.lifecycle, priority=sc.priority)
        )
        wall = time.perf_counter() - t
        metrics = compute_metrics(
            result,
            MeasurementWindow(warmup_s=sc.warmup_s, cooldown_s=sc.cooldown_s),
            budget_s=cell.budget_s,
        )
        metrics = {k: v for k, v in metrics.items() if isinstance(v, (int, float)) or v is None}
        metrics["wall_s"] = wall
        metrics.update({f"count_{k}": v for k, v in result.counters.items() if isinstance(v, int)})
    except Exception as exc:
        status = "error"
        error = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}"
        base = payload.get("base_dir")
        if base:  # never quote a file outside the suite's folder (issue 11)
            from schedbench.bench.suite import redact_outside

            message = f"{type(exc).__name__}: {exc}"
            redacted = redact_outside(message, [sc.workload.split("+")[0]], Path(base))
            if redacted != message:
                error = redacted  # without the traceback, which may quote the file too
    return {
        "cell_id": cell.cell_id,
        "kind": "simulation",
        "family": sc.name,
        "instance": sc.workload,
        "instance_hash": None,
        "solver": cell.policy if cell.solver is None else f"window:{cell.solver.id}",
        "solver_name": cell.solver.name if cell.solver else "naive",
        "params": {
            "system": sc.system,
            "priority": sc.priority,
            "backfill": sc.backfill,
            "lifecycle": sc.lifecycle,
            "window": sc.window,
        },
        "repetition": cell.repetition,
        "seed": cell.seed,
        "budget_s": cell.budget_s,
        "status": status,
        "latency_s": metrics.get("decision_latency_median_s"),
        "isolated": False,
        "started_at": started,
        "finished_at": _now(),
        "metrics": metrics,
        "decision": None,
        "error": error,
    }


def _execute(payload: dict[str, Any]) -> dict[str, Any]:
    fn = execute_decision if payload["kind"] == "decision" else execute_simulation
    return fn(payload)


_SUPERVISED: SupervisedPool | None = None


def _startup_limit(payload: dict[str, Any]) -> float | None:
    """A decision cell must reach its solver call within the start-up allowance (imports,
    warm-up such as numba compilation); a simulation may compute for long between calls."""
    return ISOLATION_STARTUP_S if payload["kind"] == "decision" else None


def _execute_supervised(payload: dict[str, Any]) -> dict[str, Any]:
    """``_execute`` on this process's own supervised child (kept between cells): what a Dask
    worker runs. A daemonic worker (someone else's cluster) may not start children; it runs the
    cell itself, unprotected."""
    global _SUPERVISED
    if mp.current_process().daemon:
        return _execute(payload)
    if _SUPERVISED is None:
        _SUPERVISED = SupervisedPool(_execute, 1, grace_s=GRACE_S, startup_s=_startup_limit)
    out: list[dict[str, Any]] = []
    _SUPERVISED.run(
        [payload],
        lambda _p, row: out.append(row),
        lambda p, failure: out.append(_failed_row(p, failure)),
        keep_workers=True,
    )
    return out[0]


# ---------------------------------------------------------------------- executors
class LocalExecutor:
    """Cells on a supervised pool of spawned worker processes (``bench/supervisor.py``): every
    solver call has a hard deadline (budget + ``GRACE_S``), a worker that hangs, exits, crashes or
    is interrupted is killed and replaced, and its cell is stored with the reason; the run goes
    on. Workers die with the runner."""

    name = "local"

    def __init__(self, workers: int, grace_s: float | None = None):
        self.workers = max(1, workers)
        self.grace_s = GRACE_S if grace_s is None else grace_s

    def run(
        self, payloads: list[dict[str, Any]], on_result: Callable[[dict[str, Any]], None]
    ) -> None:
        pool = SupervisedPool(
            _execute, self.workers, grace_s=self.grace_s, startup_s=_startup_limit
        )
        pool.run(
            payloads,
            lambda _p, row: on_result(row),
            lambda p, failure: on_result(_failed_row(p, failure)),
        )


class DaskExecutor:
    """Cells on Dask distributed: a local cluster of ``workers`` processes, or ``scheduler``."""

    name = "dask"

    def __init__(self, workers: int, scheduler: str | None = None):
        self.workers = max(1, workers)
        self.scheduler = scheduler

    def run(
        self, payloads: list[dict[str, Any]], on_result: Callable[[dict[str, Any]], None]
    ) -> None:
        try:
            from distributed import Client, LocalCluster, as_completed
        except ImportError as exc:  # pragma: no cover - a dependency of the project
            raise RunError(f"--executor dask needs the 'distributed' package: {exc}") from None
        cluster = None
        if self.scheduler:
            client = Client(self.scheduler)
            self.workers = max(1, len(client.scheduler_info().get("workers", {})))
        else:
            import dask

            # Non-daemonic workers may start the isolation children that bound every solver
            # call (see below); Dask's default makes them daemonic.
            with dask.config.set({"distributed.worker.daemon": False}):
                cluster = LocalCluster(
                    n_workers=self.workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                )
            client = Client(cluster)
        try:
            # Each Dask worker runs its cells on a supervised child of its own (kept between
            # cells), so the hard deadline per solver call holds in this mode too.
            futures = [client.submit(_execute_supervised, p, pure=False) for p in payloads]
            by_key = {f.key: p for f, p in zip(futures, payloads, strict=True)}
            for f in as_completed(futures):
                try:
                    on_result(f.result())
                except Exception:  # the worker died mid-cell
                    on_result(_crash_row(by_key[f.key]))
        finally:
            client.close()
            if cluster is not None:
                cluster.close()


def _failed_row(p: dict[str, Any], failure: Failure) -> dict[str, Any]:
    """The stored row of a cell whose worker was lost (killed at its deadline, exited, crashed,
    raised SystemExit/KeyboardInterrupt): status ``timeout`` or ``error``, the reason in
    ``error``."""
    cell = p["cell"]
    is_dec = p["kind"] == "decision"
    solver = (
        cell.solver.id
        if is_dec
        else (cell.policy if cell.solver is None else f"window:{cell.solver.id}")
    )
    return {
        "cell_id": cell.cell_id,
        "kind": p["kind"],
        "family": cell.family if is_dec else cell.scenario.name,
        "instance": cell.instance if is_dec else cell.scenario.workload,
        "instance_hash": None,
        "solver": solver,
        "solver_name": (cell.solver.name if cell.solver else "naive"),
        "params": dict(cell.solver.params) if cell.solver else {},
        "repetition": cell.repetition,
        "seed": cell.seed,
        "budget_s": cell.budget_s,
        "status": "timeout" if failure.kind == "timeout" else "error",
        "latency_s": None,
        "isolated": bool(p.get("isolate")),
        "started_at": None,
        "finished_at": _now(),
        "metrics": {},
        "decision": None,
        "error": f"{failure.kind}: {failure.reason}",
    }


def _crash_row(p: dict[str, Any]) -> dict[str, Any]:
    return _failed_row(
        p, Failure("died", "the worker process crashed on this cell; consider isolate = true")
    )


# ---------------------------------------------------------------------- the run
@dataclass
class RunSummary:
    run_id: int
    cells_total: int
    cells_run: int
    cells_skipped: int
    wall_s: float
    store: Path
    errors: int = 0
    overhead_ms_per_cell: float | None = None


def plan(suite: Suite) -> tuple[list[Instance], list[DecisionCell], list[SimulationCell]]:
    instances = expand_instances(suite)
    return instances, decision_cells(suite, instances), simulation_cells(suite)


def _references(
    suite: Suite, instances: list[Instance], store_path: Path, progress: Callable[[str], None]
) -> dict[tuple[str, str], Decision | None]:
    out: dict[tuple[str, str], Decision | None] = {}
    caches: dict[str, ReferenceCache] = {}
    for inst in instances:
        key = (inst.family, inst.label)
        if inst.reference is not None:
            out[key] = inst.reference
            continue
        ref_name = reference_solver(suite, inst.family)
        if ref_name == "none":
            out[key] = None
            continue
        from schedbench.bench.suite import make_solver_spec

        spec = make_solver_spec(ref_name, {})
        cache = caches.get(spec.id)
        if cache is None:
            cache = caches[spec.id] = ReferenceCache(spec.id, store_path.parent / "references")
        progress(f"reference {spec.id}: {inst.family} {inst.label}")
        budget = Budget(deadline_s=30.0, seed=suite.seed)

        def solve(p: SelectionProblem, s: SolverSpec = spec, b: Budget = budget) -> Decision:
            return timed_solve(_solver(s), p, b)

        ref = cache.get_or_compute(inst.problem, solve)
        out[key] = (
            ref if ref is not None and ref.status in (Status.OPTIMAL, Status.INFEASIBLE) else None
        )
    return out


def run_suite(
    suite: Suite,
    *,
    store_path: Path,
    executor: str = "local",
    workers: int = 1,
    scheduler: str | None = None,
    resume: bool = False,
    force: bool = False,
    isolate: bool = False,
    show_progress: bool = True,
    only_kind: str | None = None,
) -> RunSummary:
    instances, dcells, scells = plan(suite)
    if only_kind == "decision":
        scells = []
    elif only_kind == "simulation":
        dcells = []
    store = ResultStore(store_path)
    store.mark_stale_runs()
    live = store.live_runs(suite.name)
    if live:
        # Refuse before any work: two runs of one suite into one store would compute the same
        # cells twice and the second would fail on the first's rows (issue 11).
        store.close()
        run_id, pid, started = live[0]
        raise RunError(
            f"{store_path}: suite {suite.name!r} is being run into this store by process {pid} "
            f"(run {run_id}, started {started}); wait for it to finish, or use another --store"
        )
    done = store.finished(suite.name)
    all_ids = [c.cell_id for c in dcells] + [c.cell_id for c in scells]
    stored = [c for c in all_ids if c in done]
    if stored and not (resume or force):
        store.close()
        raise RunError(
            f"{store_path}: {len(stored)} of {len(all_ids)} cells of suite {suite.name!r} are "
            "already stored; use --resume to run only the missing ones or --force to run again"
        )
    if resume:
        dcells = [c for c in dcells if c.cell_id not in done]
        scells = [c for c in scells if c.cell_id not in done]
    by_key = {(i.family, i.label): i for i in instances}
    bar = _bar(len(dcells) + len(scells), show_progress, suite.name)
    t0 = time.perf_counter()
    refs = _references(
        suite,
        [by_key[k] for k in {(c.family, c.instance) for c in dcells}],
        store_path,
        lambda msg: bar.set_postfix_str(msg[:40]) if bar else None,
    )
    if bar:
        bar.set_postfix_str("")
    payloads: list[dict[str, Any]] = []
    for c in dcells:
        inst = by_key[(c.family, c.instance)]
        ref = refs.get((c.family, c.instance))
        payloads.append(
            {
                "kind": "decision",
                "cell": c,
                "problem": inst.problem.to_dict(),
                "reference": ref.to_dict() if ref is not None else None,
                "isolate": isolate or c.solver.isolate,
            }
        )
    payloads += [
        {"kind": "simulation", "cell": c, "isolate": False, "base_dir": str(suite.base_dir)}
        for c in scells
    ]
    ex: LocalExecutor | DaskExecutor
    if executor == "local":
        ex = LocalExecutor(workers)
    elif executor == "dask":
        ex = DaskExecutor(workers, scheduler)
    else:
        raise RunError(f"--executor: expected local or dask, got {executor!r}")
    config = {
        **suite.config(),
        "executor": executor,
        "workers": workers,
        "scheduler": scheduler,
        "resume": resume,
        "isolate": isolate,
    }
    try:
        run_id = store.begin_run(suite.name, config, exclusive=True)
    except ConcurrentRunError as exc:
        store.close()
        raise RunError(str(exc)) from exc
    errors = 0
    overheads: list[float] = []

    def on_result(row: dict[str, Any]) -> None:
        nonlocal errors
        t = time.perf_counter()
        row.update(
            suite=suite.name,
            run_id=run_id,
            executor=ex.name,
            concurrency=ex.workers if len(payloads) > 1 else 1,
        )
        if row["status"] == "error":
            errors += 1
        store.add(row, replace=force)
        ov = row["metrics"].get("worker_overhead_s")
        if ov is not None:
            overheads.append(ov + time.perf_counter() - t)
        if bar:
            bar.update(1)

    status = "interrupted"
    try:
        if payloads:
            ex.run(payloads, on_result)
        status = "finished"
    finally:
        if bar:
            bar.close()
        with contextlib.suppress(StoreError):  # the store itself failed: nothing to mark
            store.finish_run(run_id, status=status)
        store.close()
    wall = time.perf_counter() - t0
    return RunSummary(
        run_id,
        len(all_ids),
        len(payloads),
        len(all_ids) - len(payloads),
        wall,
        store_path,
        errors,
        1000 * sorted(overheads)[len(overheads) // 2] if overheads else None,
    )


def _bar(total: int, show: bool, name: str) -> Any:
    if not show or total == 0:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="cell", desc=name, file=sys.stderr, mininterval=0.5)


def describe_plan(suite: Suite) -> str:
    """The expanded matrix, for ``schedbench run --plan``."""
    from tabulate import tabulate

    instances, dcells, scells = plan(suite)
    lines = [
        f"suite {suite.name!r} ({suite.source}): budget {suite.budget_s:g} s, "
        f"{suite.repetitions} repetition(s), seed {suite.seed}"
    ]
    fam_rows = []
    for spec in suite.instance_specs:
        n = sum(1 for i in instances if i.family == spec["family"])
        solvers = sorted({c.solver.id for c in dcells if c.family == spec["family"]})
        fam_rows.append([spec["family"], spec["source"], n, spec["reference"], ", ".join(solvers)])
    if fam_rows:
        lines.append(
            tabulate(fam_rows, headers=["family", "source", "instances", "reference", "solvers"])
        )
    sim_rows = [
        [sc.name, sc.workload, sc.system, f"{sc.priority}+{sc.backfill}", ", ".join(pols)]
        for sc, pols in suite.scenarios
    ]
    if sim_rows:
        lines.append(
            tabulate(sim_rows, headers=["scenario", "workload", "system", "order", "policies"])
        )
    lines.append(
        f"{len(dcells)} decision cells, {len(scells)} simulation cells, "
        f"{len(dcells) + len(scells)} in all"
    )
    return "\n\n".join(lines)
