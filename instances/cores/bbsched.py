"""The ``bbsched`` core: the engine of ``simcore/engine.py`` behind the core protocol.

Count-based nodes, burst buffer and local SSD; the ``classic`` and ``three-phase`` lifecycles;
FCFS or WFP order; EASY, conservative or no backfilling. Its policies are the entry-point group
``schedbench.policies`` (``naive``, the Slurm-like baseline; ``window``, a solver of the
``selection`` kind picks from the window, BBSched's method; plug-ins).

Spec keys: ``workload`` (an SWF file, a dataset, a generator spec with transforms), ``system``
(a preset or a machine TOML file; empty: the machine the trace's header describes),
``priority``, ``backfill``, ``lifecycle``, ``window``, ``starvation_bound``, ``warmup_s``,
``cooldown_s``, ``policy_options`` (for the policies that take them) and ``skip_bad_lines``
(skip and count malformed SWF lines).

Outputs (:meth:`BBSchedCore.write`): ``jobs.csv`` — ``id, submit, start, end, nodes,
requested_time, runtime, wait, bb_gb, ssd_gb, status`` (+ ``first_alloc, last_release`` for the
three-phase lifecycle) and ``user``; ``usage.csv`` — the usage timeline (nodes, burst buffer,
SSD in use from each instant on); ``metrics.json`` — every metric of ``simcore/metrics.py``
with its definition, the wait breakdowns by job size, burst-buffer request and runtime as in
BBSched Figures 9–11 (``breakdowns``), the counters, the configuration and the machine;
``schedule.swf`` — the workload with the simulated wait and run times (SWF fields 3, 4, 11).
Each file is written to a temporary name, then renamed.
"""

from __future__ import annotations

import csv
import inspect
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from schedbench.instances.cores._keys import MAX_WINDOW, choice, flag, integer, local_file, seconds
from schedbench.instances.systems import resolve_system
from schedbench.instances.units import fit_units, rejection_warning
from schedbench.instances.workloads import check_workload_spec, load_workload
from schedbench.simcore.core import (
    CoreRun,
    CoreSpec,
    JobTable,
    Key,
    PolicyInfo,
    RunHooks,
    SimulationCore,
    SolverUse,
    SpecError,
    json_default,
    write_jobs_csv,
)
from schedbench.simcore.cqsim import (
    CQSIM_BACKFILLS,
    CQSIM_POLICIES,
    CqsimConfig,
    CqsimSimulation,
    rules_from,
)
from schedbench.simcore.cqsim import MAX_WINDOW as CQSIM_MAX_WINDOW
from schedbench.simcore.engine import LIFECYCLES, SimOptions, Simulation
from schedbench.simcore.errors import ConfigError, PolicyOptionError, SchedbenchError
from schedbench.simcore.metrics import (
    BREAKDOWNS,
    SIMULATION_METRICS,
    MeasurementWindow,
    breakdown,
    compute_metrics,
    solver_pass_warning,
)
from schedbench.simcore.policies import BACKFILLS
from schedbench.simcore.policy_registry import POLICIES, make_policy, policy_options
from schedbench.simcore.priority import PRIORITIES
from schedbench.simcore.safeio import check_output_target, ensure_dir
from schedbench.simcore.schedule import USAGE_COLUMNS, JobState, ScheduleResult
from schedbench.simcore.system import System
from schedbench.simcore.workload import Workload


@dataclass(frozen=True, slots=True)
class Loaded:
    """A scenario's workload fitted to its machine."""

    workload: Workload
    system: System
    unit_notes: tuple[str, ...]


def solver_use(cls: Any) -> SolverUse:
    """Whether a policy class decides with a solver: its constructor's ``solver`` parameter,
    required when it has no default."""
    param = inspect.signature(cls).parameters.get("solver")
    if param is None:
        return "none"
    return "required" if param.default is inspect.Parameter.empty else "optional"


#: The semantics a scenario runs under: the paper's text (``simcore/engine.py``) or the
#: BBSched authors' simulator (``simcore/cqsim.py``).
PROFILES = ("paper", "cqsim")


def _check_rules(value: Any) -> tuple[tuple[str, Any], ...]:
    """``cqsim_rules``: a table of :class:`~simcore.cqsim.CqsimRules` fields, kept as sorted
    pairs (a spec is hashable)."""
    items = value.items() if isinstance(value, Mapping) else value
    try:
        pairs = tuple(sorted((str(k), v) for k, v in items))
    except (TypeError, ValueError) as exc:
        raise SpecError("cqsim_rules", "a table of rule = value", value) from exc
    try:
        rules_from(dict(pairs))
    except ConfigError as exc:
        raise _spec_error(exc) from exc
    return pairs


def _spec_error(exc: ConfigError) -> SpecError:
    """A simcore option error ("key: expected what, got value") as the same spec error."""
    key, _, rest = str(exc).partition(": ")
    return SpecError(key, rest.removeprefix("expected "))


class BBSchedCore(SimulationCore):
    name = "bbsched"
    summary = (
        "count-based nodes, burst buffer and local SSD (simcore/engine.py): a window of the "
        "queue selected at every pass (BBSched), backfilling, classic or three-phase lifecycle"
    )
    kind = "selection"
    unit = "node"
    metrics = SIMULATION_METRICS
    keys = (
        Key("priority", "fcfs", "base scheduler order", choice("priority", tuple(PRIORITIES))),
        Key("backfill", "easy", "backfilling", choice("backfill", tuple(BACKFILLS))),
        Key("lifecycle", "classic", "job lifecycle", choice("lifecycle", LIFECYCLES)),
        Key("window", 20, "window size", integer("window", 1, "an integer >= 1", MAX_WINDOW)),
        Key(
            "starvation_bound",
            50,
            "passes a job may stay in the window before it must start",
            integer("starvation_bound", 1, "an integer >= 1"),
        ),
        Key(
            "warmup_s", 0.0, "seconds after the first submission not measured", seconds("warmup_s")
        ),
        Key(
            "cooldown_s",
            0.0,
            "seconds before the last submission not measured",
            seconds("cooldown_s"),
        ),
        Key(
            "skip_bad_lines", False, "skip (and count) malformed SWF lines", flag("skip_bad_lines")
        ),
        Key(
            "profile",
            "paper",
            "semantics: the paper's text (paper) or the authors' simulator CQSim (cqsim)",
            choice("profile", PROFILES),
        ),
        Key(
            "cqsim_rules",
            (),
            "rules of the cqsim profile set otherwise (a table; simcore/cqsim.py: CqsimRules)",
            _check_rules,
        ),
    )
    record_keys = ("priority", "backfill", "lifecycle", "window")
    baseline = "naive"
    leaderboard = (
        "node_usage",
        "bb_usage",
        "ssd_usage",
        "ssd_waste",
        "wait_mean_s",
        "slowdown_mean",
        "bounded_slowdown_mean",
    )
    compact = ("node_usage", "bb_usage", "ssd_usage", "wait_mean_s", "bounded_slowdown_mean")
    kiviat = (
        ("node usage", "node_usage", False),
        ("BB usage", "bb_usage", False),
        ("avg wait", "wait_mean_s", True),
        ("avg slowdown", "slowdown_mean", True),
        ("SSD usage", "ssd_usage", False),
        ("SSD waste", "ssd_waste", True),
    )
    headline = (
        "jobs_measured",
        "jobs_killed",
        "jobs_rejected",
        "jobs_unfinished",
        "node_usage",
        "bb_usage",
        "ssd_usage",
        "ssd_waste",
        "wait_mean_s",
        "wait_median_s",
        "wait_p95_s",
        "wait_max_s",
        "slowdown_mean",
        "bounded_slowdown_mean",
        "makespan_s",
        "decisions",
        "decision_latency_median_s",
        "decision_latency_p95_s",
        "decision_within_budget",
        "offered_node_load",
        "offered_bb_load",
        "choice_passes",
        "solver_pass_share",
        "starvation_blocked",
    )

    def __init__(self) -> None:
        self._workloads: dict[tuple[str, bool], Workload] = {}

    # -- policies ------------------------------------------------------------------------------
    def policies(self) -> list[str]:
        return POLICIES.names()

    def policy(self, name: str) -> PolicyInfo:
        cls = POLICIES.get(name)
        doc = " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())
        options = tuple(o for o in policy_options(cls) if o != "solver")
        return PolicyInfo(name, doc, options, solver_use(cls))

    def default_policy(self, solver: bool) -> str:
        return "window" if solver else "naive"

    # -- spec ----------------------------------------------------------------------------------
    def check_spec(self, spec: CoreSpec, base_dir: Path | None) -> CoreSpec:
        workload = local_file(spec.workload, base_dir, (".swf", ".gz"))
        try:  # its form, not its content: nothing is generated or read
            check_workload_spec(workload)
        except SchedbenchError as exc:
            raise SpecError("workload", "a workload spec schedbench can load", str(exc)) from exc
        if spec.system:
            try:  # a preset, or a machine file read now (it is small)
                resolve_system(spec.system)
            except SchedbenchError as exc:
                raise SpecError("system", "a preset or a machine .toml file", str(exc)) from exc
        checked = CoreSpec(spec.core, workload, spec.system, spec.options)
        _check_profile(checked)
        return checked

    def check_policies(self, spec: CoreSpec, policies: Sequence[tuple[str, str | None]]) -> None:
        super().check_policies(spec, policies)
        if spec.get("profile") == "cqsim":
            for name, _solver in policies:
                _cqsim_config(spec, name)

    def identity(self, spec: CoreSpec) -> dict[str, Any]:
        # skip_bad_lines changes how a trace is read, not what the scenario is; the profile
        # keys appear only when set, so cells stored before profiles existed keep their keys
        ident = super().identity(spec)
        ident.pop("skip_bad_lines", None)
        if ident.get("profile") == "paper":
            del ident["profile"]
        if not ident.get("cqsim_rules"):
            ident.pop("cqsim_rules", None)
        return ident

    def describe(self, spec: CoreSpec) -> str:
        head = "cqsim:" if spec.get("profile") == "cqsim" else ""
        return f"{head}{spec.get('priority')}+{spec.get('backfill')}"

    # -- running -------------------------------------------------------------------------------
    def load(self, spec: CoreSpec) -> Loaded:
        """Load the workload (once per process and spec), resolve the machine (an empty
        ``system``: the one the trace's header describes), fit job sizes to its unit."""
        key = (spec.workload, bool(spec.get("skip_bad_lines")))
        workload = self._workloads.get(key)
        if workload is None:
            workload = load_workload(spec.workload, on_bad_line="skip" if key[1] else "error")
            self._workloads[key] = workload
        system = resolve_system(spec.system or None, workload=workload)
        fitted, notes = fit_units(workload, system)
        return Loaded(fitted, system, tuple(notes))

    def build_policy(self, spec: CoreSpec, policy: str, solver: Any, budget: Any) -> Any:
        """The policy ``policy`` given the options of the scenario it accepts (``backfill``,
        ``window``, ``starvation_bound``, ``budget``, the ``policy_options``) and ``solver``."""
        cls = POLICIES.get(policy)
        accepted = policy_options(cls)
        if solver is not None and "solver" not in accepted:
            raise PolicyOptionError(
                f"policy {policy!r} takes no solver (its options: {', '.join(accepted)})"
            )
        offered = {
            "solver": solver,
            "backfill": spec.get("backfill"),
            "window": spec.get("window"),
            "starvation_bound": spec.get("starvation_bound"),
            "budget": budget,
        }
        options = {
            k: v for k, v in offered.items() if k in accepted and not (k == "solver" and v is None)
        }
        options.update((k, v) for k, v in spec.policy_options.items() if k in accepted)
        return make_policy(policy, **options)

    def simulation(
        self, spec: CoreSpec, loaded: Loaded, policy: Any, hooks: RunHooks
    ) -> Simulation:
        n = len(loaded.workload)
        progress = hooks.progress
        options = SimOptions(
            lifecycle=spec.get("lifecycle"),
            priority=spec.get("priority"),
            on_invalid=hooks.on_invalid,
            progress=(lambda done: progress(done, n)) if progress else None,
            progress_every=max(100, n // 200),
            decision_log=hooks.decision_log,
            record_problem=hooks.record,
        )
        return Simulation(loaded.workload, loaded.system, policy, options)

    def run(self, spec: CoreSpec, loaded: Loaded, policy: str, hooks: RunHooks) -> CoreRun:
        pol = self.build_policy(spec, policy, hooks.solver, hooks.budget)
        notes = list(loaded.unit_notes)
        sim: Simulation | CqsimSimulation
        if spec.get("profile") == "cqsim":
            cq = _cqsim_config(spec, policy)
            sim = CqsimSimulation(
                loaded.workload, loaded.system, cq, solver=hooks.solver, budget=hooks.budget
            )
            pol = _Described(cq.describe())
            if hooks.solver is not None and cq.rules.selection == "enumerate":
                notes.append(
                    "profile cqsim: the window's subsets are enumerated as CQSim does; the "
                    "solver ranks them only with cqsim_rules={selection='solver'}"
                )
        else:
            sim = self.simulation(spec, loaded, pol, hooks)
        t0 = time.perf_counter()
        error: BaseException | None = None
        try:
            result = sim.run()
        except (Exception, KeyboardInterrupt) as exc:  # keep what was computed, then report
            error = exc
            result = sim.snapshot()
        wall = time.perf_counter() - t0
        window = MeasurementWindow(warmup_s=spec.get("warmup_s"), cooldown_s=spec.get("cooldown_s"))
        try:
            metrics = compute_metrics(result, window, budget_s=hooks.budget.deadline_s)
        except (SchedbenchError, ValueError) as exc:  # e.g. a window longer than an aborted run
            metrics = {"error": f"{type(exc).__name__}: {exc}"}
        breakdowns: dict[str, Any] = {}
        if "error" not in metrics:
            try:
                breakdowns = {by: breakdown(result, by, window) for by in BREAKDOWNS}
            except (SchedbenchError, ValueError) as exc:
                metrics = {"error": f"{type(exc).__name__}: {exc}"}
        config = self._config(spec, loaded, result, pol, hooks, wall)
        if error is not None:
            config["error"] = f"{type(error).__name__}: {error}"
        run = CoreRun(
            self.name,
            pol.describe(),
            result,
            job_table(result),
            metrics,
            counters=dict(result.counters),
            config=config,
            extra={"breakdowns": breakdowns},
            wall_s=wall,
            notes=notes,
            error=error,
        )
        self._summary(run, loaded, spec, wall)
        return run

    def _config(
        self,
        spec: CoreSpec,
        loaded: Loaded,
        result: ScheduleResult,
        pol: Any,
        hooks: RunHooks,
        wall: float,
    ) -> dict[str, Any]:
        workload, system = loaded.workload, loaded.system
        rejected = int(result.counters.get("rejected", 0))
        reasons = {k: int(v) for k, v in result.counters.items() if k.startswith("rejected_")}
        takes_window = "window" in policy_options(type(pol)) or run_window(spec, result)
        return {
            **result.config,
            "wall_s": round(wall, 3),
            "jobs_per_s": round(len(workload) / wall, 1) if wall > 0 else None,
            "backfill": spec.get("backfill"),
            "window": spec.get("window") if takes_window else None,
            "budget_s": hooks.budget.deadline_s,
            "cleaning": dict(workload.cleaning),
            "units": {
                "job_sizes": workload.size_unit,
                "machine": system.unit,
                "notes": list(loaded.unit_notes),
            },
            "rejected": {
                "total": rejected,
                **{k.removeprefix("rejected_"): v for k, v in reasons.items()},
            },
        }

    def _summary(self, run: CoreRun, loaded: Loaded, spec: CoreSpec, wall: float) -> None:
        """What ``simulate`` prints around the metrics table, and its warnings."""
        workload, system = loaded.workload, loaded.system
        result: ScheduleResult = run.result
        rate = len(workload) / max(wall, 1e-9)
        run.summary.append(
            f"{workload.source}: {len(workload)} jobs on {system.name} ({system.nodes} {system.unit}"
            + (f", {system.bb_gb:g} GB BB" if system.bb_gb else "")
            + f") with {run.policy}, {spec.get('priority')}; simulated in {wall:.2f} s "
            f"({rate:,.0f} jobs/s)"
        )
        rejected = int(result.counters.get("rejected", 0))
        reasons = {k: int(v) for k, v in result.counters.items() if k.startswith("rejected_")}
        cancelled = int(workload.cleaning.get("no_processors", 0))
        run.details.append(
            f"jobs: {len(workload):,} simulated, {rejected:,} rejected as never fitting"
            + (f" ({', '.join(f'{k[9:]} {v}' for k, v in reasons.items())})" if reasons else "")
            + (
                f"; {cancelled:,} cancelled without a size dropped by the reader"
                if cancelled
                else ""
            )
        )
        for warning in (
            rejection_warning(workload, system, rejected, reasons),
            solver_pass_warning(run.metrics),
        ):
            if warning:
                run.warnings.append(warning)

    # -- outputs -------------------------------------------------------------------------------
    def write(
        self, run: CoreRun, out: Path, *, config: Mapping[str, Any] | None = None, full: bool = True
    ) -> list[str]:
        """``jobs.csv``, ``usage.csv``, ``metrics.json`` and (``full``) ``schedule.swf``."""
        from schedbench.instances.swf import write_swf

        ensure_dir(out)
        result: ScheduleResult = run.result
        write_jobs_csv(run.jobs, out / "jobs.csv")
        write_usage_csv(result, out / "usage.csv")
        doc = {
            "metrics": run.metrics,
            "breakdowns": run.extra.get("breakdowns", {}),
            "counters": run.counters,
            "config": {"core": self.name, "unit": self.unit, **run.config, **dict(config or {})},
            "system": result.system.to_dict(),
        }
        tmp = out / "metrics.json.tmp"
        tmp.write_text(json.dumps(doc, indent=2, default=json_default, allow_nan=False))
        check_output_target(out / "metrics.json")
        tmp.replace(out / "metrics.json")
        files = ["jobs.csv", "usage.csv", "metrics.json"]
        if full:
            tmp = out / "schedule.swf.tmp"
            write_swf(result.workload, tmp, result=result)
            check_output_target(out / "schedule.swf")
            tmp.replace(out / "schedule.swf")
            files.append("schedule.swf")
        return files


@dataclass(frozen=True, slots=True)
class _Described:
    """What a run's configuration needs of a policy, for the cqsim profile (whose scheduler is
    the simulation itself): its description."""

    text: str

    def describe(self) -> str:
        return self.text


def run_window(spec: CoreSpec, result: ScheduleResult) -> bool:
    """Whether a cqsim run used the window (its window policy)."""
    return spec.get("profile") == "cqsim" and "window" in str(result.config.get("policy"))


def _check_profile(spec: CoreSpec) -> None:
    """The keys the cqsim profile cannot honour (CQSim orders by waiting time, runs every job
    as one block of nodes and burst buffer, and backfills; model note bbsched-cqsim-semantics
    §4, §2, §9), as one-line errors naming the key."""
    if spec.get("profile") != "cqsim":
        return
    if spec.get("priority") != "fcfs":
        raise SpecError(
            "priority", "fcfs under profile cqsim (CQSim's wait+2 score)", spec.get("priority")
        )
    if spec.get("lifecycle") != "classic":
        raise SpecError("lifecycle", "classic under profile cqsim", spec.get("lifecycle"))
    if spec.get("backfill") not in CQSIM_BACKFILLS:
        raise SpecError(
            "backfill", "easy or conservative under profile cqsim", spec.get("backfill")
        )


def _cqsim_config(spec: CoreSpec, policy: str) -> CqsimConfig:
    """The cqsim profile's run of ``policy`` under ``spec``, or a one-line error naming the key."""
    if policy not in CQSIM_POLICIES:
        raise SpecError("policy", "naive or window under profile cqsim", policy)
    window = spec.get("window") if policy == "window" else CQSIM_MAX_WINDOW
    try:
        return CqsimConfig(
            policy=policy,
            window=window,
            backfill=spec.get("backfill"),
            rules=rules_from(dict(spec.get("cqsim_rules") or ())),
        )
    except ConfigError as exc:
        raise _spec_error(exc) from exc


def job_table(result: ScheduleResult) -> JobTable:
    """The per-job records of a run (module docstring), ``first_alloc``/``last_release`` only
    when the lifecycle holds resources outside [start, end)."""
    w = result.workload
    names = np.array([s.name.lower() for s in JobState], dtype=object)
    three = not np.array_equal(
        result.first_alloc, result.start, equal_nan=True
    ) or not np.array_equal(result.last_release, result.end, equal_nan=True)
    cols: dict[str, np.ndarray] = {
        "id": w.job_id,
        "submit": w.submit,
        "start": result.start,
        "end": result.end,
        "nodes": w.nodes,
        "requested_time": w.requested_time,
        "runtime": w.runtime,
        "wait": result.start - w.submit,
        "bb_gb": w.bb_gb,
        "ssd_gb": w.ssd_gb,
        "status": names[np.asarray(result.state, dtype=np.int64)],
    }
    if three:
        cols["first_alloc"] = result.first_alloc
        cols["last_release"] = result.last_release
    cols["user"] = w.user_id
    return JobTable(cols, unit="node", total=int(result.system.nodes))


def write_usage_csv(result: ScheduleResult, path: Path) -> None:
    """The usage timeline: ``t`` and the amount in use from ``t`` to the next row
    (``nodes``, ``bb_gb``, ``ssd_requested_gb``, ``ssd_assigned_gb``; ``simcore/schedule.py``)."""
    from schedbench.simcore.core import cell

    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["t", *USAGE_COLUMNS])
        for t, row in zip(result.usage_t.tolist(), result.usage.tolist(), strict=True):
            out.writerow([cell(t), *(cell(v) for v in row)])
    check_output_target(path)
    tmp.replace(path)
