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
  ``fig7_slowdown_flex.png`` and ``fig_offline_ratio.png``, and ``agreement.csv`` (finding,
  paper, ours, agree, reason), also printed. Grids are options (``--umed 5,6,7 --af 0.5,1
  --flex 1:1,3:3 --seeds N --jobs N``).

``offline_bound`` in ``results.csv`` is the mean over seeds of the largest acceptance any
schedule reaches on the first ``--bound-jobs`` requests of the stream (CP-SAT,
``bench/analysis/ar_offline.py``; its proven upper bound where it did not prove optimality within
``--bound-time`` — ``bounds.csv`` says which), not on all ``--jobs`` requests: at UMed 7, af 1,
{3,3} CP-SAT proves most streams of 80 requests within 10 s and few of 100
(``bench/benchmarks/ar_offline_reach.py``).
"""

from __future__ import annotations

import argparse
import csv
import itertools
import math
import os
import sys
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schedbench.bench._io import atomic_write, save_figure
from schedbench.bench.progress import progress
from schedbench.bench.report.style import series_style
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
from schedbench.simcore.reservations.slots import UNBOUNDED_END
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
QUICK = {"seeds": 5, "jobs": 3000, "bound_jobs": 60, "bound_time": 2.0}
FULL = {"seeds": 10, "jobs": 10_000, "bound_jobs": 100, "bound_time": 10.0}


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
        default=UNBOUNDED_END,
        metavar="S",
        help="T_end of an unbounded rectangle = t_dl + S (default 10^9; 0: the deadline)",
    )
    sem.add_argument(
        "--latest-start",
        action="store_true",
        help="also try t_dl - t_du as a candidate start (the paper's Figure 1 lists it)",
    )


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
    result = _serve_named(
        requests,
        pes,
        args.policy,
        args.budget,
        latest_start=args.latest_start,
        unbounded_end=args.unbounded_end,
    )
    out = Path(args.out)
    write_decisions(result, out / "decisions.csv")
    numbers = summary(result)
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
    *,
    latest_start: bool = False,
    unbounded_end: int = UNBOUNDED_END,
) -> ReservationRun:
    """A fit policy by name through the fast path; anything else as a reservation solver."""
    if policy in FIT_POLICIES:
        return serve(requests, pes, policy, latest_start=latest_start, unbounded_end=unbounded_end)
    if latest_start or unbounded_end != UNBOUNDED_END:
        raise ConfigError(
            "--latest-start / --unbounded-end: options of the fit policies, not of a solver"
        )
    from schedbench.solvers.registry import load_object, make_solver

    solver = load_object(policy)() if ":" in policy else make_solver(policy)
    if "reservation" not in getattr(solver, "kinds", ()):
        raise ConfigError(
            f"--policy {policy}: expected a fit policy ({', '.join(PAPER_POLICIES)}) or a "
            f"solver of the reservation kind; it answers {', '.join(solver.kinds)} problems"
        )
    return serve_with_solver(requests, pes, solver, Budget(budget_s))


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
    unbounded_end: int = UNBOUNDED_END
    latest_start: bool = False
    #: also serve every policy with the other T_end convention (the agreement table quotes it)
    sensitivity: bool = False


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
        result = serve(
            requests,
            PAPER_PES,
            policy,
            latest_start=task.latest_start,
            unbounded_end=task.unbounded_end,
        )
        timings[policy] = time.perf_counter() - began
        per_policy[policy] = {
            "acceptance": acceptance(result),
            "slowdown": mean_slowdown(result),
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
    }
    if task.sensitivity:
        other = 0 if task.unbounded_end == UNBOUNDED_END else UNBOUNDED_END
        out["sensitivity"] = {
            p: acceptance(
                serve(
                    requests,
                    PAPER_PES,
                    p,
                    latest_start=task.latest_start,
                    unbounded_end=other,
                )
            )
            for p in task.policies
        }
    if task.bound_jobs > 0:
        from schedbench.bench.analysis.ar_offline import offline_bound

        prefix = requests[: task.bound_jobs]
        on_prefix = {
            p: serve(
                prefix,
                PAPER_PES,
                p,
                latest_start=task.latest_start,
                unbounded_end=task.unbounded_end,
            )
            for p in task.policies
        }
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


def _check(args: argparse.Namespace, defaults: dict[str, Any]) -> dict[str, Any]:
    cfg = {k: getattr(args, k) if getattr(args, k) is not None else v for k, v in defaults.items()}
    if cfg["seeds"] < 1:
        raise ConfigError(f"--seeds: expected an integer >= 1, got {cfg['seeds']}")
    if cfg["jobs"] < 1:
        raise ConfigError(f"--jobs: expected an integer >= 1, got {cfg['jobs']}")
    if cfg["bound_jobs"] < 0:
        raise ConfigError(f"--bound-jobs: expected an integer >= 0, got {cfg['bound_jobs']}")
    if not cfg["bound_time"] > 0:
        raise ConfigError(f"--bound-time: expected seconds > 0, got {cfg['bound_time']}")
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


def _experiment(args: argparse.Namespace) -> int:
    began = time.perf_counter()
    cfg = _check(args, QUICK if args.quick else FULL)
    experiments = _settings(args)
    out = Path(args.out or ("results/reproduce/ar-quick" if args.quick else "results/reproduce/ar"))
    unique = list(dict.fromkeys(s for grid in experiments.values() for s in grid))
    tasks = [
        Task(
            s,
            seed,
            cfg["jobs"],
            tuple(args.policies),
            min(cfg["bound_jobs"], cfg["jobs"]),
            cfg["bound_time"],
            args.model,
            args.runtime_map,
            args.unbounded_end,
            args.latest_start,
            s == BASE,
        )
        for s in unique
        for seed in range(1, cfg["seeds"] + 1)
    ]
    print(
        f"ar: {len(unique)} settings x {cfg['seeds']} seeds x {cfg['jobs']} requests, "
        f"{len(args.policies)} policies; offline optimum on the first {cfg['bound_jobs']} "
        f"requests ({cfg['bound_time']:g} s each); {args.workers} worker(s)",
        file=sys.stderr,
    )
    with progress(len(tasks), "ar", "stream", disable=args.no_progress) as bar:
        if args.workers > 1 and len(tasks) > 1:
            with ProcessPoolExecutor(max_workers=args.workers) as pool:
                done = []
                for item in pool.map(run_task, tasks):  # in order, so results stay aligned
                    done.append(item)
                    bar.update()
        else:
            done = []
            for t in tasks:
                done.append(run_task(t))
                bar.update()
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
    findings = agreement(rows, args.policies, sensitivity, args.unbounded_end)
    _write_csv(out / "agreement.csv", ("finding", "paper", "ours", "agree", "reason"), findings)
    _print_agreement(findings)
    elapsed = time.perf_counter() - began
    print(
        f"\nwrote {out}/results.csv, details.csv, bounds.csv, agreement.csv and "
        f"{len(figures)} figures in {elapsed:.0f} s"
    )
    return 0


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
#: Why our numbers may differ from the paper's, whatever the finding (the README elaborates).
_CAUSES = (
    "LANL-CM5 arrival parameters unpublished (model defaults used, offered load in details.csv); "
    "runtime mapping unpublished (ours: ceil)"
)


def _table(rows: list[dict[str, Any]], experiment: str, metric: str) -> dict[Any, dict[str, float]]:
    """x -> policy -> value (``metric`` and ``metric``_ci95 as a pair under ``metric``)."""
    out: dict[Any, dict[str, float]] = {}
    for r in rows:
        if r["experiment"] != experiment:
            continue
        if experiment == "flex":
            x: Any = (r["artime"], r["deadline"])
        else:
            x = r["umed" if experiment == "umed" else "af"]
        out.setdefault(x, {})[r["policy"]] = r[metric]
    return dict(sorted(out.items()))


def _ci(rows: list[dict[str, Any]], experiment: str, metric: str) -> dict[Any, dict[str, float]]:
    table = _table(rows, experiment, f"{metric}_ci95")
    return {x: {p: (0.0 if math.isnan(v) else v) for p, v in d.items()} for x, d in table.items()}


def _xs(x: Any) -> str:
    return "{{{:g},{:g}}}".format(*x) if isinstance(x, tuple) else f"{x:g}"


def _trend(
    table: dict[Any, dict[str, float]], policies: Sequence[str], rising: bool
) -> tuple[bool, str, list[str]]:
    """Whether every policy's value moves the stated way from the first to the last point and
    at every step (allowing 0.5 % noise); the text; the policies that do not."""
    keys = list(table)
    bad = []
    for p in policies:
        ys = [table[k][p] for k in keys]
        tol = 0.005 * max(abs(y) for y in ys)
        ok = all((b - a >= -tol) if rising else (b - a <= tol) for a, b in itertools.pairwise(ys))
        ok = ok and ((ys[-1] > ys[0]) if rising else (ys[-1] < ys[0]))
        if not ok:
            bad.append(p)
    first, last = keys[0], keys[-1]
    span = ", ".join(
        f"{LABELS.get(p, p)} {table[first][p]:.3f}->{table[last][p]:.3f}" for p in policies
    )
    text = f"{_xs(first)} -> {_xs(last)}: {span}"
    if bad:
        text += f"; not monotone: {', '.join(LABELS.get(p, p) for p in bad)}"
    return not bad, text, bad


def _tied_best(values: dict[str, float], ci: dict[str, float], lowest: bool = False) -> list[str]:
    """The policies whose 95 % interval overlaps the best one's."""
    best = min(values, key=values.__getitem__) if lowest else max(values, key=values.__getitem__)
    return [p for p, v in values.items() if abs(v - values[best]) <= ci[p] + ci[best]]


def _sensitivity_text(sens: dict[str, float] | None, policies: Sequence[str]) -> str:
    if not sens:
        return ""
    return (
        "with T_end = t_dl for unbounded rectangles (--unbounded-end 0) at UMed 7, af 1, {3,3}: "
        + ", ".join(f"{LABELS.get(p, p)} {sens[p]:.3f}" for p in policies if p in sens)
    )


def agreement(
    rows: list[dict[str, Any]],
    policies: Sequence[str],
    sensitivity: dict[str, float] | None = None,
    unbounded_end: int = UNBOUNDED_END,
) -> list[dict[str, Any]]:
    """The paper's findings (Section 6.2, abstract), each checked against our results. "At the
    top" means within the 95 % interval of the best. ``sensitivity``: acceptance at the base
    setting with the other T_end convention, quoted where it explains a difference. One helper
    per figure (or group of findings); the rows come in the paper's order."""
    have = set(policies)
    paper7 = [p for p in PAPER_POLICIES if p in have]
    pedu = _pedu_reason(sensitivity, unbounded_end)
    exps = {r["experiment"] for r in rows}
    out: list[dict[str, Any]] = []
    if "umed" in exps:
        out += _umed_acceptance(rows, have, paper7, pedu)
        out += _umed_slowdown(rows, have, paper7)
    out += _ff_lowest_slowdown(rows, exps, have)
    if "af" in exps:
        out += _af_trends(rows, paper7)
    if {"umed", "af"} <= exps and len(paper7) >= 3:
        out.append(_ranking_alike(rows, paper7))
    if "flex" in exps:
        out += _flex_findings(rows, have, paper7, pedu)
    if "pe-w" in have:
        out.append(_pe_w_overall(rows, exps))
    return out


def _finding(finding: str, paper: str, ours: str, agree: bool, reason: str = "") -> dict[str, Any]:
    """One row of the agreement table; a disagreement without a reason of its own gets the
    causes common to every finding."""
    return {
        "finding": finding,
        "paper": paper,
        "ours": ours,
        "agree": "yes" if agree else "no",
        "reason": "" if agree else (reason or _CAUSES),
    }


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


def _umed_acceptance(
    rows: list[dict[str, Any]], have: set[str], paper7: list[str], pedu: str
) -> list[dict[str, Any]]:
    """Figure 2: acceptance against UMed (falls; PE_W and Du_B on top; three pairs; FF beaten)."""
    out: list[dict[str, Any]] = []
    acc, ci = _table(rows, "umed", "acceptance"), _ci(rows, "umed", "acceptance")
    ok, text, _bad = _trend(acc, paper7, rising=False)
    out.append(
        _finding(
            "acceptance falls as UMed grows", "Fig. 2: all strategies decrease gradually", text, ok
        )
    )
    if {"pe-w", "du-b"} <= have:
        tops = {x: _tied_best(v, ci[x]) for x, v in acc.items()}
        ok = all({"pe-w", "du-b"} <= set(t) for t in tops.values())
        others = sorted({p for t in tops.values() for p in t} - {"pe-w", "du-b"})
        text = "; ".join(
            f"UMed {_xs(x)}: {'/'.join(LABELS.get(p, p) for p in t)}" for x, t in tops.items()
        )
        row = _finding(
            "PE_W and Du_B accept the most at every UMed",
            "Fig. 2: PE_W and Du_B clearly the best for all UMed values",
            "at the top (95 % intervals overlap the best): " + text,
            ok,
        )
        if ok and others:
            row["reason"] = f"also at the top: {', '.join(LABELS.get(p, p) for p in others)}; " + (
                pedu if "pedu-w" in others else ""
            )
        out.append(row)
    pairs = [("pe-w", "du-b"), ("pedu-b", "pedu-w"), ("pe-b", "du-w")]
    if all(a in have and b in have for a, b in pairs):
        close = {
            (a, b): all(abs(v[a] - v[b]) <= max(0.01, ci[x][a] + ci[x][b]) for x, v in acc.items())
            for a, b in pairs
        }
        gaps = {(a, b): max(abs(v[a] - v[b]) for v in acc.values()) for a, b in pairs}
        text = "largest gap within a pair: " + ", ".join(
            f"{LABELS[a]}/{LABELS[b]} {gaps[(a, b)]:.3f}{'' if close[(a, b)] else ' (apart)'}"
            for a, b in pairs
        )
        out.append(
            _finding(
                "three pairs with almost identical acceptance",
                "Fig. 2: PE_W~Du_B, PEDu_B~PEDu_W, PE_B~Du_W",
                text,
                all(close.values()),
                pedu if not close[("pedu-b", "pedu-w")] else "",
            )
        )
    better = [p for p in ("pe-w", "du-b", "pedu-b", "pedu-w") if p in have]
    worse = [p for p in ("pe-b", "du-w") if p in have]
    if "ff" in have and better:
        beats = {
            p: all(v[p] - v["ff"] > ci[x][p] + ci[x]["ff"] for x, v in acc.items())
            for p in better + worse
        }
        text = ", ".join(
            f"{LABELS[p]} {'above' if beats[p] else 'not above'} FF everywhere" for p in beats
        )
        out.append(
            _finding(
                "all but PE_B and Du_W outperform FF",
                "Fig. 2: except PE_B and Du_W, all other four strategies outperform FF",
                text + " (above: beyond the 95 % intervals)",
                all(beats[p] for p in better) and not any(beats[p] for p in worse),
                pedu if not beats.get("pedu-b", True) else "",
            )
        )
    return out


def _umed_slowdown(
    rows: list[dict[str, Any]], have: set[str], paper7: list[str]
) -> list[dict[str, Any]]:
    """Figure 3: slowdown against UMed (grows; the pairs again; PEDu_B and PEDu_W apart)."""
    out: list[dict[str, Any]] = []
    slow = _table(rows, "umed", "slowdown")
    ok, text, _bad = _trend(slow, paper7, rising=True)
    out.append(
        _finding(
            "slowdown grows with UMed",
            "Fig. 3: slowdowns of all strategies increase in general",
            text,
            ok,
        )
    )
    slow_pairs = [("pe-w", "du-b"), ("pe-b", "du-w")]
    if all(a in have and b in have for a, b in slow_pairs):
        cis = _ci(rows, "umed", "slowdown")
        # "similar": within the two 95 % intervals, or within 2 % of the slowdown
        near = {
            (a, b): all(
                abs(v[a] - v[b]) <= max(0.02 * max(v[a], v[b]), cis[x][a] + cis[x][b])
                for x, v in slow.items()
            )
            for a, b in slow_pairs
        }
        text = "largest gap within a pair: " + ", ".join(
            f"{LABELS[a]}/{LABELS[b]} "
            f"{max(abs(v[a] - v[b]) for v in slow.values()):.3f}"
            f"{'' if near[(a, b)] else ' (apart)'}"
            for a, b in slow_pairs
        )
        out.append(
            _finding(
                "PE_W~Du_B and PE_B~Du_W in slowdown too",
                "Fig. 3: PE_W and Du_B, and PE_B and Du_W, similar again as in Fig. 2",
                text + " (similar: within the 95 % intervals or 2 %)",
                all(near.values()),
            )
        )
    if {"pedu-b", "pedu-w"} <= have:
        gap = [abs(v["pedu-b"] - v["pedu-w"]) for v in slow.values()]
        cis = _ci(rows, "umed", "slowdown")
        apart = all(g > cis[x]["pedu-b"] + cis[x]["pedu-w"] for g, x in zip(gap, slow, strict=True))
        out.append(
            _finding(
                "PEDu_B and PEDu_W differ in slowdown",
                "Fig. 3: PEDu_B and PEDu_W surprisingly different",
                "PEDu_W - PEDu_B: "
                + ", ".join(f"{_xs(x)} {v['pedu-w'] - v['pedu-b']:+.3f}" for x, v in slow.items()),
                apart,
            )
        )
    return out


def _ff_lowest_slowdown(
    rows: list[dict[str, Any]], exps: set[str], have: set[str]
) -> list[dict[str, Any]]:
    """Figures 3, 5 and 7: FF always has the smallest slowdown."""
    out: list[dict[str, Any]] = []
    for exp, fig in (("umed", "Fig. 3"), ("af", "Fig. 5"), ("flex", "Fig. 7")):
        if exp in exps and "ff" in have:
            slow = _table(rows, exp, "slowdown")
            lowest = {x: min(v, key=v.__getitem__) for x, v in slow.items()}
            text = "lowest: " + ", ".join(f"{_xs(x)} {LABELS.get(p, p)}" for x, p in lowest.items())
            out.append(
                _finding(
                    f"FF has the lowest slowdown ({exp})",
                    f"{fig}: FF always the smallest slowdown",
                    text,
                    all(p == "ff" for p in lowest.values()),
                )
            )
    return out


def _af_trends(rows: list[dict[str, Any]], paper7: list[str]) -> list[dict[str, Any]]:
    """Figures 4 and 5: acceptance falls and slowdown grows with the arrival factor."""
    ok_acc, text_acc, _bad = _trend(_table(rows, "af", "acceptance"), paper7, rising=False)
    ok_slow, text_slow, _bad = _trend(_table(rows, "af", "slowdown"), paper7, rising=True)
    return [
        _finding(
            "acceptance falls as af grows",
            "Fig. 4: acceptance of all strategies degrades",
            text_acc,
            ok_acc,
        ),
        _finding(
            "slowdown grows as af grows",
            "Fig. 5: slowdowns of all strategies degrade (grow)",
            text_slow,
            ok_slow,
        ),
    ]


def _ranking_alike(rows: list[dict[str, Any]], paper7: list[str]) -> dict[str, Any]:
    """Figures 2-5: the policies rank alike in the UMed and the af experiment (Kendall tau)."""
    from scipy.stats import kendalltau  # slow to import: only here

    taus = {}
    for metric in ("acceptance", "slowdown"):
        grid_mean: dict[str, list[float]] = {}
        for exp in ("umed", "af"):
            table = _table(rows, exp, metric)
            grid_mean[exp] = [sum(v[p] for v in table.values()) / len(table) for p in paper7]
        taus[metric] = float(kendalltau(grid_mean["umed"], grid_mean["af"]).statistic)
    return _finding(
        "the policies rank alike under UMed and af",
        "Figs. 2-5: the relative performance of the algorithms in both experiments is similar",
        "Kendall tau between the policies' mean over the UMed grid and over the af grid: "
        + ", ".join(f"{m} {t:+.2f}" for m, t in taus.items())
        + " (alike: tau >= 0.6 for both)",
        all(t >= 0.6 for t in taus.values()),
    )


def _flex_findings(
    rows: list[dict[str, Any]], have: set[str], paper7: list[str], pedu: str
) -> list[dict[str, Any]]:
    """Figures 6 and 7: acceptance and slowdown against the flexibility {artime, deadline}."""
    out: list[dict[str, Any]] = []
    acc, ci = _table(rows, "flex", "acceptance"), _ci(rows, "flex", "acceptance")
    rising = [p for p in ("pe-w", "du-b", "pedu-b") if p in have]
    if rising:
        ok, text, bad = _trend(acc, rising, rising=True)
        out.append(
            _finding(
                "PE_W, Du_B, PEDu_B accept more as flexibility grows",
                "Fig. 6: their acceptance increases almost linearly from {1,1} to {5,5}",
                text,
                ok,
                pedu if "pedu-b" in bad else "",
            )
        )
    unstable = [p for p in ("ff", "pe-b", "du-w", "pedu-w") if p in have]
    if unstable and len(acc) >= 3:
        _ok, text, bad = _trend(acc, unstable, rising=True)
        out.append(
            _finding(
                "the other four rise unsteadily with flexibility",
                "Fig. 6: the improvements of FF, PE_B, Du_W, PEDu_W are not stable, "
                "especially at {4,4}",
                text + " (unsteady: not rising at every step, for at least half of them)",
                2 * len(bad) >= len(unstable),
            )
        )
    if "pe-w" in have:
        tops = {x: _tied_best(v, ci[x]) for x, v in acc.items()}
        alone = sum(t == ["pe-w"] for t in tops.values())
        text = "at the top: " + "; ".join(
            f"{_xs(x)} {'/'.join(LABELS.get(p, p) for p in t)}" for x, t in tops.items()
        )
        out.append(
            _finding(
                "PE_W clearly accepts the most at every flexibility",
                "Fig. 6: PE_W the best again, defeats the other strategies easily",
                text + f" (alone at the top at {alone} of {len(tops)} points)",
                all("pe-w" in t for t in tops.values()) and 2 * alone >= len(tops),
                "PE_W is within the 95 % intervals of others at most points; " + _CAUSES,
            )
        )
    if {"pe-w", "du-b"} <= have and len(acc) >= 2:
        keys = list(acc)
        lead = [acc[k]["pe-w"] - acc[k]["du-b"] for k in keys]
        text = "PE_W - Du_B: " + ", ".join(
            f"{_xs(k)} {d:+.3f}" for k, d in zip(keys, lead, strict=True)
        )
        out.append(
            _finding(
                "PE_W's lead over Du_B grows with flexibility",
                "Fig. 6: PE_W better than Du_B as flexibility increases",
                text,
                lead[-1] > lead[0] and lead[-1] > ci[keys[-1]]["pe-w"] + ci[keys[-1]]["du-b"],
            )
        )
    ok, text, _bad = _trend(_table(rows, "flex", "slowdown"), paper7, rising=True)
    out.append(
        _finding(
            "slowdown grows with flexibility",
            "Fig. 7: slowdowns of all strategies increase",
            text,
            ok,
        )
    )
    return out


def _pe_w_overall(rows: list[dict[str, Any]], exps: set[str]) -> dict[str, Any]:
    """The abstract: PE_W has the highest acceptance overall (at the top at every point of
    every experiment, and the highest mean)."""
    at_top: dict[str, int] = {}
    total = 0
    for exp in sorted(exps):
        acc, ci = _table(rows, exp, "acceptance"), _ci(rows, exp, "acceptance")
        for x, v in acc.items():
            for p in _tied_best(v, ci[x]):
                at_top[p] = at_top.get(p, 0) + 1
            total += 1
    means: dict[str, list[float]] = {}
    for r in rows:
        means.setdefault(r["policy"], []).append(r["acceptance"])
    average = {p: sum(v) / len(v) for p, v in means.items()}
    ok = at_top.get("pe-w", 0) == total and max(average, key=average.__getitem__) == "pe-w"
    text = "at the top at: " + ", ".join(
        f"{LABELS.get(p, p)} {n}/{total}" for p, n in sorted(at_top.items(), key=lambda t: -t[1])
    )
    text += " points; highest mean acceptance over all points: " + ", ".join(
        f"{LABELS.get(p, p)} {v:.3f}" for p, v in sorted(average.items(), key=lambda t: -t[1])[:3]
    )
    return _finding(
        "PE_W is the best algorithm overall",
        "abstract: PE_W the highest acceptance rate",
        text,
        ok,
        "PE_W is not at the top everywhere, or another policy has a higher mean; " + _CAUSES,
    )


def _print_agreement(findings: list[dict[str, Any]]) -> None:
    from tabulate import tabulate

    table = [
        [f["finding"], f["agree"], f["ours"][:90] + ("..." if len(f["ours"]) > 90 else "")]
        for f in findings
    ]
    print(tabulate(table, headers=["finding (paper)", "agree", "ours"], tablefmt="simple"))
