"""pytest-benchmark over this folder: the kernels (``test_dp_benchmark.py``,
``test_sim_benchmark.py``) and the decision families of any suite (``test_suites_benchmark.py``).

    make bench-pytest                                        # quick.toml
    make bench-pytest SUITES="bench/suites/window-quality.toml bench/suites/ar-decisions.toml"
    .venv/bin/python -m pytest bench/benchmarks --benchmark-enable -k suite_family \\
        --suite bench/suites/window-quality.toml --benchmark-json out.json

Which suites: ``--suite PATH`` (repeatable), else the environment variable
``SCHEDBENCH_SUITES`` (paths separated by ``:``), else ``bench/suites/quick.toml``. Every
simulation-free (decision) family of a suite is one benchmark group; simulation scenarios are
runs, not kernels, and are not benchmarked here (``schedbench run`` measures them).

The output fits 100 columns: unless given on the command line, the table's columns are
``median,iqr,rounds`` (``--benchmark-columns``) and names are ``short`` (``--benchmark-name``:
the test's name without ``test_``; a suite's benchmark is named by its solver, its group by the
suite and family); the plugin's header and legend, prose past 100 columns, are wrapped.
``--benchmark-sort`` (default ``min``) orders each group; ``--benchmark-columns
min,max,mean,stddev,median,iqr,outliers,ops,rounds,iterations`` shows everything.
"""

from __future__ import annotations

import textwrap
from typing import Any

import pytest

#: Widest line the benchmark session writes to the terminal.
WIDTH = 100
#: Columns of the result table when ``--benchmark-columns`` is not given.
COLUMNS = ["median", "iqr", "rounds"]


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("schedbench", "schedbench benchmarks (bench/benchmarks/conftest.py)")
    group.addoption(
        "--suite",
        dest="schedbench_suites",
        action="append",
        default=[],
        metavar="PATH",
        help="a suite TOML whose decision families to benchmark (repeatable; default: "
        "$SCHEDBENCH_SUITES, paths separated by ':', else bench/suites/quick.toml)",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: Any) -> None:
    # before pytest-benchmark reads them (its pytest_configure runs last)
    if getattr(config.option, "benchmark_columns", "") is None:
        config.option.benchmark_columns = list(COLUMNS)
    if getattr(config.option, "benchmark_name", "") == "normal":
        config.option.benchmark_name = "short"


def _fit(line: str) -> list[str]:
    """A line of prose wrapped to :data:`WIDTH`; a table line (rules, aligned columns) is left
    whole, since a wrapped table no longer lines up."""
    body = line.strip()
    if len(line) <= WIDTH or body.startswith("-") or "  " in body:
        return [line]
    return textwrap.wrap(line, WIDTH, subsequent_indent="    ", break_on_hyphens=False) or [""]


@pytest.hookimpl(hookwrapper=True)
def pytest_report_header(config: Any) -> Any:
    outcome = yield
    # one entry per plugin (a line or a list of lines), kept so: pytest prints them in reverse
    outcome.force_result(
        [
            [piece for line in ([item] if isinstance(item, str) else item) for piece in _fit(line)]
            for item in outcome.get_result()
        ]
    )


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter: Any) -> Any:
    # the plugin's legend is one 112-character line: wrap what goes through write_line
    write_line = terminalreporter.write_line

    def fitted(line: str, **markup: Any) -> None:
        for piece in _fit(str(line)):
            write_line(piece, **markup)

    terminalreporter.write_line = fitted
    try:
        yield
    finally:
        del terminalreporter.write_line
