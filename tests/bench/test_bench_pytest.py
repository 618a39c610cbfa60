"""``make bench-pytest``: pytest-benchmark over ``bench/benchmarks/`` for any suite, in output
that fits 100 columns (``bench/benchmarks/conftest.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TABLE1 = ROOT / "instances" / "examples" / "bbsched_table1.json"

SUITE = f"""
[suite]
name = "a-suite-with-a-name-long-enough-to-widen-every-line-it-appears-in"
budget_s = 5
reference = "dp"

[[instances]]
family = "table-one-of-the-bbsched-paper-as-a-family"
source = "problem-files"
paths = ["{TABLE1}"]

[[solvers]]
name = "naive"

[[solvers]]
name = "constrained-cpu"
"""


def _pytest(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    # a pytest-xdist worker's variables would tell the child pytest it runs in parallel, and
    # pytest-benchmark would then refuse to time anything
    outer = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    outer.pop("PYTEST_CURRENT_TEST", None)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "bench/benchmarks", "-p", "no:cacheprovider", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**outer, **(env or {})},
        timeout=600,
    )


def test_a_suite_named_in_the_environment_is_benchmarked_within_100_columns(tmp_path):
    suite = tmp_path / "s.toml"
    suite.write_text(SUITE)
    r = _pytest("--benchmark-enable", "-k", "suite_family", env={"SCHEDBENCH_SUITES": str(suite)})
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert "benchmark 'a-suite-with-a-name-long" in r.stdout  # its family is a group
    assert any(line.startswith("constrained-cpu ") for line in lines)  # a row per solver
    assert "Legend:" in r.stdout and "Median" in r.stdout
    wide = [line for line in lines if len(line) > 100]
    assert not wide, wide


def test_suite_options_choose_the_suites(tmp_path):
    first, second = tmp_path / "a.toml", tmp_path / "b.toml"
    first.write_text(SUITE)
    second.write_text(SUITE.replace('name = "a-suite', 'name = "b-suite'))
    r = _pytest("--collect-only", "-q", "--suite", str(first), "--suite", str(second))
    assert r.returncode == 0, r.stdout + r.stderr
    ids = [line for line in r.stdout.splitlines() if "test_suite_family[" in line]
    # two suites: the ids name the suite as well
    assert len(ids) == 4 and sum("[b-suite" in i for i in ids) == 2
    r = _pytest("--help")
    assert "--suite=PATH" in r.stdout and "SCHEDBENCH_SUITES" in r.stdout
