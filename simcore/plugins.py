"""What every plug-in registry shares (solvers, problem kinds, policies, problem sources): the
entry points of a group, loaded lazily, and importing ``module:attr`` names."""

from __future__ import annotations

import importlib
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any


@cache
def entry_points_of(group: str) -> dict[str, EntryPoint]:
    """Name -> entry point of ``group``; the first installed distribution wins, deterministically."""
    found: dict[str, EntryPoint] = {}
    for ep in entry_points(group=group):
        found.setdefault(ep.name, ep)
    return found


def import_object(spec: str) -> Any:
    """The object ``module:attr`` (``attr`` may be dotted) names. Raises ``ImportError`` or
    ``AttributeError`` as importing and looking up do; callers turn those into their errors."""
    module_name, _, attr = spec.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj
