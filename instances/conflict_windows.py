"""Conflict-rich Theta-like windows: the windows the performance frontier is measured on
(docs/figures.md#performance-frontier).

``instances.windows.theta_window`` draws BB sizes log-uniformly (most requests small) and node
counts from 128 up: its windows are easy for an exact front. These windows are drawn so that
both resources bind and conflict:

* the machine: Theta, 4,392 nodes and 2,160,000 GB of burst buffer;
* job i asks for n_i nodes: with probability 0.7 one of {128, 256, 512, 1024, 2048, 4392}
  (uniform), otherwise uniform in [1, 4392] (whole nodes);
* a share s of the jobs, drawn once per window uniform in [0.5, 0.75], asks for burst buffer:
  each job independently with probability s, b_i uniform in [1000, 285000] GB (whole GB);
  the others ask for 0;
* the free capacity of each resource is uniform in [0.3, 0.7] of its total (floored to a whole
  node / GB), drawn independently per resource;
* only windows whose exact two-objective front (maximise nodes used, maximise BB used) has at
  least 3 points are kept.

Choices where the recipe is silent (documented, tested): "with probability s" is per job (so the
number of BB jobs varies around s · w); BB sizes and capacities are whole GB; the exact front is
computed by a caller-supplied function (instances may not import solvers: the layering is
bench -> solvers -> simcore <- instances), and a rejected candidate is replaced by the next
attempt of the same seeded stream, so ``conflict_windows(w, count, seed, front_size)`` is a pure
function of its arguments (given an exact ``front_size``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from schedbench.simcore.kinds.selection.problem import SelectionProblem

NODES = 4392
BB_GB = 2_160_000
NODE_CHOICES = (128, 256, 512, 1024, 2048, 4392)
P_CHOICE = 0.7
BB_SHARE = (0.5, 0.75)
BB_RANGE_GB = (1000, 285_000)
FREE_RANGE = (0.3, 0.7)
MIN_FRONT = 3
#: Attempts per kept window before giving up (the keep rate measured is above 90 %).
MAX_ATTEMPTS = 100


class WindowDrawError(RuntimeError):
    """No candidate window with a large enough front within the attempt limit."""


def conflict_candidate(w: int, seed: int, attempt: int = 0) -> SelectionProblem:
    """One candidate window (before the front-size filter), from the stream ``(seed, w, attempt)``."""
    if not isinstance(w, int) or isinstance(w, bool) or w < 1:
        raise ValueError(f"w: expected an integer >= 1, got {w!r}")
    rng = np.random.default_rng([seed, w, attempt, 17])
    choice = np.asarray(NODE_CHOICES)[rng.integers(0, len(NODE_CHOICES), size=w)]
    uniform = rng.integers(1, NODES + 1, size=w)
    nodes = np.where(rng.random(w) < P_CHOICE, choice, uniform)
    share = rng.uniform(*BB_SHARE)
    wants = rng.random(w) < share
    sizes = rng.integers(BB_RANGE_GB[0], BB_RANGE_GB[1] + 1, size=w)
    bb = np.where(wants, sizes, 0)
    free_nodes = float(np.floor(NODES * rng.uniform(*FREE_RANGE)))
    free_bb = float(np.floor(BB_GB * rng.uniform(*FREE_RANGE)))
    return SelectionProblem(
        capacities=[free_nodes, free_bb],
        demands=np.column_stack([nodes, bb]).astype(np.float64),
        resources=("nodes", "bb_gb"),
        objective_scales=[NODES, BB_GB],
    )


def conflict_windows(
    w: int,
    count: int,
    seed: int,
    front_size: Callable[[SelectionProblem], int],
    *,
    min_front: int = MIN_FRONT,
) -> list[SelectionProblem]:
    """``count`` windows of ``w`` jobs whose exact front has at least ``min_front`` points.

    Window k is the first candidate ``conflict_candidate(w, seed * 1000 + k, attempt)``,
    attempt = 0, 1, ..., that ``front_size`` (the number of points of the exact front) accepts.
    """
    if not isinstance(count, int) or count < 0:
        raise ValueError(f"count: expected an integer >= 0, got {count!r}")
    out = []
    for k in range(count):
        for attempt in range(MAX_ATTEMPTS):
            problem = conflict_candidate(w, seed * 1000 + k, attempt)
            if front_size(problem) >= min_front:
                out.append(problem)
                break
        else:
            raise WindowDrawError(
                f"window {k} (w={w}, seed={seed}): no candidate with a front of >= {min_front} "
                f"points in {MAX_ATTEMPTS} attempts"
            )
    return out
