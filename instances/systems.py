"""Machine presets (sizes from the papers) and machine descriptions in TOML.

Presets (burst buffer capacities in GB, 1 PB = 10^6 GB):

* ``theta`` (ALCF): 4,392 nodes (BBSched Table 2); the shared burst buffer of 2.16 PB that
  BBSched §4.1 assumes for its experiments.
* ``theta-ssd``: the same with local SSDs as in BBSched §5 (S5–S7): half of the nodes with
  128 GB, half with 256 GB. Kept separate from ``theta`` because the SSD adds a resource (and an
  objective) to every decision, which workloads without SSD requests should not pay for.
* ``cori`` (NERSC): 12,076 nodes and a 1.8 PB burst buffer (BBSched Table 2).
* ``cori-persistent``: Cori as BBSched §4.1 describes its burst buffer in use: "One-third of
  burst buffers on Cori are reserved persistently and their lifetimes are independent of jobs".
  The reserved 0.6 PB is never free for jobs, so the machine's schedulable burst buffer is the
  other 1.2 PB, and burst-buffer usage is measured over those 1.2 PB (the paper does not say
  whether its usage counts the reserved third as used; if it does, its figure corresponds to
  1/3 + 2/3 x ours).
* ``trinity`` (LANL): 18,936 compute nodes; 576 burst-buffer nodes with 3.7 PB in total;
  8 GB/s between compute nodes and burst buffer, 2.5 GB/s between compute nodes and the I/O
  layer (BBSim paper, system section; Cerberus' evaluation system).
* ``cerberus``: the machine of the published Cerberus evaluation as its code ran it
  (``papers/cerberus-evaluation-model.md`` §1): 300,000 cores (the paper says about 303k), a
  4,000 TB burst buffer (the paper says 3.7 PB), 8 GB/s for every transfer that touches the burst
  buffer and 2.5 GB/s between compute nodes and external storage on the system without one. Its
  "nodes" are cores (``unit = "processors"``): Cerberus counts cores.

A TOML machine file holds ``name``, either ``nodes`` (identical nodes) or a list of
``[[node_groups]]`` tables (``name``, ``count``, ``ssd_gb``), and optionally ``bb_gb``,
``bb_persistent_gb`` (burst buffer reserved persistently, never free for jobs: the machine
schedules ``bb_gb - bb_persistent_gb``, as ``cori-persistent``), ``bw_bb_gbps``, ``bw_io_gbps``
and ``description``::

    name = "mini"
    bb_gb = 1000
    [[node_groups]]
    name = "ssd128"
    count = 64
    ssd_gb = 128
    [[node_groups]]
    name = "ssd256"
    count = 64
    ssd_gb = 256
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from schedbench.simcore.errors import SchedbenchError
from schedbench.simcore.safeio import read_text
from schedbench.simcore.system import NodeGroup, System, SystemSpecError
from schedbench.simcore.workload import Workload

#: Kept for the decision-problem generators (``instances/windows.py``): a System has
#: ``name``, ``nodes`` and ``bb_gb`` like the small record they used before.
MachineSize = System

THETA = System.simple("theta", 4392, 2.16e6)
THETA_SSD = System(
    "theta-ssd",
    (NodeGroup("ssd128", 2196, 128.0), NodeGroup("ssd256", 2196, 256.0)),
    2.16e6,
    description="Theta with BBSched §5's local SSDs: half 128 GB, half 256 GB",
)
CORI = System.simple("cori", 12076, 1.8e6)
#: BBSched §4.1: one third of Cori's burst buffer is reserved persistently.
CORI_PERSISTENT_GB = 0.6e6
CORI_PERSISTENT = System.simple(
    "cori-persistent",
    12076,
    1.8e6 - CORI_PERSISTENT_GB,
    description="Cori (12,076 nodes, 1.8 PB burst buffer) with one third of the burst buffer "
    "(0.6 PB) reserved persistently (BBSched §4.1): 1.2 PB schedulable",
)
TRINITY = System.simple("trinity", 18936, 3.7e6, bw_bb_gbps=8.0, bw_io_gbps=2.5)
CERBERUS = System.simple(
    "cerberus",
    300_000,
    4.0e6,
    bw_bb_gbps=8.0,
    bw_io_gbps=2.5,
    unit="processors",
    description="Cerberus evaluation machine: 300,000 cores, 4,000 TB burst buffer, 8 GB/s "
    "(2.5 GB/s without burst buffer)",
)

PRESETS: dict[str, System] = {
    m.name: m for m in (THETA, THETA_SSD, CORI, CORI_PERSISTENT, TRINITY, CERBERUS)
}


class SystemFileError(SchedbenchError, ValueError):
    """A machine TOML file with a missing or wrong key; the message names file and key."""


_TOP_KEYS = {
    "name",
    "nodes",
    "node_groups",
    "bb_gb",
    "bb_persistent_gb",
    "bw_bb_gbps",
    "bw_io_gbps",
    "description",
}
_GROUP_KEYS = {"name", "count", "ssd_gb"}


def _number(data: dict, key: str, where: str, *, integer: bool = False, default: Any = None) -> Any:
    if key not in data:
        if default is None:
            raise SystemFileError(f"{where}: missing key {key!r}")
        return default
    v = data[key]
    ok = isinstance(v, int) if integer else isinstance(v, (int, float))
    if isinstance(v, bool) or not ok:
        kind = "an integer" if integer else "a number"
        raise SystemFileError(f"{where}: key {key!r}: expected {kind}, got {v!r}")
    return v


def system_from_dict(data: dict, *, source: str = "<dict>") -> System:
    """Build a :class:`System` from the TOML structure; errors name ``source`` and the key."""
    if not isinstance(data, dict):
        raise SystemFileError(f"{source}: expected a table of machine keys")
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise SystemFileError(
            f"{source}: unknown key {unknown[0]!r}; expected some of {', '.join(sorted(_TOP_KEYS))}"
        )
    name = data.get("name", Path(source).stem)
    if not isinstance(name, str) or not name:
        raise SystemFileError(f"{source}: key 'name': expected a non-empty string, got {name!r}")
    if ("nodes" in data) == ("node_groups" in data):
        raise SystemFileError(f"{source}: give exactly one of 'nodes' or [[node_groups]]")
    groups: list[NodeGroup] = []
    try:
        if "nodes" in data:
            groups.append(NodeGroup("compute", _number(data, "nodes", source, integer=True)))
        else:
            raw = data["node_groups"]
            if not isinstance(raw, list) or not raw:
                raise SystemFileError(
                    f"{source}: 'node_groups': expected a non-empty list of tables"
                )
            for i, g in enumerate(raw):
                where = f"{source}: node_groups[{i}]"
                if not isinstance(g, dict):
                    raise SystemFileError(f"{where}: expected a table")
                bad = sorted(set(g) - _GROUP_KEYS)
                if bad:
                    raise SystemFileError(
                        f"{where}: unknown key {bad[0]!r}; expected name, count, ssd_gb"
                    )
                gname = g.get("name", f"group{i}")
                groups.append(
                    NodeGroup(
                        str(gname),
                        _number(g, "count", where, integer=True),
                        float(_number(g, "ssd_gb", where, default=0.0)),
                    )
                )
        kw: dict[str, Any] = {
            k: float(_number(data, k, source, default=default))
            for k, default in (("bw_bb_gbps", 8.0), ("bw_io_gbps", 2.5))
        }
        bb = float(_number(data, "bb_gb", source, default=0.0))
        reserved = float(_number(data, "bb_persistent_gb", source, default=0.0))
        description = str(data.get("description", ""))
        if reserved:
            if not 0 <= reserved < bb:
                raise SystemFileError(
                    f"{source}: key 'bb_persistent_gb': expected a number >= 0 and below "
                    f"bb_gb ({bb:g}), got {reserved!r}"
                )
            note = f"{reserved:g} of {bb:g} GB burst buffer reserved persistently"
            description = f"{description}; {note}" if description else note
            bb -= reserved
        return System(name, tuple(groups), bb, description=description, **kw)
    except SystemSpecError as exc:
        raise SystemFileError(f"{source}: {exc}") from exc


def load_system_file(path: str | Path) -> System:
    p = Path(path)
    try:
        if not p.exists():
            raise FileNotFoundError(p)
        data = tomllib.loads(read_text(p, gunzip=False))
    except FileNotFoundError as exc:
        raise SystemFileError(f"{p}: no such machine file") from exc
    except tomllib.TOMLDecodeError as exc:
        raise SystemFileError(f"{p}: not valid TOML: {exc}") from exc
    return system_from_dict(data, source=str(p))


def resolve_system(
    spec: str | None, *, max_nodes: int | None = None, workload: Workload | None = None
) -> System:
    """A preset name, a TOML path, or — when ``spec`` is None — the machine the workload's
    header describes, in the unit of its job sizes (``Workload.machine_size``: MaxProcs
    processors for an SWF trace, see ``instances/units.py``); ``max_nodes`` is the older way
    to give that size directly (nodes)."""
    if spec is None:
        size = workload.machine_size if workload is not None else max_nodes
        unit = workload.size_unit if workload is not None else "nodes"
        if not size:
            raise SystemFileError(
                "no --system given and the workload has no MaxNodes/MaxProcs header; "
                f"give a preset ({', '.join(PRESETS)}) or a machine TOML file"
            )
        return System.simple(
            f"swf-{size}{'p' if unit == 'processors' else ''}",
            int(size),
            unit=unit,
            description=f"sized from the trace header: {size} {unit}",
        )
    if spec in PRESETS:
        return PRESETS[spec]
    if spec.endswith(".toml") or Path(spec).exists():
        return load_system_file(spec)
    raise SystemFileError(
        f"unknown system {spec!r}: expected a preset ({', '.join(PRESETS)}) or a machine .toml file"
    )


# ---------------------------------------------------------------------------------------------
# The data-locality model's platforms (``simcore/locality``; papers/locality-evaluation-model.md)
# ---------------------------------------------------------------------------------------------
def _locality_presets() -> dict[str, Any]:
    from schedbench.simcore.locality.model import LocalityPlatform

    rackham = LocalityPlatform(
        name="locality",
        nodes=486,
        cores_per_node=20,
        bandwidth_gbps=0.1,
        memory_gb=(128,) * 450 + (256,) * 32 + (1024,) * 4,
        description=(
            "the evaluated cluster (model note §1): 486 nodes x 20 cores, 0.1 GB/s per node, "
            "scan order 450 x 128 GB, 32 x 256 GB, 4 x 1 TB (memory fixes only the order)"
        ),
    )
    return {"locality": rackham}


def locality_platform(spec: str = "locality", *, nodes: int | None = None) -> Any:
    """A locality platform: the preset ``locality`` (486 × 20 cores, 0.1 GB/s), or
    ``locality:N`` — the same nodes, ``N`` of them (converted small traces; tests)."""
    from schedbench.simcore.locality.model import LocalityPlatform

    presets = _locality_presets()
    name, _, count = spec.partition(":")
    if name not in presets:
        raise SystemFileError(
            f"unknown locality platform {spec!r}: expected {', '.join(presets)} or locality:NODES"
        )
    base = presets[name]
    if count or nodes is not None:
        try:
            n = int(count) if count else int(nodes)  # type: ignore[arg-type]
        except ValueError as exc:
            raise SystemFileError(
                f"locality platform {spec!r}: expected locality:NODES with an integer >= 1"
            ) from exc
        if n < 1:
            raise SystemFileError(f"locality platform {spec!r}: expected at least 1 node")
        return LocalityPlatform(
            name=f"{name}:{n}",
            nodes=n,
            cores_per_node=base.cores_per_node,
            bandwidth_gbps=base.bandwidth_gbps,
            # the machine file's first n nodes, in its scan order (memory decides nothing, §1)
            memory_gb=base.memory_gb[:n] if n <= len(base.memory_gb) else (),
            description=f"{n} nodes like the evaluated cluster's",
        )
    return base
