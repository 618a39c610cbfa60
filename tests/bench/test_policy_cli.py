"""A policy written in a test module runs in `schedbench simulate` by name (registered
in-process) or as module:Class, with its own options; and suites name any registered policy."""

from __future__ import annotations

import csv
import json

import pytest

from schedbench.bench.cli import main
from schedbench.bench.suite import SuiteError, load_suite
from schedbench.simcore.policies import BasePolicy
from schedbench.simcore.policy import Start, fits
from schedbench.simcore.policy_registry import register_policy, unregister_policy

SWF = "\n".join(
    # id submit wait run procs cpu mem req_procs req_time ...
    f"{i} {10 * i} -1 {100 + 10 * i} {n} -1 -1 {n} {200 + 10 * i} -1 1 1 1 1 1 -1 -1 -1"
    for i, n in enumerate([8, 2, 6, 4, 2, 8, 1], start=1)
)


class SmallestFirst(BasePolicy):
    """Start the narrowest jobs first (a toy policy for the tests)."""

    name = "smallest-first"

    def __init__(self, *, backfill: str = "none", limit: int = 1_000):
        super().__init__(backfill=backfill)
        self.limit = limit

    def start_jobs(self, view, order, now):
        order = sorted(order, key=lambda j: (view.demands[j][0], j))
        started = 0
        k = 0
        while (
            k < len(order)
            and started < self.limit
            and fits(view.demands[order[k]], view.free, view.K, view.bb_index, view.bb_eps)
        ):
            yield Start(order[k])
            started += 1
            k += 1
        return order[k:]


@pytest.fixture
def trace(tmp_path):
    path = tmp_path / "t.swf"
    path.write_text("; MaxProcs: 8\n; MaxNodes: 8\n" + SWF + "\n")
    return path


@pytest.fixture
def registered():
    register_policy("smallest-first", SmallestFirst)
    yield
    unregister_policy("smallest-first")


def _starts(out) -> dict[str, float]:
    with (out / "jobs.csv").open() as fh:
        return {row["id"]: float(row["start"]) for row in csv.DictReader(fh)}


def test_a_test_module_policy_runs_by_name(tmp_path, trace, registered, capsys):
    out = tmp_path / "smallest"
    code = main(
        [
            "simulate",
            "--workload",
            str(trace),
            "--policy",
            "smallest-first",
            "--backfill",
            "none",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert code == 0, capsys.readouterr().err
    assert "smallest-first+none" in capsys.readouterr().out
    naive = tmp_path / "naive"
    assert main(["simulate", "--workload", str(trace), "--out", str(naive), "--no-progress"]) == 0
    # the first job (8 processors) holds the machine until 110 s; at that instant job 2
    # (2 processors) arrived at 20 and job 3 (6) at 30: naive starts in submit order, the
    # policy narrowest first; both fit, so the schedules agree there, but the policy's order
    # differs where they do not fit together
    mine, theirs = _starts(out), _starts(naive)
    assert set(mine) == set(theirs) and mine != theirs
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["config"]["policy"] == "smallest-first+none"


def test_policy_options_and_module_class(tmp_path, trace, capsys):
    out = tmp_path / "m"
    spec = "tests.bench.test_policy_cli:SmallestFirst"
    args = [
        "simulate",
        "--workload",
        str(trace),
        "--policy",
        spec,
        "--out",
        str(out),
        "--no-progress",
    ]
    assert main([*args, "--policy-set", "limit=1", "--backfill", "easy"]) == 0
    assert "smallest-first+easy" in capsys.readouterr().out
    assert main([*args, "--policy-set", "nosuch=1"]) == 2
    assert "has no option 'nosuch'" in capsys.readouterr().err
    assert main([*args, "--solver", "dp"]) == 2
    assert "--solver is only used by a policy that decides with a solver" in capsys.readouterr().err


def test_an_unknown_policy_lists_the_known_ones(trace, capsys):
    assert main(["simulate", "--workload", str(trace), "--policy", "nope", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "unknown policy 'nope'" in err and "known policies: " in err
    # every core's policies: the policy names the core
    for name in ("naive", "window", "cerberus-maxt", "lea-bf", "pe-b", "reserve"):
        assert f" {name}," in err or err.rstrip().endswith(f" {name}")


def test_suites_name_policies_and_check_them_at_load(tmp_path, registered):
    def suite(policies: str, extra: str = "") -> str:
        return (
            '[suite]\nname = "p"\n[[simulations]]\nname = "s"\n'
            'workload = "lublin:jobs=50,nodes=64,seed=1"\nsystem = "theta"\n'
            f"policies = {policies}\n{extra}"
        )

    path = tmp_path / "s.toml"
    path.write_text(
        suite('["naive", "smallest-first", "window:dp"]', "policy_options = { limit = 2 }")
    )
    loaded = load_suite(path)
    assert loaded.scenarios[0][1] == ("naive", "smallest-first", "window:dp")
    assert loaded.name == "p"  # policy names never shadow the suite's
    for policies, message in [
        ('["nope"]', "unknown policy 'nope'"),
        ('["window"]', "needs a solver"),
        ('["naive:dp"]', "takes no solver"),
        ('["window:nosolver"]', "unknown solver"),
    ]:
        path.write_text(suite(policies))
        with pytest.raises(SuiteError, match=message):
            load_suite(path)
    path.write_text(suite('["window:dp"]', "policy_options = { limit = 2 }"))
    with pytest.raises(SuiteError, match=r"policy_options\.limit: expected an option one of the"):
        load_suite(path)
