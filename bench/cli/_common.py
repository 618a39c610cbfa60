"""Command-line options shared by several ``schedbench`` sub-commands."""

from __future__ import annotations

import argparse

from schedbench.simcore.problem import DEFAULT_DEADLINE_S, MAX_DEADLINE_S


def add_budget_args(p: argparse.ArgumentParser) -> None:
    """``--budget S`` (decision deadline) and ``--seed N`` (for randomised solvers)."""
    p.add_argument(
        "--budget",
        type=float,
        default=DEFAULT_DEADLINE_S,
        metavar="S",
        help=f"decision deadline in seconds (default {DEFAULT_DEADLINE_S:g}, "
        f"at most {MAX_DEADLINE_S:g})",
    )
    p.add_argument("--seed", type=int, default=0, help="seed for randomised solvers (default 0)")


def add_set_args(p: argparse.ArgumentParser, what: str = "solver") -> None:
    """``--set KEY=VALUE`` (repeatable) into ``args.params``."""
    p.add_argument(
        "--set",
        dest="params",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"{what} parameter (repeatable)",
    )
