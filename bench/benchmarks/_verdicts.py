"""The ledger of the performance targets' verdicts: every benchmark script that checks a target
records its row here (target, what it measured, the anchor measured beside it, met or not, and the
command, date and load of the run), and ``perf_table.py`` regenerates the performance
table from the ledger, so the table is always what ``make bench`` printed
(docs/design.md#measuring-speed-honestly).

The ledger is one JSON file, ``figures/verdicts.json`` beside the pictures (or the path in
``$SCHEDBENCH_VERDICTS``), keyed by target row (``"1.3"``: performance target 1, third row). A run
replaces the rows it measured and keeps the others, so ``make bench`` run script by script, or
one script rerun alone, leaves a table whose every row names the run it came from; a
``--quick`` run fills only rows no full run has recorded (its smaller instances would otherwise
stand in the table for the full figures). Writes go
to a temporary file renamed over the ledger, so a crash mid-write keeps the previous ledger; an
unreadable ledger is moved aside (``verdicts.json.bad``) with a warning, never lost, and the
measured rows still print.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
LEDGER_ENV = "SCHEDBENCH_VERDICTS"
FORMAT = 1


class LedgerError(ValueError):
    """The ledger cannot be read: the message names the file and the key."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """One row of the performance table."""

    key: str  #: "<target>.<row>", e.g. "1.3"; the table is sorted by it
    target: str  #: the target as stated
    measured: str  #: the figure (median, worst case)
    anchor: str  #: what it is compared with, measured in the same run, and the ratio
    met: str  #: "yes", "no", or a qualified answer ("median yes; worst no")
    command: str  #: the command that measured it
    when: str  #: UTC date and time of the run
    load: str  #: the load average when the row was recorded

    def __post_init__(self) -> None:
        if not _sort_key(self.key):
            raise ValueError(f"verdict key {self.key!r}: expected '<target>.<row>', e.g. '1.3'")


def ledger_path() -> Path:
    return Path(os.environ.get(LEDGER_ENV) or HERE / "figures" / "verdicts.json")


def _sort_key(key: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in key.split("."))
    except ValueError:
        return ()


def _command() -> str:
    script = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "?"
    return " ".join(["python", f"bench/benchmarks/{script}", *sys.argv[1:]])


def _load_line() -> str:
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return "load unknown"
    return f"load {one:.1f} (1 min), {five:.1f} (5 min) on {os.cpu_count()} cpus"


def load(path: Path | None = None) -> dict[str, Verdict]:
    """The ledger's rows by key; an absent ledger is empty. Raises LedgerError naming the file
    and the key (or the JSON position) on anything else than the expected layout."""
    path = path or ledger_path()
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise LedgerError(f"{path}: not JSON (line {exc.lineno}, column {exc.colno})") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise LedgerError(f'{path}: expected an object with "format": {FORMAT}')
    rows = data.get("verdicts")
    if not isinstance(rows, dict):
        raise LedgerError(f'{path}: key "verdicts": expected an object of rows by key')
    names = {f.name for f in fields(Verdict)}
    out: dict[str, Verdict] = {}
    for key, row in rows.items():
        if not isinstance(row, dict) or set(row) != names:
            raise LedgerError(
                f"{path}: verdicts[{key!r}]: expected the fields {', '.join(sorted(names))}"
            )
        bad = [name for name, value in row.items() if not isinstance(value, str)]
        if bad:
            raise LedgerError(f"{path}: verdicts[{key!r}].{bad[0]}: expected a string")
        try:
            out[key] = Verdict(**row)
        except ValueError as exc:
            raise LedgerError(f"{path}: verdicts[{key!r}]: {exc}") from exc
        if out[key].key != key:
            raise LedgerError(f"{path}: verdicts[{key!r}].key is {out[key].key!r}")
    return out


def _write(path: Path, rows: Mapping[str, Verdict]) -> None:
    ordered = {k: asdict(rows[k]) for k in sorted(rows, key=_sort_key)}
    text = json.dumps({"format": FORMAT, "verdicts": ordered}, indent=1, ensure_ascii=False)
    tmp = path.with_name(path.name + ".tmp")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp.write_text(text + "\n", encoding="utf-8")
    os.replace(tmp, path)


def record(
    key: str,
    target: str,
    measured: str,
    anchor: str,
    met: bool | str,
    *,
    path: Path | None = None,
) -> Verdict:
    """Put one row into the ledger (replacing the row of the same key) and return it."""
    verdict = Verdict(
        key=key,
        target=target,
        measured=measured,
        anchor=anchor,
        met=("yes" if met else "no") if isinstance(met, bool) else met,
        command=_command(),
        when=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        load=_load_line(),
    )
    path = path or ledger_path()
    try:
        rows = load(path)
    except LedgerError as exc:
        aside = path.with_name(path.name + ".bad")
        os.replace(path, aside)
        print(f"warning: {exc}; moved it to {aside}, starting a new ledger", file=sys.stderr)
        rows = {}
    kept = rows.get(key)
    if kept is not None and _quick(verdict.command) and not _quick(kept.command):
        print(
            f"verdict {key}: kept the row of `{kept.command}` ({kept.when}); a --quick run does "
            "not replace a full run's row",
            file=sys.stderr,
        )
        return verdict
    rows[key] = verdict
    _write(path, rows)
    return verdict


def _quick(command: str) -> bool:
    return "--quick" in command.split()


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render(rows: Mapping[str, Verdict]) -> str:
    """The Markdown performance table, one row per verdict in key order; each group of a target
    ends with the commands and runs its rows came from."""
    lines = [
        "| target | measured | anchor (same run) | met? |",
        "|---|---|---|---|",
    ]
    by_target: dict[int, list[Verdict]] = {}
    for key in sorted(rows, key=_sort_key):
        by_target.setdefault(_sort_key(key)[0], []).append(rows[key])
    for group in by_target.values():
        for v in group:
            lines.append(
                f"| {_cell(v.target)} | {_cell(v.measured)} | {_cell(v.anchor)} | {_cell(v.met)} |"
            )
        runs: dict[str, tuple[str, str]] = {}
        for v in group:  # a run's rows differ in the minute and load of each row: the first's
            first = runs.setdefault(v.command, (v.when, v.load))
            runs[v.command] = min(first, (v.when, v.load))
        source = "; ".join(f"`{c}` (from {w}, {ld})" for c, (w, ld) in sorted(runs.items()))
        lines.append(f"| *from* {_cell(source)} | | | |")
    return "\n".join(lines)
