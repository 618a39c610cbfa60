"""What every plug-in registry shares (solvers, problem kinds, policies, problem sources): the
entry points of a group, loaded lazily, and importing ``module:attr`` names."""

from __future__ import annotations

import importlib
import os
import sys
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
    ``AttributeError`` as importing and looking up do; callers turn those into their errors.

    A module that is not importable from ``sys.path`` is looked for in the current folder too,
    as ``python -m`` would: the ``schedbench`` console script, unlike ``python``, does not put
    the current folder on the path, so ``schedbench check-solver my_solver:MySolver`` next to
    ``my_solver.py`` would otherwise need ``PYTHONPATH=.``. The folder is appended, not
    prepended, so a file there never shadows an installed module.
    """
    module_name, _, attr = spec.partition(":")
    obj: Any = _import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def _import_module(module_name: str) -> Any:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        top = module_name.partition(".")[0]
        cwd = os.getcwd()
        if exc.name != top or cwd in sys.path or "" in sys.path:
            raise
        sys.path.append(cwd)
        try:
            return importlib.import_module(module_name)
        except ModuleNotFoundError as again:
            sys.path.remove(cwd)
            if again.name == top:
                raise ModuleNotFoundError(
                    f"No module named {top!r} on the Python path or in the current folder "
                    f"({cwd}); set PYTHONPATH to the folder that holds it",
                    name=top,
                ) from again
            raise
