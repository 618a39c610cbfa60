"""The one-line machine header every benchmark script prints (so figures carry their context)."""

from __future__ import annotations

import gc
import importlib.metadata
import os
import platform
import resource
from collections.abc import Callable
from pathlib import Path

from schedbench.bench.store import cpu_model


def machine_line(*packages: str) -> str:
    """``machine: <cpu> | cpus: N | <os> | Python X | <package> <version> ...``."""
    versions = []
    for pkg in packages or ("numpy",):
        try:
            versions.append(f"{pkg} {importlib.metadata.version(pkg)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{pkg} missing")
    return (
        f"machine: {cpu_model() or platform.machine()} | cpus: {os.cpu_count()} | "
        f"{platform.system()} {platform.release()} | Python {platform.python_version()} | "
        + " | ".join(versions)
    )


def peak_rss_growth_mb(work: Callable[[], object]) -> float:
    """How much the process's peak resident set grows while ``work()`` runs (MB): the kernel's
    peak mark (VmHWM) is reset first through ``/proc/self/clear_refs``, so imports, JIT
    compilation and warm-up solves done before are out of it; where that is not possible, the
    growth of ``ru_maxrss`` (which keeps earlier peaks, so it can only under-report)."""
    gc.collect()
    try:
        Path("/proc/self/clear_refs").write_text("5")
        base, peak_of = _status_kb("VmRSS"), lambda: _status_kb("VmHWM")
    except OSError:
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        peak_of = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # noqa: E731
    work()
    return (peak_of() - base) / 1024


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise OSError(f"/proc/self/status has no {field}")
