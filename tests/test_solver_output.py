"""A command's stdout carries only its document (issue 10): what solvers print is captured at
the file-descriptor level (simcore/fdcapture.py) and shown only with --verbose."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.store import ResultStore
from bench.suite import load_suite
from simcore.fdcapture import captured_output

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "instances" / "examples").glob("*.json"))


def _schedbench(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *sys.path]))
    return subprocess.run(
        [sys.executable, "-m", "bench.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )


def test_a_chatty_solver_leaves_stdout_to_the_json():
    r = _schedbench("solve", str(EXAMPLES[0]), "--solver", "tests.plugins_for_suites:Chatty")
    assert r.returncode == 0, r.stderr
    decision = json.loads(r.stdout)  # the whole of stdout is one JSON document
    assert decision["solver"] == "chatty"
    assert "CHATTY" not in r.stderr  # captured, not shown without --verbose


def test_verbose_shows_what_the_solver_printed_on_stderr():
    r = _schedbench(
        "solve", str(EXAMPLES[0]), "--solver", "tests.plugins_for_suites:Chatty", "--verbose"
    )
    json.loads(r.stdout)
    for marker in ("CHATTY-BANNER-FD1", "CHATTY-FD1", "CHATTY-FD2", "CHATTY-PRINT solving"):
        assert marker in r.stderr


@pytest.mark.parametrize("problem", EXAMPLES, ids=lambda p: p.stem)
def test_mip_highs_prints_only_json(problem):
    r = _schedbench("solve", str(problem), "--solver", "mip-highs")
    assert r.returncode in (0, 1), r.stderr
    assert json.loads(r.stdout)["solver"].startswith("mip-highs")
    assert "HiGHS" not in r.stderr  # the banner is logged, not printed


def test_a_suite_records_a_chatty_solver(tmp_path):
    suite_file = tmp_path / "s.toml"
    suite_file.write_text(
        '[suite]\nname = "chatty"\nbudget_s = 5\n'
        '[[instances]]\nfamily = "t"\nsource = "theta-window"\nw = 6\nseeds = 1\n'
        '[[solvers]]\nname = "tests.plugins_for_suites:Chatty"\n'
    )
    store = tmp_path / "r.sqlite"
    r = _schedbench("run", str(suite_file), "--store", str(store), "--no-progress")
    assert "CHATTY" not in r.stdout and "CHATTY" not in r.stderr
    with ResultStore(store, readonly=True) as st:
        rows = st.rows("chatty")
    assert len(rows) == 1 and rows[0]["status"] == "feasible"
    assert load_suite(suite_file).name == "chatty"


def test_capture_restores_the_descriptors_after_an_exception(capfd):
    with pytest.raises(RuntimeError), captured_output("test") as printed:
        os.write(1, b"inside\n")
        raise RuntimeError("boom")
    os.write(1, b"outside\n")
    out, _ = capfd.readouterr()
    assert "outside" in out and "inside" not in out
    assert printed == ["inside\n"]


def test_nested_captures_collect_once():
    with captured_output("outer") as outer:
        with captured_output("inner") as inner:
            os.write(1, b"x\n")
        assert inner == []
    assert outer == ["x\n"]


def test_a_closed_pipe_ends_quietly(tmp_path):
    """`schedbench ... | head`: no BrokenPipeError traceback, exit status 141 (as a shell
    reports a program ended by SIGPIPE)."""
    n = 50_000
    problem = {"capacities": [n, n], "demands": [[1, 1]] * n}
    path = tmp_path / "big.json"
    path.write_text(json.dumps(problem))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *sys.path]))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bench.cli",
            "solve",
            str(path),
            "--solver",
            "naive",
            "--indent",
            "1",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.read(100)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141
    assert "Traceback" not in err and "BrokenPipe" not in err
