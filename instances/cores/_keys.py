"""Checks of spec values that several cores share (``simcore.core.Key.check``)."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from schedbench.simcore.core import SpecError


def choice(key: str, options: tuple[str, ...]) -> Callable[[Any], Any]:
    expected = ", ".join(options[:-1]) + f" or {options[-1]}" if len(options) > 1 else options[0]

    def check(value: Any) -> Any:
        if value not in options:
            raise SpecError(key, expected, value)
        return value

    return check


#: Largest integer a spec key takes unless it says less: counts and seconds beyond it (about
#: 31,700 years) are typos, and overflow the int64 arrays of the simulators.
MAX_INTEGER = 10**12
#: Largest decision window (the suites' --max-window default): a window's problem is built in
#: memory at every pass.
MAX_WINDOW = 100_000


def integer(key: str, low: int, expected: str, high: int = MAX_INTEGER) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise SpecError(key, expected, value)
        if value > high:
            raise SpecError(key, f"{expected} and <= {high:,}", value)
        return value

    return check


def optional_integer(key: str, low: int, expected: str) -> Callable[[Any], Any]:
    inner = integer(key, low, expected)
    return lambda value: None if value is None else inner(value)


def seconds(key: str) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
            or value < 0
        ):
            raise SpecError(key, "a finite number of seconds >= 0", value)
        return float(value)

    return check


def number(key: str, low: float, expected: str) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= low:
            raise SpecError(key, expected, value)
        return float(value)

    return check


def flag(key: str) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if not isinstance(value, bool):
            raise SpecError(key, "true or false", value)
        return value

    return check


def local_file(spec: str, base_dir: Path | None, suffixes: tuple[str, ...]) -> str:
    """``spec`` with a relative file path made absolute against ``base_dir`` (the suite's
    folder), when it names a file there, or a file that is not a dataset reference; anything
    else (a dataset, a generator) unchanged."""
    from schedbench.instances import datasets

    first = spec.split("+")[0]
    if (
        base_dir is not None
        and first.endswith(suffixes)
        and not Path(first).is_absolute()
        and ((base_dir / first).exists() or not datasets.is_ref(first))
    ):
        return str((base_dir / first).resolve()) + spec[len(first) :]
    return spec


def generator_keys(spec: str, keys: dict[str, type], *, jobs: bool = True) -> dict[str, Any]:
    """The ``KEY=VALUE,...`` after ``PREFIX:`` in a generator spec, each checked for its name
    and converted to its type (``keys``), ``jobs`` (when asked for) an integer >= 1; a
    :class:`SpecError` on ``workload`` otherwise."""
    prefix = spec.partition(":")[0]
    out: dict[str, Any] = {}
    for part in filter(None, spec.partition(":")[2].split(",")):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in keys:
            expected = f"{prefix}:KEY=VALUE,... with keys {', '.join(keys)}"
            raise SpecError("workload", expected, spec)
        try:
            out[key] = keys[key](value.strip())
        except ValueError as exc:
            raise SpecError("workload", f"{key}: a {keys[key].__name__}", spec) from exc
    if jobs and out.get("jobs", 0) < 1:
        raise SpecError("workload", f"{prefix}:jobs=N,... with N >= 1", spec)
    return out
