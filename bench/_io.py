"""Small file and process helpers shared by bench/ modules."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any


def _umask() -> int:
    """The process's umask (read by setting it and putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write(
    path: str | os.PathLike[str], write: Callable[[IO[Any]], Any], *, text: bool
) -> Path:
    """Write ``path`` through a temporary file in the same folder, fsync, rename: a reader sees
    the old file or the new one, never half of it. The file gets the mode a plain ``open``
    would give it (0666 less the umask), not ``mkstemp``'s private 0600."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        mode = "w" if text else "wb"
        kwargs: dict[str, Any] = {"encoding": "utf-8", "newline": ""} if text else {}
        with os.fdopen(fd, mode, **kwargs) as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return p


def atomic_write_text(path: str | os.PathLike[str], text: str) -> Path:
    """``atomic_write`` of one string."""
    return atomic_write(path, lambda fh: fh.write(text), text=True)


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
