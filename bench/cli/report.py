"""``schedbench report STORE [--suite NAME] [--html OUT] [--markdown] [--export-csv OUT]
[--export-parquet OUT]``: the leaderboards of a results store, the failed cells with their
reasons, and optionally an HTML report and exports."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from schedbench.bench import api
from schedbench.bench.cli._common import file_name


def add_parser(sub: Any) -> None:
    p = sub.add_parser("report", help="leaderboards and an HTML report from a results store")
    p.add_argument("store", type=file_name, help="results store (.sqlite)")
    p.add_argument("--suite", default=None, help="only this suite")
    p.add_argument(
        "--html",
        type=file_name,
        default=None,
        metavar="OUT",
        help="write an HTML report with plots",
    )
    p.add_argument("--markdown", action="store_true", help="print Markdown instead of plain text")
    p.add_argument(
        "--wide", action="store_true", help="every column (default: what fits 100 columns)"
    )
    p.add_argument(
        "--all-latency",
        action="store_true",
        help="use latency rows measured concurrently too (default: alone only)",
    )
    p.add_argument(
        "--export-csv", type=file_name, default=None, metavar="OUT", help="export the rows to CSV"
    )
    p.add_argument(
        "--export-parquet",
        default=None,
        metavar="OUT",
        help="export the rows to Parquet (needs pyarrow)",
    )


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
    text = api.report(
        store,
        suite=args.suite,
        html=Path(args.html) if args.html else None,
        markdown=args.markdown,
        wide=args.wide,
        all_latency=args.all_latency,
    )
    if text:
        print(text)
    return 0


COMMANDS = {"report": run}
