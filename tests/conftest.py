"""Shared pytest configuration: hypothesis profiles.

``ci`` is derandomised so CI runs are reproducible; ``dev`` explores new examples each run. Both
disable the per-example deadline: solvers may JIT-compile (numba) on first use, and the time a
solver takes is measured by the benchmarks, not by the property tests.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", deadline=None, max_examples=60, derandomize=True)
settings.register_profile("dev", deadline=None, max_examples=60)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
