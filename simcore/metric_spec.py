"""What a metric is: its name, unit, which way is better, its definition and where it comes from.

Every number schedbench reports is described once by a :class:`MetricSpec`; the terminal
tables, the HTML report, the regression gate (``schedbench compare``) and the README's metric
list all read these descriptions through ``simcore/catalogue.py`` (pytest-benchmark and asv
users ask for exactly this: per-metric direction metadata).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Direction = Literal["higher", "lower", "none"]
Scope = Literal["decision", "latency", "simulation"]

#: Units a metric may carry; the report scales seconds to milliseconds where that reads better.
UNITS = ("", "s", "share", "count", "GB", "jobs/s")


@dataclass(frozen=True, slots=True)
class MetricSpec:
    """One metric's description.

    ``name`` is the key under which cells store it; ``unit`` one of :data:`UNITS` (``share`` is
    a fraction in [0, 1], shown as %); ``direction`` says whether higher or lower is better
    (``none``: a count or a context value, never gated); ``definition`` states it in one line;
    ``source`` names the paper section or reference it follows; ``scope`` says where it is
    measured (one decision, the latency over a group of decisions, one simulation); ``label``
    is a short column header; ``kind`` the problem kind of a decision metric ("" for all).
    """

    name: str
    definition: str
    unit: str = ""
    direction: Direction = "none"
    source: str = ""
    scope: Scope = "simulation"
    label: str = ""
    kind: str = ""
    #: A few words for a table's legend ("" : the definition up to its first ";").
    short: str = ""

    def __post_init__(self) -> None:
        if not self.name or not self.name.replace("_", "").isalnum():
            raise ValueError(
                f"metric name: expected a word of letters, digits and _, got {self.name!r}"
            )
        if self.unit not in UNITS:
            raise ValueError(
                f"metric {self.name!r} unit: expected one of {UNITS}, got {self.unit!r}"
            )
        if self.direction not in ("higher", "lower", "none"):
            raise ValueError(
                f"metric {self.name!r} direction: expected higher, lower or none, got {self.direction!r}"
            )
        if self.scope not in ("decision", "latency", "simulation"):
            raise ValueError(
                f"metric {self.name!r} scope: expected decision, latency or simulation"
            )
        if not self.definition:
            raise ValueError(f"metric {self.name!r}: a definition is required")

    @property
    def brief(self) -> str:
        """The legend text: ``short``, else the definition up to its first ``;`` or ``(``."""
        if self.short:
            return self.short
        return self.definition.split(";")[0].split(" (")[0].strip()

    @property
    def header(self) -> str:
        """Column header with the unit: ``wait mean (h)``-style labels are the report's job;
        this is the short label, or the name."""
        return self.label or self.name
