"""Simulation cores as plug-ins: the unit that ``simulate``, suites, ``report``, ``compare`` and
``plot`` talk to, whatever event loop runs inside (docs/design.md#simulation-cores).

A core owns an event loop and its policies. It

1. **checks** its part of a spec — the workload's and the machine's *form*, its own keys, the
   policy options — before any workload is read (:meth:`SimulationCore.check`);
2. **loads** the workload and the machine (:meth:`SimulationCore.load`);
3. **runs** a policy of its own, which poses its decisions as problems of the core's ``kind`` to
   whatever solver the caller lends it (:meth:`SimulationCore.run`);
4. **describes** its metrics (``metrics``: the catalogue reads them) and how a report compares
   its runs (``baseline``, ``leaderboard``, ``kiviat``);
5. **writes** its outputs (:meth:`SimulationCore.write`): per-job records in the common schema
   (:data:`JOB_COLUMNS`, any order, plus the core's own columns) in ``jobs.csv``, and
   ``metrics.json`` (``metrics``, ``config`` with the ``core`` and its ``unit``, ``system``).

Cores register under the entry-point group ``schedbench.cores`` (the one registry of
``simcore/plugins.py``), the built-ins exactly as a third-party core would, or in-process with
:func:`register_core`. The policy names the core (:func:`core_of_policy`); a policy name two
cores share needs the core named too.

The protocol lives here; the built-in cores join simcore's event loops with instances' workload
readers, so they live in ``instances/cores/``. A core that needs solvers beyond the one it is
lent (a default, one per queue) asks ``RunHooks.solvers`` for them by id: simcore and instances
import no solver.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import IO, Any, ClassVar, Literal

import numpy as np

from schedbench.simcore.errors import SchedbenchError, UnknownNameError, UnknownPolicyError
from schedbench.simcore.metric_spec import MetricSpec
from schedbench.simcore.plugins import PluginError, Registry, named_subclass, object_ref
from schedbench.simcore.problem import Budget
from schedbench.simcore.safeio import atomic_write, atomic_write_text, ensure_dir

GROUP = "schedbench.cores"

#: The per-job columns every core writes to ``jobs.csv`` (any order; more columns may follow):
#: the job's id, its submission, the start and end of its hold on the core's units (NaN where it
#: never happened; an empty cell in the file), the units it held (``nodes``: nodes, cores or
#: PEs, as ``metrics.json``'s ``config.unit`` says) and its final state.
JOB_COLUMNS: tuple[str, ...] = ("id", "submit", "start", "end", "nodes", "status")

#: Optional common columns that pictures and reports read when a core has them.
OPTIONAL_COLUMNS: tuple[str, ...] = (
    "user",
    "bb_gb",
    "first_alloc",
    "last_release",
    "deadline",
    "reserved_start",
    "placement",
)


class UnknownCoreError(UnknownNameError):
    what = "simulation core"


class SpecError(SchedbenchError, ValueError):
    """A key of a simulation spec with a wrong value: ``key`` names it, ``expected`` says what
    would do (a suite adds its file and table path, the command line its option)."""

    def __init__(self, key: str, expected: str, got: Any = None):
        self.key, self.expected, self.got = key, expected, got
        got_text = "" if got is None else f", got {got!r}"
        super().__init__(f"{key}: expected {expected}{got_text}")


# ---------------------------------------------------------------------------------------------
# What a core declares and hands back
# ---------------------------------------------------------------------------------------------
SolverUse = Literal["required", "optional", "none"]


@dataclass(frozen=True, slots=True)
class PolicyInfo:
    """One policy of a core: its name, one line on what it does, the options it takes, and
    whether it decides with a solver (``required``, ``optional``: it has a rule of its own or
    a default solver, ``none``)."""

    name: str
    summary: str
    options: tuple[str, ...] = ()
    solver: SolverUse = "none"


@dataclass(frozen=True, slots=True)
class Key:
    """A spec key of a core: its default and what a value must be. ``check`` returns the value
    (converted) or raises :class:`SpecError`; None takes any value."""

    name: str
    default: Any
    help: str
    check: Callable[[Any], Any] | None = None


@dataclass(frozen=True, slots=True)
class CoreSpec:
    """A simulation scenario as its core checked it: the workload and machine specs and every
    key of the core, defaults filled in (sorted)."""

    core: str
    workload: str
    system: str
    options: tuple[tuple[str, Any], ...] = ()

    def get(self, key: str, default: Any = None) -> Any:
        return dict(self.options).get(key, default)

    @property
    def policy_options(self) -> dict[str, Any]:
        return dict(self.get("policy_options", ()) or ())


@dataclass(frozen=True, slots=True)
class RunHooks:
    """What a caller lends one run: the decision budget, the solver the policy decides with
    (None: the policy's own rule or default), ``solvers`` (a solver id -> a warmed-up solver, for
    the solvers a core picks itself), and observers."""

    budget: Budget = field(default_factory=Budget)
    solver: Any = None
    solvers: Callable[[str], Any] | None = None
    progress: Callable[[int, int], None] | None = None
    decision_log: Callable[[dict[str, Any]], None] | None = None
    record: Callable[[Any, dict[str, Any]], None] | None = None
    on_invalid: str = "raise"

    def solver_by_id(self, ident: str) -> Any:
        if self.solvers is None:
            raise SpecError("solver", f"a solver object for {ident!r} (no solver factory given)")
        return self.solvers(ident)


@dataclass(frozen=True, slots=True)
class JobTable:
    """Per-job records: ``columns`` holds the common ones (:data:`JOB_COLUMNS`; ``status`` as
    text), optional common ones and the core's own; ``unit`` says what ``nodes`` counts;
    ``total`` the machine's units when known (0: what the jobs used); ``blocks`` the placement
    a core recorded (per job, ``(first unit, count)`` blocks), else None."""

    columns: Mapping[str, np.ndarray]
    unit: str = "node"
    total: int = 0
    blocks: list[list[tuple[int, int]]] | None = None
    placement: str = "placed lowest-numbered first"

    def __post_init__(self) -> None:
        missing = [c for c in ("submit", "start", "end", "nodes") if c not in self.columns]
        if missing:
            raise PluginError(f"job table: expected the column {missing[0]!r}")
        sizes = {len(v) for v in self.columns.values()}
        if len(sizes) > 1:
            raise PluginError(f"job table: columns of different lengths {sorted(sizes)}")
        object.__setattr__(self, "columns", MappingProxyType(dict(self.columns)))

    def __len__(self) -> int:
        return len(self.columns["submit"])


@dataclass(slots=True)
class CoreRun:
    """One run of a core: what ran (``policy``: its label, e.g. ``window[dp,w=20]+easy``), the
    engine's own ``result``, the per-job records, the metrics (numbers, None where undefined),
    counters, the configuration for ``metrics.json`` and further sections of it (``extra``),
    and what ``simulate`` shows the person who ran it: ``summary`` lines before the metrics,
    ``details`` after, ``notes`` and ``warnings`` on stderr. ``error`` is what stopped the run
    (the records then hold what was computed)."""

    core: str
    policy: str
    result: Any
    jobs: JobTable
    metrics: dict[str, Any]
    counters: dict[str, Any] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    wall_s: float = 0.0
    summary: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    error: BaseException | None = None


@dataclass(frozen=True, slots=True)
class JobFormat:
    """A per-job file a core's other commands write (a reproduction's), that pictures can read:
    its name, who writes it, the columns that identify it, and ``read(path, rows, doc)`` ->
    :class:`JobTable` (``doc``: the folder's ``metrics.json``, or {})."""

    file: str
    writer: str
    columns: tuple[str, ...]
    read: Callable[[Path, list[dict[str, str]], dict[str, Any]], JobTable]

    def expected(self) -> str:
        return f"{self.file} with {', '.join(self.columns)} ({self.writer})"


# ---------------------------------------------------------------------------------------------
# The protocol
# ---------------------------------------------------------------------------------------------
class SimulationCore:
    """Base class of a simulation core (see the module docstring). A subclass sets the class
    attributes and writes :meth:`policies`, :meth:`policy`, :meth:`load`, :meth:`run`; the rest
    has defaults that fit most cores.

    Keys every core takes: ``workload``, ``system`` (may be empty: the core's default) and
    ``policy_options`` (a table of options for the policies that accept them); its own are
    ``keys``."""

    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    #: The problem kind its policies pose (``simcore/kinds/``); solvers of it may decide.
    kind: ClassVar[str] = ""
    #: What ``jobs.csv``'s ``nodes`` counts: ``node``, ``core``, ``PE``.
    unit: ClassVar[str] = "node"
    #: Its metrics (the catalogue gathers them).
    metrics: ClassVar[tuple[MetricSpec, ...]] = ()
    #: Its keys beyond workload, system and policy_options.
    keys: ClassVar[tuple[Key, ...]] = ()
    #: The keys a stored simulation cell records as its parameters (besides ``system``).
    record_keys: ClassVar[tuple[str, ...]] = ()
    #: The policy a report compares the others with (Kiviat charts), if the scenario ran it.
    baseline: ClassVar[str] = ""
    #: Metrics a report's simulation leaderboard shows (when some run has them), in order.
    leaderboard: ClassVar[tuple[str, ...]] = ()
    #: The few metrics of the terminal's compact leaderboard.
    compact: ClassVar[tuple[str, ...]] = ()
    #: Kiviat axes: (label, metric, True when lower is better).
    kiviat: ClassVar[tuple[tuple[str, str, bool], ...]] = ()
    #: Metrics ``simulate`` prints after a run, in order.
    headline: ClassVar[tuple[str, ...]] = ()
    #: Per-job files of the core's other commands that pictures can read.
    job_formats: ClassVar[tuple[JobFormat, ...]] = ()
    #: ``policy_options`` every policy of the core takes (the run's settings, not a policy's).
    shared_options: ClassVar[tuple[str, ...]] = ()

    # -- policies ------------------------------------------------------------------------------
    def policies(self) -> list[str]:
        """The names of its policies, sorted."""
        raise NotImplementedError(f"core {self.name!r} must implement policies")

    def policy(self, name: str) -> PolicyInfo:
        """What policy ``name`` (or ``module:Class``) is; raises the registry's errors."""
        raise NotImplementedError(f"core {self.name!r} must implement policy")

    def owns(self, name: str) -> bool:
        """Whether ``name`` is one of its policies (a ``module:Class`` of its protocol too)."""
        try:
            self.policy(name)
        except SchedbenchError:
            return False
        return True

    def default_policy(self, solver: bool) -> str:
        """The policy ``simulate`` runs when none is named (``solver``: one was given)."""
        return self.baseline

    # -- spec ----------------------------------------------------------------------------------
    def check(self, spec: Mapping[str, Any], *, base_dir: Path | None = None) -> CoreSpec:
        """``spec`` checked and completed: unknown keys, each key's value, then
        :meth:`check_spec` for what spans keys (the workload's form). Reads no workload."""
        known = {"workload", "system", "policy_options"} | {k.name for k in self.keys}
        unknown = sorted(set(spec) - known)
        if unknown:
            raise SpecError(unknown[0], f"a key of core {self.name!r} ({', '.join(sorted(known))})")
        workload = spec.get("workload")
        if not isinstance(workload, str) or not workload:
            raise SpecError(
                "workload", "a workload spec (a file, a dataset or a generator)", workload
            )
        system = spec.get("system") or ""
        if not isinstance(system, str):
            raise SpecError("system", "a machine spec (a preset or a file)", system)
        if base_dir is not None and system.endswith(".toml") and not Path(system).is_absolute():
            system = str((base_dir / system).resolve())  # a machine file next to the suite
        options: dict[str, Any] = {}
        for key in self.keys:
            value = spec.get(key.name, key.default)
            options[key.name] = key.check(value) if key.check and key.name in spec else value
        popts = spec.get("policy_options", {}) or {}
        if not isinstance(popts, Mapping):
            raise SpecError("policy_options", "a table of options", popts)
        options["policy_options"] = tuple(sorted(popts.items()))
        checked = CoreSpec(self.name, workload, system, tuple(sorted(options.items())))
        return self.check_spec(checked, base_dir)

    def check_spec(self, spec: CoreSpec, base_dir: Path | None) -> CoreSpec:
        """What spans keys: the workload's and the machine's form (paths made absolute against
        ``base_dir``), the policy options. Default: nothing more."""
        return spec

    def check_policies(self, spec: CoreSpec, policies: Sequence[tuple[str, str | None]]) -> None:
        """The scenario's policies (name, solver id or None) together with its options: by
        default, every policy option must be taken by one of the policies."""
        taken: set[str] = set(self.shared_options)
        for name, _solver in policies:
            taken.update(self.policy(name).options)
        unknown = sorted(k for k in spec.policy_options if k not in taken)
        if unknown:
            raise SpecError(
                f"policy_options.{unknown[0]}",
                f"an option one of the policies takes ({', '.join(sorted(taken)) or 'none'})",
            )

    def identity(self, spec: CoreSpec) -> dict[str, Any]:
        """What a scenario *is*, for content keys (stored cells are keyed by its hash): the
        workload, the machine and every key."""
        return {"workload": spec.workload, "system": spec.system, **dict(spec.options)}

    def record_params(self, spec: CoreSpec) -> dict[str, Any]:
        """The parameters a stored simulation cell records."""
        return {"system": spec.system, **{k: spec.get(k) for k in self.record_keys}}

    def describe(self, spec: CoreSpec) -> str:
        """A few words on the scenario's settings (``schedbench run --plan``)."""
        return ", ".join(f"{k}={spec.get(k)}" for k in self.record_keys) or self.name

    def workload_files(self, spec: CoreSpec) -> list[str]:
        """Files the workload spec reads (their content keys the scenario; errors about them
        are not quoted outside the suite's folder)."""
        first = spec.workload.split("+")[0]
        return [first] if ("/" in first or "." in Path(first).name) else []

    # -- running -------------------------------------------------------------------------------
    def load(self, spec: CoreSpec) -> Any:
        """The workload and machine of ``spec`` (read, generated, fitted)."""
        raise NotImplementedError(f"core {self.name!r} must implement load")

    def run(self, spec: CoreSpec, loaded: Any, policy: str, hooks: RunHooks) -> CoreRun:
        """Run ``policy`` (a name of :meth:`policies` or ``module:Class``) on ``loaded``."""
        raise NotImplementedError(f"core {self.name!r} must implement run")

    def write(
        self, run: CoreRun, out: Path, *, config: Mapping[str, Any] | None = None, full: bool = True
    ) -> list[str]:
        """Write the run's files to ``out`` (created); ``config`` is merged into
        ``metrics.json``'s ``config`` (the caller's provenance); ``full`` False leaves out what
        only a person reading one run needs (suite cells). Returns the file names. Default:
        ``jobs.csv`` and ``metrics.json``."""
        ensure_dir(out)
        write_jobs_csv(run.jobs, out / "jobs.csv")
        write_metrics_json(self, run, out / "metrics.json", config=config)
        return ["jobs.csv", "metrics.json"]


# ---------------------------------------------------------------------------------------------
# Writing the common files
# ---------------------------------------------------------------------------------------------
def cell(x: Any) -> str:
    """A number as ``jobs.csv`` writes it: empty for NaN, an integer without ``.0``, else up to
    six decimals."""
    if isinstance(x, str):
        return x
    x = float(x)
    if math.isnan(x):
        return ""
    return str(int(x)) if x == int(x) else f"{x:.6f}".rstrip("0").rstrip(".")


def placement_text(blocks: Iterable[tuple[int, int]]) -> str:
    """Blocks ``(first, count)`` as ``jobs.csv``'s ``placement``: ``40-42 45``."""
    return " ".join(f"{a}-{a + n - 1}" if n > 1 else f"{a}" for a, n in blocks if n > 0)


def parse_placement(text: str) -> list[tuple[int, int]]:
    """The inverse of :func:`placement_text`; raises ``ValueError`` on a malformed text."""
    out = []
    for part in text.split():
        lo, sep, hi = part.partition("-")
        a, b = int(lo), int(hi) if sep else int(lo)
        if b < a:
            raise ValueError(f"range {part!r} runs backwards")
        out.append((a, b - a + 1))
    return out


def write_jobs_csv(table: JobTable, path: Path) -> None:
    """``table`` as ``jobs.csv``, its columns in the table's order (``placement`` last, from
    ``blocks``); written to a temporary name, then renamed, so a reader never sees half a
    file."""
    cols = dict(table.columns)
    if table.blocks is not None and "placement" not in cols:
        cols["placement"] = np.array([placement_text(b) for b in table.blocks], dtype=object)
    names = list(cols)

    def write(fh: IO[str]) -> None:
        out = csv.writer(fh, lineterminator="\n")
        out.writerow(names)
        columns = [cols[c].tolist() for c in names]
        for row in zip(*columns, strict=True):
            out.writerow([cell(v) for v in row])

    atomic_write(path, write, text=True)


def write_metrics_json(
    core: SimulationCore,
    run: CoreRun,
    path: Path,
    *,
    config: Mapping[str, Any] | None = None,
    system: Mapping[str, Any] | None = None,
) -> None:
    """``metrics.json``: the metrics, their definitions, the counters, the configuration (with
    the ``core`` and its ``unit``) and the machine (``system``: ``node_groups`` and ``bb_gb`` as
    the pictures read them)."""
    from schedbench.simcore.metrics import SIMULATION_METRICS

    described = {m.name: m.definition for m in (*SIMULATION_METRICS, *core.metrics)}
    doc = {
        "metrics": run.metrics,
        "definitions": {k: described[k] for k in run.metrics if k in described},
        "counters": run.counters,
        "config": {
            "core": core.name,
            "unit": run.jobs.unit,
            "policy": run.policy,
            **run.config,
            **dict(config or {}),
        },
        "system": dict(system or {"node_groups": [{"count": run.jobs.total, "ssd_gb": 0.0}]}),
        **run.extra,
    }
    atomic_write_text(path, json.dumps(doc, indent=2, default=json_default, allow_nan=False) + "\n")


def json_default(x: Any) -> Any:
    if isinstance(x, np.generic):
        return x.item()
    raise TypeError(f"not JSON serialisable: {type(x).__name__}")


def finite_or_none(metrics: Mapping[str, Any]) -> dict[str, Any]:
    """Metrics with NaN and infinities as None (JSON has no NaN)."""
    out: dict[str, Any] = {}
    for k, v in metrics.items():
        if isinstance(v, (float, np.floating)) and not math.isfinite(float(v)):
            out[k] = None
        elif isinstance(v, np.generic):
            out[k] = v.item()
        else:
            out[k] = v
    return out


# ---------------------------------------------------------------------------------------------
# Placement of jobs on unit indices (pictures; cores that know their nodes)
# ---------------------------------------------------------------------------------------------
def units_in_use(
    start: np.ndarray, end: np.ndarray, units: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The units (nodes, cores, PEs) held over time, summed from the jobs' ``[start, end)``
    intervals, as the usage timeline's (t, (n, 4)) arrays (burst buffer and SSD columns 0)."""
    ran = np.isfinite(start)
    horizon = np.concatenate([start[ran], end[np.isfinite(end)]])
    last = float(horizon.max()) if horizon.size else 0.0
    stop = np.where(np.isfinite(end), end, last)[ran]
    times = np.concatenate([start[ran], stop])
    steps = np.concatenate([units[ran], -units[ran]])
    if not times.size:
        return np.zeros(0), np.zeros((0, 4))
    instants, at = np.unique(times, return_inverse=True)
    used = np.cumsum(np.bincount(at, weights=steps, minlength=instants.size))
    out = np.zeros((instants.size, 4))
    out[:, 0] = used
    return instants, out


def assign_nodes(
    start: np.ndarray, end: np.ndarray, nodes: np.ndarray, total: int
) -> list[list[tuple[int, int]]]:
    """For every job, the blocks ``(first node, count)`` it occupies: each job takes the
    lowest-numbered nodes free when it starts (releases at an instant come before starts).
    Jobs that never started get no block; a job running to the end of the run keeps its nodes."""
    n = len(start)
    blocks: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    started = np.flatnonzero(~np.isnan(start))
    known = np.concatenate([start, end])
    known = known[~np.isnan(known)]
    horizon = float(known.max()) if known.size else 0.0
    ends = np.where(np.isnan(end), horizon, end)
    # events: (time, 0 = release / 1 = start, job)
    events = sorted(
        [(float(ends[j]), 0, int(j)) for j in started]
        + [(float(start[j]), 1, int(j)) for j in started]
    )
    busy = np.zeros(max(total, int(np.nanmax(nodes, initial=0))), dtype=bool)
    held: dict[int, np.ndarray] = {}
    for _t, kind, j in events:
        if kind == 0:
            idx = held.pop(j, None)
            if idx is not None:
                busy[idx] = False
            continue
        k = int(nodes[j])
        free = np.flatnonzero(~busy)[:k]
        if free.size < k:  # an over-full picture (inconsistent input): grow the axis
            extra = np.arange(busy.size, busy.size + k - free.size)
            busy = np.concatenate([busy, np.zeros(extra.size, dtype=bool)])
            free = np.concatenate([free, extra])
        busy[free] = True
        held[j] = free
        cut = np.flatnonzero(np.diff(free) != 1) + 1
        blocks[j] = [(int(b[0]), int(b.size)) for b in np.split(free, cut) if b.size]
    return blocks


def blocks_within_groups(
    start: np.ndarray, end: np.ndarray, units: np.ndarray, group: np.ndarray, per_group: int
) -> list[list[tuple[int, int]]]:
    """Blocks of jobs that each ran inside one group of ``per_group`` units (a node's cores):
    within its group a job takes the lowest units free when it starts."""
    blocks: list[list[tuple[int, int]]] = [[] for _ in range(len(start))]
    for g in np.unique(group[group >= 0]):
        mine = np.flatnonzero(group == g)
        placed = assign_nodes(start[mine], end[mine], units[mine], per_group)
        for j, b in zip(mine, placed, strict=True):
            blocks[int(j)] = [(int(g) * per_group + first, count) for first, count in b]
    return blocks


# ---------------------------------------------------------------------------------------------
# Registry
# ---------------------------------------------------------------------------------------------
#: The simulation cores: entry points of ``schedbench.cores`` and in-process registrations.
CORES = Registry(
    GROUP,
    "simulation core",
    protocol="a SimulationCore subclass",
    check=named_subclass(SimulationCore),
    unknown=UnknownCoreError,
    example="my_pkg.core:MyCore",
)
_INSTANCES: dict[str, SimulationCore] = {}


def register_core(cls: type[SimulationCore], *, replace: bool = False) -> type[SimulationCore]:
    """Register a core class in this process (usable as a decorator)."""
    CORES.register(cls.name, cls, replace=replace)
    _INSTANCES.pop(cls.name, None)
    return cls


def unregister_core(name: str) -> None:
    CORES.unregister(name)
    _INSTANCES.pop(name, None)


def known_cores() -> list[str]:
    return CORES.names()


def get_core(name: str, ref: str | None = None) -> SimulationCore:
    """The core registered as ``name`` (one instance per process), or named by ``module:Class``
    (then registered in this process under its own name). ``ref`` (``module:Class``,
    :func:`core_ref`) lets a worker process find a core its parent registered in-process."""
    if ":" in name:
        cls = CORES.load_spec(name)
        if cls.name not in CORES:
            register_core(cls)
        name = cls.name
    cls = CORES.load_spec(ref) if ref and name not in CORES else CORES.load(name)
    core = _INSTANCES.get(name)
    if core is None or type(core) is not cls:
        core = _INSTANCES[name] = cls()
    return core


def core_ref(core: SimulationCore) -> str:
    return object_ref(type(core))


def cores() -> list[SimulationCore]:
    """Every registered core that loads; a broken plug-in is left out here, and
    :func:`broken_cores` says why (``schedbench policies`` lists it with the reason)."""
    out = []
    for name in known_cores():
        obj, why = CORES.try_load(name)
        if obj is None:
            _BROKEN[name] = why
            continue
        out.append(get_core(name))
    return out


#: Cores that could not be loaded, with the reason (:func:`cores`).
_BROKEN: dict[str, str] = {}


def broken_cores() -> dict[str, str]:
    return dict(_BROKEN)


def core_of_policy(policy: str, core: str | None = None) -> SimulationCore:
    """The core whose policy ``policy`` is: ``core`` when given (the policy must be one of its
    own), else the one core that has it. Raises naming the policies of every core."""
    if core:
        found = get_core(core)
        found.policy(policy)  # raises the core's own unknown-policy error
        return found
    owners = [c for c in cores() if c.owns(policy)]
    if len(owners) == 1:
        return owners[0]
    if len(owners) > 1:
        names = ", ".join(c.name for c in owners)
        raise SpecError("core", f"one of the cores that have policy {policy!r} ({names})")
    raise UnknownPolicyError(policy, all_policies())


def all_policies() -> list[str]:
    """Every policy of every core, ``core/policy`` where two cores share a name."""
    seen: dict[str, list[str]] = {}
    for c in cores():
        for p in c.policies():
            seen.setdefault(p, []).append(c.name)
    out = []
    for p, owners in sorted(seen.items()):
        out += [p] if len(owners) == 1 else [f"{o}/{p}" for o in owners]
    return out
