"""``njit``: numba's decorator with an on-disk cache that works in any installation.

Every compiled kernel of schedbench (``solvers/``, ``simcore/locality/``) is declared with
``@njit(cache=True, ...)`` from here instead of from numba, so that a compiled kernel is kept on
disk and the next process loads it instead of compiling it again (compiling the ``moo`` kernel
takes about 25 s on a 2-core machine; loading it well under a second). Where the cache goes, in
order:

1. ``NUMBA_CACHE_DIR`` when the user set it (numba's own rule) and it can be written;
2. next to the source, in the ``__pycache__`` folder of the module (numba's default), when that
   folder is writable — a checkout or an installation the user owns;
3. otherwise ``$XDG_CACHE_HOME/schedbench/numba`` (``~/.cache/schedbench/numba`` by default),
   when it can be created and written: a read-only installation, e.g. site-packages of another
   user;
4. otherwise ``schedbench-numba-UID`` in the system's temporary folder, made private (mode
   0700) and used only when this user owns it and no one else may write it (a cached kernel is
   code that will run, so a folder another user could fill is never read);
5. otherwise no on-disk cache: every process compiles its kernels once (in a solver's untimed
   ``warm_up``), which is slower to start but correct.

Numba checks a cached kernel against the source it came from, so an edited module is compiled
again, never run stale. The choice is made when the first kernel of a folder is declared and
holds for the process.
"""

from __future__ import annotations

import inspect
import os
import stat
import tempfile
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import numba
from numba.core import config as _config

#: numba's settings; CACHE_DIR is made at run time from the environment, unknown to mypy.
numba_config: Any = _config
#: A kernel's Python function; the compiled dispatcher is called the same way.
F = TypeVar("F", bound=Callable[..., Any])

_LOCK = threading.Lock()
#: folder of a module -> whether its kernels may be cached on disk (decided once per folder).
_DECIDED: dict[Path, bool] = {}


def writable(folder: Path) -> bool:
    """Whether ``folder`` exists or can be made, and a file can be written in it (as numba
    checks its cache folder)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def user_cache_dir(environ: Mapping[str, str]) -> Path | None:
    """``$XDG_CACHE_HOME/schedbench/numba``, or ``~/.cache/schedbench/numba``; None when there
    is no home folder to put it in."""
    base = environ.get("XDG_CACHE_HOME", "")
    if not base:
        try:
            base = str(Path.home() / ".cache")
        except (KeyError, RuntimeError):  # no HOME and no passwd entry
            return None
    return Path(base) / "schedbench" / "numba"


def temp_cache_dir() -> Path | None:
    """``schedbench-numba-UID`` in the temporary folder, made private; None when it cannot be
    made or is not private to this user (another user could plant kernels there)."""
    if not hasattr(os, "getuid"):
        return None
    folder = Path(tempfile.gettempdir()) / f"schedbench-numba-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o022:
        return None
    return folder


def cache_location(
    module_folder: Path,
    environ: Mapping[str, str],
    is_writable: Callable[[Path], bool] = writable,
    temp_folder: Callable[[], Path | None] = temp_cache_dir,
) -> tuple[str, Path | None]:
    """Where the kernels of a module in ``module_folder`` are cached (module docstring):
    ``("numba", folder)`` for NUMBA_CACHE_DIR, ``("in-tree", module_folder / "__pycache__")``,
    ``("user", folder)``, ``("temp", folder)``, or ``("off", None)``."""
    if environ.get("NUMBA_CACHE_DIR") and is_writable(Path(environ["NUMBA_CACHE_DIR"])):
        return "numba", Path(environ["NUMBA_CACHE_DIR"])
    in_tree = module_folder / "__pycache__"
    if is_writable(in_tree):
        return "in-tree", in_tree
    user = user_cache_dir(environ)
    if user is not None and is_writable(user):
        return "user", user
    temp = temp_folder()
    if temp is not None and is_writable(temp):
        return "temp", temp
    return "off", None


def _cache_allowed(module_folder: Path) -> bool:
    with _LOCK:
        if module_folder not in _DECIDED:
            where, folder = cache_location(module_folder, os.environ, writable)
            unusable = os.environ.get("NUMBA_CACHE_DIR") and where != "numba"
            if unusable and where == "in-tree":
                numba_config.CACHE_DIR = ""  # NUMBA_CACHE_DIR cannot be written: numba's default
            if where in ("user", "temp") and (unusable or not numba_config.CACHE_DIR):
                # Read when numba sets up a kernel's cache (at decoration), so setting it before
                # the first kernel of this folder is declared is enough; every folder then shares it.
                numba_config.CACHE_DIR = str(folder)
            _DECIDED[module_folder] = where != "off"
        return _DECIDED[module_folder]


def njit(**options: Any) -> Callable[[F], F]:
    """``numba.njit(**options)``, with ``cache=True`` kept only where the cache can be written
    (module docstring); always called with options: ``@njit(cache=True)``. Typed as returning
    the function itself: the dispatcher takes the same arguments."""

    def decorate(fn: F) -> F:
        opts = dict(options)
        if opts.get("cache") and not _cache_allowed(Path(inspect.getfile(fn)).resolve().parent):
            opts["cache"] = False
        compiled: F = numba.njit(**opts)(fn)
        return compiled

    return decorate
