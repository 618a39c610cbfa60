"""``schedbench reproduce PAPER [--quick] [--out DIR] ...``: run a paper's experiment
(``bench/reproduce/``: one module per paper, each with its own options)."""

from __future__ import annotations

import argparse
from typing import Any

from schedbench.bench.reproduce import reproductions


def add_parser(sub: Any) -> None:
    r = sub.add_parser(
        "reproduce",
        help="reproduce a paper's experiment: results.csv, figures, agreement with the paper",
    )
    papers = r.add_subparsers(dest="paper", required=True, metavar="PAPER")
    for name, module in reproductions().items():
        p = papers.add_parser(name, help=module.SUMMARY, description=module.__doc__)
        module.add_arguments(p)
        if not any("--no-progress" in a.option_strings for a in p._actions):
            p.add_argument(
                "--no-progress",
                action="store_true",
                help="no progress bar (bars go to stderr, and only when it is a terminal)",
            )


def run(args: argparse.Namespace) -> int:
    code: int = reproductions()[args.paper].run(args)
    return code


COMMANDS = {"reproduce": run}
