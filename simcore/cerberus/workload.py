"""A Cerberus workload: one row per job, as the published runs consumed it (model note §2).

Columns (numpy, read-only, aligned by row; job ids strictly increasing, rows in id order):

``job_id``           the SWF job number
``submit``           arrival time in seconds from 0 (running sum of Poisson(1) draws upstream)
``cores``            requested processors (SWF field 8) *before* the model raises them to 256
``runtime``          what the job executes for (SWF field 4)
``requested``        the requested time (SWF field 9); only the run-queue value uses it
``in_gb``            stage-in volume in GB (three-phase variants); NaN where not given
``run_tb``           checkpoint volume of the run phase in TB; NaN where not given
``out_tb``           stage-out volume in TB; NaN where not given
``max_tb``           the one size the user gives (one-size variants), d = max(run, out); NaN
                     where not given — it is then derived from ``run_tb`` and ``out_tb``

Readers and generators live in ``instances/cerberus.py``; this type only checks invariants.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from schedbench.simcore.errors import SchedbenchError

_FLOAT = ("submit", "runtime", "requested", "in_gb", "run_tb", "out_tb", "max_tb")
_OPTIONAL = ("in_gb", "run_tb", "out_tb", "max_tb")


class CerberusWorkloadError(SchedbenchError, ValueError):
    """A Cerberus workload that breaks an invariant; the message names the column and job."""


@dataclass(frozen=True, slots=True, eq=False)
class CerberusWorkload:
    """Jobs of a Cerberus run (module docstring); ``source`` names where they came from."""

    if TYPE_CHECKING:  # what the constructor accepts; the attributes below are what it stores

        def __init__(
            self,
            job_id: npt.ArrayLike,
            submit: npt.ArrayLike,
            cores: npt.ArrayLike,
            runtime: npt.ArrayLike,
            requested: npt.ArrayLike,
            in_gb: npt.ArrayLike,
            run_tb: npt.ArrayLike,
            out_tb: npt.ArrayLike,
            max_tb: npt.ArrayLike,
            source: str = "",
            notes: Mapping[str, Any] = ...,
        ) -> None: ...

    job_id: np.ndarray
    submit: np.ndarray
    cores: np.ndarray
    runtime: np.ndarray
    requested: np.ndarray
    in_gb: np.ndarray
    run_tb: np.ndarray
    out_tb: np.ndarray
    max_tb: np.ndarray
    source: str = ""
    notes: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        ids = np.array(self.job_id, dtype=np.int64, copy=True).reshape(-1)
        n = ids.size
        arrays: dict[str, np.ndarray] = {"job_id": ids}
        arrays["cores"] = np.array(self.cores, dtype=np.int64, copy=True).reshape(-1)
        for name in _FLOAT:
            arrays[name] = np.array(getattr(self, name), dtype=np.float64, copy=True).reshape(-1)
        for name, a in arrays.items():
            if a.size != n:
                raise CerberusWorkloadError(
                    f"cerberus workload column {name!r}: expected {n} values (one per job), "
                    f"got {a.size}"
                )
            a.setflags(write=False)
            object.__setattr__(self, name, a)
        object.__setattr__(self, "notes", dict(self.notes))
        self._validate()

    def _first_bad(self, name: str, bad: np.ndarray, expected: str) -> None:
        hits = np.flatnonzero(bad)
        if hits.size:
            i = int(hits[0])
            raise CerberusWorkloadError(
                f"cerberus workload {self.source or '<memory>'}: job {int(self.job_id[i])}: "
                f"{name}: expected {expected}, got {getattr(self, name)[i]!r}"
            )

    def _validate(self) -> None:
        if self.job_id.size > 1:
            self._first_bad(
                "job_id",
                np.concatenate([[False], np.diff(self.job_id) <= 0]),
                "job ids strictly increasing",
            )
        self._first_bad("cores", self.cores < 1, "at least 1 core")
        for name in ("submit", "runtime"):
            col = getattr(self, name)
            self._first_bad(name, ~(np.isfinite(col) & (col >= 0)), "a finite number >= 0")
        self._first_bad(
            "requested",
            ~(np.isfinite(self.requested) & (self.requested > 0)),
            "a finite number > 0 (it divides the run-queue value)",
        )
        for name in _OPTIONAL:
            col = getattr(self, name)
            self._first_bad(
                name, ~(np.isnan(col) | (np.isfinite(col) & (col >= 0))), "empty or a number >= 0"
            )

    def __len__(self) -> int:
        return int(self.job_id.size)

    @property
    def has_triple(self) -> bool:
        """Every job has its three volumes (needed by the three-phase data variants)."""
        return not any(np.isnan(getattr(self, c)).any() for c in ("in_gb", "run_tb", "out_tb"))

    def one_size_tb(self) -> np.ndarray:
        """d per job (model note §5): ``max_tb`` where given, else max(run, out) — NaN where
        neither is given."""
        derived = np.fmax(self.run_tb, self.out_tb)
        derived[np.isnan(self.run_tb) | np.isnan(self.out_tb)] = np.nan
        return np.where(np.isnan(self.max_tb), derived, self.max_tb)

    def take(self, rows: Any) -> CerberusWorkload:
        """The jobs at ``rows`` (a slice or index array, kept in id order)."""
        return CerberusWorkload(
            **{name: getattr(self, name)[rows] for name in ("job_id", "cores", *_FLOAT)},
            source=self.source,
            notes=self.notes,
        )

    def summary(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "jobs": len(self),
            "first_submit_s": float(self.submit.min()) if len(self) else None,
            "last_submit_s": float(self.submit.max()) if len(self) else None,
            "max_cores": int(self.cores.max()) if len(self) else None,
            **dict(self.notes),
        }
