"""A loaded suite expanded into cells: the decision problems of its ``[[instances]]`` tables
(built by their sources, ``instances/sources.py``), one decision cell per problem × solver ×
repetition, one simulation cell per scenario × policy × repetition.

Cells are keyed by content, not by labels (``cell_id``): a decision cell by its family, the
problem's kind and content hash (``ProblemKind.fingerprint``), the solver id (parameters
included), the repetition, seed and budget; a simulation cell by its scenario's name and
content hash (:func:`scenario_hash`: the workload spec with the bytes of any trace file it
reads, the machine with the bytes of a machine file, every simulation option) and the same
solver and run keys. So renaming a label or moving a file without changing it keeps the stored
results valid for ``--resume``, and changing a trace's content runs its cells again. Two
problems of one family with the same content are one cell (the first label is kept).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schedbench.bench.suite.schema import (
    Scenario,
    SolverSpec,
    Suite,
    SuiteError,
    make_solver_spec,
    split_policy,
)
from schedbench.instances.sources import get_source
from schedbench.simcore.core import get_core
from schedbench.simcore.errors import SchedbenchError
from schedbench.simcore.kinds.base import ProblemKind, kind_of
from schedbench.simcore.safeio import sha256_file
from schedbench.solvers.registry import parse_solver_id


def content_hash(parts: list[Any]) -> str:
    """16 hex digits of the SHA-256 of ``parts`` as canonical JSON."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Instance:
    """One decision problem of a family, with an exact reference when its source has one."""

    family: str
    label: str
    problem: Any
    reference: Any = None
    context: dict[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> ProblemKind:
        return kind_of(self.problem)

    @property
    def fingerprint(self) -> str:
        return self.kind.fingerprint(self.problem)


@dataclass(frozen=True, slots=True)
class DecisionCell:
    family: str
    instance: str
    instance_hash: str
    kind: str
    solver: SolverSpec
    repetition: int
    seed: int
    budget_s: float

    @property
    def cell_id(self) -> str:
        return content_hash(
            [
                "decision",
                self.family,
                self.kind,
                self.instance_hash,
                self.solver.id,
                self.repetition,
                self.seed,
                self.budget_s,
            ]
        )

    @property
    def legacy_id(self) -> str:
        """The id that stores of schema version 1 gave this cell (labels, not content), so
        ``--resume`` recognises their cells."""
        return content_hash(
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
class SimulationCell:
    scenario: Scenario
    scenario_hash: str
    policy: str  # "POLICY" or "POLICY:<solver id>" as the suite wrote it
    solver: SolverSpec | None
    repetition: int
    seed: int
    budget_s: float

    @property
    def family(self) -> str:
        return self.scenario.name

    @property
    def policy_name(self) -> str:
        return split_policy(self.policy)[0]

    @property
    def legacy_id(self) -> str:
        """The id that stores of schema version 1 gave this cell (see ``DecisionCell``)."""
        sc = self.scenario
        ident = get_core(sc.core).identity(sc.spec)
        return content_hash(
            [
                "simulation",
                sc.name,
                sc.workload,
                sc.system,
                *(ident.get(k) for k in ("priority", "backfill", "lifecycle", "window")),
                self.policy,
                self.repetition,
                self.seed,
                self.budget_s,
            ]
        )

    @property
    def cell_id(self) -> str:
        return content_hash(
            [
                "simulation",
                self.scenario.name,
                self.scenario_hash,
                self.policy,
                self.repetition,
                self.seed,
                self.budget_s,
            ]
        )


def _file_digest(path: str) -> str | None:
    try:
        return sha256_file(path)
    except (OSError, SchedbenchError):
        return None  # loading it will fail with a clear error; the key need not


def scenario_hash(sc: Scenario) -> str:
    """Content hash of a scenario (see the module docstring): its core's identity of it
    (``SimulationCore.identity``), with the bytes of the files it reads; the name is not part
    of it, nor is the core's name (the policies name the core)."""
    first = sc.workload.split("+")[0]
    files = {}
    if "/" in first or first.endswith((".swf", ".gz")):
        files["workload"] = _file_digest(first)
    if sc.system.endswith(".toml"):
        files["system"] = _file_digest(sc.system)
    options = get_core(sc.core).identity(sc.spec)
    if "workload" in files:
        options["workload"] = Path(first).name + sc.workload[len(first) :]
    if "system" in files:
        options["system"] = Path(sc.system).name
    return content_hash([options, files])


def expand_instances(suite: Suite) -> list[Instance]:
    """Build every decision problem of the suite (cheap: generators and small files)."""
    out: list[Instance] = []
    for spec in suite.instance_specs:
        try:
            source = get_source(spec["source"])
            for item in source.build(spec, suite.base_dir):
                out.append(
                    Instance(spec["family"], item.label, item.problem, item.reference, item.context)
                )
        except (SchedbenchError, ValueError) as exc:  # ValueError: a generator's own check
            files = [spec[k] for k in ("path", "front") if isinstance(spec.get(k), str)]
            files += [p for p in spec.get("paths", []) if isinstance(p, str)]
            raise SuiteError(
                suite.source,
                spec["_where"],
                "a buildable instance source",
                redact_outside(str(exc), files, suite.base_dir),
            ) from exc
    return out


def redact_outside(message: str, paths: list[str], base: Path) -> str:
    """``message`` without the quoted content (``..., got CONTENT``) when one of ``paths`` lies
    outside the suite's folder: a suite may point at any file, but its errors must not become
    a way to print other files' contents (docs/design.md#trust-boundaries-and-bounded-work). Line
    numbers and expectations stay."""
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
            return str(spec["reference"])
    return suite.reference


def decision_cells(suite: Suite, instances: list[Instance]) -> list[DecisionCell]:
    """Problem × solver × repetition, for the solvers that answer the problem's kind (and run
    on its family)."""
    cells = []
    seen: set[tuple[str, str]] = set()
    for inst in instances:
        kind, digest = inst.kind.name, inst.fingerprint
        if (inst.family, digest) in seen:
            continue  # the same problem twice in a family: measured once
        seen.add((inst.family, digest))
        for solver in suite.solvers:
            if solver.families is not None and inst.family not in solver.families:
                continue
            if kind not in solver.kinds:
                continue
            for rep in range(suite.repetitions):
                cells.append(
                    DecisionCell(
                        inst.family,
                        inst.label,
                        digest,
                        kind,
                        solver,
                        rep,
                        suite.seed + rep,
                        suite.budget_s,
                    )
                )
    return cells


def simulation_cells(suite: Suite) -> list[SimulationCell]:
    cells = []
    for scen, pols in suite.scenarios:
        digest = scenario_hash(scen)
        for pol in pols:
            spec = None
            _name, solver_id = split_policy(pol)
            if solver_id is not None:
                n, prm = parse_solver_id(solver_id)
                spec = make_solver_spec(n, prm)
            for rep in range(suite.repetitions):
                cells.append(
                    SimulationCell(scen, digest, pol, spec, rep, suite.seed + rep, suite.budget_s)
                )
    return cells


def plan(suite: Suite) -> tuple[list[Instance], list[DecisionCell], list[SimulationCell]]:
    """The suite's instances, decision cells and simulation cells."""
    instances = expand_instances(suite)
    return instances, decision_cells(suite, instances), simulation_cells(suite)
