"""``bench/_exit.py``: a process ends without the interpreter's teardown, having run its exit
hooks and flushed its output, and falls back to the ordinary exit when that is not safe."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

SCRIPT = """
import atexit, sys, threading, time
from schedbench.bench._exit import leave
atexit.register(lambda: print("hook ran", flush=True))
sys.stdout.write("buffered, not flushed")  # a pipe is block-buffered: leave must flush it
print("on stderr", file=sys.stderr, end="")
if "thread" in sys.argv:
    threading.Thread(target=lambda: (time.sleep(0.5), print(" thread done", end=""))).start()
leave(int(sys.argv[1]))
print("never")
"""


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(SCRIPT), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("code", [0, 1, 2, 141])
def test_leave_exits_with_the_code_after_the_hooks_and_the_flush(code):
    done = run(str(code))
    assert done.returncode == code
    assert done.stdout == "buffered, not flushedhook ran\n"
    assert done.stderr == "on stderr"


def test_leave_waits_for_a_running_thread_as_the_ordinary_exit_does():
    done = run("3", "thread")
    assert done.returncode == 3
    # the thread's output comes before the hook's: the ordinary exit joins threads first
    assert done.stdout == "buffered, not flushed thread donehook ran\n"


FAST = """
import os, sys
real = os._exit
os._exit = lambda code: (sys.stdout.write(f"[fast exit {code}]"), sys.stdout.flush(), real(code))
from schedbench.bench.cli import entry
sys.argv = ["schedbench", *sys.argv[1:]]
entry()
"""


@pytest.mark.parametrize(
    ("args", "code"), [(["kinds"], 0), (["solve", "bad.json", "--solver", "dp"], 2)]
)
def test_the_console_script_ends_through_the_fast_exit(tmp_path, args, code):
    (tmp_path / "bad.json").write_text("{")
    done = subprocess.run(
        [sys.executable, "-c", FAST, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == code, done.stderr
    assert done.stdout.endswith(f"[fast exit {code}]")
