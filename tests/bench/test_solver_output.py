"""A command's stdout carries only its document (docs/design.md#output-people-read): what solvers
print is captured at the file-descriptor level (simcore/fdcapture.py) and shown only with
--verbose."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from schedbench.bench.store import ResultStore
from schedbench.bench.suite import load_suite
from schedbench.simcore.fdcapture import captured_output

ROOT = Path(__file__).resolve().parents[2]
# the selection examples: the solvers these tests run answer that kind only
EXAMPLES = sorted(
    p
    for p in (ROOT / "instances" / "examples").glob("*.json")
    if json.loads(p.read_text())["kind"] == "selection"
)


def _schedbench(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *sys.path]))
    return subprocess.run(
        [sys.executable, "-m", "schedbench.bench.cli", *args],
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


def test_verbose_mip_highs_shows_the_banner_on_stderr_only():
    r = _schedbench("solve", str(EXAMPLES[0]), "--solver", "mip-highs", "--verbose")
    assert json.loads(r.stdout)["solver"].startswith("mip-highs")
    assert "HiGHS" in r.stderr


LOUD = "tests.loud_plugin:Loud"


def test_a_plugin_printing_on_import_build_and_supports_leaves_stdout_alone():
    r = _schedbench("solve", str(EXAMPLES[0]), "--solver", LOUD)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["solver"] == "loud"
    assert "LOUD" not in r.stderr and "CHATTY" not in r.stderr
    t = _schedbench("table", str(EXAMPLES[0]), "--solver", LOUD)
    assert t.returncode == 0, t.stderr
    assert t.stdout.startswith("problem") and "\nloud " in t.stdout
    assert "LOUD" not in t.stdout + t.stderr and "CHATTY" not in t.stdout + t.stderr


def test_check_solver_output_is_only_its_table():
    r = _schedbench("check-solver", LOUD)
    assert r.stdout.startswith("check") and "loud:" in r.stdout
    assert "LOUD" not in r.stdout + r.stderr and "CHATTY" not in r.stdout + r.stderr


def test_verbose_shows_import_build_and_supports_output():
    r = _schedbench("table", str(EXAMPLES[0]), "--solver", LOUD, "-v")
    for marker in ("LOUD-IMPORT-FD1", "LOUD-INIT-FD1", "LOUD-SUPPORTS-FD1", "LOUD-SUPPORTS-FD2"):
        assert marker in r.stderr
        assert marker not in r.stdout


@pytest.mark.parametrize("plugin", ["tests.plugins_for_suites:Chatty", LOUD])
def test_a_suite_records_a_chatty_solver(tmp_path, plugin):
    suite_file = tmp_path / "s.toml"
    suite_file.write_text(
        '[suite]\nname = "chatty"\nbudget_s = 5\n'
        '[[instances]]\nfamily = "t"\nsource = "theta-window"\nw = 6\nseeds = 1\n'
        f'[[solvers]]\nname = "{plugin}"\n'
    )
    store = tmp_path / "r.sqlite"
    r = _schedbench("run", str(suite_file), "--store", str(store), "--no-progress")
    for marker in ("CHATTY", "LOUD"):
        assert marker not in r.stdout and marker not in r.stderr
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


def test_capture_restores_the_descriptors_after_ctrl_c(capfd):
    with pytest.raises(KeyboardInterrupt), captured_output("test"):
        os.write(2, b"inside\n")
        raise KeyboardInterrupt
    os.write(2, b"outside\n")
    _, err = capfd.readouterr()
    assert "outside" in err and "inside" not in err


def test_overlapping_captures_in_two_threads_restore_when_the_last_ends(capfd):
    """Thread b opens its capture inside a's and closes it after: what b prints after a has
    closed must not reach fd 1 (the fds are process-wide)."""
    entered, a_closed = threading.Event(), threading.Event()
    got: dict[str, list[str]] = {}

    def b() -> None:
        with captured_output("b") as sink:
            entered.set()
            a_closed.wait(10)
            os.write(1, b"late\n")
        got["b"] = sink

    thread = threading.Thread(target=b)
    with captured_output("a") as a_sink:
        thread.start()
        assert entered.wait(10)
        os.write(1, b"early\n")
    a_closed.set()
    thread.join(10)
    os.write(1, b"outside\n")
    out, _ = capfd.readouterr()
    assert "outside" in out and "early" not in out and "late" not in out
    assert a_sink == [] and got["b"] == ["early\nlate\n"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_captures_into_a_file_of_its_own():
    with captured_output("parent"):  # the parent's scratch file exists before the fork
        pass
    written_r, written_w = os.pipe()
    go_r, go_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: capture while the parent captures too
        ok = False
        try:
            with captured_output("child", log=False) as sink:
                os.write(1, b"child\n")
                os.write(written_w, b"1")
                os.read(go_r, 1)
            ok = sink == ["child\n"]
        finally:
            os._exit(0 if ok else 1)
    try:
        with captured_output("parent", log=False) as sink:
            os.read(written_r, 1)  # the child has written
            os.write(1, b"parent\n")
        os.write(go_w, b"1")
        _, status = os.waitpid(pid, 0)
    finally:
        for fd in (written_r, written_w, go_r, go_w):
            os.close(fd)
    assert sink == ["parent\n"]
    assert os.waitstatus_to_exitcode(status) == 0


def test_a_pool_worker_never_writes_on_the_parents_stdout():
    """Output of a suite worker outside any solver call goes to stderr, not into the stdout
    that carries the parent's document."""
    script = textwrap.dedent(
        """
        from schedbench.bench.run.supervisor import SupervisedPool
        from tests.supervised_items import run

        if __name__ == "__main__":
            done = []
            SupervisedPool(run, 1).run(
                [("write-fd1", "STRAY\\n")], lambda i, r: done.append(i), print
            )
            print("DOCUMENT", len(done))
        """
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *sys.path]))
    r = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout == "DOCUMENT 1\n"
    assert "STRAY" in r.stderr


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
            "schedbench.bench.cli",
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
