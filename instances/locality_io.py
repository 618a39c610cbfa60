"""Locality workloads: the authors' 24-token format, the SWF converter, a synthetic generator.

Format (``papers/locality-evaluation-model.md`` §2), one job per line, whitespace-separated::

    { id: I subtime: S delay: D walltime: W cores: C user: U data: F data_size: Z workload: K start_time_from_history: H start_node_from_history: N }

:func:`read_locality` is strict where the reference's ``fscanf``/``atoi`` reader is lenient:
every line must hold exactly these 24 tokens with the labels in this order, integers where
integers belong, a finite size; blank lines are skipped; then the model's rules
(``LocalityWorkload.validate``: cores 1..20, a file id reused only with its first size,
non-decreasing submission times). Errors name the file, the line and the token. The reference
reads the user token only to number users (a new id at every change from the previous line);
we keep both the token and that id.

:func:`swf_to_locality` builds such a workload from any SWF trace with the construction rules
of §3; :func:`generate_locality` draws a seeded synthetic one with user sessions.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from schedbench.simcore.locality.model import (
    DAY_AFTER,
    EVALUATED,
    QUEUED_BEFORE,
    RUNNING_AT_START,
    WARM_UP,
    LocalityPlatform,
    LocalityWorkload,
    LocalityWorkloadError,
)
from schedbench.simcore.safeio import InputFileError, open_output, read_text

__all__ = [
    "GENERATOR_PREFIX",
    "ConversionReport",
    "generate_locality",
    "parse_generator_spec",
    "read_locality",
    "read_locality_machine",
    "replay_factor",
    "swf_to_locality",
    "trace_processors",
    "write_locality",
]

#: The labels of the 24-token line, in order (tokens 2, 4, ..., 22; token 1 is "{", 24 "}").
LABELS = (
    "id:",
    "subtime:",
    "delay:",
    "walltime:",
    "cores:",
    "user:",
    "data:",
    "data_size:",
    "workload:",
    "start_time_from_history:",
    "start_node_from_history:",
)
_INT_FIELDS = {
    "id:",
    "subtime:",
    "delay:",
    "walltime:",
    "cores:",
    "data:",
    "workload:",
    "start_time_from_history:",
    "start_node_from_history:",
}

#: §3.5: a job joins the current file's chain when submitted at most this long after the chain's
#: last job (same user token, same cores).
CHAIN_WINDOW_S = 800
#: §3.6: file size per core (GB); a full 20-core node reads 128 GB.
GB_PER_CORE = 6.4
#: §3.2: the delay is the log's run time plus this (s).
DELAY_PAD_S = 120
DAY_S = 86_400


def _open_text(path: Path) -> str:
    return read_text(path)


def read_locality(path: str | Path) -> LocalityWorkload:
    """Read a workload in the 24-token format (see the module docstring)."""
    p = Path(path)
    src = str(p)
    try:
        text = _open_text(p)
    except InputFileError as exc:  # names the file and what is wrong with it
        raise LocalityWorkloadError(str(exc)) from exc
    return parse_locality(text.splitlines(), source=src)


def parse_locality(lines: Iterable[str], *, source: str = "<text>") -> LocalityWorkload:
    """Parse lines of the 24-token format; ``source`` names them in errors."""
    cols: dict[str, list[Any]] = {label: [] for label in LABELS}
    line_no: list[int] = []
    for n, raw in enumerate(lines, start=1):
        tokens = raw.split()
        if not tokens:
            continue
        where = f"{source}:{n}"
        if len(tokens) != 24:
            raise LocalityWorkloadError(
                f"{where}: expected 24 whitespace-separated tokens "
                f"('{{ id: I subtime: S ... start_node_from_history: N }}'), got {len(tokens)}"
            )
        if tokens[0] != "{":
            raise LocalityWorkloadError(f"{where}: token 1: expected '{{', got {tokens[0]!r}")
        if tokens[23] != "}":
            raise LocalityWorkloadError(f"{where}: token 24: expected '}}', got {tokens[23]!r}")
        for k, label in enumerate(LABELS):
            pos = 1 + 2 * k
            if tokens[pos] != label:
                raise LocalityWorkloadError(
                    f"{where}: token {pos + 1}: expected {label!r}, got {tokens[pos]!r}"
                )
            value = tokens[pos + 1]
            if label in _INT_FIELDS:
                try:
                    v: Any = int(value)
                except ValueError as exc:
                    raise LocalityWorkloadError(
                        f"{where}: token {pos + 2} ({label} value): expected an integer, got "
                        f"{value!r}"
                    ) from exc
                if not -(2**63) <= v < 2**63:
                    raise LocalityWorkloadError(
                        f"{where}: token {pos + 2} ({label} value): expected a 64-bit integer, "
                        f"got {value!r}"
                    )
            elif label == "data_size:":
                try:
                    v = float(value)
                except ValueError as exc:
                    raise LocalityWorkloadError(
                        f"{where}: token {pos + 2} (data_size: value): expected a number of GB, "
                        f"got {value!r}"
                    ) from exc
                if not math.isfinite(v) or v < 0:
                    raise LocalityWorkloadError(
                        f"{where}: token {pos + 2} (data_size: value): expected a finite size >= 0, "
                        f"got {value!r}"
                    )
            else:
                v = value
            cols[label].append(v)
        line_no.append(n)
    wl = LocalityWorkload(
        job_id=np.array(cols["id:"], dtype=np.int64),
        submit=np.array(cols["subtime:"], dtype=np.int64),
        delay=np.array(cols["delay:"], dtype=np.int64),
        walltime=np.array(cols["walltime:"], dtype=np.int64),
        cores=np.array(cols["cores:"], dtype=np.int64),
        user=tuple(cols["user:"]),
        file=np.array(cols["data:"], dtype=np.int64),
        file_gb=np.array(cols["data_size:"], dtype=np.float64),
        category=np.array(cols["workload:"], dtype=np.int64),
        hist_start=np.array(cols["start_time_from_history:"], dtype=np.int64),
        hist_node=np.array(cols["start_node_from_history:"], dtype=np.int64),
        lines=np.array(line_no, dtype=np.int64),
        source=source,
    )
    wl.validate()
    return wl


def format_line(w: LocalityWorkload, i: int) -> str:
    return (
        f"{{ id: {int(w.job_id[i])} subtime: {int(w.submit[i])} delay: {int(w.delay[i])} "
        f"walltime: {int(w.walltime[i])} cores: {int(w.cores[i])} user: {w.user[i]} "
        f"data: {int(w.file[i])} data_size: {float(w.file_gb[i]):.6f} "
        f"workload: {int(w.category[i])} start_time_from_history: {int(w.hist_start[i])} "
        f"start_node_from_history: {int(w.hist_node[i])} }}"
    )


def write_locality(w: LocalityWorkload, path: str | Path) -> Path:
    """Write ``w`` in the 24-token format (sizes with 6 decimals, as the authors' files)."""
    p = Path(path)
    with open_output(p) as fh:
        for i in range(len(w)):
            fh.write(format_line(w, i) + "\n")
    return p


#: The labels of a machine-file line: ``{ id: N memory: GB bandwidth: GB/s core: C }``.
MACHINE_LABELS = ("id:", "memory:", "bandwidth:", "core:")


def read_locality_machine(path: str | Path) -> LocalityPlatform:
    """Read the authors' machine file (one node a line, ``{ id: N memory: GB bandwidth: GB/s
    core: C }``, ids 0, 1, ... in scan order; dataset ``locality-day/machine``) as a platform.
    The model needs one bandwidth and one core count for every node (§1); memory only fixes
    the scan order and is kept as ``memory_gb``. Errors name the file, the line and the token."""
    p = Path(path)
    try:
        text = _open_text(p)
    except InputFileError as exc:
        raise LocalityWorkloadError(f"machine file {exc}") from exc
    memory: list[int] = []
    seen: dict[str, tuple[float, int]] = {}
    for n, raw in enumerate(text.splitlines(), start=1):
        tokens = raw.split()
        if not tokens:
            continue
        where = f"{p}:{n}"
        if len(tokens) != 10 or tokens[0] != "{" or tokens[9] != "}":
            raise LocalityWorkloadError(
                f"{where}: expected '{{ id: N memory: GB bandwidth: GB/s core: C }}' (10 tokens)"
            )
        values: dict[str, float] = {}
        for k, label in enumerate(MACHINE_LABELS):
            pos = 1 + 2 * k
            if tokens[pos] != label:
                raise LocalityWorkloadError(
                    f"{where}: token {pos + 1}: expected {label!r}, got {tokens[pos]!r}"
                )
            try:
                values[label] = float(tokens[pos + 1])
            except ValueError as exc:
                raise LocalityWorkloadError(
                    f"{where}: token {pos + 2} ({label} value): expected a number, got "
                    f"{tokens[pos + 1]!r}"
                ) from exc
        if values["id:"] != len(memory):
            raise LocalityWorkloadError(
                f"{where}: token 3 (id: value): expected node {len(memory)} (ids in scan order "
                f"from 0), got {tokens[2]!r}"
            )
        for label in ("bandwidth:", "core:"):
            first = seen.setdefault(label, (values[label], n))
            if values[label] != first[0]:
                raise LocalityWorkloadError(
                    f"{where}: token '{label}' expected {first[0]:g} as on line {first[1]} (the "
                    f"model has one value for every node), got {values[label]:g}"
                )
        memory.append(int(values["memory:"]))
    if not memory:
        raise LocalityWorkloadError(f"{p}: no node in the machine file")
    cores = seen["core:"][0]
    if cores != int(cores) or cores < 1:
        raise LocalityWorkloadError(f"{p}: token 'core:' expected an integer >= 1, got {cores:g}")
    return LocalityPlatform(
        name=p.name.split(".")[0],
        nodes=len(memory),
        cores_per_node=int(cores),
        bandwidth_gbps=seen["bandwidth:"][0],
        memory_gb=tuple(memory),
        description=f"machine file {p.name}: {len(memory)} nodes x {int(cores)} cores",
    )


# =================================================================================================
# SWF -> locality workload (§3)
# =================================================================================================
@dataclass(frozen=True, slots=True)
class ConversionReport:
    """What the converter dropped or changed, rule -> count, and the window it used."""

    counts: dict[str, int]
    warmup_start: int
    evaluated_start: int
    evaluated_end: int
    day_after_end: int
    nodes_suggested: int
    #: submissions were compressed by this factor (1: the trace's own times; see
    #: :func:`swf_to_locality`)
    arrival_factor: float = 1.0
    #: the last kept-or-dropped submission after cleaning, on the (compressed) time axis,
    #: relative to the workload's origin: how far the trace reaches
    trace_end: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "counts": dict(self.counts),
            "warmup_start": self.warmup_start,
            "evaluated_start": self.evaluated_start,
            "evaluated_end": self.evaluated_end,
            "day_after_end": self.day_after_end,
            "nodes_suggested": self.nodes_suggested,
            "arrival_factor": self.arrival_factor,
            "trace_end": self.trace_end,
        }


@dataclass(slots=True)
class _Row:
    submit: int
    start: int
    end: int
    run: int
    walltime: int
    cores: int
    user: str
    hist_node: int
    #: the submission time the §3.5 file chain reads: the log's own, also when ``submit`` has
    #: been compressed (None: ``submit``)
    chain_t: int | None = None


def _chain_files(rows: Sequence[_Row]) -> tuple[list[int], list[float]]:
    """§3.5–3.6: one pass in submission order; a job reuses the current file when it has the
    chain's user token and core count and comes at most 800 s after the chain's last job (the
    window slides); otherwise it opens the next file, of 6.4 GB per core."""
    files: list[int] = []
    sizes: list[float] = []
    fid = 0
    chain_user: str | None = None
    chain_cores = -1
    chain_last = 0
    size = 0.0
    for r in rows:
        t = r.submit if r.chain_t is None else r.chain_t
        if (
            chain_user is not None
            and r.user == chain_user
            and r.cores == chain_cores
            and t - chain_last <= CHAIN_WINDOW_S
        ):
            chain_last = t
        else:
            fid += 1
            chain_user, chain_cores, chain_last = r.user, r.cores, t
            size = round(GB_PER_CORE * r.cores, 6)
        files.append(fid)
        sizes.append(size)
    return files, sizes


def swf_to_locality(
    table: np.ndarray,
    *,
    evaluated_start: int | None = None,
    evaluated_days: int = 7,
    cores_per_node: int = 20,
    nodes: int | None = None,
    arrival_factor: float = 1.0,
    evaluated_offset: int | None = None,
    source: str = "",
) -> tuple[LocalityWorkload, ConversionReport]:
    """Build a locality workload from an SWF table (n × 18, the fields of ``instances/swf.py``)
    with the rules of §3:

    1. cancelled jobs (status 5) and jobs without a run time (−1) are dropped; a job without a
       wait time (model traces such as Lublin's) is taken to start at its submission, so its
       history start and the −2 / −1 categories follow from that (our choice; counted); a job asking for 0 cores counts as 1 (requested processors, else allocated);
    2. delay = run time + 120 s; walltime = the requested time (the run time + 120 s when the
       trace has none);
    3. a job of more than ``cores_per_node`` cores becomes ⌈cores/20⌉ jobs of 20 cores with the
       same submission time, delay, walltime and user, each with one node of the allocation as
       its history node (SWF records no node list: nodes are numbered round-robin in start
       order, 1-based, over ``nodes``);
    4. stable sort by submission time; with ``arrival_factor`` f ≠ 1 the submissions are then
       compressed, ``submit' = t_first + ⌊(submit − t_first) / f⌋`` (:func:`_compress_arrivals`:
       waits, run times and walltimes kept, so a trace is replayed f times as densely on a
       machine f times as large — ``replay_factor``); 5–6. files by the sliding 800 s chain on
       the log's own submission times (a session of the trace stays one file whatever f), 6.4
       GB per core;
    7. windows, on the compressed time axis: the warm-up day before ``evaluated_start``
       (default: ``evaluated_offset`` seconds, else one day, after the first submission),
       ``evaluated_days`` evaluated days, one day after; a job running when the
       warm-up starts is −2 (jobs already finished then are dropped), one submitted before it
       but not yet started −1, then 0, 1, 2 by submission; later jobs are dropped.

    Times are seconds from the first kept job's submission; ids are renumbered from 1 in file
    order (the reference deletes jobs by id, so ids must be unique after the split).
    """
    if table.ndim != 2 or table.shape[1] < 12:
        raise LocalityWorkloadError(f"{source or 'SWF table'}: expected rows of 18 SWF fields")
    counts: dict[str, int] = {
        "cancelled": 0,
        "no_times": 0,
        "no_wait_assumed_0": 0,
        "zero_cores": 0,
        "split_jobs": 0,
        "split_copies": 0,
        "finished_before_warmup": 0,
        "after_window": 0,
        "no_requested_time": 0,
    }
    n_nodes, base = _clean(table, cores_per_node, nodes, counts)
    if not base:
        raise LocalityWorkloadError(f"{source or 'SWF table'}: no job left after cleaning")
    # 3. split multi-node jobs; history nodes round-robin in start order
    rows = _split_multi_node(base, cores_per_node, n_nodes, counts)
    # 4. stable sort by submission time
    rows.sort(key=lambda r: r.submit)
    if arrival_factor != 1.0:
        _compress_arrivals(rows, arrival_factor)
    # 7. windows
    t_first = rows[0].submit
    if evaluated_start is None:
        evaluated_start = t_first + (DAY_S if evaluated_offset is None else evaluated_offset)
    ev_start = evaluated_start
    warm = ev_start - DAY_S
    ev_end = ev_start + evaluated_days * DAY_S
    after = ev_end + DAY_S
    kept = _categorise(rows, warm, ev_start, ev_end, after, counts)
    if not kept:
        raise LocalityWorkloadError(f"{source or 'SWF table'}: no job falls in the window")
    # 5-6. files, on the kept jobs in submission order
    files, sizes = _chain_files([r for r, _ in kept])
    origin = kept[0][0].submit
    n = len(kept)
    wl = LocalityWorkload(
        job_id=np.arange(1, n + 1, dtype=np.int64),
        submit=np.array([r.submit - origin for r, _ in kept], dtype=np.int64),
        delay=np.array([r.run + DELAY_PAD_S for r, _ in kept], dtype=np.int64),
        walltime=np.array([r.walltime for r, _ in kept], dtype=np.int64),
        cores=np.array([r.cores for r, _ in kept], dtype=np.int64),
        user=tuple(r.user for r, _ in kept),
        file=np.array(files, dtype=np.int64),
        file_gb=np.array(sizes, dtype=np.float64),
        category=np.array([c for _, c in kept], dtype=np.int64),
        hist_start=np.array([r.start - origin for r, _ in kept], dtype=np.int64),
        hist_node=np.array([r.hist_node for r, _ in kept], dtype=np.int64),
        source=source,
    )
    wl.validate(cores_per_node)
    report = ConversionReport(
        counts=counts,
        warmup_start=warm - origin,
        evaluated_start=ev_start - origin,
        evaluated_end=ev_end - origin,
        day_after_end=after - origin,
        nodes_suggested=n_nodes,
        arrival_factor=float(arrival_factor),
        trace_end=rows[-1].submit - origin,
    )
    return wl, report


def _clean(
    table: np.ndarray, cores_per_node: int, nodes: int | None, counts: dict[str, int]
) -> tuple[int, list[_Row]]:
    """Steps 1-2 of :func:`swf_to_locality`: the machine's node count (``nodes``, else enough
    for the largest request) and the rows it keeps, in file order (``counts`` updated)."""
    submit = table[:, 1]
    wait = table[:, 2]
    run = table[:, 3]
    alloc = table[:, 4]
    req_procs = table[:, 7]
    req_time = table[:, 8]
    status = table[:, 10]
    user = table[:, 11]
    n_nodes = nodes
    if n_nodes is None:
        peak = int(max(1.0, float(np.max(np.where(req_procs > 0, req_procs, alloc), initial=1.0))))
        n_nodes = max(1, math.ceil(peak / cores_per_node))
    base: list[_Row] = []
    for i in range(table.shape[0]):
        if status[i] == 5:
            counts["cancelled"] += 1
            continue
        if run[i] < 0 or submit[i] < 0:
            counts["no_times"] += 1
            continue
        cores = int(req_procs[i]) if req_procs[i] > 0 else int(alloc[i])
        if cores <= 0:
            counts["zero_cores"] += 1
            cores = 1
        s = int(submit[i])
        if wait[i] < 0:  # a model trace (e.g. Lublin) records no wait: start at submission
            counts["no_wait_assumed_0"] += 1
        st = s + max(int(wait[i]), 0)
        run_s = int(run[i])
        wall = int(req_time[i]) if req_time[i] > 0 else -1
        if wall < 0:
            counts["no_requested_time"] += 1
            wall = run_s + DELAY_PAD_S
        base.append(_Row(s, st, st + run_s, run_s, max(wall, 1), cores, str(int(user[i])), 0))
    return n_nodes, base


#: Most one-node copies the converter makes of one job (a 10^8-processor job would be five
#: million jobs), and most jobs it makes in all.
MAX_SPLIT_COPIES = 100_000
MAX_CONVERTED_JOBS = 10_000_000


def _split_multi_node(
    base: list[_Row], cores_per_node: int, n_nodes: int, counts: dict[str, int]
) -> list[_Row]:
    """Step 3: a job of more than ``cores_per_node`` cores becomes ⌈cores / cores_per_node⌉
    jobs of one node each; history nodes are numbered round-robin in start order."""
    rows: list[_Row] = []
    for r in base:
        if r.cores > cores_per_node:
            k = math.ceil(r.cores / cores_per_node)
            if k > MAX_SPLIT_COPIES or len(rows) + k > MAX_CONVERTED_JOBS:
                raise LocalityWorkloadError(
                    f"a job of {r.cores:,} cores (submitted at {r.submit}) would split into {k:,} "
                    f"one-node jobs: expected at most {MAX_SPLIT_COPIES:,} per job and "
                    f"{MAX_CONVERTED_JOBS:,} in all"
                )
            counts["split_jobs"] += 1
            counts["split_copies"] += k
            rows.extend(
                _Row(r.submit, r.start, r.end, r.run, r.walltime, cores_per_node, r.user, 0)
                for _ in range(k)
            )
        else:
            rows.append(r)
    by_start = sorted(range(len(rows)), key=lambda i: rows[i].start)
    for rank, i in enumerate(by_start):
        rows[i].hist_node = rank % n_nodes + 1
    return rows


def _categorise(
    rows: list[_Row], warm: int, ev_start: int, ev_end: int, after: int, counts: dict[str, int]
) -> list[tuple[_Row, int]]:
    """Step 7: each row with its window category (−2, −1, 0, 1, 2); rows outside the windows
    are dropped (``counts`` updated)."""
    kept: list[tuple[_Row, int]] = []
    for r in rows:
        if r.submit < warm:
            if r.start < warm:
                if r.end <= warm:
                    counts["finished_before_warmup"] += 1
                    continue
                cat = RUNNING_AT_START
            else:
                cat = QUEUED_BEFORE
        elif r.submit < ev_start:
            cat = WARM_UP
        elif r.submit < ev_end:
            cat = EVALUATED
        elif r.submit < after:
            cat = DAY_AFTER
        else:
            counts["after_window"] += 1
            continue
        kept.append((r, cat))
    return kept


def _compress_arrivals(rows: list[_Row], factor: float) -> None:
    """Step 4's compression, in place on rows sorted by submission: each submission moves to
    ``t_first + ⌊(submit − t_first) / factor⌋`` (monotone, so the order stays); the history
    start keeps the log's wait after it and the end the log's run time after that; the chain
    keeps reading the log's own submission time (``chain_t``)."""
    f = float(factor)
    if not (math.isfinite(f) and f > 0):
        raise LocalityWorkloadError(f"arrival_factor: expected a finite number > 0, got {factor!r}")
    t_first = rows[0].submit
    for r in rows:
        wait = r.start - r.submit
        r.chain_t = r.submit
        r.submit = t_first + math.floor((r.submit - t_first) / f)
        r.start = r.submit + wait
        r.end = r.start + r.run


def swf_file_to_locality(
    path: str | Path, **kwargs: Any
) -> tuple[LocalityWorkload, ConversionReport]:
    """Read an SWF file (``instances/swf.py``) and convert it (:func:`swf_to_locality`)."""
    from schedbench.instances.swf import read_swf

    w = read_swf(path)
    return swf_to_locality(np.asarray(w.swf), source=str(path), **kwargs)


# =================================================================================================
# Synthetic workloads with user sessions (tests, benchmarks)
# =================================================================================================
def generate_locality(
    *,
    jobs: int = 2000,
    nodes: int = 20,
    days: int = 1,
    users: int = 40,
    seed: int = 0,
    load: float = 1.1,
    mean_session: float = 6.0,
    pre_share: float = 0.05,
    evaluated_share: float | None = None,
    cores_per_node: int = 20,
) -> LocalityWorkload:
    """A seeded synthetic locality workload with **user sessions**: each user submits sessions
    of a geometric number of jobs (mean ``mean_session``) with the same core count, 0–5 min
    apart (so the §3 chain gives a session one file), session starts uniform within their
    period; run times log-normal (median 20 min) scaled so that the offered load (core-seconds
    over the machine's, over the whole span) is about ``load``, capped at 24 h; walltimes the
    run time + 120 s rounded up to the next hour. Sizes 1, 2, 4, 8, 16 or 20 cores, skewed to
    small jobs as on the evaluated cluster.

    Periods: a quarter day before the warm-up (``pre_share`` of the jobs; their historical
    start comes 0–12 h after submission, so at the warm-up they are running (−2), queued (−1)
    or already done (dropped)), the warm-up day, ``days`` evaluated days (``evaluated_share``
    of the jobs; default in proportion to the duration) and the day after. The rows are built
    as an SWF table and converted with :func:`swf_to_locality`, so the file chain and the
    categories follow the same rules."""
    if jobs < 10 or nodes < 1 or days < 1 or users < 1 or mean_session < 1:
        raise LocalityWorkloadError(
            "generate_locality: expected jobs >= 10, nodes >= 1, days >= 1, users >= 1, "
            "mean_session >= 1"
        )
    if not 0 <= pre_share < 1 or (evaluated_share is not None and not 0 < evaluated_share < 1):
        raise LocalityWorkloadError(
            "generate_locality: expected 0 <= pre_share < 1 and 0 < evaluated_share < 1"
        )
    rng = np.random.default_rng(seed)
    pre = DAY_S // 4
    periods = [
        (0, pre),
        (pre, pre + DAY_S),
        (pre + DAY_S, pre + (1 + days) * DAY_S),
        (pre + (1 + days) * DAY_S, pre + (2 + days) * DAY_S),
    ]
    rest = 1.0 - pre_share
    if evaluated_share is None:
        shares = [pre_share, rest / (days + 2), rest * days / (days + 2), rest / (days + 2)]
    else:
        other = max(rest - evaluated_share, 0.0) / 2
        shares = [pre_share, other, evaluated_share, other]
    span = periods[-1][1]
    size_choices = np.array([1, 1, 1, 2, 4, 8, 16, 20])
    run = np.exp(rng.normal(math.log(1200.0), 1.1, size=jobs))
    cores = np.empty(jobs, dtype=np.int64)
    user = np.empty(jobs, dtype=np.int64)
    submit = np.empty(jobs, dtype=np.int64)
    session_starts: list[int] = []
    i = 0
    while i < jobs:
        k = int(min(jobs - i, rng.geometric(1.0 / mean_session)))
        gaps = rng.integers(0, 300, size=k)
        gaps[0] = 0
        session_starts.append(i)
        cores[i : i + k] = int(rng.choice(size_choices))
        user[i : i + k] = int(rng.integers(users))
        submit[i : i + k] = np.cumsum(gaps)
        i += k
    # sessions placed in their periods; run times scaled to the offered load
    capacity = nodes * cores_per_node * span
    work = float(np.sum(run * cores))
    if load > 0 and work > 0:
        run = run * (load * capacity / work)
    run = np.clip(run, 30, 24 * 3600).astype(np.int64)
    phase = rng.choice(4, size=len(session_starts), p=np.array(shares) / sum(shares))
    lo = np.array([periods[k][0] for k in phase])
    hi = np.array([periods[k][1] for k in phase]) - 600
    starts = (lo + rng.uniform(0, 1, size=len(session_starts)) * (hi - lo)).astype(np.int64)
    bounds = [*session_starts, jobs]
    in_pre = np.zeros(jobs, dtype=bool)
    for k, offset in enumerate(starts):
        submit[bounds[k] : bounds[k + 1]] += offset
        in_pre[bounds[k] : bounds[k + 1]] = phase[k] == 0
    order = np.argsort(submit, kind="stable")
    submit, cores, user, run, in_pre = (
        submit[order],
        cores[order],
        user[order],
        run[order],
        in_pre[order],
    )
    walltime = np.maximum(np.ceil((run + 120) / 3600.0) * 3600, 3600).astype(np.int64)
    wait = np.where(in_pre, rng.integers(0, DAY_S // 2, size=jobs), 0)
    table = np.full((jobs, 18), -1.0)
    table[:, 0] = np.arange(1, jobs + 1)
    table[:, 1] = submit
    table[:, 2] = wait
    table[:, 3] = run
    table[:, 4] = cores
    table[:, 7] = cores
    table[:, 8] = walltime
    table[:, 10] = 1
    table[:, 11] = user
    wl, _ = swf_to_locality(
        table,
        evaluated_start=pre + DAY_S,
        evaluated_days=days,
        cores_per_node=cores_per_node,
        nodes=nodes,
        source=f"generate_locality(jobs={jobs},nodes={nodes},days={days},seed={seed})",
    )
    return wl


# =================================================================================================
# The generator by a spec (``schedbench reproduce locality --workload 'locality:jobs=...'``)
# =================================================================================================
#: A workload spec that starts with this runs :func:`generate_locality`.
GENERATOR_PREFIX = "locality:"
#: The keys of a generator spec: (kind, lowest, highest, what). The bounds keep a run from the
#: command line within minutes and memory (200,000 jobs is about six times the largest case the
#: speed benchmark times) and the values within what the generator's rules mean.
GENERATOR_KEYS: dict[str, tuple[type, float, float, str]] = {
    "jobs": (int, 10, 200_000, "jobs to generate"),
    "nodes": (int, 1, 10_000, "the machine's nodes (default: the platform's)"),
    "days": (int, 1, 30, "evaluated days"),
    "users": (int, 1, 100_000, "users"),
    "seed": (int, 0, 2**32 - 1, "the random seed"),
    "load": (float, 0.01, 10.0, "offered load over the whole span"),
    "mean_session": (float, 1.0, 1_000.0, "mean jobs per user session"),
    "pre_share": (float, 0.0, 0.99, "share of the jobs before the warm-up day"),
    "evaluated_share": (float, 0.01, 0.99, "share of the jobs in the evaluated days"),
}


def parse_generator_spec(spec: str) -> dict[str, Any]:
    """The keyword arguments of :func:`generate_locality` from ``locality:k=v,...`` (keys and
    bounds: :data:`GENERATOR_KEYS`; ``jobs`` is required). Raises
    :class:`LocalityWorkloadError` with one line naming the key and what was expected."""
    where = f"workload {spec!r}"
    if not spec.startswith(GENERATOR_PREFIX):
        raise LocalityWorkloadError(f"{where}: expected {GENERATOR_PREFIX}KEY=VALUE,...")
    body = spec[len(GENERATOR_PREFIX) :].strip()
    out: dict[str, Any] = {}
    for part in body.split(",") if body else []:
        key, sep, text = part.partition("=")
        key, text = key.strip(), text.strip()
        if not sep or not key:
            raise LocalityWorkloadError(f"{where}: expected key=value, got {part!r}")
        if key not in GENERATOR_KEYS:
            raise LocalityWorkloadError(
                f"{where}: unknown key {key!r}; accepted: {', '.join(GENERATOR_KEYS)}"
            )
        if key in out:
            raise LocalityWorkloadError(f"{where}: key {key!r} given twice")
        kind, lo, hi, what = GENERATOR_KEYS[key]
        try:
            value: Any = kind(text)
            ok = lo <= value <= hi
        except ValueError:
            ok = False
        if not ok:
            noun = "an integer" if kind is int else "a number"
            raise LocalityWorkloadError(
                f"{where}: key {key!r} ({what}): expected {noun} in {lo:g}..{hi:g}, got {text!r}"
            )
        out[key] = value
    if "jobs" not in out:
        raise LocalityWorkloadError(
            f"{where}: missing key 'jobs' (jobs to generate, e.g. {GENERATOR_PREFIX}jobs=20000)"
        )
    if "users" in out and out["users"] > out["jobs"]:
        raise LocalityWorkloadError(
            f"{where}: key 'users': expected at most jobs ({out['jobs']}), got {out['users']}"
        )
    return out


# =================================================================================================
# Replaying a trace on a larger machine
# =================================================================================================
def trace_processors(table: np.ndarray, machine_size: int | None) -> tuple[int, str]:
    """The processors of the machine a trace was recorded on, and where the figure comes from:
    the header's ``MaxProcs`` (``machine_size``), else the widest job (requested processors,
    else allocated)."""
    if machine_size:
        return int(machine_size), "the trace's MaxProcs header"
    procs = np.where(table[:, 7] > 0, table[:, 7], table[:, 4])
    return max(1, int(np.max(procs, initial=1.0))), "the trace's widest job (no MaxProcs header)"


def replay_factor(platform_cores: int, processors: int) -> float:
    """The arrival factor that replays a trace recorded on ``processors`` processors on a
    machine of ``platform_cores`` cores at the trace's own offered load: ``platform_cores /
    processors`` (the same jobs, arriving that many times as often; see
    ``bench/reproduce/locality.py``, "Converted traces")."""
    if processors < 1 or platform_cores < 1:
        raise LocalityWorkloadError(
            f"replay factor: expected processors and cores >= 1, got {processors}, {platform_cores}"
        )
    return platform_cores / processors
