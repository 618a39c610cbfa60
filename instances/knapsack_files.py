"""Readers for the classic 0-1 knapsack benchmark files, as ``SelectionProblem`` s.

* OR-Library multidimensional knapsack (``mknap1.txt``, Beasley): the number of instances, then
  per instance ``n m opt``, the n profits, the m × n constraint matrix row by row and the m
  capacities, all whitespace separated. Maximise profit · x subject to A x <= b.
  ``mknapcb1.txt`` … ``mknapcb9.txt`` (Chu & Beasley) have the same layout, with ``opt`` = 0
  where the optimum was not known when the file was written (``KnownOptimum.known`` is False).
* OR-Library ``mknap2.txt`` (the SAC-94 collection: PB, HP, PETERSEN, SENTO, WEING, WEISH; 48
  instances) has another layout, read by :func:`read_sac94`: per instance a name (or comment)
  line, then ``m n`` (constraints first), the n profits, the m capacities, the m × n constraint
  matrix row by row, and the optimum. Lines holding anything but numbers (names, ``//`` or ``#``
  comments) are labels, not data. This layout is our reading of two independent public parsers
  of that file (the file itself does not ship with the project); :func:`read_knapsack_collection`
  picks the layout from the first data line (one number: OR-Library ``mknap``; two: SAC-94).
* Zitzler–Thiele (1999) multi-objective knapsack (``knapsack.100.2``): for each knapsack k a
  ``knapsack k:`` block with ``capacity: +C`` and, per item, ``weight: +w`` and ``profit: +p``.
  Objective k is Σ profit_k x (maximised), constraint k is Σ weight_k x <= capacity_k. The
  ``.pareto`` file lists the exact front, one ``f1 f2 ...`` point per line.

Errors name the file and, where there is one, the line and what was expected. Gzip files are read
as well (recognised by their magic bytes). The shipped copies: datasets ``or-mknap1`` and
``zt-100-2`` (``schedbench data``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from schedbench.instances.datasets import read_bytes
from schedbench.simcore.errors import ProblemError
from schedbench.simcore.kinds.selection.problem import SelectionProblem


@dataclass(frozen=True, slots=True)
class KnownOptimum:
    """A benchmark problem with the optimum its source reports."""

    name: str
    problem: SelectionProblem
    optimum: float

    @property
    def known(self) -> bool:
        """False when the file reports 0 (OR-Library's mark for an optimum not known)."""
        return self.optimum != 0


def _text(path: Path) -> str:
    return read_bytes(path).decode("utf-8")


def _tokens(path: Path) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for number, line in enumerate(_text(path).splitlines(), start=1):
        out.extend((tok, number) for tok in line.split())
    return out


class _Cursor:
    """Reads numbers off a file's (token, line) list; running out or a non-number is a
    :class:`ProblemError` naming the line and what was expected."""

    def __init__(self, tokens: list[tuple[str, int]], path: Path):
        self.tokens = tokens
        self.path = path
        self.pos = 0

    def take(self, count: int, what: str) -> list[float]:
        tokens, path = self.tokens, self.path
        if self.pos + count > len(tokens):
            line = tokens[-1][1] if tokens else 1
            raise ProblemError(
                f"line {line}", f"{count} more numbers ({what})", "end of file", source=str(path)
            )
        chunk = tokens[self.pos : self.pos + count]
        self.pos += count
        values = []
        for tok, line in chunk:
            try:
                values.append(float(tok))
            except ValueError as exc:
                raise ProblemError(
                    f"line {line}", f"a number ({what})", tok, source=str(path)
                ) from exc
        return values


def read_mknap(path: str | Path) -> list[KnownOptimum]:
    """Every instance of an OR-Library ``mknap`` file, with its reported optimum."""
    path = Path(path)
    tokens = _tokens(path)
    cursor = _Cursor(tokens, path)
    take = cursor.take

    (count,) = take(1, "the number of instances")
    instances = []
    for index in range(int(count)):
        n, m, opt = take(3, f"instance {index + 1}: n m opt")
        n, m = int(n), int(m)
        profits = take(n, f"instance {index + 1}: {n} profits")
        rows = [take(n, f"instance {index + 1}: constraint row {r + 1}") for r in range(m)]
        capacities = take(m, f"instance {index + 1}: {m} capacities")
        problem = SelectionProblem(
            capacities=capacities,
            demands=np.array(rows).T if n else np.zeros((0, m)),
            objectives=[profits],
            resources=tuple(f"c{r + 1}" for r in range(m)),
            objective_names=("profit",),
        )
        instances.append(KnownOptimum(f"{path.name}#{index + 1}", problem, opt))
    if cursor.pos != len(tokens):
        raise ProblemError(
            f"line {tokens[cursor.pos][1]}",
            "end of file after the last instance",
            tokens[cursor.pos][0],
            source=str(path),
        )
    return instances


def _numeric(line: str) -> list[str] | None:
    """The tokens of a line made only of numbers, or None (a name, a comment, a blank line)."""
    tokens = line.split()
    if not tokens:
        return None
    for tok in tokens:
        try:
            float(tok)
        except ValueError:
            return None
    return tokens


def read_sac94(path: str | Path) -> list[KnownOptimum]:
    """Every instance of an OR-Library ``mknap2.txt`` (SAC-94 layout; module docstring)."""
    path = Path(path)
    label = ""
    tokens: list[tuple[str, int]] = []
    starts: list[tuple[int, str]] = []  # (token index, label) where an instance may start
    for number, line in enumerate(_text(path).splitlines(), start=1):
        numbers = _numeric(line)
        if numbers is None:
            if line.strip():
                label = line.strip().lstrip("/#").strip()
            continue
        if label:
            starts.append((len(tokens), label))
            label = ""
        tokens.extend((tok, number) for tok in numbers)
    labels = dict(starts)
    cursor = _Cursor(tokens, path)
    take = cursor.take
    instances: list[KnownOptimum] = []
    while cursor.pos < len(tokens):
        index = len(instances) + 1
        name = labels.get(cursor.pos, f"#{index}")
        m, n = (int(v) for v in take(2, f"instance {index}: m n"))
        if m < 1 or n < 1:
            raise ProblemError(
                f"line {tokens[cursor.pos - 1][1]}",
                "m >= 1 constraints and n >= 1 items",
                (m, n),
                source=str(path),
            )
        profits = take(n, f"instance {index}: {n} profits")
        capacities = take(m, f"instance {index}: {m} capacities")
        rows = [take(n, f"instance {index}: constraint row {r + 1}") for r in range(m)]
        (opt,) = take(1, f"instance {index}: the optimum")
        problem = SelectionProblem(
            capacities=capacities,
            demands=np.array(rows).T,
            objectives=[profits],
            resources=tuple(f"c{r + 1}" for r in range(m)),
            objective_names=("profit",),
        )
        instances.append(KnownOptimum(f"{path.name}#{index} {name}".strip(), problem, opt))
    return instances


def read_knapsack_collection(path: str | Path) -> list[KnownOptimum]:
    """An OR-Library multidimensional knapsack file in either layout (module docstring)."""
    path = Path(path)
    for line in _text(path).splitlines():
        numbers = _numeric(line)
        if numbers is not None:
            return read_mknap(path) if len(numbers) == 1 else read_sac94(path)
    raise ProblemError("(file)", "at least one line of numbers", None, source=str(path))


_ZT_LINE = re.compile(
    r"^\s*(knapsack|capacity|item|weight|profit)\b\s*(\d*)\s*:\s*([+-]?\d+(?:\.\d+)?)?\s*$"
)


def read_zitzler_thiele(path: str | Path) -> SelectionProblem:
    """A Zitzler–Thiele multi-objective knapsack: objective k = profits of knapsack k."""
    path = Path(path)
    knapsacks: list[dict] = []
    for number, raw in enumerate(_text(path).splitlines(), start=1):
        line = raw.strip()
        if not line or line == "=" or line.startswith("knapsack problem specification"):
            continue
        match = _ZT_LINE.match(line)
        if not match:
            raise ProblemError(
                f"line {number}",
                "'knapsack k:', 'capacity: +C', 'item i:', 'weight: +w' or 'profit: +p'",
                line,
                source=str(path),
            )
        key, _index, value = match.groups()
        if key == "knapsack":
            knapsacks.append({"capacity": None, "weight": [], "profit": []})
            continue
        if not knapsacks:
            raise ProblemError(
                f"line {number}", "a 'knapsack k:' header first", line, source=str(path)
            )
        if key == "item":
            continue
        if value is None:
            raise ProblemError(f"line {number}", f"a number after '{key}:'", line, source=str(path))
        if key == "capacity":
            knapsacks[-1]["capacity"] = float(value)
        else:
            knapsacks[-1][key].append(float(value))
    if not knapsacks:
        raise ProblemError("(file)", "at least one 'knapsack k:' block", None, source=str(path))
    sizes = {len(k["weight"]) for k in knapsacks} | {len(k["profit"]) for k in knapsacks}
    if len(sizes) != 1 or any(k["capacity"] is None for k in knapsacks):
        raise ProblemError(
            "(file)",
            "every knapsack with a capacity and the same number of items",
            sorted(sizes),
            source=str(path),
        )
    return SelectionProblem(
        capacities=[k["capacity"] for k in knapsacks],
        demands=np.array([k["weight"] for k in knapsacks]).T,
        objectives=[k["profit"] for k in knapsacks],
        resources=tuple(f"knapsack{i + 1}" for i in range(len(knapsacks))),
        objective_names=tuple(f"profit{i + 1}" for i in range(len(knapsacks))),
    )


def read_front(path: str | Path) -> np.ndarray:
    """A ``.pareto`` file: one objective vector per line (n × M)."""
    path = Path(path)
    rows = []
    for number, line in enumerate(_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append([float(x) for x in line.split()])
        except ValueError as exc:
            raise ProblemError(
                f"line {number}", "numbers separated by spaces", line.strip(), source=str(path)
            ) from exc
        if len(rows[-1]) != len(rows[0]):
            raise ProblemError(
                f"line {number}",
                f"{len(rows[0])} numbers like line 1",
                len(rows[-1]),
                source=str(path),
            )
    return np.array(rows)
