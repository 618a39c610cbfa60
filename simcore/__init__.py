"""schedbench's simulation core: decision-problem types, the solver protocol, the decision maker.

Dependencies point one way: ``bench -> solvers -> simcore <- instances``; nothing here imports
from ``solvers``, ``bench`` or any solver library.
"""

from schedbench.simcore.decision_maker import bbsched_decision_maker
from schedbench.simcore.errors import (
    BudgetError,
    InvalidDecisionError,
    ProblemError,
    SchedbenchError,
    SolverParameterError,
    UnknownSolverError,
)
from schedbench.simcore.kinds.selection.problem import Decision, ParetoPoint, SelectionProblem
from schedbench.simcore.problem import Budget, Status, TracePoint
from schedbench.simcore.solver import Solver, timed_solve, warm_up

__all__ = [
    "Budget",
    "BudgetError",
    "Decision",
    "InvalidDecisionError",
    "ParetoPoint",
    "ProblemError",
    "SchedbenchError",
    "SelectionProblem",
    "Solver",
    "SolverParameterError",
    "Status",
    "TracePoint",
    "UnknownSolverError",
    "bbsched_decision_maker",
    "timed_solve",
    "warm_up",
]
