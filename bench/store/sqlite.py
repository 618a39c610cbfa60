"""The results store: one SQLite file, one row per finished benchmark cell, with provenance.

A suite expands into cells (decision level: solver × instance × repetition; simulation level:
policy/solver × scenario × repetition). The runner, from its main process only, opens a
``ResultStore``, records a *run* (``begin_run``), adds one row per finished cell (``add``) and
closes the run (``finish_run``). Several runs over time may write to the same file; ``finished``
tells ``--resume`` which cells are already there, and ``rows``/``export_csv``/``export_parquet``
read them back.

Durability guarantees
---------------------
* **A finished cell is never lost once ``add`` has returned.** Each ``add`` is one transaction
  (``BEGIN IMMEDIATE`` … ``COMMIT``) committed before ``add`` returns; nothing is buffered in
  Python. The file is in WAL mode with ``synchronous=NORMAL`` by default, ``FULL`` with
  ``ResultStore(path, durable=True)``.

  Why NORMAL is the default: in WAL mode a commit writes the transaction's frames into the
  ``-wal`` file with ``write()`` before ``COMMIT`` returns, so a *process* killed right after
  (Ctrl-C, ``kill -9``, the OOM killer) loses nothing: the kernel holds those pages and the next
  opener replays the WAL. NORMAL is therefore already enough against a killed process. What
  NORMAL does not survive is the *machine* going down (power loss, kernel panic, a node
  rebooted by the batch system) before the next checkpoint: the last commits may vanish (the
  file stays consistent). FULL adds one ``fsync`` of the WAL per commit, which closes that gap
  too, at one ``fsync`` per cell: measured here 3.8 ms per ``add`` with FULL against 1.3 ms with
  NORMAL — with FULL the store alone would exceed the suite's 5 ms per-cell overhead target for
  decision cells that solve in milliseconds. ``durable=True`` is for runs on machines that may
  go down (batch nodes); the kill -9 guarantee holds either way.
* **No half-written row.** A transaction is either wholly in the database or not at all:
  SQLite only counts WAL frames up to a checksummed commit frame, so a kill in the middle of a
  commit leaves the previous state. ``add`` validates the row *before* it writes, and rolls
  back if anything (even ``KeyboardInterrupt``) interrupts it between ``BEGIN`` and ``COMMIT``.
* **Readers never block the writer** (WAL): ``schedbench report`` can read a store that a
  runner is writing, and sees every row committed before its query started.
* **Limits.** WAL needs shared memory between the processes that open the file, so keep the
  store on a local file system, not NFS/Lustre (SQLite's own advice); put it on node-local disk
  and copy it afterwards. A disk that lies about ``fsync`` defeats FULL, not the kill -9 case.

The file identifies itself with ``PRAGMA application_id`` (``APPLICATION_ID``) and versions its
schema with ``PRAGMA user_version`` (``SCHEMA_VERSION``). Opening anything else — a text file,
another program's SQLite database, a store written by a newer schedbench — raises
``StoreError`` naming the path and what was expected; such a file is never modified.

Schema (version 2)
------------------
``runs``: ``run_id`` INTEGER PK, ``suite``, ``started_at`` (ISO 8601, UTC), ``finished_at``
(NULL while running), ``status`` ('running' | 'finished' | 'interrupted'), ``config_json``,
``provenance_json`` (see ``provenance()``), ``host`` and ``pid`` of the writing process (so
``mark_stale_runs`` can tell a dead run from a live one).

``cells``: ``id`` INTEGER PK, ``run_id`` → runs, ``suite``, ``cell_id`` (the caller's stable
hash of the cell spec), ``kind`` ('decision' | 'simulation'), ``family``, ``instance``,
``instance_hash``, ``solver`` (solver id such as ``cpsat[time_limit_s=5]``), ``solver_name``,
``params_json``, ``repetition``, ``seed``, ``budget_s``, ``status``, ``latency_s``,
``concurrency`` (cells running at the same time as this one, itself included: 1 = alone),
``isolated`` (0/1), ``executor``, ``started_at``, ``finished_at``, ``metrics_json`` (flat
``{name: number | null}``), ``decision_json`` (the Decision as a dict, or NULL), ``error``, ``problem_kind`` (the
decision problem's kind, ``simcore/kinds/``; version 2, NULL for simulation cells).
UNIQUE (``suite``, ``cell_id``). A version-1 store is migrated when opened for writing
(``problem_kind`` set to ``selection`` for its decision cells) and read as it is otherwise.

Row dicts (``add`` and ``rows``) use the column names, except that the JSON columns are given
and returned decoded under ``params``, ``metrics`` and ``decision``.

Re-running a stored cell
------------------------
A cell is identified by (suite, cell_id) and is stored at most once. ``add`` of a cell that is
already stored raises ``DuplicateCellError`` unless ``replace=True``, in which case the new row
replaces the old one in the same transaction. The runner decides *before* running anything::

    done = store.finished(suite)
    --resume          -> skip the cells in ``done``; add the others
    --force           -> run everything; add(row, replace=True)
    neither, done ≠ ∅ -> refuse at once (say: use --resume or --force), so no work is wasted

A cell whose result is an error or a timeout is a finished cell too (a failure is a result);
to retry failures, run them again with ``replace=True``.

Stale runs
----------
A runner that is killed leaves its run in 'running'. The runner should call
``mark_stale_runs()`` right after opening the store and before ``begin_run``, with or without
``--resume``: runs whose process is gone become 'interrupted'. A store closed (or a ``with``
block left) with runs it began still 'running' marks them 'interrupted' itself: a run is
'finished' only when the runner says so with ``finish_run``.
"""

from __future__ import annotations

import contextlib
import csv
import json
import math
import numbers
import os
import socket
import sqlite3
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from schedbench.bench._io import atomic_write, pid_alive
from schedbench.bench.store.provenance import provenance as _collect_provenance
from schedbench.bench.store.records import CellRecord
from schedbench.simcore.errors import SchedbenchError
from schedbench.simcore.safeio import check_output_target

#: ``PRAGMA application_id`` of a schedbench store: "SBRS" (SchedBench Result Store).
APPLICATION_ID = 0x53425253
#: ``PRAGMA user_version`` this module writes and reads.
SCHEMA_VERSION = 2

RUN_STATUSES = ("running", "finished", "interrupted")
KINDS = ("decision", "simulation")

_SCHEMA = """
CREATE TABLE runs (
    run_id          INTEGER PRIMARY KEY,
    suite           TEXT NOT NULL,
    started_at      TEXT NOT NULL,
    finished_at     TEXT,
    status          TEXT NOT NULL CHECK (status IN ('running', 'finished', 'interrupted')),
    config_json     TEXT NOT NULL,
    provenance_json TEXT NOT NULL,
    host            TEXT,
    pid             INTEGER
);
CREATE INDEX runs_by_suite ON runs (suite);
CREATE TABLE cells (
    id              INTEGER PRIMARY KEY,
    run_id          INTEGER NOT NULL REFERENCES runs (run_id),
    suite           TEXT NOT NULL,
    cell_id         TEXT NOT NULL,
    kind            TEXT NOT NULL CHECK (kind IN ('decision', 'simulation')),
    family          TEXT,
    instance        TEXT,
    instance_hash   TEXT,
    solver          TEXT NOT NULL,
    solver_name     TEXT,
    params_json     TEXT NOT NULL DEFAULT '{}',
    repetition      INTEGER,
    seed            INTEGER,
    budget_s        REAL,
    status          TEXT NOT NULL,
    latency_s       REAL,
    concurrency     INTEGER CHECK (concurrency IS NULL OR concurrency >= 1),
    isolated        INTEGER CHECK (isolated IS NULL OR isolated IN (0, 1)),
    executor        TEXT,
    started_at      TEXT,
    finished_at     TEXT,
    metrics_json    TEXT NOT NULL DEFAULT '{}',
    decision_json   TEXT,
    error           TEXT,
    problem_kind    TEXT
);
CREATE UNIQUE INDEX cells_by_suite_cell ON cells (suite, cell_id);
CREATE INDEX cells_by_run ON cells (run_id);
"""

#: Columns of ``cells`` in table order, with the JSON columns under their row-dict names.
CELL_KEYS = (
    "run_id",
    "suite",
    "cell_id",
    "kind",
    "family",
    "instance",
    "instance_hash",
    "solver",
    "solver_name",
    "params",
    "repetition",
    "seed",
    "budget_s",
    "status",
    "latency_s",
    "concurrency",
    "isolated",
    "executor",
    "started_at",
    "finished_at",
    "metrics",
    "decision",
    "error",
    "problem_kind",
)
REQUIRED_KEYS = ("suite", "cell_id", "kind", "solver", "status", "run_id")
_JSON_KEYS = {"params": "params_json", "metrics": "metrics_json", "decision": "decision_json"}
_COLUMNS = tuple(_JSON_KEYS.get(key, key) for key in CELL_KEYS)

_INT64 = (-(2**63), 2**63 - 1)


class StoreError(SchedbenchError, ValueError):
    """The store file, a row, or a request to the store is not what was expected."""


class ConcurrentRunError(StoreError):
    """Another live process is running the same suite into the same store."""


class DuplicateCellError(StoreError):
    """``add`` of a (suite, cell_id) that is already stored, without ``replace=True``."""

    def __init__(self, suite: str, cell_id: str):
        self.suite = suite
        self.cell_id = cell_id
        super().__init__(
            f"cell {cell_id!r} of suite {suite!r} is already stored; skip it (resume) "
            "or add it with replace=True (force)"
        )


def _is_access_error(exc: BaseException | None) -> bool:
    """An SQLite error that says the file cannot be opened or written (permissions, a
    read-only medium), not that it is not a database."""
    if not isinstance(exc, sqlite3.Error):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN):
        return True
    text = str(exc).lower()
    return "readonly" in text or "read-only" in text or "unable to open" in text


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


# --------------------------------------------------------------------------------------------
# The store


class ResultStore:
    """A schedbench results store in one SQLite file (see the module docstring).

    ``ResultStore(path)`` opens the store, creating the file (and its parent directories) and
    the schema if missing. ``readonly=True`` opens an existing store for reading only (reports)
    and never creates anything. Use it from one thread; close it, or use it as a context
    manager.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, readonly: bool = False, durable: bool = False
    ):
        self.path = Path(path)
        self.readonly = readonly
        self.durable = durable
        self._own_runs: set[int] = set()
        self.journal_mode: str | None = None
        if readonly and not self.path.is_file():
            raise StoreError(f"{self.path}: no results store here (expected an existing file)")
        if not readonly:
            # SQLite writes through a symlink or into a device: refused like every output
            check_output_target(self.path)
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"{self.path}: cannot create its directory: {exc}") from exc
        try:
            if readonly:
                uri = self.path.resolve().as_uri() + "?mode=ro"
                self._conn = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=30.0)
            else:
                self._conn = sqlite3.connect(self.path, isolation_level=None, timeout=30.0)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot open as an SQLite database: {exc}") from exc
        try:
            self._open()
        except StoreError as exc:
            self._conn.close()
            if not (readonly and _is_access_error(exc.__cause__)):
                raise
            # A store on a read-only medium or in a folder we cannot write: SQLite cannot make
            # the WAL index next to it. Read it as an immutable file instead (nothing writes it).
            uri = self.path.resolve().as_uri() + "?immutable=1"
            self._conn = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=30.0)
            try:
                self._open()
            except BaseException:
                self._conn.close()
                raise
        except BaseException:
            self._conn.close()
            raise

    # -- opening ------------------------------------------------------------------------------

    def _open(self) -> None:
        try:
            state = self._identify()
            if state == "empty":
                if self.readonly:
                    raise StoreError(
                        f"{self.path}: not a schedbench results store "
                        "(expected one written by schedbench; the file is an empty database)"
                    )
                # Switch to WAL before the first write; never done to a foreign file.
                self._set_wal()
                self._create()
            elif not self.readonly:
                self._set_wal()
            else:
                self.journal_mode = self._conn.execute("PRAGMA journal_mode").fetchone()[0]
            self._conn.execute("PRAGMA foreign_keys = ON")
            if not self.readonly:
                # See the module docstring: NORMAL survives kill -9; FULL power loss too.
                level = "FULL" if self.durable else "NORMAL"
                self._conn.execute(f"PRAGMA synchronous = {level}")
        except sqlite3.DatabaseError as exc:
            if _is_access_error(exc):
                # the file or its folder is read-only: a permission, not a foreign file
                raise StoreError(
                    f"{self.path}: cannot {'read' if self.readonly else 'write'} the results "
                    f"store: the file or its folder is read-only or not accessible ({exc})"
                ) from exc
            raise StoreError(
                f"{self.path}: not a schedbench results store "
                f"(expected an SQLite database written by schedbench): {exc}"
            ) from exc

    def _identify(self) -> str:
        """'empty' (a new or empty database) or 'store'; anything else raises StoreError."""
        app_id = self._conn.execute("PRAGMA application_id").fetchone()[0]
        version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {
            name
            for (name,) in self._conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        }
        if app_id == APPLICATION_ID:
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path}: results store schema version {version} is newer than this "
                    f"schedbench understands (expected version <= {SCHEMA_VERSION}); "
                    "upgrade schedbench to read it"
                )
            if version < 1 or not {"runs", "cells"} <= tables:
                raise StoreError(
                    f"{self.path}: damaged schedbench results store (expected schema version "
                    f"{SCHEMA_VERSION} with tables runs and cells; found version {version}, "
                    f"tables {sorted(tables)})"
                )
            if version < SCHEMA_VERSION and not self.readonly:
                self._migrate(version)
            return "store"
        if app_id == 0 and version == 0 and not tables:
            return "empty"
        what = f"tables {sorted(tables)}" if tables else "no tables"
        raise StoreError(
            f"{self.path}: not a schedbench results store (expected application_id "
            f"{APPLICATION_ID:#x} and tables runs, cells; found application_id {app_id:#x}, "
            f"{what})"
        )

    def _migrate(self, version: int) -> None:
        """Bring an older store up to ``SCHEMA_VERSION`` in one transaction (a reader of an
        older store sees the missing columns as NULL, see :meth:`rows`)."""
        with self._transaction():
            if version < 2:  # problem kinds arrived: every older decision cell is a selection
                self._conn.execute("ALTER TABLE cells ADD COLUMN problem_kind TEXT")
                self._conn.execute(
                    "UPDATE cells SET problem_kind = 'selection' WHERE kind = 'decision'"
                )
            self._conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _select_columns(self) -> str:
        """The cell columns to read: a column an older, read-only store lacks reads as NULL."""
        present = {row[1] for row in self._conn.execute("PRAGMA table_info(cells)")}
        return ", ".join(c if c in present else f"NULL AS {c}" for c in _COLUMNS)

    def _set_wal(self) -> None:
        mode = self._conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        # A file system without shared memory may refuse WAL; the rollback journal with
        # synchronous=FULL is just as safe, only readers then wait for the writer.
        self.journal_mode = str(mode).lower()

    def _create(self) -> None:
        with self._transaction():
            # Another process may have created it between _identify and the write lock.
            if self._conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID:
                return
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    self._conn.execute(statement)
            self._conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            self._conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """One write transaction: committed on success, rolled back on any exception."""
        if self.readonly:
            raise StoreError(f"{self.path}: the store was opened read-only")
        try:
            # IMMEDIATE takes the write lock at BEGIN, so a concurrent writer waits (busy
            # timeout) instead of failing halfway through.
            self._conn.execute("BEGIN IMMEDIATE")
            yield
            self._conn.execute("COMMIT")
        except BaseException:
            # Also on KeyboardInterrupt: the connection must not be left inside a transaction.
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise

    # -- life cycle ---------------------------------------------------------------------------

    def close(self) -> None:
        """Mark the runs begun here and not finished as 'interrupted', then close."""
        if self._conn is None:
            return
        try:
            if self._own_runs and not self.readonly:
                self._finish_own_runs()
        finally:
            self._conn.close()
            self._conn = None  # type: ignore[assignment]

    def _finish_own_runs(self) -> None:
        marks = ",".join("?" * len(self._own_runs))
        with self._transaction():
            self._conn.execute(
                f"UPDATE runs SET status = 'interrupted', finished_at = ? "
                f"WHERE status = 'running' AND run_id IN ({marks})",
                (_now(), *sorted(self._own_runs)),
            )
        self._own_runs.clear()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if isinstance(exc, sqlite3.DatabaseError) and not hasattr(exc, "store_path"):
            # a damaged page is found by the query that reads it: say which store it was
            exc.store_path = str(self.path)  # type: ignore[attr-defined]
        self.close()

    def __repr__(self) -> str:
        mode = "readonly" if self.readonly else "read-write"
        return f"ResultStore({str(self.path)!r}, {mode})"

    # -- runs ---------------------------------------------------------------------------------

    def begin_run(
        self,
        suite: str,
        config: Mapping[str, Any],
        provenance: Mapping[str, Any] | None = None,
        *,
        exclusive: bool = False,
    ) -> int:
        """Record a new run of ``suite`` (status 'running') and return its run_id.

        ``config`` is the expanded suite configuration; ``provenance`` defaults to
        ``provenance()``. Both must be JSON compatible (NaN and infinities become null).
        ``exclusive``: raise ConcurrentRunError when a live process is already running this
        suite into this store (checked inside the same write transaction as the insert, so two
        runs started at once cannot both pass).
        """
        _check_text("suite", suite)
        if not isinstance(config, Mapping):
            raise StoreError(f"config: expected a dict, got {type(config).__name__}")
        if provenance is not None and not isinstance(provenance, Mapping):
            raise StoreError(f"provenance: expected a dict, got {type(provenance).__name__}")
        config_json = _dumps(config, "config")
        if provenance is None:
            provenance = _collect_provenance()
        prov_json = _dumps(provenance, "provenance")
        with self._transaction():
            if exclusive:
                live = self._live_runs(suite)
                if live:
                    run_id, pid, started = live[0]
                    raise ConcurrentRunError(
                        f"{self.path}: suite {suite!r} is being run into this store by process "
                        f"{pid} (run {run_id}, started {started}); wait for it to finish, or "
                        "use another --store"
                    )
            cursor = self._conn.execute(
                "INSERT INTO runs (suite, started_at, status, config_json, provenance_json, "
                "host, pid) VALUES (?, ?, 'running', ?, ?, ?, ?)",
                (suite, _now(), config_json, prov_json, socket.gethostname(), os.getpid()),
            )
        run_id = int(cursor.lastrowid or 0)
        self._own_runs.add(run_id)
        return run_id

    def finish_run(self, run_id: int, status: str = "finished") -> None:
        """Close a run: ``status`` is 'finished' (every cell done) or 'interrupted'."""
        if status not in ("finished", "interrupted"):
            raise StoreError(f"status: expected 'finished' or 'interrupted', got {status!r}")
        with self._transaction():
            cursor = self._conn.execute(
                "UPDATE runs SET status = ?, finished_at = ? WHERE run_id = ?",
                (status, _now(), _check_int("run_id", run_id)),
            )
            if cursor.rowcount != 1:
                raise StoreError(f"run_id: no run {run_id!r} in {self.path}")
        self._own_runs.discard(run_id)

    def _live_runs(self, suite: str) -> list[tuple[int, int, str]]:
        """(run_id, pid, started_at) of runs of ``suite`` marked 'running' whose writer is a
        live process on this host, other than runs begun by this store object."""
        host = socket.gethostname()
        rows = self._conn.execute(
            "SELECT run_id, host, pid, started_at FROM runs WHERE status = 'running' AND suite = ?",
            (suite,),
        ).fetchall()
        return [
            (int(run_id), int(pid), str(started))
            for run_id, run_host, pid, started in rows
            if run_id not in self._own_runs
            and run_host == host
            and pid is not None
            and pid_alive(int(pid))
        ]

    def live_runs(self, suite: str) -> list[tuple[int, int, str]]:
        """Runs of ``suite`` that a live process on this host is writing right now."""
        return self._live_runs(suite)

    def mark_stale_runs(self) -> list[int]:
        """Mark 'interrupted' every 'running' run whose writing process is gone; return their ids.

        A run is stale when it was written on another host (WAL stores work only between
        processes of one machine, so that writer cannot be writing to this file) or its pid no
        longer exists here. Runs begun by this store object are never touched. Call it right
        after opening the store and before ``begin_run``.
        """
        host = socket.gethostname()
        stale = []
        with self._transaction():
            running = self._conn.execute(
                "SELECT run_id, host, pid FROM runs WHERE status = 'running'"
            ).fetchall()
            for run_id, run_host, pid in running:
                if run_id in self._own_runs:
                    continue
                if run_host != host or pid is None or not pid_alive(int(pid)):
                    stale.append(int(run_id))
            now = _now()
            self._conn.executemany(
                "UPDATE runs SET status = 'interrupted', finished_at = ? WHERE run_id = ?",
                [(now, run_id) for run_id in stale],
            )
        return stale

    def runs(self, suite: str | None = None) -> list[dict[str, Any]]:
        """The runs (of ``suite``, or all), oldest first, with ``config``, ``provenance`` and
        ``n_cells`` (cells of the run still stored: a replaced cell counts for its new run)."""
        sql = (
            "SELECT run_id, suite, started_at, finished_at, status, config_json, "
            "provenance_json, host, pid, "
            "(SELECT COUNT(*) FROM cells WHERE cells.run_id = runs.run_id) FROM runs"
        )
        args: tuple[Any, ...] = ()
        if suite is not None:
            sql += " WHERE suite = ?"
            args = (suite,)
        out = []
        for row in self._conn.execute(sql + " ORDER BY run_id", args):
            run_id, suite_, started, finished, status, config, prov, host, pid, n = row
            out.append(
                {
                    "run_id": run_id,
                    "suite": suite_,
                    "started_at": started,
                    "finished_at": finished,
                    "status": status,
                    "config": json.loads(config),
                    "provenance": json.loads(prov),
                    "host": host,
                    "pid": pid,
                    "n_cells": n,
                }
            )
        return out

    def suites(self) -> list[str]:
        """Every suite with a run or a cell in the store, sorted."""
        cursor = self._conn.execute("SELECT suite FROM runs UNION SELECT suite FROM cells")
        return sorted(name for (name,) in cursor)

    # -- cells --------------------------------------------------------------------------------

    def add(self, row: Mapping[str, Any], *, replace: bool = False) -> None:
        """Store one finished cell, committed before this returns.

        ``row`` has the keys of ``CELL_KEYS``; ``REQUIRED_KEYS`` must be present, the others
        default to NULL (``params`` and ``metrics`` to ``{}``). ``params``, ``metrics`` and
        ``decision`` are dicts (NaN and infinities become null, as do non-finite
        ``budget_s``/``latency_s``). An unknown key, a missing key or a wrong type raises
        StoreError naming the key, and nothing is written. A (suite, cell_id) already stored
        raises DuplicateCellError, unless ``replace`` is true: then the new row replaces it.
        """
        values = _validate_row(row)
        suite, run_id = values["suite"], values["run_id"]
        verb = "INSERT OR REPLACE" if replace else "INSERT"
        marks = ", ".join("?" * len(_COLUMNS))
        sql = f"{verb} INTO cells ({', '.join(_COLUMNS)}) VALUES ({marks})"
        with self._transaction():
            found = self._conn.execute(
                "SELECT suite FROM runs WHERE run_id = ?", (run_id,)
            ).fetchone()
            if found is None:
                raise StoreError(f"run_id: no run {run_id} in {self.path}; call begin_run first")
            if found[0] != suite:
                raise StoreError(
                    f"suite: run {run_id} is a run of suite {found[0]!r}, the row says {suite!r}"
                )
            try:
                self._conn.execute(sql, [values[key] for key in CELL_KEYS])
            except sqlite3.IntegrityError as exc:
                if "UNIQUE" in str(exc):
                    raise DuplicateCellError(suite, values["cell_id"]) from exc
                raise StoreError(f"{self.path}: row rejected by the database: {exc}") from exc

    def delete_cells(self, suite: str, cell_ids: list[str]) -> int:
        """Remove stored cells of ``suite`` (``--force`` over cells stored under an older id);
        returns how many were removed."""
        with self._transaction():
            cursor = self._conn.executemany(
                "DELETE FROM cells WHERE suite = ? AND cell_id = ?",
                [(suite, cell_id) for cell_id in cell_ids],
            )
        return int(cursor.rowcount)

    def finished(self, suite: str) -> set[str]:
        """The cell_ids of ``suite`` already stored (whatever their status), for ``--resume``."""
        cursor = self._conn.execute("SELECT cell_id FROM cells WHERE suite = ?", (suite,))
        return {cell_id for (cell_id,) in cursor}

    def rows(
        self, suite: str | None = None, *, run_id: int | None = None, kind: str | None = None
    ) -> list[dict[str, Any]]:
        """Stored cells in insertion order, filtered by suite, run and kind.

        Each row has ``id`` and the keys of ``CELL_KEYS``; ``params``, ``metrics`` and
        ``decision`` are decoded, ``isolated`` is a bool (or None).
        """
        if kind is not None and kind not in KINDS:
            raise StoreError(f"kind: expected one of {', '.join(KINDS)}, got {kind!r}")
        where, args = [], []
        for column, value in (("suite", suite), ("run_id", run_id), ("kind", kind)):
            if value is not None:
                where.append(f"{column} = ?")
                args.append(value)
        sql = f"SELECT id, {self._select_columns()} FROM cells"
        if where:
            sql += " WHERE " + " AND ".join(where)
        return [_decode_row(r) for r in self._conn.execute(sql + " ORDER BY id", args)]

    def records(self, suite: str | None = None, *, kind: str | None = None) -> list[CellRecord]:
        """The stored cells as typed :class:`CellRecord` objects (``rows`` as dicts)."""
        return [CellRecord.from_row(r) for r in self.rows(suite, kind=kind)]

    # -- export -------------------------------------------------------------------------------

    def export_csv(self, path: str | os.PathLike[str], suite: str | None = None) -> int:
        """Write the cells (of ``suite``, or all) as CSV; return the number of rows.

        Columns: ``id``, the cell columns with ``params`` as JSON text, then one
        ``metric.<name>`` column per metric seen (sorted; empty where a row lacks it or it is
        null). ``decision`` is left out (it is nested; read it with ``rows``). The file is
        replaced atomically, so a crash never leaves half a CSV.
        """
        rows = self.rows(suite)
        metric_names = sorted({name for r in rows for name in r["metrics"]})
        base = ["id", *(key for key in CELL_KEYS if key not in ("metrics", "decision"))]
        header = base + [f"metric.{name}" for name in metric_names]

        def write(f: Any) -> None:
            writer = csv.writer(f, lineterminator="\n")
            writer.writerow(header)
            for r in rows:
                cells = [_csv_value(r[key], key) for key in base]
                cells += [_csv_value(r["metrics"].get(name), name) for name in metric_names]
                writer.writerow(cells)

        atomic_write(Path(path), write, text=True)
        return len(rows)

    def export_parquet(self, path: str | os.PathLike[str], suite: str | None = None) -> int:
        """Write the cells (of ``suite``, or all) as Parquet; return the number of rows.

        Same columns as ``export_csv`` plus ``decision`` as JSON text; typed columns (int64,
        float64, bool, string); metrics typed by their values. Needs pyarrow (optional).
        """
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError as exc:
            raise StoreError(
                "export_parquet needs pyarrow, which is not installed: pip install pyarrow"
            ) from exc
        rows = self.rows(suite)
        metric_names = sorted({name for r in rows for name in r["metrics"]})
        types = {
            "id": pa.int64(),
            "run_id": pa.int64(),
            "repetition": pa.int64(),
            "seed": pa.int64(),
            "concurrency": pa.int64(),
            "budget_s": pa.float64(),
            "latency_s": pa.float64(),
            "isolated": pa.bool_(),
        }
        columns: dict[str, Any] = {}
        for key in ["id", *CELL_KEYS]:
            if key == "metrics":
                continue
            values = [r[key] for r in rows]
            if key in ("params", "decision"):
                values = [None if v is None else json.dumps(v, allow_nan=False) for v in values]
            columns[key] = pa.array(values, type=types.get(key, pa.string()))
        for name in metric_names:
            values = [r["metrics"].get(name) for r in rows]
            kind = pa.float64() if any(isinstance(v, float) for v in values) else None
            columns[f"metric.{name}"] = pa.array(values, type=kind)
        table = pa.table(columns)
        atomic_write(Path(path), lambda f: pq.write_table(table, f), text=False)
        return len(rows)


# --------------------------------------------------------------------------------------------
# Row validation and encoding

_TEXT_KEYS = (
    "family",
    "instance",
    "instance_hash",
    "solver_name",
    "executor",
    "error",
    "problem_kind",
)
_TIME_KEYS = ("started_at", "finished_at")


def _validate_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """The row's values ready for the database, keyed by CELL_KEYS; raise on anything wrong."""
    if not isinstance(row, Mapping):
        raise StoreError(f"row: expected a dict, got {type(row).__name__}")
    unknown = [key for key in row if key not in CELL_KEYS]
    if unknown:
        hints = []
        for key in unknown:
            if key == "id":
                hints.append("'id' is assigned by the store")
            elif isinstance(key, str) and key.removesuffix("_json") in _JSON_KEYS:
                hints.append(f"give {key!r} as {key.removesuffix('_json')!r}, a dict")
        hint = f" ({'; '.join(hints)})" if hints else ""
        raise StoreError(
            f"row: unknown key(s) {', '.join(map(repr, unknown))}{hint}; "
            f"expected keys among {', '.join(CELL_KEYS)}"
        )
    missing = [key for key in REQUIRED_KEYS if row.get(key) is None]
    if missing:
        raise StoreError(f"row: missing required key(s) {', '.join(map(repr, missing))}")

    out: dict[str, Any] = {}
    suite = out["suite"] = _check_text("suite", row["suite"])
    where = f"row {suite}/{row.get('cell_id')!r}"
    try:
        out["cell_id"] = _check_text("cell_id", row["cell_id"])
        out["solver"] = _check_text("solver", row["solver"])
        out["status"] = _check_text("status", row["status"])
        out["run_id"] = _check_int("run_id", row["run_id"])
        kind = row["kind"]
        if kind not in KINDS:
            raise StoreError(f"kind: expected one of {', '.join(KINDS)}, got {kind!r}")
        out["kind"] = str(kind)
        for key in _TEXT_KEYS:
            value = row.get(key)
            out[key] = None if value is None else _check_text(key, value, empty_ok=True)
        for key in _TIME_KEYS:
            out[key] = _check_time(key, row.get(key))
        out["repetition"] = _check_int("repetition", row.get("repetition"), minimum=0)
        out["seed"] = _check_int("seed", row.get("seed"))
        out["concurrency"] = _check_int("concurrency", row.get("concurrency"), minimum=1)
        out["budget_s"] = _check_seconds("budget_s", row.get("budget_s"))
        out["latency_s"] = _check_seconds("latency_s", row.get("latency_s"))
        out["isolated"] = _check_flag("isolated", row.get("isolated"))
        params = row.get("params")
        if params is not None and not isinstance(params, Mapping):
            raise StoreError(f"params: expected a dict, got {type(params).__name__}")
        out["params"] = _dumps(params or {}, "params")
        out["metrics"] = json.dumps(_check_metrics(row.get("metrics")), allow_nan=False)
        decision = row.get("decision")
        if decision is not None and not isinstance(decision, Mapping):
            raise StoreError(f"decision: expected a dict or None, got {type(decision).__name__}")
        out["decision"] = None if decision is None else _dumps(decision, "decision")
    except StoreError as exc:
        raise StoreError(f"{where}: {exc}") from exc
    return out


def _check_text(key: str, value: Any, *, empty_ok: bool = False) -> str:
    if not isinstance(value, str):
        raise StoreError(f"{key}: expected a string, got {_describe(value)}")
    if not value and not empty_ok:
        raise StoreError(f"{key}: expected a non-empty string")
    return str(value)  # a StrEnum member becomes its plain value


def _check_int(key: str, value: Any, *, minimum: int | None = None) -> Any:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise StoreError(f"{key}: expected an integer, got {_describe(value)}")
    number = int(value)
    if not _INT64[0] <= number <= _INT64[1]:
        raise StoreError(f"{key}: expected an integer that fits in 64 bits, got {number}")
    if minimum is not None and number < minimum:
        raise StoreError(f"{key}: expected an integer >= {minimum}, got {number}")
    return number


def _check_seconds(key: str, value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise StoreError(f"{key}: expected a number of seconds, got {_describe(value)}")
    number = float(value)
    if not math.isfinite(number):
        return None
    if number < 0:
        raise StoreError(f"{key}: expected a number of seconds >= 0, got {number}")
    return number


def _check_flag(key: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or (isinstance(value, numbers.Integral) and value in (0, 1)):
        return int(value)
    raise StoreError(f"{key}: expected a bool (or 0/1), got {_describe(value)}")


def _check_time(key: str, value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, str):
        try:
            datetime.fromisoformat(value)
        except ValueError:
            pass
        else:
            return str(value)
    raise StoreError(f"{key}: expected an ISO 8601 time (str or datetime), got {_describe(value)}")


def _check_metrics(metrics: Any) -> dict[str, int | float | None]:
    if metrics is None:
        return {}
    if not isinstance(metrics, Mapping):
        raise StoreError(f"metrics: expected a dict of name -> number, got {_describe(metrics)}")
    out: dict[str, int | float | None] = {}
    for name, value in metrics.items():
        if not isinstance(name, str) or not name:
            raise StoreError(f"metrics: expected non-empty string names, got {name!r}")
        if value is None:
            out[name] = None
        elif isinstance(value, bool | numbers.Integral):
            out[name] = int(value)
        elif isinstance(value, numbers.Real):
            number = float(value)
            out[name] = number if math.isfinite(number) else None
        else:
            raise StoreError(
                f"metrics[{name!r}]: expected a number or None (metrics are flat), "
                f"got {_describe(value)}"
            )
    return out


def _jsonable(value: Any, where: str) -> Any:
    """``value`` as plain JSON types: NaN/inf -> None, numpy scalars and arrays -> Python."""
    if value is None or isinstance(value, str | bool):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        number = float(value)
        return number if math.isfinite(number) else None
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise StoreError(f"{where}: expected string keys, got {key!r}")
            out[key] = _jsonable(item, f"{where}.{key}")
        return out
    if isinstance(value, list | tuple):
        return [_jsonable(item, f"{where}[{i}]") for i, item in enumerate(value)]
    tolist = getattr(value, "tolist", None)  # numpy arrays and scalars, without importing numpy
    if callable(tolist):
        return _jsonable(tolist(), where)
    raise StoreError(
        f"{where}: expected a JSON value (dict, list, str, number, bool, None), "
        f"got {_describe(value)}"
    )


def _dumps(value: Any, where: str) -> str:
    return json.dumps(_jsonable(value, where), allow_nan=False, separators=(",", ":"))


def _decode_row(record: tuple[Any, ...]) -> dict[str, Any]:
    row: dict[str, Any] = {"id": record[0]}
    for key, value in zip(CELL_KEYS, record[1:], strict=True):
        if key in _JSON_KEYS:
            value = None if value is None else json.loads(value)
        elif key == "isolated" and value is not None:
            value = bool(value)
        row[key] = value
    return row


def _csv_value(value: Any, key: str) -> Any:
    if value is None:
        return ""
    if key == "params":
        return json.dumps(value, allow_nan=False, sort_keys=True)
    if isinstance(value, bool):
        return int(value)
    return value  # csv writes floats with repr(): they read back exactly


def _describe(value: Any) -> str:
    text = repr(value)
    text = text if len(text) <= 60 else text[:57] + "..."
    return f"{type(value).__name__} {text}"
