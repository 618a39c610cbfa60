"""The ``reservations`` core: advance reservations with deadlines (``simcore/reservations/``)
behind the core protocol.

Every request is answered once, on arrival, and an accepted job never moves
(``simcore/reservations/driver.py``). Policies: the paper's seven fit policies (``ff``,
``pe-b``, ``pe-w``, ``du-b``, ``du-w``, ``pedu-b``, ``pedu-w``; ``simcore/reservations/fit.py``)
read the live slot structure, and ``reserve`` asks a solver of the ``reservation`` kind one
``ReservationProblem`` per request (``reserve:reservation-cpsat``, ``reserve:pe-b``, a plug-in).

Spec keys: ``workload`` — a request CSV (``id, arrival_s, ready_s, duration_s, deadline_s,
pes``), an SWF trace or dataset turned into requests (``instances/ar_workload.py``:
``requests_from_swf`` with ``seed``, ``af``, ``artime``, ``deadline``), or the paper's generator
``ar:jobs=N,seed=S`` (also ``umed``, ``af``, ``artime``, ``deadline``); ``system`` — ``ar``
(the paper's 1024 PEs) or ``ar:PES`` (default: the trace's header for SWF, else ``ar``);
``latest_start`` and ``unbounded_end``, the pinned semantics' switches, and ``reading``, every
rule the paper leaves open at once as ``key=value,...`` (``simcore/reservations/reading.py``;
default ``pinned``; it overrides the two switches), all for the fit policies only. The metric-only
option ``slowdown=deadline`` changes ``ar_slowdown``.

``jobs.csv``: a row per request in service order; ``nodes`` its PEs, ``placement`` the PEs it
holds, ``status`` accepted or rejected, then ``ready``, ``duration``, ``deadline`` and ``note``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from schedbench.instances import datasets
from schedbench.instances.ar_workload import (
    PAPER_PES,
    generate_ar_requests,
    read_requests_csv,
    requests_from_swf,
    swf_machine_pes,
)
from schedbench.instances.cores._keys import flag, generator_keys, integer, local_file, number
from schedbench.simcore.core import (
    CoreRun,
    CoreSpec,
    JobFormat,
    JobTable,
    Key,
    PolicyInfo,
    RunHooks,
    SimulationCore,
    SpecError,
)
from schedbench.simcore.errors import PolicyOptionError, UnknownPolicyError
from schedbench.simcore.reservations.driver import ReservationRun, serve, serve_with_solver
from schedbench.simcore.reservations.fit import FIT_POLICIES
from schedbench.simcore.reservations.metrics import AR_METRICS, mean_slowdown, summary
from schedbench.simcore.reservations.reading import Reading, ReadingError
from schedbench.simcore.reservations.requests import Request
from schedbench.simcore.reservations.slots import UNBOUNDED_END, ids_of

#: The policy that asks a solver of the reservation kind.
RESERVE = "reserve"
#: ``ar:...`` generator keys and their types.
GENERATOR_KEYS: dict[str, type] = {
    "jobs": int,
    "seed": int,
    "pes": int,
    "umed": float,
    "af": float,
    "artime": float,
    "deadline": float,
}


def machine_pes(system: str) -> int | None:
    """``ar`` -> the paper's PEs, ``ar:N`` -> N, "" -> None (the workload's default)."""
    if not system:
        return None
    name, sep, count = system.partition(":")
    if name != "ar" or (sep and not count.isdigit()) or (sep and int(count) < 1):
        raise SpecError("system", "ar (1024 PEs) or ar:PES with an integer >= 1", system)
    return int(count) if sep else PAPER_PES


@dataclass(frozen=True, slots=True)
class Loaded:
    requests: tuple[Request, ...]
    pes: int
    source: str


def _decisions_jobs(path: Path, rows: list[dict[str, str]], doc: dict[str, Any]) -> JobTable:
    """``reproduce ar --requests``'s ``decisions.csv``: each accepted request on the PEs it
    reserved (``pe_ids``), rejected ones not drawn; ``arrival_s`` and ``deadline_s`` where the
    file has them."""

    def numbers(key: str) -> np.ndarray:
        try:
            return np.array([float(r[key]) if r.get(key) else math.nan for r in rows])
        except ValueError as exc:
            raise SpecError(f"{path}: column {key}", "numbers", str(exc)) from exc

    try:
        pes = [[int(x) for x in (r.get("pe_ids") or "").split()] for r in rows]
    except ValueError as exc:
        raise SpecError(f"{path}: column pe_ids", "PE numbers", str(exc)) from exc
    start = numbers("start_s")
    cols = {
        "submit": numbers("arrival_s") if rows and "arrival_s" in rows[0] else start,
        "start": start,
        "end": numbers("end_s"),
        "nodes": np.array([len(p) for p in pes], dtype=np.float64),
        "status": np.array(
            ["rejected" if r.get("accepted") == "0" else "accepted" for r in rows], dtype=object
        ),
    }
    if rows and "deadline_s" in rows[0]:
        cols["deadline"] = numbers("deadline_s")
    total = max((max(p) + 1 for p in pes if p), default=0)
    return JobTable(
        cols, unit="PE", total=total, blocks=[_blocks(p) for p in pes], placement="as reserved"
    )


def _blocks(ids: list[int]) -> list[tuple[int, int]]:
    a = np.array(sorted(ids), dtype=np.int64)
    cut = np.flatnonzero(np.diff(a) != 1) + 1
    return [(int(b[0]), int(b.size)) for b in np.split(a, cut) if b.size]


def _reading_key(value: Any) -> Any:
    if not isinstance(value, str):
        raise SpecError("reading", "key=value,... or pinned", value)
    try:
        return Reading.parse(value).label()
    except ReadingError as exc:
        raise SpecError("reading", f"key=value,... or pinned ({exc})", value) from exc


def _spec_reading(spec: CoreSpec) -> Reading | None:
    """The spec's reading when it names one (None: the two switches alone decide)."""
    text = spec.get("reading", "pinned")
    if text == "pinned":
        return None
    base = Reading(
        unbounded_end=spec.get("unbounded_end"), latest_start=bool(spec.get("latest_start"))
    )
    return replace(base, **Reading.parse(text).changes())


class ReservationsCore(SimulationCore):
    name = "reservations"
    summary = (
        "advance reservations with deadlines (simcore/reservations/): each request answered on "
        "arrival, accepted on a start and a PE set or rejected"
    )
    kind = "reservation"
    unit = "PE"
    metrics = AR_METRICS
    keys = (
        Key(
            "seed",
            0,
            "SWF traces: seed of the factors' draws",
            integer("seed", 0, "an integer >= 0", 2**32 - 1),
        ),
        Key("af", 1.0, "SWF traces: arrival factor", number("af", 1e-9, "a number > 0")),
        Key("artime", 3.0, "SWF traces: ar-time factor", number("artime", 0.0, "a number >= 0")),
        Key(
            "deadline", 3.0, "SWF traces: deadline factor", number("deadline", 0.0, "a number >= 0")
        ),
        Key(
            "latest_start", False, "also try t_dl - t_du as a candidate start", flag("latest_start")
        ),
        Key(
            "unbounded_end",
            UNBOUNDED_END,
            "T_end of an unbounded rectangle = t_dl + this",
            integer("unbounded_end", 0, "an integer >= 0"),
        ),
        Key(
            "reading",
            "pinned",
            "every open rule of the paper as key=value,... (simcore/reservations/reading.py)",
            _reading_key,
        ),
    )
    record_keys = ("latest_start", "unbounded_end")
    baseline = "ff"
    leaderboard = ("ar_acceptance", "ar_slowdown", "ar_utilisation")
    compact = ("ar_acceptance", "ar_slowdown", "ar_utilisation")
    kiviat = (
        ("acceptance", "ar_acceptance", False),
        ("slowdown", "ar_slowdown", True),
        ("PE utilisation", "ar_utilisation", False),
    )
    headline = (
        "ar_acceptance",
        "ar_slowdown",
        "ar_utilisation",
        "requests",
        "accepted",
        "invalid_requests",
        "faults",
        "decisions",
        "decision_latency_median_s",
        "decision_latency_max_s",
    )
    job_formats = (
        JobFormat(
            "decisions.csv",
            "reproduce ar --requests",
            ("start_s", "end_s", "pe_ids"),
            _decisions_jobs,
        ),
    )

    # -- policies ------------------------------------------------------------------------------
    def policies(self) -> list[str]:
        return sorted([*FIT_POLICIES, RESERVE])

    def policy(self, name: str) -> PolicyInfo:
        if name == RESERVE:
            return PolicyInfo(
                name, "asks a solver of the reservation kind for every request", (), "required"
            )
        if name not in FIT_POLICIES:
            raise UnknownPolicyError(name, self.policies())
        return PolicyInfo(name, FIT_POLICIES[name].summary, (), "none")

    def default_policy(self, solver: bool) -> str:
        return RESERVE if solver else self.baseline

    # -- spec ----------------------------------------------------------------------------------
    def check_spec(self, spec: CoreSpec, base_dir: Path | None) -> CoreSpec:
        workload = spec.workload
        machine_pes(spec.system)
        if workload.startswith("ar:"):
            generator_keys(workload, GENERATOR_KEYS)
        else:
            workload = local_file(workload, base_dir, (".csv", ".swf", ".gz"))
            path = datasets.resolve_file(workload)
            if not path.is_file():
                raise SpecError(
                    "workload", "a request CSV, an SWF trace, a dataset or ar:jobs=N,...", workload
                )
            if path.suffix == ".csv" and not spec.system:
                raise SpecError("system", "ar:PES for a request CSV (it does not say its machine)")
        return CoreSpec(spec.core, workload, spec.system, spec.options)

    def check_policies(self, spec: CoreSpec, policies: Any) -> None:
        switches = (
            spec.get("latest_start")
            or spec.get("unbounded_end") != UNBOUNDED_END
            or spec.get("reading", "pinned") != "pinned"
        )
        if switches and any(name == RESERVE for name, _ in policies):
            raise SpecError(
                "latest_start",
                "the fit policies' switches left at their defaults when a solver reserves",
            )

    def identity(self, spec: CoreSpec) -> dict[str, Any]:
        """As every core's, without ``reading`` at its default: cells stored before the reading
        became a key keep their content keys."""
        out = super().identity(spec)
        if out.get("reading") == "pinned":
            del out["reading"]
        return out

    def describe(self, spec: CoreSpec) -> str:
        reading = spec.get("reading", "pinned")
        return (
            "reservations"
            + (", latest start" if spec.get("latest_start") else "")
            + ("" if reading == "pinned" else f", reading {reading}")
        )

    # -- running -------------------------------------------------------------------------------
    def load(self, spec: CoreSpec) -> Loaded:
        pes = machine_pes(spec.system)
        if spec.workload.startswith("ar:"):
            keys = generator_keys(spec.workload, GENERATOR_KEYS)
            pes = pes or keys.get("pes", PAPER_PES)
            keys["pes"] = pes
            jobs = keys.pop("jobs")
            return Loaded(tuple(generate_ar_requests(jobs, **keys)), pes, spec.workload)
        path = datasets.resolve_file(spec.workload)
        if path.suffix == ".csv":
            return Loaded(tuple(read_requests_csv(path)), pes or PAPER_PES, spec.workload)
        pes = pes or swf_machine_pes(path)
        if not pes:
            raise SpecError("system", f"ar:PES ({path.name} has no MaxProcs/MaxNodes header)")
        requests = requests_from_swf(
            path,
            seed=spec.get("seed"),
            af=spec.get("af"),
            artime=spec.get("artime"),
            deadline=spec.get("deadline"),
        )
        return Loaded(tuple(requests), pes, spec.workload)

    def run(self, spec: CoreSpec, loaded: Loaded, policy: str, hooks: RunHooks) -> CoreRun:
        t0 = time.perf_counter()
        if policy == RESERVE:
            if hooks.solver is None:
                raise PolicyOptionError(
                    f"policy {RESERVE!r} needs a solver of the reservation kind"
                )
            served = serve_with_solver(loaded.requests, loaded.pes, hooks.solver, hooks.budget)
            label = f"{RESERVE}:{getattr(hooks.solver, 'id', hooks.solver)}"
        else:
            self.policy(policy)
            if hooks.solver is not None:
                raise PolicyOptionError(f"fit policy {policy!r} takes no solver (use {RESERVE})")
            served = serve(
                loaded.requests,
                loaded.pes,
                policy,
                latest_start=spec.get("latest_start"),
                unbounded_end=spec.get("unbounded_end"),
                reading=_spec_reading(spec),
            )
            label = policy
        wall = time.perf_counter() - t0
        run = CoreRun(
            self.name,
            label,
            served,
            job_table(served),
            reservation_metrics(served, _spec_reading(spec)),
            counters={"faults": served.faults, "invalid": served.invalid},
            config={
                "workload": loaded.source,
                "system": f"ar:{loaded.pes}",
                "pes": loaded.pes,
                "wall_s": round(wall, 3),
                "machine": {"name": f"ar:{loaded.pes}", "cores": loaded.pes},
            },
            wall_s=wall,
        )
        run.summary.append(
            f"{loaded.source}: {len(loaded.requests)} requests on {loaded.pes} PEs with {label}; "
            f"served in {wall:.2f} s"
        )
        return run


def reservation_metrics(served: ReservationRun, reading: Reading | None = None) -> dict[str, Any]:
    """The paper's numbers of one stream (``simcore/reservations/metrics.py``), with the
    decision latencies when a solver answered; ``reading``'s ``slowdown`` option decides what
    ``ar_slowdown`` averages."""
    numbers = summary(served)
    if reading is not None and reading.slowdown != "accepted":
        numbers["mean_slowdown"] = mean_slowdown(served, reading.slowdown)
    latency = np.array([o.latency_s for o in served.outcomes if math.isfinite(o.latency_s)])

    def finite(x: float) -> float | None:
        return None if math.isnan(x) else float(x)

    return {
        "ar_acceptance": finite(numbers["acceptance"]),
        "ar_slowdown": finite(numbers["mean_slowdown"]),
        "ar_utilisation": finite(numbers["utilisation"]),
        "requests": numbers["submitted"],
        "accepted": numbers["accepted"],
        "invalid_requests": numbers["invalid"],
        "faults": numbers["faults"],
        "decisions": int(latency.size),
        "decision_latency_median_s": float(np.median(latency)) if latency.size else None,
        "decision_latency_max_s": float(latency.max()) if latency.size else None,
    }


def job_table(served: ReservationRun) -> JobTable:
    """One row per request, in service order (module docstring)."""
    out = served.outcomes
    start = np.array(
        [o.start if o.accepted and o.start is not None else np.nan for o in out], dtype=np.float64
    )
    duration = np.array([o.request.duration for o in out], dtype=np.float64)
    cols = {
        "id": np.array([o.request.id for o in out], dtype=np.int64),
        "submit": np.array([o.request.arrival for o in out], dtype=np.float64),
        "start": start,
        "end": start + duration,
        "nodes": np.array([o.request.pes for o in out], dtype=np.int64),
        "status": np.array(["accepted" if o.accepted else "rejected" for o in out], dtype=object),
        "deadline": np.array([o.request.deadline for o in out], dtype=np.float64),
        "ready": np.array([o.request.ready for o in out], dtype=np.float64),
        "duration": duration,
        "note": np.array([o.note for o in out], dtype=object),
    }
    blocks = [_blocks(ids_of(o.mask)) if o.accepted else [] for o in out]
    return JobTable(cols, unit="PE", total=served.pes, blocks=blocks, placement="as reserved")
