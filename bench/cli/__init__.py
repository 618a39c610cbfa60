"""The ``schedbench`` command line (docs/reference/cli.md is the contract): one entry
point, one module per sub-command.

Each module has ``add_parser(sub)`` and a ``COMMANDS`` mapping of sub-command name to
``run(args) -> exit code``:

* ``solvers.py`` — ``schedbench solvers``, ``kinds``, ``metrics``;
* ``solve.py`` — ``schedbench solve PROBLEM.json --solver NAME ...`` (the decision as JSON);
* ``table.py`` — ``schedbench table PROBLEM.json ...`` (every solver side by side);
* ``check_solver.py`` — ``schedbench check-solver module:Class`` (the conformance suite);
* ``simulate.py`` — ``schedbench simulate --workload SPEC ...`` (one trace-driven simulation);
* ``plot.py`` — ``schedbench plot gantt|usage RUN_DIR [RUN_DIR]`` (pictures of a schedule);
* ``run.py``, ``report.py``, ``compare.py`` — suites, reports, the regression gate;
* ``reproduce.py`` — ``schedbench reproduce PAPER ...`` (one module per paper in
  ``bench/reproduce/``);
* ``data.py`` — ``schedbench data [show|path|fetch ...]`` (the datasets: list, check, fetch);
* ``warm.py`` — ``schedbench warm`` (compile every kernel once into the on-disk cache).

Exit codes name the culprit (``bench/docgen.py`` states them in docs/reference/cli.md): 0
success; 1 a solver's fault (it answered ``error`` or an invalid answer), a conformance check
failed or a gate found a regression; 2 the user's input (file, JSON, flags, values, an output
path that must not or cannot be written), with one line on stderr saying what and where; 130
interrupted; 141 the reader of stdout went away.
Every command takes ``-v/--verbose``: what solver libraries print is shown on stderr.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sqlite3
import sys
from collections.abc import Callable, Sequence
from types import ModuleType

from schedbench.bench.cli._common import plain_help
from schedbench.simcore import fdcapture
from schedbench.simcore.errors import SchedbenchError

#: Sub-command name -> the module of this package that defines it, in the order
#: ``schedbench --help`` lists them. A command imports only its own module (and what that
#: module needs): ``schedbench solve`` does not pay for the report's matplotlib, the reproductions
#: or Dask, which is most of a fresh process's start-up (bench/benchmarks/cold_start.py).
#: ``tests/bench/test_cli.py`` checks the table against every module's ``COMMANDS``.
COMMAND_MODULES: dict[str, str] = {
    "solvers": "solvers",
    "kinds": "solvers",
    "policies": "solvers",
    "metrics": "solvers",
    "solve": "solve",
    "table": "table",
    "simulate": "simulate",
    "plot": "plot",
    "run": "run",
    "report": "report",
    "compare": "compare",
    "reproduce": "reproduce",
    "data": "data",
    "check-solver": "check_solver",
    "warm": "warm",
}


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"{__name__}.{name}")


def modules(commands: Sequence[str] | None = None) -> list[ModuleType]:
    """The sub-command modules defining ``commands`` (default: all), each once, in help order."""
    wanted = COMMAND_MODULES if commands is None else commands
    names = dict.fromkeys(COMMAND_MODULES[c] for c in wanted)
    return [_module(name) for name in names]


def command(name: str) -> Callable[[argparse.Namespace], int]:
    """The function that runs sub-command ``name``."""
    fn: Callable[[argparse.Namespace], int] = _module(COMMAND_MODULES[name]).COMMANDS[name]
    return fn


#: Exit status when the reader of our stdout went away (``schedbench report | head``): what a
#: shell reports for a program ended by SIGPIPE (128 + 13), without a traceback.
EXIT_BROKEN_PIPE = 141


def parser(commands: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser, with the sub-commands ``commands`` (default: all of them)."""
    p = argparse.ArgumentParser(
        prog="schedbench",
        description="Compare solver backends for multi-resource HPC batch scheduling decisions.",
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in modules(commands):
        module.add_parser(sub)
    for command in sub.choices.values():
        command.add_argument(
            "-v",
            "--verbose",
            action="store_true",
            help="show what solver libraries print (banners, logs) on stderr",
        )
    plain_help(p)  # descriptions come from docstrings written in reST
    return p


def _named_command(argv: Sequence[str]) -> str | None:
    """The sub-command ``argv`` names, when its first word is one (else the full parser parses,
    so that ``--help`` and a misspelt command list every sub-command)."""
    first = argv[0] if argv else None
    return first if first in COMMAND_MODULES else None


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    named = _named_command(words)
    args = parser(None if named is None else [named]).parse_args(words)
    if getattr(args, "verbose", False):
        # Solver output is captured around every solve (simcore/fdcapture.py); --verbose shows
        # it on stderr, here and in worker processes (they read the variable when they start).
        os.environ[fdcapture.VERBOSE_ENV] = "1"
        fdcapture.show_solver_output()
    try:
        return command(args.command)(args)
    except SchedbenchError as exc:
        # exit code 1 is a solver's fault: the line says so, so that the user does not look
        # for a mistake in their own input
        blame = "a solver's answer is invalid: " if exc.exit_code == 1 else ""
        print(f"schedbench: error: {blame}{exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        # Point stdout at /dev/null so the interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return EXIT_BROKEN_PIPE
    except sqlite3.DatabaseError as exc:
        # A results store damaged past its header (a corrupted page is found by the query that
        # reads it): one line; `sqlite3 FILE "PRAGMA integrity_check"` says more.
        where = getattr(exc, "store_path", "the results store")
        print(f"schedbench: error: {where}: cannot be read: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        # What the file system refused that no reader or writer turned into a sentence (a disk
        # that filled up mid-run): one line naming the file, not a traceback.
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"schedbench: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2


def entry() -> None:
    """The ``schedbench`` console script: :func:`main`, then the process ends without the
    interpreter's teardown (``bench/_exit.py``: 0.3–0.7 s once numba kernels are loaded). An
    exception from ``main`` leaves the ordinary way, with its traceback."""
    from schedbench.bench._exit import leave

    leave(main())
