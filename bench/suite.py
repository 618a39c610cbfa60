"""Declarative suites: a TOML file expands into a matrix of cells.

A suite compares solvers at two levels (DESIGN.md):

* **decision cells** — one solver on one decision problem (open loop): quality against the exact
  reference, latency against the budget;
* **simulation cells** — one policy (a solver in BBSched's window, or the naive baseline) on one
  trace-driven scenario (closed loop): usage, wait, slowdown, decision latency.

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

    [[simulations]]                # closed-loop scenarios
    name = "theta-s4"
    workload = "lublin:jobs=3000,nodes=4392,seed=1+bbsched:S4,seed=1+arrivals:2"
    system = "theta"               # preset or TOML machine file (relative to the suite file)
    priority = "wfp"               # fcfs | wfp
    backfill = "easy"              # easy | conservative | none
    lifecycle = "classic"
    window = 20
    policies = ["naive", "window:dp", "window:ga", "window:cpsat[time_limit_s=5]"]
    warmup_s = 0
    cooldown_s = 0

``SOURCES``: ``theta-window``, ``cori-window`` (BBSched windows; keys ``w``, ``seeds``,
``bb_share``, ``max_bb_gb``, ``min_nodes``, ``free_range``), ``cerberus-run`` (``w``, ``seeds``,
``free_range``), ``cerberus-stage`` (``w``, ``seeds``, ``objective`` = data | count),
``problem-files`` (``paths``: globs of PROBLEM.json), ``mknap`` (``path``: OR-Library file; the
reported optima are the references), ``zitzler-thiele`` (``path`` and optionally ``front``, the
published exact front used as the reference), ``recorded`` (``path``: a decision log written by
``schedbench simulate --record-decisions``; ``limit``, ``every``).

Relative paths are resolved against the suite file's folder.
"""

from __future__ import annotations

import glob
import hashlib
import itertools
import json
import math
import re
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schedbench.instances.workloads import check_workload_spec
from schedbench.simcore.errors import SchedbenchError, SolverParameterError, UnknownSolverError
from schedbench.simcore.problem import Budget, Decision, ParetoPoint, SelectionProblem, Status
from schedbench.solvers import registry


class SuiteError(SchedbenchError, ValueError):
    """A suite file that cannot be used; the message names file, key path and expectation."""

    def __init__(self, source: str, where: str, expected: str, got: Any = None):
        self.source, self.where, self.expected = source, where, expected
        got_text = "" if got is None else f", got {got!r}"
        super().__init__(f"{source}: {where}: expected {expected}{got_text}")


# ---------------------------------------------------------------------- data
@dataclass(frozen=True, slots=True)
class Instance:
    """One decision problem of a family, with an exact reference when its source has one."""

    family: str
    label: str
    problem: SelectionProblem
    reference: Decision | None = None
    context: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SolverSpec:
    name: str
    params: tuple[tuple[str, Any], ...]
    id: str
    families: tuple[str, ...] | None = None
    isolate: bool = False


@dataclass(frozen=True, slots=True)
class DecisionCell:
    family: str
    instance: str
    solver: SolverSpec
    repetition: int
    seed: int
    budget_s: float

    @property
    def cell_id(self) -> str:
        return _hash(
            [
                "decision",
                self.family,
                self.instance,
                self.solver.id,
                self.repetition,
                self.seed,
                self.budget_s,
            ]
        )


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    workload: str
    system: str
    priority: str = "fcfs"
    backfill: str = "easy"
    lifecycle: str = "classic"
    window: int = 20
    starvation_bound: int = 50
    warmup_s: float = 0.0
    cooldown_s: float = 0.0


@dataclass(frozen=True, slots=True)
class SimulationCell:
    scenario: Scenario
    policy: str  # "naive" or "window:<solver id>"
    solver: SolverSpec | None
    repetition: int
    seed: int
    budget_s: float

    @property
    def cell_id(self) -> str:
        return _hash(
            [
                "simulation",
                self.scenario.name,
                self.scenario.workload,
                self.scenario.system,
                self.scenario.priority,
                self.scenario.backfill,
                self.scenario.lifecycle,
                self.scenario.window,
                self.policy,
                self.repetition,
                self.seed,
                self.budget_s,
            ]
        )


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


def _hash(parts: list[Any]) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:16]


# ---------------------------------------------------------------------- solver ids
_ID = re.compile(r"^([A-Za-z0-9_.:\-]+?)(?:\[(.*)\])?$")


def parse_solver_id(text: str) -> tuple[str, dict[str, str]]:
    """``cpsat[time_limit_s=5,workers=2]`` → ("cpsat", {"time_limit_s": "5", "workers": "2"})."""
    m = _ID.match(text.strip())
    if not m:
        raise SolverParameterError(f"{text!r}: expected NAME or NAME[key=value,...]")
    params = registry.parse_assignments([p for p in (m.group(2) or "").split(",") if p.strip()])
    return m.group(1), params


def make_solver_spec(
    name: str,
    params: dict[str, Any],
    *,
    families: tuple[str, ...] | None = None,
    isolate: bool = False,
) -> SolverSpec:
    """Validate by instantiating once (unknown solver or parameter raises); the id is the
    solver's own (name + non-default parameters)."""
    solver = registry.make_solver(name, params)
    ident = getattr(solver, "id", name)
    return SolverSpec(name, tuple(sorted(params.items())), ident, families, isolate)


def build_solver(spec: SolverSpec) -> Any:
    return registry.make_solver(spec.name, dict(spec.params))


# ---------------------------------------------------------------------- loading
_SUITE_KEYS = {"name", "description", "budget_s", "repetitions", "seed", "reference"}
_TOP_KEYS = {"suite", "instances", "solvers", "simulations"}
_SOLVER_KEYS = {"name", "params", "families", "isolate"}
_SIM_KEYS = {
    "name",
    "workload",
    "system",
    "priority",
    "backfill",
    "lifecycle",
    "window",
    "starvation_bound",
    "policies",
    "warmup_s",
    "cooldown_s",
}


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on what one suite may ask for, checked at load before anything is built, so a
    typo such as ``w = 1e9`` or ``seeds = 1000000000`` is an error naming the key, not an
    out-of-memory kill an hour later. Raise them explicitly (``schedbench run --max-cells N
    --max-window W``) for a suite that really needs more."""

    max_cells: int = 100_000
    max_window: int = 100_000
    max_seeds: int = 10_000


#: A suite file is a few kilobytes; anything this large is not one.
MAX_SUITE_BYTES = 4 * 2**20


def load_suite(path: str | Path, *, limits: Limits | None = None) -> Suite:
    p = Path(path)
    src = str(p)
    try:
        if p.is_dir():
            raise SuiteError(src, "file", "a suite .toml file, not a directory")
        if p.exists() and p.stat().st_size > MAX_SUITE_BYTES:
            raise SuiteError(src, "file", f"a suite file under {MAX_SUITE_BYTES // 2**20} MiB")
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SuiteError(src, "file", "an existing suite file") from None
    except UnicodeDecodeError as exc:
        raise SuiteError(src, "file", f"UTF-8 text (byte {exc.start} is not)") from None
    except OSError as exc:
        raise SuiteError(src, "file", f"a readable file ({exc.strerror or exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise SuiteError(src, "syntax", f"valid TOML ({exc})") from None
    except RecursionError:
        raise SuiteError(src, "syntax", "TOML nested at most a few levels deep") from None
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


def _choice(
    src: str, data: dict, where: str, key: str, default: str, options: tuple[str, ...]
) -> str:
    expected = ", ".join(options[:-1]) + f" or {options[-1]}"
    return _get(
        src, data, key, where, str, default, check=lambda v: v in options, expected=expected
    )


def _at_least(
    src: str,
    data: dict,
    where: str,
    key: str,
    default: Any,
    kind: type | tuple,
    lo: float,
    expected: str,
) -> Any:
    return _get(src, data, key, where, kind, default, check=lambda v: v >= lo, expected=expected)


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
    name = _get(src, head, "name", "suite", str, check=bool, expected="a non-empty string")
    budget = _get(
        src,
        head,
        "budget_s",
        "suite",
        (int, float),
        15.0,
        check=lambda v: 0 < v <= 30,
        expected="a number of seconds in (0, 30]",
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
    if reference != "none":
        _solver_known(src, "suite.reference", reference)

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
        kind = _get(src, spec, "source", where, str, expected=f"one of {', '.join(SOURCES)}")
        if kind not in SOURCES:
            raise SuiteError(src, f"{where}.source", f"one of {', '.join(SOURCES)}", kind)
        ref = spec.get("reference", reference)
        if not isinstance(ref, str):
            raise SuiteError(src, f"{where}.reference", "a solver name or 'none'", ref)
        if ref != "none":
            _solver_known(src, f"{where}.reference", ref)
        allowed = SOURCES[kind].keys | {"family", "source", "reference"}
        _unknown(src, where, spec, allowed)
        specs.append({**spec, "reference": ref, "_where": where})
        # build now so that bad paths / values fail at load, not in the middle of a run
        _check_source(src, where, kind, spec, base, limits)

    solvers: list[SolverSpec] = []
    for i, s in enumerate(
        _get(src, data, "solvers", "", list, [], expected="a list of [[solvers]] tables")
    ):
        where = f"solvers[{i}]"
        if not isinstance(s, dict):
            raise SuiteError(src, where, "a table")
        _unknown(src, where, s, _SOLVER_KEYS)
        sname = _get(src, s, "name", where, str, check=bool, expected="a solver name")
        _solver_known(src, f"{where}.name", sname)
        params = _get(src, s, "params", where, dict, {}, expected="a table of parameters")
        fams = _get(src, s, "families", where, list, None, expected="a list of family names")
        if fams is not None:
            for f in fams:
                if f not in families:
                    raise SuiteError(
                        src,
                        f"{where}.families",
                        f"families of this suite ({', '.join(sorted(families))})",
                        f,
                    )
        isolate = _get(src, s, "isolate", where, bool, False, expected="true or false")
        for combo in _grid(params):
            try:
                solvers.append(
                    make_solver_spec(
                        sname, combo, families=tuple(fams) if fams else None, isolate=isolate
                    )
                )
            except SolverParameterError as exc:
                raise SuiteError(
                    src, f"{where}.params", "parameters the solver accepts", str(exc)
                ) from None
    ids = [s.id for s in solvers]
    dup = next((x for x in ids if ids.count(x) > 1), None)
    if dup:
        raise SuiteError(src, "solvers", "each solver id once", dup)

    scenarios: list[tuple[Scenario, tuple[str, ...]]] = []
    for i, sc in enumerate(
        _get(src, data, "simulations", "", list, [], expected="a list of [[simulations]] tables")
    ):
        where = f"simulations[{i}]"
        if not isinstance(sc, dict):
            raise SuiteError(src, where, "a table")
        _unknown(src, where, sc, _SIM_KEYS)
        system = _get(
            src, sc, "system", where, str, expected="a preset name or a machine .toml file"
        )
        if system.endswith(".toml") and not Path(system).is_absolute():
            system = str((base / system).resolve())
        workload = _get(src, sc, "workload", where, str, expected="an SWF path or a generator spec")
        first = workload.split("+")[0]
        if first.endswith((".swf", ".gz")) and not Path(first).is_absolute():
            workload = str((base / first).resolve()) + workload[len(first) :]
        try:  # its form, not its content: nothing is generated or read at load
            check_workload_spec(workload)
        except SchedbenchError as exc:
            raise SuiteError(
                src, f"{where}.workload", "a workload spec schedbench can load", str(exc)
            ) from None
        try:  # a preset name, or a machine file read now (it is small)
            from schedbench.instances.systems import resolve_system

            resolve_system(system)
        except SchedbenchError as exc:
            raise SuiteError(
                src, f"{where}.system", "a preset or a machine .toml file", str(exc)
            ) from None

        scen = Scenario(
            name=_get(src, sc, "name", where, str, check=bool, expected="a non-empty string"),
            workload=workload,
            system=system,
            priority=_choice(src, sc, where, "priority", "fcfs", ("fcfs", "wfp")),
            backfill=_choice(src, sc, where, "backfill", "easy", ("easy", "conservative", "none")),
            lifecycle=_choice(src, sc, where, "lifecycle", "classic", ("classic", "three-phase")),
            window=_at_least(src, sc, where, "window", 20, int, 1, "an integer >= 1"),
            starvation_bound=_at_least(
                src, sc, where, "starvation_bound", 50, int, 1, "an integer >= 1"
            ),
            warmup_s=float(_seconds(src, sc, where, "warmup_s")),
            cooldown_s=float(_seconds(src, sc, where, "cooldown_s")),
        )
        if scen.name in {other.name for other, _ in scenarios}:
            raise SuiteError(src, f"{where}.name", "a simulation name used once", scen.name)
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
            if not isinstance(pol, str) or not (pol == "naive" or pol.startswith("window:")):
                raise SuiteError(
                    src, f"{where}.policies[{j}]", "'naive' or 'window:SOLVER[params]'", pol
                )
            if pol != "naive":
                try:
                    n, prm = parse_solver_id(pol.removeprefix("window:"))
                    make_solver_spec(n, prm)
                except (SolverParameterError, UnknownSolverError) as exc:
                    raise SuiteError(
                        src,
                        f"{where}.policies[{j}]",
                        "a registered solver and its parameters",
                        str(exc),
                    ) from None
        scenarios.append((scen, tuple(pols)))

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


def _seconds(src: str, data: dict, where: str, key: str) -> float:
    return _get(
        src,
        data,
        key,
        where,
        (int, float),
        0.0,
        check=lambda v: math.isfinite(v) and v >= 0,
        expected="a finite number of seconds >= 0",
    )


def _instance_count(spec: dict[str, Any], base: Path) -> int:
    """How many problems an [[instances]] table expands into, without building them (window
    sources: the product of its grid sizes; file sources: one per file, a lower bound)."""
    kind = spec["source"]
    if kind == "problem-files":
        return sum(len(glob.glob(str(base / pattern))) for pattern in spec["paths"])
    if kind in ("mknap", "zitzler-thiele", "recorded"):
        return 1
    n = len(_seeds(spec.get("seeds", 1)))
    w = spec.get("w", [20])
    n *= len(w) if isinstance(w, list) else 1
    for key in SOURCES[kind].keys - {"w", "seeds"}:
        v = spec.get(key)
        if key == "free_range":
            n *= len(v) if isinstance(v, list) and v and isinstance(v[0], list) else 1
        elif isinstance(v, list):
            n *= len(v)
    return n


def _solver_known(src: str, where: str, name: str) -> None:
    if ":" in name:
        return  # module:Class, checked when instantiated
    if name not in registry.known_solvers():
        raise SuiteError(
            src, where, f"a registered solver ({', '.join(registry.known_solvers())})", name
        )


def _grid(params: dict[str, Any]) -> Iterator[dict[str, Any]]:
    keys = sorted(params)
    values = [params[k] if isinstance(params[k], list) else [params[k]] for k in keys]
    for combo in itertools.product(*values):
        yield dict(zip(keys, combo, strict=True))


# ---------------------------------------------------------------------- instance sources
@dataclass(frozen=True, slots=True)
class Source:
    keys: set[str]
    build: Callable[
        [dict[str, Any], Path], Iterator[tuple[str, SelectionProblem, Decision | None, dict]]
    ]


def _seeds(v: Any) -> list[int]:
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


def _windows(fn_name: str, machine: str | None, extra: tuple[str, ...]):
    def build(spec: dict[str, Any], base: Path):
        from schedbench.instances import systems, windows

        fn = getattr(windows, fn_name)
        ws = spec.get("w", [20])
        ws = ws if isinstance(ws, list) else [ws]
        for kw in _gridded(spec, extra):
            for w in ws:
                for seed in _seeds(spec.get("seeds", 1)):
                    args = dict(kw)
                    if machine:
                        args["machine"] = systems.PRESETS[machine]
                    problem = fn(int(w), int(seed), **args)
                    yield _label(spec["source"], {"w": w, "seed": seed, **kw}), problem, None, {}

    return build


def _problem_files(spec: dict[str, Any], base: Path):
    from schedbench.instances.problem_files import load_problem

    for pattern in spec["paths"]:
        for path in sorted(glob.glob(str(base / pattern))):
            yield Path(path).stem, load_problem(path), None, {"path": path}


def _mknap(spec: dict[str, Any], base: Path):
    from schedbench.instances.knapsack_files import read_mknap

    for known in read_mknap(base / spec["path"]):
        ref = Decision(
            status=Status.OPTIMAL, objectives=(float(known.optimum),), solver="published"
        )
        yield known.name, known.problem, ref, {}


def _zitzler_thiele(spec: dict[str, Any], base: Path):
    from schedbench.instances.knapsack_files import read_front, read_zitzler_thiele

    problem = read_zitzler_thiele(base / spec["path"])
    ref = None
    if "front" in spec:
        front = read_front(base / spec["front"])
        ref = Decision(
            status=Status.OPTIMAL,
            pareto=tuple(ParetoPoint((), tuple(map(float, v))) for v in front),
            objectives=tuple(map(float, front[0])),
            solver="published",
        )
    yield Path(spec["path"]).name, problem, ref, {}


def _recorded(spec: dict[str, Any], base: Path):
    from schedbench.instances.recorded import read_recorded

    limit = spec.get("limit")
    every = spec.get("every", 1)
    for k, (label, problem, context) in enumerate(read_recorded(base / spec["path"])):
        if k % every:
            continue
        if limit is not None and k // every >= limit:
            break
        yield label, problem, None, context


SOURCES: dict[str, Source] = {
    "theta-window": Source(
        {"w", "seeds", "bb_share", "max_bb_gb", "min_nodes", "free_range"},
        _windows("bb_window", "theta", ("bb_share", "max_bb_gb", "min_nodes", "free_range")),
    ),
    "cori-window": Source(
        {"w", "seeds", "bb_share", "max_bb_gb", "min_nodes", "free_range"},
        _windows("bb_window", "cori", ("bb_share", "max_bb_gb", "min_nodes", "free_range")),
    ),
    "cerberus-run": Source(
        {"w", "seeds", "free_range"}, _windows("cerberus_run_window", None, ("free_range",))
    ),
    "cerberus-stage": Source(
        {"w", "seeds", "objective"}, _windows("cerberus_stage_window", None, ("objective",))
    ),
    "problem-files": Source({"paths"}, _problem_files),
    "mknap": Source({"path"}, _mknap),
    "zitzler-thiele": Source({"path", "front"}, _zitzler_thiele),
    "recorded": Source({"path", "limit", "every"}, _recorded),
}


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
_SOURCE_VALUES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "bb_share": (lambda x: _is_number(x) and 0 <= x <= 1, "a share in [0, 1]"),
    "max_bb_gb": (lambda x: _is_number(x) and 1 <= x <= 1e9, "a number of GB in [1, 1e9]"),
    # the window generators draw job sizes from min_nodes up to 4,096 nodes
    "min_nodes": (lambda x: _is_int(x) and 1 <= x <= 4096, "an integer in 1..4096"),
    "objective": (lambda x: x in ("data", "count"), "'data' or 'count'"),
}


def _check_source(
    src: str, where: str, kind: str, spec: dict[str, Any], base: Path, limits: Limits
) -> None:
    for key in ("path", "front"):
        if key in spec:
            if not isinstance(spec[key], str) or not spec[key]:
                raise SuiteError(src, f"{where}.{key}", "a file path", spec[key])
            target = base / spec[key]
            if not target.is_file():
                raise SuiteError(src, f"{where}.{key}", "an existing file", spec[key])
    if kind in ("mknap", "zitzler-thiele", "recorded") and "path" not in spec:
        raise SuiteError(src, f"{where}.path", "a file path (missing key)")
    if kind == "problem-files":
        paths = spec.get("paths")
        if (
            not isinstance(paths, list)
            or not paths
            or not all(isinstance(x, str) and x for x in paths)
        ):
            raise SuiteError(src, f"{where}.paths", "a non-empty list of globs (strings)", paths)
    if "w" in spec:
        ws = spec["w"] if isinstance(spec["w"], list) else [spec["w"]]
        if not ws or not all(_is_int(x) and 1 <= x <= limits.max_window for x in ws):
            raise SuiteError(
                src,
                f"{where}.w",
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
            raise SuiteError(
                src,
                f"{where}.seeds",
                f"a count in 1..{limits.max_seeds:,} or a list of distinct non-negative integer "
                "seeds",
                s,
            )
    for key in ("limit", "every"):
        if key in spec and not (_is_int(spec[key]) and spec[key] >= 1):
            raise SuiteError(src, f"{where}.{key}", "an integer >= 1", spec[key])
    for key, (ok, expected) in _SOURCE_VALUES.items():
        if key in spec:
            values = spec[key] if isinstance(spec[key], list) else [spec[key]]
            if not values or not all(ok(v) for v in values):
                raise SuiteError(src, f"{where}.{key}", f"{expected} or a list of them", spec[key])
    if "free_range" in spec:
        v = spec["free_range"]
        pairs = v if isinstance(v, list) and v and isinstance(v[0], list) else [v]
        if not all(_is_range(x) for x in pairs):
            raise SuiteError(
                src,
                f"{where}.free_range",
                "[lo, hi] with 0 <= lo <= hi <= 1, or a list of such pairs",
                v,
            )


def expand_instances(suite: Suite) -> list[Instance]:
    """Build every decision problem of the suite (cheap: generators and small files)."""
    out: list[Instance] = []
    for spec in suite.instance_specs:
        kind = spec["source"]
        try:
            for label, problem, ref, ctx in SOURCES[kind].build(spec, suite.base_dir):
                out.append(Instance(spec["family"], label, problem, ref, ctx))
        except (SchedbenchError, ValueError) as exc:  # ValueError: a generator's own check
            files = [spec[k] for k in ("path", "front") if isinstance(spec.get(k), str)]
            files += [p for p in spec.get("paths", []) if isinstance(p, str)]
            raise SuiteError(
                suite.source,
                spec["_where"],
                "a buildable instance source",
                redact_outside(str(exc), files, suite.base_dir),
            ) from None
    return out


def redact_outside(message: str, paths: list[str], base: Path) -> str:
    """``message`` without the quoted content (``..., got CONTENT``) when one of ``paths`` lies
    outside the suite's folder: a suite may point at any file, but its errors must not become
    a way to print other files' contents (issue 11). Line numbers and expectations stay."""
    root = base.resolve()
    for p in paths:
        target = (base / p).resolve()
        if target != root and root not in target.parents:
            head, sep, _content = message.partition(", got ")
            return head + (
                ", got (content not shown: the file is outside the suite's folder)" if sep else ""
            )
    return message


def reference_solver(suite: Suite, family: str) -> str:
    for spec in suite.instance_specs:
        if spec["family"] == family:
            return spec["reference"]
    return suite.reference


def decision_cells(suite: Suite, instances: list[Instance]) -> list[DecisionCell]:
    cells = []
    for inst in instances:
        for solver in suite.solvers:
            if solver.families is not None and inst.family not in solver.families:
                continue
            for rep in range(suite.repetitions):
                cells.append(
                    DecisionCell(
                        inst.family, inst.label, solver, rep, suite.seed + rep, suite.budget_s
                    )
                )
    return cells


def simulation_cells(suite: Suite) -> list[SimulationCell]:
    cells = []
    for scen, pols in suite.scenarios:
        for pol in pols:
            spec = None
            if pol != "naive":
                n, prm = parse_solver_id(pol.removeprefix("window:"))
                spec = make_solver_spec(n, prm)
            for rep in range(suite.repetitions):
                cells.append(SimulationCell(scen, pol, spec, rep, suite.seed + rep, suite.budget_s))
    return cells


def budget(cell: DecisionCell | SimulationCell) -> Budget:
    return Budget(deadline_s=cell.budget_s, seed=cell.seed)
