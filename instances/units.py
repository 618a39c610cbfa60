"""Job sizes and machine sizes in one unit: processors or nodes.

SWF counts processors (fields 5 and 8; the header's ``MaxProcs``), while the machines of the
papers and our presets count nodes (Theta: 4,392 nodes of 64 cores). Simulating the one on the
other without care sizes a 9,216-processor machine at 1,152 "nodes" and rejects every job wider
than that (LLNL Atlas, 8 processors per node, did). The rules, applied where a workload
meets a machine (``fit_units``):

* a machine sized from the trace's own header (``resolve_system(None, workload)``) is in the
  trace's unit: MaxProcs processors (MaxNodes when MaxProcs is absent, assuming one processor
  per node); nothing is converted;
* a trace in processors on a node-based machine (a preset or a TOML file), with the header
  giving processors per node (MaxProcs / MaxNodes > 1): job sizes become
  ``ceil(processors / per_node)`` nodes — a job holds whole nodes, as on every machine the
  traces come from;
* without that ratio, processors are taken as nodes one for one, and the note says so.

Every conversion or assumption is returned as a note for the run's ``metrics.json`` and summary.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from schedbench.simcore.system import System
from schedbench.simcore.workload import Workload


def fit_units(workload: Workload, system: System) -> tuple[Workload, list[str]]:
    """``workload`` with job sizes in ``system``'s unit, and notes saying what was done."""
    if workload.size_unit == system.unit or workload.size_unit == "nodes":
        return workload, []
    per_node = workload.procs_per_node
    if per_node is None or per_node == 1:
        why = (
            "the trace header gives no MaxProcs/MaxNodes ratio"
            if per_node is None
            else "the trace header says one processor per node"
        )
        return workload, [f"job sizes are processors, taken as nodes one for one ({why})"]
    nodes = np.ceil(workload.nodes / per_node).astype(np.int64)
    converted = dataclasses.replace(workload, nodes=nodes, size_unit="nodes")
    return converted, [
        f"job sizes converted from processors to nodes at {per_node} processors per node "
        f"(trace header MaxProcs {workload.max_procs} / MaxNodes {workload.max_nodes})"
    ]


def rejection_warning(
    workload: Workload, system: System, rejected: int, by_reason: dict[str, int]
) -> str | None:
    """A loud warning when more than 1 % of the usable jobs were rejected as never fitting,
    naming the likely cause; None otherwise."""
    usable = len(workload)
    if not usable or rejected <= 0.01 * usable:
        return None
    share = 100.0 * rejected / usable
    reasons = ", ".join(f"{k.removeprefix('rejected_')} {v}" for k, v in by_reason.items() if v)
    cause = "check the machine (--system) against the workload"
    too_wide = by_reason.get("rejected_nodes", 0)
    if too_wide and too_wide >= rejected / 2:
        widest = int(workload.nodes.max())
        cause = (
            f"the widest job asks for {widest:,} {workload.size_unit} but {system.name} has "
            f"{system.nodes:,} {system.unit}"
        )
        if workload.size_unit != system.unit or (workload.max_procs and workload.max_nodes):
            cause += (
                "; job sizes may be processors while the machine counts nodes: give --system, "
                "or check the trace's MaxProcs/MaxNodes header"
            )
    return (
        f"WARNING: {rejected:,} of {usable:,} jobs ({share:.1f} %) can never fit the machine and "
        f"were rejected ({reasons}): {cause}"
    )
