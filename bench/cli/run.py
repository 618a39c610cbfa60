"""``schedbench run SUITE.toml [--executor local|dask] [--workers N] [--scheduler ADDRESS]
[--store PATH] [--resume | --force] [--plan] [--isolate] ...``: expand and run a suite, store
every cell, print the leaderboards and write an HTML report next to the store.

``SUITE`` is a suite file, or the name of a shipped suite (``quick``, ``window-quality``,
``knapsack-classics``, ``bbsched-repro``: package data of ``schedbench.bench``). The default
store is ``results/<suite>.sqlite``; the report ``results/<suite>-report.html``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from schedbench.bench.cli._common import add_memory_arg, file_name


def add_parser(sub: Any) -> None:
    r = sub.add_parser("run", help="expand and run a benchmark suite (TOML); store every cell")
    r.add_argument(
        "suite",
        help="suite file (e.g. bench/suites/quick.toml) or the name of a shipped suite (quick)",
    )
    r.add_argument(
        "--executor",
        default="local",
        choices=("local", "dask"),
        help="local process pool (default) or Dask distributed",
    )
    r.add_argument(
        "--workers",
        type=int,
        default=1,
        help="parallel workers (default 1: latency measured alone)",
    )
    r.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="an existing Dask scheduler (with --executor dask)",
    )
    r.add_argument(
        "--store",
        type=file_name,
        default=None,
        metavar="PATH",
        help="SQLite results store (default results/<suite>.sqlite)",
    )
    r.add_argument("--resume", action="store_true", help="run only cells not yet stored")
    r.add_argument("--force", action="store_true", help="run every cell again, replacing rows")
    r.add_argument("--plan", action="store_true", help="print the expanded matrix; run nothing")
    r.add_argument(
        "--isolate",
        action="store_true",
        help="every solve in a child process killed at deadline + grace",
    )
    add_memory_arg(r)
    r.add_argument(
        "--only",
        choices=("decision", "simulation"),
        default=None,
        help="run only the decision or only the simulation cells",
    )
    r.add_argument(
        "--html",
        type=file_name,
        default=None,
        metavar="OUT",
        help="HTML report path (default next to the store)",
    )
    r.add_argument("--no-progress", action="store_true")
    r.add_argument(
        "--wide", action="store_true", help="every leaderboard column (default: 100 columns)"
    )
    r.add_argument(
        "--max-cells",
        type=int,
        default=None,
        metavar="N",
        help="refuse suites expanding into more cells than this (default 100,000)",
    )
    r.add_argument(
        "--max-window",
        type=int,
        default=None,
        metavar="W",
        help="refuse instance windows larger than this (default 100,000 jobs)",
    )


#: Most parallel workers ``--workers`` accepts (a typo must not fork thousands of processes).
MAX_WORKERS = 1024


def check_flags(args: argparse.Namespace) -> None:
    """Refuse flags out of range or contradicting each other, before anything runs."""
    from schedbench.simcore.errors import UsageError

    if not 1 <= args.workers <= MAX_WORKERS:
        raise UsageError(
            f"--workers: expected an integer from 1 to {MAX_WORKERS}, got {args.workers}"
        )
    if args.resume and args.force:
        raise UsageError("--resume and --force contradict each other: give one of them")
    if args.scheduler is not None and args.executor != "dask":
        raise UsageError("--scheduler names a Dask scheduler: add --executor dask")
    for flag, value in (("--max-cells", args.max_cells), ("--max-window", args.max_window)):
        if value is not None and value < 1:
            raise UsageError(f"{flag}: expected an integer >= 1, got {value}")


def run(args: argparse.Namespace) -> int:
    from schedbench.bench import api
    from schedbench.bench.run.runner import describe_plan
    from schedbench.bench.suite import Limits, load_suite, resolve_suite

    check_flags(args)
    defaults = Limits()
    limits = Limits(
        max_cells=defaults.max_cells if args.max_cells is None else args.max_cells,
        max_window=defaults.max_window if args.max_window is None else args.max_window,
    )
    suite = load_suite(resolve_suite(args.suite), limits=limits)
    if args.plan:
        print(describe_plan(suite))
        return 0
    store = Path(args.store) if args.store else Path("results") / f"{suite.name}.sqlite"
    summary = api.run_suite(
        suite.source,
        store=store,
        executor=args.executor,
        workers=args.workers,
        scheduler=args.scheduler,
        resume=args.resume,
        force=args.force,
        isolate=args.isolate,
        memory_limit=args.memory_limit,
        only=args.only,
        show_progress=not args.no_progress,
        max_cells=args.max_cells,
        max_window=args.max_window,
    )
    print(
        f"suite {suite.name!r}: {summary.cells_run} cells run"
        + (f", {summary.cells_skipped} already stored" if summary.cells_skipped else "")
        + f", {summary.errors} errors, {summary.wall_s:.1f} s; store {store}"
    )
    for warning in summary.warnings:
        print(warning, file=sys.stderr)
    html = Path(args.html) if args.html else store.with_name(f"{suite.name}-report.html")
    text = api.report(store, suite=suite.name, html=html, wide=args.wide)
    if text:
        print(text)
    return 1 if summary.errors else 0


COMMANDS = {"run": run}
