"""Problem sources: where a suite's decision problems come from (benchopt's ``BaseDataset``).

A suite's ``[[instances]]`` table names a source (``source = "theta-window"``) and gives it
keyword arguments; the source checks them when the suite is loaded (a bad value is an error
naming the key before anything runs), says how many problems it will yield (for the suite's
cell bound), and yields ``(label, problem, reference, context)``: ``reference`` is the exact
answer when the source publishes one (OR-Library optima, the Zitzler–Thiele front), else None.

Sources are plug-ins: a :class:`ProblemSource` subclass registered through the entry-point group
``schedbench.sources``, with :func:`register_source`, or named as ``module:Class`` in a suite.
A source may yield problems of any kind (``simcore/kinds/``); the runner, store and report take
the kind from the problems.

Built-ins (keys):

* ``theta-window``, ``cori-window`` — BBSched windows on those machines (``w``, ``seeds``,
  ``bb_share``, ``max_bb_gb``, ``min_nodes``, ``free_range``);
* ``cerberus-run`` (``w``, ``seeds``, ``free_range``), ``cerberus-stage`` (``w``, ``seeds``,
  ``objective`` = data | count) — Cerberus' CN×BB and stage-in knapsacks;
* ``problem-files`` (``paths``: globs of PROBLEM.json, any kind);
* ``mknap`` (``path``: OR-Library file; the reported optima are the references);
* ``zitzler-thiele`` (``path``, optionally ``front``: the published exact front as reference);
* ``recorded`` (``path``: a decision log of ``schedbench simulate --record-decisions``;
  ``limit``, ``every``).

Lists of values are grids (every combination is a problem); ``seeds = n`` means seeds 1..n.
Relative paths are resolved against the suite file's folder; a ``path`` or ``front`` may also
be a dataset reference (``or-mknap1``, ``zt-100-2/front``: instances/datasets.py), used when no
file of that name is next to the suite.
"""

from __future__ import annotations

import glob
import itertools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from schedbench.instances import datasets
from schedbench.simcore.errors import SchedbenchError, UnknownNameError
from schedbench.simcore.kinds.selection.problem import Decision, ParetoPoint
from schedbench.simcore.plugins import Registry, named_subclass, object_ref
from schedbench.simcore.problem import Status

GROUP = "schedbench.sources"


class SourceError(SchedbenchError, ValueError):
    """A source keyword with a wrong value; ``key`` names it (the suite adds the table path)."""

    def __init__(self, key: str, expected: str, got: Any = None):
        self.key, self.expected, self.got = key, expected, got
        got_text = "" if got is None else f", got {got!r}"
        super().__init__(f"{key}: expected {expected}{got_text}")


class UnknownSourceError(UnknownNameError):
    what = "problem source"


@dataclass(frozen=True, slots=True)
class SourceInstance:
    """One problem a source yields."""

    label: str
    problem: Any
    reference: Any = None
    context: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SourceLimits:
    """Bounds a suite puts on what a source may expand into (``bench/suite``'s ``Limits``)."""

    max_window: int = 100_000
    max_seeds: int = 10_000


class ProblemSource:
    """Base class of a problem source (see the module docstring). Subclasses set ``name`` and
    ``keys`` and implement :meth:`build`; :meth:`check` and :meth:`count` check the common
    keys and may be extended."""

    name: ClassVar[str] = ""
    #: The table keys this source accepts (besides ``family``, ``source``, ``reference``).
    keys: ClassVar[frozenset[str]] = frozenset()
    #: Keys that must be present.
    required: ClassVar[frozenset[str]] = frozenset()

    def check(self, spec: dict[str, Any], base: Path, limits: SourceLimits) -> None:
        """Raise :class:`SourceError` for a bad value (nothing is generated or read)."""
        for key in sorted(self.required):
            if key not in spec:
                raise SourceError(key, "a value (missing key)")
        _check_common(spec, base, limits)

    def count(self, spec: dict[str, Any], base: Path) -> int:
        """How many problems :meth:`build` yields (a cheap estimate, for the cell bound)."""
        return 1

    def build(self, spec: dict[str, Any], base: Path) -> Iterator[SourceInstance]:
        raise NotImplementedError(f"source {self.name!r} must implement build")


# ---------------------------------------------------------------------------------------------
# Common keys
# ---------------------------------------------------------------------------------------------


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _is_range(x: Any) -> bool:
    return (
        isinstance(x, list)
        and len(x) == 2
        and all(_is_number(v) for v in x)
        and 0 <= x[0] <= x[1] <= 1
    )


#: Per-source keyword arguments: (check of one value, what is expected). Lists of values are
#: grids (``free_range``: a list of [lo, hi] pairs, or one pair).
_VALUES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "bb_share": (lambda x: _is_number(x) and 0 <= x <= 1, "a share in [0, 1]"),
    "max_bb_gb": (lambda x: _is_number(x) and 1 <= x <= 1e9, "a number of GB in [1, 1e9]"),
    # the window generators draw job sizes from min_nodes up to 4,096 nodes
    "min_nodes": (lambda x: _is_int(x) and 1 <= x <= 4096, "an integer in 1..4096"),
    "objective": (lambda x: x in ("data", "count"), "'data' or 'count'"),
}


def _check_common(spec: dict[str, Any], base: Path, limits: SourceLimits) -> None:
    for key in ("path", "front"):
        if key in spec:
            if not isinstance(spec[key], str) or not spec[key]:
                raise SourceError(key, "a file path", spec[key])
            try:
                found = datasets.resolve_file(spec[key], base).is_file()
            except SchedbenchError as exc:  # a dataset that is not fetched yet, a bad member
                raise SourceError(key, "an existing file or a dataset", str(exc)) from exc
            if not found:
                raise SourceError(key, "an existing file or a dataset (schedbench data)", spec[key])
    if "paths" in spec:
        paths = spec["paths"]
        if (
            not isinstance(paths, list)
            or not paths
            or not all(isinstance(x, str) and x for x in paths)
        ):
            raise SourceError("paths", "a non-empty list of globs (strings)", paths)
    if "w" in spec:
        ws = spec["w"] if isinstance(spec["w"], list) else [spec["w"]]
        if not ws or not all(_is_int(x) and 1 <= x <= limits.max_window for x in ws):
            raise SourceError(
                "w",
                f"an integer in 1..{limits.max_window:,} or a non-empty list of them "
                "(raise the bound with --max-window)",
                spec["w"],
            )
    if "seeds" in spec:
        s = spec["seeds"]
        ok = (_is_int(s) and 1 <= s <= limits.max_seeds) or (
            isinstance(s, list)
            and 0 < len(s) <= limits.max_seeds
            and all(_is_int(x) and 0 <= x < 2**63 for x in s)
            and len(set(s)) == len(s)
        )
        if not ok:
            raise SourceError(
                "seeds",
                f"a count in 1..{limits.max_seeds:,} or a list of distinct non-negative integer "
                "seeds",
                s,
            )
    for key in ("limit", "every"):
        if key in spec and not (_is_int(spec[key]) and spec[key] >= 1):
            raise SourceError(key, "an integer >= 1", spec[key])
    for key, (ok_value, expected) in _VALUES.items():
        if key in spec:
            values = spec[key] if isinstance(spec[key], list) else [spec[key]]
            if not values or not all(ok_value(v) for v in values):
                raise SourceError(key, f"{expected} or a list of them", spec[key])
    if "free_range" in spec:
        v = spec["free_range"]
        pairs = v if isinstance(v, list) and v and isinstance(v[0], list) else [v]
        if not all(_is_range(x) for x in pairs):
            raise SourceError(
                "free_range", "[lo, hi] with 0 <= lo <= hi <= 1, or a list of such pairs", v
            )


def seeds_of(v: Any) -> list[int]:
    """``seeds = n`` means 1..n; a list is taken as it is."""
    return list(range(1, v + 1)) if isinstance(v, int) else list(v)


def _gridded(spec: dict[str, Any], names: tuple[str, ...]) -> Iterator[dict[str, Any]]:
    present = {k: spec[k] for k in names if k in spec}
    # a list of lists (free_range) or a list of scalars is a grid; a 2-list of numbers for
    # free_range is one value
    fixed: dict[str, list[Any]] = {}
    for k, v in present.items():
        if k == "free_range" and isinstance(v, list) and v and not isinstance(v[0], list):
            fixed[k] = [tuple(v)]
        elif isinstance(v, list):
            fixed[k] = [tuple(x) if isinstance(x, list) else x for x in v]
        else:
            fixed[k] = [v]
    keys = sorted(fixed)
    for combo in itertools.product(*(fixed[k] for k in keys)):
        yield dict(zip(keys, combo, strict=True))


def _label(prefix: str, kw: dict[str, Any]) -> str:
    return prefix + ":" + ",".join(f"{k}={v}" for k, v in sorted(kw.items()))


# ---------------------------------------------------------------------------------------------
# Built-in sources
# ---------------------------------------------------------------------------------------------


class _WindowSource(ProblemSource):
    """Generated windows (``instances/windows.py``) over a grid of ``w`` × ``seeds`` × extras."""

    generator: ClassVar[str] = ""
    machine: ClassVar[str | None] = None
    extras: ClassVar[tuple[str, ...]] = ()

    def count(self, spec: dict[str, Any], base: Path) -> int:
        n = len(seeds_of(spec.get("seeds", 1)))
        w = spec.get("w", [20])
        n *= len(w) if isinstance(w, list) else 1
        for key in self.extras:
            v = spec.get(key)
            if key == "free_range":
                n *= len(v) if isinstance(v, list) and v and isinstance(v[0], list) else 1
            elif isinstance(v, list):
                n *= len(v)
        return n

    def build(self, spec: dict[str, Any], base: Path) -> Iterator[SourceInstance]:
        from schedbench.instances import systems, windows

        fn = getattr(windows, self.generator)
        ws = spec.get("w", [20])
        ws = ws if isinstance(ws, list) else [ws]
        for kw in _gridded(spec, self.extras):
            for w in ws:
                for seed in seeds_of(spec.get("seeds", 1)):
                    args = dict(kw)
                    if self.machine:
                        args["machine"] = systems.PRESETS[self.machine]
                    problem = fn(int(w), int(seed), **args)
                    yield SourceInstance(_label(self.name, {"w": w, "seed": seed, **kw}), problem)


_BB_KEYS = ("bb_share", "max_bb_gb", "min_nodes", "free_range")


class ThetaWindows(_WindowSource):
    name = "theta-window"
    keys = frozenset({"w", "seeds", *_BB_KEYS})
    generator, machine, extras = "bb_window", "theta", _BB_KEYS


class CoriWindows(_WindowSource):
    name = "cori-window"
    keys = frozenset({"w", "seeds", *_BB_KEYS})
    generator, machine, extras = "bb_window", "cori", _BB_KEYS


class CerberusRunWindows(_WindowSource):
    name = "cerberus-run"
    keys = frozenset({"w", "seeds", "free_range"})
    generator, extras = "cerberus_run_window", ("free_range",)


class CerberusStageWindows(_WindowSource):
    name = "cerberus-stage"
    keys = frozenset({"w", "seeds", "objective"})
    generator, extras = "cerberus_stage_window", ("objective",)


class ProblemFiles(ProblemSource):
    name = "problem-files"
    keys = required = frozenset({"paths"})

    def check(self, spec: dict[str, Any], base: Path, limits: SourceLimits) -> None:
        super().check(spec, base, limits)
        for pattern in spec["paths"]:  # a glob matching nothing would be a suite of 0 cells
            if not glob.glob(str(base / pattern)):
                raise SourceError(
                    "paths", "globs that each match at least one PROBLEM.json file", pattern
                )

    def count(self, spec: dict[str, Any], base: Path) -> int:
        return sum(len(glob.glob(str(base / pattern))) for pattern in spec["paths"])

    def build(self, spec: dict[str, Any], base: Path) -> Iterator[SourceInstance]:
        from schedbench.instances.problem_files import load_problem

        for pattern in spec["paths"]:
            for path in sorted(glob.glob(str(base / pattern))):
                yield SourceInstance(Path(path).stem, load_problem(path), None, {"path": path})


class MknapFile(ProblemSource):
    name = "mknap"
    keys = required = frozenset({"path"})

    def build(self, spec: dict[str, Any], base: Path) -> Iterator[SourceInstance]:
        from schedbench.instances.knapsack_files import read_mknap

        for known in read_mknap(datasets.resolve_file(spec["path"], base)):
            ref = Decision(
                status=Status.OPTIMAL, objectives=(float(known.optimum),), solver="published"
            )
            yield SourceInstance(known.name, known.problem, ref)


class ZitzlerThiele(ProblemSource):
    name = "zitzler-thiele"
    keys = frozenset({"path", "front"})
    required = frozenset({"path"})

    def build(self, spec: dict[str, Any], base: Path) -> Iterator[SourceInstance]:
        from schedbench.instances.knapsack_files import read_front, read_zitzler_thiele

        problem = read_zitzler_thiele(datasets.resolve_file(spec["path"], base))
        ref = None
        if "front" in spec:
            front = read_front(datasets.resolve_file(spec["front"], base))
            ref = Decision(
                status=Status.OPTIMAL,
                pareto=tuple(ParetoPoint((), tuple(map(float, v))) for v in front),
                objectives=tuple(map(float, front[0])),
                solver="published",
            )
        label = datasets.resolve_file(spec["path"], base).name.removesuffix(".gz")
        yield SourceInstance(label, problem, ref)


class RecordedDecisions(ProblemSource):
    name = "recorded"
    keys = frozenset({"path", "limit", "every"})
    required = frozenset({"path"})

    def build(self, spec: dict[str, Any], base: Path) -> Iterator[SourceInstance]:
        from schedbench.instances.recorded import read_recorded

        limit = spec.get("limit")
        every = spec.get("every", 1)
        path = datasets.resolve_file(spec["path"], base)
        for k, (label, problem, context) in enumerate(read_recorded(path)):
            if k % every:
                continue
            if limit is not None and k // every >= limit:
                break
            yield SourceInstance(label, problem, None, context)


# ---------------------------------------------------------------------------------------------
# Registry
# ---------------------------------------------------------------------------------------------

_BUILT_IN: tuple[type[ProblemSource], ...] = (
    ThetaWindows,
    CoriWindows,
    CerberusRunWindows,
    CerberusStageWindows,
    ProblemFiles,
    MknapFile,
    ZitzlerThiele,
    RecordedDecisions,
)


#: The problem sources: the built-ins above, entry points of ``schedbench.sources`` and
#: in-process registrations (``simcore/plugins.py``: the one registry).
SOURCES = Registry(
    GROUP,
    "problem source",
    protocol="a ProblemSource subclass",
    check=named_subclass(ProblemSource),
    unknown=UnknownSourceError,
    builtins={cls.name: object_ref(cls) for cls in _BUILT_IN},
    example="my_pkg.sources:MySource",
)


def register_source(cls: type[ProblemSource]) -> type[ProblemSource]:
    """Register a source class in this process (usable as a decorator)."""
    SOURCES.register(cls.name, cls, replace=True)
    return cls


def known_sources() -> list[str]:
    return SOURCES.names()


def get_source(name: str) -> ProblemSource:
    """The source registered as ``name``, or the class ``module:Class`` names."""
    return SOURCES.get(name)()
