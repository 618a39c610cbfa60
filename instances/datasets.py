"""Datasets by name: the data files shipped inside the package and the larger public traces
fetched on demand (``schedbench data``; docs/guide/data.md).

One manifest, ``instances/data/manifest.toml``, lists every dataset: its name, what it is, its
files with size and sha256 (of the stored bytes, and of the uncompressed original where the
stored file is gzip), where it comes from and its terms. Shipped files live in
``instances/data/<name>/`` (installed as ``schedbench.instances.data``); fetched ones in the
cache folder, :func:`cache_dir`.

A *reference* names a dataset, or one file of it::

    NAME            the dataset's default file (``kth-sp2``), or its folder when it has none
                    (``cerberus``: the six workloads)
    NAME/MEMBER     one file, by its name or its alias (``cerberus/maxt_cerberus``,
                    ``locality-day/machine``, ``locality-day/lea.jobs.csv``, ``zt-100-2/front``)

:func:`path` turns a reference into a local path; :func:`lookup` does so only for text that is
a reference (``None`` otherwise), which is how workload specs, suites and reproductions accept
a dataset wherever they take a file. A fetched dataset that is not in the cache yet raises
:class:`DatasetNotFetchedError`, whose message is the command that gets it.

Readers accept the stored bytes as they are: a gzip file is recognised by its magic bytes
(:func:`open_text`; the SWF and locality readers do the same).
"""

from __future__ import annotations

import hashlib
import os
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import IO, Any, Literal

from schedbench.simcore import safeio
from schedbench.simcore.errors import SchedbenchError, UnknownNameError

#: The shipped data folder and its manifest.
DATA_DIR = Path(__file__).resolve().parent / "data"
MANIFEST = DATA_DIR / "manifest.toml"
#: Environment variable naming the folder fetched datasets go to (overrides the XDG default).
CACHE_ENV = "SCHEDBENCH_DATA_DIR"
#: Sidecar next to a fetched file that had no pin: the sha256 seen at fetch time.
SEEN_SUFFIX = ".sha256"

_GZIP_MAGIC = b"\x1f\x8b"
_HEX64 = re.compile(r"[0-9a-f]{64}")
_NAME = re.compile(r"[a-z0-9][a-z0-9.-]*")


class DatasetError(SchedbenchError, ValueError):
    """A dataset reference, manifest entry or stored file that cannot be used."""


class UnknownDatasetError(UnknownNameError):
    """A dataset name that the manifest does not list."""

    what = "dataset"


class DatasetNotFetchedError(DatasetError):
    """A fetched dataset that is not in the cache yet; the message says how to get it."""


@dataclass(frozen=True, slots=True)
class DataFile:
    """One file of a dataset (the manifest's ``[[dataset.files]]``)."""

    name: str
    format: str
    stored: str
    size: int | None = None
    sha256: str | None = None
    original_size: int | None = None
    original_sha256: str | None = None
    alias: str | None = None
    note: str = ""
    url: str | None = None
    sha256_source: str = ""

    @property
    def compressed(self) -> bool:
        """Whether the stored bytes are gzip of the original."""
        return self.original_sha256 is not None

    @property
    def key(self) -> str:
        """The short name of ``NAME/MEMBER``: the alias, else the file name."""
        return self.alias or self.name


@dataclass(frozen=True, slots=True)
class Dataset:
    """One dataset (the manifest's ``[[dataset]]``)."""

    name: str
    what: str
    origin: Literal["shipped", "fetch"]
    source: str
    provenance: str
    url: str
    terms: str
    files: tuple[DataFile, ...]
    default: str | None = None

    @property
    def shipped(self) -> bool:
        return self.origin == "shipped"

    @property
    def size(self) -> int | None:
        """Bytes stored (None when a file's size is not known before it is fetched)."""
        sizes = [f.size for f in self.files]
        return None if any(s is None for s in sizes) else sum(s for s in sizes if s is not None)

    def member(self, ref: str) -> DataFile:
        """The file ``ref`` names (its name or alias); a one-line error listing the members."""
        for f in self.files:
            if ref in (f.name, f.alias):
                return f
        known = ", ".join(f.key for f in self.files)
        raise DatasetError(f"dataset {self.name!r}: no file {ref!r}; its files: {known}")

    def folder(self) -> Path:
        """Where its files are: the shipped folder, or its folder in the cache."""
        if self.shipped:
            return DATA_DIR / Path(self.files[0].stored).parent
        return cache_dir() / self.name

    def local(self, f: DataFile) -> Path:
        """Where file ``f`` is (or goes, for a fetched dataset)."""
        return DATA_DIR / f.stored if self.shipped else cache_dir() / self.name / f.stored


# -- the manifest -------------------------------------------------------------------------------

_DATASET_KEYS = {
    "name",
    "what",
    "origin",
    "source",
    "provenance",
    "url",
    "terms",
    "default",
    "files",
}
_FILE_KEYS = {f for f in DataFile.__dataclass_fields__}


def _str(src: str, where: str, table: dict[str, Any], key: str, *, required: bool = True) -> Any:
    value = table.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise DatasetError(f"{src}: {where}.{key}: expected a non-empty string, got {value!r}")
    return value


def _int(src: str, where: str, table: dict[str, Any], key: str) -> int | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise DatasetError(f"{src}: {where}.{key}: expected a size in bytes >= 0, got {value!r}")
    return value


def _hex(src: str, where: str, table: dict[str, Any], key: str) -> str | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not _HEX64.fullmatch(value):
        raise DatasetError(
            f"{src}: {where}.{key}: expected 64 lower-case hex digits, got {value!r}"
        )
    return value


def _file(src: str, where: str, t: Any, shipped: bool) -> DataFile:
    if not isinstance(t, dict):
        raise DatasetError(f"{src}: {where}: expected a table, got {t!r}")
    unknown = sorted(set(t) - _FILE_KEYS)
    if unknown:
        raise DatasetError(
            f"{src}: {where}.{unknown[0]}: unknown key; known: {', '.join(sorted(_FILE_KEYS))}"
        )
    f = DataFile(
        name=_str(src, where, t, "name"),
        format=_str(src, where, t, "format"),
        stored=_str(src, where, t, "stored"),
        size=_int(src, where, t, "size"),
        sha256=_hex(src, where, t, "sha256"),
        original_size=_int(src, where, t, "original_size"),
        original_sha256=_hex(src, where, t, "original_sha256"),
        alias=_str(src, where, t, "alias", required=False),
        note=_str(src, where, t, "note", required=False) or "",
        url=_str(src, where, t, "url", required=False),
        sha256_source=_str(src, where, t, "sha256_source", required=False) or "",
    )
    if shipped and (f.size is None or f.sha256 is None):
        raise DatasetError(f"{src}: {where}: a shipped file needs size and sha256")
    if f.compressed and not f.stored.endswith(".gz"):
        raise DatasetError(f"{src}: {where}.stored: expected a .gz file (original_sha256 is given)")
    if not shipped and not (f.url and f.url.startswith(("https://", "http://"))):
        raise DatasetError(
            f"{src}: {where}.url: expected an http(s) URL to fetch from, got {f.url!r}"
        )
    if Path(f.stored).is_absolute() or ".." in Path(f.stored).parts:
        raise DatasetError(f"{src}: {where}.stored: expected a relative path inside the folder")
    return f


def load_manifest(path: str | os.PathLike[str] = MANIFEST) -> dict[str, Dataset]:
    """Read and check a manifest; name -> :class:`Dataset`, in the manifest's order."""
    src = os.fspath(path)
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise DatasetError(
            f"{src}: cannot read the dataset manifest ({exc.strerror or exc})"
        ) from exc
    except tomllib.TOMLDecodeError as exc:
        raise DatasetError(f"{src}: not valid TOML ({exc})") from exc
    tables = data.get("dataset")
    if not isinstance(tables, list) or not tables:
        raise DatasetError(f"{src}: expected [[dataset]] tables")
    out: dict[str, Dataset] = {}
    for i, t in enumerate(tables):
        where = f"dataset[{i}]"
        unknown = sorted(set(t) - _DATASET_KEYS)
        if unknown:
            raise DatasetError(
                f"{src}: {where}.{unknown[0]}: unknown key; known: {', '.join(sorted(_DATASET_KEYS))}"
            )
        name = _str(src, where, t, "name")
        if not _NAME.fullmatch(name) or name in out:
            raise DatasetError(
                f"{src}: {where}.name: expected a new name of lower-case letters, digits, '.' "
                f"and '-', got {name!r}"
            )
        where = f"dataset {name!r}"
        origin = t.get("origin")
        if origin not in ("shipped", "fetch"):
            raise DatasetError(
                f"{src}: {where}.origin: expected 'shipped' or 'fetch', got {origin!r}"
            )
        files = t.get("files")
        if not isinstance(files, list) or not files:
            raise DatasetError(f"{src}: {where}.files: expected [[dataset.files]] tables")
        ds = Dataset(
            name=name,
            what=_str(src, where, t, "what"),
            origin=origin,
            source=_str(src, where, t, "source"),
            provenance=_str(src, where, t, "provenance"),
            url=_str(src, where, t, "url"),
            terms=_str(src, where, t, "terms"),
            files=tuple(
                _file(src, f"{where}.files[{k}]", f, origin == "shipped")
                for k, f in enumerate(files)
            ),
            default=_str(src, where, t, "default", required=False),
        )
        keys = [k for f in ds.files for k in {f.name, f.alias} if k is not None]
        twice = next((k for k in keys if keys.count(k) > 1), None)
        if twice is not None:
            raise DatasetError(
                f"{src}: {where}.files: {twice!r} names two files; expected unique names and aliases"
            )
        if ds.default is not None:
            try:
                ds.member(ds.default)
            except DatasetError as exc:
                raise DatasetError(f"{src}: {where}.default: {exc}") from exc
        out[name] = ds
    return out


@cache
def catalogue() -> dict[str, Dataset]:
    """Every dataset of the package's manifest, by name."""
    return load_manifest()


def get(name: str) -> Dataset:
    """The dataset called ``name``; an error listing the known names otherwise."""
    found = catalogue().get(name)
    if found is None:
        raise UnknownDatasetError(name, list(catalogue()))
    return found


def cache_dir() -> Path:
    """Where fetched datasets go: ``$SCHEDBENCH_DATA_DIR``, else ``$XDG_CACHE_HOME/schedbench/data``
    (an absolute ``XDG_CACHE_HOME`` only, as the XDG spec says), else
    ``~/.cache/schedbench/data``."""
    override = os.environ.get(CACHE_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return base / "schedbench" / "data"


# -- references ---------------------------------------------------------------------------------


def split_ref(ref: str) -> tuple[str, str | None]:
    """``NAME`` or ``NAME/MEMBER`` -> (name, member or None)."""
    name, sep, member = ref.partition("/")
    return name, (member if sep else None)


def is_ref(text: str) -> bool:
    """Whether ``text`` names a dataset (``NAME`` or ``NAME/MEMBER`` with a known NAME)."""
    if not isinstance(text, str) or not text or text.startswith(("/", ".")):
        return False
    return split_ref(text)[0] in catalogue()


def fetch_command(name: str) -> str:
    return f"schedbench data fetch {name}"


def resolve(ref: str) -> tuple[Dataset, DataFile | None]:
    """The dataset and file a reference names (file None: the dataset's folder), without
    looking at the disk. Raises :class:`UnknownDatasetError` or :class:`DatasetError`."""
    name, member = split_ref(ref)
    ds = get(name)
    if member is None:
        return ds, (ds.member(ds.default) if ds.default is not None else None)
    return ds, ds.member(member)


def path(ref: str) -> Path:
    """The local path of a dataset reference (module docstring).

    Raises :class:`UnknownDatasetError` for an unknown name, :class:`DatasetError` for an
    unknown member, :class:`DatasetNotFetchedError` when a fetched dataset's file is not in
    the cache yet (the message is the command that gets it)."""
    ds, f = resolve(ref)
    local = ds.folder() if f is None else ds.local(f)
    if not ds.shipped and not (local.is_dir() if f is None else local.is_file()):
        raise DatasetNotFetchedError(
            f"dataset {ds.name!r} is not fetched yet (looked for {local}): "
            f"run `{fetch_command(ds.name)}`"
        )
    return local


def lookup(text: str) -> Path | None:
    """``path(text)`` when ``text`` is a dataset reference, else None (a file path, a spec)."""
    return path(text) if is_ref(text) else None


def resolve_file(text: str, base: Path | None = None) -> Path:
    """A file argument that may be a dataset reference: an existing file (relative to ``base``
    when given) wins; else a dataset reference; else the path as given (the caller reports it
    missing)."""
    p = Path(text)
    if base is not None and not p.is_absolute():
        p = base / p
    if p.exists():
        return p
    found = lookup(text)
    return found if found is not None else p


# -- reading and checking -----------------------------------------------------------------------


def is_gzip(path: str | os.PathLike[str]) -> bool:
    with open(path, "rb") as fh:
        return fh.read(2) == _GZIP_MAGIC


def open_text(path: str | os.PathLike[str]) -> IO[str]:
    """A text stream over a file, gunzipped when it is gzip (by its magic bytes); read through
    simcore/safeio.py (regular files only, under the input size cap)."""
    return safeio.open_text(path)


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """A file's bytes, gunzipped when it is gzip (simcore/safeio.py's checks and cap)."""
    return safeio.read_bytes(path)


def sha256_of(path: str | os.PathLike[str]) -> str:
    return safeio.sha256_file(path)


Status = Literal["ok", "mismatch", "missing", "not fetched", "unpinned", "overridden"]


@dataclass(frozen=True, slots=True)
class FileCheck:
    """The verdict on one file: ``ok``; ``mismatch`` or ``missing`` (a failure); ``not fetched``
    (a fetched dataset not in the cache: nothing to check); ``unpinned`` (in the cache, but no
    sha256 to check it against); ``overridden`` (not the manifest's pin, but the sha256 given
    with ``--sha256`` when it was fetched)."""

    dataset: str
    file: str
    path: Path
    status: Status
    detail: str = ""
    sha256: str = ""  # of the local file, when it was read

    @property
    def failed(self) -> bool:
        return self.status in ("mismatch", "missing")


def seen_sha256(local: Path) -> str | None:
    """The sha256 recorded at fetch time for a file that had no pin (``--accept-unpinned`` or
    ``--sha256``), if any."""
    side = local.with_name(local.name + SEEN_SUFFIX)
    try:
        text = side.read_text(encoding="utf-8").split()
    except OSError:
        return None
    return text[0] if text and _HEX64.fullmatch(text[0]) else None


def check_file(ds: Dataset, f: DataFile, *, deep: bool = False) -> FileCheck:
    """Check one file against the manifest: its size and sha256, and with ``deep`` the sha256
    of the uncompressed original too."""
    local = ds.local(f)

    def verdict(status: Status, detail: str = "", sha256: str = "") -> FileCheck:
        return FileCheck(ds.name, f.name, local, status, detail, sha256)

    if not local.is_file():
        return verdict("missing" if ds.shipped else "not fetched")
    expected = f.sha256 or seen_sha256(local)
    if expected is None:
        got = sha256_of(local)
        return verdict("unpinned", "no sha256 to check it against", got)
    if f.size is not None and local.stat().st_size != f.size:
        return verdict("mismatch", f"size {local.stat().st_size:,} bytes, expected {f.size:,}")
    got = sha256_of(local)
    if got != expected:
        if f.sha256 is not None and seen_sha256(local) == got:
            return verdict("overridden", f"the sha256 given at fetch, not the pin {f.sha256}", got)
        return verdict("mismatch", f"sha256 {got}, expected {expected}", got)
    if deep and f.original_sha256 is not None:
        original = hashlib.sha256(read_bytes(local)).hexdigest()
        if original != f.original_sha256:
            return verdict(
                "mismatch", f"uncompressed sha256 {original}, expected {f.original_sha256}", got
            )
    return verdict("ok", "" if f.sha256 else "recorded at fetch; no published pin", got)


def verify(names: Iterable[str] | None = None, *, deep: bool = False) -> list[FileCheck]:
    """Every file of the named datasets (default all), checked with :func:`check_file`."""
    sets = [get(n) for n in names] if names is not None else list(catalogue().values())
    return [check_file(ds, f, deep=deep) for ds in sets for f in ds.files]
