"""Li et al., "Resource availability-aware advance reservation for parallel jobs with deadlines"
(``papers/advance-reservation-with-deadlines.txt``): the seven fit policies on Lublin–Feitelson
request streams, Figures 2–7 — or a replay of one request stream.

Two forms:

* **replay** — ``schedbench reproduce ar --requests FILE.csv --pes N --policy NAME --out DIR``
  serves the CSV's requests (``id, arrival_s, ready_s, duration_s, deadline_s, pes``) with a fit
  policy (``ff, pe-b, pe-w, du-b, du-w, pedu-b, pedu-w``) or any solver of the ``reservation``
  kind (``reservation-cpsat``, a plug-in) and writes ``DIR/decisions.csv`` (``id, accepted,
  start_s, pe_ids, arrival_s, end_s, deadline_s``; accepted 1/0, PE ids space-separated, start,
  PEs and end empty when rejected; ``schedbench plot gantt|usage DIR`` draws it)
  and ``DIR/summary.csv`` (``acceptance, mean_slowdown, utilisation``). ``--swf TRACE`` instead
  of ``--requests`` takes the requests from an SWF trace (``--artime``, ``--deadline``,
  ``--af``, ``--seed``). A request that is not valid on the machine is named on stderr and
  rejected; it counts as submitted.
* **experiment** — ``schedbench reproduce ar [--quick] [--out DIR]`` runs the paper's three
  experiments (UMed 5–9 at af 1 and {3,3}; af 0.5–1.5 at UMed 7; {1,1}…{5,5} at UMed 7 and af
  1), each point over ``--seeds`` independent streams of ``--jobs`` requests, and writes
  ``results.csv`` (experiment, policy, umed, af, artime, deadline, seeds, jobs, acceptance,
  acceptance_ci95, slowdown, slowdown_ci95, offline_bound), ``details.csv`` (utilisation and
  offered load per point), ``bounds.csv`` (the offline optimum of the first ``--bound-jobs``
  requests of every stream and each policy's share of it), ``fig2_acceptance_umed.png`` …
  ``fig7_slowdown_flex.png`` and ``fig_offline_ratio.png``, ``seeds.csv`` (every stream's
  numbers) and ``agreement.csv`` (finding, paper, ours, interval, agree, reason: each finding
  judged yes / no / inconclusive on 95 % intervals over seeds, ``_ar_findings.py``), also
  printed; ``gap.csv`` and ``gap_windows.csv`` (each policy's acceptance gap to the proven
  offline optimum on ``--gap-windows`` windows of ``--gap-size`` requests of every stream,
  ``_ar_gap.py``), printed as a table and drawn in ``fig_offline_gap.png``. Grids are options (``--umed 5,6,7 --af 0.5,1
  --flex 1:1,3:3 --seeds N --jobs N``).
* **sweep** — ``--sweep`` runs the experiments under a screening design of the readings of the
  rules the paper leaves open (``_ar_sweep.py``; ``--reading`` and ``--profile`` set one
  reading, ``simcore/reservations/reading.py``).

``offline_bound`` in ``results.csv`` is the mean over seeds of the largest acceptance any
schedule reaches on the first ``--bound-jobs`` requests of the stream (CP-SAT,
``bench/analysis/ar_offline.py``; its proven upper bound where it did not prove optimality within
``--bound-time`` — ``bounds.csv`` says which), not on all ``--jobs`` requests: at UMed 7, af 1,
{3,3} CP-SAT proves most streams of 80 requests within 10 s and few of 100
(``bench/benchmarks/ar_offline_reach.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import math
import os
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from schedbench.bench._io import atomic_write, save_figure
from schedbench.bench.report.style import series_style
from schedbench.bench.reproduce._ar_findings import (
    Samples,
    axis_position,
    findings,
    summary_counts,
)
from schedbench.bench.reproduce._pool import cost_line, cpu_seconds, map_ordered
from schedbench.instances import datasets
from schedbench.instances.ar_workload import (
    PAPER_PES,
    generate_ar_requests,
    invalid_requests,
    offered_load,
    read_requests_csv,
    requests_from_swf,
    swf_machine_pes,
)
from schedbench.simcore.errors import ConfigError
from schedbench.simcore.kinds.reservation.problem import MAX_PES
from schedbench.simcore.problem import Budget
from schedbench.simcore.reservations.driver import ReservationRun, serve, serve_with_solver
from schedbench.simcore.reservations.fit import FIT_POLICIES, PAPER_POLICIES, get_fit_policy
from schedbench.simcore.reservations.metrics import (
    acceptance,
    mean_ci95,
    mean_slowdown,
    summary,
    utilisation,
)
from schedbench.simcore.reservations.reading import (
    HELP,
    PINNED,
    UNBOUNDED_END,
    Reading,
    ReadingError,
)
from schedbench.simcore.safeio import ensure_dir

PAPER = "ar"
SUMMARY = (
    "advance reservations with deadlines (Li et al.): the seven fit policies, Figures 2-7; "
    "or replay a request CSV with --requests"
)

RESULT_COLUMNS = (
    "experiment",
    "policy",
    "umed",
    "af",
    "artime",
    "deadline",
    "seeds",
    "jobs",
    "acceptance",
    "acceptance_ci95",
    "slowdown",
    "slowdown_ci95",
    "offline_bound",
)
LABELS = {name: get_fit_policy(name).label for name in PAPER_POLICIES}

#: --quick: every experiment, fewer and shorter streams, short offline bounds.
#: gap_*: the policies' gap to the proven offline optimum on windows of every stream
#: (``_ar_gap.py``): windows per stream, requests per window, CP-SAT seconds per window.
QUICK = {
    "seeds": 5,
    "jobs": 3000,
    "bound_jobs": 60,
    "bound_time": 2.0,
    "gap_windows": 2,
    "gap_size": 60,
    "gap_time": 2.0,
}
FULL = {
    "seeds": 10,
    "jobs": 10_000,
    "bound_jobs": 100,
    "bound_time": 10.0,
    "gap_windows": 3,
    "gap_size": 80,
    "gap_time": 10.0,
}


# ---------------------------------------------------------------------------------- options
def _floats(text: str) -> list[float]:
    try:
        values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(
            f"expected numbers separated by commas, got {text!r}"
        ) from exc
    if not values or any(not math.isfinite(v) for v in values):
        raise argparse.ArgumentTypeError(
            f"expected finite numbers separated by commas, got {text!r}"
        )
    return values


def _flex(text: str) -> list[tuple[float, float]]:
    out = []
    for item in text.split(","):
        a, sep, d = item.partition(":")
        try:
            pair = (float(a), float(d))
        except ValueError as exc:
            raise argparse.ArgumentTypeError(
                f"expected artime:deadline pairs separated by commas (1:1,3:3), got {item!r}"
            ) from exc
        if not sep or min(pair) < 0 or not all(math.isfinite(v) for v in pair):
            raise argparse.ArgumentTypeError(
                f"expected artime:deadline pairs of numbers >= 0 (1:1,3:3), got {item!r}"
            )
        out.append(pair)
    return out


def _names(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def add_arguments(p: argparse.ArgumentParser) -> None:
    replay = p.add_argument_group("replay one request stream")
    replay.add_argument("--requests", metavar="FILE.csv", help="request CSV to replay")
    replay.add_argument(
        "--swf",
        metavar="TRACE",
        help="replay requests made from an SWF trace (a file, or a dataset such as kth-sp2)",
    )
    replay.add_argument(
        "--pes", type=int, help="PEs of the machine (replay; --swf: default the trace's header)"
    )
    replay.add_argument(
        "--policy",
        default=None,
        help="ff, pe-b, pe-w, du-b, du-w, pedu-b, pedu-w, or a reservation solver "
        "(reservation-cpsat, module:Class)",
    )
    replay.add_argument(
        "--budget", type=float, default=15.0, help="decision budget of a solver (s, replay)"
    )
    replay.add_argument("--seed", type=int, default=0, help="seed of the --swf factors' draws")
    replay.add_argument("--artime", type=float, default=3.0, help="--swf: artime factor")
    replay.add_argument("--deadline", type=float, default=3.0, help="--swf: deadline factor")
    exp = p.add_argument_group("the paper's experiments")
    exp.add_argument("--quick", action="store_true", help="fewer, shorter streams (< 5 min)")
    exp.add_argument("--out", metavar="DIR", help="output folder (default results/reproduce/ar)")
    exp.add_argument(
        "--experiments",
        type=_names,
        default=["umed", "af", "flex"],
        help="which experiments (umed, af, flex; default all three)",
    )
    exp.add_argument(
        "--umed", type=_floats, default=[5.0, 6.0, 7.0, 8.0, 9.0], help="UMed grid (Fig. 2-3)"
    )
    exp.add_argument(
        "--af",
        type=_floats,
        default=None,
        help="arrival factors: the af experiment's grid (default 0.5,0.75,1,1.25,1.5); in "
        "replay with --swf, one factor (default 1)",
    )
    exp.add_argument(
        "--flex",
        type=_flex,
        default=[(1, 1), (2, 2), (3, 3), (4, 4), (5, 5)],
        help="artime:deadline pairs (Fig. 6-7; default 1:1,...,5:5)",
    )
    exp.add_argument("--seeds", type=int, help="independent streams per point")
    exp.add_argument("--jobs", type=int, help="requests per stream (paper: 10,000)")
    exp.add_argument(
        "--policies", type=_names, default=list(PAPER_POLICIES), help="fit policies to compare"
    )
    exp.add_argument(
        "--bound-jobs",
        type=int,
        help="requests per stream for the offline optimum (0: none; quick 60, full 100)",
    )
    exp.add_argument(
        "--bound-time", type=float, help="CP-SAT seconds per offline optimum (quick 2, full 10)"
    )
    exp.add_argument(
        "--gap-windows",
        type=int,
        help="windows per stream on which the policies' gap to the proven offline optimum is "
        "measured (0: none; quick 2, full 3)",
    )
    exp.add_argument("--gap-size", type=int, help="requests per gap window (quick 60, full 80)")
    exp.add_argument(
        "--gap-time", type=float, help="CP-SAT seconds per gap window (quick 2, full 10)"
    )
    exp.add_argument(
        "--model",
        choices=("typeless", "two-stream"),
        default="typeless",
        help="Lublin-Feitelson arrival and runtime parameters (default typeless)",
    )
    exp.add_argument(
        "--runtime-map",
        choices=("ceil", "nearest"),
        default="ceil",
        help="model runtime -> {60,...,10800} s (default ceil: the smallest that covers it)",
    )
    exp.add_argument(
        "--workers", type=int, default=min(2, os.cpu_count() or 1), help="worker processes"
    )
    sem = p.add_argument_group(
        "semantics (both forms; the defaults pin what the paper leaves open: docs/design.md)"
    )
    sem.add_argument(
        "--unbounded-end",
        type=int,
        default=None,
        metavar="S",
        help="T_end of an unbounded rectangle = t_dl + S (default 10^9; 0: the deadline)",
    )
    sem.add_argument(
        "--latest-start",
        action="store_true",
        help="also try t_dl - t_du as a candidate start (the paper's Figure 1 lists it)",
    )
    sem.add_argument(
        "--reading",
        default="pinned",
        metavar="KEY=VALUE,...",
        help="every rule the paper leaves open at once (default pinned): "
        + "; ".join(f"{k}: {v}" for k, v in HELP.items()),
    )
    sem.add_argument(
        "--profile",
        choices=sorted(PROFILES),
        default=None,
        help="a named reading: "
        + "; ".join(f"{k} = {v.label()}" for k, v in sorted(PROFILES.items())),
    )
    exp.add_argument(
        "--sweep",
        action="store_true",
        help="run the experiments under every reading of a screening design of the open rules "
        "and write sweep.csv (reading, finding, value, interval, verdict)",
    )


#: Named readings (``--profile``); the default stays the pinned one.
PROFILES: dict[str, Reading] = {"pinned": PINNED}


def _reading(args: argparse.Namespace) -> Reading:
    """The reading the options name: ``--profile``, then ``--reading``, then the two switches."""
    try:
        reading = PROFILES[args.profile] if args.profile else PINNED
        parsed = Reading.parse(args.reading)
        reading = replace(reading, **parsed.changes())
        if args.unbounded_end is not None:
            reading = replace(reading, unbounded_end=args.unbounded_end)
        if args.latest_start:
            reading = replace(reading, latest_start=True)
    except ReadingError as exc:
        raise ConfigError(f"--reading: {exc}") from exc
    return reading


def run(args: argparse.Namespace) -> int:
    if args.requests or args.swf:
        return _replay(args)
    if args.policy is not None:
        raise ConfigError("--policy: a replay option; give --requests FILE.csv (or --swf)")
    return _experiment(args)


# ---------------------------------------------------------------------------------- replay
def _replay(args: argparse.Namespace) -> int:
    if args.requests and args.swf:
        raise ConfigError("--requests and --swf: give one of them")
    if args.out is None:
        raise ConfigError("--out DIR: required with --requests / --swf")
    if args.policy is None:
        raise ConfigError(f"--policy: required; one of {', '.join(PAPER_POLICIES)}")
    if args.requests:
        if args.pes is None:
            raise ConfigError("--pes N: required with --requests")
        requests = read_requests_csv(args.requests)
        pes = args.pes
    else:
        args.swf = str(datasets.resolve_file(args.swf))  # a file, else a dataset (kth-sp2)
        pes = args.pes or swf_machine_pes(args.swf)
        if not pes:
            raise ConfigError(f"--pes N: {args.swf} has no MaxProcs/MaxNodes header")
        af = (args.af or [1.0])[0]
        requests = requests_from_swf(
            args.swf, seed=args.seed, af=af, artime=args.artime, deadline=args.deadline
        )
    if not isinstance(pes, int) or not 1 <= pes <= MAX_PES:
        raise ConfigError(f"--pes: expected an integer from 1 to {MAX_PES:,}, got {pes!r}")
    for rid, reason in invalid_requests(requests, pes):
        print(f"schedbench: request {rid}: rejected at load: {reason}", file=sys.stderr)
    reading = _reading(args)
    result = _serve_named(requests, pes, args.policy, args.budget, reading)
    out = Path(args.out)
    write_decisions(result, out / "decisions.csv")
    numbers = summary(result)
    numbers["mean_slowdown"] = mean_slowdown(result, reading.slowdown)
    write_summary(numbers, out / "summary.csv")
    print(
        f"{args.policy}: {numbers['accepted']}/{numbers['submitted']} accepted "
        f"(acceptance {numbers['acceptance']:.4f}), mean slowdown "
        f"{numbers['mean_slowdown']:.4f}, utilisation {numbers['utilisation']:.4f}; "
        f"{numbers['invalid']} invalid, {numbers['faults']} invalid answers; "
        f"wrote {out / 'decisions.csv'} and {out / 'summary.csv'}"
    )
    return 0


def _serve_named(
    requests: Sequence[Any],
    pes: int,
    policy: str,
    budget_s: float,
    reading: Reading = PINNED,
) -> ReservationRun:
    """A fit policy by name through the fast path; anything else as a reservation solver."""
    if policy in FIT_POLICIES:
        return serve(requests, pes, policy, reading=reading)
    if reading.serving() != PINNED:
        raise ConfigError(
            "--latest-start / --unbounded-end / --reading: options of the fit policies, not of "
            "a solver"
        )
    from schedbench.solvers.registry import load_object, make_solver

    solver = load_object(policy)() if ":" in policy else make_solver(policy)
    if "reservation" not in getattr(solver, "kinds", ()):
        raise ConfigError(
            f"--policy {policy}: expected a fit policy ({', '.join(PAPER_POLICIES)}) or a "
            f"solver of the reservation kind; it answers {', '.join(solver.kinds)} problems"
        )
    # Asked as every command asks a solver (bench/run/isolate.py): a plug-in in an isolated
    # child with a hard deadline, the project's own here under a soft deadline.
    from schedbench.bench.run.isolate import contained_solver

    with contextlib.closing(contained_solver(policy, built=solver)) as contained:
        return serve_with_solver(requests, pes, contained, Budget(budget_s))


def write_decisions(result: ReservationRun, path: Path) -> None:
    """``id, accepted, start_s, pe_ids, arrival_s, end_s, deadline_s`` in service order
    (arrival, id); the last three let the schedule be drawn from this file alone."""

    def write(fh: Any) -> None:
        out = csv.writer(fh, lineterminator="\n")
        out.writerow(["id", "accepted", "start_s", "pe_ids", "arrival_s", "end_s", "deadline_s"])
        for o in result.outcomes:
            r = o.request
            if o.accepted and o.start is not None:
                pes = " ".join(map(str, o.pe_ids))
                out.writerow([r.id, 1, o.start, pes, r.arrival, o.start + r.duration, r.deadline])
            else:
                out.writerow([r.id, 0, "", "", r.arrival, "", r.deadline])

    atomic_write(path, write, text=True)


def write_summary(numbers: dict[str, Any], path: Path) -> None:
    """``acceptance, mean_slowdown, utilisation`` (one row)."""

    def write(fh: Any) -> None:
        out = csv.writer(fh, lineterminator="\n")
        out.writerow(["acceptance", "mean_slowdown", "utilisation"])
        out.writerow([_num(numbers[k]) for k in ("acceptance", "mean_slowdown", "utilisation")])

    atomic_write(path, write, text=True)


def _num(x: float) -> str:
    return "nan" if x is None or (isinstance(x, float) and math.isnan(x)) else repr(float(x))


# ---------------------------------------------------------------------------------- experiment
@dataclass(frozen=True, slots=True)
class Setting:
    umed: float
    af: float
    artime: float
    deadline: float


@dataclass(frozen=True, slots=True)
class Task:
    setting: Setting
    seed: int
    jobs: int
    policies: tuple[str, ...]
    bound_jobs: int
    bound_time: float
    model: str
    runtime_map: str
    reading: Reading = PINNED
    #: also serve every policy with the other T_end convention (the agreement table quotes it)
    sensitivity: bool = False
    #: windows per stream, requests per window, CP-SAT seconds per window (``_ar_gap.py``)
    gap_windows: int = 0
    gap_size: int = 0
    gap_time: float = 10.0


def run_task(task: Task) -> dict[str, Any]:
    """One stream: every policy on all requests, and the offline optimum of the first
    ``bound_jobs`` requests with every policy on the same prefix (a worker process)."""
    s = task.setting
    requests = generate_ar_requests(
        task.jobs,
        seed=task.seed,
        umed=s.umed,
        af=s.af,
        artime=s.artime,
        deadline=s.deadline,
        model=task.model,  # type: ignore[arg-type]
        runtime_map=task.runtime_map,  # type: ignore[arg-type]
    )
    per_policy: dict[str, dict[str, float]] = {}
    timings: dict[str, float] = {}
    for policy in task.policies:
        began = time.perf_counter()
        result = serve(requests, PAPER_PES, policy, reading=task.reading)
        timings[policy] = time.perf_counter() - began
        per_policy[policy] = {
            "acceptance": acceptance(result),
            "slowdown": mean_slowdown(result, task.reading.slowdown),
            # both slowdown readings, so that a sweep needs no second serve for them
            "slowdown_accepted": mean_slowdown(result, "accepted"),
            "slowdown_deadline": mean_slowdown(result, "deadline"),
            "utilisation": utilisation(result),
        }
    out: dict[str, Any] = {
        "setting": s,
        "seed": task.seed,
        "policies": per_policy,
        "offered_load": offered_load(requests, PAPER_PES),
        "serve_s": timings,
        "bound": None,
        "sensitivity": None,
        "gaps": None,
    }
    if task.gap_windows > 0 and task.gap_size > 0:
        from schedbench.bench.reproduce._ar_gap import stream_gaps

        out["gaps"] = stream_gaps(
            requests,
            PAPER_PES,
            task.policies,
            count=task.gap_windows,
            size=task.gap_size,
            reading=task.reading,
            time_limit_s=task.gap_time,
            seed=task.seed,
        )
    if task.sensitivity:
        other = 0 if task.reading.unbounded_end == UNBOUNDED_END else UNBOUNDED_END
        flipped = replace(task.reading, unbounded_end=other)
        out["sensitivity"] = {
            p: acceptance(serve(requests, PAPER_PES, p, reading=flipped)) for p in task.policies
        }
    if task.bound_jobs > 0:
        from schedbench.bench.analysis.ar_offline import offline_bound

        prefix = requests[: task.bound_jobs]
        on_prefix = {p: serve(prefix, PAPER_PES, p, reading=task.reading) for p in task.policies}
        best_run = max(on_prefix.values(), key=lambda r: len(r.accepted))
        hint = {o.request.id: o.start for o in best_run.accepted if o.start is not None}
        bound = offline_bound(
            prefix, PAPER_PES, time_limit_s=task.bound_time, hint=hint, seed=task.seed
        )
        out["bound"] = {
            "jobs": len(prefix),
            "best": bound.best,
            "bound": bound.bound,
            "proven": bound.proven,
            "wall_s": bound.wall_s,
            "accepted": {p: len(r.accepted) for p, r in on_prefix.items()},
        }
    return out


#: The point the three experiments share (UMed 7, af 1, {3,3}).
BASE = Setting(7.0, 1.0, 3.0, 3.0)


def _settings(args: argparse.Namespace) -> dict[str, list[Setting]]:
    af_grid = args.af if args.af is not None else [0.5, 0.75, 1.0, 1.25, 1.5]
    grids = {
        "umed": [Setting(float(u), 1.0, 3.0, 3.0) for u in args.umed],
        "af": [Setting(7.0, float(a), 3.0, 3.0) for a in af_grid],
        "flex": [Setting(7.0, 1.0, float(a), float(d)) for a, d in args.flex],
    }
    unknown = [e for e in args.experiments if e not in grids]
    if unknown:
        raise ConfigError(f"--experiments: unknown {unknown[0]!r}; expected umed, af or flex")
    return {e: grids[e] for e in args.experiments}


#: The largest count each option accepts (the paper's experiment uses 10 seeds of 10,000 requests).
COUNT_BOUNDS = {
    "seeds": 1_000,
    "jobs": 1_000_000,
    "bound_jobs": 100_000,
    "gap_windows": 1_000,
    "gap_size": 10_000,
}
MAX_WORKERS = 256


def _check(args: argparse.Namespace, defaults: dict[str, Any]) -> dict[str, Any]:
    cfg = {k: getattr(args, k) if getattr(args, k) is not None else v for k, v in defaults.items()}
    # Upper bounds too: a count typed with a few zeros too many would otherwise run for days.
    for key, most in COUNT_BOUNDS.items():
        if cfg[key] > most:
            flag = "--" + key.replace("_", "-")
            raise ConfigError(f"{flag}: expected at most {most:,}, got {cfg[key]:,}")
    if args.workers > MAX_WORKERS:
        raise ConfigError(f"--workers: expected at most {MAX_WORKERS}, got {args.workers:,}")
    if cfg["seeds"] < 1:
        raise ConfigError(f"--seeds: expected an integer >= 1, got {cfg['seeds']}")
    if cfg["jobs"] < 1:
        raise ConfigError(f"--jobs: expected an integer >= 1, got {cfg['jobs']}")
    if cfg["bound_jobs"] < 0:
        raise ConfigError(f"--bound-jobs: expected an integer >= 0, got {cfg['bound_jobs']}")
    if not cfg["bound_time"] > 0:
        raise ConfigError(f"--bound-time: expected seconds > 0, got {cfg['bound_time']}")
    for key in ("gap_windows", "gap_size"):
        if cfg[key] < 0:
            flag = "--" + key.replace("_", "-")
            raise ConfigError(f"{flag}: expected an integer >= 0, got {cfg[key]}")
    if not cfg["gap_time"] > 0:
        raise ConfigError(f"--gap-time: expected seconds > 0, got {cfg['gap_time']}")
    if args.workers < 1:
        raise ConfigError(f"--workers: expected an integer >= 1, got {args.workers}")
    for u in args.umed:
        if not 4.5 <= u <= 10:
            raise ConfigError(f"--umed: expected values in [4.5, 10] (ULow .. UHi), got {u:g}")
    for a in args.af or []:
        if not a > 0:
            raise ConfigError(f"--af: expected arrival factors > 0, got {a:g}")
    for p in args.policies:
        if p not in FIT_POLICIES:
            raise ConfigError(f"--policies: unknown {p!r}; known: {', '.join(PAPER_POLICIES)}")
    return cfg


def run_tasks(
    tasks: Sequence[Task], workers: int, no_progress: bool = True
) -> list[dict[str, Any]]:
    """``run_task`` of every task, in order, on ``workers`` processes."""
    return map_ordered(run_task, tasks, workers, "ar", no_progress)


def make_tasks(
    experiments: dict[str, list[Setting]],
    cfg: dict[str, Any],
    policies: Sequence[str],
    args: argparse.Namespace,
    reading: Reading = PINNED,
    sensitivity: bool = True,
) -> list[Task]:
    """One task per distinct setting and seed (seeds 1 .. ``cfg["seeds"]``)."""
    unique = list(dict.fromkeys(s for grid in experiments.values() for s in grid))
    return [
        Task(
            s,
            seed,
            cfg["jobs"],
            tuple(policies),
            min(cfg["bound_jobs"], cfg["jobs"]),
            cfg["bound_time"],
            args.model,
            args.runtime_map,
            reading,
            sensitivity and s == BASE,
            cfg.get("gap_windows", 0),
            cfg.get("gap_size", 0),
            cfg.get("gap_time", 10.0),
        )
        for s in unique
        for seed in range(1, cfg["seeds"] + 1)
    ]


def judge_grid(
    experiments: dict[str, list[Setting]],
    seeds: int,
    jobs: int,
    policies: Sequence[str] = PAPER_POLICIES,
    reading: Reading = PINNED,
    workers: int = 1,
) -> list[dict[str, Any]]:
    """The findings' verdicts on a grid of settings, ``seeds`` streams of ``jobs`` requests per
    point, no offline bound (what the quick-against-full comparison runs)."""
    args = argparse.Namespace(model="typeless", runtime_map="ceil")
    cfg = {"seeds": seeds, "jobs": jobs, "bound_jobs": 0, "bound_time": 1.0, "gap_windows": 0}
    tasks = make_tasks(experiments, cfg, policies, args, reading, sensitivity=False)
    by_setting: dict[Setting, list[dict[str, Any]]] = {}
    for item in run_tasks(tasks, workers):
        by_setting.setdefault(item["setting"], []).append(item)
    return agreement(samples_of(experiments, by_setting, policies), policies)


def _experiment(args: argparse.Namespace) -> int:
    began, began_cpu = time.perf_counter(), cpu_seconds()
    cfg = _check(args, QUICK if args.quick else FULL)
    experiments = _settings(args)
    reading = _reading(args)
    if args.sweep:
        from schedbench.bench.reproduce._ar_sweep import sweep

        return sweep(args, cfg, experiments, began, began_cpu)
    out = Path(args.out or ("results/reproduce/ar-quick" if args.quick else "results/reproduce/ar"))
    tasks = make_tasks(experiments, cfg, args.policies, args, reading)
    unique = {t.setting for t in tasks}
    print(
        f"ar: {len(unique)} settings x {cfg['seeds']} seeds x {cfg['jobs']} requests, "
        f"{len(args.policies)} policies; offline optimum on the first {cfg['bound_jobs']} "
        f"requests ({cfg['bound_time']:g} s each); gap to the proven optimum on "
        f"{cfg['gap_windows']} windows of {cfg['gap_size']} requests per stream "
        f"({cfg['gap_time']:g} s each); {args.workers} worker(s)"
        + ("" if reading == PINNED else f"; reading {reading.label()}"),
        file=sys.stderr,
    )
    done = run_tasks(tasks, args.workers, args.no_progress)
    by_setting: dict[Setting, list[dict[str, Any]]] = {}
    for item in done:
        by_setting.setdefault(item["setting"], []).append(item)

    rows = results_rows(experiments, by_setting, args.policies, cfg)
    ensure_dir(out)
    _write_csv(out / "results.csv", RESULT_COLUMNS, rows)
    _write_csv(
        out / "details.csv", *details_rows(experiments, by_setting, args.policies, cfg["jobs"])
    )
    _write_csv(out / "bounds.csv", *bounds_rows(by_setting, args.policies))
    figures = draw_figures(rows, by_setting, args.policies, out)
    sens = [i["sensitivity"] for i in by_setting.get(BASE, []) if i["sensitivity"]]
    sensitivity = {p: sum(d[p] for d in sens) / len(sens) for p in args.policies} if sens else None
    samples = samples_of(experiments, by_setting, args.policies)
    _write_csv(out / "seeds.csv", SEED_COLUMNS, seed_rows(experiments, by_setting, args.policies))
    found = agreement(samples, args.policies, sensitivity, reading.unbounded_end)
    _write_csv(out / "agreement.csv", AGREEMENT_COLUMNS, found)
    _print_agreement(found)
    figures += _write_gaps(experiments, by_setting, args.policies, out)
    print(
        f"\nwrote {out}/results.csv, details.csv, bounds.csv, seeds.csv, agreement.csv, "
        f"gap.csv, gap_windows.csv and {len(figures)} figures in {cost_line(began, began_cpu)}"
    )
    return 0


def _write_gaps(
    experiments: dict[str, list[Setting]],
    by_setting: dict[Setting, list[dict[str, Any]]],
    policies: Sequence[str],
    out: Path,
) -> list[Path]:
    """``gap_windows.csv``, ``gap.csv``, the printed gap table and ``fig_offline_gap.png``
    (``_ar_gap.py``); the CSVs hold only their header when no window was measured."""
    from schedbench.bench.reproduce import _ar_gap as gap

    _write_csv(out / "gap_windows.csv", gap.WINDOW_COLUMNS, gap.window_rows(by_setting, policies))
    rows = gap.gap_rows(experiments, by_setting, policies)
    _write_csv(out / "gap.csv", gap.GAP_COLUMNS, rows)
    if not rows:
        return []
    print(
        "\nAcceptance gap to the proven offline optimum on windows (optimum - accepted) / "
        "requests, mean [95 % interval] over the proven windows; every policy replays the "
        "window from an empty machine:"
    )
    print(gap.gap_table(rows, LABELS))
    path = out / "fig_offline_gap.png"
    return [path] if gap.draw_gap(rows, LABELS, path) else []


def _fmt(x: Any) -> Any:
    if isinstance(x, float):
        return "" if math.isnan(x) else round(x, 6)
    return x


def results_rows(
    experiments: dict[str, list[Setting]],
    by_setting: dict[Setting, list[dict[str, Any]]],
    policies: Sequence[str],
    cfg: dict[str, Any],
) -> list[dict[str, Any]]:
    rows = []
    for name, grid in experiments.items():
        for s in grid:
            items = by_setting[s]
            bounds = [i["bound"] for i in items if i["bound"] is not None]
            bound_share = (
                float(sum(b["bound"] / b["jobs"] for b in bounds) / len(bounds))
                if bounds
                else math.nan
            )
            for p in policies:
                acc = mean_ci95([i["policies"][p]["acceptance"] for i in items])
                slow = mean_ci95([i["policies"][p]["slowdown"] for i in items])
                rows.append(
                    {
                        "experiment": name,
                        "policy": p,
                        "umed": s.umed,
                        "af": s.af,
                        "artime": s.artime,
                        "deadline": s.deadline,
                        "seeds": len(items),
                        "jobs": cfg["jobs"],
                        "acceptance": acc[0],
                        "acceptance_ci95": acc[1],
                        "slowdown": slow[0],
                        "slowdown_ci95": slow[1],
                        "offline_bound": bound_share,
                    }
                )
    return rows


def details_rows(
    experiments: dict[str, list[Setting]],
    by_setting: dict[Setting, list[dict[str, Any]]],
    policies: Sequence[str],
    jobs: int,
) -> tuple[tuple[str, ...], list[dict[str, Any]]]:
    cols = (
        "experiment",
        "policy",
        "umed",
        "af",
        "artime",
        "deadline",
        "utilisation",
        "utilisation_ci95",
        "offered_load",
        "serve_s_per_10k",
    )
    rows = []
    for name, grid in experiments.items():
        for s in grid:
            items = by_setting[s]
            load = mean_ci95([i["offered_load"] for i in items])[0]
            for p in policies:
                util = mean_ci95([i["policies"][p]["utilisation"] for i in items])
                per_10k = [i["serve_s"][p] * 10_000 / jobs for i in items]
                rows.append(
                    {
                        "experiment": name,
                        "policy": p,
                        "umed": s.umed,
                        "af": s.af,
                        "artime": s.artime,
                        "deadline": s.deadline,
                        "utilisation": util[0],
                        "utilisation_ci95": util[1],
                        "offered_load": load,
                        "serve_s_per_10k": mean_ci95(per_10k)[0],
                    }
                )
    return cols, rows


def bounds_rows(
    by_setting: dict[Setting, list[dict[str, Any]]], policies: Sequence[str]
) -> tuple[tuple[str, ...], list[dict[str, Any]]]:
    cols = (
        "umed",
        "af",
        "artime",
        "deadline",
        "seed",
        "jobs",
        "offline_best",
        "offline_bound",
        "proven",
        "cpsat_s",
        "policy",
        "accepted",
        "share_of_bound",
    )
    rows = []
    for s, items in by_setting.items():
        for i in items:
            b = i["bound"]
            if b is None:
                continue
            for p in policies:
                rows.append(
                    {
                        "umed": s.umed,
                        "af": s.af,
                        "artime": s.artime,
                        "deadline": s.deadline,
                        "seed": i["seed"],
                        "jobs": b["jobs"],
                        "offline_best": b["best"],
                        "offline_bound": b["bound"],
                        "proven": int(b["proven"]),
                        "cpsat_s": round(b["wall_s"], 3),
                        "policy": p,
                        "accepted": b["accepted"][p],
                        "share_of_bound": b["accepted"][p] / b["bound"] if b["bound"] else math.nan,
                    }
                )
    return cols, rows


def _write_csv(path: Path, columns: Iterable[str], rows: Iterable[dict[str, Any]]) -> None:
    cols = list(columns)

    def write(fh: Any) -> None:
        out = csv.DictWriter(fh, fieldnames=cols, lineterminator="\n")
        out.writeheader()
        for row in rows:
            out.writerow({k: _fmt(row[k]) for k in cols})

    atomic_write(path, write, text=True)


# ---------------------------------------------------------------------------------- figures
_AXES = {
    "umed": ("UMed", lambda r: r["umed"]),
    "af": ("arrival factor", lambda r: r["af"]),
    "flex": ("{artime factor, deadline factor}", lambda r: r["artime"]),
}
_FIGURES = {
    ("umed", "acceptance"): "fig2_acceptance_umed.png",
    ("umed", "slowdown"): "fig3_slowdown_umed.png",
    ("af", "acceptance"): "fig4_acceptance_af.png",
    ("af", "slowdown"): "fig5_slowdown_af.png",
    ("flex", "acceptance"): "fig6_acceptance_flex.png",
    ("flex", "slowdown"): "fig7_slowdown_flex.png",
}


def _flex_label(r: dict[str, Any]) -> str:
    return "{{{:g},{:g}}}".format(r["artime"], r["deadline"])


def draw_figures(
    rows: list[dict[str, Any]],
    by_setting: dict[Setting, list[dict[str, Any]]],
    policies: Sequence[str],
    out: Path,
) -> list[Path]:
    """Figures 2–7 (one line per policy, 95 % intervals as error bars) and the policies'
    share of the offline optimum on the bound prefix."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    written = []
    for (experiment, metric), filename in _FIGURES.items():
        sub = [r for r in rows if r["experiment"] == experiment]
        if not sub:
            continue
        name, xof = _AXES[experiment]
        fig = Figure(figsize=(6.4, 4.2))
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        for k, p in enumerate(policies):
            pts = [r for r in sub if r["policy"] == p]
            xs = list(range(len(pts))) if experiment == "flex" else [xof(r) for r in pts]
            ys = [r[metric] for r in pts]
            err = [0.0 if math.isnan(r[f"{metric}_ci95"]) else r[f"{metric}_ci95"] for r in pts]
            style = series_style(k).line()
            ax.errorbar(xs, ys, yerr=err, ms=3, capsize=2, label=LABELS.get(p, p), **style)
        if experiment == "flex":
            pts = [r for r in sub if r["policy"] == policies[0]]
            ax.set_xticks(list(range(len(pts))), [_flex_label(r) for r in pts])
        ax.set_xlabel(name)
        ax.set_ylabel("acceptance rate" if metric == "acceptance" else "average slowdown")
        seeds, jobs = sub[0]["seeds"], sub[0]["jobs"]
        ax.set_title(f"{metric} vs {name} ({seeds} seeds x {jobs} requests)", fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
        fig.tight_layout()
        save_figure(fig, out / filename, dpi=110)
        written.append(out / filename)
    # the policies' share of the offline optimum, per setting with a bound
    bounded = [(s, items) for s, items in by_setting.items() if items[0]["bound"] is not None]
    if bounded:
        fig = Figure(figsize=(7.5, 4.2))
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        # how many of the setting's streams CP-SAT proved: elsewhere the share is taken of a
        # proven upper bound, so it understates the policy's true share of the optimum
        labels = [
            f"U{s.umed:g} af{s.af:g} {{{s.artime:g},{s.deadline:g}}} "
            f"{sum(bool(i['bound']['proven']) for i in items)}/{len(items)}"
            for s, items in bounded
        ]
        width = 0.8 / max(1, len(policies))
        lowest = 1.0
        for k, p in enumerate(policies):
            ys = [
                sum(i["bound"]["accepted"][p] / i["bound"]["bound"] for i in items) / len(items)
                for _s, items in bounded
            ]
            lowest = min([lowest, *ys])
            xs = [x + k * width for x in range(len(bounded))]
            ax.bar(xs, ys, width, label=LABELS.get(p, p), **series_style(k).bar())
        ax.set_xticks(
            [x + 0.4 - width / 2 for x in range(len(bounded))], labels, rotation=60, fontsize=6
        )
        ax.set_ylim(max(0.0, math.floor(lowest * 10 - 0.5) / 10), 1.02)
        ax.set_ylabel("accepted / offline optimum", fontsize=8)
        ax.set_xlabel(
            "setting, streams proven optimal (else: share of the proven bound)", fontsize=7
        )
        jobs = bounded[0][1][0]["bound"]["jobs"]
        ax.set_title(f"online policies vs the offline optimum (first {jobs} requests)", fontsize=9)
        ax.legend(fontsize=6, ncol=4)
        fig.tight_layout()
        save_figure(fig, out / "fig_offline_ratio.png", dpi=110)
        written.append(out / "fig_offline_ratio.png")
    return written


# ---------------------------------------------------------------------------------- agreement
AGREEMENT_COLUMNS = ("finding", "paper", "ours", "interval", "agree", "reason")
SEED_COLUMNS = (
    "experiment",
    "umed",
    "af",
    "artime",
    "deadline",
    "seed",
    "policy",
    "acceptance",
    "slowdown",
)


def samples_of(
    experiments: dict[str, list[Setting]],
    by_setting: dict[Setting, list[dict[str, Any]]],
    policies: Sequence[str],
) -> Samples:
    """Per-seed acceptance and slowdown of every point, the seeds in the same order everywhere
    (``_ar_findings.Samples``)."""
    out: Samples = {}
    for name, grid in experiments.items():
        for s in grid:
            items = sorted(by_setting[s], key=lambda i: i["seed"])
            for p in policies:
                out[(name, axis_position(name, s), p)] = {
                    m: [float(i["policies"][p][m]) for i in items]
                    for m in ("acceptance", "slowdown")
                }
    return out


def seed_rows(
    experiments: dict[str, list[Setting]],
    by_setting: dict[Setting, list[dict[str, Any]]],
    policies: Sequence[str],
) -> list[dict[str, Any]]:
    """``seeds.csv``: every stream's acceptance and slowdown per policy (what the verdicts are
    computed from)."""
    return [
        {
            "experiment": name,
            "umed": s.umed,
            "af": s.af,
            "artime": s.artime,
            "deadline": s.deadline,
            "seed": i["seed"],
            "policy": p,
            "acceptance": i["policies"][p]["acceptance"],
            "slowdown": i["policies"][p]["slowdown"],
        }
        for name, grid in experiments.items()
        for s in grid
        for i in sorted(by_setting[s], key=lambda i: i["seed"])
        for p in policies
    ]


def _sensitivity_text(sens: dict[str, float] | None, policies: Sequence[str]) -> str:
    if not sens:
        return ""
    return (
        "with T_end = t_dl for unbounded rectangles (--unbounded-end 0) at UMed 7, af 1, {3,3}: "
        + ", ".join(f"{LABELS.get(p, p)} {sens[p]:.3f}" for p in policies if p in sens)
    )


def _pedu_reason(sensitivity: dict[str, float] | None, unbounded_end: int) -> str:
    """Why PEDu_B and PEDu_W behave unlike the paper's under the pinned T_end (empty with the
    other convention)."""
    if unbounded_end != UNBOUNDED_END:
        return ""
    return (
        "the pinned T_end = t_dl + 10^9 of an unbounded rectangle makes every bounded rectangle "
        "smaller than every unbounded one: PEDu_B fills closed holes (like FF, Du_W) and PEDu_W "
        "takes the widest open rectangle (like PE_W); "
        + _sensitivity_text(sensitivity, ["ff", "pedu-b", "pedu-w", "pe-w", "du-b"])
    )


def agreement(
    samples: Samples,
    policies: Sequence[str],
    sensitivity: dict[str, float] | None = None,
    unbounded_end: int = UNBOUNDED_END,
) -> list[dict[str, Any]]:
    """The paper's findings (Section 6.2, abstract), each judged on our 95 % intervals over
    seeds (``_ar_findings.py``: yes / no / inconclusive). ``sensitivity``: acceptance at the
    base setting with the other T_end convention, quoted where it explains a difference."""
    return findings(samples, policies, _pedu_reason(sensitivity, unbounded_end))


def _print_agreement(found: list[dict[str, Any]]) -> None:
    from tabulate import tabulate

    def cut(text: str, n: int) -> str:
        return text[:n] + ("..." if len(text) > n else "")

    table = [
        [cut(f["finding"], 52), cut(f["paper"], 44), cut(f["interval"], 78), f["agree"]]
        for f in found
    ]
    print(
        tabulate(
            table,
            headers=["finding", "paper", "ours: the deciding 95 % interval", "agree"],
            tablefmt="simple",
        )
    )
    counts = summary_counts(found)
    print(
        f"\nagree: {counts['yes']} yes, {counts['no']} no, {counts['inconclusive']} inconclusive "
        f"of {len(found)} findings (agreement.csv has every finding's numbers and reasons)"
    )
