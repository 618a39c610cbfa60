"""``schedbench reproduce ar --sweep``: the paper's experiment under many readings of the rules
it leaves open (``simcore/reservations/reading.py``), each finding judged on its 95 % intervals
under each reading (``_ar_findings.py``).

The design. Seven options change what the policies decide (``unbounded_end`` 10^9 / 0,
``pedu``, ``latest_start``, ``tie``, ``pe_ids``, ``deadline``, ``merge``: two levels each, so
2^7 = 128 readings); the eighth, ``slowdown``, only changes a metric and is evaluated on every
served reading for free. 128 full runs are too many, so the sweep screens: a 2^(7-4)
fractional factorial of resolution III (8 readings; in ±1 coding with −1 the pinned level, the
columns A, B, C and D = −AB, E = −AC, F = −BC, G = ABC, so that the pinned reading is one of
the eight). Every main effect is estimated from four readings against four, aliased only with
two-option interactions. Then a confirmation reading: each option at the level with more
agreeing findings on average (the screening's prediction of the best reading), served too
when it is not one of the eight. With ``slowdown`` that is 2 × 9 = 18 readings judged.

A policy's decisions depend only on some options (FF ignores ``unbounded_end``, ``pedu`` and
``tie``; PE_B/W ignore ``unbounded_end`` and ``pedu``; Du ignores ``pedu``): every stream serves
each policy once per distinct reading of the options it depends on.

Writes ``sweep.csv`` (reading, finding, value, interval, verdict, deciding: the quantity that
decides the verdict, its mean and 95 % interval), ``sweep_effects.csv`` (per option and
finding: the share of readings agreeing at each level) and ``sweep_readings.csv`` (reading id →
options), and prints the finding × reading table.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from schedbench.bench._io import atomic_write
from schedbench.bench.reproduce._ar_findings import Samples, axis_position, findings
from schedbench.bench.reproduce._intervals import INCONCLUSIVE, NO, YES
from schedbench.bench.reproduce._pool import cost_line, map_ordered
from schedbench.instances.ar_workload import PAPER_PES, generate_ar_requests
from schedbench.simcore.reservations.driver import serve
from schedbench.simcore.reservations.fit import get_fit_policy
from schedbench.simcore.reservations.metrics import acceptance, mean_slowdown
from schedbench.simcore.reservations.reading import PINNED, Reading
from schedbench.simcore.safeio import ensure_dir

#: The two levels of every option the screening design varies (the first is the pinned one).
LEVELS: dict[str, tuple[Any, Any]] = {
    "unbounded_end": (PINNED.unbounded_end, 0),
    "pedu": ("product", "sum"),
    "latest_start": (False, True),
    "tie": ("earliest", "latest"),
    "pe_ids": ("lowest", "highest"),
    "deadline": ("inclusive", "exclusive"),
    "merge": ("always", "keep"),
}
FACTORS = tuple(LEVELS)


def design() -> list[dict[str, int]]:
    """The 2^(7-4) resolution III design in ±1 coding (−1: pinned): A, B, C free, D = −AB,
    E = −AC, F = −BC, G = ABC; the first row is the pinned reading."""
    rows = []
    for a in (-1, 1):
        for b in (-1, 1):
            for c in (-1, 1):
                signs = (a, b, c, -a * b, -a * c, -b * c, a * b * c)
                rows.append(dict(zip(FACTORS, signs, strict=True)))
    rows.sort(key=lambda r: sum(v > 0 for v in r.values()))
    return rows


def reading_of(signs: dict[str, int]) -> Reading:
    return Reading(**{k: LEVELS[k][0 if s < 0 else 1] for k, s in signs.items()})


def relevant(policy: str, reading: Reading) -> Reading:
    """The reading as far as ``policy``'s decisions depend on it (module docstring)."""
    measure = get_fit_policy(policy).measure
    r = reading.serving()
    if measure != "pedu":
        r = replace(r, pedu=PINNED.pedu)
    if measure in ("first", "pe"):
        r = replace(r, unbounded_end=PINNED.unbounded_end)
    if measure == "first":
        r = replace(r, tie=PINNED.tie)
    return r


@dataclass(frozen=True, slots=True)
class SweepTask:
    setting: Any
    seed: int
    jobs: int
    policies: tuple[str, ...]
    model: str
    runtime_map: str
    readings: tuple[Reading, ...]


def run_sweep_task(task: SweepTask) -> dict[str, Any]:
    """One stream under every reading: reading label -> policy -> metrics."""
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
    cache: dict[tuple[str, Reading], dict[str, float]] = {}
    out: dict[str, dict[str, dict[str, float]]] = {}
    for reading in task.readings:
        per: dict[str, dict[str, float]] = {}
        for p in task.policies:
            key = (p, relevant(p, reading))
            if key not in cache:
                run = serve(requests, PAPER_PES, p, reading=key[1])
                cache[key] = {
                    "acceptance": acceptance(run),
                    "slowdown_accepted": mean_slowdown(run, "accepted"),
                    "slowdown_deadline": mean_slowdown(run, "deadline"),
                }
            per[p] = cache[key]
        out[reading.label()] = per
    return {"setting": s, "seed": task.seed, "by_reading": out}


def _run(tasks: Sequence[SweepTask], workers: int, no_progress: bool) -> list[dict[str, Any]]:
    return map_ordered(run_sweep_task, tasks, workers, "ar sweep", no_progress)


def _samples(
    experiments: dict[str, list[Any]],
    done: list[dict[str, Any]],
    served_label: str,
    slowdown: str,
    policies: Sequence[str],
) -> Samples:
    by_setting: dict[Any, list[dict[str, Any]]] = {}
    for item in done:
        by_setting.setdefault(item["setting"], []).append(item)
    out: Samples = {}
    for name, grid in experiments.items():
        for s in grid:
            items = sorted(by_setting[s], key=lambda i: i["seed"])
            for p in policies:
                vals = [i["by_reading"][served_label][p] for i in items]
                out[(name, axis_position(name, s), p)] = {
                    "acceptance": [v["acceptance"] for v in vals],
                    "slowdown": [v[f"slowdown_{slowdown}"] for v in vals],
                }
    return out


def _judge(
    experiments: dict[str, list[Any]],
    done: list[dict[str, Any]],
    served: Sequence[Reading],
    policies: Sequence[str],
) -> dict[Reading, list[dict[str, Any]]]:
    """Every served reading with both slowdown readings -> its findings."""
    out: dict[Reading, list[dict[str, Any]]] = {}
    for r in served:
        for slowdown in ("accepted", "deadline"):
            samples = _samples(experiments, done, r.label(), slowdown, policies)
            out[replace(r, slowdown=slowdown)] = findings(samples, policies)
    return out


def _yes(rows: list[dict[str, Any]]) -> int:
    return sum(f["agree"] == YES for f in rows)


def _best_guess(judged: dict[Reading, list[dict[str, Any]]]) -> Reading:
    """Each option at the level whose readings agree with more findings on average (ties: the
    pinned level)."""
    choice: dict[str, Any] = {}
    for k, (low, high) in {**LEVELS, "slowdown": ("accepted", "deadline")}.items():
        at = {
            lvl: [_yes(f) for r, f in judged.items() if getattr(r, k) == lvl] for lvl in (low, high)
        }
        mean = {lvl: sum(v) / len(v) if v else -1.0 for lvl, v in at.items()}
        choice[k] = high if mean[high] > mean[low] else low
    return Reading(**choice)


def sweep(
    args: argparse.Namespace,
    cfg: dict[str, Any],
    experiments: dict[str, list[Any]],
    began: float,
    began_cpu: float = 0.0,
) -> int:
    """The sweep (module docstring): screening design, confirmation reading, tables."""
    out = Path(
        args.out
        or ("results/reproduce/ar-sweep-quick" if args.quick else "results/reproduce/ar-sweep")
    )
    policies = tuple(args.policies)
    unique = list(dict.fromkeys(s for grid in experiments.values() for s in grid))
    screen = [reading_of(signs) for signs in design()]

    def tasks(readings: Sequence[Reading]) -> list[SweepTask]:
        return [
            SweepTask(s, seed, cfg["jobs"], policies, args.model, args.runtime_map, tuple(readings))
            for s in unique
            for seed in range(1, cfg["seeds"] + 1)
        ]

    print(
        f"ar --sweep: {len(screen)} readings of a 2^(7-4) screening design (x 2 slowdown "
        f"readings) over {len(unique)} settings x {cfg['seeds']} seeds x {cfg['jobs']} requests; "
        f"{args.workers} worker(s)",
        file=sys.stderr,
    )
    done = _run(tasks(screen), args.workers, args.no_progress)
    judged = _judge(experiments, done, screen, policies)
    guess = _best_guess(judged)
    extra: list[dict[str, Any]] = []
    if guess not in judged:
        print(f"ar --sweep: confirmation reading {guess.label()}", file=sys.stderr)
        extra = _run(tasks([guess.serving()]), args.workers, args.no_progress)
        judged.update(_judge(experiments, extra, [guess.serving()], policies))
    ensure_dir(out)
    _write(out / "sweep_seeds.csv", SEED_COLUMNS, seed_rows(done + extra))
    names = {r: f"R{k}" for k, r in enumerate(judged)}
    _write_outputs(out, judged, names, guess)
    _print_table(judged, names, guess)
    print(
        f"\nwrote {out}/sweep.csv, sweep_readings.csv, sweep_effects.csv in "
        f"{cost_line(began, began_cpu)}"
    )
    return 0


SEED_COLUMNS = (
    "reading",
    "umed",
    "af",
    "artime",
    "deadline",
    "seed",
    "policy",
    "acceptance",
    "slowdown_accepted",
    "slowdown_deadline",
)


def seed_rows(done: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``sweep_seeds.csv``: every stream's numbers under every served reading (the verdicts can
    be recomputed from it)."""
    return [
        {
            "reading": label,
            "umed": i["setting"].umed,
            "af": i["setting"].af,
            "artime": i["setting"].artime,
            "deadline": i["setting"].deadline,
            "seed": i["seed"],
            "policy": p,
            **m,
        }
        for i in done
        for label, per in i["by_reading"].items()
        for p, m in per.items()
    ]


def _write(path: Path, cols: Sequence[str], rows: Sequence[dict[str, Any]]) -> None:
    def write(fh: Any) -> None:
        w = csv.DictWriter(fh, fieldnames=list(cols), lineterminator="\n")
        w.writeheader()
        for row in rows:
            w.writerow({k: row.get(k, "") for k in cols})

    atomic_write(path, write, text=True)


def _write_outputs(
    out: Path,
    judged: dict[Reading, list[dict[str, Any]]],
    names: dict[Reading, str],
    guess: Reading,
) -> None:
    rows = []
    for r, found in judged.items():
        for f in found:
            d = f["decided"]
            rows.append(
                {
                    "reading": r.label(),
                    "finding": f["finding"],
                    "value": "" if d is None or d.est is None else round(d.est.mean, 6),
                    "interval": ""
                    if d is None or d.est is None
                    else f"[{d.est.low:.6g}, {d.est.high:.6g}]",
                    "verdict": f["agree"],
                    "deciding": f["interval"],
                }
            )
    _write(
        out / "sweep.csv", ("reading", "finding", "value", "interval", "verdict", "deciding"), rows
    )
    _write(
        out / "sweep_readings.csv",
        ("id", "reading", "yes", "no", "inconclusive", "design"),
        [
            {
                "id": names[r],
                "reading": r.label(),
                **{v: sum(f["agree"] == v for f in found) for v in (YES, NO, INCONCLUSIVE)},
                "design": "confirmation"
                if r.serving() == guess.serving() and _is_extra(r)
                else "screening",
            }
            for r, found in judged.items()
        ],
    )
    _write(
        out / "sweep_effects.csv",
        ("option", "finding", "low", "high", "share_low", "share_high"),
        effects(judged),
    )


def _is_extra(r: Reading) -> bool:
    return r.serving() not in {reading_of(s) for s in design()}


def effects(judged: dict[Reading, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Per option and finding (and ``all findings``): the share of the readings at each level
    under which it holds, over the screening design's readings."""
    screen = {r: f for r, f in judged.items() if not _is_extra(r)}
    findings_ = [f["finding"] for f in next(iter(screen.values()))]
    rows = []
    for k, (low, high) in {**LEVELS, "slowdown": ("accepted", "deadline")}.items():
        for name in [*findings_, "all findings"]:
            share = {}
            for lvl in (low, high):
                found = [f for r, f in screen.items() if getattr(r, k) == lvl]
                if name == "all findings":
                    share[lvl] = sum(_yes(f) for f in found) / max(1, len(found))
                else:
                    share[lvl] = sum(
                        any(x["finding"] == name and x["agree"] == YES for x in f) for f in found
                    ) / max(1, len(found))
            rows.append(
                {
                    "option": k,
                    "finding": name,
                    "low": low,
                    "high": high,
                    "share_low": round(share[low], 3),
                    "share_high": round(share[high], 3),
                }
            )
    return rows


def _print_table(
    judged: dict[Reading, list[dict[str, Any]]], names: dict[Reading, str], guess: Reading
) -> None:
    from tabulate import tabulate

    mark = {YES: "y", NO: "n", INCONCLUSIVE: "?"}
    readings = list(judged)
    first = judged[readings[0]]
    table = []
    for k, f in enumerate(first):
        cells = [mark[judged[r][k]["agree"]] for r in readings]
        holds = sum(c == "y" for c in cells)
        table.append([f["finding"][:50], *cells, f"{holds}/{len(readings)}"])
    table.append(["findings that hold", *[_yes(judged[r]) for r in readings], ""])
    print(
        tabulate(
            table, headers=["finding", *[names[r] for r in readings], "holds"], tablefmt="simple"
        )
    )
    print("\ny: agrees, n: disagrees, ?: inconclusive (95 % intervals over seeds). Readings:")
    for r in readings:
        tag = " (the screening's best guess)" if r == guess else ""
        print(f"  {names[r]}: {r.label()}{tag}")
