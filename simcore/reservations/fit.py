"""The paper's seven fit policies (``papers/advance-reservation-with-deadlines.txt``, Section 5),
with the semantics pinned down exactly where the paper is vague, so that an outside checker can
replay request streams against them (docs/design.md#pinned-semantics-where-a-paper-is-vague):

* a candidate start t_s (``SlotStructure.candidates``) is feasible when at least n_pe PEs are
  free over [t_s, t_s + t_du); its availability rectangle has PE set F (all PEs free over that
  interval), T_begin (the earliest time ≥ now with F free over [T_begin, t_s)) and T_end (the
  latest time with F free over [t_s + t_du, T_end); t_dl + 10^9 when no later job holds a PE
  of F);
* scores: PE = |F|, Du = T_end − T_begin, PEDu = |F| × (T_end − T_begin);
* **Best Fit** takes the minimum score, **Worst Fit** the maximum, **FirstFit** the earliest
  feasible t_s; ties go to the earliest t_s;
* the job gets the n_pe lowest-numbered PEs of F.

| name | paper | rule |
|---|---|---|
| ``ff`` | FF | earliest feasible start |
| ``pe-b`` / ``pe-w`` | PE_B / PE_W | fewest / most free PEs |
| ``du-b`` / ``du-w`` | Du_B / Du_W | shortest / longest rectangle |
| ``pedu-b`` / ``pedu-w`` | PEDu_B / PEDu_W | smallest / largest |F| × duration |

A policy is data (:class:`FitPolicy`): the measure it scores and whether the minimum wins, read
by ``SlotStructure.find``. More policies of these measures register with
:func:`register_fit_policy`; they are then known to the driver (``driver.py``), to
``schedbench reproduce ar --policy`` and, as solvers of the ``reservation`` kind, to
``solvers/reservation.py`` (which wraps the seven built-ins).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from schedbench.simcore.errors import UnknownNameError

Measure = Literal["first", "pe", "du", "pedu"]


class UnknownFitPolicyError(UnknownNameError):
    what = "fit policy"


@dataclass(frozen=True, slots=True)
class FitPolicy:
    """A fit policy: ``measure`` (``first``: no score, the earliest feasible start; ``pe``:
    |F|; ``du``: T_end − T_begin; ``pedu``: |F| × (T_end − T_begin)) and ``best`` (True: the
    minimum score wins, Best Fit; False: the maximum, Worst Fit)."""

    name: str
    label: str
    measure: Measure
    best: bool
    summary: str

    def __post_init__(self) -> None:
        if self.measure not in ("first", "pe", "du", "pedu"):
            raise ValueError(
                f"fit policy {self.name!r} measure: expected first, pe, du or pedu, got "
                f"{self.measure!r}"
            )

    def score(self, n_free: int, t_begin: int, t_end: int) -> int:
        """The policy's score of a rectangle (``first``: 0 for every start)."""
        if self.measure == "pe":
            return n_free
        if self.measure == "du":
            return t_end - t_begin
        if self.measure == "pedu":
            return n_free * (t_end - t_begin)
        return 0


FIT_POLICIES: dict[str, FitPolicy] = {}


def register_fit_policy(policy: FitPolicy) -> FitPolicy:
    """Make ``policy`` known by its name (a name registers once, unless with an equal policy)."""
    old = FIT_POLICIES.get(policy.name)
    if old is not None and old != policy:
        raise ValueError(f"fit policy {policy.name!r} is already registered")
    FIT_POLICIES[policy.name] = policy
    return policy


for _policy in (
    FitPolicy("ff", "FF", "first", True, "FirstFit: the earliest feasible start"),
    FitPolicy("pe-b", "PE_B", "pe", True, "PE Best Fit: the start with the fewest free PEs"),
    FitPolicy("pe-w", "PE_W", "pe", False, "PE Worst Fit: the start with the most free PEs"),
    FitPolicy("du-b", "Du_B", "du", True, "Duration Best Fit: the shortest rectangle"),
    FitPolicy("du-w", "Du_W", "du", False, "Duration Worst Fit: the longest rectangle"),
    FitPolicy(
        "pedu-b", "PEDu_B", "pedu", True, "PE-Duration Best Fit: the smallest |F| x duration"
    ),
    FitPolicy(
        "pedu-w", "PEDu_W", "pedu", False, "PE-Duration Worst Fit: the largest |F| x duration"
    ),
):
    register_fit_policy(_policy)

#: The paper's seven, in its order.
PAPER_POLICIES: tuple[str, ...] = ("ff", "pe-b", "pe-w", "du-b", "du-w", "pedu-b", "pedu-w")


def get_fit_policy(name: str) -> FitPolicy:
    """The fit policy registered as ``name`` (``ff``, ``pe-b``, ...)."""
    try:
        return FIT_POLICIES[name]
    except KeyError as exc:
        raise UnknownFitPolicyError(name, sorted(FIT_POLICIES)) from exc
