"""Suite files: the TOML schema, checked key by key when the suite is loaded.

A suite compares solvers at two levels:

* **decision cells** — one solver on one decision problem (open loop): quality against the exact
  reference, latency against the budget;
* **simulation cells** — one policy of a simulation core (with the solver it decides with, if
  any) on one trace-driven scenario (closed loop): usage, wait, slowdown, acceptance, data
  transferred, decision latency — each core's metrics.

Format (every key is checked; a wrong key, type, unknown solver or parameter is reported with
the file, the key path and what was expected)::

    [suite]
    name = "quick"                 # required
    description = "..."
    budget_s = 15                  # decision deadline, 0 < budget <= 30 (default 15)
    repetitions = 1                # every cell is run this many times (default 1)
    seed = 0                       # base seed; cell seeds are seed + repetition
    reference = "dp"               # exact reference solver for generated problems (default dp)

    [[instances]]                  # decision-problem sources
    family = "theta"               # a name for the group (required, unique)
    source = "theta-window"        # see SOURCES below
    w = [10, 20, 50]               # grid keys: lists expand, scalars stay
    seeds = 3                      # an int n means seeds 1..n; or a list
    free_range = [[0.3, 0.7]]      # per-source keyword arguments, gridded when lists of values
    reference = "cpsat"            # optional per-family override; "none" = no reference

    [[solvers]]                    # decision-level solvers
    name = "cpsat"
    params = { time_limit_s = [1, 5] }   # grid: cpsat[time_limit_s=1], cpsat[time_limit_s=5]
    families = ["theta"]           # optional: only these families
    isolate = false                # run each solve in a child process killed at deadline + grace

    [[simulations]]                # closed-loop scenarios, on any simulation core
    name = "theta-s4"
    policies = ["naive", "window:dp", "window:ga", "window:cpsat[time_limit_s=5]"]
    workload = "lublin:jobs=3000,nodes=4392,seed=1+bbsched:S4,seed=1+arrivals:2"
    system = "theta"               # preset or TOML machine file (relative to the suite file)
    priority = "wfp"               # the rest: keys of the policies' core (here bbsched)
    backfill = "easy"
    window = 20

Sources (``source = ...``) are plug-ins: the built-ins, their keys, and how to add one are in
``instances/sources.py``; ``source = "my_pkg.mod:MySource"`` names a source class directly.
A ``[[simulations]]`` table's ``policies`` list holds the policies of one simulation core
(``simcore/core.py``; ``schedbench policies`` lists them by core), with the solver they decide
with where they take one (``window:SOLVER[params]``, ``lea:placement-locality``,
``reserve:reservation-cpsat``): a solver of the core's problem kind. The policies name the core;
``core = "NAME"`` names it where they cannot (a ``module:Class`` policy). Every other key —
``workload``, ``system``, ``policy_options`` (options for the policies that accept them) and the
core's own (``priority``, ``window``, ``mode``, ...) — is checked by the core
(``SimulationCore.check``), before any workload is read; ``instances/cores/`` documents the
built-in cores' keys.

Relative paths are resolved against the suite file's folder. Wherever a file is taken
(``workload``, a source's ``path`` / ``front``), a dataset reference works too: ``kth-sp2``,
``locality-day``, ``zt-100-2/front`` (``schedbench data`` lists them; a file of that name next
to the suite wins).
"""

from __future__ import annotations

import itertools
import math
import re
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schedbench.instances.sources import (
    SourceError,
    SourceLimits,
    UnknownSourceError,
    get_source,
)
from schedbench.simcore.core import (
    CoreSpec,
    SimulationCore,
    SpecError,
    core_of_policy,
    get_core,
    known_cores,
)
from schedbench.simcore.errors import (
    SchedbenchError,
    SolverParameterError,
    UnknownNameError,
    UnknownSolverError,
)
from schedbench.simcore.plugins import PluginError
from schedbench.simcore.problem import DEFAULT_DEADLINE_S, MAX_DEADLINE_S
from schedbench.simcore.safeio import InputFileError, read_text
from schedbench.solvers import registry
from schedbench.solvers.registry import parse_solver_id


class SuiteError(SchedbenchError, ValueError):
    """A suite file that cannot be used; the message names file, key path and expectation."""

    def __init__(self, source: str, where: str, expected: str, got: Any = None):
        self.source, self.where, self.expected = source, where, expected
        got_text = "" if got is None else f", got {got!r}"
        super().__init__(f"{source}: {where}: expected {expected}{got_text}")


# ---------------------------------------------------------------------- data
@dataclass(frozen=True, slots=True)
class SolverSpec:
    """A solver of the suite: registry name (or ``module:Class``), parameters, its id (name +
    non-default parameters, e.g. ``cpsat[time_limit_s=5]``), the families it runs on, and
    whether each solve runs isolated in a child process."""

    name: str
    params: tuple[tuple[str, Any], ...]
    id: str
    families: tuple[str, ...] | None = None
    isolate: bool = False
    kinds: tuple[str, ...] = ("selection",)


@dataclass(frozen=True, slots=True)
class Scenario:
    """A closed-loop scenario: its name and the spec its simulation core checked (the
    workload, the machine and every key of the core, ``simcore/core.py``)."""

    name: str
    spec: CoreSpec

    @property
    def core(self) -> str:
        return self.spec.core

    @property
    def workload(self) -> str:
        return self.spec.workload

    @property
    def system(self) -> str:
        return self.spec.system


def split_policy(text: str) -> tuple[str, str | None]:
    """``POLICY`` or ``POLICY:SOLVER[params]`` (``window:dp``): the policy's registered name and
    the id of the solver it decides with, if any."""
    name, sep, solver = text.partition(":")
    return name, (solver if sep else None)


@dataclass(frozen=True, slots=True)
class Suite:
    name: str
    source: str
    description: str
    budget_s: float
    repetitions: int
    seed: int
    reference: str
    instance_specs: tuple[dict[str, Any], ...]
    solvers: tuple[SolverSpec, ...]
    scenarios: tuple[tuple[Scenario, tuple[str, ...]], ...]
    base_dir: Path

    def config(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "source": self.source,
            "budget_s": self.budget_s,
            "repetitions": self.repetitions,
            "seed": self.seed,
            "reference": self.reference,
            "solvers": [s.id for s in self.solvers],
            "families": [s["family"] for s in self.instance_specs],
            "scenarios": [sc.name for sc, _ in self.scenarios],
        }


def make_solver_spec(
    name: str,
    params: dict[str, Any],
    *,
    families: tuple[str, ...] | None = None,
    isolate: bool = False,
) -> SolverSpec:
    """Validate by instantiating once through the registry (unknown solver or parameter
    raises); the id is the solver's own (name + non-default parameters)."""
    solver = registry.make_solver(name, params)
    ident = getattr(solver, "id", name)
    return SolverSpec(
        name, tuple(sorted(params.items())), ident, families, isolate, registry.solver_kinds(solver)
    )


# ---------------------------------------------------------------------- loading
_SUITE_KEYS = {"name", "description", "budget_s", "repetitions", "seed", "reference"}
_TOP_KEYS = {"suite", "instances", "solvers", "simulations"}
_SOLVER_KEYS = {"name", "params", "families", "isolate"}


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on what one suite may ask for, checked at load before anything is built, so a
    typo such as ``w = 1e9`` or ``seeds = 1000000000`` is an error naming the key, not an
    out-of-memory kill an hour later. Raise them explicitly (``schedbench run --max-cells N
    --max-window W``) for a suite that really needs more."""

    max_cells: int = 100_000
    max_window: int = 100_000
    max_seeds: int = 10_000


#: A suite's name becomes the stem of its store and report files (``results/NAME.sqlite``), so it
#: must be a plain file name: letters, digits, ``.``, ``_``, ``-``, not starting with a dot.
SUITE_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}")

#: A suite file is a few kilobytes; anything this large is not one.
MAX_SUITE_BYTES = 4 * 2**20


def shipped_suites() -> dict[str, Path]:
    """The suites that ship with schedbench (package data): name -> file."""
    from importlib.resources import files

    folder = Path(str(files("schedbench.bench") / "suites"))
    return {p.stem: p for p in sorted(folder.glob("*.toml"))}


def resolve_suite(name_or_path: str | Path) -> Path:
    """A suite file: the path when it exists, else the shipped suite of that name
    (``schedbench run quick``); an unknown name is left for :func:`load_suite` to report."""
    p = Path(name_or_path)
    if p.exists() or p.suffix == ".toml":
        return p
    return shipped_suites().get(str(name_or_path), p)


def load_suite(path: str | Path, *, limits: Limits | None = None) -> Suite:
    p = Path(path)
    src = str(p)
    try:
        if p.is_dir():
            raise SuiteError(src, "file", "a suite .toml file, not a directory")
        if not p.exists():
            raise FileNotFoundError(p)
        data = tomllib.loads(read_text(p, label=src, max_bytes=MAX_SUITE_BYTES, gunzip=False))
    except InputFileError as exc:
        raise SuiteError(src, "file", f"a readable regular file ({exc})") from exc
    except FileNotFoundError as exc:
        shipped = ", ".join(shipped_suites())
        raise SuiteError(
            src, "file", f"an existing suite file, or a shipped suite ({shipped})"
        ) from exc
    except UnicodeDecodeError as exc:
        raise SuiteError(src, "file", f"UTF-8 text (byte {exc.start} is not)") from exc
    except OSError as exc:
        raise SuiteError(src, "file", f"a readable file ({exc.strerror or exc})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise SuiteError(src, "syntax", f"valid TOML ({exc})") from exc
    except RecursionError as exc:
        raise SuiteError(src, "syntax", "TOML nested at most a few levels deep") from exc
    return suite_from_dict(data, source=src, base_dir=p.resolve().parent, limits=limits)


def _unknown(src: str, where: str, data: dict, allowed: set[str]) -> None:
    bad = sorted(set(data) - allowed)
    if bad:
        raise SuiteError(
            src,
            f"{where}{bad[0]}" if not where else f"{where}.{bad[0]}",
            f"one of the keys {', '.join(sorted(allowed))} (unknown key)",
        )


def _get(
    src: str,
    data: dict,
    key: str,
    where: str,
    kind: type | tuple,
    default: Any = ...,
    check: Callable[[Any], bool] | None = None,
    expected: str = "",
) -> Any:
    path = f"{where}.{key}" if where else key
    if key not in data:
        if default is ...:
            raise SuiteError(src, path, f"{expected or kind} (missing key)")
        return default
    v = data[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    bad_bool = isinstance(v, bool) and bool not in kinds  # TOML true is not a number here
    if bad_bool or not isinstance(v, kind) or (check is not None and not check(v)):
        raise SuiteError(src, path, expected or getattr(kind, "__name__", str(kind)), v)
    return v


def _suite_head(src: str, head: dict) -> tuple[str, float, int, int, str]:
    """The ``[suite]`` table's name, budget, repetitions, seed and reference."""
    name = _get(
        src,
        head,
        "name",
        "suite",
        str,
        check=lambda v: SUITE_NAME.fullmatch(v) is not None,
        expected="a file-name stem of at most 100 letters, digits, '.', '_' or '-' (no '/', "
        "not starting with '.')",
    )
    budget = _get(
        src,
        head,
        "budget_s",
        "suite",
        (int, float),
        DEFAULT_DEADLINE_S,
        check=lambda v: 0 < v <= MAX_DEADLINE_S,
        expected=f"a number of seconds in (0, {MAX_DEADLINE_S:g}]",
    )
    reps = _get(
        src,
        head,
        "repetitions",
        "suite",
        int,
        1,
        check=lambda v: v >= 1,
        expected="an integer >= 1",
    )
    seed = _get(src, head, "seed", "suite", int, 0, expected="an integer")
    reference = _get(src, head, "reference", "suite", str, "dp", expected="a solver name or 'none'")
    return name, budget, reps, seed, reference


def suite_from_dict(
    data: dict,
    *,
    source: str = "<suite>",
    base_dir: Path | None = None,
    limits: Limits | None = None,
) -> Suite:
    src = source
    base = base_dir or Path.cwd()
    limits = limits or Limits()
    _unknown(src, "", data, _TOP_KEYS)
    head = _get(src, data, "suite", "", dict, expected="a [suite] table")
    _unknown(src, "suite", head, _SUITE_KEYS)
    name, budget, reps, seed, reference = _suite_head(src, head)
    if reference != "none":
        _solver_known(src, "suite.reference", reference)
        _solver_loads(src, "suite.reference", reference)

    specs: list[dict[str, Any]] = []
    families: set[str] = set()
    raw_instances = _get(
        src, data, "instances", "", list, [], expected="a list of [[instances]] tables"
    )
    for i, spec in enumerate(raw_instances):
        where = f"instances[{i}]"
        if not isinstance(spec, dict):
            raise SuiteError(src, where, "a table")
        fam = _get(src, spec, "family", where, str, check=bool, expected="a non-empty string")
        if fam in families:
            raise SuiteError(src, f"{where}.family", "a family name used once", fam)
        families.add(fam)
        source_name = _get(
            src, spec, "source", where, str, expected="a problem source name or module:Class"
        )
        try:
            problem_source = get_source(source_name)
        except UnknownSourceError as exc:
            raise SuiteError(
                src, f"{where}.source", f"one of {', '.join(exc.known)}", source_name
            ) from exc
        except PluginError as exc:  # a module:Class that is not a problem source
            raise SuiteError(src, f"{where}.source", "a problem source", str(exc)) from exc
        ref = spec.get("reference", reference)
        if not isinstance(ref, str):
            raise SuiteError(src, f"{where}.reference", "a solver name or 'none'", ref)
        if ref != "none":
            _solver_known(src, f"{where}.reference", ref)
            _solver_loads(src, f"{where}.reference", ref)
        allowed = set(problem_source.keys) | {"family", "source", "reference"}
        _unknown(src, where, spec, allowed)
        specs.append({**spec, "reference": ref, "_where": where})
        # check now so that bad paths / values fail at load, not in the middle of a run
        try:
            problem_source.check(spec, base, SourceLimits(limits.max_window, limits.max_seeds))
        except SourceError as exc:
            raise SuiteError(src, f"{where}.{exc.key}", exc.expected, exc.got) from exc

    solvers: list[SolverSpec] = []
    raw_solvers = _get(src, data, "solvers", "", list, [], expected="a list of [[solvers]] tables")
    # the cell cap holds before any grid is expanded: a grid of a million solver ids is refused
    # by counting, not by building them
    grid_ids = sum(_grid_size(s) for s in raw_solvers)
    if grid_ids > limits.max_cells:
        raise SuiteError(
            src,
            "solvers",
            f"at most {limits.max_cells:,} solver ids in all parameter grids (raise it with "
            "--max-cells)",
            f"{grid_ids:,} ids",
        )
    for i, s in enumerate(raw_solvers):
        solvers += _solver_table(src, f"solvers[{i}]", s, families)
    ids = [s.id for s in solvers]
    dup = next((x for x in ids if ids.count(x) > 1), None)
    if dup:
        raise SuiteError(src, "solvers", "each solver id once", dup)

    scenarios: list[tuple[Scenario, tuple[str, ...]]] = []
    raw_sims = _get(
        src, data, "simulations", "", list, [], expected="a list of [[simulations]] tables"
    )
    for i, sc in enumerate(raw_sims):
        scen, pols = _scenario(src, f"simulations[{i}]", sc, base)
        if scen.name in {other.name for other, _ in scenarios}:
            raise SuiteError(
                src, f"simulations[{i}].name", "a simulation name used once", scen.name
            )
        scenarios.append((scen, pols))

    if not specs and not scenarios:
        raise SuiteError(
            src, "suite", "at least one [[instances]] table or one [[simulations]] table"
        )
    if specs and not solvers:
        raise SuiteError(src, "solvers", "at least one [[solvers]] table for the [[instances]]")
    cells = reps * (
        sum(
            _instance_count(spec, base)
            * sum(1 for sv in solvers if sv.families is None or spec["family"] in sv.families)
            for spec in specs
        )
        + sum(len(pols) for _scen, pols in scenarios)
    )
    if cells == 0:
        raise SuiteError(
            src, "suite", "at least one cell (every family's solvers filter it out)", "0 cells"
        )
    if cells > limits.max_cells:
        raise SuiteError(
            src,
            "suite",
            f"at most {limits.max_cells:,} cells (instances x solvers x repetitions + "
            "simulations x policies x repetitions; raise it with --max-cells)",
            f"{cells:,} cells",
        )
    return Suite(
        name,
        src,
        head.get("description", ""),
        float(budget),
        reps,
        seed,
        reference,
        tuple(specs),
        tuple(solvers),
        tuple(scenarios),
        base,
    )


def _solver_table(src: str, where: str, s: Any, families: set[str]) -> list[SolverSpec]:
    """One ``[[solvers]]`` table: a solver id per combination of its parameter grid."""
    if not isinstance(s, dict):
        raise SuiteError(src, where, "a table")
    _unknown(src, where, s, _SOLVER_KEYS)
    sname = _get(src, s, "name", where, str, check=bool, expected="a solver name")
    _solver_known(src, f"{where}.name", sname)
    params = _get(src, s, "params", where, dict, {}, expected="a table of parameters")
    fams = _get(src, s, "families", where, list, None, expected="a list of family names")
    for f in fams or ():
        if not isinstance(f, str) or f not in families:
            raise SuiteError(
                src,
                f"{where}.families",
                f"families of this suite ({', '.join(sorted(families))})",
                f,
            )
    isolate = _get(src, s, "isolate", where, bool, False, expected="true or false")
    out = []
    for combo in _grid(params):
        try:
            out.append(
                make_solver_spec(
                    sname, combo, families=tuple(fams) if fams else None, isolate=isolate
                )
            )
        except SolverParameterError as exc:
            raise SuiteError(
                src, f"{where}.params", "parameters the solver accepts", str(exc)
            ) from exc
    return out


def _scenario(src: str, where: str, sc: Any, base: Path) -> tuple[Scenario, tuple[str, ...]]:
    """One ``[[simulations]]`` table: its policies name its core (or ``core`` does), the core
    checks the rest (``SimulationCore.check``), each ``POLICY:SOLVER`` names a solver of the
    core's kind, and the core checks the policies against the options."""
    if not isinstance(sc, dict):
        raise SuiteError(src, where, "a table")
    name = _get(src, sc, "name", where, str, check=bool, expected="a non-empty string")
    pols = _get(
        src,
        sc,
        "policies",
        where,
        list,
        check=bool,
        expected='a non-empty list such as ["naive", "window:dp"]',
    )
    if len(set(map(str, pols))) != len(pols):
        raise SuiteError(src, f"{where}.policies", "each policy once", pols)
    for j, pol in enumerate(pols):
        if not isinstance(pol, str) or not pol:
            raise SuiteError(
                src, f"{where}.policies[{j}]", "'POLICY' or 'POLICY:SOLVER[params]'", pol
            )
    core = _scenario_core(src, where, sc, pols)
    raw = {k: v for k, v in sc.items() if k not in ("name", "policies", "core")}
    raw.setdefault("system", "")
    try:
        spec = core.check(raw, base_dir=base)
    except SpecError as exc:
        raise SuiteError(src, f"{where}.{exc.key}", exc.expected, exc.got) from exc
    parsed = [split_policy(p) for p in pols]
    for j, (pol_name, solver_id) in enumerate(parsed):
        _check_policy(src, f"{where}.policies[{j}]", core, pols[j], pol_name, solver_id)
    for key in getattr(core, "solver_options", ()):
        if key in spec.policy_options:
            _check_solver_id(
                src, f"{where}.policy_options.{key}", core, str(spec.policy_options[key])
            )
    try:
        core.check_policies(spec, parsed)
    except SpecError as exc:
        raise SuiteError(src, f"{where}.{exc.key}", exc.expected, exc.got) from exc
    return Scenario(name, spec), tuple(pols)


def _scenario_core(src: str, where: str, sc: dict, pols: list[str]) -> SimulationCore:
    """The core of a scenario: ``core`` when given, else the first policy's; every policy must
    be one of its own."""
    named = sc.get("core")
    if named is not None and not isinstance(named, str):
        raise SuiteError(src, f"{where}.core", f"one of {', '.join(known_cores())}", named)
    try:
        core = get_core(named) if named else core_of_policy(split_policy(pols[0])[0])
    except UnknownNameError as exc:
        key = f"{where}.core" if named else f"{where}.policies[0]"
        raise SuiteError(src, key, f"a known {exc.what}", str(exc)) from exc
    except SpecError as exc:  # a policy name two cores share
        raise SuiteError(src, f"{where}.core", exc.expected, pols[0]) from exc
    for j, pol in enumerate(pols):
        if not core.owns(split_policy(pol)[0]):
            raise SuiteError(
                src,
                f"{where}.policies[{j}]",
                f"a policy of core {core.name!r} ({', '.join(core.policies())})",
                pol,
            )
    return core


def _check_policy(
    src: str, where: str, core: SimulationCore, text: str, name: str, solver_id: str | None
) -> None:
    try:
        use = core.policy(name).solver
    except SchedbenchError as exc:
        raise SuiteError(src, where, "a registered policy", str(exc)) from exc
    if solver_id is None and use == "required":
        raise SuiteError(src, where, f"'{name}:SOLVER' (policy {name!r} needs a solver)", text)
    if solver_id is not None:
        if use == "none":
            raise SuiteError(src, where, f"'{name}' alone (it takes no solver)", text)
        _check_solver_id(src, where, core, solver_id)


def _check_solver_id(src: str, where: str, core: SimulationCore, solver_id: str) -> None:
    """A registered solver (and its parameters) that answers the core's problem kind."""
    try:
        n, prm = parse_solver_id(solver_id)
        spec = make_solver_spec(n, prm)
    except (SolverParameterError, UnknownSolverError) as exc:
        raise SuiteError(src, where, "a registered solver and its parameters", str(exc)) from exc
    if core.kind not in spec.kinds:
        raise SuiteError(
            src, where, f"a solver of the {core.kind} kind (core {core.name!r})", solver_id
        )


def _instance_count(spec: dict[str, Any], base: Path) -> int:
    """How many problems an [[instances]] table expands into, without building them."""
    return get_source(spec["source"]).count(spec, base)


def _solver_known(src: str, where: str, name: str) -> None:
    if ":" in name:
        return  # module:Class, checked when instantiated
    if name not in registry.known_solvers():
        raise SuiteError(
            src, where, f"a registered solver ({', '.join(registry.known_solvers())})", name
        )


def _grid_size(table: Any) -> int:
    """How many solver ids a ``[[solvers]]`` table's parameter grid expands into (1 for a
    malformed table: the table check reports it)."""
    params = table.get("params") if isinstance(table, dict) else None
    if not isinstance(params, dict):
        return 1
    return math.prod(len(v) if isinstance(v, list) else 1 for v in params.values())


def _solver_loads(src: str, where: str, name: str) -> None:
    """A ``module:Class`` reference names a solver class (``os:system`` is refused at load)."""
    if ":" not in name:
        return
    try:
        make_solver_spec(name, {})
    except SchedbenchError as exc:
        raise SuiteError(src, where, "a solver class (module:Class)", str(exc)) from exc


def _grid(params: dict[str, Any]) -> Iterator[dict[str, Any]]:
    keys = sorted(params)
    values = [params[k] if isinstance(params[k], list) else [params[k]] for k in keys]
    for combo in itertools.product(*values):
        yield dict(zip(keys, combo, strict=True))
