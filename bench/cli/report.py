"""``schedbench report STORE [--suite NAME] [--html OUT] [--markdown] [--export-csv OUT]
[--export-parquet OUT]``: the leaderboards of a results store, the failed cells with their
reasons, and optionally an HTML report and exports."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_parser(sub: Any) -> None:
    p = sub.add_parser("report", help="leaderboards and an HTML report from a results store")
    p.add_argument("store", help="results store (.sqlite)")
    p.add_argument("--suite", default=None, help="only this suite")
    p.add_argument("--html", default=None, metavar="OUT", help="write an HTML report with plots")
    p.add_argument("--markdown", action="store_true", help="print Markdown instead of plain text")
    p.add_argument(
        "--wide", action="store_true", help="every column (default: what fits 100 columns)"
    )
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


def print_report(
    store: Path,
    suite: str | None,
    *,
    markdown: bool,
    all_latency: bool,
    html: Path | None,
    wide: bool = False,
) -> None:
    """The leaderboards (compact, at most 100 columns with a legend; every column with
    ``wide`` or ``markdown``), the failed cells with their reasons, and the HTML report."""
    from schedbench.bench import report
    from schedbench.bench.report.html import html_report
    from schedbench.bench.report.terminal import (
        decision_table,
        failed_table,
        simulation_table,
    )
    from schedbench.bench.store import ResultStore, StoreError

    with ResultStore(store, readonly=True) as st:
        if suite is not None and suite not in st.suites():
            known = ", ".join(st.suites()) or "none"
            raise StoreError(f"{store}: no suite {suite!r} in this store (suites: {known})")
        rows = st.rows(suite)
        commits = sorted(
            {
                str((run.get("provenance") or {}).get("git", {}).get("commit", ""))[:12]
                + (
                    "+dirty"
                    if ((run.get("provenance") or {}).get("git") or {}).get("dirty")
                    else ""
                )
                for run in st.runs(suite)
                if (run.get("provenance") or {}).get("git")
            }
        )
    fmt = "github" if markdown else "simple"
    full = wide or markdown
    dec = report.decision_leaderboard(rows, alone_only=not all_latency)
    if dec:
        print("\nDecision quality and latency (per solver):")
        print(report.format_table(dec, fmt=fmt) if full else decision_table(dec))
    sim = report.simulation_leaderboard(rows)
    if sim:
        print("\nSimulations (per scenario and policy):")
        print(report.format_table(sim, fmt=fmt) if full else simulation_table(sim))
    failures = report.failed_cells(rows, width=None if not full else 100)
    if failures:
        print(f"\nFailed cells ({len(failures)}):")
        print(report.format_table(failures[:20], fmt=fmt) if full else failed_table(failures[:20]))
        if len(failures) > 20:
            print(f"... and {len(failures) - 20} more (all of them in the HTML report)")
    if html is not None:
        suites = sorted({str(r.get("suite")) for r in rows})
        source = f"suite {', '.join(suites)} | commit {', '.join(commits) or 'unknown'}"
        out = html_report(
            rows,
            html,
            title=f"schedbench: {suite or store.name}",
            runs_root=store.parent,
            source=source,
        )
        print(f"\nHTML report: {out}")


def run(args: argparse.Namespace) -> int:
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
    print_report(
        store,
        args.suite,
        markdown=args.markdown,
        all_latency=args.all_latency,
        html=Path(args.html) if args.html else None,
        wide=args.wide,
    )
    return 0


COMMANDS = {"report": run}
