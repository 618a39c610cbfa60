"""A user who can write neither the checkout (or installation) nor their home folder runs
``schedbench solve``, ``simulate`` and ``run`` successfully: compiled kernels are cached in a
private temporary folder instead (simcore/jit.py), and nothing is written to the checkout.

The home folder is made unusable for real: ``HOME`` is a file, so nothing can be created under
it, whoever runs the test (root included, for whom permission bits mean nothing). The checkout
cannot be made read-only here without disturbing the tests running next to this one, so its
folders are reported unwritable to the kernel-cache chooser (``jit.writable``) in every process
the commands start (a ``sitecustomize`` module on ``PYTHONPATH``), and Python writes no bytecode
(as in a read-only installation); the test then checks that git sees no change in the checkout.
It compiles every kernel it needs afresh (about 1.5 min at load 19 on 2 cores), so it runs with
``make test-slow``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests._checkout import checkout_state

ROOT = Path(__file__).resolve().parents[2]

SITECUSTOMIZE = textwrap.dedent(
    """
    import os
    from pathlib import Path

import pytest

    from schedbench.simcore import jit

    _ROOT = Path(os.environ["SCHEDBENCH_TEST_READONLY_ROOT"])
    _real = jit.writable


    def _writable(folder):
        folder = Path(folder).resolve()
        return folder != _ROOT and _ROOT not in folder.parents and _real(folder)


    jit.writable = _writable
    """
)

SUITE = textwrap.dedent(
    """
    [suite]
    name = "ro"
    budget_s = 2
    [[instances]]
    family = "t"
    source = "theta-window"
    w = 4
    seeds = 1
    reference = "none"
    [[solvers]]
    name = "naive"
    [[simulations]]
    name = "s"
    workload = "lublin:jobs=10,nodes=64,seed=1"
    system = "theta"
    policies = ["naive"]
    """
)


@pytest.mark.slow  # every kernel the three commands use is compiled afresh: minutes on 2 cores
def test_a_user_without_a_writable_checkout_or_home_runs_solve_simulate_and_run(tmp_path):
    home = tmp_path / "home-is-a-file"
    home.write_text("not a folder\n")
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(SITECUSTOMIZE)
    temp = tmp_path / "tmp"
    temp.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    (work / "p.json").write_text(
        json.dumps({"capacities": [10, 20], "demands": [[1, 2], [3, 4], [5, 6]]})
    )
    (work / "s.toml").write_text(SUITE)
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME", "MPLCONFIGDIR", "PYTHONPATH")
    }
    env.update(
        HOME=str(home),
        NUMBA_CACHE_DIR=str(home / "numba"),  # set, but cannot be written either
        TMPDIR=str(temp),
        PYTHONPATH=str(hook),
        PYTHONDONTWRITEBYTECODE="1",
        SCHEDBENCH_TEST_READONLY_ROOT=str(ROOT),
    )
    before = checkout_state()
    schedbench = [sys.executable, "-m", "schedbench.bench.cli"]
    commands = [
        ["solve", "p.json", "--solver", "naive", "--budget", "5"],
        ["simulate", "--workload", "lublin:jobs=10,nodes=64,seed=1", "--system", "theta",
         "--out", "sim", "--no-progress"],
        ["run", "s.toml", "--no-progress"],
    ]  # fmt: skip
    outputs = []
    for argv in commands:
        done = subprocess.run(
            [*schedbench, *argv], cwd=work, env=env, capture_output=True, text=True, timeout=900
        )
        assert done.returncode == 0, (argv, done.stderr[-3000:])
        assert "Traceback" not in done.stderr and "no locator" not in done.stderr, done.stderr
        outputs.append(done.stdout)
    assert json.loads(outputs[0])["status"] in ("optimal", "feasible")
    assert (work / "sim" / "metrics.json").is_file()
    assert (work / "results" / "ro.sqlite").is_file()
    # The kernels went to the private temporary folder, and nothing into the checkout.
    private = temp / f"schedbench-numba-{os.getuid()}"
    assert private.is_dir() and private.stat().st_mode & 0o777 == 0o700
    assert checkout_state() == before
