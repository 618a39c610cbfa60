"""schedbench's simulation core: decision-problem types, the solver protocol, the decision maker,
the scheduling-policy protocol and its registry.

Dependencies point one way: ``bench -> solvers -> simcore <- instances``; nothing here imports
from ``solvers``, ``bench`` or any solver library.
"""

from schedbench.simcore.decision_maker import bbsched_decision_maker
from schedbench.simcore.errors import (
    BudgetError,
    InvalidActionError,
    InvalidDecisionError,
    PolicyOptionError,
    ProblemError,
    SchedbenchError,
    SolverParameterError,
    UnknownPolicyError,
    UnknownSolverError,
)
from schedbench.simcore.kinds.selection.problem import Decision, ParetoPoint, SelectionProblem
from schedbench.simcore.policy import MachineView, Policy
from schedbench.simcore.policy_registry import known_policies, make_policy, register_policy
from schedbench.simcore.problem import Budget, Status, TracePoint
from schedbench.simcore.solver import Solver, timed_solve, warm_up

__all__ = [
    "Budget",
    "BudgetError",
    "Decision",
    "InvalidActionError",
    "InvalidDecisionError",
    "MachineView",
    "ParetoPoint",
    "Policy",
    "PolicyOptionError",
    "ProblemError",
    "SchedbenchError",
    "SelectionProblem",
    "Solver",
    "SolverParameterError",
    "Status",
    "TracePoint",
    "UnknownPolicyError",
    "UnknownSolverError",
    "bbsched_decision_maker",
    "known_policies",
    "make_policy",
    "register_policy",
    "timed_solve",
    "warm_up",
]
