"""Synthetic scheduling windows: the decision problems a window-based scheduler poses.

These are stand-ins until windows recorded from simulations exist (decision replay). The
distributions are choices made here, documented so results can be read:

* Node counts: with probability 0.7 a power of two, else a whole number drawn uniformly; bounded
  by the machine (Theta jobs start at 128 nodes; Trinity at 1).
* Burst buffer: a job requests BB with probability ``bb_share`` (BBSched S1/S2: 50 % / 75 %);
  the request is log-uniform between 1 GB and the largest request BBSched reports for the machine
  (Theta 285 TB, Cori 165 TB; Trinity 100 TB here), in whole GB.
* Free capacity: each resource's free share is uniform in ``free_range`` (default 30–70 %), so
  that a window never fits whole and the constraints bind.
"""

from __future__ import annotations

import numpy as np

from schedbench.instances.systems import THETA, TRINITY, MachineSize
from schedbench.simcore.kinds.selection.problem import SelectionProblem


def _nodes(rng: np.random.Generator, w: int, low: int, high: int) -> np.ndarray:
    pow2 = 2 ** rng.integers(int(np.log2(max(low, 1))), int(np.log2(high)) + 1, size=w)
    uniform = rng.integers(low, high + 1, size=w)
    return np.where(rng.random(w) < 0.7, pow2, uniform).clip(low, high)


def _bb(rng: np.random.Generator, w: int, share: float, max_gb: float) -> np.ndarray:
    wants = rng.random(w) < share
    sizes = np.floor(np.exp(rng.uniform(0.0, np.log(max_gb), size=w)))
    return np.where(wants, sizes, 0.0)


def _free(rng: np.random.Generator, total: float, free_range: tuple[float, float]) -> float:
    return float(np.floor(total * rng.uniform(*free_range)))


def bb_window(
    w: int,
    seed: int,
    machine: MachineSize = THETA,
    *,
    bb_share: float = 0.5,
    max_bb_gb: float = 285_000.0,
    min_nodes: int = 128,
    free_range: tuple[float, float] = (0.3, 0.7),
) -> SelectionProblem:
    """A BBSched window (nodes, BB GB); objectives are the two demands (BBSched §3.2.1)."""
    rng = np.random.default_rng([seed, w, 1])
    top = min(4096, machine.nodes)
    if not 1 <= min_nodes <= top:
        raise ValueError(f"min_nodes: expected an integer in 1..{top}, got {min_nodes!r}")
    nodes = _nodes(rng, w, min_nodes, top)
    bb = _bb(rng, w, bb_share, max_bb_gb)
    return SelectionProblem(
        capacities=[_free(rng, machine.nodes, free_range), _free(rng, machine.bb_gb, free_range)],
        demands=np.column_stack([nodes, bb]),
        resources=("nodes", "bb_gb"),
        objective_scales=[machine.nodes, machine.bb_gb],
    )


def theta_window(w: int, seed: int, **kw) -> SelectionProblem:
    """BBSched window on Theta (4,392 nodes, 2.16 PB BB)."""
    return bb_window(w, seed, THETA, **kw)


def cerberus_run_window(
    w: int,
    seed: int,
    machine: MachineSize = TRINITY,
    *,
    free_range: tuple[float, float] = (0.3, 0.7),
) -> SelectionProblem:
    """Cerberus' CN-BB problem (eq. MaxProduct): maximise Σ c_i · bb_run_i under CN and BB.

    Every job uses the burst buffer in its run phase (Cerberus' model); nodes 1–8,192,
    BB 1 GB–100 TB log-uniform. ``free_range=(1, 1)`` frees the whole machine, the table size
    of the Cerberus authors' dense DP.
    """
    rng = np.random.default_rng([seed, w, 2])
    nodes = _nodes(rng, w, 1, 8192)
    bb = _bb(rng, w, 1.0, 100_000.0)
    return SelectionProblem(
        capacities=[_free(rng, machine.nodes, free_range), _free(rng, machine.bb_gb, free_range)],
        demands=np.column_stack([nodes, bb]),
        objectives=[nodes * bb],
        resources=("nodes", "bb_gb"),
        objective_names=("nodes_x_bb",),
    )


def cerberus_stage_window(
    w: int, seed: int, *, objective: str = "data", machine: MachineSize = TRINITY
) -> SelectionProblem:
    """Cerberus' stage-in (or stage-out) problem: one resource, the burst buffer.

    ``objective="data"`` maximises the data moved (eq. MaxTransferData); ``"count"`` the number
    of jobs (eq. MaxTaskNumber).
    """
    if objective not in ("data", "count"):
        raise ValueError(f"objective: expected 'data' or 'count', got {objective!r}")
    rng = np.random.default_rng([seed, w, 3])
    bb = _bb(rng, w, 1.0, 300_000.0)
    return SelectionProblem(
        capacities=[_free(rng, machine.bb_gb, (0.05, 0.3))],
        demands=bb[:, None],
        objectives=None if objective == "data" else [np.ones(w)],
        resources=("bb_gb",),
        objective_names=("bb_in_gb",) if objective == "data" else ("jobs",),
    )
