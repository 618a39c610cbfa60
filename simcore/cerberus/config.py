"""The two modes of the Cerberus simulation and every switch between them.

A *mode* is a preset of named switches, not a fork of the code: ``faithful`` reproduces the
published runs with the upstream quirks the model note lists (``papers/cerberus-evaluation-model.md``
§5 and §8), ``corrected`` (the default for new experiments) uses exact units, never over-allocates
and follows the paper's text where it is clear. Any switch can be set on its own on top of
either preset (``config_for("faithful", window=20)``); a test covers each switch.

Switch by switch (faithful value → corrected value):

``stage_in_knapsack`` (False → True)
    Model note §5: in MaxT/MaxP the input queue stays FCFS; the paper (§IO-BB Scheduling)
    applies a knapsack there too, but that code path was disabled upstream.
``one_size_in`` ("d/1000" → "d")
    Model note §5, 1D Cerberus and the one-phase baselines: the single size ``d`` was re-written
    into the GB column and divided by 1000 again, so the stage-in volume (and the one-phase BB
    demand) is ``d/1000`` TB. The paper describes ``max{...}`` in every phase: ``d`` TB.
``units`` ("floor" → "exact")
    Model note §5, run/output knapsacks: core units = cores ÷ ``core_unit`` rounded down, BB units
    = TB rounded down, capacities rounded down, so a selected set can need more real cores than
    are free and the free-core count goes negative (reproduced, counted); a negative capacity
    selects nothing. "exact": demands and capacities in the accounting units, no over-allocation.
``window`` (10 → 10)
    Each knapsack looks at the first ``window`` jobs of its queue (None: the whole queue). The
    paper leaves it open ("consider only 1/α n jobs"), so the corrected preset keeps 10; the
    ``cerberus-solvers`` suite measures what it does.
``start_order`` ("walk-back" → "queue")
    Model note §5: the chosen jobs' events are created in the DP's walk-back order (last window
    position first), which decides the FIFO order of simultaneous phase ends. "queue": in queue
    order.
``bb_accounting`` ("tb-float" → "gb-exact")
    Model note §1: upstream holds data in TB as floating point (stage-in volumes are GB ÷ 1000),
    so the free burst buffer carries rounding noise that the ``>=`` checks and the floor of the
    knapsack capacity see; reproduced bit for bit. "gb-exact": whole GB as Python integers.
``reject_unfit`` (False → True)
    A job that can never fit the machine (more cores, or any phase more burst buffer, than it
    has): rejected at submission and counted. Faithful: it is queued as upstream would; under
    strict head-of-line blocking (FCFS queues) it blocks its queue for good — the run then ends
    when no event is left, and it and every job behind it are reported ``stuck`` (a knapsack
    never selects it, so it only occupies a window slot).
``external_bandwidth`` ("bb" → "bb")
    Model note §1: the code moves data external↔BB at the burst buffer's 8 GB/s; the BBSim
    figure suggests 2.5 GB/s ("io"). Not the paper's text, so both presets keep "bb".
``run_value`` ("product/rt2" → "product/rt2")
    Run-queue value: (core units × BB units) ÷ requested time², as run (model note §5); the
    paper's eq. MaxProduct assumes a constant running time: "product".
``zero_value_fill`` (False → True)
    A knapsack maximises value, so an optimum may leave out a job whose value is 0 even when it
    fits, and exact solvers (``dp``, ``cpsat``) do: such a job would then wait forever in that
    queue. It arises with a zero volume (MaxT's stage-in/stage-out value is the volume; the run
    value is 0 without run-phase data) and under ``units="floor"`` with volumes below 1 TB (the
    stage-in knapsack's GB volumes floor to 0 TB). True: after the solver's selection, the
    window's zero-value jobs that still fit (problem units and the real burst buffer) start too,
    in queue order — the objective is unchanged, so the selection stays optimal. The published
    runs had no such job (stage-in FCFS, whole-TB run and stage-out volumes), and upstream's
    tie rule (``cerberus-dp``: ties to taking) takes most of them anyway; faithful keeps False.
``solver`` ("cerberus-dp" → "dp")
    The knapsack solver used when none is given (a registry name; the bench layer resolves it).
    ``cerberus-dp`` holds the upstream tie rule (ties to later items, ``prefer_later``); ``dp`` is
    the project's exact solver.

Not switches, because the model note, the BBSim paper and the code agree on them: the three
queues served output → run → input at every scheduling instant; cores held until the drain ends;
all events of the earliest timestamp (exact float equality) applied in creation order, then one
pass; jobs below ``min_cores`` cores raised to it (Intrepid's 256-core partitions).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

from schedbench.simcore.errors import ConfigError

#: Names of the two presets.
MODES: tuple[str, ...] = ("faithful", "corrected")


@dataclass(frozen=True, slots=True)
class CerberusConfig:
    """The switches of one Cerberus simulation (module docstring); validated on construction."""

    mode: str = "corrected"
    stage_in_knapsack: bool = True
    one_size_in: Literal["d/1000", "d"] = "d"
    units: Literal["floor", "exact"] = "exact"
    window: int | None = 10
    start_order: Literal["walk-back", "queue"] = "queue"
    bb_accounting: Literal["tb-float", "gb-exact"] = "gb-exact"
    reject_unfit: bool = True
    external_bandwidth: Literal["bb", "io"] = "bb"
    run_value: Literal["product/rt2", "product"] = "product/rt2"
    zero_value_fill: bool = True
    solver: str = "dp"
    core_unit: int = 256
    min_cores: int = 256

    def __post_init__(self) -> None:
        choices: dict[str, tuple[Any, ...]] = {
            "one_size_in": ("d/1000", "d"),
            "units": ("floor", "exact"),
            "start_order": ("walk-back", "queue"),
            "bb_accounting": ("tb-float", "gb-exact"),
            "external_bandwidth": ("bb", "io"),
            "run_value": ("product/rt2", "product"),
        }
        for name, options in choices.items():
            if getattr(self, name) not in options:
                raise ConfigError(
                    f"cerberus switch {name!r}: expected one of {', '.join(options)}, "
                    f"got {getattr(self, name)!r}"
                )
        for name in ("stage_in_knapsack", "reject_unfit", "zero_value_fill"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(
                    f"cerberus switch {name!r}: expected true or false, got {getattr(self, name)!r}"
                )
        w = self.window
        if w is not None and (isinstance(w, bool) or not isinstance(w, int) or w < 1):
            raise ConfigError(
                f"cerberus switch 'window': expected an integer >= 1 or None, got {w!r}"
            )
        for name in ("core_unit", "min_cores"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ConfigError(f"cerberus switch {name!r}: expected an integer >= 1, got {v!r}")
        if not isinstance(self.solver, str) or not self.solver:
            raise ConfigError(
                f"cerberus switch 'solver': expected a solver name, got {self.solver!r}"
            )
        if not isinstance(self.mode, str) or not self.mode:
            raise ConfigError(f"cerberus 'mode': expected a name, got {self.mode!r}")

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @property
    def label(self) -> str:
        """The mode, plus the switches that differ from its preset (``faithful[window=20]``)."""
        base = PRESETS.get(self.mode)
        if base is None:
            return self.mode
        changed = [
            f"{f.name}={getattr(self, f.name)}"
            for f in dataclasses.fields(self)
            if f.name != "mode" and getattr(self, f.name) != getattr(base, f.name)
        ]
        return f"{self.mode}[{','.join(changed)}]" if changed else self.mode


#: The published runs' behaviour (model note §5 and §8: "do not fix the upstream quirks").
FAITHFUL = CerberusConfig(
    mode="faithful",
    stage_in_knapsack=False,
    one_size_in="d/1000",
    units="floor",
    window=10,
    start_order="walk-back",
    bb_accounting="tb-float",
    reject_unfit=False,
    zero_value_fill=False,
    solver="cerberus-dp",
)

#: Exact units, no over-allocation, the paper's text where it is clear (default for new work).
CORRECTED = CerberusConfig(mode="corrected")

PRESETS: dict[str, CerberusConfig] = {"faithful": FAITHFUL, "corrected": CORRECTED}

SWITCHES: tuple[str, ...] = tuple(
    f.name for f in dataclasses.fields(CerberusConfig) if f.name != "mode"
)


def config_for(mode: str = "corrected", **switches: Any) -> CerberusConfig:
    """The preset ``mode`` with ``switches`` set on top; unknown names are errors naming them."""
    if mode not in PRESETS:
        raise ConfigError(f"cerberus mode: expected one of {', '.join(MODES)}, got {mode!r}")
    unknown = sorted(set(switches) - set(SWITCHES))
    if unknown:
        raise ConfigError(
            f"cerberus switch {unknown[0]!r}: unknown; the switches are {', '.join(SWITCHES)}"
        )
    return dataclasses.replace(PRESETS[mode], **switches)
