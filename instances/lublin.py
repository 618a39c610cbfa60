"""The Lublin–Feitelson workload model: synthetic rigid jobs for a machine of any size.

Model: U. Lublin and D. G. Feitelson, "The workload on parallel supercomputers: modeling the
characteristics of rigid jobs", JPDC 63(11):1105–1122, 2003; reference implementation
``m_lublin99.c`` (Parallel Workloads Archive). The parameters and the algorithm are the ones
collected in the model note ``papers/lublin-feitelson-model.md`` (kept outside the repository; cited
below as "md §Job size", "md §Runtime", "md §Arrivals", "md §SWF output"). Everything is drawn with
numpy in vectorised form; the reference's sequential bucket walk is replaced by its closed form (see
"Arrivals").

Per job, for the stream (batch, interactive or typeless) it belongs to:

* **Size** (md §Job size): serial with probability SerialProb; otherwise ``par`` is drawn from
  the two-stage uniform (U(ULow, UMed) with probability UProb, else U(UMed, UHi)); when the
  same uniform that decided "serial" is <= SerialProb + Pow2Prob, ``par`` is rounded first
  (a power of two). nodes = round(2^par), clipped to [1, ``nodes``].
* **Runtime** (md §Runtime): ln(runtime) is hyper-gamma, Gamma(a1, b1) with probability
  p = pa·nodes + pb clipped to [0, 1], else Gamma(a2, b2); the whole draw is repeated while
  ln(runtime) > 12, so runtime <= e^12 s. Truncated to whole seconds as the reference does
  (runtime >= 1 s, at most 162,754 s).
* **Arrivals** (md §Arrivals): ln(gap) ~ Gamma(aarr·ARAR, barr) ("rush-hour" gap), redrawn while
  > 13. The day has 48 half-hour buckets; bucket ``(i - 1) mod 48`` weighs
  gamcdf(i + 0.5) − gamcdf(i − 0.5) (shape anum, scale bnum) for i in [11, 59), normalised to mean
  1. A gap is worth e^gap / 1800 "points"; crossing a bucket costs its weight in points and takes
  1800 s, and a partial bucket is crossed in proportion (the reference carries the leftover
  points and the "reminder" fraction between calls). That walk is a piecewise-linear map from
  cumulative points to time, so arrival times are the inverse map applied to the cumulative sum
  of the gaps' points — identical results, no per-job Python loop.
* **Two streams**: batch and interactive arrivals are generated independently; the next job
  is whichever stream's next arrival is earlier (ties go to interactive, as in the reference).
  With the published parameters about 15 % of the jobs are batch in the long run: the capped
  mean gap is ≈ 3,517 s for batch and ≈ 619 s for interactive (≈ 911 s typeless).

Documented choices (where the model or the md leaves a decision to the implementer):

1. **Machine size.** UHi = log2(``nodes``) for any positive ``nodes`` (not only powers of two).
   The published batch, interactive and typeless size parameters are for a 128-node machine
   (UHi = 7). For another size every stream keeps its published *distances*: a stream's UHi is
   log2(nodes) − (7 − its published UHi) (batch and typeless log2(nodes), interactive
   log2(nodes) − 1.5, as the paper caps interactive jobs at 2^5.5 ≈ 45 of 128 nodes), and UMed
   = UHi − (published UHi − published UMed): UHi − 2.5 for typeless and interactive (the md's
   suggested default), UHi − 2 for batch (published 5 of 7). ULow (the log2 of the smallest
   parallel job) and UProb do not depend on the machine and keep their published values. At 128
   nodes this is exactly the paper's table; at 256 nodes the typeless stream gets UHi = 8,
   UMed = 5.5, which is what the reference trace ``lublin_256.swf`` shows (its sizes fit UMed =
   5.5 and do not fit the unscaled 4.5). For tiny machines UHi is floored at 0 and ULow, UMed
   are clipped into [0, UHi] (below 2^1.5 ≈ 2.8 nodes every interactive job is serial). On a
   machine that is not a power of two the full size comes mostly from clipping (on 100 nodes a
   power-of-two draw rounds up to 128 → 100); on 4,392 nodes (UHi = 12.1) it is practically
   never drawn and 4,096 is the usual largest job. ``umed`` / ``ulow`` / ``uprob``, when given,
   replace the value for *every* stream (then clipped into that stream's [ULow, UHi]);
   ``serial_prob`` / ``pow2_prob``, when given, replace SerialProb / Pow2Prob of every stream
   (the advance-reservation paper's LANL-CM5 setting: no serial jobs, every size a power of two,
   ``serial_prob=0, pow2_prob=1``).
2. **Typeless model.** One stream with the md's typeless parameters. SWF field 15 is −1
   ("unknown"): the jobs have no type. (The reference C program writes 0, "arbitrarily
   interactive", in this mode; ``lublin_256.swf`` is such a typeless output — its field 15 is 0
   throughout.) Two-stream jobs carry 0 (interactive) or 1 (batch) as in the reference.
3. **Clock.** The model clock starts at midnight (the reference's START = 0): bucket 0 is
   00:00–00:30. ``start_time`` is added to every submit time, so the daily cycle is aligned to
   midnight when ``start_time`` is a multiple of 86,400. Submit times are the continuous arrival
   times truncated to whole seconds (the reference truncates its running clock at every job).
4. **``arrival_factor``** (> 0) divides every inter-arrival gap *in points*, i.e. the rush-hour
   gap e^gap, before it is laid onto the daily cycle: 2 doubles the arrival rate at every hour
   of the day and roughly halves the span, while the day/night shape stays in wall-clock time.
5. **Requested time.** The model has no user estimates; requested_time = runtime ×
   ``requested_factor`` (>= 1) rounded up to whole seconds, i.e. exact estimates by default.
6. **SWF table.** As the reference's output line (md §SWF output) — job number, submit, −1,
   runtime, nodes (allocated), −1, −1, …, status 1, type in field 15 — plus nodes in field 8
   (requested processors) and the requested time in field 9, so the simulator sees them.

Random numbers come from ``np.random.default_rng(seed)`` (numpy's gamma sampler, not the
reference's drand48-based one: same distributions, different streams). Same arguments, same
workload.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

import numpy as np

from schedbench.simcore.workload import SWF_INDEX, Workload, WorkloadError

__all__ = [
    "BATCH",
    "INTERACTIVE",
    "LUBLIN_PARAMS",
    "MAX_RUNTIME_S",
    "TYPELESS",
    "LublinStreamParams",
    "bucket_weights",
    "generate_lublin",
]

#: SWF field-15 job types of the two-stream model (reference: ACTIVE = 0, BATCH = 1).
INTERACTIVE = 0
BATCH = 1
#: Field 15 of typeless jobs (choice 2 in the module docstring).
TYPELESS = -1

#: Redraw ln(runtime) above this (md §Runtime; "no more than two days").
LOG_RUNTIME_LIMIT = 12.0
#: Redraw ln(inter-arrival) above this (md §Arrivals; "no more than five days").
LOG_GAP_LIMIT = 13.0
#: Largest runtime the model produces, whole seconds: int(e^12) (md §SWF output, MaxRuntime).
MAX_RUNTIME_S = int(math.exp(LOG_RUNTIME_LIMIT))
#: Half-hour buckets of the daily cycle (md §Arrivals).
BUCKETS = 48
SECONDS_IN_BUCKET = 86_400 // BUCKETS
#: The fitted day runs over [CYCLIC_DAY_START, CYCLIC_DAY_START + 48), shifted cyclically.
CYCLIC_DAY_START = 11
#: log2 of the machine the published size parameters were fitted for (128 nodes).
PUBLISHED_UHI = 7.0

Model = Literal["two-stream", "typeless"]


@dataclass(frozen=True, slots=True)
class LublinStreamParams:
    """One stream's published parameters (md tables; Lublin & Feitelson 2003, §4–§6).

    Gamma(α, β) has shape α and scale β. ``uhi`` and ``umed`` are the published values for a
    128-node machine; :func:`generate_lublin` rescales them (module docstring, choice 1).
    """

    name: str
    swf_type: int
    # Job size, md §Job size: serial share, power-of-two share, two-stage uniform on log2(size).
    serial_prob: float
    pow2_prob: float
    ulow: float
    umed: float
    uhi: float
    uprob: float
    # Runtime, md §Runtime: ln(runtime) ~ hyper-gamma, p = pa·nodes + pb.
    a1: float
    b1: float
    a2: float
    b2: float
    pa: float
    pb: float
    # Arrivals, md §Arrivals: ln(gap) ~ Gamma(aarr·arar, barr); daily cycle Gamma(anum, bnum).
    aarr: float
    barr: float
    anum: float
    bnum: float
    arar: float

    @property
    def gap_shape(self) -> float:
        """Shape of the ln(gap) gamma: aarr × ARAR (the rush-hour fit adjusted to all hours)."""
        return self.aarr * self.arar


#: The published parameter sets, by stream name (md tables: job size, runtime, arrivals).
LUBLIN_PARAMS: Mapping[str, LublinStreamParams] = MappingProxyType(
    {
        "batch": LublinStreamParams(
            name="batch",
            swf_type=BATCH,
            serial_prob=0.2927,
            pow2_prob=0.6686,
            ulow=1.2,
            umed=5.0,
            uhi=7.0,
            uprob=0.875,
            a1=6.57,
            b1=0.823,
            a2=639.1,
            b2=0.0156,
            pa=-0.003,
            pb=0.6986,
            aarr=6.0415,
            barr=0.8531,
            anum=6.1271,
            bnum=5.2740,
            arar=1.0519,
        ),
        "interactive": LublinStreamParams(
            name="interactive",
            swf_type=INTERACTIVE,
            serial_prob=0.1541,
            pow2_prob=0.625,
            ulow=1.0,
            umed=3.0,
            uhi=5.5,
            uprob=0.705,
            a1=3.8351,
            b1=0.6605,
            a2=7.073,
            b2=0.6856,
            pa=-0.0118,
            pb=0.9156,
            aarr=6.5510,
            barr=0.6621,
            anum=8.9186,
            bnum=3.6680,
            arar=0.9797,
        ),
        "typeless": LublinStreamParams(
            name="typeless",
            swf_type=TYPELESS,
            serial_prob=0.244,
            pow2_prob=0.576,
            ulow=0.8,
            umed=4.5,
            uhi=7.0,
            uprob=0.86,
            a1=4.2,
            b1=0.94,
            a2=312.0,
            b2=0.03,
            pa=-0.0054,
            pb=0.78,
            aarr=10.2303,
            barr=0.4871,
            anum=8.1737,
            bnum=3.9631,
            arar=1.0225,
        ),
    }
)

_MODEL_STREAMS: dict[str, tuple[str, ...]] = {
    # Order matters only for ties in arrival time: interactive first, as in the reference.
    "two-stream": ("interactive", "batch"),
    "typeless": ("typeless",),
}


# ---------------------------------------------------------------------------------- helpers
def bucket_weights(stream: LublinStreamParams) -> np.ndarray:
    """The 48 half-hour weights of a stream's daily cycle, mean 1 (md §Arrivals).

    Bucket ``(i - 1) mod 48`` gets gamcdf(i + 0.5) − gamcdf(i − 0.5) of Gamma(anum, bnum) for
    i = 11 … 58, as the reference computes it; bucket 0 is 00:00–00:30.
    """
    from scipy.special import gammainc  # slow to import; every command imports this module

    i = np.arange(CYCLIC_DAY_START, CYCLIC_DAY_START + BUCKETS, dtype=np.float64)
    mass = gammainc(stream.anum, (i + 0.5) / stream.bnum) - gammainc(
        stream.anum, (i - 0.5) / stream.bnum
    )
    weights = np.empty(BUCKETS)
    weights[(i.astype(np.int64) - 1) % BUCKETS] = mass
    return weights / weights.mean()


def _size_range(
    stream: LublinStreamParams,
    log2_nodes: float,
    umed: float | None,
    ulow: float | None,
    uprob: float | None,
) -> tuple[float, float, float, float]:
    """(ULow, UMed, UHi, UProb) of a stream on a machine of 2^log2_nodes nodes (choice 1)."""
    hi = max(0.0, log2_nodes - (PUBLISHED_UHI - stream.uhi))
    lo = stream.ulow if ulow is None else ulow
    lo = min(max(lo, 0.0), hi)
    med = hi - (stream.uhi - stream.umed) if umed is None else umed
    med = min(max(med, lo), hi)
    prob = stream.uprob if uprob is None else uprob
    return lo, med, hi, prob


def _gamma_below(
    rng: np.random.Generator, shape: float, scale: float, n: int, limit: float
) -> np.ndarray:
    """n draws of Gamma(shape, scale), each redrawn while above ``limit``."""
    x = rng.gamma(shape, scale, size=n)
    bad = np.flatnonzero(x > limit)
    while bad.size:
        x[bad] = rng.gamma(shape, scale, size=bad.size)
        bad = bad[x[bad] > limit]
    return x


def _arrival_times(
    rng: np.random.Generator, n: int, stream: LublinStreamParams, arrival_factor: float
) -> np.ndarray:
    """Seconds since midnight of day 0 of a stream's first n arrivals (md §Arrivals).

    The reference walks buckets: a job brings e^gap / 1800 points, each whole bucket crossed
    costs its weight and 1800 s, the rest is a fraction of the current bucket. Cumulatively,
    time is the inverse of the piecewise-linear "points so far" function, so we evaluate that
    inverse at the running sum of points.
    """
    log_gap = _gamma_below(rng, stream.gap_shape, stream.barr, n, LOG_GAP_LIMIT)
    points = np.cumsum(np.exp(log_gap) / (SECONDS_IN_BUCKET * arrival_factor))
    weights = bucket_weights(stream)
    edges = np.concatenate(([0.0], np.cumsum(weights)))  # points at each bucket's start
    per_day = edges[-1]
    day, within = np.divmod(points, per_day)
    bucket = np.searchsorted(edges, within, side="right") - 1
    np.clip(bucket, 0, BUCKETS - 1, out=bucket)
    fraction = (within - edges[bucket]) / weights[bucket]
    return (day * BUCKETS + bucket + fraction) * SECONDS_IN_BUCKET


def _job_sizes(
    rng: np.random.Generator,
    n: int,
    stream: LublinStreamParams,
    size_range: tuple[float, float, float, float],
    nodes: int,
) -> np.ndarray:
    """Nodes of n jobs (md §Job size), clipped to [1, nodes]."""
    lo, med, hi, prob = size_range
    u = rng.random(n)
    first_stage = rng.random(n) <= prob
    v = rng.random(n)
    par = np.where(first_stage, lo + v * (med - lo), med + v * (hi - med))
    pow2 = u <= stream.serial_prob + stream.pow2_prob
    par[pow2] = np.floor(par[pow2] + 0.5)
    sizes = np.floor(np.exp2(par) + 0.5).astype(np.int64)
    sizes[u <= stream.serial_prob] = 1
    return np.clip(sizes, 1, nodes)


def _runtimes(
    rng: np.random.Generator, sizes: np.ndarray, stream: LublinStreamParams
) -> np.ndarray:
    """Whole-second runtimes (md §Runtime): hyper-gamma ln(runtime), whole draw redone > 12."""
    p = np.clip(stream.pa * sizes + stream.pb, 0.0, 1.0)
    log_rt = np.empty(sizes.shape[0])
    todo = np.arange(sizes.shape[0])
    while todo.size:
        first = rng.random(todo.size) <= p[todo]
        draw = np.where(
            first,
            rng.gamma(stream.a1, stream.b1, size=todo.size),
            rng.gamma(stream.a2, stream.b2, size=todo.size),
        )
        log_rt[todo] = draw
        todo = todo[draw > LOG_RUNTIME_LIMIT]
    return np.floor(np.exp(log_rt))


def _check(ok: bool, what: str, got: object) -> None:
    if not ok:
        raise WorkloadError(f"generate_lublin: {what}, got {got!r}")


# ---------------------------------------------------------------------------------- generator
def generate_lublin(
    n_jobs: int,
    *,
    nodes: int = 256,
    seed: int = 0,
    model: Model = "two-stream",
    umed: float | None = None,
    ulow: float | None = None,
    uprob: float | None = None,
    serial_prob: float | None = None,
    pow2_prob: float | None = None,
    arrival_factor: float = 1.0,
    requested_factor: float = 1.0,
    start_time: float = 0.0,
) -> Workload:
    """``n_jobs`` jobs of the Lublin–Feitelson model for a machine of ``nodes`` nodes.

    ``model`` is ``"two-stream"`` (batch + interactive, SWF field 15 = 1 / 0) or ``"typeless"``
    (one stream, field 15 = −1). ``umed`` / ``ulow`` / ``uprob`` override the size parameters of
    every stream (log2 units; defaults scale with the machine, module docstring choice 1);
    ``serial_prob`` / ``pow2_prob`` replace every stream's SerialProb / Pow2Prob.
    ``arrival_factor`` > 1 makes arrivals denser (divides every gap; choice 4);
    ``requested_factor`` >= 1 sets requested_time = runtime × factor (choice 5); ``start_time``
    is added to every submit time (choice 3). Same arguments, same workload.
    """
    _check(
        isinstance(n_jobs, int | np.integer) and n_jobs >= 0, "n_jobs must be an int >= 0", n_jobs
    )
    _check(isinstance(nodes, int | np.integer) and nodes >= 1, "nodes must be an int >= 1", nodes)
    _check(model in _MODEL_STREAMS, f"model must be one of {sorted(_MODEL_STREAMS)}", model)
    _check(
        math.isfinite(arrival_factor) and arrival_factor > 0,
        "arrival_factor must be > 0",
        arrival_factor,
    )
    _check(
        math.isfinite(requested_factor) and requested_factor >= 1,
        "requested_factor must be >= 1",
        requested_factor,
    )
    _check(math.isfinite(start_time), "start_time must be finite", start_time)
    n, nodes = int(n_jobs), int(nodes)
    log2_nodes = math.log2(nodes)
    if uprob is not None:
        _check(0.0 <= uprob <= 1.0, "uprob must be in [0, 1]", uprob)
    for name, value in (("serial_prob", serial_prob), ("pow2_prob", pow2_prob)):
        if value is not None:
            _check(0.0 <= value <= 1.0, f"{name} must be in [0, 1]", value)
    if ulow is not None:
        _check(
            0.0 <= ulow <= log2_nodes, f"ulow must be in [0, log2(nodes) = {log2_nodes:g}]", ulow
        )
    if umed is not None:
        _check(
            0.0 <= umed <= log2_nodes, f"umed must be in [0, log2(nodes) = {log2_nodes:g}]", umed
        )
        _check(ulow is None or ulow <= umed, "umed must be >= ulow", umed)

    rng = np.random.default_rng(seed)
    streams = [LUBLIN_PARAMS[name] for name in _MODEL_STREAMS[model]]
    size_streams = [
        dataclasses.replace(
            stream,
            serial_prob=stream.serial_prob if serial_prob is None else serial_prob,
            pow2_prob=stream.pow2_prob if pow2_prob is None else pow2_prob,
        )
        for stream in streams
    ]
    # Each stream gives at most n of the first n merged jobs: draw n arrivals per stream, merge.
    times = np.concatenate([_arrival_times(rng, n, s, arrival_factor) for s in streams])
    which = np.repeat(np.arange(len(streams)), n)
    order = np.argsort(times, kind="stable")[:n]  # stable: ties go to the earlier stream
    times, which = times[order], which[order]

    sizes = np.empty(n, dtype=np.int64)
    runtime = np.empty(n)
    job_type = np.empty(n)
    for k, stream in enumerate(streams):
        rows = np.flatnonzero(which == k)
        size_range = _size_range(stream, log2_nodes, umed, ulow, uprob)
        sizes[rows] = _job_sizes(rng, rows.size, size_streams[k], size_range, nodes)
        runtime[rows] = _runtimes(rng, sizes[rows], stream)
        job_type[rows] = stream.swf_type

    submit = np.floor(times) + float(start_time)
    requested = np.ceil(np.round(runtime * requested_factor, 6))
    job_id = np.arange(1, n + 1, dtype=np.int64)

    swf = np.full((n, 18), -1.0)
    swf[:, SWF_INDEX["job_id"]] = job_id
    swf[:, SWF_INDEX["submit"]] = submit
    swf[:, SWF_INDEX["run_time"]] = runtime
    swf[:, SWF_INDEX["allocated_procs"]] = sizes
    swf[:, SWF_INDEX["requested_procs"]] = sizes
    swf[:, SWF_INDEX["requested_time"]] = requested
    swf[:, SWF_INDEX["status"]] = 1
    swf[:, SWF_INDEX["queue"]] = job_type

    source = f"lublin:jobs={n},nodes={nodes},seed={seed},model={model}"
    header = (
        ("MaxJobs", str(n)),
        ("MaxRecords", str(n)),
        ("MaxNodes", str(nodes)),
        ("MaxRuntime", str(MAX_RUNTIME_S)),
        (
            "Note",
            f"Lublin-Feitelson 2003 model ({model}), seed {seed}, arrival_factor "
            f"{arrival_factor:g}, requested_factor {requested_factor:g}; generated by schedbench",
        ),
    )
    return Workload.from_columns(
        submit=submit,
        runtime=runtime,
        nodes=sizes,
        requested_time=requested,
        job_id=job_id,
        swf=swf,
        max_nodes=nodes,
        header=header,
        source=source,
    )
