"""Papercuts a new user met."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from schedbench.bench._io import atomic_write_text
from schedbench.bench.cli import main
from schedbench.bench.cli.simulate import default_out_name

SUITE = """
[suite]
name = "cuts"
budget_s = 1

[[instances]]
family = "t"
source = "theta-window"
w = 6
seeds = 1

[[solvers]]
name = "naive"

[[solvers]]
name = "tests.plugins_for_suites:Raiser"
"""


@pytest.fixture
def store(tmp_path: Path) -> Path:
    suite = tmp_path / "s.toml"
    suite.write_text(SUITE)
    path = tmp_path / "r.sqlite"
    assert main(["run", str(suite), "--store", str(path), "--no-progress"]) == 1  # one error
    return path


def test_report_of_an_unknown_suite_is_an_error_listing_the_suites(store, capsys):
    assert main(["report", str(store), "--suite", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert "no suite 'nosuch'" in err and "cuts" in err


def test_failed_cells_are_listed_with_their_reason_under_the_leaderboard(store, capsys):
    capsys.readouterr()
    assert main(["report", str(store)]) == 0
    out = capsys.readouterr().out
    failed = out[out.index("Failed cells (1)") :]
    assert "RuntimeError: boom" in failed and "raiser" in failed


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_written_files_respect_the_umask(tmp_path, mask, mode):
    old = os.umask(mask)
    try:
        path = atomic_write_text(tmp_path / "f.txt", "x")
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == mode


@pytest.mark.parametrize(
    "workload, policy",
    [
        (
            "lublin:jobs=20000,nodes=4392,seed=3+bbsched:S4,seed=3+arrivals:2",
            "window[moo,w=20]+easy",
        ),
        ("../traces/KTH-SP2-1996-2.1-cln.swf", "naive+easy"),
        ("/d/x[1]*?.swf.gz+head:10", "window[cpsat[time_limit_s=5],w=20]+conservative"),
    ],
)
def test_default_output_folder_is_readable_and_safe(workload, policy):
    name = default_out_name(workload, policy)
    assert re.fullmatch(r"[A-Za-z0-9._-]+", name), name
    assert len(name) <= 100
    parts = name.split("_")
    assert re.fullmatch(r"[0-9a-f]{8}", parts[-1])
    # no word cut in the middle: every dash-separated word of the name appears whole in the input
    plain = workload.replace(".swf", "").replace(".gz", "")
    words = set(re.split(r"[^A-Za-z0-9.]+", plain + " " + policy))
    for word in "-".join(parts[:-1]).split("-"):
        assert word in words, word
    assert default_out_name(workload, policy, "a") != default_out_name(workload, policy, "b")
