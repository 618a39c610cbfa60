"""The load knob: reach a requested offered load per resource, seed by seed
(docs/design.md#the-bbsched-regime-starvation-ageing-and-load).

BBSched's results depend on the regime: in its S3/S4 workloads the burst buffer is the
bottleneck (Table 3: 84–95 % burst-buffer usage against 60–74 % node usage for BBSched), and
that is where it gains most (§4.4). A fixed arrival factor does not put a synthetic workload
there: it gives a different load for every seed (0.54–0.74 at factor 1 for Lublin–Feitelson jobs
on Theta's 4,392 nodes), and the burst-buffer load depends on how many jobs run at once, which a
synthetic job mix does not share with the real trace. So the knob asks for the *offered load*
itself:

* **nodes** — the arrival-rate factor: ``submit' = t0 + (submit − t0) / f`` (``instances.bbsched.
  scale_arrivals``). The offered node load over the submit span (``simcore.metrics.
  offered_load``) is then exactly ``f`` times the original, so ``f = target / current``.
* **bb** — the burst-buffer request scale: every request is multiplied by ``g`` (whole GB, up;
  a request never drops to 0 and never exceeds the machine's burst buffer, so no job becomes
  unrunnable). Without the cap, ``g = target / current`` after the arrival scaling; the cap and
  the rounding are corrected by a few fixed-point steps (the result is within 0.1 % of the
  target or the call fails, naming the largest load the cap allows). Scaling every request by
  ``g`` on a burst buffer of ``B`` schedules exactly as the original requests on a burst buffer
  of ``B / g`` would (up to the rounding): the shares of the buffer the jobs ask for are what
  matters. It is done on the requests because a workload transform does not own the machine.

Both factors are computed per workload (per seed) over a window of the submit span given as
fractions trimmed at each end (``warmup``, ``cooldown``; default none). Give the fractions the
measurement window uses (``MeasurementWindow.fractions``): a fractional window holds the same
jobs whatever the arrival factor, so the offered load that ``metrics.json`` reports over the
measurement window (``offered_node_load``, ``offered_bb_load``) is then the target. With a
window in seconds, or none, the two differ by how unevenly the load falls over the span
(Lublin–Feitelson runtimes are heavy-tailed: a few jobs carry much of the node-seconds; 6,000
jobs on Theta at a whole-span target of 0.85 measured 0.76–0.96 with two days trimmed at each
end).

As a workload transform: ``+load:nodes=0.85,bb=1.3,system=theta[,warmup=0.1,cooldown=0.1]``
(``system``: a preset or a machine TOML file; without it the node count is the workload's
machine size and ``bb`` cannot be given). ``+bbscale:G`` multiplies the burst-buffer requests
by a given ``G`` (no cap).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from schedbench.instances.bbsched import scale_arrivals
from schedbench.simcore.errors import SchedbenchError
from schedbench.simcore.metrics import offered_load as _offered_load
from schedbench.simcore.system import System
from schedbench.simcore.workload import Workload


class LoadError(SchedbenchError, ValueError):
    """A load target the workload cannot reach, or a malformed one."""


#: Relative tolerance of the burst-buffer calibration (the rounding to whole GB and the cap).
BB_RTOL = 1e-3


def _tag(source: str, tag: str) -> str:
    return f"{source}+{tag}" if source else tag


def scale_bb(workload: Workload, factor: float, *, capacity_gb: float | None = None) -> Workload:
    """Every burst-buffer request × ``factor``, rounded up to whole GB; a request stays >= 1 GB
    and, with ``capacity_gb``, at most the capacity. Jobs without a request keep 0."""
    g = float(factor)
    if not (math.isfinite(g) and g > 0):
        raise LoadError(f"bb scale: expected a finite number > 0, got {factor!r}")
    bb = workload.bb_gb
    scaled = np.where(bb > 0, np.maximum(np.ceil(bb * g - 1e-9), 1.0), 0.0)
    if capacity_gb is not None:
        scaled = np.minimum(scaled, float(capacity_gb))
    return workload.replace(bb_gb=scaled, source=_tag(workload.source, f"bb_scale={g:.6g}"))


@dataclass(frozen=True, slots=True)
class LoadCalibration:
    """What :func:`calibrate_load` found: the factors and the offered loads before and after.

    ``arrival_factor`` is 1 and ``bb_scale`` is 1 for a resource without a target.
    """

    arrival_factor: float
    bb_scale: float
    target_nodes: float | None
    target_bb: float | None
    before_nodes: float | None
    before_bb: float | None
    after_nodes: float | None
    after_bb: float | None

    def apply(self, workload: Workload, system: System) -> Workload:
        """The same factors on another workload (e.g. S1–S3 with the factors of S4's seed)."""
        out = scale_arrivals(workload, self.arrival_factor)
        if self.bb_scale != 1.0:
            out = scale_bb(out, self.bb_scale, capacity_gb=system.bb_gb or None)
        return out


def _check_target(name: str, value: float | None) -> float | None:
    if value is None:
        return None
    v = float(value)
    if not (math.isfinite(v) and v > 0):
        raise LoadError(f"load: {name}: expected an offered load > 0, got {value!r}")
    return v


def _window(workload: Workload, warmup: float, cooldown: float) -> tuple[float, float]:
    first, last = float(workload.submit[0]), float(workload.submit[-1])
    span = last - first
    return first + warmup * span, last - cooldown * span


def window_load(
    workload: Workload, system: System, warmup: float = 0.0, cooldown: float = 0.0
) -> dict[str, float | None]:
    """``offered_load`` over the submit span with the fractions ``warmup`` and ``cooldown``
    trimmed (the measurement window of ``MeasurementWindow.fractions``)."""
    return _offered_load(workload, system, *_window(workload, warmup, cooldown))


def calibrate_load(
    workload: Workload,
    system: System,
    *,
    nodes: float | None = None,
    bb: float | None = None,
    warmup: float = 0.0,
    cooldown: float = 0.0,
) -> LoadCalibration:
    """The arrival factor and burst-buffer scale that give ``workload`` the offered loads
    ``nodes`` and ``bb`` on ``system`` over the submit span less the fractions ``warmup`` and
    ``cooldown`` (module docstring); either target may be None (left alone)."""
    nodes = _check_target("nodes", nodes)
    bb = _check_target("bb", bb)
    for name, v in (("warmup", warmup), ("cooldown", cooldown)):
        if not (isinstance(v, int | float) and 0 <= v < 1):
            raise LoadError(f"load: {name}: expected a fraction of the span in [0, 1), got {v!r}")
    if warmup + cooldown >= 1:
        raise LoadError(f"load: warmup + cooldown must be < 1, got {warmup} + {cooldown}")
    if len(workload) < 2 or workload.span_s <= 0:
        raise LoadError("load: the workload needs at least two distinct submit times")

    def load_of(w: Workload) -> dict[str, float | None]:
        return window_load(w, system, warmup, cooldown)

    before = load_of(workload)
    if bb is not None and (system.bb_gb <= 0 or not before["bb"]):
        raise LoadError(
            "load: bb: the machine has no burst buffer"
            if system.bb_gb <= 0
            else "load: bb: no job requests burst buffer (apply a bbsched:S1..S7 transform first)"
        )
    f = 1.0 if nodes is None or not before["nodes"] else nodes / float(before["nodes"])
    w = scale_arrivals(workload, f)
    g = 1.0
    if bb is not None:
        current = float(load_of(w)["bb"] or 0.0)
        g = bb / current
        achieved = current
        for _ in range(60):
            achieved = float(load_of(scale_bb(w, g, capacity_gb=system.bb_gb))["bb"] or 0.0)
            if abs(achieved / bb - 1.0) <= BB_RTOL:
                break
            step = bb / achieved
            g *= step
            if step > 1 and np.all(w.bb_gb[w.bb_gb > 0] * g >= system.bb_gb):
                break  # every request at the cap: the target is out of reach
        if abs(achieved / bb - 1.0) > BB_RTOL:
            capped = load_of(w.replace(bb_gb=np.where(w.bb_gb > 0, system.bb_gb, 0.0)))["bb"]
            raise LoadError(
                f"load: bb={bb:g} is out of reach on {system.name}: requests are capped at the "
                f"burst buffer ({system.bb_gb:g} GB), which allows at most {capped:.3g}"
            )
    after = load_of(scale_bb(w, g, capacity_gb=system.bb_gb) if bb is not None else w)
    return LoadCalibration(
        arrival_factor=f,
        bb_scale=g,
        target_nodes=nodes,
        target_bb=bb,
        before_nodes=before["nodes"],
        before_bb=before["bb"],
        after_nodes=after["nodes"],
        after_bb=after["bb"],
    )


def with_load(
    workload: Workload,
    system: System,
    *,
    nodes: float | None = None,
    bb: float | None = None,
    warmup: float = 0.0,
    cooldown: float = 0.0,
) -> Workload:
    """``workload`` at the offered loads ``nodes`` / ``bb`` on ``system`` (module docstring);
    ``source`` records the targets and the factors found."""
    cal = calibrate_load(workload, system, nodes=nodes, bb=bb, warmup=warmup, cooldown=cooldown)
    out = cal.apply(workload, system)
    targets = ",".join(f"{k}={v:g}" for k, v in (("nodes", nodes), ("bb", bb)) if v is not None)
    tag = (
        f"load({targets} on {system.name}: arrivals x{cal.arrival_factor:.4g}, "
        f"bb x{cal.bb_scale:.4g})"
    )
    return out.replace(source=_tag(workload.source, tag))
