"""Cerberus runs for the tool: a scenario's mode and switches, the policy with its solver, one
run, and its outputs. ``schedbench simulate --policy cerberus-...``, ``schedbench reproduce
cerberus`` and the suite runner's simulation cells (``lifecycle = "cerberus"``) all go through
here.

Options a Cerberus run takes (``--policy-set`` on the command line, ``policy_options`` in a
suite): ``mode`` (``faithful`` or ``corrected``, default corrected) and any switch of
``simcore/cerberus/config.py`` by name (``stage_in_knapsack``, ``one_size_in``, ``units``,
``start_order``, ``bb_accounting``, ``reject_unfit``, ``external_bandwidth``, ``run_value``,
``core_unit``, ``min_cores``), ``in_solver`` / ``run_solver`` / ``out_solver`` (a solver id
for that queue alone), and ``on_fault`` (``fcfs``, default, or ``skip``: what a knapsack queue
does in a pass whose solver gave no selection, ``simcore/cerberus/policy.py``); the window comes from ``--window`` / the scenario's ``window`` (0 = the
whole queue). The solver answers every knapsack queue the per-queue options do not name; without
one, the mode's default (``cerberus-dp`` faithful, ``dp`` corrected).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from schedbench.simcore.catalogue import catalogue
from schedbench.simcore.cerberus.config import SWITCHES, CerberusConfig, config_for
from schedbench.simcore.cerberus.metrics import CERBERUS_METRICS, compute_cerberus_metrics
from schedbench.simcore.cerberus.policy import (
    CerberusPolicy,
    UnknownVariantError,
    known_variants,
    make_variant,
    takes_solver,
    variant_class,
)
from schedbench.simcore.cerberus.sim import TIME_COLUMNS, CerberusResult, CerberusSimulation
from schedbench.simcore.cerberus.workload import CerberusWorkload
from schedbench.simcore.errors import ConfigError, PolicyOptionError
from schedbench.simcore.problem import Budget
from schedbench.simcore.system import System
from schedbench.solvers import registry

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


def is_cerberus_policy(name: str) -> bool:
    """Whether ``name`` is a Cerberus policy (registered in ``schedbench.cerberus``)."""
    if ":" in name:
        try:
            variant_class(name)
        except (PolicyOptionError, UnknownVariantError):
            return False
        return True
    return name in known_variants()


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


def queue_solvers(options: Mapping[str, Any]) -> dict[str, Any]:
    """The per-queue solvers ``options`` name (``run_solver = "cpsat"``), built and warmed up
    through the registry; an unknown solver or parameter raises naming it."""
    out: dict[str, Any] = {}
    for key in SOLVER_OPTIONS:
        if key in options:
            name, params = registry.parse_solver_id(str(options[key]))
            out[key] = registry.warm_solver(name, params)
    return out


def build_policy(
    name: str,
    solver: Any,
    config: CerberusConfig,
    budget: Budget,
    per_queue: Mapping[str, Any] | None = None,
    fault: str | None = None,
) -> CerberusPolicy:
    """The policy ``name``; a policy that decides with a solver gets ``solver`` (or the mode's
    default solver, built from the registry), the ``per_queue`` solvers (``run_solver``, ...)
    for the queues they name, and ``fault`` as its ``on_fault`` when given."""
    if takes_solver(name):
        if solver is None:
            solver = registry.warm_solver(config.solver, {})
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
) -> CerberusResult:
    """One run of ``policy`` on ``workload``; a given solver is recorded in the config
    (``config.solver`` = its id) so that the run's description says what decided."""
    if solver is not None and takes_solver(policy):
        config = dataclasses.replace(config, solver=str(getattr(solver, "id", solver)))
    pol = build_policy(policy, solver, config, budget or Budget(), per_queue, fault)
    return CerberusSimulation(workload, system, pol, config, record=record, progress=progress).run()


_LOADED: dict[tuple[str, int], CerberusWorkload] = {}


def run_scenario(
    scenario: Any, policy: str, solver: Any, budget: Budget
) -> tuple[CerberusResult, dict[str, Any]]:
    """A suite's ``lifecycle = "cerberus"`` scenario (``bench/suite/schema.py``) under
    ``policy``: the result and its metrics. Workloads are loaded once per process."""
    from schedbench.instances.cerberus import load_cerberus_workload
    from schedbench.instances.systems import resolve_system

    system = resolve_system(scenario.system or "cerberus")
    key = (scenario.workload, system.nodes)
    workload = _LOADED.get(key)
    if workload is None:
        workload = _LOADED[key] = load_cerberus_workload(scenario.workload, max_cores=system.nodes)
    options = dict(scenario.policy_options)
    config = cerberus_config(options, scenario.window)
    decides = takes_solver(policy)
    per_queue = queue_solvers(options) if decides else {}
    result = run_cerberus(
        workload,
        system,
        policy,
        solver=solver,
        config=config,
        budget=budget,
        per_queue=per_queue,
        fault=options.get("on_fault") if decides else None,
    )
    return result, compute_cerberus_metrics(result, budget_s=budget.deadline_s)


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


def write_jobs_csv(result: CerberusResult, path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
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


def write_outputs(result: CerberusResult, out: Path, *, budget_s: float) -> dict[str, Any]:
    """``jobs.csv``, ``usage.csv`` (:func:`write_usage`), ``metrics.json`` and
    ``knapsack_calls.csv`` in ``out``; returns the metrics. ``metrics.json``'s ``config`` says
    what ran (:func:`describe`) and the git ``commit``, and ``system`` the machine, so
    ``schedbench plot`` can draw the folder."""
    from schedbench.bench.run.outputs import commit_of_checkout

    out.mkdir(parents=True, exist_ok=True)
    write_jobs_csv(result, out / "jobs.csv")
    bb_total_gb = write_usage(result, out / "usage.csv")
    metrics = compute_cerberus_metrics(result, budget_s=budget_s)
    cat = catalogue()
    doc = {
        "metrics": metrics,
        "definitions": {k: cat[k].definition for k in metrics if k in cat},
        "config": {**describe(result), "commit": commit_of_checkout()},
        "system": {
            "node_groups": [{"count": result.machine.cores, "ssd_gb": 0.0}],
            "bb_gb": bb_total_gb,
        },
    }
    (out / "metrics.json").write_text(json.dumps(doc, indent=2, default=_json) + "\n")
    if result.calls:
        with (out / "knapsack_calls.csv").open("w", newline="", encoding="utf-8") as fh:
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
    return metrics


def write_schedule(result: CerberusResult, out: Path, *, metrics: Mapping[str, Any]) -> None:
    """The run in the folder format the schedule pictures read (``bench/run/outputs.py``:
    ``jobs.csv``, ``usage.csv``, ``metrics.json``), so a suite's Cerberus cells get Gantt and
    usage pictures in the HTML report like the engine's.

    Mapping (a choice: Cerberus counts cores, not nodes): a core is drawn as a node; a job's
    run is ``run_start`` to ``exec_end`` (the fetch included; one-phase: to ``complete``); the
    three-phase stage-in and drain become ``first_alloc`` (``in_start``) and ``last_release``
    (``complete``), drawn as thin lines; its burst buffer is its peak ``max_tb`` in GB. The
    usage timeline is the simulator's own samples (share of cores and burst buffer in use after
    each event) times the machine's totals. Each file is written to a temporary name, then
    renamed.
    """
    from schedbench.bench.run.outputs import commit_of_checkout

    out.mkdir(parents=True, exist_ok=True)
    t = result.times
    three = result.lifecycle == "three-phase"
    end = t["exec_end"] if three else t["complete"]
    states = ("completed", "rejected", "stuck")
    bb_gb = result.workload.max_tb * 1000.0
    tmp = out / "jobs.csv.tmp"
    with tmp.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(
            ["id", "submit", "start", "end", "nodes", "bb_gb", "status"]
            + (["first_alloc", "last_release"] if three else [])
            + ["user"]
        )
        for i in range(len(result.workload)):
            row = [
                int(result.workload.job_id[i]),
                _cell(result.workload.submit[i]),
                _cell(t["run_start"][i]),
                _cell(end[i]),
                int(result.cores[i]),
                _cell(bb_gb[i]),
                states[int(result.state[i])],
            ]
            if three:
                row += [_cell(t["in_start"][i]), _cell(t["complete"][i])]
            w.writerow([*row, ""])
    tmp.replace(out / "jobs.csv")
    m = result.machine
    bb_total_gb = write_usage(result, out / "usage.csv")
    doc = {
        "metrics": dict(metrics),
        "config": {
            "workload": result.workload.source,
            "policy": result.policy,
            "system": m.name,
            "lifecycle": result.lifecycle,
            "commit": commit_of_checkout(),
        },
        "system": {"node_groups": [{"count": m.cores, "ssd_gb": 0.0}], "bb_gb": bb_total_gb},
    }
    tmp = out / "metrics.json.tmp"
    tmp.write_text(json.dumps(doc, indent=2, default=_json) + "\n")
    tmp.replace(out / "metrics.json")


def write_usage(result: CerberusResult, path: Path) -> float:
    """``usage.csv`` in the engine's format (``bench/run/outputs.py``): the simulator's own
    samples (share of cores and burst buffer in use after each pass) times the machine's totals,
    cores in the ``nodes`` column; written to a temporary name, then renamed. Returns the
    machine's burst buffer in GB."""
    m = result.machine
    bb_total_gb = m.bb * (1000.0 if m.bb_unit == "TB" else 1.0)
    bb = result.sample_bb if result.sample_bb is not None else np.zeros_like(result.sample_t)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", newline="", encoding="utf-8") as fh:
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
    tmp.replace(path)
    return bb_total_gb


def _json(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON: {value!r}")


#: The metric names of a Cerberus run, in catalogue order (for tables).
METRIC_NAMES: tuple[str, ...] = tuple(m.name for m in CERBERUS_METRICS)
