"""Run a suite's cells on an executor and store every finished cell at once.

Flow (:func:`run_suite`):

1. expand the suite (``bench/suite/``) into decision and simulation cells, keyed by content;
   with ``--resume`` drop the cells the store already holds (refuse to run over stored cells
   without ``--resume`` or ``--force``, so no work is wasted by accident);
2. exact references for the decision problems (``run/references.py``): from the instance
   source when it publishes them, else computed **once** by the reference solver in this
   process and cached by instance fingerprint next to the store; a reference that is not exact
   is not used (metrics "missing");
3. cells go to the executor (``run/executors.py``) — ``local`` (a supervised pool of spawned
   workers) or ``dask``; workers build each solver once per process (warm-up untimed) and
   return :class:`~schedbench.bench.store.records.CellRecord` objects;
4. the main process commits each finished cell to the SQLite store as it arrives (one
   transaction per cell), so Ctrl-C, ``kill -9`` or a crashing solver loses no finished cell.

Isolation (``--isolate`` or ``isolate = true`` per solver): the solve runs in a child process
that is killed at deadline + grace (``run/isolate.py``); a hang is recorded as ``timeout``.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from schedbench.bench.progress import progress
from schedbench.bench.run.executors import RunError, make_executor
from schedbench.bench.run.isolate import contained_solver
from schedbench.bench.run.ordering import longest_first
from schedbench.bench.run.references import ReferenceCache
from schedbench.bench.run.supervisor import MEMORY_ENV
from schedbench.bench.run.supervisor import memory_limit as parse_memory_limit
from schedbench.bench.store import ConcurrentRunError, ResultStore, StoreError
from schedbench.bench.store.records import CellRecord
from schedbench.bench.suite.plan import (
    DecisionCell,
    Instance,
    SimulationCell,
    plan,
    reference_solver,
)
from schedbench.bench.suite.schema import Suite
from schedbench.simcore.core import core_ref, get_core
from schedbench.simcore.kinds.base import kind_ref
from schedbench.simcore.metrics import solver_pass_warning
from schedbench.simcore.problem import MAX_DEADLINE_S, Budget, Status
from schedbench.simcore.solver import timed_solve
from schedbench.solvers.registry import warm_solver

__all__ = ["RunError", "RunSummary", "describe_plan", "plan", "run_suite"]


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
    #: One line per simulation cell whose window policy mostly skipped its solver (the same
    #: warning as ``simulate``: such a run measures the starvation rule, not the solver).
    warnings: tuple[str, ...] = ()


def _references(
    suite: Suite,
    instances: list[Instance],
    store_path: Path,
    progress: Callable[[str], None],
    isolate: bool | None = None,
    warnings: list[str] | None = None,
) -> dict[tuple[str, str], Any]:
    """(family, fingerprint) -> the exact reference, or None where there is none; a reference
    solve that timed out or failed adds its reason to ``warnings``.

    Each reference solver is asked as every command asks a solver
    (``isolate.contained_solver``): with a deadline of :data:`MAX_DEADLINE_S` + grace, an
    untrusted one (or any, with ``isolate``) in one isolated child for all its references,
    killed there with what it started and capped in memory; a reference it did not give in time
    is none (and not cached)."""
    out: dict[tuple[str, str], Any] = {}
    warnings = warnings if warnings is not None else []
    caches: dict[str, ReferenceCache] = {}
    contained: dict[str, Any] = {}
    budget = Budget(deadline_s=MAX_DEADLINE_S, seed=suite.seed)
    try:
        for inst in instances:
            key = (inst.family, inst.fingerprint)
            if inst.reference is not None:
                out[key] = inst.reference
                continue
            ref_name = reference_solver(suite, inst.family)
            if ref_name == "none":
                out[key] = None
                continue
            solver = contained.get(ref_name)
            if solver is None:
                solver = contained[ref_name] = contained_solver(
                    ref_name, built=warm_solver(ref_name), isolate=isolate or None
                )
            if not solver.supports(inst.problem)[0]:
                out[key] = None  # the reference solver does not answer this kind: no reference
                continue
            cache = caches.get(solver.id)
            if cache is None:
                cache = caches[solver.id] = ReferenceCache(
                    solver.id, store_path.parent / "references"
                )
            progress(f"reference {solver.id}: {inst.family} {inst.label}")
            ref = cache.get_or_compute(inst.problem, partial(timed_solve, solver, budget=budget))
            out[key] = ref if inst.kind.is_exact(ref) else None
            if ref.status in (Status.TIMEOUT, Status.ERROR):
                why = "; ".join(ref.notes) or "no reason given"
                warnings.append(
                    f"{inst.family} {inst.label}: no reference, {solver.id} answered "
                    f"{ref.status.value} ({why})"
                )
    finally:
        for solver in contained.values():
            solver.close()
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
    memory_limit: str | None = None,
    show_progress: bool = True,
    only_kind: str | None = None,
    order: str = "longest-first",
) -> RunSummary:
    if order not in ("longest-first", "plan"):
        raise RunError(f"order: expected 'longest-first' or 'plan', got {order!r}")
    if memory_limit is not None:
        # Checked, then handed to every process of the run (workers, isolation children, Dask
        # workers) through the environment they inherit.
        parse_memory_limit(memory_limit)
        os.environ[MEMORY_ENV] = memory_limit
    instances, dcells, scells = plan(suite)
    if only_kind == "decision":
        scells = []
    elif only_kind == "simulation":
        dcells = []
    ex = make_executor(executor, workers, scheduler)
    store = ResultStore(store_path)
    store.mark_stale_runs()
    live = store.live_runs(suite.name)
    if live:
        # Refuse before any work: two runs of one suite into one store would compute the same
        # cells twice and the second would fail on the first's rows.
        store.close()
        run_id, pid, started = live[0]
        raise RunError(
            f"{store_path}: suite {suite.name!r} is being run into this store by process {pid} "
            f"(run {run_id}, started {started}); wait for it to finish, or use another --store"
        )
    done = store.finished(suite.name)
    # A store of schema version 1 keyed cells by labels: its cells count as stored too,
    # and --force replaces them (the old row goes, the new one is written under the new id).
    cells: list[DecisionCell | SimulationCell] = [*dcells, *scells]
    legacy = {c.cell_id: c.legacy_id for c in cells if c.legacy_id in done}
    done |= set(legacy)
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
    by_key = {(i.family, i.fingerprint): i for i in instances}
    bar = progress(len(dcells) + len(scells), suite.name, "cell", disable=not show_progress)
    t0 = time.perf_counter()
    warnings: list[str] = []
    refs = _references(
        suite,
        [by_key[k] for k in dict.fromkeys((c.family, c.instance_hash) for c in dcells)],
        store_path,
        bar.note,
        isolate,
        warnings,
    )
    bar.note("")
    payloads = _payloads(suite, dcells, scells, by_key, refs, isolate, store_path)
    # Longest-expected cells first, from the latencies already in the store (run/ordering.py).
    if order == "longest-first":
        payloads = longest_first(payloads, store.records())
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
    if force and legacy:
        store.delete_cells(suite.name, list(legacy.values()))
    errors = 0
    overheads: list[float] = []

    def on_result(record: CellRecord) -> None:
        nonlocal errors
        t = time.perf_counter()
        record = record.replace(
            suite=suite.name,
            run_id=run_id,
            executor=ex.name,
            concurrency=ex.workers if len(payloads) > 1 else 1,
        )
        if record.status == "error":
            errors += 1
        if record.kind == "simulation":
            warning = solver_pass_warning(record.metrics)
            if warning:
                warnings.append(f"{record.family} {record.solver}: {warning}")
        store.add(record.to_row(), replace=force)
        ov = record.metrics.get("worker_overhead_s")
        if ov is not None:
            overheads.append(ov + time.perf_counter() - t)
        bar.update(1)

    status = "interrupted"
    try:
        if payloads:
            ex.run(payloads, on_result)
        status = "finished"
    finally:
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
        tuple(warnings),
    )


def _payloads(
    suite: Suite,
    dcells: list[DecisionCell],
    scells: list[SimulationCell],
    by_key: dict[tuple[str, str], Instance],
    refs: dict[tuple[str, str], Any],
    isolate: bool,
    store_path: Path,
) -> list[dict[str, Any]]:
    """What a worker needs of each cell: a decision cell's problem as JSON with its kind's
    import path and the exact reference; a simulation cell's core import path and folders."""
    payloads: list[dict[str, Any]] = []
    for c in dcells:
        inst = by_key[(c.family, c.instance_hash)]
        ref = refs.get((c.family, c.instance_hash))
        kind = inst.kind
        payloads.append(
            {
                "kind": "decision",
                "cell": c,
                "kind_ref": kind_ref(kind),
                "problem": kind.problem_to_dict(inst.problem),
                "reference": kind.decision_to_dict(ref) if ref is not None else None,
                "isolate": isolate or c.solver.isolate,
            }
        )
    runs_dir = runs_folder(store_path, suite.name)
    payloads += [
        {
            "kind": "simulation",
            "cell": c,
            "core_ref": core_ref(get_core(c.scenario.core)),
            "isolate": False,
            "base_dir": str(suite.base_dir),
            "runs_dir": str(runs_dir),
        }
        for c in scells
    ]
    return payloads


def runs_folder(store_path: Path, suite: str) -> Path:
    """Where a suite's simulation cells write their schedules (jobs.csv, usage.csv,
    metrics.json per cell id), next to the store: ``<store folder>/<suite>-runs/``."""
    return store_path.parent / f"{suite}-runs"


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
        fam = [i for i in instances if i.family == spec["family"]]
        kinds = sorted({i.kind.name for i in fam})
        solvers = sorted({c.solver.id for c in dcells if c.family == spec["family"]})
        fam_rows.append(
            [
                spec["family"],
                spec["source"],
                ", ".join(kinds),
                len(fam),
                spec["reference"],
                ", ".join(solvers),
            ]
        )
    if fam_rows:
        lines.append(
            tabulate(
                fam_rows, headers=["family", "source", "kind", "instances", "reference", "solvers"]
            )
        )
    sim_rows = [
        [
            sc.name,
            sc.core,
            sc.workload,
            sc.system,
            get_core(sc.core).describe(sc.spec),
            ", ".join(pols),
        ]
        for sc, pols in suite.scenarios
    ]
    if sim_rows:
        lines.append(
            tabulate(
                sim_rows,
                headers=["scenario", "core", "workload", "system", "settings", "policies"],
            )
        )
    lines.append(
        f"{len(dcells)} decision cells, {len(scells)} simulation cells, "
        f"{len(dcells) + len(scells)} in all"
    )
    return "\n\n".join(lines)
