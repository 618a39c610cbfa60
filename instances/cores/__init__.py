"""The built-in simulation cores (``simcore/core.py`` states the protocol), one module each:

* ``bbsched`` — the engine of ``simcore/engine.py``: count-based nodes, burst buffer and local
  SSD, the classic and three-phase lifecycles, backfilling; its window policy poses
  ``selection`` problems (BBSched);
* ``cerberus`` — the Cerberus/BBSim loop of ``simcore/cerberus/``: three queues, a knapsack per
  queue (``selection``);
* ``locality`` — the node-level loop of ``simcore/locality/``: cores, cached input files, the
  ten schedulers of the paper; each job's node is a ``placement`` problem;
* ``reservations`` — the advance-reservation stream of ``simcore/reservations/``: every
  request is answered on arrival, a ``reservation`` problem.

They live here, not in simcore, because a core reads its workload and its machine, which is what
this package does (``bench -> solvers -> simcore <- instances``); they register under the
entry-point group ``schedbench.cores`` exactly as a third-party core would.
"""
