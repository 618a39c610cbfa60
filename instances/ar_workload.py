"""Advance-reservation request streams: the paper's generator, SWF import, and the request CSV
(``papers/advance-reservation-with-deadlines.txt``, Section 6.1).

**Generator** (:func:`generate_ar_requests`, Section 6.1). Jobs come from the Lublin–Feitelson
model (``instances/lublin.py``) on 1,024 PEs with the paper's LANL-CM5 size setting: every job
parallel, every size a power of two, ULow 4.5 (smallest 32), UHi 10 (largest 1,024), UProb 0.82,
UMed 5–9 (default 7). Documented choices where the paper is silent:

1. **Arrivals and runtimes: the model's published defaults.** The paper used "the combined model
   of arrival process ... and its parameters for LANL-CM5", which are not published; we use the
   model's single-stream ("typeless") arrival and runtime parameters (``model="typeless"``;
   ``two-stream`` is available). The runtime stays correlated with the size as in the model, so
   sizes and durations both grow with UMed, as the paper says. :func:`offered_load` shows the
   load each setting offers, so a reader can compare.
2. **Runtime mapping** onto {60, 300, 900, 1800, 3600, 10800} s (the paper's six values, derived
   from LANL-CM5's estimated runtimes without saying how): ``ceil`` (default) maps a model
   runtime to the smallest value at least as long, anything above 3 h to 10,800 s — a
   reservation asks for a standard duration that covers the run, as users' estimates do;
   ``nearest`` maps to the nearest value in log scale.
3. **Arrival factor** (Section 6.1): t_a = ⌊t_a0 / af⌋ — the paper divides arrival times (so
   af > 1 crowds the requests); this is not the model's own ``arrival_factor``.
4. **Ready time and deadline** (Section 6.1): t_r = t_a + ⌊artime · U1 · t_du⌋ and t_dl = t_r +
   t_du + ⌊deadline · U2 · t_du⌋, with U1, U2 independent uniform [0, 1) draws; rounding down to
   whole seconds keeps t_dl ≥ t_r + t_du. U1, U2 come from their own generator seeded by the
   seed, so settings that differ only in the factors (or af) use the same jobs and the same draws.

**SWF import** (:func:`requests_from_swf`): submit = t_a (divided by af), size = the job's
processors, duration = the requested time (the reservation a user would ask for; the runtime
where the trace has none, or with ``duration="runtime"``), optionally mapped like the generator's;
the same artime / deadline factors.

**Request CSV** (:func:`read_requests_csv`): a header with exactly the columns ``id, arrival_s,
ready_s, duration_s, deadline_s, pes`` (any order), then one request a line; every value an
integer (``10`` or ``10.0``; not ``10.5``); ids unique. A malformed line stops the read with
``FILE:LINE: ...`` naming the request and the column. Requests that are well formed but not
valid on the machine (``requests.invalid_reason``: a non-positive duration, a deadline before
ready + duration, more PEs than the machine, ready before arrival) are not errors: the driver
rejects them, and :func:`invalid_requests` lists them with a message naming each.
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, ClassVar, Literal

import numpy as np

from schedbench.instances.lublin import generate_lublin
from schedbench.instances.sources import ProblemSource, SourceError, SourceInstance, SourceLimits
from schedbench.simcore.reservations.driver import problem_for, serve
from schedbench.simcore.reservations.requests import Request, RequestError, invalid_reason
from schedbench.simcore.safeio import InputFileError, open_output, open_text

#: The paper's six durations (Section 6.1), seconds.
RUNTIME_CLASSES: tuple[int, ...] = (60, 300, 900, 1800, 3600, 10800)
#: The paper's machine (LANL-CM5) and size setting (Section 6.1).
PAPER_PES = 1024
PAPER_ULOW, PAPER_UPROB = 4.5, 0.82
CSV_COLUMNS: tuple[str, ...] = ("id", "arrival_s", "ready_s", "duration_s", "deadline_s", "pes")

RuntimeMap = Literal["ceil", "nearest", "none"]


def map_runtimes(runtime: np.ndarray, how: RuntimeMap = "ceil") -> np.ndarray:
    """Model runtimes mapped onto :data:`RUNTIME_CLASSES` (module docstring, choice 2)."""
    classes = np.asarray(RUNTIME_CLASSES, dtype=np.int64)
    rt = np.asarray(runtime, dtype=float)
    if how == "none":
        return np.maximum(np.ceil(rt), 1).astype(np.int64)
    if how == "ceil":
        k = np.searchsorted(classes, rt, side="left")
        return classes[np.minimum(k, classes.size - 1)]
    if how == "nearest":
        dist = np.abs(np.log(np.maximum(rt, 1.0))[:, None] - np.log(classes)[None, :])
        return classes[np.argmin(dist, axis=1)]
    raise ValueError(f"runtime_map: expected 'ceil', 'nearest' or 'none', got {how!r}")


def _check_factor(name: str, value: float, *, positive: bool = False) -> None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    ok = ok and (value > 0 if positive else value >= 0)
    if not ok:
        bound = "> 0" if positive else ">= 0"
        raise RequestError(f"{name}: expected a finite number {bound}, got {value!r}")


def _with_windows(
    ids: np.ndarray,
    arrival0: np.ndarray,
    durations: np.ndarray,
    sizes: np.ndarray,
    *,
    seed: int,
    af: float,
    artime: float,
    deadline: float,
) -> list[Request]:
    """Requests from arrivals, durations and sizes with the paper's factors (choices 3, 4)."""
    _check_factor("af", af, positive=True)
    _check_factor("artime", artime)
    _check_factor("deadline", deadline)
    rng = np.random.default_rng([int(seed), 14])  # the factors' own stream (choice 4)
    u1 = rng.random(len(ids))
    u2 = rng.random(len(ids))
    arrival = np.floor(np.asarray(arrival0, dtype=float) / af).astype(np.int64)
    du = np.asarray(durations, dtype=np.int64)
    ready = arrival + np.floor(artime * u1 * du).astype(np.int64)
    dl = ready + du + np.floor(deadline * u2 * du).astype(np.int64)
    return [
        Request(int(a), int(i), int(r), int(d), int(t), int(p))
        for i, a, r, d, t, p in zip(ids, arrival, ready, du, dl, sizes, strict=True)
    ]


def generate_ar_requests(
    jobs: int,
    *,
    seed: int = 0,
    pes: int = PAPER_PES,
    umed: float = 7.0,
    ulow: float = PAPER_ULOW,
    uprob: float = PAPER_UPROB,
    af: float = 1.0,
    artime: float = 3.0,
    deadline: float = 3.0,
    model: Literal["typeless", "two-stream"] = "typeless",
    runtime_map: RuntimeMap = "ceil",
) -> list[Request]:
    """``jobs`` requests of the paper's generator (module docstring), ids 1..jobs in arrival
    order. Same arguments, same requests."""
    w = generate_lublin(
        jobs,
        nodes=pes,
        seed=seed,
        model=model,
        umed=umed,
        ulow=ulow,
        uprob=uprob,
        serial_prob=0.0,
        pow2_prob=1.0,
    )
    durations = map_runtimes(w.runtime, runtime_map)
    return _with_windows(
        np.arange(1, len(w) + 1),
        w.submit - (w.submit[0] if len(w) else 0.0),
        durations,
        w.nodes,
        seed=seed,
        af=af,
        artime=artime,
        deadline=deadline,
    )


def requests_from_swf(
    path: str | os.PathLike[str],
    *,
    seed: int = 0,
    af: float = 1.0,
    artime: float = 3.0,
    deadline: float = 3.0,
    duration: Literal["requested", "runtime"] = "requested",
    runtime_map: RuntimeMap = "none",
    max_jobs: int | None = None,
) -> list[Request]:
    """Requests from an SWF trace (module docstring): submit = t_a, the same factors. Returns
    every job of the cleaned trace; those that cannot be valid (e.g. larger than the machine)
    are for the driver to reject (:func:`invalid_requests` names them)."""
    from schedbench.instances.swf import read_swf

    if duration not in ("requested", "runtime"):
        raise RequestError(f"duration: expected 'requested' or 'runtime', got {duration!r}")
    w = read_swf(path, max_jobs=max_jobs)
    rt = np.asarray(w.runtime, dtype=float)
    if duration == "requested":
        req = np.asarray(w.requested_time, dtype=float)
        rt = np.where(req > 0, req, rt)
    durations = map_runtimes(rt, runtime_map)
    return _with_windows(
        np.asarray(w.job_id, dtype=np.int64),
        np.asarray(w.submit, dtype=float),
        durations,
        np.asarray(w.nodes, dtype=np.int64),
        seed=seed,
        af=af,
        artime=artime,
        deadline=deadline,
    )


def swf_machine_pes(path: str | os.PathLike[str]) -> int | None:
    """The machine size an SWF header states (MaxProcs, else MaxNodes), or None."""
    from schedbench.instances.swf import read_swf

    return read_swf(path, max_jobs=0).machine_size


def invalid_requests(requests: Iterable[Request], pes: int) -> list[tuple[int, str]]:
    """(id, reason) of every request that is not valid on a machine of ``pes`` PEs."""
    out = []
    for r in requests:
        reason = invalid_reason(r, pes)
        if reason is not None:
            out.append((r.id, reason))
    return out


def offered_load(requests: Iterable[Request], pes: int) -> float:
    """Σ n_pe · t_du / (PEs × (last arrival − first arrival)): the load the stream offers."""
    rs = list(requests)
    if len(rs) < 2:
        return math.nan
    span = max(r.arrival for r in rs) - min(r.arrival for r in rs)
    return sum(r.area for r in rs) / (pes * span) if span > 0 else math.inf


# ---------------------------------------------------------------------------------- CSV
def _csv_int(text: str, where: str) -> int:
    s = text.strip()
    try:
        return int(s)
    except ValueError:
        pass
    try:
        x = float(s)
    except ValueError as exc:
        raise RequestError(f"{where}: expected an integer, got {text!r}") from exc
    if not math.isfinite(x) or x != math.floor(x):
        raise RequestError(f"{where}: expected an integer, got {text!r}")
    return int(x)


def read_requests_csv(path: str | os.PathLike[str]) -> list[Request]:
    """The requests of a CSV file (module docstring), in file order."""
    source = os.fspath(path)
    try:
        handle = open_text(source)
    except (OSError, InputFileError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else str(exc)
        raise RequestError(f"{source}: cannot read the request file ({reason})") from exc
    with handle:
        rows = csv.reader(handle)
        try:
            header = next(rows)
        except StopIteration as exc:
            raise RequestError(
                f"{source}: empty file; expected a header {','.join(CSV_COLUMNS)}"
            ) from exc
        except (csv.Error, UnicodeDecodeError) as exc:
            raise RequestError(f"{source}:1: cannot parse the header ({exc})") from exc
        names = [h.strip() for h in header]
        missing = [c for c in CSV_COLUMNS if c not in names]
        extra = [c for c in names if c not in CSV_COLUMNS]
        if missing or extra or len(set(names)) != len(names):
            raise RequestError(
                f"{source}:1: expected the columns {', '.join(CSV_COLUMNS)} (each once), got "
                f"{', '.join(names)}"
            )
        col = {name: names.index(name) for name in CSV_COLUMNS}
        out: list[Request] = []
        seen: dict[int, int] = {}
        line = 1
        try:
            for line_no, row in enumerate(rows, start=2):
                line = line_no
                if not row or all(not cell.strip() for cell in row):
                    continue
                if len(row) != len(names):
                    raise RequestError(
                        f"{source}:{line}: expected {len(names)} values, got {len(row)}"
                    )
                rid = _csv_int(row[col["id"]], f"{source}:{line}: id")
                values = {
                    name: _csv_int(row[col[name]], f"{source}:{line}: request {rid}: {name}")
                    for name in CSV_COLUMNS[1:]
                }
                if rid in seen:
                    raise RequestError(
                        f"{source}:{line}: request {rid}: the id is already used on line "
                        f"{seen[rid]}"
                    )
                seen[rid] = line
                out.append(
                    Request(
                        arrival=values["arrival_s"],
                        id=rid,
                        ready=values["ready_s"],
                        duration=values["duration_s"],
                        deadline=values["deadline_s"],
                        pes=values["pes"],
                    )
                )
        except (csv.Error, UnicodeDecodeError) as exc:
            raise RequestError(f"{source}:{line + 1}: cannot parse the line ({exc})") from exc
    return out


def write_requests_csv(requests: Iterable[Request], path: str | os.PathLike[str]) -> None:
    """Write requests in the CSV form :func:`read_requests_csv` reads."""
    with open_output(path, newline="") as handle:
        out = csv.writer(handle)
        out.writerow(CSV_COLUMNS)
        for r in requests:
            out.writerow([r.id, r.arrival, r.ready, r.duration, r.deadline, r.pes])


# ---------------------------------------------------------------------------------- source
class ARRequestProblems(ProblemSource):
    """Suite source ``ar-requests``: the ``reservation`` decision problems a generated stream
    poses (the paper's generator; keys ``jobs``, ``seeds``, ``umed``, ``af``, ``artime``,
    ``deadline``, ``policy`` — the fit policy whose accepted jobs make the holdings, default
    ``ff`` — and ``every``: every k-th request). Every solver meets the identical problems."""

    name: ClassVar[str] = "ar-requests"
    keys: ClassVar[frozenset[str]] = frozenset(
        {"jobs", "seeds", "umed", "af", "artime", "deadline", "policy", "every"}
    )

    def check(self, spec: dict[str, Any], base: Path, limits: SourceLimits) -> None:
        unknown = sorted(set(spec) - self.keys - {"family", "source", "reference"})
        if unknown:
            raise SourceError(unknown[0], f"one of {', '.join(sorted(self.keys))}")
        jobs = spec.get("jobs", 200)
        if not (isinstance(jobs, int) and not isinstance(jobs, bool) and 1 <= jobs <= 100_000):
            raise SourceError("jobs", "an integer in 1..100000", jobs)
        every = spec.get("every", 1)
        if not (isinstance(every, int) and not isinstance(every, bool) and every >= 1):
            raise SourceError("every", "an integer >= 1", every)
        seeds = spec.get("seeds", 1)
        if not (isinstance(seeds, int) and not isinstance(seeds, bool)) or not (
            1 <= seeds <= limits.max_seeds
        ):
            raise SourceError("seeds", f"an integer in 1..{limits.max_seeds}", seeds)
        for key, lo in (("umed", 4.5), ("af", 1e-9), ("artime", 0.0), ("deadline", 0.0)):
            value = spec.get(key)
            if value is not None and not (
                isinstance(value, (int, float)) and not isinstance(value, bool) and value >= lo
            ):
                raise SourceError(key, f"a number >= {lo:g}", value)
        policy = spec.get("policy", "ff")
        from schedbench.simcore.reservations.fit import FIT_POLICIES

        if policy not in FIT_POLICIES:
            raise SourceError("policy", f"one of {', '.join(sorted(FIT_POLICIES))}", policy)

    def count(self, spec: dict[str, Any], base: Path) -> int:
        return int(spec.get("seeds", 1)) * -(-int(spec.get("jobs", 200)) // spec.get("every", 1))

    def build(self, spec: dict[str, Any], base: Path) -> Iterator[SourceInstance]:
        jobs, every = int(spec.get("jobs", 200)), int(spec.get("every", 1))
        policy = str(spec.get("policy", "ff"))
        for seed in range(1, int(spec.get("seeds", 1)) + 1):
            requests = generate_ar_requests(
                jobs,
                seed=seed,
                umed=float(spec.get("umed", 7.0)),
                af=float(spec.get("af", 1.0)),
                artime=float(spec.get("artime", 3.0)),
                deadline=float(spec.get("deadline", 3.0)),
            )
            run = serve(requests, PAPER_PES, policy)
            held: list[tuple[int, int, int]] = []
            for k, outcome in enumerate(run.outcomes):
                r = outcome.request
                if k % every == 0:
                    yield SourceInstance(
                        f"seed{seed}-req{r.id}",
                        problem_for(r, PAPER_PES, held),
                        None,
                        {"seed": seed, "request": r.id, "holdings_by": policy},
                    )
                if outcome.accepted and outcome.start is not None:
                    held.append((outcome.start, outcome.start + r.duration, outcome.mask))
                held = [h for h in held if h[1] > r.arrival]
