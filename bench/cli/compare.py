"""``schedbench compare BASE HEAD --fail METRIC:THRESHOLD ... [--suite NAME] [--markdown]
[--latency-noise-pct P] [--latency-noise-ms MS]``: the regression gate
(``bench/report/compare.py``); exit 1 on a regression, 2 on bad input."""

from __future__ import annotations

import argparse
from typing import Any

from schedbench.bench.report.compare import NOISE_MS, NOISE_PCT


def add_parser(sub: Any) -> None:
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
    c.add_argument("--suite", default=None, help="compare this suite only")
    c.add_argument("--markdown", action="store_true", help="print the report as Markdown")
    c.add_argument(
        "--latency-noise-pct",
        type=float,
        default=NOISE_PCT,
        metavar="P",
        help="noise floor of the wall-time metrics (latencies, solver time): a change counts only "
        f"when it exceeds P %% of BASE and --latency-noise-ms (default {NOISE_PCT:g})",
    )
    c.add_argument(
        "--latency-noise-ms",
        type=float,
        default=NOISE_MS,
        metavar="MS",
        help=f"the absolute part of that floor, in milliseconds (default {NOISE_MS:g}; "
        "both 0: no floor)",
    )


def run(args: argparse.Namespace) -> int:
    from schedbench.bench.report import compare

    return compare.main(
        args.base,
        args.head,
        args.fails,
        suite=args.suite,
        markdown=args.markdown,
        noise_pct=args.latency_noise_pct,
        noise_ms=args.latency_noise_ms,
    )


COMMANDS = {"compare": run}
