"""Provenance written next to every run: code version, packages, interpreter, machine, threads
(benchopt and pytest-benchmark keep the same next to their results)."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import socket
import subprocess
from pathlib import Path
from typing import Any

_PACKAGES = ("schedbench", "numpy", "ortools", "pulp", "highspy", "numba")
_THREAD_VARS = ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
# Not thread counts, but they change which BLAS kernels run, hence timings.
_KERNEL_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
_GIT_TIMEOUT_S = 10.0


def provenance(source_dir: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """What produced a result: code version, packages, interpreter, machine, thread settings.

    ``source_dir`` is the checkout whose git commit is reported (default: the one this module
    lives in). Never fails: anything that cannot be found is ``None``. The result is JSON
    compatible.
    """
    root = Path(source_dir) if source_dir is not None else Path(__file__).resolve().parents[2]
    try:
        cpus_usable: int | None = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus_usable = None
    return {
        "git": _git_state(root),
        "packages": {name: _package_version(name) for name in _PACKAGES},
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "cpu_affinity": cpus_usable,
        "threads": {name: os.environ.get(name) for name in _THREAD_VARS},
        "kernel_env": {name: os.environ.get(name) for name in _KERNEL_VARS},
        "hostname": socket.gethostname(),
    }


def _git_state(root: Path) -> dict[str, Any] | None:
    """``{"commit": sha, "dirty": bool}`` of the checkout at ``root``, or None if it is none.

    ``dirty`` is true when tracked files differ from HEAD or untracked, non-ignored files exist.
    """
    # --no-optional-locks: `git status` must not take .git/index.lock, or a benchmark running
    # next to a `git commit` could make that commit fail.
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "--no-optional-locks", "-C", str(root), *args],
                capture_output=True,
                text=True,
                timeout=_GIT_TIMEOUT_S,
                env=env,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout if done.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    if commit is None:
        return None
    status = git("status", "--porcelain")
    return {"commit": commit.strip(), "dirty": None if status is None else bool(status.strip())}


def _package_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def cpu_model() -> str | None:
    """The CPU model name from /proc/cpuinfo, else what ``platform`` knows, else None."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, sep, value = line.partition(":")
                if sep and key.strip() == "model name":
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or None


def commit_of_checkout() -> str | None:
    """The checkout's git commit (with ``+dirty``), for the pictures' captions; None outside git."""
    git = provenance().get("git")
    if not git:
        return None
    return str(git["commit"])[:12] + ("+dirty" if git.get("dirty") else "")
