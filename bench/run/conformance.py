"""The conformance suite (``solvers/testing.py``) against a plug-in, contained: what
``schedbench check-solver`` runs (docs/design.md#trust-boundaries-and-bounded-work).

Each check runs in a supervised worker process (``bench/run/supervisor.py``, one worker, kept
from check to check): every solver call the check makes has a hard deadline, its budget's
deadline + grace (:data:`~bench.run.isolate.GRACE_S`), the worker is capped in memory and
killed with everything it started. A check whose solver call ran past that, or whose worker
died (``os._exit``, a segfault, a failed allocation that ended the process) or raised what a
check does not catch (``KeyboardInterrupt``, ``SystemExit``), fails with the reason; the checks
after it are not run and fail as such: a solver that hangs or crashes fails the suite anyway,
and every further check would cost a fresh process (and a hang its whole deadline again).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schedbench.bench.run import isolate
from schedbench.bench.run.supervisor import Failure, SupervisedPool, memory_limit
from schedbench.solvers import registry
from schedbench.solvers.testing import CheckResult, checks_for, run_check

__all__ = ["run_conformance_contained"]

#: Solvers built in this (worker) process, by target and parameters.
_BUILT: dict[tuple[str, str], Any] = {}


def _one_check(item: tuple[str, tuple[tuple[str, Any], ...], str]) -> tuple[str, str, str]:
    """In a worker: the check named ``item[2]`` against ``item[0]`` built with ``item[1]``."""
    target, params, name = item
    key = (target, repr(params))
    solver = _BUILT.get(key)
    if solver is None:
        cls = registry.load_object(target)
        solver = _BUILT[key] = registry.instantiate(cls, dict(params), label=target)
    check = next(c for c in checks_for(solver) if c.name == name)
    result = run_check(solver, check)
    return result.check, result.outcome, result.detail


def run_conformance_contained(
    target: str,
    params: Mapping[str, Any] | None = None,
    *,
    solver: Any = None,
    memory: str | None = None,
) -> list[CheckResult]:
    """Every check of the conformance suite against ``target`` (``module:Class``) built with
    ``params``, each in a supervised worker (module docstring); ``solver`` is the same solver
    built here (which checks apply), ``memory`` the worker's memory cap (see
    ``supervisor.memory_limit``)."""
    if solver is None:
        solver = registry.instantiate(registry.load_object(target), dict(params or {}))
    names = [check.name for check in checks_for(solver)]
    items = tuple(sorted(dict(params or {}).items()))
    results: list[CheckResult] = []
    stopped: list[str] = []

    def done(_item: Any, payload: tuple[str, str, str]) -> None:
        results.append(CheckResult(*payload))

    def failed(item: Any, failure: Failure) -> None:
        results.append(CheckResult(item[2], "failed", f"{failure.kind}: {failure.reason}"))
        stopped.append(item[2])

    pool = SupervisedPool(
        _one_check,
        1,
        grace_s=isolate.GRACE_S,
        startup_s=isolate.ISOLATION_STARTUP_S,
        memory_bytes=memory_limit(memory),
    )
    with pool:
        for name in names:
            if stopped:
                why = f"not run: the solver had to be stopped in check {stopped[0]}"
                results.append(CheckResult(name, "failed", why))
                continue
            pool.run([(target, items, name)], done, failed, keep_workers=True)
    return results
