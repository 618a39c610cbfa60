"""``schedbench compare BASE HEAD --fail METRIC:THRESHOLD …``: a regression gate over two stores.

BASE and HEAD are results stores (``bench/store/sqlite.py``), typically the same suite run before
and after a change. The command compares them metric by metric and exits non-zero when a metric
named in ``--fail`` got worse by more than its threshold (docs/reference/cli.md).

Thresholds
    ``METRIC:5%`` allows HEAD to be worse than BASE by 5 % of BASE's value (of its magnitude;
    a BASE value of 0 then allows no worsening at all); ``METRIC:0.01`` allows a worsening of
    0.01 in the metric's own unit; ``METRIC:0`` allows none. "Worse" follows the metric's
    direction (:data:`DIRECTIONS`): a rise for lower-is-better metrics, a drop for
    higher-is-better ones. A change exactly at the threshold passes (up to float round-off).
    An improvement never fails.

Noise floor (wall-time metrics)
    Latencies are measured on the machine, and two runs of the same code differ by timer and
    scheduler jitter: sub-millisecond solves vary by a factor of two between identical runs.
    For a wall-time metric (:func:`is_wall_time`: the latency statistics, the simulations'
    decision latencies, the knapsack solver time) a change counts — as a regression or as an
    improvement — only when it exceeds *both* the relative floor (``--latency-noise-pct``,
    default 20 % of BASE) *and* the absolute one (``--latency-noise-ms``, default 5 ms); a
    smaller one is ``ok (noise)``. ``0`` for both turns the floor off. Simulated times (waits,
    makespans) are deterministic and have no floor.

Groups and alignment
    Cells are aligned by (suite, family, instance content hash, solver id with its parameters,
    repetition, budget_s) — the label where a stored cell has no hash: a cell of
    BASE is compared with the cell of HEAD that ran the same thing. The budget is part of the
    key because quality and latency are only comparable at one budget, and because latency
    statistics charge failures the budget. Two cells of one store with the same key make the
    alignment ambiguous and are refused (:class:`CompareError`), never silently picked from.
    Aligned cells are summarised per group:

    * decision cells per (suite, kind, family, solver, budget);
    * simulation cells per (suite, kind, family, solver, budget, scenario) — the scenario is the
      cell's ``instance``, so each scenario × policy is compared on its own and the aggregate
      is the mean over its repetitions (averaging node usage across different workloads would
      say little).

    A group found in only one store is listed as new (HEAD only) or removed (BASE only); cells
    of a common group found in only one store are counted in the group's notes. Neither fails
    the gate. If the two stores share no cell at all there is nothing to gate, which is an
    input error (exit 2), not a pass.

Aggregates
    * Per-cell metrics (the ``metrics`` of a row: decision quality, simulation metrics): the mean
      over the aligned cells whose value is a number in *both* stores. A value that is absent or
      ``null`` in either store is left out, never guessed; if no cell has it on both sides the
      verdict is ``missing``, which is reported but does not fail the gate.
    * Latency (decision cells only): :func:`bench.quality.latency_stats` of ``latency_s`` over
      the aligned cells, failures charged the budget. When both sides have cells that ran alone
      (``concurrency == 1``) only those count, since cells sharing the machine run slower;
      otherwise all aligned cells count, and the table's note says which was used.
    * ``failures``: aligned cells that delivered no answer — status ``error``, or ``timeout``
      without an objective vector or Pareto set in the stored decision (as
      :func:`bench.quality.is_failure`).

Exit codes (:func:`main`): 0 no regression, 1 at least one regression, 2 bad input (a missing
or foreign file, a bad ``--fail`` argument, an unknown metric, a metric in neither store, an
unknown suite, nothing to compare), with one line on stderr saying what is wrong.
"""

from __future__ import annotations

import difflib
import math
import sqlite3
import sys
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tabulate import tabulate

from schedbench.bench.store import ResultStore, StoreError
from schedbench.bench.store.records import row_failed
from schedbench.simcore.catalogue import LATENCY_KEYS
from schedbench.simcore.catalogue import directions as catalogue_directions
from schedbench.simcore.errors import SchedbenchError
from schedbench.simcore.indicators import latency_stats

LOWER = "lower"
HIGHER = "higher"

#: Latency metrics computed per decision group from ``latency_s`` (name -> latency_stats key).
LATENCY_METRICS: dict[str, str] = LATENCY_KEYS


def directions() -> dict[str, str]:
    """Which way each comparable metric is better, from the metric catalogue
    (``simcore/catalogue.py``): a new kind's metrics are gateable without an edit here."""
    return catalogue_directions()


#: Metrics this module computes itself; a stored metric of the same name is not read.
_COMPUTED = (*LATENCY_METRICS, "failures")

Verdict = Literal["ok", "regressed", "improved", "missing"]

# A change smaller than this fraction of the values' magnitude is float round-off, not a change.
_REL_TOL = 1e-9


#: The default noise floor of wall-time metrics: 20 % of BASE and 5 ms, both to be exceeded
#: (two quick-suite runs on a busy 2-core machine differ by up to ~15 % at 60 ms).
NOISE_PCT = 20.0
NOISE_MS = 5.0


@dataclass(frozen=True, slots=True)
class NoiseFloor:
    """How much a wall-time metric may move between two runs of the same code before the move
    counts (module docstring): ``relative`` × |BASE| and ``absolute_s``, both to be exceeded."""

    relative: float = NOISE_PCT / 100
    absolute_s: float = NOISE_MS / 1e3

    def __post_init__(self) -> None:
        for name, value, unit in (
            ("--latency-noise-pct", self.relative * 100, "per cent"),
            ("--latency-noise-ms", self.absolute_s * 1e3, "milliseconds"),
        ):
            if not (math.isfinite(value) and value >= 0):
                raise CompareError(f"{name}: expected a number of {unit} >= 0, got {value:g}")

    def allows(self, base: float, change: float) -> bool:
        """Whether ``change`` (either direction) from ``base`` is within the noise."""
        return abs(change) <= max(self.relative * abs(base), self.absolute_s)

    def __str__(self) -> str:
        return f"{self.relative * 100:g} % and {self.absolute_s * 1e3:g} ms"


#: No floor (simulated metrics, quality).
NO_FLOOR = NoiseFloor(0.0, 0.0)


def is_wall_time(metric: str) -> bool:
    """Whether ``metric`` measures wall time on the machine (its catalogue unit is seconds and
    it is a latency or a wall time by name or definition), so that the noise floor applies."""
    from schedbench.simcore.catalogue import catalogue

    spec = catalogue().get(metric)
    return (
        spec is not None
        and spec.unit == "s"
        and ("latency" in metric or "wall time" in spec.definition)
    )


class CompareError(SchedbenchError, ValueError):
    """The stores or the ``--fail`` arguments cannot be compared as asked."""


# --------------------------------------------------------------------------------------------
# Thresholds


@dataclass(frozen=True, slots=True)
class Threshold:
    """How much worse a metric may get: ``amount`` × |base| if ``relative``, else ``amount``."""

    metric: str
    amount: float
    relative: bool
    text: str = ""

    def __post_init__(self) -> None:
        if self.metric not in directions():
            raise CompareError(_unknown_metric(self.metric, self.text or self.metric))
        if not (math.isfinite(self.amount) and self.amount >= 0):
            raise CompareError(
                f"threshold of {self.metric}: expected a finite number >= 0, got {self.amount!r}"
            )

    def allowed(self, base: float) -> float:
        """The largest worsening allowed from ``base``, in the metric's unit."""
        return self.amount * abs(base) if self.relative else self.amount

    def __str__(self) -> str:
        amount = f"{self.amount * 100:g}%" if self.relative else f"{self.amount:g}"
        return f"{self.metric}:{amount}"


_FORM = "METRIC:THRESHOLD, e.g. igd_plus:5% (relative) or igd_plus:0.01 (absolute)"


def _unknown_metric(name: str, arg: str) -> str:
    close = difflib.get_close_matches(name, directions(), n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return (
        f"--fail {arg!r}: unknown metric {name!r}{hint}; known metrics: {', '.join(directions())}"
    )


def parse_threshold(arg: str) -> Threshold:
    """``METRIC:5%`` (relative), ``METRIC:0.01`` (absolute) or ``METRIC:0`` as a Threshold.

    Raises CompareError naming ``arg`` and the expected form.
    """
    metric, sep, value = arg.partition(":")
    metric, value = metric.strip(), value.strip()
    if not sep or not metric or not value:
        raise CompareError(f"--fail {arg!r}: expected {_FORM}")
    if metric not in directions():
        raise CompareError(_unknown_metric(metric, arg))
    relative = value.endswith("%")
    number_text = value[:-1].strip() if relative else value
    try:
        number = float(number_text)
    except ValueError:
        number = math.nan
    if not (math.isfinite(number) and number >= 0):
        raise CompareError(
            f"--fail {arg!r}: threshold {value!r} is not a number >= 0; expected {_FORM}"
        )
    return Threshold(metric, number / 100 if relative else number, relative, arg)


def parse_thresholds(args: Iterable[str]) -> list[Threshold]:
    """Every ``--fail`` argument parsed; a metric given twice is an error."""
    out: dict[str, Threshold] = {}
    for arg in args:
        threshold = parse_threshold(arg)
        if threshold.metric in out:
            raise CompareError(
                f"--fail {arg!r}: metric {threshold.metric!r} already has a threshold "
                f"({out[threshold.metric].text}); give each metric once"
            )
        out[threshold.metric] = threshold
    return list(out.values())


# --------------------------------------------------------------------------------------------
# Groups, entries, the comparison


@dataclass(frozen=True, slots=True)
class Group:
    """The cells summarised together (see the module docstring)."""

    suite: str
    kind: str
    family: str | None
    solver: str
    budget_s: float | None
    scenario: str | None = None  # simulation: the instance; decision groups pool instances

    def label(self) -> str:
        parts = [self.suite, self.kind, self.family or "-", self.solver]
        if self.budget_s is not None:
            parts.append(f"{self.budget_s:g}s")
        if self.scenario is not None:
            parts.append(self.scenario)
        return " / ".join(parts)

    def sort_key(self) -> tuple[Any, ...]:
        budget = -1.0 if self.budget_s is None else self.budget_s
        return (self.suite, self.kind, self.family or "", self.solver, budget, self.scenario or "")


@dataclass(frozen=True, slots=True)
class Entry:
    """One metric of one group: the two aggregates and the verdict."""

    group: Group
    metric: str
    base: float | None
    head: float | None
    direction: str
    threshold: Threshold | None
    verdict: Verdict
    cells: int  # aligned cells the aggregate is over
    note: str = ""
    noise: NoiseFloor = NO_FLOOR  # the floor this metric was judged with

    @property
    def within_noise(self) -> bool:
        """A change, but one the noise floor absorbs (never for metrics without a floor)."""
        delta = self.delta
        return (
            self.noise != NO_FLOOR
            and delta is not None
            and self.base is not None
            and delta != 0
            and self.noise.allows(self.base, delta)
        )

    @property
    def delta(self) -> float | None:
        """head − base, or None when either is missing."""
        if self.base is None or self.head is None:
            return None
        return self.head - self.base

    @property
    def relative_delta(self) -> float | None:
        """(head − base) / |base|; 0 when both are 0, None when base is 0 alone or missing."""
        delta = self.delta
        if delta is None or self.base is None:
            return None
        if self.base == 0:
            return 0.0 if delta == 0 else None
        return delta / abs(self.base)

    @property
    def worsening(self) -> float | None:
        """How much worse HEAD is than BASE in the metric's unit (negative: better)."""
        delta = self.delta
        if delta is None:
            return None
        return delta if self.direction == LOWER else -delta

    @property
    def change(self) -> str:
        """'better', 'worse', 'same' or 'missing' — the direction of the change, gated or not."""
        if self.verdict == "missing":
            return "missing"
        worse = self.worsening
        assert worse is not None and self.base is not None and self.head is not None
        if abs(worse) <= _tolerance(self.base, self.head):
            return "same"
        return "worse" if worse > 0 else "better"


@dataclass(slots=True)
class Comparison:
    """The result of :func:`compare`."""

    entries: list[Entry]
    thresholds: list[Threshold]
    new_groups: list[Group] = field(default_factory=list)  # only in HEAD
    removed_groups: list[Group] = field(default_factory=list)  # only in BASE
    group_notes: dict[Group, list[str]] = field(default_factory=dict)
    suite: str | None = None
    base_cells: int = 0
    head_cells: int = 0
    aligned_cells: int = 0
    noise: NoiseFloor = NO_FLOOR

    @property
    def regressions(self) -> list[Entry]:
        return [e for e in self.entries if e.verdict == "regressed"]

    @property
    def missing(self) -> list[Entry]:
        return [e for e in self.entries if e.verdict == "missing"]


def _tolerance(base: float, head: float) -> float:
    return _REL_TOL * max(1.0, abs(base), abs(head))


def _judge(
    group: Group,
    metric: str,
    base: float | None,
    head: float | None,
    threshold: Threshold | None,
    cells: int,
    note: str = "",
    noise: NoiseFloor = NO_FLOOR,
) -> Entry:
    direction = directions()[metric]
    noise = noise if is_wall_time(metric) else NO_FLOOR
    verdict: Verdict
    if base is None or head is None:
        verdict = "missing"
    else:
        worse = head - base if direction == LOWER else base - head
        tol = _tolerance(base, head)
        if noise != NO_FLOOR and noise.allows(base, worse):
            verdict = "ok"
        elif threshold is not None and worse > threshold.allowed(base) + tol:
            verdict = "regressed"
        elif worse < -tol:
            verdict = "improved"
        else:
            verdict = "ok"
    return Entry(group, metric, base, head, direction, threshold, verdict, cells, note, noise)


# --------------------------------------------------------------------------------------------
# Rows


def _number(value: Any) -> float | None:
    if value is None or isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _align_key(row: Mapping[str, Any]) -> tuple[Any, ...]:
    # The instance by content (docs/design.md#results-that-survive-a-crash): a renamed label still
    # aligns, a changed problem does not. Cells stored without a hash (failed cells of stores
    # written before) use the label.
    return (
        row.get("suite"),
        row.get("family"),
        row.get("instance_hash") or row.get("instance"),
        row.get("solver"),
        row.get("repetition"),
        _number(row.get("budget_s")),
    )


def _group_of(row: Mapping[str, Any]) -> Group:
    kind = str(row.get("kind"))
    return Group(
        suite=str(row.get("suite")),
        kind=kind,
        family=row.get("family"),
        solver=str(row.get("solver")),
        budget_s=_number(row.get("budget_s")),
        scenario=row.get("instance") if kind == "simulation" else None,
    )


def _index(rows: Sequence[Mapping[str, Any]], side: str) -> dict[tuple[Any, ...], Any]:
    index: dict[tuple[Any, ...], Any] = {}
    for row in rows:
        key = _align_key(row)
        if key in index:
            suite, family, instance, solver, repetition, budget = key
            raise CompareError(
                f"{side}: cells {index[key].get('cell_id')!r} and {row.get('cell_id')!r} both "
                f"ran suite {suite!r}, family {family!r}, instance {instance!r}, solver "
                f"{solver!r}, repetition {repetition!r}, budget {budget!r}; cannot tell which "
                "to compare (expected one cell per key)"
            )
        index[key] = row
    return index


def _metrics(row: Mapping[str, Any]) -> Mapping[str, Any]:
    metrics = row.get("metrics")
    return metrics if isinstance(metrics, Mapping) else {}


def _stored_metric_names(rows: Iterable[Mapping[str, Any]]) -> set[str]:
    return {
        name
        for row in rows
        for name in _metrics(row)
        if name in directions() and name not in _COMPUTED
    }


def _has_latency(rows: Iterable[Mapping[str, Any]]) -> bool:
    return any(
        row.get("kind") == "decision" and (row.get("latency_s") is not None or row_failed(row))
        for row in rows
    )


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values)


# --------------------------------------------------------------------------------------------
# The comparison


def compare(
    base_rows: Sequence[Mapping[str, Any]],
    head_rows: Sequence[Mapping[str, Any]],
    fails: Sequence[Threshold],
    *,
    suite: str | None = None,
    noise: NoiseFloor = NoiseFloor(),
) -> Comparison:
    """Compare the cells of BASE and HEAD (rows as ``ResultStore.rows`` returns them).

    ``fails`` are the gates; every metric with a direction found in the cells is compared, gated
    or not. ``suite`` restricts both sides to one suite; ``noise`` is the floor of the wall-time
    metrics (module docstring). Raises CompareError when a metric of
    ``fails`` appears in neither side, a metric is gated twice, a side has two cells with the
    same alignment key, or no cell is common to both sides.
    """
    gates: dict[str, Threshold] = {}
    for threshold in fails:
        if threshold.metric in gates:
            raise CompareError(f"--fail: metric {threshold.metric!r} has two thresholds")
        gates[threshold.metric] = threshold
    if suite is not None:
        base_rows = [r for r in base_rows if r.get("suite") == suite]
        head_rows = [r for r in head_rows if r.get("suite") == suite]

    present = _stored_metric_names(base_rows) | _stored_metric_names(head_rows)
    if base_rows or head_rows:
        present.add("failures")
    if _has_latency(base_rows) or _has_latency(head_rows):
        present.update(LATENCY_METRICS)
    absent = [t for t in gates.values() if t.metric not in present]
    if absent:
        found = ", ".join(m for m in directions() if m in present) or "none"
        raise CompareError(
            f"--fail {absent[0].text or str(absent[0])!r}: metric {absent[0].metric!r} is in "
            f"neither store (metrics found: {found})"
        )

    base_index = _index(base_rows, "BASE")
    head_index = _index(head_rows, "HEAD")
    common = base_index.keys() & head_index.keys()
    if not common:
        where = f"suite {suite!r}" if suite is not None else "any suite"
        raise CompareError(
            f"nothing to compare: BASE ({len(base_rows)} cells) and HEAD ({len(head_rows)} cells) "
            f"share no cell of {where} (cells align by suite, family, instance, solver, "
            "repetition and budget)"
        )

    base_by_group: dict[Group, list[Mapping[str, Any]]] = defaultdict(list)
    head_by_group: dict[Group, list[Mapping[str, Any]]] = defaultdict(list)
    pairs: dict[Group, list[tuple[Mapping[str, Any], Mapping[str, Any]]]] = defaultdict(list)
    for row in base_rows:
        base_by_group[_group_of(row)].append(row)
    for row in head_rows:
        head_by_group[_group_of(row)].append(row)
    for key in common:
        pairs[_group_of(base_index[key])].append((base_index[key], head_index[key]))

    comparison = Comparison(
        entries=[],
        thresholds=list(gates.values()),
        new_groups=sorted(head_by_group.keys() - base_by_group.keys(), key=Group.sort_key),
        removed_groups=sorted(base_by_group.keys() - head_by_group.keys(), key=Group.sort_key),
        suite=suite,
        base_cells=len(base_rows),
        head_cells=len(head_rows),
        aligned_cells=len(common),
        noise=noise,
    )
    for group in sorted(base_by_group.keys() & head_by_group.keys(), key=Group.sort_key):
        group_pairs = sorted(pairs.get(group, []), key=lambda p: _sortable(_align_key(p[0])))
        notes = []
        only_base = len(base_by_group[group]) - len(group_pairs)
        only_head = len(head_by_group[group]) - len(group_pairs)
        if only_base or only_head:
            notes.append(
                f"{len(group_pairs)} cells in both stores; {only_base} only in BASE, "
                f"{only_head} only in HEAD (not compared)"
            )
        if notes:
            comparison.group_notes[group] = notes
        comparison.entries.extend(
            _group_entries(
                group, group_pairs, base_by_group[group], head_by_group[group], gates, noise
            )
        )
    return comparison


def _sortable(key: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple((value is None, "" if value is None else str(value)) for value in key)


def _group_entries(
    group: Group,
    pairs: list[tuple[Mapping[str, Any], Mapping[str, Any]]],
    base_rows: list[Mapping[str, Any]],
    head_rows: list[Mapping[str, Any]],
    gates: Mapping[str, Threshold],
    noise: NoiseFloor,
) -> list[Entry]:
    entries: dict[str, Entry] = {}
    n = len(pairs)

    for metric in _stored_metric_names([*base_rows, *head_rows]):
        values = []
        for b, h in pairs:
            vb, vh = _number(_metrics(b).get(metric)), _number(_metrics(h).get(metric))
            if vb is not None and vh is not None:
                values.append((vb, vh))
        if values:
            lacking = n - len(values)
            note = f"{lacking} of {n} cells lack it in a store, left out" if lacking else ""
            base = _mean([vb for vb, _ in values])
            head = _mean([vh for _, vh in values])
            entries[metric] = _judge(
                group, metric, base, head, gates.get(metric), len(values), note, noise
            )
        else:
            in_base = sum(_number(_metrics(b).get(metric)) is not None for b, _ in pairs)
            in_head = sum(_number(_metrics(h).get(metric)) is not None for _, h in pairs)
            note = f"no cell has it in both stores (BASE {in_base}, HEAD {in_head} of {n} cells)"
            entries[metric] = _judge(group, metric, None, None, gates.get(metric), 0, note)

    if group.kind == "decision" and (_has_latency(base_rows) or _has_latency(head_rows)):
        entries.update(_latency_entries(group, pairs, gates, noise))

    if pairs:
        failures_b = sum(row_failed(b) for b, _ in pairs)
        failures_h = sum(row_failed(h) for _, h in pairs)
        entries["failures"] = _judge(
            group, "failures", float(failures_b), float(failures_h), gates.get("failures"), n
        )
    return [entries[m] for m in directions() if m in entries]


def _latency_entries(
    group: Group,
    pairs: list[tuple[Mapping[str, Any], Mapping[str, Any]]],
    gates: Mapping[str, Threshold],
    noise: NoiseFloor,
) -> dict[str, Entry]:
    alone_b = [b for b, _ in pairs if b.get("concurrency") == 1]
    alone_h = [h for _, h in pairs if h.get("concurrency") == 1]
    if alone_b and alone_h:
        rows_b, rows_h = alone_b, alone_h
        note = f"cells run alone (concurrency 1): BASE {len(rows_b)}, HEAD {len(rows_h)}"
    else:
        rows_b, rows_h = [b for b, _ in pairs], [h for _, h in pairs]
        note = f"all {len(pairs)} cells, concurrent ones included (not both stores ran any alone)"
    stats_b, skipped_b = _latency(rows_b, group.budget_s)
    stats_h, skipped_h = _latency(rows_h, group.budget_s)
    if group.budget_s is None:
        note = "no budget_s stored: latency statistics need it"
    elif skipped_b or skipped_h:
        note += f"; answered cells without latency_s left out: BASE {skipped_b}, HEAD {skipped_h}"
    cells = min(len(rows_b), len(rows_h))
    out = {}
    for metric, key in LATENCY_METRICS.items():
        base = None if stats_b is None else _number(stats_b[key])
        head = None if stats_h is None else _number(stats_h[key])
        out[metric] = _judge(group, metric, base, head, gates.get(metric), cells, note, noise)
    return out


def _latency(
    rows: list[Mapping[str, Any]], budget_s: float | None
) -> tuple[dict[str, Any] | None, int]:
    """latency_stats over ``rows`` (None without a budget or a usable row), and how many
    answered rows had no latency and were left out."""
    latencies, failed, skipped = [], [], 0
    for row in rows:
        fail = row_failed(row)
        latency = _number(row.get("latency_s"))
        if latency is None and not fail:
            skipped += 1
            continue
        latencies.append(math.nan if latency is None else latency)
        failed.append(fail)
    if budget_s is None or budget_s <= 0 or not latencies:
        return None, skipped
    return latency_stats(latencies, budget_s, failed=failed), skipped


# --------------------------------------------------------------------------------------------
# Report


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.4g}"


def _fmt_delta(entry: Entry) -> tuple[str, str]:
    delta, rel = entry.delta, entry.relative_delta
    if delta is None:
        return "", ""
    d = "0" if delta == 0 else f"{delta:+.3g}"
    r = "" if rel is None else ("0%" if rel == 0 else f"{rel * 100:+.1f}%")
    return d, r


def format_comparison(comparison: Comparison, fmt: str = "simple") -> str:
    """The comparison as text: ``fmt`` 'simple' (terminal) or 'github' (Markdown).

    One table of every compared metric (gated or not): BASE, HEAD, change, which way is better,
    the gate and the verdict, regressions marked; then new and removed groups, notes, the list
    of regressions and a one-line summary.
    """
    if fmt not in ("simple", "github"):
        raise CompareError(f"fmt: expected 'simple' or 'github', got {fmt!r}")
    md = fmt == "github"

    def mark(text: str) -> str:
        return f"**{text}**" if md else text

    rows = []
    previous: Group | None = None
    previous_note = ""
    for e in comparison.entries:
        # The latency note is the same for the five latency rows of a group: say it once.
        note = "" if e.group == previous and e.note == previous_note else e.note
        previous_note = e.note
        delta, rel = _fmt_delta(e)
        verdict = {"regressed": mark("REGRESSED"), "missing": "missing"}.get(e.verdict, e.verdict)
        if e.verdict == "ok" and e.within_noise:
            verdict = "ok (noise)"
        elif e.verdict == "ok" and e.change == "worse":
            verdict = "ok (worse)"
        rows.append(
            [
                e.group.label() if e.group != previous else "",
                e.metric,
                _fmt(e.base),
                _fmt(e.head),
                delta,
                rel,
                "lower" if e.direction == LOWER else "higher",
                "" if e.threshold is None else str(e.threshold).partition(":")[2],
                verdict,
                note,
            ]
        )
        previous = e.group
    headers = ["group", "metric", "BASE", "HEAD", "Δ", "Δ%", "better", "gate", "verdict", "note"]
    lines = []
    if md:
        lines.append("### schedbench compare")
        lines.append("")
    lines.append(
        f"cells: BASE {comparison.base_cells}, HEAD {comparison.head_cells}, "
        f"{comparison.aligned_cells} in both"
        + (f" (suite {comparison.suite})" if comparison.suite else "")
        + "; gates: "
        + (", ".join(map(str, comparison.thresholds)) or "none (report only)")
        + (
            f"; latency noise floor: a change counts above {comparison.noise}"
            if comparison.noise != NO_FLOOR
            else "; no latency noise floor"
        )
    )
    lines.append("")
    lines.append(tabulate(rows, headers=headers, tablefmt=fmt, disable_numparse=True))

    bullet = "- " if md else "  "
    extra = []
    if comparison.new_groups:
        extra.append("New groups (only in HEAD, not compared):")
        extra += [bullet + g.label() for g in comparison.new_groups]
    if comparison.removed_groups:
        extra.append("Removed groups (only in BASE, not compared):")
        extra += [bullet + g.label() for g in comparison.removed_groups]
    if comparison.group_notes:
        extra.append("Notes:")
        extra += [
            f"{bullet}{g.label()}: {note}"
            for g, notes in comparison.group_notes.items()
            for note in notes
        ]
    gated_missing = [e for e in comparison.missing if e.threshold is not None]
    if gated_missing:
        extra.append("Gated metrics without a value on both sides (reported, not failed):")
        extra += [f"{bullet}{e.group.label()}: {e.metric} ({e.note})" for e in gated_missing]
    regressions = comparison.regressions
    if regressions:
        extra.append("Regressions:")
        for e in regressions:
            assert e.threshold is not None and e.base is not None and e.worsening is not None
            extra.append(
                f"{bullet}{e.group.label()}: {mark(e.metric)} {_fmt(e.base)} -> {_fmt(e.head)} "
                f"({e.direction} is better): worse by {e.worsening:.4g}, "
                f"gate {e.threshold} allows {e.threshold.allowed(e.base):.4g}"
            )
    if extra:
        lines.append("")
        lines += extra
    lines.append("")
    gated = sum(e.threshold is not None for e in comparison.entries)
    if regressions:
        lines.append(mark(f"FAIL: {len(regressions)} regression(s) in {gated} gated comparison(s)"))
    else:
        lines.append(f"OK: no regression in {gated} gated comparison(s)")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# Command


def _load(path: str | Path, side: str, suite: str | None) -> list[dict[str, Any]]:
    try:
        with ResultStore(path, readonly=True) as store:
            if suite is not None and suite not in store.suites():
                known = ", ".join(store.suites()) or "none"
                raise CompareError(f"{side} {path}: no suite {suite!r} (suites: {known})")
            return store.rows(suite)
    except StoreError as exc:
        raise CompareError(f"{side}: {exc}") from exc
    except sqlite3.Error as exc:
        raise CompareError(f"{side} {path}: cannot read the results store: {exc}") from exc


def main(
    base_path: str | Path,
    head_path: str | Path,
    fail_args: Sequence[str],
    *,
    suite: str | None = None,
    markdown: bool = False,
    noise_pct: float = NOISE_PCT,
    noise_ms: float = NOISE_MS,
) -> int:
    """Run the gate: print the comparison on stdout and return the exit code. ``noise_pct`` and
    ``noise_ms``: the noise floor of the wall-time metrics (module docstring).

    0 no regression, 1 at least one regression, 2 bad input (one line on stderr).
    """
    try:
        noise = NoiseFloor(noise_pct / 100, noise_ms / 1e3)
        thresholds = parse_thresholds(fail_args)
        base_rows = _load(base_path, "BASE", suite)
        head_rows = _load(head_path, "HEAD", suite)
        comparison = compare(base_rows, head_rows, thresholds, suite=suite, noise=noise)
    except CompareError as exc:
        print(f"schedbench: error: {exc}", file=sys.stderr)
        return 2
    print(f"BASE {base_path}\nHEAD {head_path}")
    print(format_comparison(comparison, "github" if markdown else "simple"))
    return 1 if comparison.regressions else 0
