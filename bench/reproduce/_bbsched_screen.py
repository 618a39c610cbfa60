"""``schedbench reproduce bbsched --screen``: what it takes for BBSched's gains to appear.

The paper reports, on Theta-S4, BBSched against its baseline: node usage +20.03 % (relative)
and mean wait −41 %. The reproduction (``bench/reproduce/bbsched.py``) finds neither, under the
paper's text nor under its authors' code (the ``cqsim`` profile, ``simcore/cqsim.py``). This
screen asks which of the differences that could matter moves BBSched-minus-baseline, and how far.

The response of every setting: BBSched minus the baseline *on the same seed* (paired), for node
usage and burst-buffer usage (relative %, as the paper reports them; points too in the CSV) and
mean wait (relative %), each a mean over the seeds with its 95 % Student-t interval
(:func:`paired`), judged against the paper's +20.03 % / −41 % by the reproduction's ``verdict``
(``bench/reproduce/_intervals.py``).

The design: one factor at a time (OFAT), from two bases, plus the all-code corner
---------------------------------------------------------------------------------
* **Part "paper"** (:data:`PAPER_FACTORS`), from the paper-text base: the reproduction's
  ``bbsched`` (the engine, window 20, exact Pareto front by ``dp``, §3.2.4's decision maker, the
  starvation bound, WFP order) against its ``naive`` baseline (EASY), Theta-S4 at Table 3's
  operating point, exact runtime estimates (what the Lublin–Feitelson generator gives), the
  reproduction's trace length. Switched one at a time: runtime estimates (×2; drawn from the
  KTH-SP2 log's requested/actual ratios, :func:`with_estimates`), trace length (×3 quick, ×5 full:
  from about 19 days to 50 or more), load (one level below and one above Table 3's),
  backfilling (conservative for both methods; conservative for the baseline only, BBSched keeping EASY), the window (20 → 10, the
  largest the authors' code runs exactly) and the order (WFP → FCFS, the authors' code's).
* **Part "cqsim"** (:data:`RULES`), from the authors' loop with every rule at the paper's
  reading: each rule of the model note *bbsched-cqsim-semantics* that ``CqsimRules`` names,
  switched to the code's value one at a time, then all of them together — the all-code corner,
  which is the authors' code as the ``cqsim`` profile reproduces it (``-u F`` against ``-u M -x
  10``, EASY, FCFS). Then the one interaction checked: KTH-SP2 estimates in this loop, with the
  paper's readings and at the all-code corner (the authors ran real traces with user
  estimates, and CQSim times queued jobs by their actual runtimes, which only matters then). This part has its own base because the rules exist only in that loop; its
  base differs from the paper-text base in what the loop fixes (no starvation bound, window 10,
  FCFS order, an event loop of its own), and the two bases side by side show what that costs.
  ``selection`` is not screened: with an exact solver (``dp``) and the enumeration the front is
  the same (the W1 schedules match with both), and where they differ it is by the equal-vector
  rule, which is screened on its own.

Why OFAT and not a 2-level fractional factorial: the factors are not all two-level switches of
one model (estimates and backfilling have three levels, and the rules exist only in the cqsim
loop), and what is asked is "does any single difference bring the paper's gain", which OFAT
answers directly with one setting per difference (23 settings, many of whose runs are shared:
a baseline is run once per distinct configuration of what the baseline depends on, see
:func:`run_key`). A resolution-III fraction over the nine rules would need 16 settings and give
main effects aliased with two-rule interactions, for no saving; the all-code corner is the one
interaction check that matters (every rule at once). OFAT's blind spot: an effect that appears
only when two factors change together (for example ``queued_duration`` can act only with
estimates that differ from runtimes, and ``read_num`` only beyond 8,000 jobs; at the base both
do nothing by construction, which the table shows).

Outputs in ``--out DIR``: ``screen.csv`` (one row per setting: part, factor, level, seeds,
means, and the three paired deltas with their intervals and verdicts), ``screen_runs.csv`` (one
row per run: setting, seed, method, node usage, BB usage, mean wait, trace span in days) and a
printed table. ``--quick``: seeds 0–2, 4,000 jobs per workload (12,000 for the long trace);
without it seeds 0–9 (20,000 jobs for the long trace).
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from schedbench.bench.reproduce._bbsched_setup import MACHINES, OPERATING_POINT, TRIM
from schedbench.bench.reproduce._intervals import Estimate, estimate, verdict
from schedbench.bench.reproduce._pool import map_ordered

#: The paper's BBSched-minus-baseline on Theta-S4 (relative %): node usage, mean wait.
PAPER_NODE_GAIN, PAPER_WAIT_CUT = 20.03, -41.0

#: Jobs per workload of the quick screen (the reproduction's: about 19 days of submissions at
#: Table 3's load on Theta), and the long trace's multiple of it, quick (about 50 days on seed 0) and
#: full (more). Far fewer jobs do not reach the regime: 1,500 jobs span 3 days, and the
#: baseline's node usage stays near 50 % (the queue never fills).
QUICK_JOBS = 4000
LONG_FACTOR = {True: 3, False: 5}

#: Offered (node, BB) loads of the load factor's two other levels, around Table 3's point.
LOAD_LOW, LOAD_HIGH = (0.75, 1.1), (0.95, 1.5)

#: The rules of the cqsim profile screened: name -> (the paper's reading, the code's value).
RULES: dict[str, tuple[Any, Any]] = {
    "pass_per_event": (False, True),
    "queued_duration": ("requested", "runtime"),
    "bb_abandon": (False, True),
    "split_now_point": (False, True),
    "zero_start_not_found": (False, True),
    "window_min_queue": (1, 3),
    "equal_vectors_excluded": (False, True),
    "decision_maker": ("paper", "cqsim"),
    "read_num": (None, 8000),
}
#: The rules that can change what the baseline (CQSim's ``-u F``) does.
BASELINE_RULES = (
    "pass_per_event",
    "queued_duration",
    "bb_abandon",
    "split_now_point",
    "zero_start_not_found",
    "read_num",
)

#: The paper part's factors: name -> (base level, other levels).
PAPER_FACTORS: dict[str, tuple[Any, tuple[Any, ...]]] = {
    "estimates": ("exact", ("x2", "kth-sp2")),
    "length": ("short", ("long",)),
    "load": ("table3", ("low", "high")),
    "backfill": ("easy", ("conservative", "conservative-baseline")),
    "window": (20, (10,)),
    "order": ("wfp", ("fcfs",)),
}


@dataclass(frozen=True, slots=True)
class Setting:
    """One setting of the screen: the loop (``paper``: the engine; ``cqsim``: the authors'),
    the workload's knobs and, in the cqsim loop, the rules (name -> value, all of them)."""

    part: str
    factor: str
    level: str
    estimates: str = "exact"
    length: str = "short"
    load: str = "table3"
    backfill: str = "easy"
    window: int = 20
    order: str = "wfp"
    rules: tuple[tuple[str, Any], ...] = field(default=())

    @property
    def name(self) -> str:
        if self.factor == "base":
            return f"{self.part} base"
        prefix = "cqsim " if self.part == "cqsim" and self.factor not in RULES else ""
        return f"{prefix}{self.factor}={self.level}"


def paper_rules() -> tuple[tuple[str, Any], ...]:
    return tuple((k, v[0]) for k, v in RULES.items())


def design() -> list[Setting]:
    """The OFAT design (module docstring): the paper-text base, each of its factors switched
    alone, the cqsim loop with the paper's readings, each rule switched alone to the code's
    value, and the all-code corner."""
    out = [Setting("paper", "base", "paper text")]
    for f, (_, levels) in PAPER_FACTORS.items():
        for lvl in levels:
            out.append(replace(out[0], factor=f, level=str(lvl), **{f: lvl}))
    corner = Setting(
        "cqsim", "base", "paper readings", window=10, order="fcfs", rules=paper_rules()
    )
    out.append(corner)
    for rule, (_, code) in RULES.items():
        rules = tuple((k, code if k == rule else v) for k, v in paper_rules())
        out.append(replace(corner, factor=rule, level=str(code), rules=rules))
    code = tuple((k, v[1]) for k, v in RULES.items())
    out.append(replace(corner, factor="all rules", level="code", rules=code))
    # the authors' code with user estimates, and the paper readings' loop with them: the one
    # interaction checked (``queued_duration`` acts only where estimates differ from runtimes)
    out.append(replace(corner, factor="estimates", level="kth-sp2", estimates="kth-sp2"))
    out.append(
        replace(corner, factor="all rules", level="code, kth-sp2", rules=code, estimates="kth-sp2")
    )
    return out


# ---------------------------------------------------------------------------------------------
# Runs
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Run:
    """One simulation: a method (``naive`` / ``bbsched``) under what of a setting it depends
    on (:func:`run_key`), on one seed."""

    method: str
    part: str
    estimates: str
    load: str
    backfill: str
    window: int
    order: str
    rules: tuple[tuple[str, Any], ...]
    seed: int
    jobs: int


def run_key(s: Setting, method: str, seed: int, jobs: int, long_jobs: int) -> Run:
    """The run a setting needs for ``method``, with what the method does not depend on set to
    the base's value, so that settings share runs: the baseline ignores the window, the
    decision rules and, when backfilling is switched for the baseline only, nothing else; BBSched
    keeps EASY when only the baseline is switched."""
    backfill = s.backfill
    if backfill == "conservative-baseline":
        backfill = "conservative" if method == "naive" else "easy"
    window, rules = s.window, s.rules
    if method == "naive":
        window = 20 if s.part == "paper" else 10
        rules = tuple((k, v if k in BASELINE_RULES else RULES[k][0]) for k, v in s.rules)
    n = long_jobs if s.length == "long" else jobs
    return Run(method, s.part, s.estimates, s.load, backfill, window, s.order, rules, seed, n)


@lru_cache(maxsize=1)
def kth_ratios() -> np.ndarray:
    """Requested / actual runtime of the KTH-SP2 log's jobs with both positive, at least 1 (a
    job never runs past its request here)."""
    from schedbench.instances.datasets import path
    from schedbench.instances.swf import read_swf

    w = read_swf(path("kth-sp2"))
    ok = (w.runtime > 0) & (w.requested_time > 0)
    return np.maximum(np.asarray(w.requested_time[ok] / w.runtime[ok], dtype=float), 1.0)


def with_estimates(workload: Any, model: str, seed: int) -> Any:
    """The workload with requested times from an estimate model: ``exact`` (as generated),
    ``x2`` (twice the runtime) or ``kth-sp2`` (runtime × a ratio drawn per job from
    :func:`kth_ratios`, seeded). Runtimes, hence the offered load, stay as they are."""
    from schedbench.simcore.workload import SWF_INDEX

    rt = np.asarray(workload.runtime, dtype=float)
    if model == "exact":
        return workload
    if model == "x2":
        ratio = np.full(rt.shape, 2.0)
    elif model == "kth-sp2":
        rng = np.random.default_rng([seed, 28])
        ratio = rng.choice(kth_ratios(), size=rt.shape[0])
    else:
        raise ValueError(f"estimates: expected exact, x2 or kth-sp2, got {model!r}")
    req = np.maximum(np.ceil(np.round(rt * ratio, 6)), np.asarray(workload.requested_time))
    swf = np.array(workload.swf, copy=True)
    swf[:, SWF_INDEX["requested_time"]] = req
    return workload.replace(requested_time=req, swf=swf)


_LOADS = {"table3": OPERATING_POINT["theta"], "low": LOAD_LOW, "high": LOAD_HIGH}


@lru_cache(maxsize=4)
def _workload(seed: int, jobs: int, load: str, estimates: str) -> tuple[Any, Any, float]:
    """Theta-S4 of a seed as the reproduction makes it (``bench/reproduce/bbsched.py``:
    Lublin jobs, S4 requests, the load knob over the trimmed window), with its estimates."""
    from schedbench.instances.bbsched import bbsched_scenario
    from schedbench.instances.load import calibrate_load
    from schedbench.instances.lublin import generate_lublin
    from schedbench.instances.systems import resolve_system

    m = MACHINES["theta"]
    system = resolve_system(m.system)
    s4 = bbsched_scenario(
        generate_lublin(jobs, nodes=m.nodes, seed=seed), "S4", base=m.base, seed=seed
    )
    nodes, bb = _LOADS[load]
    cal = calibrate_load(s4, system, nodes=nodes, bb=bb, warmup=TRIM, cooldown=TRIM)
    w = with_estimates(cal.apply(s4, system), estimates, seed)
    span_days = float(w.submit[-1] - w.submit[0]) / 86400.0
    return w, system, span_days


def simulate_run(run: Run) -> dict[str, Any]:
    """Simulate one run; node usage, BB usage, mean wait (over the trimmed window) and the
    trace's submit span in days."""
    from schedbench.simcore.errors import SimulationError
    from schedbench.simcore.metrics import MeasurementWindow, compute_metrics

    workload, system, span = _workload(run.seed, run.jobs, run.load, run.estimates)
    if run.part == "cqsim":
        from schedbench.simcore.cqsim import CqsimConfig, CqsimRules, CqsimSimulation

        config = CqsimConfig(
            policy="naive" if run.method == "naive" else "window",
            window=run.window,
            backfill=run.backfill,
            rules=CqsimRules(selection="enumerate", **dict(run.rules)),
        )
        try:
            result = CqsimSimulation(workload, system, config).run()
        except SimulationError as exc:  # a rule mix the loop refuses (a start without fitting)
            return dict.fromkeys(("node_usage", "bb_usage", "mean_wait_s"), None) | {
                "span_days": span,
                "error": str(exc),
            }
    else:
        result = _engine(run, workload, system)
    m = compute_metrics(result, MeasurementWindow.fractions(TRIM, TRIM))
    return {
        "node_usage": m["node_usage"],
        "bb_usage": m["bb_usage"],
        "mean_wait_s": m["wait_mean_s"],
        "span_days": span,
    }


def _engine(run: Run, workload: Any, system: Any) -> Any:
    from schedbench.simcore.engine import SimOptions, simulate
    from schedbench.simcore.policies import NaivePolicy, WindowPolicy
    from schedbench.simcore.problem import Budget
    from schedbench.simcore.solver import warm_up
    from schedbench.solvers.registry import make_solver

    if run.method == "naive":
        policy: Any = NaivePolicy(backfill=run.backfill)
    else:
        solver = make_solver("dp")
        warm_up(solver)
        policy = WindowPolicy(
            solver, window=run.window, budget=Budget(seed=run.seed), backfill=run.backfill
        )
    return simulate(workload, system, policy, SimOptions(priority=run.order))


# ---------------------------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------------------------

#: The responses: (name, runs' key, how): "relative" = 100 (B − A) / A, "points" = 100 (B − A).
RESPONSES: tuple[tuple[str, str, str], ...] = (
    ("node_rel", "node_usage", "relative"),
    ("node_points", "node_usage", "points"),
    ("bb_rel", "bb_usage", "relative"),
    ("bb_points", "bb_usage", "points"),
    ("wait_rel", "mean_wait_s", "relative"),
)


def paired(
    base: dict[int, float | None], other: dict[int, float | None], how: str
) -> Estimate | None:
    """Mean over the seeds both have of ``other − base`` (``relative``: in per cent of
    ``base``; ``points``: × 100), with its 95 % interval; seeds with a missing value, or a
    zero base for a relative change, are left out."""
    diffs = []
    for seed in sorted(set(base) & set(other)):
        a, b = base[seed], other[seed]
        if a is None or b is None or not (math.isfinite(a) and math.isfinite(b)):
            continue
        if how == "points":
            diffs.append(100.0 * (b - a))
        elif a != 0:
            diffs.append(100.0 * (b - a) / a)
    return estimate(diffs)


def setting_row(
    s: Setting, by_seed: dict[int, dict[str, dict[str, Any]]], seeds: Sequence[int]
) -> dict[str, Any]:
    """The screen.csv row of a setting from its runs (seed -> method -> metrics)."""
    row: dict[str, Any] = {
        "setting": s.name,
        "part": s.part,
        "factor": s.factor,
        "level": s.level,
        "seeds": len(seeds),
    }
    for method in ("naive", "bbsched"):
        for key in ("node_usage", "bb_usage", "mean_wait_s"):
            e = estimate(by_seed[sd][method][key] for sd in seeds)
            row[f"{method}_{key}"] = None if e is None else e.mean
    for name, key, how in RESPONSES:
        e = paired(
            {sd: by_seed[sd]["naive"][key] for sd in seeds},
            {sd: by_seed[sd]["bbsched"][key] for sd in seeds},
            how,
        )
        row[name] = None if e is None else e.mean
        row[f"{name}_low"] = None if e is None else e.low
        row[f"{name}_high"] = None if e is None else e.high
        row[f"_{name}"] = e
    node, wait = row["_node_rel"], row["_wait_rel"]
    row["node_verdict"] = "n/a" if node is None else verdict(node, PAPER_NODE_GAIN)
    row["wait_verdict"] = "n/a" if wait is None else verdict(wait, PAPER_WAIT_CUT)
    row["span_days"] = estimate(by_seed[sd]["naive"]["span_days"] for sd in seeds).mean  # type: ignore[union-attr]
    return row


SCREEN_COLUMNS = (
    "setting",
    "part",
    "factor",
    "level",
    "seeds",
    "span_days",
    "naive_node_usage",
    "bbsched_node_usage",
    "naive_bb_usage",
    "bbsched_bb_usage",
    "naive_mean_wait_s",
    "bbsched_mean_wait_s",
    *(f"{n}{s}" for n, _, _ in RESPONSES for s in ("", "_low", "_high")),
    "node_verdict",
    "wait_verdict",
)
RUN_COLUMNS = (
    "setting",
    "seed",
    "method",
    "node_usage",
    "bb_usage",
    "mean_wait_s",
    "span_days",
    "error",
)


# ---------------------------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------------------------


def _cost(r: Run) -> float:
    """A rough relative cost: the engine's BBSched runs pose a decision problem per pass."""
    return r.jobs * (4.0 if r.part == "paper" and r.method == "bbsched" else 1.0)


def screen(args: argparse.Namespace, seeds: Sequence[int], jobs: int) -> int:
    """Run the design on ``seeds`` with ``jobs`` per (short) workload; write and print."""
    from schedbench.simcore.safeio import ensure_dir

    t0 = time.perf_counter()
    out = Path(args.out)
    settings = design()
    long_jobs = jobs * LONG_FACTOR[bool(args.quick)]
    needed = {
        s: {
            (sd, m): run_key(s, m, sd, jobs, long_jobs)
            for sd in seeds
            for m in ("naive", "bbsched")
        }
        for s in settings
    }
    runs = list(dict.fromkeys(r for per in needed.values() for r in per.values()))
    runs.sort(key=_cost, reverse=True)  # the long runs first, so that the workers end together
    print(
        f"reproduce bbsched --screen: {len(settings)} settings (OFAT) x {len(seeds)} seeds, "
        f"{len(runs)} distinct simulations, Theta-S4, {jobs} jobs ({long_jobs} long), "
        f"{args.workers} worker(s)",
        file=sys.stderr,
    )
    done = dict(
        zip(
            runs,
            map_ordered(simulate_run, runs, args.workers, "screen", args.no_progress),
            strict=True,
        )
    )
    rows: list[dict[str, Any]] = []
    run_rows: list[dict[str, Any]] = []
    for s in settings:
        by_seed = {sd: {m: done[needed[s][(sd, m)]] for m in ("naive", "bbsched")} for sd in seeds}
        rows.append(setting_row(s, by_seed, seeds))
        run_rows.extend(
            {"setting": s.name, "seed": sd, "method": m, **by_seed[sd][m]}
            for sd in seeds
            for m in ("naive", "bbsched")
        )
    ensure_dir(out)
    write_csv(out / "screen.csv", SCREEN_COLUMNS, rows)
    write_csv(out / "screen_runs.csv", RUN_COLUMNS, run_rows)
    print_table(rows, seeds, jobs)
    print(f"written: {out}/screen.csv, screen_runs.csv; {time.perf_counter() - t0:.0f} s")
    return 0


def write_csv(path: Path, columns: Sequence[str], rows: Iterable[dict[str, Any]]) -> None:
    """``rows`` as CSV (floats to 6 significant digits, None empty), written atomically."""
    from schedbench.bench._io import atomic_write

    def fmt(x: Any) -> Any:
        if isinstance(x, float):
            return f"{x:.6g}" if math.isfinite(x) else ""
        return "" if x is None else x

    def write(fh: Any) -> None:
        out = csv.writer(fh, lineterminator="\n")
        out.writerow(columns)
        for r in rows:
            out.writerow([fmt(r.get(c)) for c in columns])

    atomic_write(path, write, text=True)


def _cell(e: Estimate | None) -> str:
    return "n/a" if e is None else e.text("{:+.1f}", "")


def print_table(rows: Iterable[dict[str, Any]], seeds: Sequence[int], jobs: int) -> None:
    from tabulate import tabulate

    table = [
        [
            r["part"],
            r["setting"],
            "n/a" if r["naive_node_usage"] is None else f"{100 * r['naive_node_usage']:.1f}",
            _cell(r["_node_rel"]),
            _cell(r["_bb_rel"]),
            _cell(r["_wait_rel"]),
            r["node_verdict"],
            r["wait_verdict"],
        ]
        for r in rows
    ]
    print(
        f"BBSched minus baseline, Theta-S4, paired by seed (seeds {list(seeds)}, {jobs} jobs; "
        f"relative %, 95 % interval); paper: node +{PAPER_NODE_GAIN} %, wait {PAPER_WAIT_CUT:g} %"
    )
    print(
        tabulate(
            table,
            headers=[
                "part",
                "setting",
                "base node %",
                "node usage",
                "BB usage",
                "mean wait",
                "node +20 %?",
                "wait -41 %?",
            ],
            tablefmt="simple",
        )
    )
