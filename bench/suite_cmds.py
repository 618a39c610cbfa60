"""``schedbench run``, ``schedbench report`` and ``schedbench compare`` (DESIGN.md contract).

    schedbench run SUITE.toml [--executor local|dask] [--workers N] [--scheduler ADDRESS]
                   [--store PATH] [--resume] [--force] [--plan] [--isolate] [--html OUT]
    schedbench report STORE [--suite NAME] [--html OUT] [--markdown] [--all-latency]
    schedbench compare BASE HEAD --fail METRIC:THRESHOLD ... [--suite NAME] [--markdown]

The default store is ``results/<suite>.sqlite``; ``run`` ends with the leaderboard and writes
an HTML report next to the store (``results/<suite>-report.html``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_parsers(sub: Any) -> None:
    r = sub.add_parser("run", help="expand and run a benchmark suite (TOML); store every cell")
    r.add_argument("suite", help="suite file, e.g. bench/suites/quick.toml")
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
    r.add_argument(
        "--only",
        choices=("decision", "simulation"),
        default=None,
        help="run only the decision or only the simulation cells",
    )
    r.add_argument(
        "--html", default=None, metavar="OUT", help="HTML report path (default next to the store)"
    )
    r.add_argument("--no-progress", action="store_true")
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

    p = sub.add_parser("report", help="leaderboards and an HTML report from a results store")
    p.add_argument("store", help="results store (.sqlite)")
    p.add_argument("--suite", default=None, help="only this suite")
    p.add_argument("--html", default=None, metavar="OUT", help="write an HTML report with plots")
    p.add_argument("--markdown", action="store_true", help="print Markdown instead of plain text")
    p.add_argument(
        "--all-latency",
        action="store_true",
        help="use latency rows measured concurrently too (default: alone only)",
    )
    p.add_argument("--export-csv", default=None, metavar="OUT", help="export the rows to CSV")
    p.add_argument(
        "--export-parquet",
        default=None,
        metavar="OUT",
        help="export the rows to Parquet (needs pyarrow)",
    )

    c = sub.add_parser("compare", help="compare two stores; non-zero exit on regression")
    c.add_argument("base", help="baseline store")
    c.add_argument("head", help="store to check")
    c.add_argument(
        "--fail",
        dest="fails",
        action="append",
        default=[],
        metavar="METRIC:THRESHOLD",
        help="fail when METRIC worsens by more than THRESHOLD (5%%, 0.01, 0); repeatable",
    )
    c.add_argument("--suite", default=None)
    c.add_argument("--markdown", action="store_true")


def cmd_run(args: argparse.Namespace) -> int:
    from schedbench.bench.runner import describe_plan, run_suite
    from schedbench.bench.suite import Limits, load_suite

    defaults = Limits()
    limits = Limits(
        max_cells=args.max_cells or defaults.max_cells,
        max_window=args.max_window or defaults.max_window,
    )
    suite = load_suite(args.suite, limits=limits)
    if args.plan:
        print(describe_plan(suite))
        return 0
    store = Path(args.store) if args.store else Path("results") / f"{suite.name}.sqlite"
    summary = run_suite(
        suite,
        store_path=store,
        executor=args.executor,
        workers=args.workers,
        scheduler=args.scheduler,
        resume=args.resume,
        force=args.force,
        isolate=args.isolate,
        show_progress=not args.no_progress,
        only_kind=args.only,
    )
    print(
        f"suite {suite.name!r}: {summary.cells_run} cells run"
        + (f", {summary.cells_skipped} already stored" if summary.cells_skipped else "")
        + f", {summary.errors} errors, {summary.wall_s:.1f} s; store {store}"
    )
    html = Path(args.html) if args.html else store.with_name(f"{suite.name}-report.html")
    _print_report(store, suite.name, markdown=False, all_latency=False, html=html)
    return 1 if summary.errors else 0


def _print_report(
    store: Path, suite: str | None, *, markdown: bool, all_latency: bool, html: Path | None
) -> None:
    from schedbench.bench import report
    from schedbench.bench.store import ResultStore, StoreError

    with ResultStore(store, readonly=True) as st:
        if suite is not None and suite not in st.suites():
            known = ", ".join(st.suites()) or "none"
            raise StoreError(f"{store}: no suite {suite!r} in this store (suites: {known})")
        rows = st.rows(suite)
    fmt = "github" if markdown else "simple"
    dec = report.decision_leaderboard(rows, alone_only=not all_latency)
    if dec:
        print("\nDecision quality and latency (per solver):")
        print(report.format_table(dec, fmt=fmt))
    sim = report.simulation_leaderboard(rows)
    if sim:
        print("\nSimulations (per scenario and policy):")
        print(report.format_table(sim, fmt=fmt))
    failures = report.failed_cells(rows)
    if failures:
        print(f"\nFailed cells ({len(failures)}):")
        print(report.format_table(failures[:20], fmt=fmt))
        if len(failures) > 20:
            print(f"... and {len(failures) - 20} more (all of them in the HTML report)")
    if html is not None:
        out = report.html_report(rows, html, title=f"schedbench: {suite or store.name}")
        print(f"\nHTML report: {out}")


def cmd_report(args: argparse.Namespace) -> int:
    from schedbench.bench.store import ResultStore, StoreError

    store = Path(args.store)
    if not store.exists():
        raise StoreError(f"{store}: no such results store")
    with ResultStore(store, readonly=True) as st:
        if args.suite is not None and args.suite not in st.suites():
            known = ", ".join(st.suites()) or "none"
            raise StoreError(f"{store}: no suite {args.suite!r} in this store (suites: {known})")
    if args.export_csv or args.export_parquet:
        with ResultStore(store, readonly=True) as st:
            if args.export_csv:
                n = st.export_csv(args.export_csv, args.suite)
                print(f"{n} rows written to {args.export_csv}")
            if args.export_parquet:
                n = st.export_parquet(args.export_parquet, args.suite)
                print(f"{n} rows written to {args.export_parquet}")
    _print_report(
        store,
        args.suite,
        markdown=args.markdown,
        all_latency=args.all_latency,
        html=Path(args.html) if args.html else None,
    )
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from schedbench.bench import compare

    return compare.main(args.base, args.head, args.fails, suite=args.suite, markdown=args.markdown)


COMMANDS = {"run": cmd_run, "report": cmd_report, "compare": cmd_compare}
