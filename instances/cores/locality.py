"""The ``locality`` core: the data-locality simulator of ``simcore/locality/`` behind the core
protocol (it wraps ``simulate_locality``; the engine's internals are its own).

Nodes of cores with a cache of input files; jobs sharing files; the ten schedulers of the paper
(FCFS, EFT, LEA, LEO, LEM, each with a ``-bf`` backfilling variant), registered under the
entry-point group ``schedbench.locality_schedulers``. Every scheduler decides each job's node as
a ``placement`` problem: with a solver of that kind (``lea:placement-locality``, a plug-in) it
applies the solver's vetted answer, without one its own rule.

Spec keys: ``workload`` — a locality workload file (the authors' 24-token format), an SWF
trace to convert (``.swf``, ``.swf.gz``), a dataset (``locality-day``, ``kth-sp2``), or a
generator ``locality:jobs=N,nodes=M,days=D,users=U,seed=S`` (``instances/locality_io.py``:
``generate_locality``; also ``load``, ``mean_session``); ``system`` — ``locality`` (486 × 20
cores) or ``locality:NODES`` (default: ``locality``; the generator's node count; for an SWF
trace, enough nodes for its largest job); ``mode`` (``reference``, the authors' simulator, or
``paper``), ``gate_s`` (the scheduling gate, overriding the mode's), and for SWF traces
``evaluated_days`` and ``evaluated_start``.

``jobs.csv`` holds every job (never-started ones with empty times), ``nodes`` its cores and
``placement`` the cores of the node it ran on (node × cores per node + the lowest free cores
there), then ``node``, ``category`` (1 = evaluated), ``transfer_s``, ``load_wait_s`` and
``stretch`` (evaluated jobs). The metrics are the model note's §8, over the evaluated jobs.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from schedbench.instances import datasets
from schedbench.instances.cores._keys import (
    choice,
    generator_keys,
    integer,
    local_file,
    optional_integer,
)
from schedbench.instances.locality_io import (
    LocalityWorkloadError,
    generate_locality,
    read_locality,
    swf_file_to_locality,
)
from schedbench.instances.systems import locality_platform
from schedbench.simcore.core import (
    CoreRun,
    CoreSpec,
    JobFormat,
    JobTable,
    Key,
    PolicyInfo,
    RunHooks,
    SimulationCore,
    SpecError,
    blocks_within_groups,
    units_in_use,
)
from schedbench.simcore.errors import SchedbenchError
from schedbench.simcore.locality import LocalityOptions, LocalityPlatform, LocalityWorkload
from schedbench.simcore.locality.metrics import (
    LOCALITY_METRICS,
    locality_metrics,
    stretch_denominator,
)
from schedbench.simcore.locality.registry import LOCALITY_SCHEDULERS, make_locality_scheduler
from schedbench.simcore.locality.run import simulate_locality
from schedbench.simcore.plugins import Alias

#: ``locality:...`` generator keys and their types.
GENERATOR_KEYS: dict[str, type] = {
    "jobs": int,
    "nodes": int,
    "days": int,
    "users": int,
    "seed": int,
    "load": float,
    "mean_session": float,
}


@dataclass(frozen=True, slots=True)
class Loaded:
    workload: LocalityWorkload
    platform: LocalityPlatform
    note: str = ""


def _reproduction_jobs(path: Path, rows: list[dict[str, str]], doc: dict[str, Any]) -> JobTable:
    """``reproduce locality``'s ``<scheduler>/jobs.csv``: each job on the cores of the node it
    ran on. The file does not say how many cores a node has: the most any node ran at once
    stands for it, and a job takes the lowest free cores of its node."""

    def numbers(key: str) -> np.ndarray:
        try:
            return np.array([float(r[key]) if r.get(key) else math.nan for r in rows])
        except ValueError as exc:
            raise SpecError(f"{path}: column {key}", "numbers", str(exc)) from exc

    cols = {
        "submit": numbers("submit_s"),
        "start": numbers("start_s"),
        "end": numbers("end_s"),
        "nodes": numbers("cores"),
    }
    node = numbers("node")
    if not rows:
        return JobTable(cols, unit="core", placement="each job on its node")
    if not np.isfinite(node).all() or (node < 0).any():
        raise SpecError(f"{path}: column node", "a node index >= 0 on every row")
    per_node = 1
    for n in np.unique(node):
        mine = node == n
        _t, used = units_in_use(cols["start"][mine], cols["end"][mine], cols["nodes"][mine])
        per_node = max(per_node, int(used[:, 0].max(initial=0)))
    blocks = blocks_within_groups(cols["start"], cols["end"], cols["nodes"], node, per_node)
    nodes = int(node.max()) + 1
    return JobTable(
        cols,
        unit="core",
        total=nodes * per_node,
        blocks=blocks,
        placement=f"{nodes} nodes x {per_node} cores, each job on its node",
    )


class LocalityCore(SimulationCore):
    name = "locality"
    summary = (
        "data-locality-aware scheduling (simcore/locality/): nodes of cores with a file cache, "
        "the paper's ten schedulers; each job's node is a placement problem"
    )
    kind = "placement"
    unit = "core"
    metrics = LOCALITY_METRICS
    keys = (
        Key(
            "mode",
            "reference",
            "reference (the authors' simulator) or paper",
            choice("mode", ("reference", "paper")),
        ),
        Key(
            "gate_s",
            None,
            "scheduling gate in seconds (default: the mode's)",
            optional_integer("gate_s", 0, "an integer >= 0"),
        ),
        Key(
            "evaluated_days",
            7,
            "SWF traces: evaluated days",
            integer("evaluated_days", 1, "an integer >= 1"),
        ),
        Key(
            "evaluated_start",
            None,
            "SWF traces: evaluated window start, seconds after the first submission",
            optional_integer("evaluated_start", 0, "an integer >= 0"),
        ),
    )
    record_keys = ("mode", "gate_s")
    baseline = "fcfs"
    leaderboard = (
        "transfer_wait_s",
        "mean_stretch",
        "mean_bounded_stretch",
        "core_time_s",
        "queue_time_mean_s",
    )
    compact = ("transfer_wait_s", "mean_stretch", "queue_time_mean_s")
    kiviat = (
        ("transfer+wait", "transfer_wait_s", True),
        ("mean stretch", "mean_stretch", True),
        ("core time", "core_time_s", True),
        ("queue time", "queue_time_mean_s", True),
    )
    headline = (
        "evaluated_jobs",
        "transfer_wait_s",
        "transfer_s",
        "load_wait_s",
        "mean_stretch",
        "mean_bounded_stretch",
        "core_time_s",
        "queue_time_mean_s",
        "decisions",
        "decision_latency_total_s",
    )
    job_formats = (
        JobFormat(
            "jobs.csv",
            "reproduce locality",
            ("submit_s", "start_s", "end_s", "node", "cores"),
            _reproduction_jobs,
        ),
    )

    # -- policies ------------------------------------------------------------------------------
    def policies(self) -> list[str]:
        return LOCALITY_SCHEDULERS.names()

    def policy(self, name: str) -> PolicyInfo:
        obj = LOCALITY_SCHEDULERS.get(name)
        if isinstance(obj, Alias):
            doc = obj.summary
        else:
            doc = " ".join((getattr(obj, "__doc__", "") or "").strip().split("\n\n")[0].split())
        return PolicyInfo(name, doc, (), "optional")

    # -- spec ----------------------------------------------------------------------------------
    def check_spec(self, spec: CoreSpec, base_dir: Path | None) -> CoreSpec:
        workload = spec.workload
        if workload.startswith("locality:"):
            generator_keys(workload, GENERATOR_KEYS)
        else:
            workload = local_file(workload, base_dir, (".swf", ".gz", ".txt", ".locality"))
            path = datasets.resolve_file(workload)
            if not path.is_file():
                raise SpecError(
                    "workload",
                    "a locality workload file, an SWF trace, a dataset or locality:jobs=N,...",
                    workload,
                )
        if spec.system:
            try:
                locality_platform(spec.system)
            except SchedbenchError as exc:
                raise SpecError("system", "locality or locality:NODES", str(exc)) from exc
        return CoreSpec(spec.core, workload, spec.system, spec.options)

    def describe(self, spec: CoreSpec) -> str:
        gate = spec.get("gate_s")
        return f"locality {spec.get('mode')}" + (f", gate {gate} s" if gate is not None else "")

    # -- running -------------------------------------------------------------------------------
    def load(self, spec: CoreSpec) -> Loaded:
        loaded = self._load(spec)
        if loaded.workload.evaluated.size == 0:
            # The metrics are over the evaluated jobs: say so at load, naming the workload.
            raise LocalityWorkloadError(
                f"workload {spec.workload!r}: no evaluated (category 1: 'workload: 1') job, so "
                "there is nothing to measure"
            )
        return loaded

    def _load(self, spec: CoreSpec) -> Loaded:
        if spec.workload.startswith("locality:"):
            keys = generator_keys(spec.workload, GENERATOR_KEYS)
            w = generate_locality(**keys)
            return Loaded(w, locality_platform(spec.system or f"locality:{keys.get('nodes', 20)}"))
        path = datasets.resolve_file(spec.workload)
        if path.name.endswith((".swf", ".swf.gz")):
            kw: dict[str, Any] = {"evaluated_days": spec.get("evaluated_days")}
            if spec.get("evaluated_start") is not None:
                from schedbench.instances.swf import read_swf

                first = float(np.min(read_swf(path).submit))
                kw["evaluated_start"] = int(first) + spec.get("evaluated_start")
            w, report = swf_file_to_locality(path, **kw)
            note = f"converted from SWF ({report.to_dict()['counts']})"
            return Loaded(
                w, locality_platform(spec.system or f"locality:{report.nodes_suggested}"), note
            )
        return Loaded(read_locality(path), locality_platform(spec.system or "locality"))

    def run(self, spec: CoreSpec, loaded: Loaded, policy: str, hooks: RunHooks) -> CoreRun:
        gate = spec.get("gate_s")
        options = LocalityOptions.for_mode(
            spec.get("mode"), **({"gate_s": gate} if gate is not None else {})
        )
        scheduler = make_locality_scheduler(
            policy, solver=hooks.solver, record_problems=hooks.record is not None
        )
        t0 = time.perf_counter()
        result = simulate_locality(
            loaded.workload,
            scheduler,
            loaded.platform,
            options,
            solver=hooks.solver,
            budget_s=hooks.budget.deadline_s,
            recorder=hooks.record,
            progress=hooks.progress,
        )
        wall = time.perf_counter() - t0
        metrics: dict[str, Any] = {**locality_metrics(result), "decisions": result.decisions}
        metrics["decision_latency_total_s"] = float(result.decision_latency_s)
        label = scheduler.describe()
        run = CoreRun(
            self.name,
            label,
            result,
            job_table(result),
            metrics,
            counters=dict(result.counters),
            config={
                "workload": loaded.workload.source,
                "system": loaded.platform.name,
                "mode": options.mode,
                "gate_s": options.gate_s,
                "wall_s": round(wall, 3),
                "machine": {"name": loaded.platform.name, "cores": loaded.platform.total_cores},
            },
            wall_s=wall,
            notes=[loaded.note] if loaded.note else [],
        )
        w, p = loaded.workload, loaded.platform
        run.summary.append(
            f"{w.source}: {len(w)} jobs ({w.evaluated.size} evaluated) on {p.name} ({p.nodes} "
            f"nodes x {p.cores_per_node} cores) with {label}, mode {options.mode}, gate "
            f"{options.gate_s} s; simulated in {wall:.2f} s"
        )
        return run


def job_table(result: Any) -> JobTable:
    """Every job of a locality run in the common schema (module docstring)."""
    w = result.workload
    ran = result.start >= 0
    start = np.where(ran, result.start, np.nan).astype(np.float64)
    end = np.where(ran, result.end, np.nan).astype(np.float64)
    stretch = np.full(len(w), np.nan)
    ev = w.evaluated[ran[w.evaluated]] if w.evaluated.size else w.evaluated
    if ev.size:
        stretch[ev] = (result.end[ev] - w.submit[ev]) / stretch_denominator(result, ev)
    cpn = result.platform.cores_per_node
    cols = {
        "id": w.job_id,
        "submit": w.submit.astype(np.float64),
        "start": start,
        "end": end,
        "nodes": w.cores,
        "status": np.where(ran, "completed", "unfinished").astype(object),
        "user": w.user_id if len(w.user_id) == len(w) else np.full(len(w), -1),
        "node": result.node,
        "category": w.category,
        "transfer_s": result.transfer,
        "load_wait_s": result.load_wait,
        "stretch": stretch,
    }
    blocks = blocks_within_groups(start, end, w.cores.astype(np.float64), result.node, cpn)
    return JobTable(
        cols,
        unit="core",
        total=result.platform.total_cores,
        blocks=blocks,
        placement=f"{result.platform.nodes} nodes x {cpn} cores, each job on its node",
    )
