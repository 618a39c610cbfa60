"""The results store (``sqlite.py``), its typed records (``records.py``) and the provenance
written with every run (``provenance.py``)."""

from schedbench.bench.store.provenance import cpu_model, provenance
from schedbench.bench.store.records import CellRecord, row_failed
from schedbench.bench.store.sqlite import (
    APPLICATION_ID,
    CELL_KEYS,
    KINDS,
    REQUIRED_KEYS,
    SCHEMA_VERSION,
    ConcurrentRunError,
    DuplicateCellError,
    ResultStore,
    StoreError,
)

__all__ = [
    "APPLICATION_ID",
    "CELL_KEYS",
    "KINDS",
    "REQUIRED_KEYS",
    "SCHEMA_VERSION",
    "CellRecord",
    "ConcurrentRunError",
    "DuplicateCellError",
    "ResultStore",
    "StoreError",
    "cpu_model",
    "provenance",
    "row_failed",
]
