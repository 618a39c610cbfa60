"""Load a module of the benchmark scripts (``bench/benchmarks/``, not an installed package) for
the tests that check a yardstick against the simulator."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parent.parent / "bench" / "benchmarks"


def load_benchmark_module(name: str) -> ModuleType:
    """``bench/benchmarks/<name>.py`` imported by its plain name (as the scripts import each
    other when run as ``python bench/benchmarks/<script>.py``)."""
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    return importlib.import_module(name)
