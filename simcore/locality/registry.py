"""Find locality schedulers by name: the entry-point group ``schedbench.locality_schedulers``
(``simcore/plugins.py``: the one registry).

A locality scheduler is an object with ``name``, ``backfill``, ``uses_files`` and
``plan(planner, queue, full)`` (``simcore/locality/engine.py``'s ``LocalityScheduler``), built
with the keywords ``solver`` and ``record_problems``. What registers under a name is a class with
a ``plan`` method, an alias of one with preset parameters, or (from installed code) a factory
taking those keywords. The paper's ten are two classes with their variants as parameters —
``FCFS(backfill=...)`` and ``ScoreScheduler(rule=..., backfill=...)`` — registered under the
paper's names as aliases (``lea-bf`` = ``ScoreScheduler[backfill=True,rule=lea]``) in this
project's ``pyproject.toml``, exactly as a third-party package would::

    [project.entry-points."schedbench.locality_schedulers"]
    my-rule = "my_package.module:MyScheduler"

This registry is separate from the count-based policies' (``simcore/policy_registry.py``):
those run on ``simcore/engine.py`` and see a ``MachineView``; these run on the node-level
locality core and see a ``Planner``.
"""

from __future__ import annotations

import inspect
from typing import Any

from schedbench.simcore.errors import ConfigError, UnknownNameError
from schedbench.simcore.locality.schedulers import FCFS, ScoreScheduler
from schedbench.simcore.plugins import Alias, Registry

GROUP = "schedbench.locality_schedulers"


class UnknownLocalitySchedulerError(UnknownNameError):
    what = "locality scheduler"


def _not_a_scheduler(obj: object) -> str:
    if inspect.isclass(obj):
        if not inspect.isfunction(inspect.getattr_static(obj, "plan", None)):
            return f"class {obj.__qualname__} has no plan() method written in Python"
        return ""
    return "" if callable(obj) else f"is a {type(obj).__name__}, not a class or a factory"


#: The locality schedulers (module docstring).
LOCALITY_SCHEDULERS = Registry(
    GROUP,
    "locality scheduler",
    protocol="a locality scheduler class with a `plan(planner, queue, full)` method",
    check=_not_a_scheduler,
    unknown=UnknownLocalitySchedulerError,
    error=ConfigError,
    example="my_pkg.rules:MyScheduler",
)


def _paper(name: str) -> Alias:
    base, bf = (name[:-3], True) if name.endswith("-bf") else (name, False)
    summary = _RULES[base] + (", with the reference's backfilling (§7)" if bf else "")
    if base == "fcfs":
        return Alias(name, FCFS, {"backfill": bf}, summary)
    return Alias(name, ScoreScheduler, {"rule": base, "backfill": bf}, summary)


_RULES = {
    "fcfs": "first come, first served on the node whose cores free first (§6)",
    "eft": "earliest finish time: the score is the EAT alone (weights 1, 0; §6)",
    "lea": "locality and eviction aware: EAT + 500 x load time + eviction (§6)",
    "leo": "LEA weights, EFT's from the first node that can start the job now on (§6)",
    "lem": "EFT weights until every node runs a job, LEA's after (§6)",
}

# The paper's ten (§6, §7; SCHEDULER_NAMES), registered under its names in pyproject.toml.
fcfs = _paper("fcfs")
fcfs_bf = _paper("fcfs-bf")
eft = _paper("eft")
eft_bf = _paper("eft-bf")
lea = _paper("lea")
lea_bf = _paper("lea-bf")
leo = _paper("leo")
leo_bf = _paper("leo-bf")
lem = _paper("lem")
lem_bf = _paper("lem-bf")


def known_locality_schedulers() -> list[str]:
    return LOCALITY_SCHEDULERS.names()


def register_locality_scheduler(name: str, factory: Any, *, replace: bool = False) -> None:
    """Register a scheduler class, alias or factory under ``name`` for this process."""
    LOCALITY_SCHEDULERS.register(name, factory, replace=replace)


def unregister_locality_scheduler(name: str) -> None:
    LOCALITY_SCHEDULERS.unregister(name)


def make_locality_scheduler(name: str, *, solver: Any = None, record_problems: bool = False) -> Any:
    """The scheduler registered as ``name`` (``lea``, ``lea-bf``, ..., or ``module:Class``),
    optionally deciding through ``solver`` (a placement solver object)."""
    return LOCALITY_SCHEDULERS.get(name)(solver=solver, record_problems=record_problems)
