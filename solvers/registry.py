"""Find solvers by name through the entry-point group ``schedbench.solvers``.

Built-ins register in this project's ``pyproject.toml`` exactly as a third-party package would::

    [project.entry-points."schedbench.solvers"]
    my-solver = "my_package.module:MySolver"

An entry point may also name an :class:`~simcore.plugins.Alias`: a paper's name for a class
with preset parameters (``pe-b = "schedbench.solvers.reservation:PE_B"``, ``fit[policy=pe-b]``).

Entry points are imported lazily, only when their name is asked for (the one registry of
``simcore/plugins.py``). ``make_solver`` builds a solver from its name and parameters (Python
values, or strings from ``--set k=v`` that are converted to the parameter's declared type);
unknown names and parameters raise errors that list what is known.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import typing
from collections.abc import Mapping
from typing import Any

from schedbench.simcore.errors import SolverParameterError, UnknownSolverError
from schedbench.simcore.fdcapture import captured_output
from schedbench.simcore.plugins import Alias, Registry, Resolved
from schedbench.simcore.solver import warm_up

GROUP = "schedbench.solvers"


def _not_a_solver_class(obj: object) -> str:
    """Why ``obj`` is not a solver class ("" when it is one)."""
    if not inspect.isclass(obj):
        return f"is a {type(obj).__name__}, not a class"
    if not inspect.isfunction(inspect.getattr_static(obj, "solve", None)):
        return f"class {obj.__qualname__} has no solve() method written in Python"
    fields = {f.name for f in dataclasses.fields(obj)} if dataclasses.is_dataclass(obj) else set()
    if not isinstance(getattr(obj, "name", None), str) and "name" not in fields:
        return f"class {obj.__qualname__} has no `name`"
    return ""


#: The solvers: entry points of ``schedbench.solvers`` (classes, or aliases of a class with
#: preset parameters), in-process registrations, and ``module:Class`` of a plug-in.
SOLVERS = Registry(
    GROUP,
    "solver",
    protocol="a solver class with a `name` and a `solve(problem, budget)` method",
    check=_not_a_solver_class,
    unknown=UnknownSolverError,
    error=SolverParameterError,
    example="my_pkg.solver:MySolver",
)


def known_solvers() -> list[str]:
    """Registered solver names (aliases included), sorted."""
    return SOLVERS.names()


def register_solver(name: str, cls: type | Alias, *, replace: bool = False) -> None:
    """Register a solver class (or an :class:`~simcore.plugins.Alias`) as ``name`` in this
    process."""
    SOLVERS.register(name, cls, replace=replace)


def unregister_solver(name: str) -> None:
    SOLVERS.unregister(name)


def resolve_solver(name: str) -> Resolved:
    """``name`` (or ``module:Class``) followed to its class and, for an alias, its presets."""
    with captured_output(f"importing solver {name}"):  # a library's import-time banner
        return SOLVERS.resolve(name)


def solver_class(name: str) -> type:
    """The class registered under ``name`` (for an alias, the class it presets)."""
    resolved = resolve_solver(name)
    return resolved.obj


def solver_alias(name: str) -> Alias | None:
    """The alias ``name`` is (``pe-b`` -> ``fit[policy=pe-b]``), or None."""
    return resolve_solver(name).alias


def load_object(spec: str) -> type:
    """Import the solver class named by ``module:Class`` (``schedbench check-solver``,
    ``simulate --solver``, suites), refusing what is not a solver class before anything is
    called (``simcore/plugins.py``, trust boundary)."""
    with captured_output(f"importing {spec.partition(':')[0]}"):
        return SOLVERS.load_spec(spec)


def parameter_types(cls: type) -> dict[str, type]:
    """Declared parameter types of a dataclass solver ({} for other classes)."""
    if not dataclasses.is_dataclass(cls):
        return {}
    hints = typing.get_type_hints(cls)
    return {
        f.name: hints.get(f.name, str)
        for f in dataclasses.fields(cls)
        if not f.metadata.get("internal")  # ParamSolver's record of its alias
    }


def _convert(name: str, solver: str, declared: type, value: Any) -> Any:
    if not isinstance(value, str) or declared is str:
        return value
    text = value.strip()
    try:
        if declared is bool:
            lowered = text.lower()
            if lowered in ("1", "true", "yes", "on"):
                return True
            if lowered in ("0", "false", "no", "off"):
                return False
            raise ValueError(text)
        if declared is int:
            return int(text)
        if declared is float:
            return float(text)
    except ValueError as exc:
        raise SolverParameterError(
            f"solver {solver!r} parameter {name!r}: expected {declared.__name__}, got {value!r}"
        ) from exc
    return value


def make_solver(name: str, params: Mapping[str, Any] | None = None) -> Any:
    """Build the solver registered as ``name`` — or, for ``module:Class``, that class once it
    has passed ``load_object``'s checks — with ``params``. The one place where a solver name
    from a user (command line, suite file) becomes a solver object. An alias builds its class
    with its presets, overridden by ``params``, and the solver keeps the alias' name in its id
    (``pe-b``, ``weighted-cpu[engine=cpsat]``)."""
    resolved = resolve_solver(name)
    return instantiate(resolved.obj, params, label=name, alias=resolved.alias)


def instantiate(
    cls: Any,
    params: Mapping[str, Any] | None = None,
    *,
    label: str | None = None,
    alias: Alias | None = None,
) -> Any:
    """Call a solver class with ``params``, checking names and converting strings by the
    declared parameter types; errors name the solver (``label``) and list its parameters.
    ``alias``: the presets come first, and a class that knows aliases records it."""
    label = str(label or getattr(cls, "name", None) or getattr(cls, "__name__", str(cls)))
    params = dict(params or {})
    types = parameter_types(cls)
    if types:
        unknown = sorted(set(params) - set(types))
        if unknown:
            raise SolverParameterError(
                f"solver {label!r} has no parameter {unknown[0]!r}; "
                f"its parameters: {', '.join(types)}"
            )
        params = {k: _convert(k, label, types[k], v) for k, v in params.items()}
    elif params and dataclasses.is_dataclass(cls):
        raise SolverParameterError(f"solver {label!r} takes no parameters, got {sorted(params)}")
    try:
        # Constructors may load libraries that print (licence notices, banners); captured like
        # a solve's output (simcore/fdcapture.py), so a command's stdout stays its document.
        with captured_output(f"building solver {label}"):
            if alias is not None:
                return alias(**params)
            return cls(**params)
    except (TypeError, ValueError) as exc:
        # A plug-in validates its parameters in __post_init__ (the documented way: raise
        # SolverParameterError, or any ValueError): one line on the command line, not a traceback.
        raise SolverParameterError(f"solver {label!r}: {exc}") from exc


_ID = re.compile(r"^([A-Za-z0-9_.:\-]+?)(?:\[(.*)\])?$")


def parse_solver_id(text: str) -> tuple[str, dict[str, str]]:
    """``cpsat[time_limit_s=5,workers=2]`` → ("cpsat", {"time_limit_s": "5", "workers": "2"})
    (the form of a solver id, as suites and stored results write it)."""
    m = _ID.match(text.strip())
    if not m:
        raise SolverParameterError(f"{text!r}: expected NAME or NAME[key=value,...]")
    params = parse_assignments([p for p in (m.group(2) or "").split(",") if p.strip()])
    return m.group(1), params


_WARM: dict[tuple[str, str], Any] = {}


def warm_solver(name: str, params: Mapping[str, Any] | None = None) -> Any:
    """``make_solver`` plus its untimed ``warm_up()``, built once per process and kept (the
    suite runner's workers solve many cells with one solver; JIT compilation is paid once)."""
    params = dict(params or {})
    key = (name, repr(sorted(params.items())))
    solver = _WARM.get(key)
    if solver is None:
        solver = make_solver(name, params)
        warm_up(solver)
        _WARM[key] = solver
    return solver


def solver_kinds(solver_or_class: Any) -> tuple[str, ...]:
    """The problem kinds a solver answers (``kinds``; ``("selection",)`` when undeclared)."""
    kinds = getattr(solver_or_class, "kinds", ("selection",))
    return tuple(kinds) if isinstance(kinds, (tuple, list)) else ("selection",)


def try_solver_class(name: str) -> tuple[type | None, str]:
    """(class, "") or (None, why it cannot be loaded): listing commands show a broken plug-in
    with its reason instead of letting it hide the others."""
    with captured_output(f"importing solver {name}"):
        obj, why = SOLVERS.try_load(name)
    return (obj.target if isinstance(obj, Alias) else obj), why


def solvers_for(kind: str) -> list[str]:
    """Registered solver names that answer ``kind`` (``try_solver_class`` says which cannot be
    loaded; ``schedbench solvers`` lists them with the reason)."""
    out = []
    for name in known_solvers():
        cls, _why = try_solver_class(name)
        if cls is not None and kind in solver_kinds(cls):
            out.append(name)
    return out


def parse_assignments(items: list[str]) -> dict[str, str]:
    """``["k=v", ...]`` from the command line to a dict, with a clear error for a bad item."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise SolverParameterError(f"--set {item!r}: expected KEY=VALUE")
        if key.strip() in out:  # the last one would win silently
            raise SolverParameterError(f"--set {item!r}: {key.strip()!r} is set twice")
        out[key.strip()] = value
    return out


def warm_solver_by_id(ident: str) -> Any:
    """:func:`warm_solver` of a solver id (``cpsat[time_limit_s=5]``): what a simulation core
    asks for when it picks a solver itself (a default, one per queue; ``simcore/core.py``)."""
    name, params = parse_solver_id(ident)
    return warm_solver(name, params)
