"""Advance-reservation speed: 10^4 requests with any of the seven fit policies in
under 5 s, the ratio to a straightforward list-based implementation of the paper's structure
(``ar_reference.py``) measured side by side, and how the cost per request grows with the number
of records in the structure.

    .venv/bin/python bench/benchmarks/ar_speed.py            # full (~7 min on 2 shared cores)
    .venv/bin/python bench/benchmarks/ar_speed.py --quick    # fewer settings and sizes

1. **Streams.** For each setting (the paper's base point UMed 7, af 1, {3,3}, and the heaviest
   ones of its grids: UMed 5 — many small jobs, af 1.5, {5,5} — the widest windows), a stream
   of 10^4 requests (``instances/ar_workload.py``) is served by every policy with
   ``simcore/reservations/driver.py: serve`` (median of ``--repeat`` runs) and once by the
   list-based yardstick; the decisions must be identical (they are checked).
2. **Growth.** Structures with about R records (R = 10 … 10^4; random jobs on 1,024 PEs), the
   time of ``find`` for requests whose window spans the structure, and of ``add``, per policy
   class (FF stops at the first feasible start; PE scores need only the free set; Du and PEDu
   walk for the rectangle's ends).

Machines here are shared and noisy: read the ratios within one run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

from tabulate import tabulate

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from _machine import machine_line  # noqa: E402
from ar_reference import ListSlots, serve_list  # noqa: E402

from schedbench.instances.ar_workload import generate_ar_requests  # noqa: E402
from schedbench.simcore.reservations.driver import serve  # noqa: E402
from schedbench.simcore.reservations.fit import PAPER_POLICIES, get_fit_policy  # noqa: E402
from schedbench.simcore.reservations.slots import SlotStructure, ids_of  # noqa: E402

TARGET_S = 5.0
PES = 1024
SETTINGS = {
    "UMed 7, af 1, {3,3}": {"umed": 7.0},
    "UMed 5, af 1, {3,3}": {"umed": 5.0},
    "UMed 7, af 1.5, {3,3}": {"af": 1.5},
    "UMed 7, af 1, {5,5}": {"artime": 5.0, "deadline": 5.0},
}


FIGURE = {"name": "ar-speed", "full": [], "quick": ["--quick"], "format": "text"}


def _decisions(run):
    return [(o.request.id, o.accepted, o.start, o.pe_ids) for o in run.outcomes]


def streams(jobs: int, repeat: int, settings: dict, list_jobs: int) -> list[list]:
    rows = []
    worst = 0.0
    for label, kw in settings.items():
        requests = generate_ar_requests(jobs, seed=1, **kw)
        prefix = requests[:list_jobs]
        for policy in PAPER_POLICIES:
            times = []
            for _ in range(repeat):
                began = time.perf_counter()
                run = serve(requests, PES, policy)
                times.append(time.perf_counter() - began)
            fast = statistics.median(times)
            worst = max(worst, max(times))
            began = time.perf_counter()
            slow = serve_list(prefix, PES, policy)
            slow_s = (time.perf_counter() - began) * jobs / len(prefix)
            same = _decisions(serve(prefix, PES, policy)) == slow
            if not same:
                raise SystemExit(f"{label} {policy}: the yardstick decided differently")
            accepted = sum(o.accepted for o in run.outcomes)
            rows.append(
                [
                    label,
                    policy,
                    f"{fast:.3f}",
                    f"{max(times):.3f}",
                    f"{slow_s:.1f}",
                    f"{slow_s / fast:.0f}x",
                    f"{accepted / jobs:.3f}",
                ]
            )
        print(f"  {label}: done", file=sys.stderr)
    print(
        tabulate(
            rows,
            headers=[
                "setting",
                "policy",
                f"s / {jobs} req (median)",
                "max",
                f"list-based s / {jobs} req",
                "speed-up",
                "acceptance",
            ],
        )
    )
    verdict = "meets" if worst < TARGET_S else "MISSES"
    print(f"\nslowest run of {jobs} requests: {worst:.3f} s ({verdict} the {TARGET_S:g} s target)")
    return rows


def _random_structure(records: int, rng: random.Random) -> tuple[SlotStructure, ListSlots, int]:
    """About ``records`` records: jobs of 32..512 PEs, 60..10800 s, packed over a horizon."""
    s = SlotStructure(PES)
    lst = ListSlots(PES)
    horizon = max(3600, records * 400)
    tries = 0
    while len(s) < records and tries < 50 * records:
        tries += 1
        start = rng.randrange(0, horizon)
        dur = rng.choice((60, 300, 900, 1800, 3600, 10800))
        n = rng.choice((32, 64, 128, 256, 512))
        free = s.free_over(start, start + dur)
        if free.bit_count() < n:
            continue
        mask = 0
        for pe in rng.sample(ids_of(free), n):
            mask |= 1 << pe
        s.add(start, start + dur, mask)
        if records <= 2000:
            lst.add(start, start + dur, set(ids_of(mask)))
    return s, lst, horizon


def growth(sizes: list[int], queries: int, list_max: int) -> None:
    rng = random.Random(7)
    rows = []
    for records in sizes:
        s, lst, horizon = _random_structure(records, rng)
        reqs = []
        for _ in range(queries):
            ready = rng.randrange(0, horizon)
            dur = rng.choice((60, 300, 900, 1800, 3600, 10800))
            window = rng.randrange(dur, max(dur + 1, horizon // 10))
            reqs.append((ready, dur, ready + window, rng.choice((32, 64, 128))))
        row: list[object] = [len(s)]
        for ready, dur, dl, n in reqs[:20]:  # warm up
            s.find(ready, dur, dl, n, ready, get_fit_policy("pedu-w"))
        for policy in ("ff", "pe-w", "du-b"):
            fit = get_fit_policy(policy)
            began = time.perf_counter()
            for ready, dur, dl, n in reqs:
                s.find(ready, dur, dl, n, ready, fit)
            row.append(f"{(time.perf_counter() - began) / queries * 1e6:.0f}")
        cands = statistics.mean(len(s.candidates(r, d, dl)) for r, d, dl, _n in reqs)
        row.append(f"{cands:.0f}")
        if len(s) <= list_max:
            policy = "du-b"
            began = time.perf_counter()
            for ready, dur, dl, n in reqs[: max(1, queries // 10)]:
                lst.find(ready, dur, dl, n, ready, policy)
            list_us = (time.perf_counter() - began) / max(1, queries // 10) * 1e6
            row.append(f"{list_us:.0f}")
        else:
            row.append("-")
        # add (and delete again) a job where it fits
        began = time.perf_counter()
        done = 0
        for ready, dur, dl, n in reqs:
            found = s.find(ready, dur, dl, n, ready, get_fit_policy("ff"))
            if found is not None:
                s.add(found.start, found.start + dur, found.mask)
                s.delete(found.start, found.start + dur, found.mask)
                done += 1
        row.append(f"{(time.perf_counter() - began) / max(1, queries) * 1e6:.0f}")
        rows.append(row)
    print(
        tabulate(
            rows,
            headers=[
                "records",
                "find ff (µs)",
                "find pe-w (µs)",
                "find du-b (µs)",
                "candidates",
                "list-based find du-b (µs)",
                "ff find+add+delete (µs)",
            ],
        )
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(machine_line("numpy"))
    jobs = 10_000
    settings = dict(list(SETTINGS.items())[:2]) if args.quick else SETTINGS
    list_jobs = 1000 if args.quick else jobs
    print(
        f"\n1. {jobs} requests on {PES} PEs, every policy (the list-based yardstick on the first "
        f"{list_jobs}, scaled to {jobs})"
    )
    streams(jobs, 1 if args.quick else args.repeat, settings, list_jobs=list_jobs)
    print("\n2. cost per request against the number of records (random structures, 1,024 PEs)")
    sizes = [10, 100, 1000] if args.quick else [10, 100, 1000, 10_000]
    growth(sizes, 200 if args.quick else 500, list_max=1000)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
