"""The rules the advance-reservation paper (``papers/advance-reservation-with-deadlines.txt``)
leaves open, as named options of the reservation core: a :class:`Reading` is one choice for each.
The defaults (:data:`PINNED`) are the reading pinned so that a replay is exact
(docs/design.md#pinned-semantics-where-a-paper-is-vague); every other value is a reading the
paper's text also allows.

| option | pinned | alternatives | the open rule |
|---|---|---|---|
| ``unbounded_end`` | 10^9 | any S >= 0 (0: the deadline) | T_end of a rectangle no later job bounds = t_dl + S |
| ``pedu`` | ``product`` | ``sum`` | PEDu: \\|F\\| x Du, or \\|F\\| / PEs + Du / (the largest Du among the request's feasible starts) |
| ``latest_start`` | False | True | candidates: also t_dl - t_du (Figure 1 lists it, the text does not) |
| ``tie`` | ``earliest`` | ``latest`` | equal scores: the earliest or the latest start |
| ``pe_ids`` | ``lowest`` | ``highest`` | which n_pe PEs of F the job gets |
| ``deadline`` | ``inclusive`` | ``exclusive`` | t_s + t_du <= t_dl, or < t_dl (done strictly before the deadline) |
| ``merge`` | ``always`` | ``keep`` | after a rejection, merge the records the search split at t_r and t_dl (nothing stays), or keep them (they become slot times, so candidate starts, of later requests) |
| ``slowdown`` | ``accepted`` | ``deadline`` | mean slowdown over accepted jobs, or over all with a rejected job counted at its latest start ((t_dl - t_r) / t_du) |

``pedu`` matters only to the PEDu policies, ``tie`` only to the scoring ones, ``slowdown`` only
to the metric (not to any decision). :meth:`Reading.parse` reads ``key=value,...``, and
:meth:`Reading.label` writes the options that differ from the pinned ones the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

#: T_end of a rectangle that no later job bounds is t_dl + UNBOUNDED_END: a finite stand-in, so
#: that every score (Du included) stays a number that compares.
UNBOUNDED_END = 10**9

#: option -> its allowed values (unbounded_end: any integer >= 0; latest_start: a bool).
CHOICES: dict[str, tuple[Any, ...]] = {
    "pedu": ("product", "sum"),
    "tie": ("earliest", "latest"),
    "pe_ids": ("lowest", "highest"),
    "deadline": ("inclusive", "exclusive"),
    "merge": ("always", "keep"),
    "slowdown": ("accepted", "deadline"),
}

#: One line per option (``schedbench reproduce ar --help``, the sweep's legend).
HELP: dict[str, str] = {
    "unbounded_end": "T_end of an unbounded rectangle = t_dl + S (pinned 10^9; 0: the deadline)",
    "pedu": "PEDu score: product |F| x Du (pinned) or sum |F|/PEs + Du/max Du",
    "latest_start": "also try t_dl - t_du as a candidate start (pinned: no)",
    "tie": "equal scores: earliest (pinned) or latest start",
    "pe_ids": "the job's PEs: the lowest (pinned) or highest ids of F",
    "deadline": "deadline bound: inclusive t_s + t_du <= t_dl (pinned) or exclusive <",
    "merge": "after a rejection: merge the split records (pinned: always) or keep them",
    "slowdown": "mean slowdown over accepted jobs (pinned) or all, a rejected one at its deadline",
}


class ReadingError(ValueError):
    """A reading option with an unknown name or value."""


@dataclass(frozen=True, slots=True)
class Reading:
    """One choice for each open rule (module docstring); the defaults are the pinned reading."""

    unbounded_end: int = UNBOUNDED_END
    pedu: str = "product"
    latest_start: bool = False
    tie: str = "earliest"
    pe_ids: str = "lowest"
    deadline: str = "inclusive"
    merge: str = "always"
    slowdown: str = "accepted"

    def __post_init__(self) -> None:
        u = self.unbounded_end
        if isinstance(u, bool) or not isinstance(u, int) or u < 0:
            raise ReadingError(f"unbounded_end: expected an integer >= 0, got {u!r}")
        if not isinstance(self.latest_start, bool):
            raise ReadingError(f"latest_start: expected true or false, got {self.latest_start!r}")
        for key, allowed in CHOICES.items():
            value = getattr(self, key)
            if value not in allowed:
                raise ReadingError(f"{key}: expected one of {', '.join(allowed)}, got {value!r}")

    def changes(self) -> dict[str, Any]:
        """The options that differ from the pinned reading."""
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if getattr(self, f.name) != getattr(PINNED, f.name)
        }

    def label(self) -> str:
        """``pinned``, or the options that differ from it as ``key=value,...``."""
        ch = self.changes()
        if not ch:
            return "pinned"
        return ",".join(f"{k}={_text(v)}" for k, v in ch.items())

    def serving(self) -> Reading:
        """This reading with the metric-only option (``slowdown``) at its pinned value: readings
        that serve requests identically compare equal."""
        return replace(self, slowdown=PINNED.slowdown)

    @staticmethod
    def parse(text: str) -> Reading:
        """``key=value,...`` (``pinned`` or empty: the pinned reading)."""
        text = text.strip()
        if text in ("", "pinned"):
            return PINNED
        values: dict[str, Any] = {}
        names = {f.name for f in fields(Reading)}
        for item in text.split(","):
            key, sep, value = (part.strip() for part in item.partition("="))
            if not sep or key not in names:
                raise ReadingError(
                    f"{item.strip()!r}: expected key=value with key one of {', '.join(sorted(names))}"
                )
            values[key] = _value(key, value)
        return Reading(**values)


def _text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _value(key: str, value: str) -> Any:
    if key == "unbounded_end":
        try:
            return int(float(value)) if value.lower() != "1e9" else UNBOUNDED_END
        except ValueError as exc:
            raise ReadingError(f"unbounded_end: expected an integer >= 0, got {value!r}") from exc
    if key == "latest_start":
        if value.lower() not in ("true", "false", "1", "0", "yes", "no"):
            raise ReadingError(f"latest_start: expected true or false, got {value!r}")
        return value.lower() in ("true", "1", "yes")
    return value


#: The pinned reading: what every replay and digest is made with.
PINNED = Reading()
