"""Small file and process helpers shared by bench/ modules."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

# The writer lives in simcore/safeio.py (simcore and instances write files too); bench code
# imports it from here as it always has.
from schedbench.simcore.safeio import atomic_write, atomic_write_text

__all__ = ["atomic_write", "atomic_write_text", "pid_alive", "save_figure"]


def pid_alive(pid: int) -> bool:
    """True when a process with ``pid`` exists on this host."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    except OSError:
        return False
    return True


def save_figure(fig: Any, path: str | os.PathLike[str], **kwargs: Any) -> Path:
    """``fig.savefig`` through :func:`atomic_write`: the format from the file's suffix (PNG
    when it has none), the same refusals and one-line errors as every other output."""
    p = Path(path)
    kwargs.setdefault("format", p.suffix[1:].lower() or "png")
    return atomic_write(p, lambda fh: fig.savefig(fh, **kwargs), text=False)
