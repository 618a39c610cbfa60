"""``schedbench data fetch NAME``: download a public trace into the cache folder, resumably,
and keep it only if its sha256 is the one expected.

How one file is fetched:

1. The bytes go to ``<cache>/<name>/<file>.part``. When that file exists (an earlier attempt
   was cut off), the request asks for the rest only (HTTP ``Range: bytes=N-``); a server that
   answers with the whole file (200 instead of 206) is read from the start again.
2. At the end the ``.part`` file's sha256 is compared with the expected value: the manifest's
   pin, or ``--sha256 HEX``. On a mismatch the ``.part`` file is deleted (resuming a corrupt
   file would never succeed) and the error names the URL and both values.
3. The checked file is renamed into place (``os.replace``: atomic on one file system), so a
   file under its final name is always complete and checked.

A dataset without a pin (the manifest says where pins come from, and which are missing) is
fetched only with ``--sha256 HEX`` or ``--accept-unpinned``; either way the sha256 seen is
printed and recorded next to the file (``<file>.sha256``), so that later checks
(``schedbench data``) notice a changed file.

``SCHEDBENCH_DATA_MIRROR=URL`` fetches from a mirror instead: ``URL/<file name>`` (a folder of
the archive's files, e.g. on a local network).
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from schedbench.instances.datasets import (
    SEEN_SUFFIX,
    DataFile,
    Dataset,
    DatasetError,
    fetch_command,
    get,
    seen_sha256,
    sha256_of,
)
from schedbench.simcore.errors import SchedbenchError
from schedbench.simcore.safeio import check_output_target, ensure_dir

#: Environment variable: a base URL to fetch every file from instead of its own URL.
MIRROR_ENV = "SCHEDBENCH_DATA_MIRROR"
#: Bytes read per step (the progress callback runs once per step).
CHUNK = 1 << 16
_HEX64 = re.compile(r"[0-9a-f]{64}")

#: ``progress(done_bytes, total_bytes_or_None)``: called once before the first byte (with what
#: a resumed ``.part`` already holds) and after every chunk.
ProgressFn = Callable[[int, int | None], None]


class FetchError(SchedbenchError, OSError):
    """A download that failed (network, HTTP status, disk); one line naming the URL."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class ChecksumError(DatasetError):
    """Downloaded bytes whose sha256 is not the expected one (nothing is kept)."""


@dataclass(frozen=True, slots=True)
class Fetched:
    """What :func:`fetch` did for one file."""

    dataset: str
    file: str
    path: Path
    sha256: str
    pinned: bool
    downloaded: bool
    resumed_from: int = 0


def url_of(f: DataFile) -> str:
    """The URL to fetch ``f`` from (the mirror's when ``SCHEDBENCH_DATA_MIRROR`` is set)."""
    mirror = os.environ.get(MIRROR_ENV, "").strip()
    if mirror:
        return f"{mirror.rstrip('/')}/{Path(f.stored).name}"
    assert f.url is not None  # the manifest requires one for a fetched file
    return f.url


def _reason(exc: BaseException) -> str:
    if isinstance(exc, urllib.error.URLError) and not isinstance(exc, urllib.error.HTTPError):
        inner = exc.reason
        return str(inner.strerror if isinstance(inner, OSError) and inner.strerror else inner)
    if isinstance(exc, socket.timeout | TimeoutError):
        return "timed out"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def _content_range_total(value: str | None) -> tuple[int, int | None] | None:
    """``bytes START-END/TOTAL`` -> (START, TOTAL or None when ``*``)."""
    m = re.fullmatch(r"\s*bytes\s+(\d+)-\d+/(\d+|\*)\s*", value or "")
    if not m:
        return None
    return int(m.group(1)), (None if m.group(2) == "*" else int(m.group(2)))


def download(
    url: str,
    part: Path,
    *,
    progress: ProgressFn | None = None,
    timeout: float = 30.0,
    what: str = "",
) -> int:
    """Download ``url`` into ``part``, resuming from what ``part`` already holds; return the
    offset the transfer resumed from (0: from the start). Raises :class:`FetchError` with one
    line naming the URL; a transfer cut off midway keeps ``part`` for the next attempt."""
    again = f" (run `{what}` again to resume)" if what else ""
    offset = part.stat().st_size if part.is_file() else 0
    headers = {"User-Agent": "schedbench-data-fetch", "Accept-Encoding": "identity"}
    if offset:
        headers["Range"] = f"bytes={offset}-"
    request = urllib.request.Request(url, headers=headers)
    try:
        response = urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as exc:
        if exc.code == 416 and offset:
            # The range starts at or past the end: the .part file already holds every byte
            # (or more); the checksum decides.
            exc.close()
            return offset
        exc.close()
        raise FetchError(f"{url}: HTTP {exc.code} {exc.reason}") from exc
    except (urllib.error.URLError, OSError) as exc:
        raise FetchError(
            f"cannot reach {url} ({_reason(exc)}): check the network connection, or download "
            f"the file by hand to {part.with_suffix('')} and check it with `schedbench data`"
        ) from exc
    with response:
        status = getattr(response, "status", 200)
        if offset and status == 206:
            got = _content_range_total(response.headers.get("Content-Range"))
            if got is None or got[0] != offset:
                raise FetchError(
                    f"{url}: the server answered the resume request with Content-Range "
                    f"{response.headers.get('Content-Range')!r}, expected bytes {offset}-...; "
                    f"delete {part} and fetch again"
                )
            total = got[1]
            mode = "ab"
        else:  # 200: the whole file (a server that ignores Range sends it all again)
            offset = 0
            length = response.headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else None
            mode = "wb"
        ensure_dir(part.parent)
        done = offset
        if progress is not None:
            progress(done, total)
        try:
            with open(part, mode) as fh:
                while True:
                    block = response.read(CHUNK)
                    if not block:
                        break
                    fh.write(block)
                    done += len(block)
                    if progress is not None:
                        progress(done, total)
        except (urllib.error.URLError, OSError) as exc:
            raise FetchError(
                f"{url}: the transfer stopped after {done:,} bytes ({_reason(exc)}); "
                f"kept in {part}{again}"
            ) from exc
    if total is not None and done < total:
        raise FetchError(
            f"{url}: the transfer stopped after {done:,} of {total:,} bytes; kept in {part}{again}"
        )
    return offset


def _expected(ds: Dataset, f: DataFile, sha256: str | None, accept_unpinned: bool) -> str | None:
    if sha256 is not None:
        sha256 = sha256.strip().lower()
        if not _HEX64.fullmatch(sha256):
            raise DatasetError(f"--sha256: expected 64 hex digits, got {sha256!r}")
        return sha256
    if f.sha256 is not None:
        return f.sha256
    if not accept_unpinned:
        raise DatasetError(
            f"dataset {ds.name!r}: no published sha256 is known for {f.name} (see `schedbench "
            f"data`); give --sha256 HEX to check it against a value you trust, or "
            f"--accept-unpinned to keep it and record the sha256 it has"
        )
    return None


def _record(dest: Path, sha256: str) -> None:
    """Write the sha256 a file had at fetch time next to it (``sha256sum`` format)."""
    dest.with_name(dest.name + SEEN_SUFFIX).write_text(f"{sha256}  {dest.name}\n", encoding="utf-8")


def fetch(
    name: str,
    *,
    sha256: str | None = None,
    accept_unpinned: bool = False,
    progress: ProgressFn | None = None,
    timeout: float = 30.0,
) -> list[Fetched]:
    """Fetch every file of dataset ``name`` into the cache folder (module docstring); a file
    already there and checked is not downloaded again. Returns one :class:`Fetched` per file.

    ``sha256`` replaces the pin (for a one-file dataset); ``accept_unpinned`` allows a file with
    no pin. Raises :class:`DatasetError` (bad arguments; a shipped dataset needs no fetch is
    not an error: it returns its files), :class:`FetchError` (network) and
    :class:`ChecksumError`."""
    ds = get(name)
    if ds.shipped:
        return [
            Fetched(ds.name, f.name, ds.local(f), f.sha256 or "", True, False) for f in ds.files
        ]
    if sha256 is not None and len(ds.files) != 1:
        raise DatasetError(f"--sha256: dataset {name!r} has {len(ds.files)} files; give none")
    out = []
    for f in ds.files:
        expected = _expected(ds, f, sha256, accept_unpinned)
        dest = ds.local(f)
        if dest.is_file():  # fetched before (or put there by hand): keep it if it checks
            have = sha256_of(dest)
            recorded = seen_sha256(dest)
            if have == expected or (expected is None and recorded in (None, have)):
                if f.sha256 is None or sha256 is not None:
                    _record(dest, have)
                out.append(Fetched(ds.name, f.name, dest, have, f.sha256 is not None, False))
                continue
        part = dest.with_name(dest.name + ".part")
        url = url_of(f)
        resumed = download(url, part, progress=progress, timeout=timeout, what=fetch_command(name))
        got = sha256_of(part)
        if expected is not None and got != expected:
            with contextlib.suppress(OSError):
                part.unlink()
            origin = "given with --sha256" if sha256 is not None else "the manifest's pin"
            raise ChecksumError(
                f"{url}: sha256 {got}, expected {expected} ({origin}); the download was deleted"
            )
        check_output_target(dest)
        os.replace(part, dest)
        if f.sha256 is None or sha256 is not None:
            _record(dest, got)
        else:
            dest.with_name(dest.name + SEEN_SUFFIX).unlink(missing_ok=True)
        out.append(Fetched(ds.name, f.name, dest, got, f.sha256 is not None, True, resumed))
    return out
