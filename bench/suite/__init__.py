"""Declarative suites: the TOML schema (``schema.py``) and its expansion into cells
(``plan.py``). The README's "Benchmark suites" section and ``schema.py``'s docstring document
every key."""

from schedbench.bench.suite.plan import (
    DecisionCell,
    Instance,
    SimulationCell,
    decision_cells,
    expand_instances,
    plan,
    redact_outside,
    reference_solver,
    scenario_hash,
    simulation_cells,
)
from schedbench.bench.suite.schema import (
    Limits,
    Scenario,
    SolverSpec,
    Suite,
    SuiteError,
    load_suite,
    make_solver_spec,
    resolve_suite,
    shipped_suites,
    suite_from_dict,
)

__all__ = [
    "DecisionCell",
    "Instance",
    "Limits",
    "Scenario",
    "SimulationCell",
    "SolverSpec",
    "Suite",
    "SuiteError",
    "decision_cells",
    "expand_instances",
    "load_suite",
    "make_solver_spec",
    "plan",
    "redact_outside",
    "reference_solver",
    "resolve_suite",
    "scenario_hash",
    "shipped_suites",
    "simulation_cells",
    "suite_from_dict",
]
