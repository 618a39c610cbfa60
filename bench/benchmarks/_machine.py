"""The one-line machine header every benchmark script prints (so figures carry their context)."""

from __future__ import annotations

import importlib.metadata
import os
import platform

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
