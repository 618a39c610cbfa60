"""Cerberus workloads: the CSV of the published runs (dataset ``cerberus``), a writer, and a
seeded generator of the same kind (``papers/cerberus-evaluation-model.md`` §2).

CSV format
----------
A header line, then one line per job, comma-separated; the columns (all required, in any order,
no others)::

    job_id, submit_s, cores_requested, runtime_s, requested_s,
    data_in_gb, data_run_tb, data_out_tb, data_max_tb

``job_id`` strictly increasing integers; ``submit_s`` seconds from 0 (finite, >= 0);
``cores_requested`` an integer >= 1 (SWF field 8, before the model raises it to 256) and, when
the machine is given, at most its cores; ``runtime_s`` >= 0; ``requested_s`` > 0 (it divides
the run-queue value); the four data columns empty (not used by that variant) or numbers >= 0.
Every violation raises :class:`CerberusFileError` naming the file, the line (1-based, the header
is line 1) and the column (number and name), and what was expected. A gzip file is read as well
(recognised by its magic bytes).

Generator (model note §2)
-------------------------
:func:`generate_cerberus_workload` takes the jobs of a window of any workload (an SWF trace —
upstream used jobs 1–1185 of ANL Intrepid 2009 —, a Lublin–Feitelson workload, or the job columns
of a Cerberus CSV) and draws, from one seeded generator: arrivals as the running sum of
Poisson(``arrival_mean``) integers (the first job may arrive at 0; SWF submit times are
discarded); the stage-in volume uniform over 1..29 GB, checkpoint and stage-out volumes uniform
over 1..59 TB (integers; upper bounds excluded as upstream drew them); d = max(run, out). Same
seed, same workload; the upstream random streams themselves cannot be replayed (no seed was
fixed), which is why reproductions read the published inputs instead.

Specs (suites, ``reproduce``)
-----------------------------
``PATH.csv`` (or ``PATH.csv.gz``) reads a file, and so does a dataset reference
(``cerberus/maxt_cerberus``: ``schedbench data``); ``cerberus:jobs=N,seed=S[,nodes=1171][,cores_per_node=256]
[,arrival_mean=1]`` generates over a Lublin–Feitelson base on ``nodes`` nodes of
``cores_per_node`` cores (300,000 cores: 1,171 × 256); ``cerberus:swf=PATH,seed=S[,first=1]
[,jobs=1185]`` over a window of an SWF trace (job numbers ``first`` .. ``first+jobs-1``);
``cerberus:csv=PATH,seed=S`` redraws arrivals and data over a Cerberus CSV's jobs. Paths inside a
spec may not contain commas; ``swf=`` and ``csv=`` take dataset references too (``swf=kth-sp2``).
"""

from __future__ import annotations

import csv
import dataclasses
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from schedbench.instances import datasets
from schedbench.instances.datasets import open_text
from schedbench.simcore.cerberus.workload import CerberusWorkload, CerberusWorkloadError
from schedbench.simcore.errors import SchedbenchError
from schedbench.simcore.safeio import InputFileError, open_output
from schedbench.simcore.workload import Workload

COLUMNS: tuple[str, ...] = (
    "job_id",
    "submit_s",
    "cores_requested",
    "runtime_s",
    "requested_s",
    "data_in_gb",
    "data_run_tb",
    "data_out_tb",
    "data_max_tb",
)

#: Upstream's draws (model note §2): integers, upper bound excluded.
IN_GB_RANGE = (1, 30)
RUN_TB_RANGE = (1, 60)
OUT_TB_RANGE = (1, 60)

#: The published runs: job numbers 1..1185 of ANL Intrepid 2009 (model note §2).
PUBLISHED_FIRST_JOB = 1
PUBLISHED_JOBS = 1185


class CerberusFileError(CerberusWorkloadError):
    """A Cerberus workload file that cannot be read; names file, line and column."""

    def __init__(self, message: str, *, path: str, line: int | None = None, column: str = ""):
        self.path, self.line, self.column = path, line, column
        super().__init__(message)


def _fail(path: str, line: int, col: int, name: str, expected: str, got: str) -> CerberusFileError:
    return CerberusFileError(
        f"{path}:{line}: column {col} ({name}): expected {expected}, got {got!r}",
        path=path,
        line=line,
        column=name,
    )


def _number(text: str) -> float | None:
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


#: Largest magnitude of a number in a workload (seconds, ids, cores): about 31,700 years of
#: seconds; larger values are typos that overflow the integer arrays.
MAX_VALUE = 1e12


def read_cerberus_workload(
    path: str | os.PathLike[str], *, max_cores: int | None = None
) -> CerberusWorkload:
    """Read a Cerberus workload CSV (module docstring); ``max_cores``: the machine's cores."""
    source = os.fspath(path)
    try:
        fh = open_text(path)
    except InputFileError as exc:
        raise CerberusFileError(f"{source}: cannot read the workload ({exc})", path=source) from exc
    with fh:
        try:
            rows = list(csv.reader(fh))
        except (csv.Error, UnicodeDecodeError) as exc:
            raise CerberusFileError(
                f"{source}: not a readable CSV file ({exc})", path=source
            ) from exc
    if not rows:
        raise CerberusFileError(
            f"{source}:1: expected a header line ({', '.join(COLUMNS)}), got an empty file",
            path=source,
            line=1,
        )
    header = [h.strip() for h in rows[0]]
    for name in COLUMNS:
        if name not in header:
            raise CerberusFileError(
                f"{source}:1: column {name!r} is missing; expected the columns {', '.join(COLUMNS)}",
                path=source,
                line=1,
                column=name,
            )
    for k, name in enumerate(header, start=1):
        if name not in COLUMNS:
            raise CerberusFileError(
                f"{source}:1: column {k} ({name!r}): unknown; expected only {', '.join(COLUMNS)}",
                path=source,
                line=1,
                column=name,
            )
        if header.count(name) > 1:
            raise CerberusFileError(
                f"{source}:1: column {k} ({name!r}) appears twice", path=source, line=1, column=name
            )
    pos = {name: header.index(name) for name in COLUMNS}
    cols: dict[str, list[float]] = {name: [] for name in COLUMNS}
    previous_id: int | None = None
    for line, row in enumerate(rows[1:], start=2):
        if not row or all(not cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise CerberusFileError(
                f"{source}:{line}: expected {len(header)} comma-separated fields (the header's), "
                f"got {len(row)}",
                path=source,
                line=line,
            )
        for name in COLUMNS:
            k = pos[name]
            text = row[k].strip()
            col = k + 1
            if name.startswith("data_"):
                if not text:
                    cols[name].append(math.nan)
                    continue
                v = _number(text)
                if v is None or v < 0:
                    raise _fail(source, line, col, name, "empty or a number >= 0", text)
                cols[name].append(v)
                continue
            v = _number(text)
            if v is not None and abs(v) > MAX_VALUE:
                raise _fail(
                    source, line, col, name, f"a number of magnitude <= {MAX_VALUE:g}", text
                )
            if name == "job_id":
                if v is None or v != int(v):
                    raise _fail(source, line, col, name, "an integer job id", text)
                if previous_id is not None and int(v) <= previous_id:
                    raise _fail(
                        source,
                        line,
                        col,
                        name,
                        f"job ids increasing (greater than {previous_id} on the line before)",
                        text,
                    )
                previous_id = int(v)
            elif name == "cores_requested":
                if v is None or v != int(v) or v < 1:
                    raise _fail(source, line, col, name, "an integer >= 1", text)
                if max_cores is not None and v > max_cores:
                    raise _fail(
                        source, line, col, name, f"at most the machine's {max_cores} cores", text
                    )
            elif name == "requested_s":
                if v is None or v <= 0:
                    raise _fail(source, line, col, name, "a number of seconds > 0", text)
            elif v is None or v < 0:
                raise _fail(source, line, col, name, "a finite number >= 0", text)
            assert v is not None  # checked above
            cols[name].append(float(v))
        run_tb, max_tb = cols["data_run_tb"][-1], cols["data_max_tb"][-1]
        if max_tb < run_tb:  # False when either is empty (NaN)
            raise _fail(
                source,
                line,
                pos["data_max_tb"] + 1,
                "data_max_tb",
                f"at least data_run_tb ({_cell(run_tb)} TB): the most the job holds",
                _cell(max_tb),
            )
    return CerberusWorkload(
        job_id=np.asarray(cols["job_id"], dtype=np.int64),
        submit=cols["submit_s"],
        cores=np.asarray(cols["cores_requested"], dtype=np.int64),
        runtime=cols["runtime_s"],
        requested=cols["requested_s"],
        in_gb=cols["data_in_gb"],
        run_tb=cols["data_run_tb"],
        out_tb=cols["data_out_tb"],
        max_tb=cols["data_max_tb"],
        source=source,
    )


def _cell(v: float) -> str:
    if math.isnan(v):
        return ""
    if v == int(v) and abs(v) < 2**53:
        return str(int(v))
    return repr(float(v))


def write_cerberus_workload(workload: CerberusWorkload, path: str | os.PathLike[str]) -> Path:
    """Write ``workload`` in the CSV format above (integers without a decimal point where
    integral for the data columns; empty cells for NaN). Reading it back gives the same jobs."""
    p = Path(path)
    with open_output(p, newline="") as fh:
        out = csv.writer(fh, lineterminator="\n")
        out.writerow(COLUMNS)
        for i in range(len(workload)):
            out.writerow(
                [
                    int(workload.job_id[i]),
                    repr(float(workload.submit[i])),
                    int(workload.cores[i]),
                    repr(float(workload.runtime[i])),
                    repr(float(workload.requested[i])),
                    _cell(workload.in_gb[i]),
                    _cell(workload.run_tb[i]),
                    _cell(workload.out_tb[i]),
                    _cell(workload.max_tb[i]),
                ]
            )
    return p


# ------------------------------------------------------------------------------ generator
def generate_cerberus_workload(
    base: Workload | CerberusWorkload,
    *,
    seed: int,
    first_job: int | None = None,
    jobs: int | None = None,
    cores_per_node: int = 1,
    arrival_mean: float = 1.0,
) -> CerberusWorkload:
    """A Cerberus workload over a window of ``base``'s jobs (module docstring).

    The window is the jobs numbered ``first_job`` .. ``first_job + jobs - 1`` when ``first_job``
    is given (model note §2: 1..1185 of Intrepid), else the first ``jobs`` jobs (all by default).
    ``cores`` = the base's job size (SWF: requested processors, else allocated) ×
    ``cores_per_node``; runtime and requested time are the base's.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise CerberusWorkloadError(f"cerberus generator: seed: expected an integer, got {seed!r}")
    if not (isinstance(arrival_mean, (int, float)) and arrival_mean > 0):
        raise CerberusWorkloadError(
            f"cerberus generator: arrival_mean: expected a number > 0, got {arrival_mean!r}"
        )
    if (
        isinstance(cores_per_node, bool)
        or not isinstance(cores_per_node, int)
        or cores_per_node < 1
    ):
        raise CerberusWorkloadError(
            f"cerberus generator: cores_per_node: expected an integer >= 1, got {cores_per_node!r}"
        )
    if isinstance(base, CerberusWorkload):
        ids, cores = base.job_id, base.cores * cores_per_node
        runtime, requested = base.runtime, base.requested
    else:
        ids, cores = base.job_id, base.nodes * cores_per_node
        runtime, requested = base.runtime, base.requested_time
    rows = np.arange(ids.size)
    if first_job is not None:
        count = jobs if jobs is not None else PUBLISHED_JOBS
        rows = np.flatnonzero((ids >= first_job) & (ids < first_job + count))
        if rows.size != count:
            raise CerberusWorkloadError(
                f"cerberus generator: the base {getattr(base, 'source', '') or '<memory>'} holds "
                f"{rows.size} of the {count} jobs numbered {first_job}..{first_job + count - 1}"
            )
    elif jobs is not None:
        if not 1 <= jobs <= ids.size:
            raise CerberusWorkloadError(
                f"cerberus generator: jobs: expected 1..{ids.size} (the base's jobs), got {jobs!r}"
            )
        rows = rows[:jobs]
    n = rows.size
    rng = np.random.default_rng(int(seed))
    submit = np.cumsum(rng.poisson(arrival_mean, size=n)).astype(np.float64)
    in_gb = rng.integers(*IN_GB_RANGE, size=n).astype(np.float64)
    run_tb = rng.integers(*RUN_TB_RANGE, size=n).astype(np.float64)
    out_tb = rng.integers(*OUT_TB_RANGE, size=n).astype(np.float64)
    req = np.asarray(requested, dtype=np.float64)[rows]
    rt = np.asarray(runtime, dtype=np.float64)[rows]
    req = np.where(req > 0, req, np.maximum(rt, 1.0))  # a requested time must divide
    return CerberusWorkload(
        job_id=ids[rows],
        submit=submit,
        cores=np.asarray(cores, dtype=np.int64)[rows],
        runtime=rt,
        requested=req,
        in_gb=in_gb,
        run_tb=run_tb,
        out_tb=out_tb,
        max_tb=np.maximum(run_tb, out_tb),
        source=f"generated(seed={int(seed)}, base={getattr(base, 'source', '') or '<memory>'})",
        notes={"seed": int(seed), "arrival_mean": float(arrival_mean)},
    )


# ------------------------------------------------------------------------------ specs
#: Cores per node and nodes of the Lublin base that make the 300,000-core machine.
DEFAULT_CORES_PER_NODE = 256
DEFAULT_NODES = 300_000 // DEFAULT_CORES_PER_NODE

_SPEC_KEYS = {
    "jobs": int,
    "seed": int,
    "nodes": int,
    "cores_per_node": int,
    "arrival_mean": float,
    "swf": str,
    "csv": str,
    "first": int,
}


def _spec_keys(spec: str) -> dict[str, Any]:
    body = spec.partition(":")[2]
    out: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in body.split(","))):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in _SPEC_KEYS:
            raise CerberusWorkloadError(
                f"cerberus workload {spec!r}: {part!r}: expected key=value with a key among "
                f"{', '.join(_SPEC_KEYS)}"
            )
        kind = _SPEC_KEYS[key]
        try:
            out[key] = value.strip() if kind is str else kind(value.strip())
        except ValueError as exc:
            raise CerberusWorkloadError(
                f"cerberus workload {spec!r}: {key}: expected {'an integer' if kind is int else 'a number'}, "
                f"got {value.strip()!r}"
            ) from exc
    if "seed" not in out:
        raise CerberusWorkloadError(f"cerberus workload {spec!r}: missing key 'seed'")
    if "swf" in out and "csv" in out:
        raise CerberusWorkloadError(f"cerberus workload {spec!r}: give swf= or csv=, not both")
    if "swf" not in out and "csv" not in out and "jobs" not in out:
        raise CerberusWorkloadError(
            f"cerberus workload {spec!r}: missing key 'jobs' (number of Lublin jobs to generate)"
        )
    return out


def _is_csv(spec: str) -> bool:
    return spec.lower().endswith((".csv", ".csv.gz"))


def _dataset_csv(spec: str) -> bool:
    """Whether ``spec`` is a dataset reference to a Cerberus CSV (``cerberus/maxt_cerberus``)."""
    if not datasets.is_ref(spec) or Path(spec).exists():
        return False
    try:
        _ds, f = datasets.resolve(spec)
    except SchedbenchError:
        return False
    return f is not None and f.format == "cerberus-csv"


def is_cerberus_spec(spec: str) -> bool:
    """Whether ``spec`` names a Cerberus workload (a ``.csv`` file, a Cerberus dataset file or
    ``cerberus:...``)."""
    return spec.startswith("cerberus:") or _is_csv(spec) or _dataset_csv(spec)


def check_cerberus_spec(spec: str, *, base_dir: Path | None = None) -> None:
    """Raise ``CerberusWorkloadError`` for a spec :func:`load_cerberus_workload` would refuse for
    its form (unknown key, wrong value, missing file) without reading or generating anything."""
    if spec.startswith("cerberus:"):
        keys = _spec_keys(spec)
        for k in ("swf", "csv"):
            if k in keys and not _resolve(keys[k], base_dir).is_file():
                raise CerberusWorkloadError(f"cerberus workload {spec!r}: {k}: no such file")
    elif _is_csv(spec) or _dataset_csv(spec):
        if not _resolve(spec, base_dir).is_file():
            raise CerberusWorkloadError(f"cerberus workload {spec!r}: no such file")
    else:
        raise CerberusWorkloadError(
            f"cerberus workload {spec!r}: expected a .csv workload file, a Cerberus dataset "
            f"(cerberus/RUN) or cerberus:key=value,..."
        )


def absolute_spec(spec: str, base_dir: Path) -> str:
    """``spec`` with its file paths (a ``.csv`` spec, ``swf=`` / ``csv=`` keys) made absolute
    against ``base_dir`` (a suite file's folder)."""
    if spec.startswith("cerberus:"):
        parts = []
        for part in spec.partition(":")[2].split(","):
            key, sep, value = part.partition("=")
            if sep and key.strip() in ("swf", "csv") and not _keep(value.strip(), base_dir):
                value = str((base_dir / value.strip()).resolve())
            parts.append(f"{key}{sep}{value}")
        return "cerberus:" + ",".join(parts)
    if _is_csv(spec) and not _keep(spec, base_dir):
        return str((base_dir / spec).resolve())
    return spec


def _keep(path: str, base_dir: Path) -> bool:
    """A path that stays as written in a suite: absolute, or a dataset reference that is not
    a file next to the suite."""
    if Path(path).is_absolute():
        return True
    return datasets.is_ref(path) and not (base_dir / path).exists()


def _resolve(path: str, base_dir: Path | None) -> Path:
    """A file of a spec: relative to ``base_dir`` (a suite's folder), else a dataset
    reference (a fetched dataset not fetched yet: the error says how to get it)."""
    return datasets.resolve_file(path, base_dir)


def load_cerberus_workload(
    spec: str, *, max_cores: int | None = None, base_dir: Path | None = None
) -> CerberusWorkload:
    """The Cerberus workload a spec names (module docstring)."""
    check_cerberus_spec(spec, base_dir=base_dir)
    if not spec.startswith("cerberus:"):
        path = _resolve(spec, base_dir)
        w = read_cerberus_workload(path, max_cores=max_cores)
        # a dataset keeps its name in outputs, not its path inside the package
        return w if _is_csv(spec) else dataclasses.replace(w, source=spec)
    keys = _spec_keys(spec)
    seed = keys["seed"]
    mean = keys.get("arrival_mean", 1.0)
    if "swf" in keys:
        from schedbench.instances.swf import read_swf

        base: Workload | CerberusWorkload = read_swf(_resolve(keys["swf"], base_dir))
        return generate_cerberus_workload(
            base,
            seed=seed,
            first_job=keys.get("first", PUBLISHED_FIRST_JOB),
            jobs=keys.get("jobs", PUBLISHED_JOBS),
            cores_per_node=keys.get("cores_per_node", 1),
            arrival_mean=mean,
        )
    if "csv" in keys:
        base = read_cerberus_workload(_resolve(keys["csv"], base_dir), max_cores=max_cores)
        return generate_cerberus_workload(
            base,
            seed=seed,
            jobs=keys.get("jobs"),
            cores_per_node=keys.get("cores_per_node", 1),
            arrival_mean=mean,
        )
    from schedbench.instances.lublin import generate_lublin

    jobs = keys["jobs"]
    if jobs < 1:
        raise CerberusWorkloadError(f"cerberus workload {spec!r}: jobs: expected an integer >= 1")
    base = generate_lublin(jobs, nodes=keys.get("nodes", DEFAULT_NODES), seed=seed)
    return generate_cerberus_workload(
        base,
        seed=seed,
        cores_per_node=keys.get("cores_per_node", DEFAULT_CORES_PER_NODE),
        arrival_mean=mean,
    )


def published_workloads(folder: str | os.PathLike[str]) -> dict[str, Path]:
    """Run name -> workload file of the six published runs in ``folder`` (those present)."""
    names: Sequence[str] = (
        "fcfs_cerberus",
        "maxt_cerberus",
        "maxp_cerberus",
        "cerberus_1d",
        "onephase_bb",
        "onephase_io",
    )
    d = Path(folder)
    out: dict[str, Path] = {}
    for n in names:
        for file in (d / f"{n}.workload.csv", d / f"{n}.workload.csv.gz"):
            if file.is_file():
                out[n] = file
                break
    return out
