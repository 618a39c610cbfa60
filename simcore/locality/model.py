"""The data-locality model's types: the platform, the workload, the run options.

Sources: ``papers/locality-evaluation-model.md`` (the "model note"; §n below are its sections)
and ``papers/locality-aware-batch-scheduling.tex`` (the draft). The note describes the published
model and the authors' reference simulator as it really behaves; where the two differ we offer a
**reference** mode (the simulator, job for job) and a **paper** mode (the published text), and
every point of difference is a named field of :class:`LocalityOptions`.

Platform (§1): identical nodes of ``cores_per_node`` cores, each reading input files from a
shared store over its own link of ``bandwidth_gbps``; no topology, no contention; node memory
plays no role in any decision (it only fixes the scan order, which is the node index here).

Workload (§2): one job per line of the authors' 24-token format (``instances/locality_io.py``
reads and writes it); a job runs on one node on 1..``cores_per_node`` cores; ``delay`` is the
run time once its input is ready (the log's run time + 120 s), ``walltime`` the limit at which
it is killed (load time included); ``file``/``file_gb`` its input file (file 0 = no input
file, as in the reference); ``category`` −2 (running at the start), −1 (queued before the
warm-up), 0 (warm-up), 1 (**evaluated**), 2 (the day after).

Single precision (§5, §8). The reference stores file sizes and the bandwidth as C ``float`` and
computes load times and scores in single precision; :func:`load_seconds` and the schedulers
reproduce that exactly with ``numpy.float32`` (``size / bandwidth`` truncated: 13 cores, 83.2 GB,
loads in 831 s, not 832). Paper mode computes in double precision.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

import numpy as np

from schedbench.simcore.errors import ConfigError, SchedbenchError

__all__ = [
    "CATEGORIES",
    "EVALUATED",
    "LocalityOptions",
    "LocalityPlatform",
    "LocalityWorkload",
    "LocalityWorkloadError",
    "load_seconds",
]

#: Job categories of the workload format (§2, §3.7).
CATEGORIES = (-2, -1, 0, 1, 2)
RUNNING_AT_START, QUEUED_BEFORE, WARM_UP, EVALUATED, DAY_AFTER = CATEGORIES


class LocalityWorkloadError(SchedbenchError, ValueError):
    """A locality workload that breaks the model's rules; the message names the file, the line
    and the token when the workload was read from a file."""


@dataclass(frozen=True, slots=True)
class LocalityPlatform:
    """``nodes`` identical nodes in a fixed scan order (node ``n`` is scanned ``n``-th; ties go
    to the earlier node, §1), ``cores_per_node`` cores each, ``bandwidth_gbps`` per node link.

    ``memory_gb`` is informative only (the reference machine file: 450 × 128 GB, 32 × 256 GB,
    4 × 1 TB); it never enters a decision (§1, §9)."""

    name: str = "locality"
    nodes: int = 486
    cores_per_node: int = 20
    bandwidth_gbps: float = 0.1
    memory_gb: tuple[int, ...] = ()
    description: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.nodes, bool) or not isinstance(self.nodes, int) or self.nodes < 1:
            raise ConfigError(f"platform nodes: expected an integer >= 1, got {self.nodes!r}")
        cpn = self.cores_per_node
        if isinstance(cpn, bool) or not isinstance(cpn, int) or not 1 <= cpn <= 62:
            raise ConfigError(f"platform cores_per_node: expected an integer in 1..62, got {cpn!r}")
        bw = self.bandwidth_gbps
        if (
            isinstance(bw, bool)
            or not isinstance(bw, (int, float))
            or not (math.isfinite(bw) and bw > 0)
        ):
            raise ConfigError(f"platform bandwidth_gbps: expected a number > 0, got {bw!r}")
        if self.memory_gb and len(self.memory_gb) != self.nodes:
            raise ConfigError(
                f"platform memory_gb: expected {self.nodes} sizes (one per node), got {len(self.memory_gb)}"
            )

    @property
    def total_cores(self) -> int:
        return self.nodes * self.cores_per_node


def load_seconds(size_gb: float | np.ndarray, bandwidth_gbps: float, *, single: bool) -> Any:
    """Whole seconds to load ``size_gb`` at ``bandwidth_gbps`` (§5): ``size / bandwidth``
    truncated. ``single`` reproduces the reference's C ``float`` division (so 83.2 GB at
    0.1 GB/s is 831 s); otherwise the quotient is taken in double precision, rounded to 6
    decimals (so decimal sizes divide exactly) and truncated."""
    if single:
        q32 = np.float32(size_gb) / np.float32(bandwidth_gbps)
        return np.trunc(q32).astype(np.int64)
    q = np.round(np.asarray(size_gb, dtype=np.float64) / float(bandwidth_gbps), 6)
    return np.trunc(q).astype(np.int64)


_COLUMNS_INT = ("job_id", "submit", "delay", "walltime", "cores", "file", "category")
_COLUMNS_INT2 = ("hist_start", "hist_node", "user_id")


@dataclass(frozen=True, slots=True, eq=False)
class LocalityWorkload:
    """Jobs as columns (file order, which is submission order), read-only numpy arrays.

    ``user`` keeps the raw user tokens; ``user_id`` the reference's user ids (a new integer at
    every change of token from the previous line, §2, so a returning user gets a new id).
    ``lines`` (optional) are the source line numbers, for error messages.
    """

    job_id: np.ndarray
    submit: np.ndarray
    delay: np.ndarray
    walltime: np.ndarray
    cores: np.ndarray
    user: tuple[str, ...]
    file: np.ndarray
    file_gb: np.ndarray
    category: np.ndarray
    hist_start: np.ndarray
    hist_node: np.ndarray
    user_id: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    lines: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    source: str = ""

    def __post_init__(self) -> None:
        n = len(self.job_id)
        set_ = object.__setattr__
        for name in (*_COLUMNS_INT, "hist_start", "hist_node"):
            arr = np.array(getattr(self, name), dtype=np.int64)
            if arr.shape != (n,):
                raise LocalityWorkloadError(f"workload column {name}: expected {n} values")
            arr.setflags(write=False)
            set_(self, name, arr)
        gb = np.array(self.file_gb, dtype=np.float64)
        if gb.shape != (n,):
            raise LocalityWorkloadError(f"workload column file_gb: expected {n} values")
        gb.setflags(write=False)
        set_(self, "file_gb", gb)
        users = tuple(str(u) for u in self.user)
        if len(users) != n:
            raise LocalityWorkloadError(f"workload column user: expected {n} tokens")
        set_(self, "user", users)
        uid = np.asarray(self.user_id, dtype=np.int64)
        if uid.size == 0 and n:
            uid = user_ids_from_tokens(users)
        if uid.shape != (n,):
            raise LocalityWorkloadError(f"workload column user_id: expected {n} values")
        uid = np.array(uid)
        uid.setflags(write=False)
        set_(self, "user_id", uid)
        lines = np.asarray(self.lines, dtype=np.int64)
        if lines.size == 0:
            lines = np.arange(1, n + 1, dtype=np.int64)
        lines = np.array(lines)
        lines.setflags(write=False)
        set_(self, "lines", lines)

    def __len__(self) -> int:
        return len(self.job_id)

    @property
    def evaluated(self) -> np.ndarray:
        """Indices of the category-1 (evaluated) jobs."""
        return np.flatnonzero(self.category == EVALUATED)

    def where(self, i: int) -> str:
        """``FILE:LINE`` (or ``job ID``) of job row ``i``, for messages."""
        line = int(self.lines[i])
        return f"{self.source}:{line}" if self.source else f"line {line}"

    def validate(self, cores_per_node: int = 20) -> None:
        """The rules every workload must meet before a run (what we refuse as bad input): cores in
        1..``cores_per_node``, categories in −2..2, positive delay and walltime, a file id
        reused only with the same size, submission times non-decreasing, job ids distinct. Raises
        :class:`LocalityWorkloadError` naming the line."""
        n = len(self)
        bad = np.flatnonzero((self.cores < 1) | (self.cores > cores_per_node))
        if bad.size:
            i = int(bad[0])
            raise LocalityWorkloadError(
                f"{self.where(i)}: token 'cores:' expected an integer in 1..{cores_per_node}, "
                f"got {int(self.cores[i])}"
            )
        bad = np.flatnonzero(~np.isin(self.category, CATEGORIES))
        if bad.size:
            i = int(bad[0])
            raise LocalityWorkloadError(
                f"{self.where(i)}: token 'workload:' expected one of -2, -1, 0, 1, 2, got "
                f"{int(self.category[i])}"
            )
        for name in ("delay", "walltime"):
            col = getattr(self, name)
            bad = np.flatnonzero(col < 1)
            if bad.size:
                i = int(bad[0])
                raise LocalityWorkloadError(
                    f"{self.where(i)}: token '{name}:' expected an integer >= 1, got {int(col[i])}"
                )
        bad = np.flatnonzero((self.file < 0) | ~np.isfinite(self.file_gb) | (self.file_gb < 0))
        if bad.size:
            i = int(bad[0])
            raise LocalityWorkloadError(
                f"{self.where(i)}: tokens 'data:'/'data_size:' expected a file id >= 0 and a "
                f"size >= 0, got {int(self.file[i])} / {self.file_gb[i]!r}"
            )
        if n > 1:
            bad = np.flatnonzero(np.diff(self.submit) < 0)
            if bad.size:
                i = int(bad[0]) + 1
                raise LocalityWorkloadError(
                    f"{self.where(i)}: token 'subtime:' expected lines sorted by submission "
                    f"time, got {int(self.submit[i])} after {int(self.submit[i - 1])}"
                )
        if n > 1:
            # the reference deletes jobs by id: two jobs with one id would leave one queued
            # forever, which used to be reported as a job that can never start
            order = np.argsort(self.job_id, kind="stable")
            same = np.flatnonzero(self.job_id[order][1:] == self.job_id[order][:-1])
            if same.size:
                i = int(order[same + 1].min())
                raise LocalityWorkloadError(
                    f"{self.where(i)}: token 'id:' expected each job id once, got "
                    f"{int(self.job_id[i])} again"
                )
        seen: dict[int, tuple[float, int]] = {}
        for i in range(n):
            f = int(self.file[i])
            if f == 0:
                continue
            size = float(self.file_gb[i])
            old = seen.get(f)
            if old is None:
                seen[f] = (size, i)
            elif old[0] != size:
                raise LocalityWorkloadError(
                    f"{self.where(i)}: token 'data_size:' file {f} was opened with size "
                    f"{old[0]:.6f} GB at {self.where(old[1])}, got {size:.6f}"
                )
        if not np.any(self.category == WARM_UP) and np.any(self.category != RUNNING_AT_START):
            # the reference starts its clock at the first category-0 submission (or at 0)
            pass

    def subset(self, rows: Sequence[int] | np.ndarray) -> LocalityWorkload:
        """The workload restricted to ``rows`` (kept in order)."""
        idx = np.asarray(rows, dtype=np.int64)
        cols = {
            f.name: getattr(self, f.name)[idx]
            for f in fields(self)
            if f.name not in ("user", "source")
        }
        return LocalityWorkload(**cols, user=tuple(self.user[i] for i in idx), source=self.source)

    def with_changes(self, **changes: Any) -> LocalityWorkload:
        return replace(self, **changes)


def user_ids_from_tokens(tokens: Sequence[str]) -> np.ndarray:
    """The reference's user ids (§2): a new integer (from 0) whenever the token differs from the
    previous line's."""
    out = np.zeros(len(tokens), dtype=np.int64)
    current = -1
    prev: str | None = None
    for i, tok in enumerate(tokens):
        if tok != prev:
            current += 1
            prev = tok
        out[i] = current
    return out


Mode = Literal["reference", "paper"]


@dataclass(frozen=True, slots=True, kw_only=True)
class LocalityOptions:
    """How a run behaves; every difference between the reference simulator and the published
    text is one named field (model note §4–§7). Build with :meth:`reference` or :meth:`paper`
    and override single fields with :meth:`but`.

    ``gate_s``
        §4 the scheduler may run only in an *open* second; events in closed seconds are not
        saved (reference 30; paper 0: every second is open).
    ``gate_clock``
        §4 which seconds are open when ``gate_s`` > 0. ``"grid"`` (the reference): the
        reference keeps a "last call" time that starts at the clock's first second t0 and moves
        to ``t`` in *every* second where ``t − last call ≥ gate_s``, whether or not the
        scheduler then runs (``MBSS/C/main.c``, ``main``: the ``last_scheduler_call <= t - 30``
        block). Its clock visits every second, so the open seconds are exactly t0 + k·gate_s,
        k ≥ 1: a fixed grid, and a job end or an arrival replans only when it falls on it.
        ``"since-run"``: the note's wording taken literally, "at least ``gate_s`` since the
        scheduler last *ran*", so the first event after a quiet spell always opens the gate
        (what this project did before the calibration; on the calibration day it gives FCFS a mean
        stretch of 4.9 against the reference's 21.3). The grid never opens on a sparse
        workload's events often enough for every job to be planned: the reference then loops
        until its clock overflows, we raise :class:`~simcore.errors.SimulationError`.
    ``replan``
        §4 ``"reference"``: a job end clears all plans and replans the queue, arrivals without
        an end are planned behind the existing plans (held in a separate list the full replan
        does not see); ``"always"``: every second with an end or an arrival clears all plans and
        replans the whole queue, arrivals included (paper).
    ``load_term_from``
        §6 TL when the file is still loading at EAT: ``"now"`` load completion − now
        (reference), ``"eat"`` load completion − EAT (paper).
    ``leo_sticky``
        §6 LEO: once the scan meets a node that can start the job now, (1, 0) applies to it and
        every later node of that job's scan (reference); else only to such nodes (paper).
    ``single_precision``
        §5, §6 sizes, load times and scores in C ``float`` with the score truncated to an
        integer (reference); double precision, untruncated (paper).
    ``lem_threshold_pct``
        §6 LEM uses EFT weights while the share of nodes running a job (integer percent) is
        below this (100 in the published version; the draft's 80 is out of date).
    ``bf_hole_quirk``
        §7 the reference's hole-count test that is always true (a node may be a backfill
        candidate when its free cores alone suffice); ``False`` requires a usable hole core.
    ``weights_lea``
        §6 (W_load, W_evict) of LEA/LEO/LEM: (500, 1).
    ``score_horizon``
        §4 where EFT/LEA/LEO/LEM stop planning: ``"first-too-big"`` at the first job asking
        for more cores than remain idle now and unclaimed (the published simulator);
        ``"all-claimed"`` once every core is claimed, as FCFS (the draft's reproducibility
        package).
    ``stop_on_never_start``
        raise :class:`~simcore.errors.SimulationError` when no event is left while an evaluated
        job has not started (instead of the reference's endless clock).
    """

    mode: Mode = "reference"
    gate_s: int = 30
    gate_clock: Literal["grid", "since-run"] = "grid"
    replan: Literal["reference", "always"] = "reference"
    load_term_from: Literal["now", "eat"] = "now"
    leo_sticky: bool = True
    single_precision: bool = True
    lem_threshold_pct: int = 100
    bf_hole_quirk: bool = True
    weights_lea: tuple[int, int] = (500, 1)
    score_horizon: Literal["first-too-big", "all-claimed"] = "first-too-big"
    stop_on_never_start: bool = True

    def __post_init__(self) -> None:
        if self.mode not in ("reference", "paper"):
            raise ConfigError(
                f"locality option mode: expected reference or paper, got {self.mode!r}"
            )
        if isinstance(self.gate_s, bool) or not isinstance(self.gate_s, int) or self.gate_s < 0:
            raise ConfigError(
                f"locality option gate_s: expected an integer >= 0, got {self.gate_s!r}"
            )
        if self.gate_clock not in ("grid", "since-run"):
            raise ConfigError(
                f"locality option gate_clock: expected grid or since-run, got {self.gate_clock!r}"
            )
        if self.replan not in ("reference", "always"):
            raise ConfigError(
                f"locality option replan: expected reference or always, got {self.replan!r}"
            )
        if self.load_term_from not in ("now", "eat"):
            raise ConfigError(
                f"locality option load_term_from: expected now or eat, got {self.load_term_from!r}"
            )
        if self.score_horizon not in ("first-too-big", "all-claimed"):
            raise ConfigError(
                "locality option score_horizon: expected first-too-big or all-claimed, got "
                f"{self.score_horizon!r}"
            )
        pct = self.lem_threshold_pct
        if isinstance(pct, bool) or not isinstance(pct, int) or not 0 <= pct <= 101:
            raise ConfigError(f"locality option lem_threshold_pct: expected 0..101, got {pct!r}")
        w = self.weights_lea
        if (
            not isinstance(w, tuple)
            or len(w) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in w)
        ):
            raise ConfigError(f"locality option weights_lea: expected two integers >= 0, got {w!r}")

    @classmethod
    def reference(cls, **changes: Any) -> LocalityOptions:
        """The authors' reference simulator (model note: reference mode)."""
        return cls(**changes)

    @classmethod
    def paper(cls, **changes: Any) -> LocalityOptions:
        """The published text's rules: load term from EAT, LEO per node, the scheduler runs at
        every event (no gate, full replan), double precision without truncation."""
        base: dict[str, Any] = {
            "mode": "paper",
            "gate_s": 0,
            "replan": "always",
            "load_term_from": "eat",
            "leo_sticky": False,
            "single_precision": False,
        }
        base.update(changes)
        return cls(**base)

    @classmethod
    def for_mode(cls, mode: str, **changes: Any) -> LocalityOptions:
        if mode == "reference":
            return cls.reference(**changes)
        if mode == "paper":
            return cls.paper(**changes)
        raise ConfigError(f"locality mode: expected reference or paper, got {mode!r}")

    def but(self, **changes: Any) -> LocalityOptions:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            out[f.name] = list(v) if isinstance(v, tuple) else v
        return out

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> LocalityOptions:
        known = {f.name for f in fields(cls)}
        extra = sorted(set(data) - known)
        if extra:
            raise ConfigError(
                f"locality option {extra[0]!r}: expected one of {', '.join(sorted(known))}"
            )
        d = dict(data)
        if "weights_lea" in d:
            d["weights_lea"] = tuple(d["weights_lea"])
        mode = d.pop("mode", "reference")
        return cls.for_mode(mode, **d)
