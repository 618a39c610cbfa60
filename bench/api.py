"""The public Python API: what the ``schedbench`` commands do, as functions a notebook or a
script calls (the commands only parse their arguments and call these).

* :func:`solve` — one solver on one decision problem;
* :func:`simulate` — one trace-driven simulation on any simulation core;
* :func:`run_suite` — a declarative suite into a results store;
* :func:`report` — the leaderboards (and an HTML report) of a results store;
* :func:`reproduce` — a paper's experiment.

Arguments are checked before any workload or problem is read: a bad budget, an unknown policy,
solver or parameter, or a malformed spec fails at once, with one line naming what is wrong
(``schedbench.simcore.errors``; a spec key: :class:`~simcore.core.SpecError`).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schedbench.simcore.core import (
    CoreRun,
    CoreSpec,
    RunHooks,
    SimulationCore,
    SpecError,
    core_of_policy,
    get_core,
)
from schedbench.simcore.errors import PolicyOptionError
from schedbench.simcore.problem import DEFAULT_DEADLINE_S, Budget
from schedbench.simcore.safeio import create_output

__all__ = ["Simulated", "report", "reproduce", "run_suite", "simulate", "solve"]

#: The core ``simulate`` runs when neither a policy nor a core is named.
DEFAULT_CORE = "bbsched"


# ---------------------------------------------------------------------------------------------
# solve
# ---------------------------------------------------------------------------------------------
def solve(
    problem: Any,
    solver: str,
    *,
    params: Mapping[str, Any] | None = None,
    budget: float = DEFAULT_DEADLINE_S,
    seed: int = 0,
    isolate: bool = False,
    memory_limit: str | None = None,
) -> Any:
    """Solve one decision problem (a problem object, a ``PROBLEM.json`` path, or its dict) with
    the solver registered as ``solver`` (or ``module:Class``) and ``params``; the decision, as
    the core checked it (an invalid answer comes back as status ``error``)::

        >>> from schedbench.bench.api import solve
        >>> d = solve({"kind": "selection", "capacities": [10], "demands": [[4], [6], [5]],
        ...            "objectives": [[4, 6, 5]]}, "dp")
        >>> d.status.value, d.selected
        ('optimal', (0, 1))

    With ``isolate`` (what ``schedbench solve`` does unless told ``--no-isolate``) the solver
    runs in a child process killed, with everything it started, at budget + grace (a hang is
    ``timeout``, a crash ``error``), under a memory cap (``memory_limit``: ``8G``, ``50%``,
    ``off``; default half the machine's RAM). Otherwise it runs here under a soft deadline
    (``bench/run/isolate.py``: a Python-level hang is stopped, a crash is not contained).
    """
    from schedbench.bench.run.isolate import fork_is_safe
    from schedbench.instances.problem_files import load_problem
    from schedbench.simcore.kinds.base import get_kind, kind_of
    from schedbench.simcore.solver import timed_solve
    from schedbench.solvers.registry import make_solver, solver_kinds

    b = Budget(deadline_s=budget, seed=seed)
    fork = isolate and fork_is_safe()
    # the child imports and warms up while this process builds the solver and reads the problem
    child = _early_child(solver, params, memory_limit) if isolate and not fork else None
    try:
        built = make_solver(solver, params)
        if fork:  # a copy of this process, the solver's libraries imported: only kernels to load
            # (spawned after all if building the solver started a thread or a process)
            child = _early_child(solver, params, memory_limit, fork=fork_is_safe())
        contained = _contained(
            solver, params, isolate=isolate, memory_limit=memory_limit, built=built, child=child
        )
    except BaseException:
        if child is not None:
            from schedbench.bench.run.isolate import stop_child

            stop_child(child)
        raise
    try:
        if isinstance(problem, (str, Path)):
            problem = load_problem(problem)
        elif isinstance(problem, Mapping):
            problem = get_kind(str(problem.get("kind", "selection"))).problem_from_dict(problem)
        kind = getattr(type(problem), "kind", None)
        kinds = solver_kinds(built)
        if kind not in kinds:
            # a solver of another kind declines before it runs, as a built-in selection solver
            # does (its code would fail on a problem of the wrong type)
            return kind_of(problem).error_decision(
                f"not supported: solver {getattr(built, 'id', solver)!r} answers "
                f"{', '.join(kinds)} problems, not {kind}",
                solver=str(getattr(built, "id", solver)),
            )
        return timed_solve(contained, problem, b)
    finally:
        close = getattr(contained, "close", None)
        if close is not None:
            close()


def _contained(
    solver: str,
    params: Mapping[str, Any] | None,
    *,
    isolate: bool | None,
    memory_limit: str | None = None,
    built: Any = None,
    child: Any = None,
) -> Any:
    """``solver`` with ``params`` as a contained solver: in a child process with a hard
    deadline and a memory cap (``isolate``), or in this process, warm, under a soft deadline;
    ``isolate=None`` chooses by trust (``bench/run/isolate.py``, ``isolates_by_default``: an
    untrusted plug-in in a child, the project's own solvers here;
    docs/design.md#trust-boundaries-and-bounded-work)."""
    from schedbench.bench.run.isolate import contained_solver

    return contained_solver(
        solver, params, isolate=isolate, memory_limit=memory_limit, built=built, child=child
    )


def _early_child(
    solver: str, params: Mapping[str, Any] | None, memory_limit: str | None, fork: bool = False
) -> Any:
    """The isolation child of ``solver``, started before this process reads the problem (and,
    spawned, before it builds the solver): its imports and its kernels' loading (most of a
    first solve's time, docs/design.md#compiled-kernels) then overlap this process's own work
    (``bench/run/isolate.py``, ``start_child``). None when it cannot start here (the first call
    then says why)."""
    from schedbench.bench.run.isolate import start_child
    from schedbench.bench.run.supervisor import memory_limit as memory_limit_of
    from schedbench.bench.suite.schema import SolverSpec

    memory = memory_limit_of(memory_limit)  # a bad value is the user's error, before any child
    items = tuple(sorted(dict(params or {}).items()))
    started = start_child(SolverSpec(solver, items, solver), memory, fork=fork)
    return None if isinstance(started, str) else started


# ---------------------------------------------------------------------------------------------
# simulate
# ---------------------------------------------------------------------------------------------
@dataclass(slots=True)
class Simulated:
    """What :func:`simulate` ran: the core, the checked spec, the policy, and the run (its
    records, metrics, notes); ``out`` and ``files`` where it was written."""

    core: SimulationCore
    spec: CoreSpec
    policy: str
    run: CoreRun
    out: Path | None = None
    files: list[str] = field(default_factory=list)
    recorded: int | None = None

    @property
    def metrics(self) -> dict[str, Any]:
        return self.run.metrics


@dataclass(frozen=True, slots=True)
class Plan:
    """A simulation checked and ready to load: :func:`plan_simulation`."""

    core: SimulationCore
    spec: CoreSpec
    policy: str
    solver: Any
    budget: Budget
    #: How each solver call is contained (:func:`simulate`): its name and parameters, whether
    #: it runs in an isolated child process (None: by trust, :func:`_contained`), and that
    #: child's memory cap.
    solver_name: str | None = None
    params: Mapping[str, Any] | None = None
    isolate: bool | None = None
    memory_limit: str | None = None


def plan_simulation(
    workload: str,
    *,
    policy: str | None = None,
    solver: str | None = None,
    params: Mapping[str, Any] | None = None,
    system: str | None = None,
    core: str | None = None,
    options: Mapping[str, Any] | None = None,
    policy_options: Mapping[str, Any] | None = None,
    budget: float = DEFAULT_DEADLINE_S,
    seed: int = 0,
    record: bool = False,
    isolate: bool | None = None,
    memory_limit: str | None = None,
) -> Plan:
    """Every argument of :func:`simulate` checked, nothing read: the budget, the core and its
    policy, the solver (built, of the core's kind), the spec. Raises one-line errors."""
    from schedbench.bench.run.supervisor import memory_limit as parse_memory
    from schedbench.solvers.registry import make_solver, solver_kinds

    b = Budget(deadline_s=budget, seed=seed)
    parse_memory(memory_limit)  # a bad value fails here, before anything is read
    if policy is None:
        found = get_core(core or DEFAULT_CORE)
        policy = found.default_policy(solver is not None)
    else:
        found = core_of_policy(policy, core)
    info = found.policy(policy)
    if info.solver == "required" and not solver:
        raise PolicyOptionError(
            f"--policy {policy} needs --solver NAME (a solver of the {found.kind} kind; see "
            "'schedbench solvers')"
        )
    if solver and info.solver == "none":
        raise PolicyOptionError(
            f"--solver is only used by a policy that decides with a solver; {policy} takes none"
        )
    if record and info.solver == "none":
        raise PolicyOptionError(
            f"--record-decisions: policy {policy} poses no decision problems (a policy that "
            "decides with a solver does, e.g. --policy window --solver naive)"
        )
    spec = found.check(
        {
            "workload": workload,
            "system": system or "",
            "policy_options": dict(policy_options or {}),
            **dict(options or {}),
        }
    )
    found.check_policies(spec, [(policy, solver)])
    built = None
    if solver:
        built = make_solver(solver, params)
        if found.kind not in solver_kinds(built):
            raise PolicyOptionError(
                f"--solver {solver}: core {found.name!r} poses {found.kind} problems; "
                f"{solver} answers {', '.join(solver_kinds(built))}"
            )
    return Plan(found, spec, policy, built, b, solver, params, isolate, memory_limit)


def simulate(
    workload: str,
    *,
    policy: str | None = None,
    solver: str | None = None,
    params: Mapping[str, Any] | None = None,
    system: str | None = None,
    core: str | None = None,
    options: Mapping[str, Any] | None = None,
    policy_options: Mapping[str, Any] | None = None,
    budget: float = DEFAULT_DEADLINE_S,
    seed: int = 0,
    out: str | Path | None = None,
    record_decisions: str | Path | None = None,
    on_invalid: str = "raise",
    progress: Callable[[int, int], None] | None = None,
    provenance: Mapping[str, Any] | None = None,
    isolate: bool | None = None,
    memory_limit: str | None = None,
) -> Simulated:
    """Simulate ``workload`` under ``policy`` on the core the policy belongs to (``core`` names
    it when two cores share a policy name, or when no policy is given). ``solver`` (with
    ``params``) decides for a policy that decides with one; ``options`` are the core's spec keys
    (``window``, ``priority``, ``mode``, ...); ``policy_options`` go to the policies. With
    ``out`` the core writes its files there (``jobs.csv`` in the common schema, ``metrics.json``,
    its own) and a policy that decides logs its decisions to ``decisions.jsonl``. With ``isolate``
    the solver is asked in one child process for the whole run, killed (with all it started) and
    replaced at budget + grace, under a memory cap (``memory_limit``; see :func:`solve`), a
    decision it did not answer recorded ``timeout`` or ``error`` with the reason; with
    ``isolate=False`` in this process under a soft deadline. By default (``None``) an untrusted
    plug-in is isolated and the project's own solvers run here (``bench/run/isolate.py``,
    ``isolates_by_default``)::

        >>> from schedbench.bench.api import simulate
        >>> s = simulate("lublin:jobs=200,nodes=64,seed=1", system="theta", policy="naive")
        >>> s.core.name, s.run.policy, s.metrics["jobs_measured"]
        ('bbsched', 'naive+easy', 200)
        >>> simulate("ar:jobs=50,seed=1", policy="reserve", solver="pe-b").core.name
        'reservations'
    """
    plan = plan_simulation(
        workload,
        policy=policy,
        solver=solver,
        params=params,
        system=system,
        core=core,
        options=options,
        policy_options=policy_options,
        budget=budget,
        seed=seed,
        record=record_decisions is not None,
        isolate=isolate,
        memory_limit=memory_limit,
    )
    return run_plan(
        plan,
        out=out,
        record_decisions=record_decisions,
        on_invalid=on_invalid,
        progress=progress,
        provenance=provenance,
    )


def run_plan(
    plan: Plan,
    *,
    out: str | Path | None = None,
    record_decisions: str | Path | None = None,
    on_invalid: str = "raise",
    progress: Callable[[int, int], None] | None = None,
    provenance: Mapping[str, Any] | None = None,
) -> Simulated:
    """Load, run and (with ``out``) write a checked :class:`Plan` (:func:`simulate`)."""
    from schedbench.simcore.recording import DecisionRecorder

    core, spec = plan.core, plan.spec
    loaded = core.load(spec)
    recorder = None
    if record_decisions is not None:
        recorder = DecisionRecorder(record_decisions, workload=spec.workload, system=spec.system)
    folder = Path(out) if out is not None else None
    log = _DecisionLog(folder / "decisions.jsonl") if folder and plan.solver is not None else None
    solvers = _SimulationSolvers(plan)
    hooks = RunHooks(
        budget=plan.budget,
        solver=solvers.main(),
        solvers=solvers.by_id,
        progress=progress,
        decision_log=log,
        record=recorder,
        on_invalid=on_invalid,
    )
    try:
        run = core.run(spec, loaded, plan.policy, hooks)
    finally:
        solvers.close()
        if log is not None:
            log.close()
        if recorder is not None:
            recorder.close()
    if solvers.isolated():
        run.config["isolated_children_started"] = solvers.starts()
    done = Simulated(core, spec, plan.policy, run, recorded=recorder.count if recorder else None)
    if recorder is not None:
        run.config["recorded_decisions"] = recorder.count
    if folder is not None:
        if provenance is None:
            from schedbench.bench.store.provenance import commit_of_checkout

            provenance = {"commit": commit_of_checkout()}
        done.files = core.write(run, folder, config=provenance)
        if log is not None and log.path.exists():
            done.files.append(log.path.name)
        done.out = folder
    return done


class _SimulationSolvers:
    """The contained solvers of one simulation (:func:`_contained`): the plan's solver and those
    a core asks for by id, each built (and, isolated, given its child) once, all closed at the
    end."""

    def __init__(self, plan: Plan):
        self.plan = plan
        self._by_id: dict[str, Any] = {}
        self._main: Any = None

    def main(self) -> Any:
        plan = self.plan
        if plan.solver is None or plan.solver_name is None:
            return plan.solver
        self._main = _contained(
            plan.solver_name,
            plan.params,
            isolate=plan.isolate,
            memory_limit=plan.memory_limit,
            built=plan.solver,
        )
        return self._main

    def by_id(self, ident: str) -> Any:
        from schedbench.solvers.registry import parse_solver_id

        if ident not in self._by_id:
            name, params = parse_solver_id(ident)
            self._by_id[ident] = _contained(
                name, params, isolate=self.plan.isolate, memory_limit=self.plan.memory_limit
            )
        return self._by_id[ident]

    def _all(self) -> list[Any]:
        return [s for s in (self._main, *self._by_id.values()) if s is not None]

    def isolated(self) -> bool:
        """Whether any of them answers through an isolated child."""
        return any(hasattr(s, "starts") for s in self._all())

    def starts(self) -> int:
        return sum(getattr(s, "starts", 0) for s in self._all())

    def close(self) -> None:
        for solver in self._all():
            close = getattr(solver, "close", None)
            if close is not None:
                close()


class _DecisionLog:
    """``decisions.jsonl``: one line per decision, flushed as it comes (it survives a crash);
    the file is made at the first decision."""

    def __init__(self, path: Path):
        self.path = path
        self._fh: Any = None

    def __call__(self, entry: dict[str, Any]) -> None:
        if self._fh is None:
            self._fh = create_output(self.path)
        self._fh.write(json.dumps(entry) + "\n")
        self._fh.flush()

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()


# ---------------------------------------------------------------------------------------------
# suites and reports
# ---------------------------------------------------------------------------------------------
def run_suite(
    suite: str | Path,
    *,
    store: str | Path | None = None,
    executor: str = "local",
    workers: int = 1,
    scheduler: str | None = None,
    resume: bool = False,
    force: bool = False,
    isolate: bool = False,
    memory_limit: str | None = None,
    only: str | None = None,
    show_progress: bool = False,
    max_cells: int | None = None,
    max_window: int | None = None,
) -> Any:
    """Run a suite file (or a shipped suite by name) into ``store`` (default
    ``results/<suite>.sqlite``): every cell is stored as it finishes; ``memory_limit`` caps
    every solver process of the run (see :func:`solve`). Returns the run's summary (cells run,
    errors, store path, warnings)::

        >>> from schedbench.bench.api import run_suite
        >>> summary = run_suite("my-suite.toml", store="results/my.sqlite")  # doctest: +SKIP
        >>> summary.errors  # doctest: +SKIP
        0
    """
    from schedbench.bench.run.runner import run_suite as run
    from schedbench.bench.suite import Limits, load_suite, resolve_suite

    defaults = Limits()
    limits = Limits(
        max_cells=max_cells or defaults.max_cells, max_window=max_window or defaults.max_window
    )
    loaded = load_suite(resolve_suite(suite), limits=limits)
    path = Path(store) if store else Path("results") / f"{loaded.name}.sqlite"
    return run(
        loaded,
        store_path=path,
        executor=executor,
        workers=workers,
        scheduler=scheduler,
        resume=resume,
        force=force,
        isolate=isolate,
        memory_limit=memory_limit,
        show_progress=show_progress,
        only_kind=only,
    )


def report(
    store: str | Path,
    *,
    suite: str | None = None,
    html: str | Path | None = None,
    markdown: bool = False,
    wide: bool = False,
    all_latency: bool = False,
) -> str:
    """The leaderboards of a results store as text (compact, at most 100 columns with a legend;
    every column with ``wide`` or ``markdown``), the failed cells with their reasons, and with
    ``html`` the HTML report (its path is the last line)::

        >>> from schedbench.bench.api import report
        >>> print(report("results/my.sqlite"))  # doctest: +SKIP
    """
    from schedbench.bench.report.text import report_text

    return report_text(
        Path(store),
        suite,
        markdown=markdown,
        all_latency=all_latency,
        html=Path(html) if html is not None else None,
        wide=wide,
    )


# ---------------------------------------------------------------------------------------------
# reproduce
# ---------------------------------------------------------------------------------------------
def reproduce(paper: str, **options: Any) -> int:
    """Run paper ``paper``'s reproduction (``schedbench reproduce --help`` lists them) with
    its command-line options as keywords (``out="results/ar"``, ``quick=True``; a dash is an
    underscore); returns the command's exit code. An option the paper does not have is an
    error naming it::

        >>> from schedbench.bench.api import reproduce
        >>> reproduce("ar", requests="requests.csv", pes=8, policy="pe-b", out="ar")  # doctest: +SKIP
        0
    """
    from schedbench.bench.reproduce import reproductions

    papers = reproductions()
    if paper not in papers:
        raise SpecError("paper", f"one of {', '.join(papers)}", paper)
    module = papers[paper]
    parser = argparse.ArgumentParser(prog=f"schedbench reproduce {paper}")
    module.add_arguments(parser)
    if not any("--no-progress" in a.option_strings for a in parser._actions):
        parser.add_argument("--no-progress", action="store_true")
    required = [a.dest for a in parser._actions if a.required]
    for action in parser._actions:
        action.required = False  # given as keywords below, checked after
    args = parser.parse_args([])
    for key, value in options.items():
        if not hasattr(args, key):
            known = ", ".join(sorted(vars(args)))
            raise SpecError(key, f"an option of reproduce {paper} ({known})")
        setattr(args, key, value)
    missing = [k for k in required if getattr(args, k) is None]
    if missing:
        raise SpecError(missing[0], f"a value (reproduce {paper} needs it)")
    args.paper = paper
    code: int = module.run(args)
    return code
