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

The lookup is the one registry of ``simcore/plugins.py``, shared with solvers, kinds and the
other plug-in groups.
"""

from __future__ import annotations

import inspect
from typing import Any

from schedbench.simcore.errors import PolicyOptionError, SchedbenchError, UnknownPolicyError
from schedbench.simcore.plugins import Registry, class_with, keyword_options

GROUP = "schedbench.policies"


def _not_a_policy_class(obj: object) -> str:
    """Why ``obj`` is not a policy class ("" when it is one)."""
    return class_with(obj, "schedule")


#: The policies of the engine (``simcore/engine.py``): entry points of ``schedbench.policies``
#: and in-process registrations (``simcore/plugins.py``: one lookup, one message format).
POLICIES = Registry(
    GROUP,
    "policy",
    protocol="a policy class with a `schedule(view, now)` method",
    check=_not_a_policy_class,
    unknown=UnknownPolicyError,
    error=PolicyOptionError,
    example="my_pkg.policy:MyPolicy",
)


def known_policies() -> list[str]:
    """Every policy name: installed entry points and in-process registrations, sorted."""
    return POLICIES.names()


def register_policy(name: str, cls: type, *, replace: bool = False) -> None:
    """Register policy class ``cls`` under ``name`` for this process.

    A name already registered in-process, or by an installed package, is refused unless
    ``replace`` is true (or it is the very same class)."""
    POLICIES.register(name, cls, replace=replace)


def unregister_policy(name: str) -> None:
    """Drop an in-process registration (entry points stay)."""
    POLICIES.unregister(name)


def policy_class(name: str) -> type:
    """The class registered under ``name`` (in-process first, then entry points)."""
    return POLICIES.load(name)


def load_policy_class(spec: str) -> type:
    """Import the policy class named by ``module:Class``; functions and other callables are
    refused before anything is called (``simcore/plugins.py``;
    docs/design.md#trust-boundaries-and-bounded-work)."""
    return POLICIES.load_spec(spec)


def policy_options(cls: type) -> list[str]:
    """The keyword options ``cls`` accepts (its constructor's parameters), in order."""
    return keyword_options(cls)


def make_policy(name: str, **options: Any) -> Any:
    """A fresh policy object: the class registered as ``name`` — or, for ``module:Class``, that
    class once it has passed ``load_policy_class``'s checks — called with ``options``.

    Options are checked against the constructor before it is called: an unknown one raises
    ``PolicyOptionError`` naming it and listing the accepted ones, as does a missing required
    one. Build one policy object per simulation run (``simcore/policy.py``)::

        make_policy("naive", backfill="conservative")
        make_policy("window", solver=make_solver("dp"), window=20, backfill="easy")
    """
    cls = POLICIES.get(name)
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
