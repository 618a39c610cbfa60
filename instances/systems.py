"""System presets used by the decision-problem generators (sizes from the papers).

* Theta (ALCF): 4,392 nodes (BBSched Table 2); shared burst buffer of 2.16 PB as BBSched §4.1
  assumes for its experiments.
* Cori (NERSC): 12,076 nodes and a 1.8 PB burst buffer (BBSched Table 2).
* Trinity (LANL): 18,936 compute nodes and 576 burst-buffer nodes with 3.7 PB (BBSim paper;
  Cerberus' evaluation system).

Burst buffer capacities are in GB with 1 PB = 10^6 GB.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class MachineSize:
    name: str
    nodes: int
    bb_gb: float


THETA = MachineSize("theta", 4392, 2.16e6)
CORI = MachineSize("cori", 12076, 1.8e6)
TRINITY = MachineSize("trinity", 18936, 3.7e6)

PRESETS = {m.name: m for m in (THETA, CORI, TRINITY)}
