"""The supervised worker pool (bench/supervisor.py): a solver cannot take down a run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from schedbench.bench._io import pid_alive
from schedbench.bench.run.supervisor import Failure, SupervisedPool
from tests.supervised_items import run


def _run_all(items, workers=2, **kw):
    results, failures = {}, {}
    pool = SupervisedPool(run, workers, **kw)
    pool.run(
        items,
        lambda item, r: results.__setitem__(item, r),
        lambda item, f: failures.__setitem__(item, f),
    )
    return results, failures


def test_every_misbehaviour_is_charged_to_its_own_item_and_the_rest_finish():
    items = [
        ("ok", 1),
        ("hang-in-solver", 0.2),
        ("exit", 3),
        ("interrupt", None),
        ("segfault", None),
        ("raise", "boom"),
        ("ok", 2),
        ("ok", 3),
    ]
    t0 = time.monotonic()
    results, failures = _run_all(items, grace_s=0.5, startup_s=60)
    elapsed = time.monotonic() - t0
    assert results == {("ok", 1): 2, ("ok", 2): 4, ("ok", 3): 6}
    assert failures[("hang-in-solver", 0.2)].kind == "timeout"
    assert "deadline + 0.5 s grace" in failures[("hang-in-solver", 0.2)].reason
    assert failures[("exit", 3)] == Failure("raised", "the solver raised SystemExit: 3")
    assert failures[("interrupt", None)].kind == "raised"
    assert "KeyboardInterrupt" in failures[("interrupt", None)].reason
    assert failures[("segfault", None)].kind == "died"
    assert "SIGSEGV" in failures[("segfault", None)].reason
    assert "ValueError: boom" in failures[("raise", "boom")].reason
    # The hanger never returns by itself: the run ended because it was killed (and the reason
    # above says when); the bound only says the run did not wait for something else.
    assert elapsed < 600


def test_a_hang_before_any_solver_call_is_bounded_by_startup():
    _, failures = _run_all([("hang-before-solver", None)], workers=1, startup_s=1.0)
    assert failures[("hang-before-solver", None)].kind == "startup"


def test_no_startup_limit_for_items_that_need_no_solver():
    results, failures = _run_all(
        [("sleep", 1.5)], workers=1, startup_s=lambda item: None if item[0] == "sleep" else 0.5
    )
    assert results == {("sleep", 1.5): "feasible"} and not failures


def test_workers_are_reused_between_items():
    results, _ = _run_all([("pid", i) for i in range(6)], workers=2)
    assert len(set(results.values())) <= 2


def test_workers_may_start_children():
    # Daemonic workers may not: the MIP backends then declined every cell of a parallel suite.
    results, failures = _run_all([("child", 7)], workers=1, startup_s=None)
    assert not failures and results == {("child", 7): 7}


def _parent_script(body: str) -> str:
    """A parent process running a two-worker pool of tests/supervised_items.run; ``body`` uses
    ``pool``."""
    head = f"""
import os, sys
sys.path.insert(0, {os.getcwd()!r})
from schedbench.bench.run.supervisor import SupervisedPool
from tests.supervised_items import run
pool = SupervisedPool(run, 2, startup_s=None)
"""
    return head + textwrap.dedent(body)


def test_a_parent_keeping_idle_workers_still_exits(tmp_path):
    # Non-daemonic workers would be joined at exit while they wait on their pipe: the exit hook
    # must kill them first, or this parent never ends.
    pids = tmp_path / "pids"
    script = _parent_script(
        f"""
        got = []
        pool.run([("pid", 0), ("pid", 1)], lambda item, pid: got.append(pid), print,
                 keep_workers=True)
        open({str(pids)!r}, "w").write("\\n".join(map(str, got)))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], timeout=60, check=False)
    assert done.returncode == 0
    workers = [int(p) for p in pids.read_text().split()]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(pid_alive(p) for p in workers):
        time.sleep(0.1)
    assert workers and not any(pid_alive(p) for p in workers)


@pytest.mark.skipif(sys.platform != "linux", reason="PR_SET_PDEATHSIG is Linux only")
def test_killing_the_parent_kills_its_workers(tmp_path):
    pids = tmp_path / "pids"
    script = _parent_script(
        f"""
        def note(item, pid):
            with open({str(pids)!r}, "a") as f:
                f.write(f"{{pid}}\\n")
        pool.run([("pid", 0), ("pid", 1), ("sleep", 600), ("sleep", 600)], note, print)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", script])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (
        pids.exists() and len(pids.read_text().split()) >= 2
    ):
        time.sleep(0.1)
    workers = [int(p) for p in pids.read_text().split()]
    assert workers and all(pid_alive(p) for p in workers)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(pid_alive(p) for p in workers):
        time.sleep(0.1)
    alive = [p for p in workers if pid_alive(p)]
    assert not alive, f"workers outlived their parent: {alive}"
