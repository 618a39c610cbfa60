"""The one way schedbench reads an input file and writes an output file.

Reading (:func:`read_bytes`, :func:`read_text`): only a regular file is read (a FIFO, a device
or a folder is refused by name, without blocking on it), and at most a size cap of bytes, read
incrementally; a gzip file is decompressed incrementally under the same cap, so a gzip bomb is
refused rather than expanded. The cap is :data:`DEFAULT_MAX_INPUT_BYTES`, or the environment
variable :data:`MAX_INPUT_ENV` (in bytes, suffixes k/M/G allowed); the error states it.

Writing (:func:`atomic_write`, :func:`open_output`, :func:`ensure_dir`): a target that exists
and is not a regular file (a symlink, a device, a FIFO, a folder) is refused, because replacing
it would destroy what stands there; ``-`` writes to stdout where a command offers it. A full
disk, a missing permission, a read-only file system or a folder that cannot be created is one
line naming the path, never a traceback. See docs/design.md, "Trust boundaries and bounded
work".
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import hashlib
import io
import json
import os
import stat
import sys
import tempfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from schedbench.simcore.errors import SchedbenchError

#: Environment variable that sets the input size cap, in bytes (``512M``, ``2G`` accepted).
MAX_INPUT_ENV = "SCHEDBENCH_MAX_INPUT_BYTES"
#: Default cap on the bytes of one input file, after decompression: 1 GiB, well above every
#: shipped trace (the largest decompresses to a few hundred MB) and below a machine's memory.
DEFAULT_MAX_INPUT_BYTES = 1 << 30
_CHUNK = 1 << 20
_GZIP_MAGIC = b"\x1f\x8b"
_SUFFIXES = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


class InputFileError(SchedbenchError):
    """An input file that is not a readable regular file, or is larger than the cap."""


class OutputError(SchedbenchError):
    """An output path that cannot or must not be written (the message names it)."""


def max_input_bytes(default: int = DEFAULT_MAX_INPUT_BYTES) -> int:
    """The input size cap: :data:`MAX_INPUT_ENV` when set (it overrides every format's own
    default), else ``default``."""
    raw = os.environ.get(MAX_INPUT_ENV, "").strip()
    if not raw:
        return default
    scale = _SUFFIXES.get(raw[-1].lower(), 1)
    digits = raw[:-1] if scale != 1 else raw
    try:
        value = int(digits) * scale
    except ValueError:
        value = 0
    if value <= 0:
        raise InputFileError(
            f"{MAX_INPUT_ENV}={raw!r}: expected a positive number of bytes (suffix k, M or G)"
        )
    return value


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"


def _cap_text(cap: int) -> str:
    return f"{cap:,} bytes (raise it with {MAX_INPUT_ENV})"


def _open_regular(path: Path, label: str) -> int:
    """An fd on ``path`` opened without blocking, after checking it is a regular file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError as exc:
        raise InputFileError(f"{label}: no such file") from exc
    except IsADirectoryError as exc:
        raise InputFileError(f"{label}: expected a regular file, got a folder") from exc
    except OSError as exc:
        raise InputFileError(f"{label}: cannot open: {exc.strerror or exc}") from exc
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise InputFileError(f"{label}: expected a regular file, got {_kind(mode)}")
    os.set_blocking(fd, True)
    return fd


def check_regular(path: str | os.PathLike[str], *, label: str | None = None) -> Path:
    """``path`` when it is a regular file that can be opened, without reading it (for checks
    at plan time); a FIFO, a device or a folder is refused by name."""
    p = Path(path)
    os.close(_open_regular(p, str(p) if label is None else label))
    return p


def sha256_file(path: str | os.PathLike[str], *, label: str | None = None) -> str:
    """The SHA-256 of a regular file, read in blocks (no cap: nothing is kept in memory); a
    FIFO or a device is refused by name instead of blocking or never ending."""
    p = Path(path)
    h = hashlib.sha256()
    with os.fdopen(_open_regular(p, str(p) if label is None else label), "rb") as fh:
        for block in iter(lambda: fh.read(_CHUNK), b""):
            h.update(block)
    return h.hexdigest()


def _read_capped(fh: IO[bytes] | gzip.GzipFile, cap: int, label: str, what: str) -> bytes:
    out = bytearray()
    while True:
        chunk = fh.read(min(_CHUNK, cap + 1 - len(out)))
        if not chunk:
            return bytes(out)
        out += chunk
        if len(out) > cap:
            raise InputFileError(f"{label}: {what} larger than the input cap of {_cap_text(cap)}")


def read_bytes(
    path: str | os.PathLike[str],
    *,
    label: str | None = None,
    max_bytes: int | None = None,
    gunzip: bool = True,
) -> bytes:
    """The bytes of the regular file ``path`` (gunzipped when it starts with the gzip magic and
    ``gunzip`` is set), at most ``max_bytes`` (the format's cap, default 1 GiB; the environment
    variable overrides it, :func:`max_input_bytes`) before and after decompression. ``label`` names the file in errors (default: the path)."""
    p = Path(path)
    label = str(p) if label is None else label
    cap = max_input_bytes(DEFAULT_MAX_INPUT_BYTES if max_bytes is None else max_bytes)
    fd = _open_regular(p, label)
    with os.fdopen(fd, "rb") as fh:
        try:
            raw = _read_capped(fh, cap, label, "file")
        except OSError as exc:
            if isinstance(exc, SchedbenchError):
                raise
            raise InputFileError(f"{label}: cannot read: {exc.strerror or exc}") from exc
    if not (gunzip and raw[:2] == _GZIP_MAGIC):
        return raw
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(raw)) as gz:
            return _read_capped(gz, cap, label, "decompressed data")
    except InputFileError:
        raise
    except (OSError, EOFError, zlib.error) as exc:
        raise InputFileError(f"{label}: expected complete gzip data, got {exc}") from exc


def read_text(
    path: str | os.PathLike[str],
    *,
    label: str | None = None,
    max_bytes: int | None = None,
    gunzip: bool = True,
) -> str:
    """:func:`read_bytes` decoded as UTF-8; bytes that are not UTF-8 are one error line."""
    label = str(path) if label is None else label
    data = read_bytes(path, label=label, max_bytes=max_bytes, gunzip=gunzip)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputFileError(
            f"{label}: expected UTF-8 text, got byte 0x{data[exc.start]:02x} at offset {exc.start}"
        ) from exc


def open_text(path: str | os.PathLike[str], *, label: str | None = None) -> io.StringIO:
    """:func:`read_text` as a stream (for ``csv`` readers); newlines are kept as they are."""
    return io.StringIO(read_text(path, label=label), newline="")


# ------------------------------------------------------------------------------------ output


def _os_error(path: Path, exc: OSError, doing: str) -> OutputError:
    reason = {
        errno.ENOSPC: "no space left on the device",
        errno.EDQUOT: "disk quota exceeded",
        errno.EROFS: "read-only file system",
        errno.EACCES: "permission denied",
        errno.EPERM: "operation not permitted",
        errno.ENOTDIR: "a parent is not a folder",
        errno.EEXIST: "a file stands where a folder is needed",
    }.get(exc.errno or 0, exc.strerror or str(exc))
    return OutputError(f"{path}: cannot {doing}: {reason}")


def check_output_target(path: str | os.PathLike[str]) -> Path:
    """``path`` when writing it would not destroy anything but a regular file."""
    p = Path(path)
    try:
        mode = os.lstat(p).st_mode
    except FileNotFoundError:
        return p
    except OSError as exc:
        raise _os_error(p, exc, "write") from exc
    if not stat.S_ISREG(mode):
        hint = "; write to stdout with '-' instead" if stat.S_ISLNK(mode) else ""
        raise OutputError(
            f"{p}: refusing to overwrite {_kind(mode)}: an output must be a new or regular "
            f"file{hint}"
        )
    return p


def ensure_dir(path: str | os.PathLike[str]) -> Path:
    """Create the folder ``path`` (and its parents) unless it exists; one line when it cannot
    be created or is not a writable folder."""
    p = Path(path)
    try:
        p.mkdir(parents=True, exist_ok=True)
    except FileExistsError as exc:
        raise OutputError(f"{p}: cannot create the output folder: a file stands there") from exc
    except OSError as exc:
        raise _os_error(p, exc, "create the output folder") from exc
    if not p.is_dir():
        raise OutputError(f"{p}: cannot create the output folder: a file stands there")
    if not os.access(p, os.W_OK | os.X_OK):
        raise OutputError(f"{p}: cannot write into the output folder: permission denied")
    return p


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
    would give it (0666 less the umask), not ``mkstemp``'s private 0600. ``-`` writes to stdout.
    A target that is not a regular file is refused (:func:`check_output_target`)."""
    if str(path) == "-":
        if text:
            write(sys.stdout)
            sys.stdout.flush()
        else:
            write(sys.stdout.buffer)
            sys.stdout.buffer.flush()
        return Path("-")
    p = check_output_target(path)
    ensure_dir(p.parent)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    except OSError as exc:
        raise _os_error(p, exc, "write") from exc
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        mode = "w" if text else "wb"
        kwargs: dict[str, Any] = {"encoding": "utf-8", "newline": ""} if text else {}
        with os.fdopen(fd, mode, **kwargs) as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        check_output_target(p)  # nothing else appeared there while we wrote
        os.replace(tmp, p)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and not isinstance(exc, SchedbenchError):
            raise _os_error(p, exc, "write") from exc
        raise
    return p


def atomic_write_text(path: str | os.PathLike[str], text: str) -> Path:
    """:func:`atomic_write` of one string."""
    return atomic_write(path, lambda fh: fh.write(text), text=True)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """:func:`atomic_write` of bytes."""
    return atomic_write(path, lambda fh: fh.write(data), text=False)


def create_output(path: str | os.PathLike[str], *, newline: str | None = None) -> IO[str]:
    """A text file to stream into, created in place (for logs written as they grow, which a
    crash must not lose): the target is checked and its folder created first."""
    p = check_output_target(path)
    ensure_dir(p.parent)
    try:
        return p.open("w", encoding="utf-8", newline=newline)
    except OSError as exc:
        raise _os_error(p, exc, "write") from exc


@contextlib.contextmanager
def open_output(path: str | os.PathLike[str], *, newline: str | None = None) -> Iterator[IO[str]]:
    """:func:`create_output` as a context; OS errors while writing become one line."""
    fh = create_output(path, newline=newline)
    try:
        with fh:
            yield fh
    except OSError as exc:
        raise _os_error(Path(path), exc, "write") from exc


def wrap_os_error(path: str | os.PathLike[str], exc: OSError, doing: str = "write") -> OutputError:
    """``exc`` (raised while writing ``path``) as one line."""
    return _os_error(Path(path), exc, doing)


class DuplicateKeyError(SchedbenchError, ValueError):
    """A JSON object that gives one key twice (JSON would keep the last one silently)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKeyError(f"key {key!r} given twice in one object")
        out[key] = value
    return out


def loads_json(text: str) -> Any:
    """``json.loads`` that refuses an object giving a key twice (:class:`DuplicateKeyError`)."""
    return json.loads(text, object_pairs_hook=_unique_keys)
