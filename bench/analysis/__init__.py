"""Analyses beyond the papers: offline optima and exact references that an online policy is
measured against (docs/design.md#beyond-the-papers).

* :mod:`.ar_offline` — the offline optimum of an advance-reservation stream (every request
  known in advance), used by ``schedbench reproduce ar`` and
  ``bench/benchmarks/ar_offline_reach.py``;
* :mod:`.locality_window` — the exact placement of a window of locality jobs, and a closed-loop
  scheduler built on it, used by ``bench/benchmarks/locality_window_gap.py``.

They are not solvers: no registered problem kind poses their problems, so nothing registers
them, and they depend on ``simcore`` only (``bench → solvers → simcore ← instances``).
"""
