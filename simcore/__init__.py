"""schedbench's simulation core: decision-problem types, the solver protocol, the decision maker,
the scheduling-policy protocol and its registry.

Dependencies point one way: ``bench -> solvers -> simcore <- instances``; nothing here imports
from ``solvers``, ``bench`` or any solver library.
"""

import importlib
from typing import Any

#: What the package exports -> the module defining it, loaded on first use (PEP 562): a process
#: that needs one light module (the errors, the output capture) does not import numpy and the
#: problem kinds with it; the ``schedbench`` command starts a solver's isolation child before
#: it does (docs/design.md#compiled-kernels).
_EXPORTS = {
    "bbsched_decision_maker": "decision_maker",
    **dict.fromkeys(
        (
            "BudgetError",
            "InvalidActionError",
            "InvalidDecisionError",
            "PolicyOptionError",
            "ProblemError",
            "SchedbenchError",
            "SolverParameterError",
            "UnknownPolicyError",
            "UnknownSolverError",
        ),
        "errors",
    ),
    **dict.fromkeys(("Decision", "ParetoPoint", "SelectionProblem"), "kinds.selection.problem"),
    **dict.fromkeys(("MachineView", "Policy"), "policy"),
    **dict.fromkeys(("known_policies", "make_policy", "register_policy"), "policy_registry"),
    **dict.fromkeys(("Budget", "Status", "TracePoint"), "problem"),
    **dict.fromkeys(("Solver", "timed_solve", "warm_up"), "solver"),
}


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted(_EXPORTS)  # derived: the names are listed once, above
