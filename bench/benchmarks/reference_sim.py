"""A straightforward FCFS + EASY simulator: the yardstick for ``bench/benchmarks/sim_speed.py``.

Written the way simple research simulators usually are — one dict per job, the running list
re-sorted at every pass, the queue scanned from the front — and deliberately *not* optimised.
It implements exactly the semantics of ``simcore/engine.py`` for the classic lifecycle with one
resource (nodes): at one instant all completions, then all arrivals, then one pass; start in
FCFS order while the head fits; EASY reservation for the head from requested end times (all
releases at the same instant applied together); backfill a job if it fits now and either ends
by the shadow time or fits in the nodes left over then; kill at the requested time.

Because the semantics are the same, the schedules must be identical —
``tests/simcore/test_sim_reference.py`` checks that, which makes this file a correctness oracle as well as a
speed baseline.
"""

from __future__ import annotations

import math

import numpy as np


def simulate_reference(
    submit: np.ndarray,
    runtime: np.ndarray,
    requested: np.ndarray,
    nodes: np.ndarray,
    machine_nodes: int,
) -> np.ndarray:
    """Start time of every job (NaN if it never fits the machine)."""
    jobs = [
        {"i": i, "submit": float(s), "run": float(r), "req": float(q), "nodes": int(n)}
        for i, (s, r, q, n) in enumerate(zip(submit, runtime, requested, nodes, strict=True))
    ]
    start = np.full(len(jobs), np.nan)
    free = machine_nodes
    queue: list[dict] = []
    running: list[dict] = []
    k = 0
    while k < len(jobs) or running:
        t_next_arrival = jobs[k]["submit"] if k < len(jobs) else math.inf
        t_next_end = min((j["end"] for j in running), default=math.inf)
        now = min(t_next_arrival, t_next_end)
        for j in [j for j in running if j["end"] <= now]:
            running.remove(j)
            free += j["nodes"]
        while k < len(jobs) and jobs[k]["submit"] <= now:
            if jobs[k]["nodes"] <= machine_nodes:
                queue.append(jobs[k])
            k += 1
        # FCFS: start while the head fits
        while queue and queue[0]["nodes"] <= free:
            j = queue.pop(0)
            free -= j["nodes"]
            j["start"] = now
            j["end"] = now + min(j["run"], j["req"])
            running.append(j)
            start[j["i"]] = now
        if not queue or free < 1:
            continue
        # EASY: shadow time and extra nodes for the head
        head = queue[0]
        avail = free
        shadow, extra = math.inf, 0
        by_expected_end = sorted(running, key=lambda j: j["start"] + j["req"])
        idx = 0
        while idx < len(by_expected_end):
            t = by_expected_end[idx]["start"] + by_expected_end[idx]["req"]
            while (
                idx < len(by_expected_end)
                and by_expected_end[idx]["start"] + by_expected_end[idx]["req"] == t
            ):
                avail += by_expected_end[idx]["nodes"]
                idx += 1
            if avail >= head["nodes"]:
                shadow, extra = t, avail - head["nodes"]
                break
        for j in list(queue[1:]):
            if free < 1:
                break
            if j["nodes"] > free:
                continue
            if now + j["req"] <= shadow:
                ok = True
            elif j["nodes"] <= extra:
                ok = True
                extra -= j["nodes"]
            else:
                ok = False
            if ok:
                queue.remove(j)
                free -= j["nodes"]
                j["start"] = now
                j["end"] = now + min(j["run"], j["req"])
                running.append(j)
                start[j["i"]] = now
    return start
