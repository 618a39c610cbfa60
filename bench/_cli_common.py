"""Command-line options shared by several ``schedbench`` sub-commands."""

from __future__ import annotations

import argparse


def add_budget_args(p: argparse.ArgumentParser) -> None:
    """``--budget S`` (decision deadline) and ``--seed N`` (for randomised solvers)."""
    p.add_argument(
        "--budget",
        type=float,
        default=15.0,
        metavar="S",
        help="decision deadline in seconds (default 15, at most 30)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed for randomised solvers (default 0)")
