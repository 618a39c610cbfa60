"""The hypothesis profile in force (tests/conftest.py) and per-property example counts."""

from __future__ import annotations

import os

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
#: How many times more examples the ``deep`` profile runs than each property's own count.
DEEP_FACTOR = 20


def examples(n: int) -> int:
    """A property's example count ``n``, scaled up under the ``deep`` profile."""
    return n * DEEP_FACTOR if PROFILE == "deep" else n
