"""``schedbench compare BASE HEAD --fail METRIC:THRESHOLD ... [--suite NAME] [--markdown]``:
the regression gate (``bench/report/compare.py``); exit 1 on a regression, 2 on bad input."""

from __future__ import annotations

import argparse
from typing import Any


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
    c.add_argument("--suite", default=None)
    c.add_argument("--markdown", action="store_true")


def run(args: argparse.Namespace) -> int:
    from schedbench.bench.report import compare

    return compare.main(args.base, args.head, args.fails, suite=args.suite, markdown=args.markdown)


COMMANDS = {"compare": run}
