"""A simulation core is a plug-in: a toy fifth core, defined in this module and registered in
process, runs through ``schedbench simulate``, a suite (in worker processes), the report, the
pictures and the regression gate, with no edit to bench/.

The toy machine has ``units`` interchangeable units; a job holds some of them for its runtime.
``toy-fifo`` starts jobs in arrival order while the head fits; ``toy-pick`` asks a solver of the
``selection`` kind which queued jobs to start (the most units used).
"""

from __future__ import annotations

import heapq
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from schedbench.bench import api
from schedbench.bench.cli import main
from schedbench.bench.report.schedule_plots import load_run
from schedbench.bench.store import ResultStore
from schedbench.simcore.catalogue import catalogue
from schedbench.simcore.core import (
    CoreRun,
    CoreSpec,
    JobTable,
    Key,
    PolicyInfo,
    RunHooks,
    SimulationCore,
    SpecError,
    register_core,
    unregister_core,
)
from schedbench.simcore.errors import UnknownPolicyError
from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.metric_spec import MetricSpec
from schedbench.simcore.problem import Status
from schedbench.simcore.solver import timed_solve

TOY_METRICS = (
    MetricSpec(
        "toy_mean_wait_s",
        "mean start - submit of the toy jobs",
        unit="s",
        direction="lower",
        source="test",
    ),
    MetricSpec(
        "toy_usage",
        "unit-seconds used / available until the last end",
        unit="share",
        direction="higher",
        source="test",
    ),
)


def _jobs(spec: str) -> list[tuple[int, float, float, int]]:
    """``toy:jobs=N,seed=S`` -> (id, submit, runtime, units) rows."""
    keys = dict(part.split("=") for part in spec.partition(":")[2].split(",") if part)
    rng = np.random.default_rng(int(keys.get("seed", 0)))
    n = int(keys["jobs"])
    submit = np.cumsum(rng.integers(0, 30, n))
    return [
        (i + 1, float(submit[i]), float(rng.integers(10, 200)), int(rng.integers(1, 5)))
        for i in range(n)
    ]


class ToyCore(SimulationCore):
    name = "toy"
    summary = "a toy machine of interchangeable units (tests/simcore/test_toy_core.py)"
    kind = "selection"
    unit = "unit"
    metrics = TOY_METRICS
    keys = (Key("units", 8, "units of the machine"),)
    record_keys = ("units",)
    baseline = "toy-fifo"
    leaderboard = ("toy_mean_wait_s", "toy_usage")
    compact = ("toy_mean_wait_s", "toy_usage")
    kiviat = (("wait", "toy_mean_wait_s", True), ("usage", "toy_usage", False))
    headline = ("toy_mean_wait_s", "toy_usage", "decisions")

    def policies(self) -> list[str]:
        return ["toy-fifo", "toy-pick"]

    def policy(self, name: str) -> PolicyInfo:
        if name == "toy-fifo":
            return PolicyInfo(name, "arrival order while the head fits")
        if name == "toy-pick":
            return PolicyInfo(name, "a solver picks the jobs to start", (), "required")
        raise UnknownPolicyError(name, self.policies())

    def check_spec(self, spec: CoreSpec, base_dir: Path | None) -> CoreSpec:
        if not spec.workload.startswith("toy:jobs="):
            raise SpecError("workload", "toy:jobs=N,seed=S", spec.workload)
        if not isinstance(spec.get("units"), int) or spec.get("units") < 4:
            raise SpecError("units", "an integer >= 4", spec.get("units"))
        return spec

    def load(self, spec: CoreSpec) -> list[tuple[int, float, float, int]]:
        return _jobs(spec.workload)

    def run(self, spec: CoreSpec, loaded: Any, policy: str, hooks: RunHooks) -> CoreRun:
        self.policy(policy)
        units = spec.get("units")
        free, queue, ends, decisions = units, [], [], 0
        start = {}
        arrivals = sorted(loaded, key=lambda j: j[1])
        i = 0
        while i < len(arrivals) or queue:
            due = [arrivals[i][1]] if i < len(arrivals) else []
            due += [ends[0][0]] if ends else []
            if not due:
                break  # nothing runs or arrives and the queue cannot start: cannot happen here
            now = min(due)
            while ends and ends[0][0] <= now:  # releases first, then arrivals, then one pass
                free += heapq.heappop(ends)[1]
            while i < len(arrivals) and arrivals[i][1] <= now:
                queue.append(arrivals[i])
                i += 1
            chosen = []
            if policy == "toy-fifo":
                while queue and queue[0][3] <= free:
                    chosen.append(queue.pop(0))
                    free -= chosen[-1][3]
            elif queue:
                problem = SelectionProblem(
                    capacities=[free],
                    demands=[[j[3]] for j in queue],
                    objectives=[[j[3] for j in queue]],
                )
                decision = timed_solve(hooks.solver, problem, hooks.budget)
                decisions += 1
                picked = set(decision.selected) if decision.status != Status.ERROR else set()
                chosen = [j for k, j in enumerate(queue) if k in picked]
                queue = [j for k, j in enumerate(queue) if k not in picked]
                free -= sum(j[3] for j in chosen)
            for job in chosen:
                start[job[0]] = now
                heapq.heappush(ends, (now + job[2], job[3]))
        ids = np.array([j[0] for j in loaded])
        submit = np.array([j[1] for j in loaded])
        t0 = np.array([start.get(j[0], np.nan) for j in loaded])
        end = t0 + np.array([j[2] for j in loaded])
        held = np.array([j[3] for j in loaded])
        span = float(np.nanmax(end) - submit.min())
        metrics = {
            "toy_mean_wait_s": float(np.nanmean(t0 - submit)),
            "toy_usage": float(np.nansum((end - t0) * held) / (units * span)),
            "decisions": decisions,
        }
        table = JobTable(
            {
                "id": ids,
                "submit": submit,
                "start": t0,
                "end": end,
                "nodes": held,
                "status": np.where(np.isfinite(t0), "completed", "unfinished").astype(object),
            },
            unit="unit",
            total=units,
        )
        label = policy + (f":{hooks.solver.id}" if hooks.solver is not None else "")
        run = CoreRun(self.name, label, None, table, metrics, counters={"decisions": decisions})
        run.summary.append(f"{len(loaded)} toy jobs on {units} units with {label}")
        return run


@pytest.fixture
def toy_core():
    register_core(ToyCore)
    yield
    unregister_core("toy")


def test_simulate_runs_the_toy_core_and_writes_the_common_schema(toy_core, tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["simulate", "--workload", "toy:jobs=40,seed=2", "--policy", "toy-pick"]
    assert main([*argv, "--solver", "dp", "--option", "units=6", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "40 toy jobs on 6 units with toy-pick:dp" in printed and "written:" in printed
    doc = json.loads((out / "metrics.json").read_text())
    assert doc["config"]["core"] == "toy" and doc["config"]["unit"] == "unit"
    assert doc["metrics"]["decisions"] > 0
    run = load_run(out)  # the pictures read any core's folder
    assert run.unit == "unit" and np.nanmax(run.usage[:, 0]) <= 6
    assert main(["plot", "gantt", str(out)]) == 0
    # its spec and policies are checked before anything is read
    assert main([*argv, "--solver", "dp", "--option", "units=2", "--out", str(out)]) == 2
    assert "--option units: expected an integer >= 4, got 2" in capsys.readouterr().err
    assert main(["simulate", "--workload", "toy:jobs=5", "--policy", "toy-pick"]) == 2
    assert "needs --solver" in capsys.readouterr().err
    placement = ["--solver", "placement-earliest"]
    assert main([*argv, *placement, "--out", str(out)]) == 2
    assert "poses selection problems" in capsys.readouterr().err


def test_the_api_runs_the_toy_core_and_its_metrics_join_the_catalogue(toy_core):
    fifo = api.simulate("toy:jobs=60,seed=1", policy="toy-fifo")
    pick = api.simulate("toy:jobs=60,seed=1", policy="toy-pick", solver="dp")
    assert fifo.core.name == pick.core.name == "toy"
    assert pick.metrics["toy_mean_wait_s"] <= fifo.metrics["toy_mean_wait_s"]
    assert catalogue()["toy_usage"].direction == "higher"


SUITE = """
[suite]
name = "toy"
budget_s = 5

[[simulations]]
name = "toy-small"
workload = "toy:jobs=30,seed=3"
units = 6
policies = ["toy-fifo", "toy-pick:dp", "toy-pick:naive"]
"""


def test_a_suite_runs_toy_cells_and_report_compare_and_plot_read_them(toy_core, tmp_path):
    suite = tmp_path / "toy.toml"
    suite.write_text(SUITE)
    store = tmp_path / "toy.sqlite"
    summary = api.run_suite(suite, store=store)  # cells run in spawned worker processes
    assert summary.cells_run == 3 and summary.errors == 0
    with ResultStore(store, readonly=True) as st:
        rows = {r["solver"]: r for r in st.rows("toy")}
    assert rows["toy-pick:dp"]["params"] == {"system": "", "units": 6, "core": "toy"}
    assert rows["toy-fifo"]["metrics"]["toy_usage"] > 0
    text = api.report(store, html=tmp_path / "toy.html")
    assert "toy-pick:dp" in text and "vs base" in text
    page = (tmp_path / "toy.html").read_text()
    assert page.count('data-plot="gantt"') == 3
    # the gate knows the toy core's metrics and their directions (the catalogue)
    assert main(["compare", str(store), str(store), "--fail", "toy_usage:0"]) == 0
    assert main(["plot", "usage", str(tmp_path / "toy-runs" / rows["toy-fifo"]["cell_id"])]) == 0


def test_a_suite_refuses_a_policy_of_another_core(toy_core, tmp_path):
    suite = tmp_path / "bad.toml"
    suite.write_text(SUITE.replace('"toy-pick:naive"', '"naive"'))
    with pytest.raises(
        Exception, match=r"simulations\[0\]\.policies\[2\]: expected a policy of core 'toy'"
    ):
        api.run_suite(suite, store=tmp_path / "x.sqlite")
