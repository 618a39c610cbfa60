"""Reference mode against the authors' C simulator on the calibration day.

The calibration day (the shipped dataset ``locality-day``, ``schedbench data show locality-day``
says how every file was made; or a folder with the same files) holds one real day of the authors'
Rackham workload (21,819 jobs, 1,511 evaluated), their machine file, and what their simulator
(``github.com/MaximeGonthier/batch-simulator`` at ``528fff6``) printed for the ten schedulers:
``summary.csv`` and ``<scheduler>.jobs.csv``, one row per evaluated job **in the order the jobs
started**.

:func:`compare` checks one of our runs against those files:

* the evaluated-job count (exact), the total transfer + wait and the mean stretch (against the
  summary line; the target is 1e-3 relative), the share of per-job stretches within 0.1 %, and
  of run times (``end_minus_start_s``) and per-job transfer + wait that are equal;
* the start order: the reference lists jobs as they started, so our start times read in its
  order must never go down; the first row where they do is the first job that started in
  another order, the place to look for a rule that differs (with the first job whose stretch
  differs, which is usually the same job or its neighbour).

Single precision. The reference keeps stretches in C ``float`` and sums them in that type, in
start order, so its ``mean_stretch`` differs from the double-precision mean of the same per-job
values in the 7th significant digit (3e-7 relative on this day): :func:`float32_mean` redoes
its sum and gives the summary's digits from its own per-job file. Per-job stretches are printed
with 6 decimals. Transfer + wait are whole seconds: no rounding enters.

Run through the speed benchmark, which prints this table next to the timings::

    .venv/bin/python bench/benchmarks/locality_speed.py --case calibration [--calibration DIR]

Every function that reads the day takes ``folder``: ``None`` (the default) reads the shipped
dataset, a path reads that folder.

``tests/simcore/test_locality_calibration.py`` asserts the targets for all ten schedulers.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

#: The calibration day's files, as the folder's README names them.
WORKLOAD = "2022-09-10_V10000_anonymous.txt"
MACHINE = "rackham_450_128_32_256_4_1024.txt"
SUMMARY = "summary.csv"
#: The calibration's targets: the evaluated-job count exact, totals and stretches within 1e-3.
TOTALS_RTOL = 1e-3
STRETCH_RTOL = 1e-3
STRETCH_SHARE = 0.99


def _file(folder: Path | None, name: str) -> Path:
    from schedbench.instances import datasets

    return datasets.path(f"locality-day/{name}") if folder is None else folder / name


def present(folder: Path | None = None) -> bool:
    """Whether ``folder`` (default: the shipped dataset) holds the calibration day (workload,
    summary, ten job files)."""
    from schedbench.simcore.locality.schedulers import SCHEDULER_NAMES

    names = [WORKLOAD, SUMMARY, *(f"{n}.jobs.csv" for n in SCHEDULER_NAMES)]
    try:
        return all(_file(folder, n).is_file() for n in names)
    except Exception:  # a dataset file missing from a damaged install: not present
        return False


def _rows(path: Path) -> list[dict[str, str]]:
    from schedbench.instances import datasets

    with datasets.open_text(path) as fh:
        return list(csv.DictReader(fh))


@dataclass(frozen=True)
class Reference:
    """What the authors' simulator printed for one scheduler."""

    scheduler: str
    summary: dict[str, str]
    jobs: list[dict[str, str]]  # in start order


def load_reference(folder: Path | None, scheduler: str) -> Reference:
    summary = {r["scheduler"]: r for r in _rows(_file(folder, SUMMARY))}
    return Reference(scheduler, summary[scheduler], _rows(_file(folder, f"{scheduler}.jobs.csv")))


def float32_mean(values: Sequence[float]) -> float:
    """The mean as the reference takes it: a C ``float`` running sum in the given order, then
    one ``float`` division."""
    acc = np.float32(0.0)
    for v in values:
        acc = np.float32(acc + np.float32(v))
    return float(np.float32(acc / np.float32(max(len(values), 1))))


@dataclass(frozen=True)
class Comparison:
    scheduler: str
    evaluated: tuple[int, int]  # ours, theirs
    transfer_wait: tuple[int, float]  # ours, theirs (summary line)
    mean_stretch: tuple[float, float]  # ours (double), theirs (summary line)
    mean_stretch_f32: float  # ours summed as the reference sums (float32, its start order)
    stretch_share: float  # per-job stretches within STRETCH_RTOL
    runtime_share: float  # per-job end - start equal
    transfer_wait_share: float  # per-job transfer + wait equal
    first_order_break: int | None  # first reference row whose job started before the previous
    first_stretch_miss: int | None  # first reference row whose stretch differs
    missing: int  # reference jobs we do not have as evaluated

    def rel(self, pair: tuple[float, float]) -> float:
        ours, theirs = pair
        return abs(ours - theirs) / abs(theirs) if theirs else abs(ours)

    @property
    def ok(self) -> bool:
        """The calibration's targets: count exact, totals within 1e-3, ≥ 99 % of stretches."""
        return (
            self.missing == 0
            and self.evaluated[0] == self.evaluated[1]
            and self.rel(self.transfer_wait) <= TOTALS_RTOL
            and self.rel(self.mean_stretch) <= TOTALS_RTOL
            and self.stretch_share >= STRETCH_SHARE
        )

    def row(self) -> list[Any]:
        return [
            self.scheduler,
            f"{self.evaluated[0]}/{self.evaluated[1]}",
            f"{self.transfer_wait[0]:,}/{self.transfer_wait[1]:,.0f}",
            f"{self.mean_stretch[0]:.6f}/{self.mean_stretch[1]:.6f}",
            f"{self.mean_stretch_f32:.6f}",
            f"{100 * self.stretch_share:.2f}",
            f"{100 * self.runtime_share:.2f}",
            "-" if self.first_order_break is None else str(self.first_order_break),
            "yes" if self.ok else "NO",
        ]


HEADERS = [
    "scheduler",
    "evaluated ours/theirs",
    "transfer+wait s ours/theirs",
    "mean stretch ours/theirs",
    "ours in float32",
    "stretch within 0.1 % (%)",
    "run time equal (%)",
    "first order break",
    "targets met",
]


def compare(result: Any, ref: Reference) -> Comparison:
    """Our run ``result`` (a ``LocalityResult`` on the calibration day) against ``ref``."""
    from schedbench.simcore.locality.metrics import locality_metrics, stretch_denominator

    w = result.workload
    ev = result.evaluated
    row_of = {int(j): int(i) for i, j in zip(ev.tolist(), w.job_id[ev].tolist(), strict=True)}
    m = locality_metrics(result)
    denom = stretch_denominator(result, ev)
    stretch_of = dict(
        zip(ev.tolist(), ((result.end[ev] - w.submit[ev]) / denom).tolist(), strict=True)
    )
    missing = 0
    stretch_ok = runtime_ok = tw_ok = 0
    first_break: int | None = None
    first_miss: int | None = None
    prev_start = None
    ours_in_ref_order: list[float] = []
    for k, r in enumerate(ref.jobs):
        i = row_of.get(int(r["job_id"]))
        if i is None:
            missing += 1
            continue
        s = stretch_of[i]
        ours_in_ref_order.append(s)
        theirs = float(r["stretch"])
        if abs(s - theirs) <= STRETCH_RTOL * abs(theirs):
            stretch_ok += 1
        elif first_miss is None:
            first_miss = k
        if int(result.end[i] - result.start[i]) == int(r["end_minus_start_s"]):
            runtime_ok += 1
        if int(result.transfer[i] + result.load_wait[i]) == int(r["transfer_wait_s"]):
            tw_ok += 1
        start = int(result.start[i])
        if prev_start is not None and start < prev_start and first_break is None:
            first_break = k
        prev_start = start
    n = max(len(ref.jobs), 1)
    return Comparison(
        scheduler=ref.scheduler,
        evaluated=(int(m["evaluated_jobs"]), int(ref.summary["evaluated_jobs"])),
        transfer_wait=(int(m["transfer_wait_s"]), float(ref.summary["transfer_wait_s"])),
        mean_stretch=(float(m["mean_stretch"]), float(ref.summary["mean_stretch"])),
        mean_stretch_f32=float32_mean(ours_in_ref_order),
        stretch_share=stretch_ok / n,
        runtime_share=runtime_ok / n,
        transfer_wait_share=tw_ok / n,
        first_order_break=first_break,
        first_stretch_miss=first_miss,
        missing=missing,
    )


def read_day(folder: Path | None = None) -> Any:
    """The calibration workload and the platform of its machine file (486 × 20 cores)."""
    from schedbench.instances.locality_io import read_locality
    from schedbench.instances.systems import locality_platform

    return read_locality(_file(folder, WORKLOAD)), locality_platform("locality")
