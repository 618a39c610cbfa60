"""The ``cerberus`` core: the Cerberus/BBSim loop of ``simcore/cerberus/`` behind the core
protocol, and the runs ``schedbench reproduce cerberus`` makes of it.

Three queues (stage-in, run, stage-out) served with a knapsack each, or the one-phase baselines;
its policies are the entry-point group ``schedbench.cerberus`` (``cerberus-fcfs``,
``cerberus-maxt``, ``cerberus-maxp``, ``cerberus-1d``, ``one-phase-bb``, ``one-phase-io``); a
knapsack policy decides with any solver of the ``selection`` kind (``cerberus-maxt:dp``), or
with its mode's default solver.

Spec keys: ``workload`` (a Cerberus workload: a ``.csv`` file, a Cerberus dataset such as
``cerberus/maxt_cerberus``, or ``cerberus:jobs=N,seed=S``), ``system`` (default ``cerberus``),
``window`` (the knapsack window, default 10; 0 = the whole queue) and ``policy_options``: ``mode``
(``faithful`` or ``corrected``, default corrected) and any switch of
``simcore/cerberus/config.py`` by name (``stage_in_knapsack``, ``one_size_in``, ``units``,
``start_order``, ``bb_accounting``, ``reject_unfit``, ``external_bandwidth``, ``run_value``,
``core_unit``, ``min_cores``), ``in_solver`` / ``run_solver`` / ``out_solver`` (a solver id for
that queue alone), and ``on_fault`` (``fcfs``, default, or ``skip``: what a knapsack queue does in
a pass whose solver gave no selection, ``simcore/cerberus/policy.py``). The solver answers every
knapsack queue the per-queue options do not name; without one, the mode's default
(``cerberus-dp`` faithful, ``dp`` corrected). Suites written before cores were plug-ins say
``lifecycle = "cerberus"``; the key is still taken (with that value only).

Outputs of a run (:meth:`CerberusCore.write`): ``jobs.csv`` in the common schema (a core counts
as a node; the run is ``run_start`` to ``exec_end``, one-phase: to ``complete``; the three-phase
stage-in and drain are ``first_alloc`` and ``last_release``; the burst buffer is the job's peak
``max_tb`` in GB) followed by the simulator's own columns (:data:`JOB_COLUMNS` less the id and
submission), ``usage.csv``, ``metrics.json`` and ``knapsack_calls.csv``. The reproduction writes
its own per-job format (:func:`write_outputs`), which pictures read too (``job_formats``).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from schedbench.instances.cerberus import (
    absolute_spec,
    check_cerberus_spec,
    is_cerberus_spec,
    load_cerberus_workload,
)
from schedbench.instances.cores._keys import MAX_WINDOW, choice, integer
from schedbench.instances.systems import resolve_system
from schedbench.simcore.catalogue import catalogue
from schedbench.simcore.cerberus.config import SWITCHES, CerberusConfig, config_for
from schedbench.simcore.cerberus.metrics import CERBERUS_METRICS, compute_cerberus_metrics
from schedbench.simcore.cerberus.policy import (
    CERBERUS_POLICIES,
    CerberusPolicy,
    make_variant,
    takes_solver,
    variant_class,
    variant_options,
)
from schedbench.simcore.cerberus.sim import TIME_COLUMNS, CerberusResult, CerberusSimulation
from schedbench.simcore.cerberus.workload import CerberusWorkload
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
    json_default,
    write_jobs_csv,
    write_metrics_json,
)
from schedbench.simcore.errors import ConfigError, PolicyOptionError, SchedbenchError
from schedbench.simcore.problem import Budget
from schedbench.simcore.safeio import (
    atomic_write_text,
    check_output_target,
    ensure_dir,
    open_output,
)
from schedbench.simcore.system import System

SolverById = Callable[[str], Any]

#: Per-queue solver options: a solver id (``cpsat``, ``dp[unit_bb=10]``) for that queue only.
SOLVER_OPTIONS: tuple[str, ...] = ("in_solver", "run_solver", "out_solver")

#: What a knapsack queue does in a pass whose solver gave no selection (``on_fault``).
ON_FAULT: tuple[str, ...] = ("fcfs", "skip")

#: Options a Cerberus run accepts besides the window.
OPTIONS: tuple[str, ...] = (
    "mode",
    *(s for s in SWITCHES if s not in ("window", "solver")),
    *SOLVER_OPTIONS,
    "on_fault",
)


def cerberus_config(options: Mapping[str, Any], window: int | None = None) -> CerberusConfig:
    """The config of ``options`` (``mode`` + switches; module docstring); ``window`` 0 or None
    leaves the mode's window unless 0, which means the whole queue."""
    opts = dict(options)
    unknown = sorted(set(opts) - set(OPTIONS))
    if unknown:
        raise ConfigError(
            f"cerberus option {unknown[0]!r}: unknown; the options are {', '.join(OPTIONS)}"
        )
    mode = opts.pop("mode", "corrected")
    for key in SOLVER_OPTIONS:
        opts.pop(key, None)
    on_fault(opts.pop("on_fault", None))  # checked here; a policy option, not a switch
    if window is not None:
        opts["window"] = None if window == 0 else window
    return config_for(mode, **opts)


def on_fault(value: Any) -> str | None:
    """The ``on_fault`` option checked (None: not given, the policy's default)."""
    if value is not None and value not in ON_FAULT:
        raise ConfigError(
            f"cerberus option 'on_fault': expected one of {', '.join(ON_FAULT)}, got {value!r}"
        )
    return value


def queue_solvers(options: Mapping[str, Any], solvers: SolverById) -> dict[str, Any]:
    """The per-queue solvers ``options`` name (``run_solver = "cpsat"``), built and warmed up
    by ``solvers`` (a solver id -> the solver; the registry's, which raises naming an unknown
    solver or parameter)."""
    return {key: solvers(str(options[key])) for key in SOLVER_OPTIONS if key in options}


def build_policy(
    name: str,
    solver: Any,
    config: CerberusConfig,
    budget: Budget,
    per_queue: Mapping[str, Any] | None = None,
    fault: str | None = None,
    solvers: SolverById | None = None,
) -> CerberusPolicy:
    """The policy ``name``; a policy that decides with a solver gets ``solver`` (or the mode's
    default solver, ``config.solver``, built by ``solvers``), the ``per_queue`` solvers
    (``run_solver``, ...) for the queues they name, and ``fault`` as its ``on_fault`` when
    given."""
    if takes_solver(name):
        if solver is None:
            if solvers is None:
                raise ConfigError(
                    f"cerberus policy {name!r}: no solver given and none to build the mode's "
                    f"default ({config.solver}) with"
                )
            solver = solvers(config.solver)
        extra: dict[str, Any] = dict(per_queue or {})
        if fault is not None:
            extra["on_fault"] = on_fault(fault)
        return make_variant(name, solver=solver, budget=budget, **extra)
    if solver is not None or per_queue or fault is not None:
        raise PolicyOptionError(f"cerberus policy {name!r} takes no solver (it is FCFS)")
    return make_variant(name)


def run_cerberus(
    workload: CerberusWorkload,
    system: System,
    policy: str,
    *,
    solver: Any = None,
    config: CerberusConfig,
    budget: Budget | None = None,
    record: Callable[[Any, dict[str, Any]], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
    per_queue: Mapping[str, Any] | None = None,
    fault: str | None = None,
    solvers: SolverById | None = None,
) -> CerberusResult:
    """One run of ``policy`` on ``workload``; a given solver is recorded in the config
    (``config.solver`` = its id) so that the run's description says what decided; ``solvers``
    builds the mode's default solver when none is given."""
    if solver is not None and takes_solver(policy):
        config = dataclasses.replace(config, solver=str(getattr(solver, "id", solver)))
    pol = build_policy(policy, solver, config, budget or Budget(), per_queue, fault, solvers)
    return CerberusSimulation(workload, system, pol, config, record=record, progress=progress).run()


# ------------------------------------------------------------------------------- outputs
JOB_COLUMNS: tuple[str, ...] = (
    "job_id",
    "submit_s",
    "cores",
    "stage_in_start_s",
    "stage_in_end_s",
    "run_start_s",
    "fetch_end_s",
    "exec_end_s",
    "stage_out_start_s",
    "drain_end_s",
    "complete_s",
    "wait_in_s",
    "wait_run_s",
    "wait_out_s",
    "run_s",
    "stage_out_s",
    "wait_s",
    "response_s",
    "state",
)


def _cell(v: float) -> str:
    return "" if not math.isfinite(v) else repr(float(v))


def job_rows(result: CerberusResult) -> list[list[Any]]:
    """One row per job (``JOB_COLUMNS``): times exactly as simulated (``repr`` of the float),
    empty where a phase never happened; ``run_s`` includes the fetch, ``stage_out_s`` the drain
    and the write (model note §6)."""
    t = result.times
    waits = result.waits()
    run_s = t["exec_end"] - t["run_start"]
    out_s = t["complete"] - t["out_start"]
    response = result.response()
    states = ("done", "rejected", "stuck")
    rows: list[list[Any]] = []
    for i in range(len(result.workload)):
        rows.append(
            [
                int(result.workload.job_id[i]),
                _cell(result.workload.submit[i]),
                int(result.cores[i]),
                *(_cell(t[c][i]) for c in TIME_COLUMNS),
                _cell(waits["wait_in"][i]),
                _cell(waits["wait_run"][i]),
                _cell(waits["wait_out"][i]),
                _cell(run_s[i]),
                _cell(out_s[i]),
                _cell(waits["wait"][i]),
                _cell(response[i]),
                states[int(result.state[i])],
            ]
        )
    return rows


def write_reproduction_jobs(result: CerberusResult, path: Path) -> None:
    """The reproduction's ``jobs.csv``: :data:`JOB_COLUMNS`, one row per job."""
    with open_output(path, newline="") as fh:
        out = csv.writer(fh, lineterminator="\n")
        out.writerow(JOB_COLUMNS)
        out.writerows(job_rows(result))


def describe(result: CerberusResult) -> dict[str, Any]:
    """What was run, for ``metrics.json``."""
    return {
        "policy": result.policy,
        "solvers": dict(result.solvers),
        "lifecycle": result.lifecycle,
        "mode": result.config.label,
        "switches": result.config.to_dict(),
        "workload": result.workload.source,
        "jobs": len(result.workload),
        "machine": {
            "name": result.machine.name,
            "cores": result.machine.cores,
            "bb": result.machine.bb,
            "bb_unit": result.machine.bb_unit,
        },
        "wall_s": round(result.wall_s, 4),
        "rejected": dict(result.rejected),
        "counters": {k: v for k, v in result.counters.items()},
    }


def write_outputs(
    result: CerberusResult, out: Path, *, budget_s: float, commit: str | None = None
) -> dict[str, Any]:
    """The reproduction's files in ``out``: ``jobs.csv`` (:data:`JOB_COLUMNS`), ``usage.csv``
    (:func:`write_usage`), ``metrics.json`` and ``knapsack_calls.csv``; returns the metrics.
    ``metrics.json``'s ``config`` says what ran (:func:`describe`) and ``commit`` (the caller's
    checkout), and ``system`` the machine, so ``schedbench plot`` can draw the folder."""
    ensure_dir(out)
    write_reproduction_jobs(result, out / "jobs.csv")
    bb_total_gb = write_usage(result, out / "usage.csv")
    metrics = compute_cerberus_metrics(result, budget_s=budget_s)
    cat = catalogue()
    doc = {
        "metrics": metrics,
        "definitions": {k: cat[k].definition for k in metrics if k in cat},
        "config": {**describe(result), "commit": commit},
        "system": {
            "node_groups": [{"count": result.machine.cores, "ssd_gb": 0.0}],
            "bb_gb": bb_total_gb,
        },
    }
    atomic_write_text(out / "metrics.json", json.dumps(doc, indent=2, default=json_default) + "\n")
    write_calls(result, out / "knapsack_calls.csv")
    return metrics


def write_calls(result: CerberusResult, path: Path) -> bool:
    """``knapsack_calls.csv``: one row per per-queue decision; nothing when there was none."""
    if result.calls:
        with open_output(path, newline="") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(
                [
                    "t",
                    "queue",
                    "window",
                    "queue_length",
                    "called",
                    "status",
                    "latency_s",
                    "selected",
                    "objective",
                ]
            )
            for c in result.calls:
                w.writerow(
                    [
                        repr(c.t),
                        c.queue,
                        c.window,
                        c.queue_length,
                        int(c.called),
                        c.status,
                        f"{c.latency_s:.9f}",
                        c.selected,
                        "" if c.objective is None else repr(c.objective),
                    ]
                )
    return bool(result.calls)


def write_usage(result: CerberusResult, path: Path) -> float:
    """``usage.csv`` in the engine's format (``instances/cores/bbsched.py``): the simulator's own
    samples (share of cores and burst buffer in use after each pass) times the machine's totals,
    cores in the ``nodes`` column; written to a temporary name, then renamed. Returns the
    machine's burst buffer in GB."""
    m = result.machine
    bb_total_gb = m.bb * (1000.0 if m.bb_unit == "TB" else 1.0)
    bb = result.sample_bb if result.sample_bb is not None else np.zeros_like(result.sample_t)
    tmp = path.with_name(path.name + ".tmp")
    with open_output(tmp, newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["t", "nodes", "bb_gb", "ssd_requested_gb", "ssd_assigned_gb"])
        for when, cpu, used in zip(result.sample_t, result.sample_cpu, bb, strict=True):
            w.writerow(
                [
                    repr(float(when)),
                    repr(float(cpu) * m.cores),
                    repr(float(used) * bb_total_gb),
                    0,
                    0,
                ]
            )
    check_output_target(path)
    tmp.replace(path)
    return bb_total_gb


#: The metric names of a Cerberus run, in catalogue order (for tables).
METRIC_NAMES: tuple[str, ...] = tuple(m.name for m in CERBERUS_METRICS)


# ------------------------------------------------------------------------------- the core
def job_table(result: CerberusResult) -> JobTable:
    """The run's per-job records in the common schema (module docstring), followed by the
    simulator's own columns (the reproduction's, without ``job_id`` and ``submit_s``)."""
    t = result.times
    w = result.workload
    three = result.lifecycle == "three-phase"
    states = np.array(["completed", "rejected", "stuck"], dtype=object)
    cols: dict[str, np.ndarray] = {
        "id": w.job_id,
        "submit": w.submit,
        "start": t["run_start"],
        "end": t["exec_end"] if three else t["complete"],
        "nodes": result.cores,
        "bb_gb": w.max_tb * 1000.0,
        "status": states[np.asarray(result.state, dtype=np.int64)],
    }
    if three:
        cols["first_alloc"] = t["in_start"]
        cols["last_release"] = t["complete"]
    cols["user"] = np.full(len(w), -1, dtype=np.int64)
    own = np.array(job_rows(result), dtype=object).reshape(len(w), len(JOB_COLUMNS))
    for k, name in enumerate(JOB_COLUMNS):
        if name not in ("job_id", "submit_s"):
            cols[name] = own[:, k]
    return JobTable(cols, unit="core", total=int(result.machine.cores))


def _reproduction_jobs(path: Path, rows: list[dict[str, str]], doc: dict[str, Any]) -> JobTable:
    """The reproduction's ``jobs.csv`` (:data:`JOB_COLUMNS`) as the common schema maps it."""

    def numbers(key: str) -> np.ndarray:
        try:
            return np.array([float(r[key]) if r.get(key) else math.nan for r in rows])
        except ValueError as exc:
            raise SpecError(f"{path}: column {key}", "numbers", str(exc)) from exc

    stage_in, complete = numbers("stage_in_start_s"), numbers("complete_s")
    lifecycle = (doc.get("config") or {}).get("lifecycle")
    three = lifecycle == "three-phase" if lifecycle else bool(np.isfinite(stage_in).any())
    cols = {
        "submit": numbers("submit_s"),
        "start": numbers("run_start_s"),
        "end": numbers("exec_end_s") if three else complete,
        "nodes": numbers("cores"),
        "status": np.array(
            [{"done": "completed"}.get(r.get("state", ""), r.get("state", "")) for r in rows],
            dtype=object,
        ),
    }
    if three:
        cols["first_alloc"], cols["last_release"] = stage_in, complete
    return JobTable(cols, unit="core")


def _window(value: Any) -> Any:
    return integer("window", 0, "an integer >= 0 (0: the whole queue)", MAX_WINDOW)(value)


class CerberusCore(SimulationCore):
    name = "cerberus"
    summary = (
        "Cerberus/BBSim (simcore/cerberus/): stage-in, run and stage-out queues, a knapsack "
        "per queue, or the one-phase baselines"
    )
    kind = "selection"
    unit = "core"
    metrics = CERBERUS_METRICS
    keys = (
        Key("window", 10, "the knapsack window (0: the whole queue)", _window),
        Key(
            "lifecycle",
            "cerberus",
            "(older suites' way to name this core)",
            choice("lifecycle", ("cerberus",)),
        ),
    )
    record_keys = ("lifecycle", "window")
    baseline = "cerberus-fcfs"
    leaderboard = (
        "makespan_from_zero_s",
        "response_mean_s",
        "throughput_500s_mean",
        "cpu_util_time_weighted",
        "bb_util_time_weighted",
    )
    compact = (
        "makespan_from_zero_s",
        "response_mean_s",
        "cpu_util_time_weighted",
        "bb_util_time_weighted",
    )
    kiviat = (
        ("makespan", "makespan_from_zero_s", True),
        ("avg response", "response_mean_s", True),
        ("CPU util", "cpu_util_time_weighted", False),
        ("BB util", "bb_util_time_weighted", False),
    )
    headline = (*METRIC_NAMES, "decisions", "decision_latency_median_s", "decision_latency_max_s")
    job_formats = (
        JobFormat(
            "jobs.csv",
            "reproduce cerberus",
            ("submit_s", "cores", "run_start_s", "exec_end_s", "complete_s"),
            _reproduction_jobs,
        ),
    )
    #: Policy options that name a solver (the bench layer checks them against the registry).
    solver_options = SOLVER_OPTIONS
    shared_options = tuple(o for o in OPTIONS if o not in (*SOLVER_OPTIONS, "on_fault"))

    def __init__(self) -> None:
        self._workloads: dict[tuple[str, int], CerberusWorkload] = {}

    # -- policies ------------------------------------------------------------------------------
    def policies(self) -> list[str]:
        return CERBERUS_POLICIES.names()

    def policy(self, name: str) -> PolicyInfo:
        cls = variant_class(name)
        doc = " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())
        decides = "solver" in variant_options(cls)
        options = (*SOLVER_OPTIONS, "on_fault") if decides else ()
        return PolicyInfo(name, doc, options, "optional" if decides else "none")

    def default_policy(self, solver: bool) -> str:
        return "cerberus-maxt" if solver else self.baseline

    # -- spec ----------------------------------------------------------------------------------
    def check_spec(self, spec: CoreSpec, base_dir: Path | None) -> CoreSpec:
        workload = absolute_spec(spec.workload, base_dir) if base_dir else spec.workload
        if not is_cerberus_spec(workload):
            raise SpecError(
                "workload",
                "a Cerberus workload (a .csv file, a Cerberus dataset such as "
                "cerberus/maxt_cerberus, or cerberus:jobs=N,seed=S)",
                workload,
            )
        try:
            check_cerberus_spec(workload)
        except SchedbenchError as exc:
            raise SpecError(
                "workload",
                "a Cerberus workload: a .csv file, a Cerberus dataset or cerberus:key=value,...",
                str(exc),
            ) from exc
        if spec.system:
            try:
                resolve_system(spec.system)
            except SchedbenchError as exc:
                raise SpecError("system", "a preset or a machine .toml file", str(exc)) from exc
        try:
            cerberus_config(spec.policy_options, spec.get("window"))
        except SchedbenchError as exc:
            raise SpecError("policy_options", "a Cerberus mode and switches", str(exc)) from exc
        return CoreSpec(spec.core, workload, spec.system, spec.options)

    def check_policies(self, spec: CoreSpec, policies: Sequence[tuple[str, str | None]]) -> None:
        """Mode and switches are the run's (``shared_options``, checked with the spec);
        per-queue solvers and ``on_fault`` need a policy that decides with a solver."""
        given = [k for k in (*SOLVER_OPTIONS, "on_fault") if k in spec.policy_options]
        if given and not any(self.policy(name).solver != "none" for name, _ in policies):
            raise SpecError(
                f"policy_options.{given[0]}",
                "a knapsack policy to use it (the policies are FCFS and take no solver)",
            )

    def identity(self, spec: CoreSpec) -> dict[str, Any]:
        # Before cores were plug-ins a Cerberus scenario carried the engine's keys too, at their
        # defaults; they stay in its identity so that stored cells keep their keys.
        legacy = {"priority": "fcfs", "backfill": "easy", "starvation_bound": 50}
        return {**super().identity(spec), **legacy, "warmup_s": 0.0, "cooldown_s": 0.0}

    def describe(self, spec: CoreSpec) -> str:
        mode = spec.policy_options.get("mode", "corrected")
        return f"cerberus {mode}, w={spec.get('window') or 'all'}"

    # -- running -------------------------------------------------------------------------------
    def load(self, spec: CoreSpec) -> tuple[CerberusWorkload, System]:
        """The machine (default ``cerberus``) and the workload (once per process)."""
        system = resolve_system(spec.system or "cerberus")
        key = (spec.workload, system.nodes)
        workload = self._workloads.get(key)
        if workload is None:
            workload = load_cerberus_workload(spec.workload, max_cores=system.nodes)
            self._workloads[key] = workload
        return workload, system

    def run(
        self, spec: CoreSpec, loaded: tuple[CerberusWorkload, System], policy: str, hooks: RunHooks
    ) -> CoreRun:
        workload, system = loaded
        options = spec.policy_options
        config = cerberus_config(options, spec.get("window"))
        decides = takes_solver(policy)
        if hooks.solver is not None and not decides:
            raise PolicyOptionError(f"cerberus policy {policy!r} takes no solver (it is FCFS)")
        per_queue = queue_solvers(options, hooks.solver_by_id) if decides else {}
        t0 = time.perf_counter()
        result = run_cerberus(
            workload,
            system,
            policy,
            solver=hooks.solver,
            config=config,
            budget=hooks.budget,
            record=hooks.record,
            progress=hooks.progress,
            per_queue=per_queue,
            fault=options.get("on_fault") if decides else None,
            solvers=hooks.solver_by_id,
        )
        wall = time.perf_counter() - t0
        solver_id = getattr(hooks.solver, "id", result.config.solver if decides else "")
        label = f"{policy}{':' + solver_id if decides else ''}" + "".join(
            f" {k}={v.id}" for k, v in per_queue.items()
        )
        metrics = compute_cerberus_metrics(result, budget_s=hooks.budget.deadline_s)
        run = CoreRun(
            self.name,
            label,
            result,
            job_table(result),
            metrics,
            counters=dict(result.counters),
            config=describe(result),
            wall_s=wall,
        )
        run.summary.append(
            f"{workload.source}: {len(workload)} jobs on {system.name} ({system.nodes} cores, "
            f"{system.bb_gb / 1000:g} TB BB) with {label}, mode {result.config.label}; "
            f"simulated in {result.wall_s:.2f} s"
        )
        return run

    def write(
        self, run: CoreRun, out: Path, *, config: Mapping[str, Any] | None = None, full: bool = True
    ) -> list[str]:
        """``jobs.csv`` (common schema and the simulator's columns), ``usage.csv``,
        ``metrics.json`` and ``knapsack_calls.csv`` (when knapsacks were posed)."""
        result: CerberusResult = run.result
        ensure_dir(out)
        write_jobs_csv(run.jobs, out / "jobs.csv")
        bb_total_gb = write_usage(result, out / "usage.csv")
        system = {
            "node_groups": [{"count": result.machine.cores, "ssd_gb": 0.0}],
            "bb_gb": bb_total_gb,
        }
        write_metrics_json(self, run, out / "metrics.json", config=config, system=system)
        files = ["jobs.csv", "usage.csv", "metrics.json"]
        if write_calls(result, out / "knapsack_calls.csv"):
            files.append("knapsack_calls.csv")
        return files
