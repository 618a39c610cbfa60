"""The machine: node groups (with per-node local SSD), a shared burst buffer, bandwidths.

Per-node state is held per *node group* — a set of identical nodes (same local SSD size, and
later the same cache or reservation calendar) — and the simulator tracks how many nodes of each
group are free. That is exact for everything the papers schedule so far: BBSched §5 only asks
that a job needing ``s`` GB of SSD per node gets nodes whose SSD is at least ``s``, preferring
the smallest adequate SSD. A later model that needs individual nodes (file caches of the
locality paper, advance reservations) can split a group into groups of one node.

Resource vector. The simulator and the window policy see a machine as ``K`` numbers:

* ``nodes`` — all nodes;
* ``nodes_ssd>=G`` — one more entry per node group above the smallest SSD size ``G`` (the nodes
  whose SSD is at least ``G``); a job needing ``s`` GB per node demands its node count in every
  such entry with ``G >= s`` — more precisely, in every entry whose threshold is the smallest
  group size that still holds ``s`` or a larger one;
* ``bb_gb`` — the shared burst buffer, when the machine has one.

Because the SSD requirements are nested (a node good for ``s`` is good for every smaller
``s'``), a set of jobs fits the free nodes exactly when every entry of the summed demand vector
fits (Hall's condition for nested sets), provided nodes are assigned to the most demanding jobs
first; the engine's node-group assignment (``Simulation._group_plan`` in ``simcore/engine.py``)
takes the smallest adequate SSD first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedbench.simcore.errors import SchedbenchError


class SystemSpecError(SchedbenchError, ValueError):
    """A malformed machine description."""


@dataclass(frozen=True, slots=True)
class NodeGroup:
    """``count`` identical nodes, each with ``ssd_gb`` of local SSD (0 = none)."""

    name: str
    count: int
    ssd_gb: float = 0.0

    def __post_init__(self) -> None:
        if not isinstance(self.count, int) or isinstance(self.count, bool) or self.count < 1:
            raise SystemSpecError(
                f"node group {self.name!r}: count must be an integer >= 1, got {self.count!r}"
            )
        if not self.ssd_gb >= 0:
            raise SystemSpecError(
                f"node group {self.name!r}: ssd_gb must be >= 0, got {self.ssd_gb!r}"
            )


@dataclass(frozen=True, slots=True)
class System:
    """A machine: node groups sorted by SSD size, a shared burst buffer and bandwidths.

    Bandwidths (GB/s) drive BBSim's three-phase lifecycle: ``bw_io_gbps`` between the I/O layer
    (PFS) and the burst buffer / compute nodes (2.5 GB/s on the Trinity-like system of the BBSim
    paper), ``bw_bb_gbps`` between compute nodes and burst-buffer nodes (8 GB/s there).
    """

    name: str
    node_groups: tuple[NodeGroup, ...]
    bb_gb: float = 0.0
    bw_bb_gbps: float = 8.0
    bw_io_gbps: float = 2.5
    description: str = ""
    #: What a "node" of this machine is, in the unit job sizes are counted in: ``"nodes"`` for
    #: the presets and TOML machines, ``"processors"`` for a machine sized from an SWF header's
    #: MaxProcs (every job size of such a trace is in processors).
    unit: str = "nodes"
    _thresholds: tuple[float, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        groups = tuple(sorted(self.node_groups, key=lambda g: g.ssd_gb))
        if not groups:
            raise SystemSpecError(f"system {self.name!r}: needs at least one node group")
        names = [g.name for g in groups]
        if len(set(names)) != len(names):
            raise SystemSpecError(
                f"system {self.name!r}: node group names must be unique, got {names}"
            )
        object.__setattr__(self, "node_groups", groups)
        if self.unit not in ("nodes", "processors"):
            raise SystemSpecError(
                f"system {self.name!r}: unit must be 'nodes' or 'processors', got {self.unit!r}"
            )
        if not (self.bb_gb >= 0 and np.isfinite(self.bb_gb)):
            raise SystemSpecError(
                f"system {self.name!r}: bb_gb must be a finite number >= 0, got {self.bb_gb!r}"
            )
        for key in ("bw_bb_gbps", "bw_io_gbps"):
            v = getattr(self, key)
            if not (v > 0 and np.isfinite(v)):
                raise SystemSpecError(
                    f"system {self.name!r}: {key} must be a positive number, got {v!r}"
                )
        sizes = sorted({g.ssd_gb for g in groups})
        object.__setattr__(self, "_thresholds", tuple(sizes[1:]))

    @classmethod
    def simple(cls, name: str, nodes: int, bb_gb: float = 0.0, **kw: Any) -> System:
        """A machine of identical nodes without local SSD."""
        return cls(name, (NodeGroup("compute", int(nodes), 0.0),), float(bb_gb), **kw)

    # ------------------------------------------------------------------ sizes
    @property
    def nodes(self) -> int:
        return sum(g.count for g in self.node_groups)

    @property
    def max_ssd_gb(self) -> float:
        return max(g.ssd_gb for g in self.node_groups)

    @property
    def has_ssd(self) -> bool:
        return self.max_ssd_gb > 0

    @property
    def ssd_total_gb(self) -> float:
        return sum(g.count * g.ssd_gb for g in self.node_groups)

    # ------------------------------------------------------------------ resource vector
    @property
    def resource_names(self) -> tuple[str, ...]:
        names = ["nodes"] + [f"nodes_ssd>={t:g}" for t in self._thresholds]
        if self.bb_gb > 0:
            names.append("bb_gb")
        return tuple(names)

    def capacity_vector(self) -> tuple[float, ...]:
        caps: list[float] = [float(self.nodes)]
        for t in self._thresholds:
            caps.append(float(sum(g.count for g in self.node_groups if g.ssd_gb >= t)))
        if self.bb_gb > 0:
            caps.append(float(self.bb_gb))
        return tuple(caps)

    def demand_matrix(self, nodes: np.ndarray, bb_gb: np.ndarray, ssd_gb: np.ndarray) -> np.ndarray:
        """Each job's demand on the resource vector, shape (n, K).

        A job needing ``s`` GB of SSD per node counts its nodes in the ``nodes_ssd>=t`` entry of
        every threshold ``t`` it cannot avoid: those with ``t`` at most the smallest group size
        that holds ``s``.
        """
        nodes = np.asarray(nodes, dtype=np.float64)
        cols = [nodes]
        sizes = [g.ssd_gb for g in self.node_groups]
        for t in self._thresholds:
            # smallest group SSD that is >= s; the job is confined to groups >= t when that
            # smallest adequate size is itself >= t, i.e. when s > the largest size below t.
            below = max(s for s in sizes if s < t)
            cols.append(np.where(np.asarray(ssd_gb) > below, nodes, 0.0))
        if self.bb_gb > 0:
            cols.append(np.asarray(bb_gb, dtype=np.float64))
        return np.column_stack(cols) if cols else np.zeros((len(nodes), 0))

    def fits_alone(self, nodes: int, bb_gb: float, ssd_gb: float) -> str | None:
        """``None`` when a job could ever run on an empty machine, else the reason it cannot."""
        if nodes > self.nodes:
            return f"needs {nodes} nodes, the machine has {self.nodes}"
        if bb_gb > self.bb_gb:
            return f"needs {bb_gb:g} GB of burst buffer, the machine has {self.bb_gb:g}"
        if ssd_gb > 0:
            ok = sum(g.count for g in self.node_groups if g.ssd_gb >= ssd_gb)
            if nodes > ok:
                return f"needs {nodes} nodes with >= {ssd_gb:g} GB SSD, the machine has {ok}"
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "bb_gb": self.bb_gb,
            "bw_bb_gbps": self.bw_bb_gbps,
            "bw_io_gbps": self.bw_io_gbps,
            "node_groups": [
                {"name": g.name, "count": g.count, "ssd_gb": g.ssd_gb} for g in self.node_groups
            ],
        }
