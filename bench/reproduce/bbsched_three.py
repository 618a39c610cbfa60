"""The three-way agreement table of ``schedbench reproduce bbsched``: every finding of BBSched §4
judged three ways.

Columns: *paper* (the paper's value), *authors' code* (the ``cqsim`` profile,
``simcore/cqsim.py``: CQSim's rules, on the same workloads and operating point) and *ours* (the
paper's text, the default profile). Each measured cell is a mean over the seeds with its 95 %
interval (``bbsched.estimate``) and a verdict that follows from that interval alone:

* ``agree`` / ``disagree`` / ``inconclusive`` — by one of three rules, named in every row:
  a *change* the paper reports with a size (``judge_change``: ``bbsched.verdict``'s yes is
  agree; partly — right direction, another size — and no are disagree), a *direction* without
  a size (``judge_direction``: the interval excludes 0 on the paper's side, on the other side,
  or contains 0), or a *band* the paper's value allows (``judge_band``: the interval inside the
  band, outside it, or across an edge; Table 3's usage ±10 points, its waits and slowdowns
  within a factor 2);
* ``calibrated`` — the load was fitted to this very figure (Table 3's usage at w = 20, which
  ``--calibrate`` matched): agreement there is by construction, so it is not counted as such;
* ``not runnable`` — the authors' code cannot run the configuration (another method, a
  window above 10); the cell gives the reason and no value;
* ``not measured`` — this run lacks the scenario (``--quick`` runs S4 only) or the paper's
  workload has no stand-in (the original traces).

The cqsim profile runs FCFS order on both machines (no WFP), the baseline as CQSim's ``-u F``
and BBSched as ``-u M`` at window 10 (its exact selection; CQSim switches to a random GA above
10 fitting jobs); each cell of that column says so where it matters.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from schedbench.bench.reproduce._bbsched_setup import (
    BASELINE,
    CALIBRATION_SEEDS,
    PAPER_EIGHT,
    TABLE3,
    WINDOWS,
    Results,
    kiviat_area,
)
from schedbench.bench.reproduce._intervals import Estimate, estimate, verdict

#: The paper's two machines (every finding is a row even when a run has only one of them).
_MACHINES = {"theta": "Theta", "cori": "Cori"}
#: Verdicts a measured cell can have; the other two say why a cell has no value.
VERDICTS = ("agree", "disagree", "inconclusive", "calibrated")
NOT_RUNNABLE = "not runnable"
NOT_MEASURED = "not measured"
#: The largest window the cqsim profile runs (CQSim enumerates up to 10 fitting jobs).
CODE_WINDOW = 10
#: three_way.csv columns.
THREE_WAY_COLUMNS = (
    "finding",
    "paper",
    "authors_code",
    "authors_code_verdict",
    "ours",
    "ours_verdict",
    "rule",
    "reason",
)

_OTHER_METHODS = (
    "only the baseline and BBSched: the authors' code has the baseline (-u F) and BBSched's "
    "window (-u M) and none of the other methods"
)
_BIG_WINDOW = (
    "window {w} > 10: above 10 fitting jobs CQSim switches to a random GA, which the cqsim "
    "profile does not reproduce"
)


@dataclass(frozen=True, slots=True)
class Cell:
    """One column of a row: the value (with its interval), its verdict, and why."""

    value: str
    verdict: str
    why: str = ""
    estimate: Estimate | None = None


@dataclass(frozen=True, slots=True)
class Row:
    finding: str
    paper: str
    code: Cell
    ours: Cell
    #: how the verdicts were taken (change / direction / band), with the paper's value
    rule: str
    reason: str = ""

    def csv(self) -> dict[str, str]:
        return {
            "finding": self.finding,
            "paper": self.paper,
            "authors_code": self.code.value,
            "authors_code_verdict": self.code.verdict,
            "ours": self.ours.value,
            "ours_verdict": self.ours.verdict,
            "rule": self.rule,
            "reason": "; ".join(
                x
                for x in (
                    self.reason,
                    f"authors' code: {self.code.why}" if self.code.why else "",
                    f"ours: {self.ours.why}" if self.ours.why else "",
                )
                if x
            ),
        }


# ---------------------------------------------------------------------------------------------
# Verdicts from intervals
# ---------------------------------------------------------------------------------------------


def judge_change(e: Estimate, paper: float) -> str:
    """A change the paper reports with its size (``bbsched.verdict``): agree when the interval
    excludes 0 on the paper's side and contains its value, inconclusive when it contains both,
    disagree otherwise (another size, no change, or the other direction)."""
    v = verdict(e, paper)
    return {"yes": "agree", "inconclusive": "inconclusive"}.get(v, "disagree")


def judge_direction(e: Estimate, sign: int) -> str:
    """A direction without a size (``sign`` +1: up, -1: down): agree when the interval excludes
    0 on that side, disagree when it excludes 0 on the other, inconclusive when it contains 0."""
    if (e.above_zero and sign > 0) or (e.below_zero and sign < 0):
        return "agree"
    if e.above_zero or e.below_zero:
        return "disagree"
    return "inconclusive"


def judge_band(e: Estimate, low: float, high: float) -> str:
    """A value the paper allows within ``[low, high]`` (either may be infinite): agree when the
    interval lies inside, disagree when it lies wholly outside, inconclusive across an edge."""
    if low <= e.low and e.high <= high:
        return "agree"
    if e.high < low or e.low > high:
        return "disagree"
    return "inconclusive"


def judge_all(verdicts: Sequence[str]) -> str:
    """A claim over several workloads or methods: agree when every part agrees, disagree when
    any part disagrees, inconclusive otherwise."""
    if verdicts and all(v == "agree" for v in verdicts):
        return "agree"
    if "disagree" in verdicts:
        return "disagree"
    return "inconclusive"


# ---------------------------------------------------------------------------------------------
# One column's runs
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Side:
    """The runs behind one column: results, S4 breakdowns, and BBSched's window there (the
    baseline is filed at w = 20 on both sides)."""

    res: Results
    breakdowns: Sequence[dict[str, Any]]
    window: int
    code: bool = False

    def w(self, method: str) -> int:
        return self.window if method == "bbsched" else 20

    def has(self, sc: str, method: str, window: int | None = None) -> bool:
        return (sc, method, self.w(method) if window is None else window) in self.res.by

    def delta(
        self, sc: str, method: str, key: str, how: str, base: str = BASELINE
    ) -> Estimate | None:
        return self.res.delta(
            sc, method, key, how, window=self.w(method), base=(base, self.w(base))
        )

    def per_seed(
        self, sc: str, method: str, key: str, window: int | None = None
    ) -> dict[int, float]:
        w = self.w(method) if window is None else window
        return {
            s: float(r[key])
            for s, r in self.res.by.get((sc, method, w), {}).items()
            if r[key] is not None
        }


def _missing(sc: str, what: str = "") -> Cell:
    scen = sc.partition("-")[2]
    why = (
        "--quick runs S4 only; this needs the full run (S1-S4)"
        if scen != "S4"
        else f"{what or sc} is not in this run"
    )
    return Cell(NOT_MEASURED, NOT_MEASURED, why)


def _cell(e: Estimate | None, judged: str, fmt: str, unit: str, note: str = "") -> Cell:
    assert e is not None
    return Cell(e.text(fmt, unit), judged, note, e)


def _paired(xs: dict[int, float], ys: dict[int, float], how: str) -> Estimate | None:
    """Per-seed ``x - y`` (points, as given) or ``100 (x - y) / y`` (percent)."""
    seeds = sorted(set(xs) & set(ys))
    if how == "percent":
        return estimate(100 * (xs[s] - ys[s]) / ys[s] for s in seeds if ys[s])
    return estimate(xs[s] - ys[s] for s in seeds)


def _scale(e: Estimate | None, k: float) -> Estimate | None:
    return None if e is None else Estimate(k * e.mean, k * e.low, k * e.high, e.n)


# ---------------------------------------------------------------------------------------------
# Rows
# ---------------------------------------------------------------------------------------------

Measure = Callable[[Side], Cell]


class _Table:
    """Collects rows: each finding measured on both sides with one function; the authors'
    column is ``not runnable`` with the reason where their code cannot run the configuration."""

    def __init__(self, ours: Side, code: Side | None):
        self.ours, self.code, self.rows = ours, code, []  # type: ignore[var-annotated]

    def add(
        self,
        finding: str,
        paper: str,
        rule: str,
        measure: Measure,
        *,
        code_blocked: str | None = None,
        reason: str = "",
    ) -> None:
        if code_blocked is not None:
            # the value names the reason, the text after its first colon explains it
            short, _, _ = code_blocked.partition(":")
            code = Cell(f"not runnable in the authors' code: {short}", NOT_RUNNABLE, code_blocked)
        elif self.code is None:
            code = Cell(NOT_MEASURED, NOT_MEASURED, "run without the cqsim profile's runs")
        else:
            code = measure(self.code)
        self.rows.append(Row(finding, paper, code, measure(self.ours), rule, reason))


def three_way_rows(ours: Side, code: Side | None, seeds: Sequence[int]) -> list[Row]:
    """Every finding of BBSched §4 (and its conclusion and §5), in the paper's order."""
    t = _Table(ours, code)
    _table3_rows(t, seeds)
    _regime_rows(t)
    _node_rows(t)
    _bb_rows(t)
    _wait_rows(t)
    _breakdown_rows(t)
    _overall_rows(t)
    return t.rows


# --- Table 3 ---------------------------------------------------------------------------------


def _table3_measure(
    machine: str,
    w: int,
    key: str,
    band: tuple[float, float],
    fmt: str,
    unit: str,
    fitted: list[int],
) -> Measure:
    """BBSched's mean ``key`` on ``machine``-S4 at window ``w`` against Table 3's band."""
    sc, usage = f"{machine}-S4", key.endswith("usage")

    def measure(side: Side) -> Cell:
        e = side.res.mean(sc, "bbsched", w, key)
        if e is None:
            return _missing(sc, f"BBSched at w = {w}")
        e = _scale(e, 100) if usage else e
        assert e is not None
        judged = judge_band(e, *band)
        if usage and w == 20 and not side.code:
            seeds_note = (
                f"seeds {fitted} are among those it was fitted on"
                if fitted
                else f"fitted on seeds {list(CALIBRATION_SEEDS)}, measured on others "
                f"({judged} by the band)"
            )
            why = f"the operating point's load was fitted to this figure; {seeds_note}"
            return _cell(e, "calibrated", fmt, unit, why)
        note = "FCFS order (the profile has no WFP)" if side.code and machine == "theta" else ""
        return _cell(e, judged, fmt, unit, note)

    return measure


def _table3_rows(t: _Table, seeds: Sequence[int]) -> None:
    fitted = sorted(set(seeds) & set(CALIBRATION_SEEDS))
    for machine in _MACHINES:
        label = _MACHINES[machine]
        for w in WINDOWS:
            values = TABLE3[(machine, w)]
            for idx, what, key, fmt, unit in (
                (0, "CPU usage", "node_usage", "{:.1f}", " %"),
                (1, "BB usage", "bb_usage", "{:.1f}", " %"),
                (2, "mean wait", "mean_wait_s", "{:,.0f}", " s"),
                (3, "mean slowdown", "mean_slowdown", "{:.2f}", ""),
            ):
                paper = values[idx]
                usage = idx < 2
                band = (paper - 10, paper + 10) if usage else (paper / 2, paper * 2)
                t.add(
                    f"Table 3: BBSched {what}, {label}-S4, w = {w}",
                    (f"{paper:.2f} %" if usage else fmt.format(paper) + unit),
                    "band: within 10 points" if usage else "band: within a factor 2",
                    _table3_measure(machine, w, key, band, fmt, unit, fitted),
                    code_blocked=_BIG_WINDOW.format(w=w) if w > CODE_WINDOW else None,
                )


# --- The regime and node usage (Figure 6) ----------------------------------------------------


def _across(side: Side, method: str, key: str, sc_a: str, sc_b: str, how: str) -> Estimate | None:
    """Per-seed change of ``method``'s ``key`` from scenario ``sc_a`` to ``sc_b``."""
    return _paired(side.per_seed(sc_b, method, key), side.per_seed(sc_a, method, key), how)


def _regime_rows(t: _Table) -> None:
    for machine in _MACHINES:
        sc, label = f"{machine}-S4", _MACHINES[machine]

        def bound(side: Side, sc: str = sc) -> Cell:
            bb = side.per_seed(sc, BASELINE, "bb_usage")
            node = side.per_seed(sc, BASELINE, "node_usage")
            e = _scale(_paired(bb, node, "points"), 100)
            if e is None:
                return _missing(sc)
            return _cell(e, judge_direction(e, +1), "{:+.1f}", " points")

        t.add(
            f"S4 is burst-buffer bound: the baseline's BB usage exceeds its node usage ({label})",
            "S3/S4 burst-buffer bound (Figure 6-7, Table 3: 90-95 % BB against 65-73 % nodes)",
            "direction: BB minus node usage > 0",
            bound,
        )

        def falls(side: Side, machine: str = machine) -> Cell:
            e = _scale(
                _across(side, BASELINE, "node_usage", f"{machine}-S1", f"{machine}-S4", "points"),
                100,
            )
            if e is None:
                return _missing(f"{machine}-S1")
            return _cell(e, judge_direction(e, -1), "{:+.1f}", " points")

        t.add(
            f"Heavy BB requests waste nodes: the baseline's node usage falls from S1 to S4 ({label})",
            "noticeable drops in node usage with heavy BB requests (Figure 6)",
            "direction: S4 minus S1 < 0",
            falls,
        )


def _best_other(side: Side, sc: str, key: str, lowest: bool = False) -> str | None:
    """The best of the paper's other seven methods on ``key`` (mean over the seeds)."""
    means = {}
    for m in PAPER_EIGHT:
        e = side.res.mean(sc, m, 20, key) if m != "bbsched" else None
        if e is not None:
            means[m] = e.mean
    if not means:
        return None
    return (min if lowest else max)(means, key=lambda m: means[m])


def _s4(side: Side) -> list[str]:
    return [sc for sc in side.res.scenarios if sc.endswith("-S4")]


def _beats_all(side: Side, key: str, how: str, sign: int, scenarios: Sequence[str]) -> Cell:
    """BBSched against the best other method on every scenario (paired per seed)."""
    parts, judged = [], []
    for sc in scenarios:
        if not all(side.has(sc, m) for m in PAPER_EIGHT):
            continue
        best = _best_other(side, sc, key, lowest=sign < 0)
        if best is None:
            continue
        e = side.delta(sc, "bbsched", key, how, base=best)  # points or per cent already
        if e is None:
            continue
        judged.append(judge_direction(e, sign))
        unit = " points" if how == "points" else " %"
        parts.append(f"{sc}: {e.text('{:+.1f}', unit)} vs {best}")
    if not parts:
        return Cell(NOT_MEASURED, NOT_MEASURED, "the eight methods are not all in this run")
    return Cell("; ".join(parts), judge_all(judged), "BBSched minus the best other method")


def _change(
    sc: str, method: str, key: str, how: str, paper: float, base: str = BASELINE
) -> Measure:
    """A change against ``base`` the paper reports with its size (usage in relative per cent
    when ``how`` is percent)."""

    def measure(side: Side) -> Cell:
        if not (side.has(sc, method) and side.has(sc, base)):
            return _missing(sc, f"{method} on {sc}")
        e = side.delta(sc, method, key, how, base=base)
        if e is None:
            return _missing(sc)
        note = f"BBSched at w = {side.window}" if side.code and method == "bbsched" else ""
        return _cell(
            e, judge_change(e, paper), "{:+.1f}", " %" if how == "percent" else " points", note
        )

    return measure


def _node_rows(t: _Table) -> None:
    t.add(
        "BBSched has the best node usage on Theta-S4 and Cori-S4 (Figure 6; best on 7 of 10 "
        "workloads, Constrained_CPU on Cori-Original, Theta-S1, Theta-S2)",
        "best on Theta-S4 and Cori-S4",
        "direction: BBSched minus the best other method > 0 on every S4",
        lambda side: _beats_all(side, "node_usage", "points", +1, _s4(side)),
        code_blocked=_OTHER_METHODS,
    )
    for machine, scen, gain in (
        ("theta", "S3", 12.69),
        ("theta", "S4", 20.03),
        ("cori", "S4", 16.28),
    ):
        sc = f"{machine}-{scen}"
        t.add(
            f"BBSched raises node usage against the baseline on {_MACHINES[machine]}-{scen}",
            f"+{gain:g} % (relative)",
            f"change: +{gain:g} % relative",
            _change(sc, "bbsched", "node_usage", "percent", gain),
        )
    for method, name, node, bb in (
        ("weighted-bb", "Weighted_BB", -6.11, 10.54),
        ("constrained-bb", "Constrained_BB", -4.84, 12.09),
    ):
        t.add(
            f"{name} gives up nodes for burst buffer on Theta-S1: node usage (§4.4)",
            f"{node:+.2f} % (relative)",
            f"change: {node:+.2f} % relative",
            _change("theta-S1", method, "node_usage", "percent", node),
            code_blocked=_OTHER_METHODS,
        )
        t.add(
            f"{name} gives up nodes for burst buffer on Theta-S1: BB usage (§4.4)",
            f"{bb:+.2f} % (relative)",
            f"change: {bb:+.2f} % relative",
            _change("theta-S1", method, "bb_usage", "percent", bb),
            code_blocked=_OTHER_METHODS,
        )
    for key, what, value in (("node_usage", "node", 0.18), ("bb_usage", "BB", -1.33)):
        t.add(
            f"Constrained_CPU on Cori-S1: {what} usage (§4.4)",
            f"{value:+.2f} % (relative)",
            f"change: {value:+.2f} % relative",
            _change("cori-S1", "constrained-cpu", key, "percent", value),
            code_blocked=_OTHER_METHODS,
        )
    for machine, a, b in (("cori", "S3", "S4"), ("theta", "S2", "S3")):
        sc_a, sc_b = f"{machine}-{a}", f"{machine}-{b}"

        def drop(side: Side, sc_a: str = sc_a, sc_b: str = sc_b) -> Cell:
            e = _across(side, "constrained-cpu", "node_usage", sc_a, sc_b, "percent")
            if e is None:
                return _missing(sc_a if not side.has(sc_a, "constrained-cpu") else sc_b)
            return _cell(e, judge_band(e, -math.inf, -15), "{:+.1f}", " %")

        t.add(
            f"Constrained_CPU's node usage drops more than 15 % from {sc_a} to {sc_b} (§4.4)",
            "< -15 % (relative)",
            "band: below -15 %",
            drop,
            code_blocked=_OTHER_METHODS,
        )

    def binpack(side: Side) -> Cell:
        best: tuple[float, str, Estimate] | None = None
        for sc in side.res.scenarios:
            for key in ("node_usage", "bb_usage"):
                e = side.delta(sc, "binpack", key, "percent") if side.has(sc, "binpack") else None
                if e is not None and (best is None or e.mean > best[0]):
                    best = (e.mean, f"{sc} {key.split('_')[0]}", e)
        if best is None:
            return Cell(NOT_MEASURED, NOT_MEASURED, "binpack is not in this run")
        e = best[2]
        return Cell(
            f"{best[1]}: {e.text('{:+.1f}', ' %')}",
            judge_band(e, -math.inf, 3.72),
            "its largest mean gain over the workloads of this run",
            e,
        )

    t.add(
        "Bin_Packing improves node and BB usage by no more than 3.72 % (§4.4)",
        "<= +3.72 % (relative)",
        "band: the largest gain at most +3.72 %",
        binpack,
        code_blocked=_OTHER_METHODS + " (CQSim's -u B bin packing is not in the cqsim profile)",
    )


# --- Burst-buffer usage (Figure 7) and waits (Figures 8, 12) ---------------------------------

#: The paper's seven methods other than the baseline.
_OPTIMISERS = tuple(m for m in PAPER_EIGHT if m != BASELINE)


def _every_method(
    side: Side, key: str, how: str, sign: int, methods: Sequence[str] = _OPTIMISERS
) -> Cell:
    """Each method against the baseline on every scenario of the run, in one direction."""
    judged, weakest = [], None
    for sc in side.res.scenarios:
        for m in methods:
            if not side.has(sc, m):
                continue
            e = side.delta(sc, m, key, how)
            if e is None:
                continue
            judged.append(judge_direction(e, sign))
            edge = e.high if sign < 0 else -e.low
            if weakest is None or edge > weakest[0]:
                weakest = (edge, f"{sc} {m}", e)
    if weakest is None:
        return Cell(NOT_MEASURED, NOT_MEASURED, "the paper's methods are not in this run")
    unit = " %" if how == "percent" else " points"
    agreeing = sum(1 for v in judged if v == "agree")
    return Cell(
        f"{agreeing} of {len(judged)} method x workload pairs; weakest {weakest[1]} "
        f"{weakest[2].text('{:+.1f}', unit)}",
        judge_all(judged),
        "each against the baseline, paired per seed",
    )


def _bb_rows(t: _Table) -> None:
    t.add(
        "Every method except Constrained_CPU raises BB usage (Figure 7)",
        "all six raise it",
        "direction: each change > 0",
        lambda side: _every_method(
            side, "bb_usage", "percent", +1, [m for m in _OPTIMISERS if m != "constrained-cpu"]
        ),
        code_blocked=_OTHER_METHODS,
    )

    def ccpu(side: Side) -> Cell:
        parts, judged = [], []
        for sc in side.res.scenarios:
            if side.has(sc, "constrained-cpu"):
                e = side.delta(sc, "constrained-cpu", "bb_usage", "percent")
                if e is not None:
                    judged.append(judge_band(e, -math.inf, 0))
                    parts.append(f"{sc} {e.text('{:+.1f}', ' %')}")
        if not parts:
            return Cell(NOT_MEASURED, NOT_MEASURED, "constrained-cpu is not in this run")
        return Cell("; ".join(parts), judge_all(judged))

    t.add(
        "Constrained_CPU does not raise BB usage (Figure 7)",
        "no gain (unsatisfactory)",
        "band: change at most 0",
        ccpu,
        code_blocked=_OTHER_METHODS,
    )
    t.add(
        "BBSched has the best BB usage on every workload (Figure 7)",
        "best on all 10",
        "direction: BBSched minus the best other method > 0 on every workload",
        lambda side: _beats_all(side, "bb_usage", "points", +1, side.res.scenarios),
        code_blocked=_OTHER_METHODS,
    )

    def largest(side: Side) -> Cell:
        best = None
        for sc in side.res.scenarios:
            e = (
                side.delta(sc, "bbsched", "bb_usage", "percent")
                if side.has(sc, "bbsched")
                else None
            )
            if e is not None and (best is None or e.mean > best[1].mean):
                best = (sc, e)
        if best is None:
            return Cell(NOT_MEASURED, NOT_MEASURED, "BBSched is not in this run")
        sc, e = best
        return Cell(
            f"{sc}: {e.text('{:+.1f}', ' %')}",
            judge_change(e, 15.46),
            "the run's workload with the largest mean gain",
            e,
        )

    t.add(
        "BBSched's BB usage gain over the baseline reaches +15.46 % (Figure 7)",
        "up to +15.46 % (relative)",
        "change: +15.46 % on the workload with the largest gain",
        largest,
    )


def _wait_rows(t: _Table) -> None:
    t.add(
        "Every method cuts mean wait against the baseline (Figure 8)",
        "all seven cut it",
        "direction: each change < 0",
        lambda side: _every_method(side, "mean_wait_s", "percent", -1),
        code_blocked=_OTHER_METHODS,
    )
    for machine, cut in (("theta", 41.0), ("cori", 33.44)):
        sc = f"{machine}-S4"
        t.add(
            f"BBSched cuts mean wait against the baseline on {_MACHINES[machine]}-S4 (Figure 8)",
            f"-{cut:g} %",
            f"change: -{cut:g} %",
            _change(sc, "bbsched", "mean_wait_s", "percent", -cut),
        )
    t.add(
        "BBSched cuts wait the most; the second best (Weighted_BB) by less than 26 % (Figure 8)",
        "BBSched best on every workload",
        "direction: BBSched's wait minus the best other method's < 0 on every workload",
        lambda side: _beats_all(side, "mean_wait_s", "percent", -1, side.res.scenarios),
        code_blocked=_OTHER_METHODS,
    )

    def grows(side: Side, method: str, key: str, sign: int, machine: str) -> Cell:
        e = _across(side, method, key, f"{machine}-S1", f"{machine}-S4", "percent")
        if e is None:
            return _missing(f"{machine}-S1")
        return _cell(
            e,
            judge_direction(e, sign),
            "{:+.1f}",
            " %",
            "S1 stands in for the original trace, which has no stand-in here",
        )

    t.add(
        "The baseline's wait grows with BB requests (Cori-Original under 6 h, Cori-S4 19 h; "
        "Figure 8)",
        "+217 % or more (Original to S4)",
        "direction: S4 minus S1 > 0",
        lambda side: grows(side, BASELINE, "mean_wait_s", +1, "cori"),
    )

    def deeper(side: Side) -> Cell:
        s1, s4 = side.delta("theta-S1", "bbsched", "mean_wait_s", "percent"), None
        if side.has("theta-S4", "bbsched"):
            s4 = side.delta("theta-S4", "bbsched", "mean_wait_s", "percent")
        if s1 is None or s4 is None:
            return _missing("theta-S1")
        base = side.per_seed("theta-S4", BASELINE, "mean_wait_s")
        b1 = side.per_seed("theta-S1", BASELINE, "mean_wait_s")
        c4 = {
            s: 100 * (v - base[s]) / base[s]
            for s, v in side.per_seed("theta-S4", "bbsched", "mean_wait_s").items()
            if s in base
        }
        c1 = {
            s: 100 * (v - b1[s]) / b1[s]
            for s, v in side.per_seed("theta-S1", "bbsched", "mean_wait_s").items()
            if s in b1
        }
        e = _paired(c4, c1, "points")
        if e is None:
            return _missing("theta-S1")
        return _cell(
            e, judge_direction(e, -1), "{:+.1f}", " points", "S1 stands in for the original trace"
        )

    t.add(
        "More BB requests, more room for BBSched: its wait cut deepens from Theta-Original "
        "(-21.30 %) to Theta-S4 (-41 %)",
        "-19.7 points deeper",
        "direction: S4's cut minus S1's < 0",
        deeper,
    )
    for machine in _MACHINES:
        sc = f"{machine}-S4"

        def slow(side: Side, sc: str = sc) -> Cell:
            e = (
                side.delta(sc, "bbsched", "mean_slowdown", "percent")
                if side.has(sc, "bbsched")
                else None
            )
            if e is None:
                return _missing(sc)
            return _cell(e, judge_direction(e, -1), "{:+.1f}", " %")

        t.add(
            f"Slowdown follows wait: BBSched cuts mean slowdown on {_MACHINES[machine]}-S4 "
            "(Figure 12)",
            "a cut, like the wait's",
            "direction: change < 0",
            slow,
        )
    t.add(
        "Slowdowns on S4 are evidently higher than on the other workloads (Figure 12, Theta)",
        "higher on S4",
        "direction: the baseline's S4 minus S1 > 0",
        lambda side: grows(side, BASELINE, "mean_slowdown", +1, "theta"),
    )


# --- Waits by job size, BB request and runtime (Figures 9-11, Theta-S4) ----------------------

_BREAKDOWN_SC = "theta-S4"


def bin_waits(side: Side, by: str, method: str) -> dict[str, dict[int, float]]:
    """Theta-S4's mean wait per ``by`` bin (size, bb, runtime) and seed, for ``method`` at its
    window on this side; bins in the breakdown's order."""
    out: dict[str, dict[int, float]] = {}
    w = side.w(method)
    for r in side.breakdowns:
        if r["scenario"] != _BREAKDOWN_SC or r["by"] != by or r["method"] != method:
            continue
        if int(r["window"]) != w:
            continue
        cell = out.setdefault(r["bin"], {})
        if r["wait_mean_s"] is not None:
            cell[int(r["seed"])] = float(r["wait_mean_s"])
    return out


def bin_changes(side: Side, by: str, method: str) -> dict[str, dict[int, float]]:
    """Per bin and seed: the relative change (%) of the mean wait against the baseline."""
    mine, base = bin_waits(side, by, method), bin_waits(side, by, BASELINE)
    return {
        b: {
            s: 100 * (v - base[b][s]) / base[b][s]
            for s, v in seeds.items()
            if base.get(b, {}).get(s)
        }
        for b, seeds in mine.items()
    }


def _pick(bins: Sequence[str], which: str) -> str | None:
    if not bins:
        return None
    if which == "first":
        return bins[0]
    if which == "last":
        return bins[-1]
    return next((b for b in bins if b.startswith(which)), None)


def _bin_change(by: str, method: str, which: str, paper: float | None, sign: int = 0) -> Measure:
    """One bin's change against the baseline: judged on the paper's size (``paper``) or on
    its direction (``sign``)."""

    def measure(side: Side) -> Cell:
        ch = bin_changes(side, by, method)
        b = _pick(list(ch), which)
        e = estimate(ch[b].values()) if b is not None else None
        if e is None:
            return _missing(_BREAKDOWN_SC, f"{method}'s breakdown by {by}")
        judged = judge_change(e, paper) if paper is not None else judge_direction(e, sign)
        return _cell(e, judged, "{:+.1f}", " %", f"bin {b}")

    return measure


def _bin_contrast(by: str, method: str, a: str, b: str, sign: int, changes: bool) -> Measure:
    """Per seed: bin ``a`` minus bin ``b`` — of the changes against the baseline (points), or
    of the baseline's own mean waits (relative, %, when ``changes`` is false)."""

    def measure(side: Side) -> Cell:
        data = bin_changes(side, by, method) if changes else bin_waits(side, by, method)
        ba, bb = _pick(list(data), a), _pick(list(data), b)
        if ba is None or bb is None:
            return _missing(_BREAKDOWN_SC, f"{method}'s breakdown by {by}")
        e = _paired(data[ba], data[bb], "points" if changes else "percent")
        if e is None:
            return _missing(_BREAKDOWN_SC)
        unit = " points" if changes else " %"
        return _cell(e, judge_direction(e, sign), "{:+.1f}", unit, f"{ba} against {bb}")

    return measure


def _breakdown_rows(t: _Table) -> None:
    t.add(
        "Small jobs gain most: 1-8 node jobs' wait (Figure 9, Theta-S4)",
        "-48.29 %",
        "change: -48.29 %",
        _bin_change("size", "bbsched", "first", -48.29),
    )
    t.add(
        "Small jobs gain most: 1024-4392 node jobs' wait (Figure 9, Theta-S4)",
        "-31.59 %",
        "change: -31.59 %",
        _bin_change("size", "bbsched", "last", -31.59),
    )
    t.add(
        "Small jobs gain more than large ones (Figure 9, Theta-S4)",
        "-16.7 points",
        "direction: small's change minus large's < 0",
        _bin_contrast("size", "bbsched", "first", "last", -1, True),
    )
    t.add(
        "Jobs with large BB requests wait longer under the baseline: > 200 TB 10.25 h vs "
        "2.5 h without (Figure 10, Theta-S4)",
        "+310 %",
        "direction: > 200 TB minus none > 0",
        _bin_contrast("bb", BASELINE, "last", "none", +1, False),
    )
    t.add(
        "BBSched cuts the waits of BB jobs more than of jobs without (Figure 10, Theta-S4)",
        "larger cut with BB",
        "direction: > 200 TB's change minus none's < 0",
        _bin_contrast("bb", "bbsched", "last", "none", -1, True),
    )
    t.add(
        "Constrained_CPU cuts the wait of jobs without BB (Figure 10, Theta-S4)",
        "-32.43 %",
        "change: -32.43 %",
        _bin_change("bb", "constrained-cpu", "none", -32.43),
        code_blocked=_OTHER_METHODS,
    )
    t.add(
        "Constrained_CPU lengthens the wait of 100-200 TB jobs (Figure 10, Theta-S4)",
        "+17.21 %",
        "change: +17.21 %",
        _bin_change("bb", "constrained-cpu", "(100", 17.21),
        code_blocked=_OTHER_METHODS,
    )
    t.add(
        "Constrained_BB lengthens the wait of jobs without BB (Figure 10, Theta-S4)",
        "longer",
        "direction: change > 0",
        _bin_change("bb", "constrained-bb", "none", None, +1),
        code_blocked=_OTHER_METHODS,
    )
    t.add(
        "Waits grow with runtime under the baseline (Figure 11, Theta-S4)",
        "longer for long jobs",
        "direction: longest minus shortest > 0",
        _bin_contrast("runtime", BASELINE, "last", "first", +1, False),
    )
    t.add(
        "BBSched lengthens short jobs' wait (Figure 11, Theta-S4)",
        "longer",
        "direction: change > 0",
        _bin_change("runtime", "bbsched", "first", None, +1),
    )
    t.add(
        "BBSched shortens long jobs' wait (Figure 11, Theta-S4)",
        "shorter",
        "direction: change < 0",
        _bin_change("runtime", "bbsched", "last", None, -1),
    )

    def every(side: Side) -> Cell:
        judged, n = [], 0
        for m in _OPTIMISERS:
            for which, sign in (("first", +1), ("last", -1)):
                cell = _bin_change("runtime", m, which, None, sign)(side)
                if cell.estimate is not None:
                    judged.append(cell.verdict)
                    n += 1
        if not judged:
            return Cell(NOT_MEASURED, NOT_MEASURED, "the paper's methods are not in this run")
        agreeing = sum(1 for v in judged if v == "agree")
        return Cell(f"{agreeing} of {n} method x bin cases", judge_all(judged))

    t.add(
        "Every optimisation method lengthens short jobs' wait and shortens long jobs' "
        "(Figure 11, Theta-S4)",
        "all seven",
        "direction: per method and bin",
        every,
        code_blocked=_OTHER_METHODS,
    )


# --- Overall (Figure 13), the window (Table 3), conclusion, §5 -------------------------------


def kiviat_per_seed(side: Side, sc: str) -> dict[int, dict[str, float]]:
    """Figure 13's area per seed and method (the paper's eight, where all were run)."""
    out: dict[int, dict[str, float]] = {}
    seeds = set.intersection(*(set(side.per_seed(sc, m, "node_usage")) for m in PAPER_EIGHT))
    for s in sorted(seeds):
        values = {
            m: {
                k: float(side.res.by[(sc, m, 20)][s][k])
                for k in ("node_usage", "bb_usage", "mean_wait_s", "mean_slowdown")
            }
            for m in PAPER_EIGHT
        }
        out[s] = kiviat_area(values)
    return out


def _kiviat(sign: int, method: str) -> Measure:
    """``method``'s area minus the best (sign +1) or the worst (sign -1) of the others but the
    baseline, per seed."""

    def measure(side: Side) -> Cell:
        parts, judged = [], []
        for sc in side.res.scenarios:
            if not all(side.has(sc, m, 20) for m in PAPER_EIGHT):
                continue
            areas = kiviat_per_seed(side, sc)
            others = [m for m in PAPER_EIGHT if m not in (method, BASELINE)]
            pick = max if sign > 0 else min
            diffs = [a[method] - pick(a[m] for m in others) for a in areas.values()]
            e = estimate(diffs)
            if e is None:
                continue
            judged.append(judge_direction(e, sign))
            parts.append(f"{sc} {e.text('{:+.2f}')}")
        if not parts:
            return Cell(NOT_MEASURED, NOT_MEASURED, "the eight methods are not all in this run")
        return Cell("; ".join(parts), judge_all(judged), "area difference per seed (0-2 scale)")

    return measure


def _overall_rows(t: _Table) -> None:
    t.add(
        "BBSched is best overall on every workload (Figure 13, Kiviat area)",
        "best on all 10",
        "direction: BBSched's area minus the best other's > 0 on every workload",
        _kiviat(+1, "bbsched"),
        code_blocked=_OTHER_METHODS,
    )
    t.add(
        "Bin_Packing is the poorest besides the baseline (Figure 13)",
        "poorest",
        "direction: its area minus the worst other optimiser's < 0",
        _kiviat(-1, "binpack"),
        code_blocked=_OTHER_METHODS,
    )
    for machine in _MACHINES:
        sc, label = f"{machine}-S4", _MACHINES[machine]
        u = [TABLE3[(machine, w)][0] for w in WINDOWS]

        def levels(side: Side, sc: str = sc) -> Cell:
            seeds = [side.per_seed(sc, "bbsched", "node_usage", w) for w in WINDOWS]
            common = sorted(set(seeds[0]) & set(seeds[1]) & set(seeds[2]))
            e = estimate(
                100 * ((seeds[1][s] - seeds[0][s]) - (seeds[2][s] - seeds[1][s])) for s in common
            )
            if e is None:
                return _missing(sc, "BBSched at w = 10, 20 and 50")
            return _cell(e, judge_direction(e, +1), "{:+.1f}", " points")

        t.add(
            f"The window's gain levels off beyond 20 ({label}-S4 node usage, Table 3)",
            f"{(u[1] - u[0]) - (u[2] - u[1]):+.2f} points (10->20 minus 20->50)",
            "direction: (10->20) minus (20->50) > 0",
            levels,
            code_blocked=_BIG_WINDOW.format(w="20, 50"),
        )
    t.add(
        "Overall performance +41 % over the naive method, 33 % over bin packing, 35 % over "
        "the constrained and 20 % over the weighted methods (§6)",
        "+41 / 33 / 35 / 20 %",
        "none: the paper does not say which metric",
        lambda side: Cell(
            NOT_MEASURED, NOT_MEASURED, "the paper does not define 'overall performance'"
        ),
        code_blocked="the metric is undefined: the paper does not say which, and the authors' "
        "code has only the baseline and BBSched",
    )
    t.add(
        "With local SSDs, BBSched is best overall on all workloads (§5, Figure 14)",
        "best on all",
        "none: not run",
        lambda side: Cell(
            NOT_MEASURED, NOT_MEASURED, "the reproduction runs S1-S4 without local SSD"
        ),
        code_blocked="no local SSD: the cqsim profile refuses it (CQSim's BBSched branch has none)",
    )


# ---------------------------------------------------------------------------------------------
# Printing
# ---------------------------------------------------------------------------------------------


def counts(rows: Sequence[Row]) -> dict[str, dict[str, int]]:
    """Per column (``code``, ``ours``): how many rows have each verdict."""
    kinds = (*VERDICTS, NOT_RUNNABLE, NOT_MEASURED)
    return {
        col: {k: sum(1 for r in rows if getattr(r, col).verdict == k) for k in kinds}
        for col in ("code", "ours")
    }


def print_table(rows: Sequence[Row]) -> None:
    from tabulate import tabulate

    def short(c: Cell) -> str:
        if c.verdict == NOT_RUNNABLE:
            return c.value
        return c.value if c.verdict == NOT_MEASURED else f"{c.value} -> {c.verdict}"

    print(
        tabulate(
            [(r.finding, r.paper, short(r.code), short(r.ours)) for r in rows],
            headers=("finding", "paper", "authors' code (cqsim profile)", "ours (paper's text)"),
            tablefmt="simple",
            maxcolwidths=[44, 18, 36, 36],
        )
    )
    c = counts(rows)
    for col, name in (("code", "authors' code"), ("ours", "ours")):
        n = c[col]
        print(
            f"{name}: {n['agree']} agree, {n['disagree']} disagree, {n['inconclusive']} "
            f"inconclusive, {n['calibrated']} calibrated, {n[NOT_RUNNABLE]} not runnable, "
            f"{n[NOT_MEASURED]} not measured (of {len(rows)} findings)"
        )
    print("the verdicts' rules and reasons are in three_way.csv")
