"""Read and write workloads in the Standard Workload Format (SWF) and BBSched's extension of it.

Format
------
SWF (Feitelson, Parallel Workloads Archive) is plain text, one job per line, 18
whitespace-separated numeric fields, ``-1`` meaning "unknown":

 1 job number       2 submit time     3 wait time         4 run time        5 allocated procs
 6 average CPU time 7 used memory     8 requested procs   9 requested time 10 requested memory
11 status          12 user id        13 group id         14 executable     15 queue
16 partition       17 preceding job  18 think time

Lines whose first non-blank character is ``;`` are comments. Comment lines of the form
``; Key: value`` are header entries and are kept, in file order, as ``(key, value)`` pairs in
``Workload.header`` (free-text comment lines, such as the continuation lines of a long note, are
not kept). ``Workload.max_nodes`` / ``max_procs`` are the header's ``MaxNodes`` / ``MaxProcs``
when they are integers (else ``None``). Job sizes are processors (``size_unit``): the machine a
trace describes is ``MaxProcs`` processors, and ``MaxProcs / MaxNodes`` of them per node. Blank lines are ignored. Gzip-compressed files are recognised by
their magic bytes, whatever their name.

BBSched's extended SWF (CQSim branch ``BBSched``) appends requested-resource columns 19, 20, ...
to every job line and gives their capacities in a ``; BurstBuffer: c1, c2, ...`` header line
(comma and/or space separated). The extra columns become ``Workload.extra``, named ``r19``,
``r20``, ... after their SWF column number; the capacities become ``extra_capacities`` (empty when
the header line is absent; when present there must be one per extra column). Every job line must
have as many fields as the first job line with at least 18 fields. ``bb_column`` / ``ssd_column``
copy one extended column into ``bb_gb`` / ``ssd_gb``.

Mapping to :class:`~simcore.workload.Workload`: ``job_id`` = field 1, ``submit`` = field 2,
``runtime`` = field 4, ``requested_time`` = field 9, ``nodes`` = field 8 if it is positive, else
field 5; ``swf`` keeps the 18 fields exactly as read (repairs below change the columns, not this
table); ``source`` is the path as given.

Bad lines
---------
A job line with the wrong number of fields, a token that is not a number, a NaN or infinite
value, or a non-integer job number / processor count (fields 1, 5, 8) is a *bad line*. With
``on_bad_line="error"`` (default) the first one raises :class:`SwfError` with the message
``"{path}:{line}: expected ..., got ..."`` (1-based physical line number). With
``on_bad_line="skip"`` bad lines are left out and counted in ``cleaning["bad_lines"]``.

Two job lines with one job number are an error whatever ``on_bad_line`` says (every table keyed
by job would merge them): :class:`SwfError` names the second line. The file is read through
``simcore/safeio.py``: a regular file only, under the input size cap (after gunzipping).

Cleaning (``clean=True``, the default)
--------------------------------------
Applied in this order to the rows that parsed; a row removed by one rule is not seen by later
ones. Every key is always present in ``Workload.cleaning``, also when its count is 0:

``rows_read``               job rows parsed (not a rule): ``rows_read`` = jobs kept +
                            ``no_processors`` + ``zero_runtime`` + ``negative_submit``
``bad_lines``               lines skipped with ``on_bad_line="skip"`` (not part of ``rows_read``)
``no_processors``           dropped: fields 5 and 8 both <= 0 (typically cancelled before start)
``zero_runtime``            dropped: run time (field 4) <= 0, including -1 = unknown
``negative_submit``         dropped: submit time < 0
``missing_requested_time``  repaired: requested time (field 9) <= 0 or -1 is set to the run time
                            (count of repaired rows)
``unknown_resource``        repaired: a negative value (-1 = unknown) in a column mapped onto
                            ``bb_gb`` / ``ssd_gb`` / ``data_in_gb`` / ``data_out_gb`` is set to 0
                            (count of rows with at least one such value)
``resorted``                rows out of submit order are stably sorted by (submit, job number);
                            the count is the number of rows whose position changed (0 = the file
                            was already in order)
``runs_past_request``       counted, not changed: run time > requested time; the simulator kills
                            such jobs at their request (also counted with ``clean=False``)

With ``clean=False`` no rule is applied; a row that breaks a ``Workload`` invariant (nodes >= 1,
run time >= 0, requested time >= 0, resources >= 0, submit times non-decreasing) raises
:class:`SwfError` naming its line and the rule that would have handled it. Rows that only a
cleaning rule dislikes but the invariants accept (run time 0, negative submit) are kept.

``max_jobs`` stops reading after that many job rows (in file order, before cleaning, bad lines
not counted); the rest of the file is not parsed, so bad lines there go unnoticed.

Writing
-------
:func:`write_swf` writes the header (``Version``, ``MaxJobs``, ``MaxRecords`` and ``MaxNodes``
unless the workload's header already has them, then the workload's header pairs in order, and a
``BurstBuffer`` line for the capacities of the extended columns), then one line per job: the 18
fields, then the extended columns. Fields 1, 2, 4 are written from the ``job_id``, ``submit`` and
``runtime`` columns; fields 8 and 9 from ``nodes`` and ``requested_time`` when the SWF table would
not give the same values back. Values are written as integers when integral, otherwise with up
to six decimals, or the shortest exact ``repr`` when six decimals would change the value, so
``read_swf(write_swf(w, p))`` gives back every column exactly.

``bb_gb``, ``ssd_gb``, ``data_in_gb`` and ``data_out_gb`` have no SWF field. When one of them is
non-zero the writer appends it as one more column after the extended ones and names the column
in a ``; SchedbenchColumns: bb_gb=29, ...`` header line; the reader fills the named column from
it and leaves it out of ``extra`` (an explicit ``bb_column`` / ``ssd_column`` argument wins).
The extended columns are written in ``extra_names`` order as columns 19, 20, ..., so they read
back with positional names. ``max_nodes=None`` is written as ``MaxNodes`` = the largest job.
A file without job lines has no width: its number of extended columns is then taken from the
``BurstBuffer`` capacities (none without them).

With a :class:`~simcore.schedule.ScheduleResult` the output is a simulated log: field 3 is the
simulated wait (start - submit), field 4 the simulated run (end - start), field 9 the requested
time, field 11 the status: 1 for COMPLETED, 0 for KILLED (SWF "failed"), 5 (SWF "cancelled") for
REJECTED and UNFINISHED; a job that never started gets -1 for wait and run (and one that started
but never ended -1 for run). Read back with ``clean=True``, such jobs are dropped by the
``zero_runtime`` rule.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from schedbench.simcore.errors import SchedbenchError
from schedbench.simcore.safeio import InputFileError, atomic_write_bytes, read_bytes
from schedbench.simcore.schedule import JobState, ScheduleResult
from schedbench.simcore.workload import SWF_FIELDS, Workload

__all__ = ["CLEANING_KEYS", "SwfError", "read_swf", "write_swf"]

#: Keys of ``Workload.cleaning`` produced by :func:`read_swf`, in the order the rules run.
CLEANING_KEYS: tuple[str, ...] = (
    "rows_read",
    "bad_lines",
    "no_processors",
    "zero_runtime",
    "negative_submit",
    "missing_requested_time",
    "unknown_resource",
    "resorted",
    "runs_past_request",
)

#: Workload columns without an SWF field that the writer stores as appended columns.
_SIDE_COLUMNS: tuple[str, ...] = ("bb_gb", "ssd_gb", "data_in_gb", "data_out_gb")
_SIDE_KEY = "SchedbenchColumns"
_CAPACITY_KEY = "BurstBuffer"

_N_SWF = 18
_JOB, _SUBMIT, _WAIT, _RUN, _ALLOC, _REQ_PROCS, _REQ_TIME, _STATUS = 0, 1, 2, 3, 4, 7, 8, 10
_INTEGER_FIELDS = (_JOB, _ALLOC, _REQ_PROCS)
_EXACT_INT = 2.0**53  # beyond this a float64 no longer holds every integer
#: Sanity bounds (times of 1e300 made a makespan of 1e300; a 40 MB line became one job
#: with 20 M columns): times in seconds below 2^53 (beyond it float64 no longer counts whole
#: seconds, and event times would collapse), processor counts at most 10^9, and at most 256
#: extended columns.
_MAX_TIME_S = _EXACT_INT
_TIME_FIELDS = (_SUBMIT, _WAIT, _RUN, _REQ_TIME)
_SIZE_FIELDS = (_ALLOC, _REQ_PROCS)
_MAX_SIZE = 1e9
_MAX_FIELDS = _N_SWF + 256
_MAX_LINE_CHARS = 64 * 1024  # checked before a line is split into tokens
_CHUNK = 4096  # job lines per loadtxt call when looking for bad lines

_HEADER_LINE = re.compile(r"\s*([A-Za-z][\w.-]*)\s*:(?!//)\s*(.*?)\s*$")
_NON_SPACE = re.compile(r"\S")

_STATUS_CODE = {
    int(JobState.COMPLETED): 1,
    int(JobState.KILLED): 0,
    int(JobState.REJECTED): 5,
    int(JobState.UNFINISHED): 5,
}


class SwfError(SchedbenchError, ValueError):
    """An SWF file (or a workload to be written as one) is malformed.

    ``path`` and ``line`` (1-based, physical) locate the problem when it is in a file.
    """

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None):
        super().__init__(message)
        self.path = path
        self.line = line


def _fail(path: str, line: int, expected: str, got: object) -> SwfError:
    return SwfError(f"{path}:{line}: expected {expected}, got {got}", path=path, line=line)


# ---------------------------------------------------------------------------------- reading


def _read_text(path: Path, source: str) -> str:
    try:
        data = read_bytes(path, label=source)
    except InputFileError as exc:
        raise SwfError(str(exc), path=source) from exc
    return data.decode("utf-8-sig", errors="replace")


def _split_comments(text: str) -> tuple[str, list[tuple[int, str]]]:
    """``text`` with its comment lines emptied (newlines kept) and the comments with line numbers.

    Semicolons are rare in SWF files (only comment lines have them), so the scan jumps from one
    ``;`` to the next instead of looking at every line.
    """
    comments: list[tuple[int, str]] = []
    pieces: list[str] = []
    copied = 0  # text[:copied] is already in pieces (or dropped)
    line, counted = 1, 0  # line number of position `counted`
    i = text.find(";")
    while i != -1:
        start = text.rfind("\n", 0, i) + 1
        end = text.find("\n", i)
        end = len(text) if end == -1 else end
        if not text[start:i].strip():
            line += text.count("\n", counted, start)
            counted = start
            comments.append((line, text[i + 1 : end]))
            pieces.append(text[copied:start])
            copied = end
        i = text.find(";", end)
    if not comments:
        return text, comments
    pieces.append(text[copied:])
    return "".join(pieces), comments


def _header_pairs(comments: list[tuple[int, str]]) -> list[tuple[str, str, int]]:
    pairs = []
    for line, body in comments:
        match = _HEADER_LINE.match(body)
        if match:
            pairs.append((match.group(1), match.group(2), line))
    return pairs


def _as_int(value: str) -> int | None:
    try:
        number = float(value)
    except ValueError:
        return None
    return int(number) if np.isfinite(number) and number == int(number) else None


#: Header sizes above this are refused (the largest machines have ~10^7 cores).
MAX_HEADER_SIZE = 10**9


def _header_int(pairs: list[tuple[str, str, int]], key: str, source: str) -> int | None:
    """A positive integer header entry (``MaxNodes``, ``MaxProcs``), None when absent or not an
    integer; an absurd size is an error naming the line."""
    for k, value, line in pairs:
        if k == key and (number := _as_int(value)) is not None:
            if not 0 < number <= MAX_HEADER_SIZE:
                raise _fail(source, line, f"{key} between 1 and {MAX_HEADER_SIZE:,}", value)
            return number
    return None


@dataclass
class _Parsed:
    table: np.ndarray  # (n, width) float64
    width: int
    bad_lines: int
    line_numbers: Callable[[], np.ndarray]  # physical line of each row, computed on demand


def _job_lines(text: str) -> list[tuple[int, str]]:
    return [
        (number, raw)
        for number, raw in enumerate(text.split("\n"), start=1)
        if (stripped := raw.lstrip()) and stripped[0] != ";"
    ]


def _loadtxt(text: str, max_rows: int | None) -> np.ndarray | None:
    """Whitespace-separated numbers as a 2-D array, or None if any line does not parse."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "input contained no data", max_rows semantics
        try:
            return np.loadtxt(
                io.StringIO(text), dtype=np.float64, comments=None, ndmin=2, max_rows=max_rows
            )
        except ValueError:
            return None


def _table_ok(table: np.ndarray) -> bool:
    """All values finite and within the sanity bounds, and job numbers / processor counts
    integers."""
    if not np.isfinite(table).all():
        return False
    if table.shape[1] > _MAX_FIELDS:
        return False
    if (table[:, list(_TIME_FIELDS)] > _MAX_TIME_S).any():
        return False
    if (table[:, list(_SIZE_FIELDS)] > _MAX_SIZE).any():
        return False
    for j in _INTEGER_FIELDS:
        col = table[:, j]
        if not ((col == np.round(col)).all() and (np.abs(col) < _EXACT_INT).all()):
            return False
    return True


def _field_name(j: int) -> str:
    name = SWF_FIELDS[j] if j < _N_SWF else f"extended column {j + 1}"
    return f"field {j + 1} ({name})"


def _parse_line(tokens: list[str], width: int) -> list[float] | tuple[str, str]:
    """The values of one job line, or (expected, got) describing what is wrong with it."""
    if len(tokens) > _MAX_FIELDS:
        return f"at most {_MAX_FIELDS} fields", str(len(tokens))
    if len(tokens) != width:
        return f"{width} fields", str(len(tokens))
    values = []
    for j, tok in enumerate(tokens):
        try:
            if "_" in tok:  # Python's float() accepts 1_000; loadtxt and SWF do not
                raise ValueError(tok)
            value = float(tok)
        except ValueError:
            return f"a number in {_field_name(j)}", repr(tok)
        if not np.isfinite(value):
            return f"a finite number in {_field_name(j)}", repr(tok)
        if j in _INTEGER_FIELDS and not (value == int(value) and abs(value) < _EXACT_INT):
            return f"an integer in {_field_name(j)}", repr(tok)
        if j in _TIME_FIELDS and value > _MAX_TIME_S:
            return f"at most 2^53 seconds in {_field_name(j)}", repr(tok)
        if j in _SIZE_FIELDS and value > _MAX_SIZE:
            return f"at most {_MAX_SIZE:.0e} processors in {_field_name(j)}", repr(tok)
        values.append(value)
    return values


def _parse_slow(
    text: str, source: str, on_bad_line: str, max_jobs: int | None
) -> tuple[np.ndarray, int, int, np.ndarray]:
    """Line-by-line parse (in chunks, with loadtxt for the chunks that are clean)."""
    jobs = _job_lines(text)
    width, first_line = _N_SWF, None
    for number, raw in jobs:
        if len(raw) > _MAX_LINE_CHARS:
            continue  # reported as a bad line below; never the model for the others
        count = len(raw.split())
        if _N_SWF <= count <= _MAX_FIELDS:
            width, first_line = count, number
            break
    rows: list[np.ndarray] = []
    numbers: list[np.ndarray] = []
    kept = bad = 0
    limit = len(jobs) if max_jobs is None else max_jobs
    for lo in range(0, len(jobs), _CHUNK):
        if kept >= limit:
            break
        chunk = jobs[lo : lo + _CHUNK]
        block = _loadtxt("\n".join(raw for _, raw in chunk), None)
        if block is not None and block.shape == (len(chunk), width) and _table_ok(block):
            take = min(len(chunk), limit - kept)
            rows.append(block[:take])
            numbers.append(np.array([n for n, _ in chunk[:take]], dtype=np.int64))
            kept += take
            continue
        good: list[list[float]] = []
        good_numbers: list[int] = []
        for number, raw in chunk:
            if kept + len(good) >= limit:
                break
            parsed: list[float] | tuple[str, str] = (
                (f"a job line of at most {_MAX_LINE_CHARS:,} characters", f"{len(raw):,}")
                if len(raw) > _MAX_LINE_CHARS
                else _parse_line(raw.split(), width)
            )
            if isinstance(parsed, tuple):
                if on_bad_line == "error":
                    expected, got = parsed
                    if expected.endswith(" fields") and first_line is not None:
                        expected += f" (as on line {first_line}, the first full job line)"
                    elif expected.endswith(" fields"):
                        expected = f"at least {_N_SWF} fields"
                    raise _fail(source, number, expected, got)
                bad += 1
                continue
            good.append(parsed)
            good_numbers.append(number)
        if good:
            rows.append(np.array(good, dtype=np.float64))
            numbers.append(np.array(good_numbers, dtype=np.int64))
            kept += len(good)
    table = np.concatenate(rows) if rows else np.zeros((0, width))
    lines = np.concatenate(numbers) if numbers else np.zeros(0, dtype=np.int64)
    return table, width, bad, lines


def _parse_jobs(
    text: str, job_text: str, source: str, on_bad_line: str, max_jobs: int | None
) -> _Parsed:
    if max_jobs == 0 or not _NON_SPACE.search(job_text):
        return _Parsed(np.zeros((0, _N_SWF)), _N_SWF, 0, lambda: np.zeros(0, dtype=np.int64))
    table = _loadtxt(job_text, max_jobs)
    if table is not None and table.shape[1] >= _N_SWF and _table_ok(table):
        n = table.shape[0]
        return _Parsed(
            table,
            table.shape[1],
            0,
            lambda: np.array([number for number, _ in _job_lines(text)[:n]], dtype=np.int64),
        )
    table, width, bad, lines = _parse_slow(text, source, on_bad_line, max_jobs)
    return _Parsed(table, width, bad, lambda: lines)


def _capacities(value: str, line: int, source: str) -> tuple[float, ...]:
    out = []
    for tok in value.replace(",", " ").split():
        try:
            number = float(tok)
        except ValueError:
            number = float("nan")
        if not np.isfinite(number):
            raise _fail(
                source, line, f"numeric capacities in the {_CAPACITY_KEY} header", repr(tok)
            )
        out.append(number)
    return tuple(out)


def _side_columns(value: str, line: int, source: str, width: int) -> dict[str, int]:
    out = {}
    for item in value.replace(",", " ").split():
        name, _, number = item.partition("=")
        column = _as_int(number)
        if name not in _SIDE_COLUMNS or column is None or not _N_SWF < column <= width:
            raise _fail(
                source,
                line,
                f"'name=column' items in the {_SIDE_KEY} header with a name in "
                f"{', '.join(_SIDE_COLUMNS)} and a column in {_N_SWF + 1}..{width}",
                repr(item),
            )
        out[name] = column
    return out


def read_swf(
    path: str | os.PathLike[str],
    *,
    on_bad_line: Literal["error", "skip"] = "error",
    clean: bool = True,
    bb_column: int | None = None,
    ssd_column: int | None = None,
    max_jobs: int | None = None,
) -> Workload:
    """Read an SWF (or BBSched extended SWF) file, optionally gzipped, as a :class:`Workload`.

    See the module docstring for the format, the bad-line handling and the cleaning rules.
    ``bb_column`` / ``ssd_column`` are SWF column numbers (19 or more) copied into ``bb_gb`` /
    ``ssd_gb``; ``max_jobs`` stops after that many job rows.
    """
    if on_bad_line not in ("error", "skip"):
        raise ValueError(f"on_bad_line: expected 'error' or 'skip', got {on_bad_line!r}")
    if max_jobs is not None and (not isinstance(max_jobs, int) or max_jobs < 0):
        raise ValueError(f"max_jobs: expected None or an integer >= 0, got {max_jobs!r}")
    source = os.fspath(path)
    text = _read_text(Path(path), source)
    job_text, comments = _split_comments(text)
    pairs = _header_pairs(comments)
    parsed = _parse_jobs(text, job_text, source, on_bad_line, max_jobs)
    table, width = parsed.table, parsed.width

    capacities: tuple[float, ...] = ()
    capacity_line = 0
    side_only: dict[str, int] = {}  # columns the writer appended: schedbench's, not BBSched's
    for key, value, line in pairs:
        if key == _CAPACITY_KEY:
            capacities, capacity_line = _capacities(value, line, source), line
        elif key == _SIDE_KEY:
            side_only = _side_columns(value, line, source, width)
    if table.shape[0] == 0 and len(capacities) > width - _N_SWF:
        width = _N_SWF + len(capacities)  # no job lines: the capacities tell how many columns
        table = np.zeros((0, width))
    side = dict(side_only)
    for name, column in (("bb_gb", bb_column), ("ssd_gb", ssd_column)):
        if column is None:
            continue
        if not isinstance(column, int | np.integer) or not _N_SWF < column <= width:
            raise SwfError(
                f"{source}: {name[:-3]}_column: expected an extended column number in "
                f"{_N_SWF + 1}..{width}, got {column!r}"
                + ("" if width > _N_SWF else " (the file has only the 18 SWF fields)"),
                path=source,
            )
        side[name] = column
    extra_columns = [c for c in range(_N_SWF + 1, width + 1) if c not in set(side_only.values())]
    if capacities and len(capacities) != len(extra_columns):
        raise _fail(
            source,
            capacity_line,
            f"one {_CAPACITY_KEY} capacity per extended column ({len(extra_columns)})",
            len(capacities),
        )

    n = table.shape[0]
    job_id = table[:, _JOB].astype(np.int64)
    _check_unique_ids(source, parsed, job_id)
    submit = table[:, _SUBMIT].copy()
    runtime = table[:, _RUN].copy()
    requested = table[:, _REQ_TIME].copy()
    nodes_f = np.where(table[:, _REQ_PROCS] > 0, table[:, _REQ_PROCS], table[:, _ALLOC])
    nodes = nodes_f.astype(np.int64)
    resources = {
        name: (table[:, side[name] - 1].copy() if name in side else np.zeros(n))
        for name in _SIDE_COLUMNS
    }
    extra = table[:, [c - 1 for c in extra_columns]]
    rows = np.arange(n)  # parsed row behind each kept row, for line numbers in errors
    cleaning = dict.fromkeys(CLEANING_KEYS, 0)
    cleaning["rows_read"] = n
    cleaning["bad_lines"] = parsed.bad_lines

    if clean:
        keep = np.ones(n, dtype=bool)
        for key, drop in (
            ("no_processors", nodes < 1),
            ("zero_runtime", ~(runtime > 0)),
            ("negative_submit", submit < 0),
        ):
            drop = drop & keep
            cleaning[key] = int(np.count_nonzero(drop))
            keep &= ~drop
        if not keep.all():
            job_id, submit, runtime, requested, nodes, extra, rows = (
                a[keep] for a in (job_id, submit, runtime, requested, nodes, extra, rows)
            )
            resources = {name: col[keep] for name, col in resources.items()}
        missing = ~(requested > 0)
        cleaning["missing_requested_time"] = int(np.count_nonzero(missing))
        requested[missing] = runtime[missing]
        unknown = np.zeros(len(rows), dtype=bool)
        for col in resources.values():
            negative = col < 0
            unknown |= negative
            col[negative] = 0.0
        cleaning["unknown_resource"] = int(np.count_nonzero(unknown))
        if len(rows) > 1 and np.any(np.diff(submit) < 0):
            order = np.lexsort((job_id, submit))
            cleaning["resorted"] = int(np.count_nonzero(order != np.arange(len(order))))
            job_id, submit, runtime, requested, nodes, extra, rows = (
                a[order] for a in (job_id, submit, runtime, requested, nodes, extra, rows)
            )
            resources = {name: col[order] for name, col in resources.items()}
    else:
        _check_invariants(source, parsed, submit, runtime, requested, nodes, resources)
    cleaning["runs_past_request"] = int(np.count_nonzero(runtime > requested))

    return Workload(
        job_id=job_id,
        submit=submit,
        runtime=runtime,
        requested_time=requested,
        nodes=nodes,
        swf=table[rows, :_N_SWF],
        extra=extra,
        extra_names=tuple(f"r{c}" for c in extra_columns),
        extra_capacities=capacities,
        max_nodes=_header_int(pairs, "MaxNodes", source),
        max_procs=_header_int(pairs, "MaxProcs", source),
        size_unit="processors",
        header=tuple((key, value) for key, value, _ in pairs if key != _SIDE_KEY),
        source=source,
        cleaning=cleaning,
        **resources,
    )


def _check_unique_ids(source: str, parsed: _Parsed, job_id: np.ndarray) -> None:
    """Two jobs with one id would be one job to every table keyed by it: refused, the second
    line named."""
    if job_id.size < 2:
        return
    order = np.argsort(job_id, kind="stable")
    same = np.flatnonzero(job_id[order][1:] == job_id[order][:-1])
    if same.size:
        row = int(order[same + 1].min())
        line = int(parsed.line_numbers()[row])
        raise _fail(source, line, "each job id (field 1) once", int(job_id[row]))


def _check_invariants(
    source: str,
    parsed: _Parsed,
    submit: np.ndarray,
    runtime: np.ndarray,
    requested: np.ndarray,
    nodes: np.ndarray,
    resources: dict[str, np.ndarray],
) -> None:
    """With clean=False: the first row (in file order) that breaks a Workload invariant."""
    checks: list[tuple[np.ndarray, str, str, np.ndarray]] = [
        (nodes < 1, "no_processors", "nodes >= 1 (field 8, else field 5)", nodes),
        (runtime < 0, "zero_runtime", "a run time >= 0 (field 4)", runtime),
        (requested < 0, "missing_requested_time", "a requested time >= 0 (field 9)", requested),
    ]
    for name, col in resources.items():
        checks.append((col < 0, "unknown_resource", f"{name} >= 0", col))
    first: tuple[int, str, str, str] | None = None
    for bad, rule, expected, col in checks:
        hits = np.flatnonzero(bad)
        if hits.size and (first is None or hits[0] < first[0]):
            first = (int(hits[0]), rule, expected, _fmt(float(col[hits[0]])))
    down = np.flatnonzero(np.diff(submit) < 0) + 1
    if down.size and (first is None or down[0] < first[0]):
        i = int(down[0])
        first = (
            i,
            "resorted",
            f"submit times in order (>= {_fmt(float(submit[i - 1]))} on the line before)",
            _fmt(float(submit[i])),
        )
    if first is not None:
        row, rule, expected, got = first
        line = int(parsed.line_numbers()[row])
        raise SwfError(
            f"{source}:{line}: expected {expected}, got {got} "
            f"(cleaning rule {rule!r} handles this with clean=True)",
            path=source,
            line=line,
        )


# ---------------------------------------------------------------------------------- writing


def _fmt(value: float) -> str:
    """Integral values as integers, others with up to six decimals, else the exact repr."""
    if value == int(value) and abs(value) < _EXACT_INT:
        return str(int(value))
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return text if float(text) == value else repr(float(value))


def _integer_text(values: np.ndarray) -> np.ndarray:
    """Integers as right-aligned ASCII digits: a (n, width) uint8 array, built column-wise."""
    n = values.shape[0]
    size = np.abs(values)
    digits = len(str(int(size.max()))) if n else 1
    negative = values < 0
    width = digits + int(negative.any())
    out = np.full((n, width), ord(" "), dtype=np.uint8)
    rest = size.copy()
    length = np.ones(n, dtype=np.int64)  # digits of each value
    for r in range(digits):  # r-th digit from the right
        if r:
            present = size >= 10**r
            length += present
        else:
            present = np.ones(n, dtype=bool)
        out[:, width - 1 - r] = np.where(present, ord("0") + rest % 10, ord(" "))
        rest //= 10
    rows = np.flatnonzero(negative)
    out[rows, width - 1 - length[rows]] = ord("-")
    return out


def _column_text(col: np.ndarray) -> np.ndarray:
    """One column formatted by :func:`_fmt`, right-aligned: a (n, width) uint8 array."""
    integral = (col == np.round(col)) & (np.abs(col) < _EXACT_INT)
    if integral.all():
        return _integer_text(col.astype(np.int64))
    texts = [_fmt(float(v)).encode("ascii") for v in col]
    width = max(map(len, texts))
    padded = np.char.rjust(np.array(texts, dtype=f"S{width}"), width)
    return padded.view(np.uint8).reshape(col.shape[0], width)


def _header_lines(
    workload: Workload, capacities: Sequence[float], side: dict[str, int]
) -> list[str]:
    n = len(workload)
    max_nodes = workload.max_nodes
    if max_nodes is None and n:
        max_nodes = int(workload.nodes.max())
    pairs: list[tuple[str, str]] = []
    for key, value in workload.header:
        if key == _SIDE_KEY or (key == _CAPACITY_KEY and not capacities):
            continue
        if key == _CAPACITY_KEY:
            value = ", ".join(_fmt(c) for c in capacities)
        elif key == "MaxNodes" and max_nodes is not None and _as_int(value) != max_nodes:
            value = str(max_nodes)  # the workload's own value wins over a stale header
        pairs.append((key, value))
    keys = {key for key, _ in pairs}
    front = [("Version", "2.2")] if "Version" not in keys else []
    front += [(key, str(n)) for key in ("MaxJobs", "MaxRecords") if key not in keys]
    if "MaxNodes" not in keys and max_nodes is not None:
        front.append(("MaxNodes", str(max_nodes)))
    if capacities and _CAPACITY_KEY not in keys:
        pairs.append((_CAPACITY_KEY, ", ".join(_fmt(c) for c in capacities)))
    if side:
        pairs.append((_SIDE_KEY, ", ".join(f"{name}={c}" for name, c in side.items())))
    return [f"; {key}: {' '.join(value.splitlines())}".rstrip() for key, value in front + pairs]


def _simulated(result: ScheduleResult, workload: Workload, table: np.ndarray) -> None:
    """Overwrite wait, run time, requested time and status with the simulation's outcome."""
    n = len(workload)
    start = np.asarray(result.start, dtype=np.float64)
    end = np.asarray(result.end, dtype=np.float64)
    state = np.asarray(result.state)
    if start.shape != (n,) or end.shape != (n,) or state.shape != (n,):
        raise SwfError(
            f"result: expected start, end and state for the workload's {n} jobs, got shapes "
            f"{start.shape}, {end.shape}, {state.shape}"
        )
    if len(result.workload) != n or not np.array_equal(result.workload.job_id, workload.job_id):
        raise SwfError("result: expected a ScheduleResult of this workload, got another one")
    started = ~np.isnan(start)
    ended = started & ~np.isnan(end)
    table[:, _WAIT] = np.where(started, start - workload.submit, -1.0)
    table[:, _RUN] = np.where(ended, end - start, -1.0)
    table[:, _REQ_TIME] = workload.requested_time
    codes = np.full(n, -99)
    for state_code, status in _STATUS_CODE.items():
        codes[state == state_code] = status
    if np.any(codes == -99):
        bad = state[codes == -99][0]
        raise SwfError(f"result: expected JobState codes 0..3, got {bad!r}")
    table[:, _STATUS] = codes


def write_swf(
    workload: Workload,
    path: str | os.PathLike[str],
    *,
    result: ScheduleResult | None = None,
    header: bool = True,
) -> Path:
    """Write ``workload`` as SWF (gzipped when ``path`` ends in ``.gz``); returns the path.

    With ``result`` the file is the simulated log (wait, run time and status from the
    simulation). ``header=False`` writes job lines only (extended-column capacities and the
    ``SchedbenchColumns`` mapping are then lost). See the module docstring for the details.
    """
    n = len(workload)
    table = np.array(workload.swf, dtype=np.float64, copy=True)
    table[:, _JOB] = workload.job_id
    table[:, _SUBMIT] = workload.submit
    table[:, _RUN] = workload.runtime
    # Fields 8 and 9 are rewritten only where the reader would not derive the columns from them.
    req_procs, alloc = table[:, _REQ_PROCS], table[:, _ALLOC]
    derived_nodes = np.where(req_procs > 0, req_procs, alloc)
    fix = derived_nodes != workload.nodes
    table[fix, _REQ_PROCS] = workload.nodes[fix]
    req = table[:, _REQ_TIME]
    derived_req = np.where(req > 0, req, workload.runtime)
    fix = derived_req != workload.requested_time
    table[fix, _REQ_TIME] = workload.requested_time[fix]
    if result is not None:
        _simulated(result, workload, table)

    parts = [table, workload.extra]
    side: dict[str, int] = {}
    column = _N_SWF + workload.extra.shape[1]
    for name in _SIDE_COLUMNS:
        col = getattr(workload, name)
        if np.any(col != 0):
            column += 1
            side[name] = column
            parts.append(col[:, None])
    full = np.hstack(parts) if n else np.zeros((0, column))
    if not np.isfinite(full).all():
        row, j = (int(k[0]) for k in np.nonzero(~np.isfinite(full)))
        raise SwfError(
            f"job {int(workload.job_id[row])} (row {row}): expected finite values to write, got "
            f"{full[row, j]!r} in {_field_name(j)}"
        )
    lines = _header_lines(workload, workload.extra_capacities, side) if header else []
    data = "".join(line + "\n" for line in lines).encode("utf-8")
    if n:
        # Build the job lines as one byte matrix: aligned columns, a space between, a newline.
        columns = [_column_text(full[:, j]) for j in range(full.shape[1])]
        widths = [c.shape[1] for c in columns]
        body = np.full((n, sum(widths) + len(widths)), ord(" "), dtype=np.uint8)
        at = 0
        for c, w in zip(columns, widths, strict=True):
            body[:, at : at + w] = c
            at += w + 1
        body[:, -1] = ord("\n")
        data += body.tobytes()

    out = Path(path)
    if out.suffix == ".gz":
        data = gzip.compress(data, mtime=0)
    return atomic_write_bytes(out, data)
