"""A problem source of recorded locality decisions (``schedbench.sources`` entry point
``locality-decisions``): runs a locality scheduler (``simcore/locality/``) on a seeded synthetic
workload (``generate_locality``) and yields the per-job ``placement`` problems it posed, so a
suite can compare placement solvers per decision (quality against ``placement-earliest``, the
kind's exact solver, and latency against the budget) — ``bench/suites/locality-solvers.toml``.

Keys: ``jobs`` (default 600), ``nodes`` (8), ``seeds`` (1), ``scheduler`` (``lea``; a list is a
grid), ``mode`` (``reference`` | ``paper``), ``every`` (keep every n-th decision, 1), ``limit``
(at most this many per run, 50).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

from schedbench.instances.sources import (
    ProblemSource,
    SourceError,
    SourceInstance,
    SourceLimits,
    seeds_of,
)


class LocalityDecisions(ProblemSource):
    name: ClassVar[str] = "locality-decisions"
    keys: ClassVar[frozenset[str]] = frozenset(
        {"jobs", "nodes", "seeds", "scheduler", "mode", "every", "limit"}
    )

    def check(self, spec: dict[str, Any], base: Path, limits: SourceLimits) -> None:
        super().check(spec, base, limits)
        for key, lo in (("jobs", 10), ("nodes", 1), ("every", 1), ("limit", 1)):
            v = spec.get(key)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < lo):
                raise SourceError(key, f"an integer >= {lo}", v)
        if spec.get("mode", "reference") not in ("reference", "paper"):
            raise SourceError("mode", "reference or paper", spec.get("mode"))
        from schedbench.simcore.locality.registry import known_locality_schedulers

        names = spec.get("scheduler", "lea")
        for n in names if isinstance(names, list) else [names]:
            if n not in known_locality_schedulers():
                raise SourceError(
                    "scheduler", f"one of {', '.join(known_locality_schedulers())}", n
                )

    def count(self, spec: dict[str, Any], base: Path) -> int:
        names = spec.get("scheduler", "lea")
        k = len(names) if isinstance(names, list) else 1
        return k * len(seeds_of(spec.get("seeds", 1))) * int(spec.get("limit", 50))

    def build(self, spec: dict[str, Any], base: Path) -> Iterator[SourceInstance]:
        from schedbench.instances.locality_io import generate_locality
        from schedbench.simcore.locality import LocalityOptions, LocalityPlatform, simulate_locality
        from schedbench.simcore.locality.engine import JobNeverStartsError
        from schedbench.simcore.locality.registry import make_locality_scheduler

        jobs = int(spec.get("jobs", 600))
        nodes = int(spec.get("nodes", 8))
        every = int(spec.get("every", 1))
        limit = int(spec.get("limit", 50))
        names = spec.get("scheduler", "lea")
        options = LocalityOptions.for_mode(str(spec.get("mode", "reference")))
        for name in names if isinstance(names, list) else [names]:
            for seed in seeds_of(spec.get("seeds", 1)):
                wl = generate_locality(
                    jobs=jobs, nodes=nodes, days=1, users=max(2, jobs // 40), seed=seed
                )
                got: list[tuple[Any, dict[str, Any]]] = []

                def keep(problem: Any, ctx: dict[str, Any], got: list[Any] = got) -> None:
                    got.append((problem, ctx))

                # a small synthetic day can be too sparse for the reference's 30 s gate grid:
                # the run stops when no event can plan the rest; the decisions taken until then
                # are the reference's all the same
                with contextlib.suppress(JobNeverStartsError):
                    simulate_locality(
                        wl,
                        make_locality_scheduler(name, record_problems=True),
                        LocalityPlatform(nodes=nodes),
                        options,
                        recorder=keep,
                    )
                for k, (problem, ctx) in enumerate(got[::every][:limit]):
                    yield SourceInstance(
                        f"{self.name}/{name}/seed={seed}/{k}",
                        problem,
                        None,
                        {"t": ctx.get("t"), "scheduler": name, "seed": seed},
                    )
