"""Find scheduling policies by name: the entry-point group ``schedbench.policies``, or in-process.

Built-ins register in this project's ``pyproject.toml`` exactly as a third-party package would::

    [project.entry-points."schedbench.policies"]
    my-policy = "my_package.module:MyPolicy"

A program (or a test) can also register a class for the running process with
:func:`register_policy`. Entry points are imported lazily, only when their name is asked for.
:func:`make_policy` builds a policy from its name — or from ``module:Class`` — and keyword
options, checked against the class's constructor: an unknown name raises
:class:`~simcore.errors.UnknownPolicyError` listing the known names, an option the policy does
not accept raises :class:`~simcore.errors.PolicyOptionError` naming it and listing the accepted
ones. What a policy is, sees and does: ``simcore/policy.py``.

This mirrors ``solvers/registry.py`` (which simcore must not import: the layering is
``bench -> solvers -> simcore <- instances``).
"""

from __future__ import annotations

import inspect
from typing import Any

from schedbench.simcore.errors import PolicyOptionError, SchedbenchError, UnknownPolicyError
from schedbench.simcore.plugins import entry_points_of, import_object

GROUP = "schedbench.policies"

# In-process registrations (``register_policy``); they take precedence over entry points.
_registered: dict[str, type] = {}


def _entry_points() -> dict[str, Any]:
    return entry_points_of(GROUP)


def known_policies() -> list[str]:
    """Every policy name: installed entry points and in-process registrations, sorted."""
    return sorted(set(_entry_points()) | set(_registered))


def register_policy(name: str, cls: type, *, replace: bool = False) -> None:
    """Register policy class ``cls`` under ``name`` for this process.

    A name already registered in-process, or by an installed package, is refused unless
    ``replace`` is true (or it is the very same class)."""
    if not isinstance(name, str) or not name.strip() or ":" in name:
        raise PolicyOptionError(f"policy name: expected a non-empty name without ':', got {name!r}")
    problem = _not_a_policy_class(cls)
    if problem:
        raise PolicyOptionError(f"register_policy({name!r}): {problem}")
    if not replace and _registered.get(name, cls) is not cls:
        raise PolicyOptionError(
            f"policy {name!r} is already registered ({_registered[name].__qualname__}); "
            "pass replace=True to replace it"
        )
    installed = name not in _registered and name in _entry_points()
    if not replace and installed and policy_class(name) is not cls:
        raise PolicyOptionError(
            f"policy {name!r} is registered by an installed package "
            f"({_entry_points()[name].value}); pass replace=True to override it"
        )
    _registered[name] = cls


def unregister_policy(name: str) -> None:
    """Drop an in-process registration (entry points stay)."""
    _registered.pop(name, None)


def policy_class(name: str) -> type:
    """The class registered under ``name`` (in-process first, then entry points)."""
    cls = _registered.get(name)
    if cls is not None:
        return cls
    eps = _entry_points()
    if name not in eps:
        raise UnknownPolicyError(name, known_policies())
    loaded = eps[name].load()
    problem = _not_a_policy_class(loaded)
    if problem:
        raise PolicyOptionError(f"policy {name!r} ({eps[name].value}): {problem}")
    return loaded


def load_policy_class(spec: str) -> type:
    """Import the policy class named by ``module:Class``.

    As for solvers (``solvers/registry.py``; docs/design.md#trust-boundaries-and-bounded-work), what
    a spec names must be a *policy class* — a class with a ``schedule`` method written in Python —
    before anything is called with the user's options: functions and other callables are refused, so
    nothing runs beyond importing the named module.
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise PolicyOptionError(f"{spec!r}: expected module:Class, e.g. my_pkg.policy:MyPolicy")
    try:
        obj = import_object(spec)
    except ImportError as exc:
        raise PolicyOptionError(f"{spec!r}: cannot import module {module_name!r}: {exc}") from exc
    except AttributeError as exc:
        raise PolicyOptionError(f"{spec!r}: module {module_name!r} has no {attr!r}") from exc
    problem = _not_a_policy_class(obj)
    if problem:
        raise PolicyOptionError(
            f"{spec!r}: {problem}; expected a policy class with a `schedule(view, now)` method "
            "(nothing was called)"
        )
    return obj


def _not_a_policy_class(obj: object) -> str:
    """Why ``obj`` is not a policy class ("" when it is one)."""
    if not inspect.isclass(obj):
        return f"is a {type(obj).__name__}, not a class"
    if not inspect.isfunction(inspect.getattr_static(obj, "schedule", None)):
        return f"class {obj.__qualname__} has no schedule() method written in Python"
    return ""


def policy_options(cls: type) -> list[str]:
    """The keyword options ``cls`` accepts (its constructor's parameters), in order."""
    params = inspect.signature(cls).parameters.values()
    return [
        p.name
        for p in params
        if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    ]


def make_policy(name: str, **options: Any) -> Any:
    """A fresh policy object: the class registered as ``name`` — or, for ``module:Class``, that
    class once it has passed ``load_policy_class``'s checks — called with ``options``.

    Options are checked against the constructor before it is called: an unknown one raises
    ``PolicyOptionError`` naming it and listing the accepted ones, as does a missing required
    one. Build one policy object per simulation run (``simcore/policy.py``)::

        make_policy("naive", backfill="conservative")
        make_policy("window", solver=make_solver("dp"), window=20, backfill="easy")
    """
    cls = load_policy_class(name) if ":" in name else policy_class(name)
    sig = inspect.signature(cls)
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.parameters.values())
    accepted = policy_options(cls)
    if not takes_any:
        unknown = [k for k in options if k not in accepted]
        if unknown:
            raise PolicyOptionError(
                f"policy {name!r} has no option {unknown[0]!r}; its options: "
                f"{', '.join(accepted) if accepted else '(none)'}"
            )
    try:
        sig.bind(**options)
    except TypeError as exc:
        raise PolicyOptionError(
            f"policy {name!r}: {exc}; its options: {', '.join(accepted) or '(none)'}"
        ) from exc
    try:
        return cls(**options)
    except SchedbenchError:
        raise  # already says what and where
    except ValueError as exc:
        # A policy checks its options in its constructor: one line, not a traceback.
        raise PolicyOptionError(f"policy {name!r}: {exc}") from exc
