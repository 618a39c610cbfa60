"""The one plug-in registry: an entry-point group, in-process registrations and aliases, looked up
the same way for every group (solvers, problem kinds, policies, Cerberus policies, locality
schedulers, problem sources, simulation cores).

A :class:`Registry` maps a name to an object of its group's protocol (a class, a factory, a
group's data): first what was registered in this process (:meth:`Registry.register`), then the
installed entry points (imported lazily, only when their name is asked for), then the group's
built-ins. A user may also name an object as ``module:Class`` (:meth:`Registry.load_spec`).
Groups differ only in their protocol check, their error types and the words of their messages;
the lookup, the listing and the message formats are the same everywhere:

* an unknown name: ``unknown solver 'x'; known solvers: a, b`` (the group's ``UnknownNameError``);
* a spec that is no ``module:Class``, cannot be imported, or names something without the
  protocol: ``'os:system': is a builtin_function_or_method, not a class; expected a solver
  class with ... (nothing was called)``.

Trust boundary (docs/design.md "Trust boundaries"): a suite file or a command line may name any
importable module, so what a ``module:Class`` names must be a *class* of the group's protocol
before anything is called with the user's parameters. Functions and other callables
(``os:system``, ``builtins:eval``) are refused here, and nothing runs beyond importing the named
module, which the user named on purpose. Installed entry points and in-process registrations are
code the user installed or ran, so a group may accept factories there (the locality schedulers).

An :class:`Alias` is a registered name for a class with preset parameters: the paper's ``pe-b``
is ``fit[policy=pe-b]``. It registers like any object (an entry point naming an ``Alias``), and
:meth:`Registry.resolve` follows it to the class and the parameters.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from types import MappingProxyType
from typing import Any

from schedbench.simcore.errors import SchedbenchError, UnknownNameError


class PluginError(SchedbenchError, ValueError):
    """A plug-in that cannot be used: a bad ``module:Class``, an object without the group's
    protocol, a name registered twice. Groups raise their own subclass where they have one."""


@cache
def entry_points_of(group: str) -> dict[str, EntryPoint]:
    """Name -> entry point of ``group``; the first installed distribution wins, deterministically."""
    found: dict[str, EntryPoint] = {}
    for ep in entry_points(group=group):
        found.setdefault(ep.name, ep)
    return found


_MODULE_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
_ATTR_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


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
    if not _MODULE_NAME.fullmatch(module_name) or not _ATTR_NAME.fullmatch(attr):
        # a path ("../x"), a relative import (".x") or a NUL is not a module: importlib would
        # answer with a TypeError or ValueError instead of an ImportError
        raise ImportError(
            f"{spec!r} is not module:Class (dotted Python names, such as my_pkg.mod:MySolver)"
        )
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


def object_ref(obj: Any) -> str:
    """``module:Qualname`` of a class or function, so that another process can import it."""
    return f"{obj.__module__}:{obj.__qualname__}"


def class_with(obj: object, method: str) -> str:
    """Why ``obj`` is not a class with ``method`` written in Python ("" when it is one): the
    check most groups' protocols start with."""
    if not inspect.isclass(obj):
        return f"is a {type(obj).__name__}, not a class"
    if not inspect.isfunction(inspect.getattr_static(obj, method, None)):
        return f"class {obj.__qualname__} has no {method}() method written in Python"
    return ""


def named_subclass(base: type) -> Callable[[Any], str]:
    """The check of a group whose members are subclasses of ``base`` with a ``name``."""

    def check(obj: Any) -> str:
        if not (isinstance(obj, type) and issubclass(obj, base)):
            return f"is a {type(obj).__name__}, not a {base.__name__} subclass"
        return "" if getattr(obj, "name", "") else f"class {obj.__qualname__} has no name"

    return check


def keyword_options(obj: Any) -> list[str]:
    """The keyword options a class or factory accepts (its signature's named parameters)."""
    params = inspect.signature(obj).parameters.values()
    return [
        p.name
        for p in params
        if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    ]


@dataclass(frozen=True, slots=True)
class Alias:
    """A registered name for ``target`` with preset ``params``: a paper's name for a variant
    (``pe-b`` is ``fit[policy=pe-b]``). Calling it builds the target with the presets, overridden
    by the keywords given; a target that knows aliases (``from_alias``) records it, so that its
    results carry the alias' name (``solvers/base.py``)."""

    name: str
    target: Any
    params: Mapping[str, Any] = field(default_factory=dict)
    summary: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))

    def __call__(self, **params: Any) -> Any:
        build = getattr(self.target, "from_alias", None)
        if build is not None:
            return build(self, params)
        return self.target(**{**self.params, **params})

    @property
    def label(self) -> str:
        """What the alias stands for: ``fit[policy=pe-b]``."""
        name = getattr(self.target, "name", None)
        if not isinstance(name, str) or not name:
            name = getattr(self.target, "__name__", "?")
        inside = ",".join(f"{k}={v}" for k, v in sorted(self.params.items()))
        return f"{name}[{inside}]" if inside else str(name)


@dataclass(frozen=True, slots=True)
class Resolved:
    """A name followed to its object: ``obj`` (for an alias, its target), the preset ``params``
    (empty unless an alias), the ``alias`` itself or None."""

    name: str
    obj: Any
    params: Mapping[str, Any] = field(default_factory=dict)
    alias: Alias | None = None


class Registry:
    """One plug-in group (see the module docstring).

    ``what`` names a member in messages (``solver``), ``protocol`` says what a member is
    (``a solver class with a `name` and a `solve(problem, budget)` method``), ``check(obj)`` says
    why an object is not one ("" when it is), ``unknown`` is the group's unknown-name error and
    ``error`` its error for everything else; ``builtins`` maps names to ``module:attr`` for members
    that no entry point registers; ``example`` is a ``module:Class`` for the messages.
    """

    def __init__(
        self,
        group: str,
        what: str,
        *,
        protocol: str,
        check: Callable[[Any], str],
        unknown: type[UnknownNameError] = UnknownNameError,
        error: type[Exception] = PluginError,
        builtins: Mapping[str, str] | None = None,
        example: str = "my_package.module:MyClass",
    ) -> None:
        self.group = group
        self.what = what
        self.protocol = protocol
        self.check = check
        self.unknown = unknown
        self.error = error
        self.builtins = dict(builtins or {})
        self.example = example
        self._registered: dict[str, Any] = {}
        self._loaded: dict[str, Any] = {}

    def __repr__(self) -> str:
        return f"Registry({self.group!r})"

    # -- listing -----------------------------------------------------------------------------
    def entry_points(self) -> dict[str, EntryPoint]:
        return entry_points_of(self.group)

    def names(self) -> list[str]:
        """Every name: in-process registrations, installed entry points, built-ins; sorted."""
        return sorted(set(self._registered) | set(self.entry_points()) | set(self.builtins))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and (
            name in self._registered or name in self.entry_points() or name in self.builtins
        )

    def origin(self, name: str) -> str:
        """Where ``name`` comes from: the entry point's ``module:attr``, or the registration's."""
        if name in self._registered:
            obj = self._registered[name]
            return "registered in this process: " + _describe(obj)
        if name in self.entry_points():
            return str(self.entry_points()[name].value)
        return self.builtins.get(name, "")

    # -- registration --------------------------------------------------------------------------
    def register(self, name: str, obj: Any, *, replace: bool = False) -> Any:
        """Register ``obj`` as ``name`` in this process; returns ``obj``.

        A name already registered in-process, or by an installed package, is refused unless
        ``replace`` is true (or it is the very same object)."""
        if not isinstance(name, str) or not name.strip() or ":" in name:
            raise self.error(
                f"{self.what} name: expected a non-empty name without ':', got {name!r}"
            )
        problem = self.check(obj.target if isinstance(obj, Alias) else obj)
        if problem:
            raise self.error(f"{self.what} {name!r}: {problem}")
        old = self._registered.get(name, obj)
        if not replace and old is not obj and old != obj:
            raise self.error(
                f"{self.what} {name!r} is already registered ({_describe(old)}); "
                "pass replace=True to replace it"
            )
        installed = name not in self._registered and name in self.entry_points()
        if not replace and installed and self.load(name) is not obj:
            raise self.error(
                f"{self.what} {name!r} is registered by an installed package "
                f"({self.entry_points()[name].value}); pass replace=True to override it"
            )
        self._registered[name] = obj
        return obj

    def unregister(self, name: str) -> None:
        """Drop an in-process registration (entry points stay)."""
        self._registered.pop(name, None)

    # -- lookup --------------------------------------------------------------------------------
    def load(self, name: str) -> Any:
        """The object registered as ``name``: in-process first, then entry points, then the
        built-ins; checked against the protocol once."""
        if name in self._registered:
            return self._registered[name]
        if name in self._loaded:
            return self._loaded[name]
        eps = self.entry_points()
        if name in eps:
            where = str(eps[name].value)
            obj = eps[name].load()
        elif name in self.builtins:
            where = self.builtins[name]
            obj = import_object(where)
        else:
            raise self.unknown(name, self.names())
        problem = self.check(obj.target if isinstance(obj, Alias) else obj)
        if problem:
            raise self.error(f"{self.what} {name!r} ({where}): {problem}")
        self._loaded[name] = obj
        return obj

    def load_spec(self, spec: str) -> Any:
        """The class ``module:Class`` names, once it has passed the trust checks (module
        docstring): a class, of the group's protocol. Nothing is called."""
        module_name, sep, attr = spec.partition(":")
        if not sep or not module_name or not attr:
            raise self.error(f"{spec!r}: expected module:Class, e.g. {self.example}")
        try:
            obj = import_object(spec)
        except ImportError as exc:
            raise self.error(f"{spec!r}: cannot import module {module_name!r}: {exc}") from exc
        except AttributeError as exc:
            raise self.error(f"{spec!r}: module {module_name!r} has no {attr!r}") from exc
        problem = "" if inspect.isclass(obj) else f"is a {type(obj).__name__}, not a class"
        problem = problem or self.check(obj)
        if problem:
            raise self.error(f"{spec!r}: {problem}; expected {self.protocol} (nothing was called)")
        return obj

    def get(self, name: str) -> Any:
        """A registered name, or ``module:Class``."""
        return self.load_spec(name) if ":" in name else self.load(name)

    def resolve(self, name: str) -> Resolved:
        """``name`` (or ``module:Class``) followed through an alias to its object and presets."""
        obj = self.get(name)
        if isinstance(obj, Alias):
            return Resolved(name, obj.target, obj.params, obj)
        return Resolved(name, obj)

    def try_load(self, name: str) -> tuple[Any, str]:
        """(object, "") or (None, why it cannot be loaded): listings show a broken plug-in with
        its reason instead of letting it hide the others."""
        try:
            return self.load(name), ""
        except Exception as exc:  # a plug-in's import may raise anything; reported, never hidden
            return None, f"{type(exc).__name__}: {exc}"

    def aliases(self) -> dict[str, Alias]:
        """The names that are aliases, with what they stand for (loads every member)."""
        out: dict[str, Alias] = {}
        for name in self.names():
            obj, _why = self.try_load(name)
            if isinstance(obj, Alias):
                out[name] = obj
        return out


def _describe(obj: Any) -> str:
    if isinstance(obj, Alias):
        return f"alias of {obj.label}"
    return str(getattr(obj, "__qualname__", None) or type(obj).__qualname__)
