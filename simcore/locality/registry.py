"""Find locality schedulers by name: built-ins and the entry-point group
``schedbench.locality_schedulers``.

A locality scheduler is a factory ``f(*, solver=None, record_problems=False)`` returning an
object with ``name``, ``backfill``, ``uses_files`` and ``plan(planner, queue, full)``
(``simcore/locality/engine.py``'s ``LocalityScheduler``). The ten schedulers of the paper
register in this project's ``pyproject.toml`` exactly as a third-party package would::

    [project.entry-points."schedbench.locality_schedulers"]
    my-rule = "my_package.module:my_rule_factory"

This registry is separate from the count-based policies' (``simcore/policy_registry.py``):
those run on ``simcore/engine.py`` and see a ``MachineView``; these run on the node-level
locality core and see a ``Planner``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schedbench.simcore.errors import UnknownNameError
from schedbench.simcore.plugins import entry_points_of

GROUP = "schedbench.locality_schedulers"

_registered: dict[str, Callable[..., Any]] = {}


class UnknownLocalitySchedulerError(UnknownNameError):
    what = "locality scheduler"


def known_locality_schedulers() -> list[str]:
    from schedbench.simcore.locality.schedulers import SCHEDULER_NAMES

    return sorted(set(SCHEDULER_NAMES) | set(entry_points_of(GROUP)) | set(_registered))


def register_locality_scheduler(name: str, factory: Callable[..., Any]) -> None:
    """Register ``factory`` under ``name`` for this process."""
    _registered[name] = factory


def make_locality_scheduler(name: str, *, solver: Any = None, record_problems: bool = False) -> Any:
    """The scheduler registered as ``name`` (``lea``, ``lea-bf``, ...), optionally deciding
    through ``solver`` (a placement solver object)."""
    if name in _registered:
        return _registered[name](solver=solver, record_problems=record_problems)
    eps = entry_points_of(GROUP)
    if name in eps:
        return eps[name].load()(solver=solver, record_problems=record_problems)
    from schedbench.simcore.locality.schedulers import SCHEDULER_NAMES, make_scheduler

    if name in SCHEDULER_NAMES:
        return make_scheduler(name, solver=solver, record_problems=record_problems)
    raise UnknownLocalitySchedulerError(name, known_locality_schedulers())
