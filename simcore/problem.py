"""What every decision problem shares: the decision budget, the status of an answer, the anytime
trace, and the checks and JSON helpers each problem kind uses for its input.

The problem kinds themselves (what is asked, what an answer is, how an answer is checked and
scored) live in ``simcore/kinds/``: ``selection`` (BBSched's window selection), ``placement``
(locality-aware placement of a job on nodes in time) and ``reservation`` (advance reservations
with deadlines).

Feasibility uses a relative tolerance of 1e-9 on each capacity so that fractional demands whose
float sum lands a hair above an exactly-full capacity are not rejected; integer problems are exact.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np

from schedbench.simcore.errors import BudgetError, ProblemError

#: Relative slack on capacities when checking feasibility (see module docstring).
FEASIBILITY_RTOL = 1e-9

#: Largest decision budget a production scheduler tolerates (BBSched §1: 15–30 s).
MAX_DEADLINE_S = 30.0
DEFAULT_DEADLINE_S = 15.0


def capacity_slack(capacities: np.ndarray) -> np.ndarray:
    """Absolute slack allowed above each capacity (``FEASIBILITY_RTOL`` relative, at least 1e-9)."""
    return FEASIBILITY_RTOL * np.maximum(1.0, np.abs(capacities))


def readonly(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def as_matrix(value: Any, where: str, expected: str) -> np.ndarray:
    """Convert nested lists to a float64 array, naming ``where`` when it cannot."""
    if isinstance(value, (str, bytes)) or value is None:
        raise ProblemError(where, expected, value)
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "iuf":
            raise ProblemError(where, f"numbers ({expected})", f"an array of {value.dtype}")
    else:
        _reject_non_numbers(value, where)
    try:
        array = np.array(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as err:
        # Ragged rows, non-numbers or integers beyond float64: find the first offending row.
        if isinstance(value, Sequence):
            for i, row in enumerate(value):
                try:
                    np.array(row, dtype=np.float64)
                except (TypeError, ValueError, OverflowError) as exc:
                    raise ProblemError(
                        f"{where}[{i}]", "numbers only (finite, within float64)", row
                    ) from exc
        raise ProblemError(where, expected, value) from err
    return array


def names_of(data: Mapping[str, Any], key: str) -> tuple[str, ...]:
    """An optional list of names from PROBLEM.json: a list of strings, nothing else (a bare
    string would otherwise become one name per character)."""
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise ProblemError(key, "a list of names (strings)", value)
    return tuple(value)


def _reject_non_numbers(value: Any, where: str) -> None:
    """Strings and booleans are not numbers, even where numpy would convert them."""
    if isinstance(value, (bool, np.bool_, str, bytes)):
        raise ProblemError(where, "a number", value)
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _reject_non_numbers(item, f"{where}[{i}]")


def check_finite_nonneg(array: np.ndarray, where: str, *, allow_negative: bool = False) -> None:
    bad = ~np.isfinite(array) if allow_negative else ~(np.isfinite(array) & (array >= 0))
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        what = "a finite number" if allow_negative else "a finite non-negative number"
        path = where + "".join(f"[{i}]" for i in index)
        raise ProblemError(path, what, array[index].item())


def json_array(array: np.ndarray) -> Any:
    """Numbers as JSON: whole floats become ints so integer problems round-trip unchanged."""
    if array.ndim == 0:
        return json_number(float(array))
    return [json_array(x) for x in array]


def json_number(x: float) -> int | float | None:
    """A number as JSON shows it best: integral floats as ints; NaN and infinities, which JSON
    cannot carry, as null."""
    if not math.isfinite(x):
        return None
    return int(x) if x == int(x) and abs(x) < 2**53 else x


def json_safe(value: Any) -> Any:
    """``value`` with every float made JSON-safe (``json_number``), through lists and dicts; numpy
    scalars become Python numbers and anything else unknown its ``str``."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return json_number(float(value))
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return str(value)


@dataclass(frozen=True, slots=True)
class Budget:
    """How long a solver may take for one decision, and the seed for anything random.

    The deadline defaults to 15 s and may be set up to 30 s (the response time production HPC
    schedulers require, BBSched §1). Solvers must return their best answer by then.
    """

    deadline_s: float = DEFAULT_DEADLINE_S
    seed: int = 0

    def __post_init__(self) -> None:
        d = self.deadline_s
        if isinstance(d, bool) or not isinstance(d, (int, float)) or not math.isfinite(d):
            raise BudgetError(f"budget deadline_s: expected a number of seconds, got {d!r}")
        if not 0 < d <= MAX_DEADLINE_S:
            raise BudgetError(
                f"budget deadline_s: expected more than 0 and at most {MAX_DEADLINE_S:g} s, got {d!r}"
            )
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)):
            raise BudgetError(f"budget seed: expected an integer, got {self.seed!r}")
        object.__setattr__(self, "deadline_s", float(d))
        object.__setattr__(self, "seed", int(self.seed))


class Status(StrEnum):
    """How a solver's answer stands."""

    OPTIMAL = "optimal"  #: proven optimal (M = 1) or the exact Pareto front (M >= 2)
    FEASIBLE = "feasible"  #: a feasible answer without proof (heuristics, coarse units)
    TIMEOUT = "timeout"  #: the deadline came first; the best answer found by then
    INFEASIBLE = "infeasible"  #: no selection satisfies the constraints (must_include too big)
    ERROR = "error"  #: the solver failed; ``notes`` say why


@dataclass(frozen=True, slots=True)
class TracePoint:
    """An anytime-trace entry: the incumbent's objectives at ``time_s`` after the solve began."""

    time_s: float
    objectives: tuple[float, ...]
