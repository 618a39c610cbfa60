"""The Lublin–Feitelson model generated in chunks, for streamed runs of any length.

:func:`iter_lublin` yields the jobs of the model of ``instances/lublin.py`` (same parameters,
same distributions, same documented choices) as :class:`~simcore.stream.JobChunk` objects of
``chunk`` jobs, holding O(``chunk`` + a block per stream) jobs in memory however many are asked
for; :func:`lublin_stream_workload` gathers them into a :class:`~simcore.workload.Workload`
(tests, and comparing a streamed run with the in-memory engine).

Why the jobs differ from :func:`~instances.lublin.generate_lublin` for the same seed
    ``generate_lublin`` draws from one random generator in an order that depends on the
    number of jobs: first ``n`` arrivals of each stream, then the sizes of the merged jobs of
    one stream, then their runtimes, and so on. Job ``i``'s values therefore depend on ``n``,
    and reproducing them in chunks would need the whole first pass before the first chunk.
    Here every stream draws in fixed *blocks* of :data:`BLOCK` consecutive jobs of its own, from
    a generator seeded with ``(seed, stream, block)`` (numpy's ``SeedSequence``): the block's
    gaps, then its sizes, then its runtimes, by the same helpers as ``generate_lublin``. The
    streams' arrival points are carried from block to block (the cumulative sum of the model),
    and the streams are merged lazily by arrival time (ties go to the earlier stream:
    interactive first, as in ``generate_lublin``). So the workload is a deterministic function
    of ``(seed, parameters)``: the first ``k`` jobs do not depend on ``n_jobs`` (a prefix of a
    longer run) nor on ``chunk`` (``tests/instances/test_lublin_stream.py`` checks both). The
    distributions are those of ``generate_lublin``; the individual jobs are not.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from schedbench.instances.lublin import (
    _MODEL_STREAMS,
    BUCKETS,
    LOG_GAP_LIMIT,
    LUBLIN_PARAMS,
    SECONDS_IN_BUCKET,
    LublinStreamParams,
    _gamma_below,
    _job_sizes,
    _runtimes,
    _size_range,
    bucket_weights,
    generate_lublin,
)
from schedbench.simcore.stream import JobChunk
from schedbench.simcore.workload import SWF_INDEX, Workload, WorkloadError

__all__ = ["BLOCK", "iter_lublin", "lublin_stream_workload"]

#: Jobs a stream draws at a time, from its own seeded generator (module docstring).
BLOCK = 1 << 15

_Block = tuple[np.ndarray, np.ndarray, np.ndarray]  # arrival times, sizes, runtimes


def _stream_blocks(
    seed: int,
    k: int,
    stream: LublinStreamParams,
    size_stream: LublinStreamParams,
    size_range: tuple[float, float, float, float],
    nodes: int,
    arrival_factor: float,
) -> Iterator[_Block]:
    """Stream ``k``'s jobs, :data:`BLOCK` at a time (``lublin._arrival_times`` with the points
    carried over from the previous block)."""
    weights = bucket_weights(stream)
    edges = np.concatenate(([0.0], np.cumsum(weights)))
    per_day = edges[-1]
    carried = 0.0
    b = 0
    while True:
        rng = np.random.default_rng([seed, k, b])
        log_gap = _gamma_below(rng, stream.gap_shape, stream.barr, BLOCK, LOG_GAP_LIMIT)
        points = carried + np.cumsum(np.exp(log_gap) / (SECONDS_IN_BUCKET * arrival_factor))
        carried = float(points[-1])
        day, within = np.divmod(points, per_day)
        bucket = np.searchsorted(edges, within, side="right") - 1
        np.clip(bucket, 0, BUCKETS - 1, out=bucket)
        fraction = (within - edges[bucket]) / weights[bucket]
        times = (day * BUCKETS + bucket + fraction) * SECONDS_IN_BUCKET
        sizes = _job_sizes(rng, BLOCK, size_stream, size_range, nodes)
        yield times, sizes, _runtimes(rng, sizes, stream)
        b += 1


def _merged(streams: list[Iterator[_Block]]) -> Iterator[_Block]:
    """The streams' jobs merged by arrival time, in pieces: every buffered job earlier than
    the earliest last buffered time of any stream (so no later block can come before it);
    a stream whose buffer ends at that time draws its next block."""
    bufs = [next(s) for s in streams]
    while True:
        cutoff = min(float(buf[0][-1]) for buf in bufs)
        pieces: list[_Block] = []
        for k, buf in enumerate(bufs):
            cut = int(np.searchsorted(buf[0], cutoff, side="left"))
            pieces.append(tuple(col[:cut] for col in buf))  # type: ignore[arg-type]
            rest = tuple(col[cut:] for col in buf)
            if float(buf[0][-1]) == cutoff:
                nxt = next(streams[k])
                rest = tuple(np.concatenate([a, b]) for a, b in zip(rest, nxt, strict=True))
            bufs[k] = rest  # type: ignore[assignment]
        times = np.concatenate([p[0] for p in pieces])
        order = np.argsort(times, kind="stable")  # stable: ties go to the earlier stream
        yield (
            times[order],
            np.concatenate([p[1] for p in pieces])[order],
            np.concatenate([p[2] for p in pieces])[order],
        )


def iter_lublin(
    n_jobs: int,
    *,
    chunk: int = 1 << 16,
    nodes: int = 256,
    seed: int = 0,
    model: str = "two-stream",
    umed: float | None = None,
    ulow: float | None = None,
    uprob: float | None = None,
    serial_prob: float | None = None,
    pow2_prob: float | None = None,
    arrival_factor: float = 1.0,
    requested_factor: float = 1.0,
    start_time: float = 0.0,
) -> Iterator[JobChunk]:
    """``n_jobs`` jobs of the Lublin–Feitelson model in chunks of ``chunk`` jobs (the last may
    be shorter); the arguments are :func:`~instances.lublin.generate_lublin`'s (module
    docstring: same distributions, not the same jobs). Same arguments, same jobs, whatever
    ``chunk``."""
    kw: dict[str, Any] = {
        "nodes": nodes,
        "seed": seed,
        "model": model,
        "umed": umed,
        "ulow": ulow,
        "uprob": uprob,
        "serial_prob": serial_prob,
        "pow2_prob": pow2_prob,
        "arrival_factor": arrival_factor,
        "requested_factor": requested_factor,
        "start_time": start_time,
    }
    if not (isinstance(chunk, int) and chunk >= 1):
        raise WorkloadError(f"iter_lublin: chunk must be an int >= 1, got {chunk!r}")
    if not (isinstance(seed, int) and seed >= 0):
        raise WorkloadError(f"iter_lublin: seed must be an int >= 0, got {seed!r}")
    generate_lublin(0, **kw)  # validates every argument as the in-memory generator does
    return _chunks(int(n_jobs), chunk, kw)


def _chunks(n: int, chunk: int, kw: dict[str, Any]) -> Iterator[JobChunk]:
    nodes = int(kw["nodes"])
    log2_nodes = math.log2(nodes)
    streams = []
    for k, name in enumerate(_MODEL_STREAMS[kw["model"]]):
        stream = LUBLIN_PARAMS[name]
        size_stream = stream
        for key in ("serial_prob", "pow2_prob"):
            if kw[key] is not None:
                size_stream = _replace(size_stream, key, kw[key])
        size_range = _size_range(stream, log2_nodes, kw["umed"], kw["ulow"], kw["uprob"])
        streams.append(
            _stream_blocks(
                kw["seed"], k, stream, size_stream, size_range, nodes, kw["arrival_factor"]
            )
        )
    emitted = 0
    pending: list[_Block] = []
    held = 0
    for piece in _merged(streams):
        if emitted >= n:
            return
        pending.append(piece)
        held += piece[0].size
        while held >= chunk or (held and emitted + held >= n):
            cols = [np.concatenate([p[c] for p in pending]) for c in range(3)]
            take = min(chunk, n - emitted)
            yield _job_chunk(emitted, cols[0][:take], cols[1][:take], cols[2][:take], kw)
            emitted += take
            rest = (cols[0][take:], cols[1][take:], cols[2][take:])
            pending, held = ([rest], rest[0].size) if emitted < n else ([], 0)
            if emitted >= n:
                return


def _replace(stream: LublinStreamParams, key: str, value: float) -> LublinStreamParams:
    """``stream`` with its ``serial_prob`` or ``pow2_prob`` replaced."""
    if key == "serial_prob":
        return dataclasses.replace(stream, serial_prob=value)
    return dataclasses.replace(stream, pow2_prob=value)


def _job_chunk(
    first: int, times: np.ndarray, sizes: np.ndarray, runtime: np.ndarray, kw: dict[str, Any]
) -> JobChunk:
    """Jobs ``first + 1 ...`` as ``generate_lublin`` writes them (whole-second submit and
    requested time)."""
    return JobChunk(
        job_id=np.arange(first + 1, first + 1 + times.size, dtype=np.int64),
        submit=np.floor(times) + float(kw["start_time"]),
        runtime=runtime,
        nodes=sizes.astype(np.int64),
        requested_time=np.ceil(np.round(runtime * kw["requested_factor"], 6)),
    )


def lublin_stream_workload(n_jobs: int, **kw: Any) -> Workload:
    """The jobs of :func:`iter_lublin` gathered into one in-memory workload."""
    nodes = int(kw.get("nodes", 256))
    parts = list(iter_lublin(n_jobs, **kw))
    cols = {
        name: np.concatenate([getattr(p, name) for p in parts])
        if parts
        else np.zeros(0, dtype=np.int64 if name in ("job_id", "nodes") else np.float64)
        for name in ("job_id", "submit", "runtime", "nodes", "requested_time")
    }
    n = cols["submit"].size
    swf = np.full((n, 18), -1.0)
    for name, key in (
        ("job_id", "job_id"),
        ("submit", "submit"),
        ("runtime", "run_time"),
        ("nodes", "allocated_procs"),
        ("nodes", "requested_procs"),
        ("requested_time", "requested_time"),
    ):
        swf[:, SWF_INDEX[key]] = cols[name]
    swf[:, SWF_INDEX["status"]] = 1
    seed = kw.get("seed", 0)
    return Workload.from_columns(
        submit=cols["submit"],
        runtime=cols["runtime"],
        nodes=cols["nodes"],
        requested_time=cols["requested_time"],
        job_id=cols["job_id"],
        swf=swf,
        max_nodes=nodes,
        header=(("MaxJobs", str(n)), ("MaxNodes", str(nodes))),
        source=f"lublin-stream:jobs={n},nodes={nodes},seed={seed}",
    )
