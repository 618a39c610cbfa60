"""Shared pytest configuration: hypothesis profiles.

* ``ci`` (the default, and what CI and ``make test`` run): derandomised — the same examples on
  every run, so a green CI stays green and a red one can be reproduced — with no example
  database (nothing read or written under ``.hypothesis/``).
* ``deep`` (``HYPOTHESIS_PROFILE=deep``, ``make test-deep``): randomised, 20× the examples of
  every property (``examples(n)`` below), the database kept in ``.hypothesis/`` (git-ignored) so
  a failure found once is replayed first next time. Run it before a stop.
* ``dev`` (``HYPOTHESIS_PROFILE=dev``): randomised at the default counts, for quick exploration.

All disable the per-example deadline: solvers may JIT-compile (numba) on first use, and the time a
solver takes is measured by the benchmarks, not by the property tests. Shrinking is kept (a
minimal example is what makes a failure readable) but bounded in time in ``ci``.
"""

from __future__ import annotations

from hypothesis import Phase, settings

from tests._hyp import DEEP_FACTOR, PROFILE

settings.register_profile(
    "ci",
    deadline=None,
    max_examples=60,
    derandomize=True,
    database=None,
    print_blob=True,
    phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink),
)
settings.register_profile("dev", deadline=None, max_examples=60, print_blob=True)
settings.register_profile(
    "deep", deadline=None, max_examples=60 * DEEP_FACTOR, print_blob=True, derandomize=False
)
if PROFILE not in ("ci", "dev", "deep"):
    raise RuntimeError(f"HYPOTHESIS_PROFILE={PROFILE!r}: expected ci, dev or deep")
settings.load_profile(PROFILE)
