"""BBSched's synthetic workloads S1–S7 and an arrival-rate factor, as workload transformations.

Source: Fan et al., "Scheduling Beyond CPUs for HPC" (BBSched, HPDC 2019),
``papers/bbsched-scheduling-beyond-cpus.txt`` (kept outside the repository).

What the paper fixes
--------------------
* §4.1, S1–S4: a share of the jobs requests shared burst buffer (BB) — 50 % in S1 and S3, 75 % in
  S2 and S4 — and each such job gets a request "randomly selected from the original burst buffer
  requests in a certain range": requests greater than 5 TB for S1/S2, greater than 20 TB for
  S3/S4.
* §4.1, Table 2: the original requests lie in [1 GB, 165 TB] on Cori, "besides few extremely large
  requests (165TB)" in [1 GB, 65 TB], and in [1 GB, 285 TB] on Theta. Among Cori's BB jobs about
  one in three asks for more than 1 TB (0.204 % of 0.618 % of all jobs).
* §5, S5–S7: built "on top of" S2; a share of the jobs asks for 0–128 GB of local SSD per node and
  the rest for 129–256 GB (80/20 in S5, 50/50 in S6, 20/80 in S7); half the nodes carry a
  128 GB SSD, half a 256 GB SSD.

What the paper leaves open, and what this module chooses
--------------------------------------------------------
* **The base distribution.** The traces' BB requests are not public (Cori's Slurm log and Theta's
  Darshan-derived volumes), so each system gets a documented synthetic base
  (:data:`BB_BASE_DISTRIBUTIONS`):

  - ``theta``: log-uniform on [1 GB, 285 TB]. The requests are data volumes moved between the
    file system and the nodes, which span five decades; knowing only the range, log-uniform is
    the least presumptuous choice on that scale (the maximum-entropy density of ``log x``).
  - ``cori``: log-uniform on [1 GB, 65 TB] with probability 0.999, and a point mass at 165 TB
    with probability 0.001 — the paper's "few extremely large requests (165TB)". The bulk
    reproduces the one published shape figure: a log-uniform on [1 GB, 65 TB] puts 38 % of
    requests above 1 TB, against about 33 % in the trace. The weight 0.001 is our guess at
    "few"; conditioned on > 20 TB (S3/S4) it makes about 1 % of the requests 165 TB.

  Any other base can be passed: a sampler object (:class:`LogUniformBB`, :class:`PointMassBB`,
  :class:`MixtureBB`, :class:`EmpiricalBB` or your own with the same two methods) or an array of
  observed requests, e.g. a real trace's BB column; entries of 0 in such an array are jobs without
  a request and are ignored, and draws are uniform over the remaining entries (duplicates count,
  so frequent sizes are drawn more often, as "randomly selected from the original requests").
* **"Greater than 5 TB"** is strict, with 1 TB = 1000 GB (capacities are decimal throughout
  schedbench: 1 PB = 10^6 GB, ``instances/systems.py``). A request is drawn from the base
  *conditioned* on being > ``min_gb``.
* **Whole GB.** The continuous samplers round up to whole GB (Slurm and the SWF extension take
  integer sizes). Conditioning is applied to the rounded value, which is exact: a rounded-up
  request exceeds ``m`` exactly when the continuous draw exceeds ``floor(m)``.
* **Which jobs.** Exactly ``round(share · n)`` jobs (Python's ``round``: halves go to even), chosen
  uniformly at random without replacement, independently of their size or runtime; the paper
  does not correlate BB requests with anything.
* **Existing requests are replaced.** S1–S4 *define* the BB column: the chosen jobs get a fresh
  draw and every other job gets 0, whatever the input held. ``data_in_gb``/``data_out_gb`` (the
  BBSim staging volumes) and the extended SWF columns 19+ (``extra``) are left alone.
* **SSD requests** are whole GB per node, uniform on the inclusive ranges 0–128 and 129–256
  ("0-128GB", "129-256GB"); a draw of 0 means the job asks for no SSD. Exactly
  ``round(small_share · n)`` jobs, chosen uniformly at random, get the small range.
* **S5–S7 keep S2's BB column exactly**: for a given seed and base, S5, S6 and S7 carry the very
  same BB column as S2, so a comparison across S2/S5/S6/S7 isolates the SSD effect.
* **Random streams.** ``np.random.default_rng([seed, stream])`` with a fixed stream number per
  transformation (BB = 1, SSD = 2). The same ``seed`` can therefore be passed to both without
  the SSD choice of jobs repeating the BB choice (with a shared stream the two "first 75 % of a
  permutation" selections would coincide).
* **Arrival-rate factor** (not in BBSched; the usual load knob): ``submit' = t0 + (submit − t0) /
  factor`` with ``t0`` the first submission, so ``factor > 1`` packs the same jobs into a shorter
  span (higher offered load). Times stay floats (no rounding to whole seconds), order is kept,
  and the SWF table's submit field is updated to match the column.
* **SSD machine.** :func:`bbsched_ssd_system` splits the nodes into a 128 GB group and a 256 GB
  group; with an odd node count the extra node goes to the 128 GB group. The default shared BB is
  Theta's 2.16 PB from §4.1's text (``instances.systems.THETA``); note that Table 2 lists
  1.26 PB ("projected"), which is what §4.1's own rule (Cori's BB-to-memory ratio times Theta's
  memory: 1.8 PB × 913.5 / 1304.5) gives. The BB capacity is a parameter.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

import numpy as np

from schedbench.instances.systems import THETA
from schedbench.simcore.errors import SchedbenchError
from schedbench.simcore.system import NodeGroup, System
from schedbench.simcore.workload import SWF_INDEX, Workload

TB_GB = 1000.0  #: 1 TB in GB (decimal units, as the capacities in ``instances/systems.py``)

_BB_STREAM = 1
_SSD_STREAM = 2


class ScenarioError(SchedbenchError, ValueError):
    """A BBSched workload transformation was given an argument it cannot use."""


class UnknownScenarioError(ScenarioError):
    """A scenario (or base distribution) name that is not defined; lists the known names."""

    def __init__(self, what: str, name: object, known: list[str]):
        self.name = name
        self.known = known
        super().__init__(f"unknown {what} {name!r}; known: {', '.join(known)}")


# ---------------------------------------------------------------------------------------------
# Base distributions of BB requests
# ---------------------------------------------------------------------------------------------


@runtime_checkable
class BBSampler(Protocol):
    """A distribution of burst-buffer requests (GB per job), conditionable on a lower bound."""

    def sample(self, rng: np.random.Generator, size: int, min_gb: float = 0.0) -> np.ndarray:
        """``size`` requests drawn from the distribution conditioned on being ``> min_gb``."""
        ...

    def prob_above(self, min_gb: float) -> float:
        """The probability that a request is ``> min_gb`` (0 means no request qualifies)."""
        ...


def _no_mass(what: str, min_gb: float) -> ScenarioError:
    return ScenarioError(f"{what} has no request > min_gb={min_gb:g} GB")


def _check_size(size: int) -> int:
    if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < 0:
        raise ScenarioError(f"size: expected an integer >= 0, got {size!r}")
    return int(size)


@dataclass(frozen=True, slots=True)
class LogUniformBB:
    """Log-uniform on [``low_gb``, ``high_gb``], rounded up to whole GB.

    Conditioned on ``> m``: the continuous draw is log-uniform on [max(low, floor(m)), high],
    which is exactly the rounded distribution conditioned on exceeding ``m``.
    """

    low_gb: float
    high_gb: float

    def __post_init__(self) -> None:
        for key in ("low_gb", "high_gb"):
            v = getattr(self, key)
            if not (np.isfinite(v) and v >= 1 and float(v).is_integer()):
                raise ScenarioError(
                    f"LogUniformBB.{key}: expected a whole number of GB >= 1, got {v!r}"
                )
        if not self.low_gb < self.high_gb:
            raise ScenarioError(
                f"LogUniformBB: expected low_gb < high_gb, got [{self.low_gb:g}, {self.high_gb:g}]"
            )

    def prob_above(self, min_gb: float) -> float:
        floor_m = math.floor(min_gb)
        if floor_m < self.low_gb:
            return 1.0
        if floor_m >= self.high_gb:
            return 0.0
        return math.log(self.high_gb / floor_m) / math.log(self.high_gb / self.low_gb)

    def sample(self, rng: np.random.Generator, size: int, min_gb: float = 0.0) -> np.ndarray:
        size = _check_size(size)
        if self.prob_above(min_gb) <= 0.0:
            raise _no_mass(f"LogUniformBB[{self.low_gb:g}, {self.high_gb:g}]", min_gb)
        floor_m = math.floor(min_gb)
        lo = max(self.low_gb, floor_m)
        x = np.exp(rng.uniform(math.log(lo), math.log(self.high_gb), size=size))
        # The clip only matters for floating-point edge cases: a draw of exactly lo (rounded up to
        # floor(m), not above m) or exp() overshooting high by an ulp.
        return np.clip(np.ceil(x), max(self.low_gb, floor_m + 1), self.high_gb)


@dataclass(frozen=True, slots=True)
class PointMassBB:
    """Every request is exactly ``gb`` (e.g. Cori's "few extremely large requests (165TB)")."""

    gb: float

    def __post_init__(self) -> None:
        if not (np.isfinite(self.gb) and self.gb > 0):
            raise ScenarioError(
                f"PointMassBB.gb: expected a positive number of GB, got {self.gb!r}"
            )

    @property
    def low_gb(self) -> float:
        return self.gb

    @property
    def high_gb(self) -> float:
        return self.gb

    def prob_above(self, min_gb: float) -> float:
        return 1.0 if self.gb > min_gb else 0.0

    def sample(self, rng: np.random.Generator, size: int, min_gb: float = 0.0) -> np.ndarray:
        size = _check_size(size)
        if self.gb <= min_gb:
            raise _no_mass(f"PointMassBB({self.gb:g})", min_gb)
        return np.full(size, float(self.gb))


@dataclass(frozen=True, slots=True)
class MixtureBB:
    """A mixture ``((weight, sampler), ...)``; weights are positive and normalised here.

    Conditioned on ``> m``, component ``i`` is chosen with probability proportional to
    ``weight_i · P_i(> m)`` and then sampled conditioned on ``> m`` itself.
    """

    parts: tuple[tuple[float, BBSampler], ...]

    def __post_init__(self) -> None:
        parts = tuple((float(w), s) for w, s in self.parts)
        if not parts:
            raise ScenarioError("MixtureBB.parts: expected at least one (weight, sampler) pair")
        for i, (w, s) in enumerate(parts):
            if not (np.isfinite(w) and w > 0):
                raise ScenarioError(f"MixtureBB.parts[{i}]: weight must be positive, got {w!r}")
            if not isinstance(s, BBSampler):
                raise ScenarioError(
                    f"MixtureBB.parts[{i}]: expected a sampler with sample() and prob_above(), "
                    f"got {type(s).__name__}"
                )
        total = sum(w for w, _ in parts)
        object.__setattr__(self, "parts", tuple((w / total, s) for w, s in parts))

    @property
    def low_gb(self) -> float:
        return min(float(s.low_gb) for _, s in self.parts)  # type: ignore[attr-defined]

    @property
    def high_gb(self) -> float:
        return max(float(s.high_gb) for _, s in self.parts)  # type: ignore[attr-defined]

    def prob_above(self, min_gb: float) -> float:
        return sum(w * s.prob_above(min_gb) for w, s in self.parts)

    def sample(self, rng: np.random.Generator, size: int, min_gb: float = 0.0) -> np.ndarray:
        size = _check_size(size)
        mass = np.array([w * s.prob_above(min_gb) for w, s in self.parts])
        if mass.sum() <= 0.0:
            raise _no_mass("MixtureBB", min_gb)
        which = rng.choice(len(self.parts), size=size, p=mass / mass.sum())
        out = np.empty(size)
        for i, (_, s) in enumerate(self.parts):
            rows = np.flatnonzero(which == i)
            if rows.size:
                out[rows] = s.sample(rng, int(rows.size), min_gb)
        return out


@dataclass(frozen=True, slots=True, eq=False)
class EmpiricalBB:
    """Observed requests (e.g. a trace's BB column); zeros (no request) are dropped.

    A draw is uniform over the kept entries that are ``> min_gb``, with replacement.
    """

    values: np.ndarray

    def __post_init__(self) -> None:
        v = np.array(self.values, dtype=np.float64, copy=True).ravel()
        bad = np.flatnonzero(~(np.isfinite(v) & (v >= 0)))
        if bad.size:
            i = int(bad[0])
            raise ScenarioError(
                f"observed requests: entry {i} must be a finite number of GB >= 0, got {v[i]!r}"
            )
        v = np.sort(v[v > 0])
        v.setflags(write=False)
        object.__setattr__(self, "values", v)

    @property
    def low_gb(self) -> float:
        return float(self.values[0]) if self.values.size else 0.0

    @property
    def high_gb(self) -> float:
        return float(self.values[-1]) if self.values.size else 0.0

    def prob_above(self, min_gb: float) -> float:
        if not self.values.size:
            return 0.0
        first = int(np.searchsorted(self.values, min_gb, side="right"))
        return (self.values.size - first) / self.values.size

    def describe_shortfall(self, min_gb: float) -> str:
        if not self.values.size:
            return "the observed requests hold no positive request"
        return (
            f"none of the {self.values.size} observed requests is > min_gb={min_gb:g} GB "
            f"(largest: {self.high_gb:g} GB)"
        )

    def sample(self, rng: np.random.Generator, size: int, min_gb: float = 0.0) -> np.ndarray:
        size = _check_size(size)
        first = int(np.searchsorted(self.values, min_gb, side="right"))
        pool = self.values[first:]
        if not pool.size:
            raise ScenarioError(self.describe_shortfall(min_gb))
        return pool[rng.integers(0, pool.size, size=size)].copy()


#: Synthetic base distributions of BB requests per system (see the module docstring for why).
BB_BASE_DISTRIBUTIONS: Mapping[str, BBSampler] = MappingProxyType(
    {
        "theta": LogUniformBB(1.0, 285 * TB_GB),
        "cori": MixtureBB(
            ((0.999, LogUniformBB(1.0, 65 * TB_GB)), (0.001, PointMassBB(165 * TB_GB)))
        ),
    }
)


def _resolve_base(base: str | BBSampler | Any) -> tuple[BBSampler, str]:
    """The sampler behind ``base`` and a short label for ``Workload.source``."""
    if isinstance(base, str):
        key = base.lower()
        if key not in BB_BASE_DISTRIBUTIONS:
            raise UnknownScenarioError("base distribution", base, sorted(BB_BASE_DISTRIBUTIONS))
        return BB_BASE_DISTRIBUTIONS[key], key
    if isinstance(base, BBSampler):
        return base, type(base).__name__
    try:
        arr = np.asarray(base, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ScenarioError(
            "base: expected a distribution name, a sampler with sample() and prob_above(), "
            f"or an array of observed requests in GB, got {type(base).__name__}"
        ) from exc
    if arr.ndim != 1:
        raise ScenarioError(
            f"base: an array of observed requests must be 1-D, got shape {arr.shape}"
        )
    try:
        return EmpiricalBB(arr), f"observed[{arr.size}]"
    except ScenarioError as exc:
        raise ScenarioError(f"base: {exc}") from exc


# ---------------------------------------------------------------------------------------------
# Transformations
# ---------------------------------------------------------------------------------------------


def _rng(seed: int, stream: int) -> np.random.Generator:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ScenarioError(f"seed: expected an integer >= 0, got {seed!r}")
    return np.random.default_rng([int(seed), stream])


def _share(name: str, value: float) -> float:
    v = float(value)
    if not 0.0 <= v <= 1.0:
        raise ScenarioError(f"{name}: expected a share in [0, 1], got {value!r}")
    return v


def _tag(source: str, tag: str) -> str:
    return f"{source}+{tag}" if source else tag


def with_bb_requests(
    workload: Workload,
    *,
    share: float,
    min_gb: float,
    base: str | BBSampler | Any = "theta",
    seed: int = 0,
) -> Workload:
    """BBSched §4.1: ``round(share · n)`` random jobs get a BB request from ``base`` > ``min_gb``.

    Every other job gets 0: the BB column is replaced, not added to. ``base`` is a name from
    :data:`BB_BASE_DISTRIBUTIONS`, a sampler, or an array of observed requests (GB). The input
    is not modified; the result's ``source`` records the parameters.
    """
    share = _share("share", share)
    if not (np.isfinite(min_gb) and min_gb >= 0):
        raise ScenarioError(f"min_gb: expected a finite number of GB >= 0, got {min_gb!r}")
    sampler, label = _resolve_base(base)
    if sampler.prob_above(min_gb) <= 0.0:
        detail = (
            sampler.describe_shortfall(min_gb)
            if isinstance(sampler, EmpiricalBB)
            else f"the {label} distribution has no request > min_gb={min_gb:g} GB"
        )
        raise ScenarioError(f"base: {detail}")
    rng = _rng(seed, _BB_STREAM)
    n = len(workload)
    k = round(share * n)
    chosen = rng.choice(n, size=k, replace=False) if k else np.empty(0, dtype=np.int64)
    bb = np.zeros(n)
    bb[chosen] = sampler.sample(rng, k, min_gb)
    return workload.replace(
        bb_gb=bb,
        source=_tag(
            workload.source, f"bb(share={share:g},min_gb={min_gb:g},base={label},seed={seed})"
        ),
    )


def _ssd_range(name: str, r: tuple[int, int]) -> tuple[int, int]:
    try:
        lo, hi = r
    except (TypeError, ValueError) as exc:
        raise ScenarioError(f"{name}: expected a pair (low, high) of whole GB, got {r!r}") from exc
    ok = all(not isinstance(v, bool) and isinstance(v, int | np.integer) for v in (lo, hi))
    if not (ok and 0 <= lo <= hi):
        raise ScenarioError(f"{name}: expected whole GB with 0 <= low <= high, got {r!r}")
    return int(lo), int(hi)


def with_ssd_requests(
    workload: Workload,
    *,
    small_share: float,
    seed: int = 0,
    small_range: tuple[int, int] = (0, 128),
    large_range: tuple[int, int] = (129, 256),
) -> Workload:
    """BBSched §5: per-node local SSD requests, a ``small_share`` of jobs in ``small_range``.

    Exactly ``round(small_share · n)`` random jobs get a whole-GB request uniform on the
    inclusive ``small_range``; the others uniform on ``large_range``. The SSD column is replaced.
    """
    small_share = _share("small_share", small_share)
    s_lo, s_hi = _ssd_range("small_range", small_range)
    l_lo, l_hi = _ssd_range("large_range", large_range)
    rng = _rng(seed, _SSD_STREAM)
    n = len(workload)
    k = round(small_share * n)
    small = np.zeros(n, dtype=bool)
    if k:
        small[rng.choice(n, size=k, replace=False)] = True
    ssd = np.empty(n)
    ssd[small] = rng.integers(s_lo, s_hi + 1, size=k)
    ssd[~small] = rng.integers(l_lo, l_hi + 1, size=n - k)
    return workload.replace(
        ssd_gb=ssd,
        source=_tag(
            workload.source,
            f"ssd(small_share={small_share:g},small={s_lo}-{s_hi},large={l_lo}-{l_hi},seed={seed})",
        ),
    )


def scale_arrivals(workload: Workload, factor: float) -> Workload:
    """Arrival-rate factor: ``submit' = t0 + (submit − t0) / factor``, ``t0`` the first submit.

    ``factor > 1`` compresses the arrivals (denser, more load); ``factor < 1`` spreads them.
    Order and every other column are kept; the SWF table's submit field follows the column.
    """
    f = float(factor)
    if not (np.isfinite(f) and f > 0):
        raise ScenarioError(f"factor: expected a finite number > 0, got {factor!r}")
    if f == 1.0 or len(workload) == 0:
        return workload
    t0 = workload.submit[0]
    submit = t0 + (workload.submit - t0) / f
    swf = workload.swf.copy()
    swf[:, SWF_INDEX["submit"]] = submit
    return workload.replace(
        submit=submit, swf=swf, source=_tag(workload.source, f"arrival_factor={f:g}")
    )


# ---------------------------------------------------------------------------------------------
# Scenarios
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Scenario:
    """One of BBSched's synthetic workloads.

    ``bb_share`` of the jobs get a BB request > ``bb_min_gb``; when ``ssd_small_share`` is set,
    SSD requests follow with that share in 0–128 GB and the rest in 129–256 GB per node.
    """

    name: str
    bb_share: float
    bb_min_gb: float
    ssd_small_share: float | None = None
    section: str = "§4.1"


#: BBSched's S1–S7 (§4.1 and §5). S5–S7 are S2 plus local SSD requests.
SCENARIOS: Mapping[str, Scenario] = MappingProxyType(
    {
        "S1": Scenario("S1", 0.50, 5 * TB_GB),
        "S2": Scenario("S2", 0.75, 5 * TB_GB),
        "S3": Scenario("S3", 0.50, 20 * TB_GB),
        "S4": Scenario("S4", 0.75, 20 * TB_GB),
        "S5": Scenario("S5", 0.75, 5 * TB_GB, ssd_small_share=0.8, section="§5"),
        "S6": Scenario("S6", 0.75, 5 * TB_GB, ssd_small_share=0.5, section="§5"),
        "S7": Scenario("S7", 0.75, 5 * TB_GB, ssd_small_share=0.2, section="§5"),
    }
)


def bbsched_scenario(
    workload: Workload,
    name: str,
    *,
    base: str | BBSampler | Any = "theta",
    seed: int = 0,
    arrival_factor: float = 1.0,
) -> Workload:
    """Apply BBSched scenario ``name`` (``"S1"``…``"S7"``, any case) to ``workload``.

    BB requests from ``base`` (see :func:`with_bb_requests`), SSD requests for S5–S7, then
    :func:`scale_arrivals` by ``arrival_factor``. For one seed and base, S5–S7 carry exactly
    S2's BB column. ``source`` becomes ``"<source>+bbsched:S4,base=theta,seed=0"`` (plus
    ``,arrival_factor=F`` when F ≠ 1).
    """
    key = name.upper() if isinstance(name, str) else name
    if key not in SCENARIOS:
        raise UnknownScenarioError("BBSched scenario", name, list(SCENARIOS))
    sc = SCENARIOS[key]
    sampler, label = _resolve_base(base)
    out = with_bb_requests(
        workload, share=sc.bb_share, min_gb=sc.bb_min_gb, base=sampler, seed=seed
    )
    if sc.ssd_small_share is not None:
        out = with_ssd_requests(out, small_share=sc.ssd_small_share, seed=seed)
    out = scale_arrivals(out, arrival_factor)
    tag = f"bbsched:{sc.name},base={label},seed={seed}"
    if float(arrival_factor) != 1.0:
        tag += f",arrival_factor={float(arrival_factor):g}"
    return out.replace(source=_tag(workload.source, tag))


def bbsched_ssd_system(
    nodes: int = THETA.nodes, bb_gb: float = THETA.bb_gb, *, name: str = "theta-ssd"
) -> System:
    """BBSched §5's machine: half the nodes with a 128 GB SSD, half with 256 GB; shared BB.

    With an odd ``nodes`` the 128 GB group gets the extra node. Defaults: Theta's 4,392 nodes
    and the 2.16 PB burst buffer of §4.1 (see the module docstring on Table 2's 1.26 PB).
    """
    if isinstance(nodes, bool) or not isinstance(nodes, int | np.integer) or nodes < 2:
        raise ScenarioError(f"nodes: expected an integer >= 2 (two SSD groups), got {nodes!r}")
    big = int(nodes) // 2
    return System(
        name,
        (NodeGroup("ssd128", int(nodes) - big, 128.0), NodeGroup("ssd256", big, 256.0)),
        float(bb_gb),
        description="BBSched §5: 50 % of nodes with 128 GB local SSD, 50 % with 256 GB",
    )
