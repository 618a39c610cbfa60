"""``weighted`` and ``constrained``: BBSched's single-objective baselines (§1, §4.3, §5).

Both turn the window's M objectives into one and hand that to an exact engine (``dp``,
``cpsat`` or ``mip-highs``, parameter ``engine``); the selection is then reported on the original
objectives (one Pareto point), so they compare with the multi-objective solvers on equal terms.

* ``weighted``: maximise Σ_i weight_i · f_i / scale_i — a weighted sum of utilisations, each
  objective normalised by ``problem.objective_scales`` (the capacity when objectives are demands,
  BBSched §4.3). Presets: ``weighted`` 50/50 (equal weights for any M, as §5 uses for four), and
  the aliases ``weighted-cpu`` 80/20 and ``weighted-bb`` 20/80 (``weighted[weights=0.8,0.2]``).
* ``constrained``: maximise one objective under every resource constraint ("optimize utilization
  of one resource and treat other resources as constraints", §1). Aliases: ``constrained-cpu``
  (``constrained[objective=0]``, nodes), ``constrained-bb`` (objective 1), ``constrained-ssd``
  (objective 2, the local-SSD utilisation of §5). Ties are broken by the other objectives' utilisation, so the
  answer is a Pareto point (``lexicographic_objective``).

Exactness of the weighted objective: with decimal weights and integral scales and objectives, the
sum is rescaled to whole numbers — Σ_i round(weight_i · 10^d) · (Π_{k≠i} scale_k) · f_i — which
ranks selections exactly as the weighted utilisation does, so integer engines (CP-SAT, MIP at gap
0) stay exact; otherwise the float weighted sum is passed on (``dp`` is exact on it; CP-SAT then
reports ``feasible``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.plugins import Alias
from schedbench.simcore.problem import Budget, Status
from schedbench.solvers._integral import MAX_SCALED, decimals_needed
from schedbench.solvers.base import Answer, BaseSolver, Clock, param

ENGINES = ("dp", "cpsat", "mip-highs")


def parse_weights(text: str) -> tuple[float, ...]:
    """``"0.8,0.2"`` -> (0.8, 0.2); empty -> () meaning equal weights."""
    if not text.strip():
        return ()
    try:
        weights = tuple(float(part) for part in text.split(","))
    except ValueError as exc:
        raise ValueError(f"expected comma-separated numbers, got {text!r}") from exc
    if not all(math.isfinite(x) and x >= 0 for x in weights) or sum(weights) <= 0:
        raise ValueError(f"expected non-negative weights with a positive sum, got {text!r}")
    return weights


def weighted_objective(problem: SelectionProblem, weights: tuple[float, ...]) -> np.ndarray:
    """One objective row ranking selections as Σ weight_i · f_i / scale_i (see module doc)."""
    weights = weights or tuple(1.0 / problem.M for _ in range(problem.M))
    w = np.asarray(weights, dtype=np.float64)
    scales = problem.objective_scales
    d = decimals_needed(w)
    integral = (
        d is not None and decimals_needed(scales) == 0 and decimals_needed(problem.objectives) == 0
    )
    if integral and d is not None:
        int_w = np.round(w * 10.0**d)
        others = np.array([np.prod(np.delete(scales, i)) for i in range(problem.M)])
        row = (int_w * others) @ problem.objectives
        if np.abs(row).sum() <= MAX_SCALED:
            return row
    return (w / scales) @ problem.objectives


@dataclass(frozen=True, kw_only=True, slots=True)
class _Scalarised(BaseSolver):
    """Solve a one-objective form with an exact engine from the registry."""

    engine: str = param("dp", f"exact engine: one of {', '.join(ENGINES)}")

    def _check_engine(self) -> None:
        self._require(self.engine in ENGINES, "engine", f"one of {', '.join(ENGINES)}")

    def _objective(self, problem: SelectionProblem) -> np.ndarray:
        raise NotImplementedError

    def _supports(self, problem: SelectionProblem) -> tuple[bool, str]:
        from schedbench.solvers.registry import known_solvers, make_solver

        if self.engine not in known_solvers():
            return False, f"engine {self.engine!r} is not installed"
        return make_solver(self.engine).supports(problem)

    def _warm_up(self) -> None:
        from schedbench.solvers.registry import make_solver

        make_solver(self.engine).warm_up()

    def _solve(self, problem: SelectionProblem, budget: Budget, clock: Clock) -> Answer:
        from schedbench.solvers.registry import make_solver

        left = clock.remaining()
        if left <= 0:
            return Answer(Status.TIMEOUT, [])
        single = SelectionProblem(
            capacities=problem.capacities,
            demands=problem.demands,
            objectives=[self._objective(problem)],
            resources=problem.resources,
        )
        engine = make_solver(self.engine)
        inner = engine.solve(single, Budget(deadline_s=left, seed=budget.seed))
        if inner.status in (Status.ERROR, Status.INFEASIBLE):
            return Answer(inner.status, [], notes=[f"engine {engine.id}: {n}" for n in inner.notes])
        status, notes = inner.status, list(inner.notes)
        if problem.M >= 2 and status == Status.OPTIMAL:
            # For M >= 2, "optimal" means the exact Pareto front; this is one point of it.
            status = Status.FEASIBLE
            notes.append("optimal for the scalarised objective: one point of the Pareto front")
        return Answer(
            status,
            [list(inner.selected)],
            trace=[],  # the engine's trace is in the scalarised objective, not in problem's
            stats={"engine": engine.id, **{f"engine_{k}": v for k, v in inner.stats.items()}},
            notes=notes,
        )


@dataclass(frozen=True, kw_only=True, slots=True)
class WeightedSolver(_Scalarised):
    weights: str = param("", "comma-separated weights per objective; empty = equal")

    name = "weighted"
    summary = "max weighted sum of utilisations, equal weights by default (BBSched §4.3, §5)"

    def __post_init__(self) -> None:
        self._check_engine()
        try:
            parse_weights(self.weights)
        except ValueError as exc:
            self._require(False, "weights", str(exc))

    def _supports(self, problem: SelectionProblem) -> tuple[bool, str]:
        weights = parse_weights(self.weights)
        if weights and len(weights) != problem.M:
            return False, f"{len(weights)} weights for {problem.M} objectives"
        return _Scalarised._supports(self, problem)

    def _objective(self, problem: SelectionProblem) -> np.ndarray:
        return weighted_objective(problem, parse_weights(self.weights))


# BBSched's presets (§4.3, §5), registered under the paper's names (pyproject.toml).
WEIGHTED_CPU = Alias(
    "weighted-cpu",
    WeightedSolver,
    {"weights": "0.8,0.2"},
    "weighted 80 % nodes / 20 % burst buffer (BBSched §4.3)",
)
WEIGHTED_BB = Alias(
    "weighted-bb",
    WeightedSolver,
    {"weights": "0.2,0.8"},
    "weighted 20 % nodes / 80 % burst buffer (BBSched §4.3)",
)


@dataclass(frozen=True, kw_only=True, slots=True)
class ConstrainedSolver(_Scalarised):
    objective: int = param(0, "index of the objective to maximise (0 nodes, 1 BB, 2 SSD)")

    name = "constrained"
    summary = "max one objective under all resource constraints (BBSched §1, §4.3, §5)"

    def __post_init__(self) -> None:
        self._check_engine()
        self._require(
            isinstance(self.objective, int)
            and not isinstance(self.objective, bool)
            and self.objective >= 0,
            "objective",
            "an objective index >= 0",
        )

    def _supports(self, problem: SelectionProblem) -> tuple[bool, str]:
        if self.objective >= problem.M:
            return False, f"objective {self.objective} does not exist (M = {problem.M})"
        return _Scalarised._supports(self, problem)

    def _objective(self, problem: SelectionProblem) -> np.ndarray:
        return lexicographic_objective(problem, self.objective)


def lexicographic_objective(problem: SelectionProblem, primary: int) -> np.ndarray:
    """f_primary first, ties broken by the equally weighted utilisation of the other objectives,
    so the answer is Pareto-optimal (BBSched's Table 1: maximising BB alone ties {J2, J3} with
    {J2, J3, J4, J5}). Built in whole numbers when the data allow — primary · 10^d · B + secondary
    with B above any secondary sum — else the primary alone (ties then left to the engine)."""
    row = problem.objectives[primary]
    others = [i for i in range(problem.M) if i != primary]
    if not others:
        return row
    sub = SelectionProblem(
        capacities=problem.capacities,
        demands=problem.demands,
        objectives=problem.objectives[others],
        objective_scales=problem.objective_scales[others],
    )
    secondary = weighted_objective(sub, ())
    d = decimals_needed(row)
    if d is None or decimals_needed(secondary) != 0:
        return row
    bound = float(np.abs(secondary).sum()) + 1.0
    combined = np.round(row * 10.0**d) * bound + secondary
    return combined if np.abs(combined).sum() <= MAX_SCALED else row


CONSTRAINED_CPU = Alias(
    "constrained-cpu",
    ConstrainedSolver,
    {"objective": 0},
    "max node utilisation under the other constraints (BBSched §4.3)",
)
CONSTRAINED_BB = Alias(
    "constrained-bb",
    ConstrainedSolver,
    {"objective": 1},
    "max burst-buffer utilisation under the other constraints (BBSched §4.3)",
)
CONSTRAINED_SSD = Alias(
    "constrained-ssd",
    ConstrainedSolver,
    {"objective": 2},
    "max local-SSD utilisation under the other constraints (BBSched §5)",
)
