"""One place where a scenario becomes a simulation: the workload loaded and fitted to the
machine (:func:`load`), the policy built with its solver and the options set
(:func:`assemble`). ``schedbench simulate`` and the suite runner's simulation cells both go
through here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from schedbench.bench.suite.schema import Scenario
from schedbench.instances.systems import resolve_system
from schedbench.instances.units import fit_units
from schedbench.instances.workloads import load_workload
from schedbench.simcore.engine import SimOptions, Simulation
from schedbench.simcore.errors import PolicyOptionError
from schedbench.simcore.metrics import MeasurementWindow
from schedbench.simcore.policy_registry import (
    load_policy_class,
    make_policy,
    policy_class,
    policy_options,
)
from schedbench.simcore.problem import Budget
from schedbench.simcore.system import System
from schedbench.simcore.workload import Workload


@dataclass(frozen=True, slots=True)
class Assembled:
    """What :func:`assemble` builds: the simulation ready to run and what it was built from."""

    simulation: Simulation
    workload: Workload
    system: System
    policy: Any
    unit_notes: tuple[str, ...]
    window: MeasurementWindow


def build_policy(policy: str, solver: Any, scenario: Scenario, budget: Budget) -> Any:
    """The scheduling policy ``policy`` (a registered name or ``module:Class``,
    ``simcore/policy_registry.py``), given the scenario's options that it accepts (``backfill``,
    ``window``, ``starvation_bound``, ``budget``) and those of its ``policy_options`` it accepts
    (the suite and the command line check that each is accepted by some policy); ``solver`` goes
    to a policy that decides with one (an error for one that does not)."""
    cls = load_policy_class(policy) if ":" in policy else policy_class(policy)
    accepted = policy_options(cls)
    if solver is not None and "solver" not in accepted:
        raise PolicyOptionError(
            f"policy {policy!r} takes no solver (its options: {', '.join(accepted)})"
        )
    offered = {
        "solver": solver,
        "backfill": scenario.backfill,
        "window": scenario.window,
        "starvation_bound": scenario.starvation_bound,
        "budget": budget,
    }
    options = {
        k: v for k, v in offered.items() if k in accepted and not (k == "solver" and v is None)
    }
    options.update((k, v) for k, v in scenario.policy_options if k in accepted)
    return make_policy(policy, **options)


@dataclass(frozen=True, slots=True)
class Loaded:
    """A scenario's workload fitted to its machine (:func:`load`)."""

    workload: Workload
    system: System
    unit_notes: tuple[str, ...]


def load(
    scenario: Scenario,
    *,
    workload: Workload | None = None,
    on_bad_line: Literal["error", "skip"] = "error",
) -> Loaded:
    """Load (or take) the workload, resolve the machine (an empty ``system``: the one the
    trace's header describes), fit job sizes to the machine's unit."""
    if workload is None:
        workload = load_workload(scenario.workload, on_bad_line=on_bad_line)
    system = resolve_system(scenario.system or None, workload=workload)
    workload, notes = fit_units(workload, system)
    return Loaded(workload, system, tuple(notes))


def assemble(
    scenario: Scenario,
    loaded: Loaded,
    *,
    policy: str,
    solver: Any = None,
    budget: Budget,
    **hooks: Any,
) -> Assembled:
    """Build the policy and the simulation of ``scenario`` on what :func:`load` loaded.
    ``hooks`` are further ``SimOptions`` (progress, decision log, problem recorder,
    ``on_invalid``)."""
    pol = build_policy(policy, solver, scenario, budget)
    options = SimOptions(lifecycle=scenario.lifecycle, priority=scenario.priority, **hooks)
    return Assembled(
        Simulation(loaded.workload, loaded.system, pol, options),
        loaded.workload,
        loaded.system,
        pol,
        loaded.unit_notes,
        MeasurementWindow(warmup_s=scenario.warmup_s, cooldown_s=scenario.cooldown_s),
    )
