"""pytest-benchmark suite for the exact DP (not in the default test pass).

Run: ``make bench-pytest`` (``pytest bench/ --benchmark-enable``). Quality goes into
``extra_info``; groups are per instance family.
"""

from __future__ import annotations

import pytest

from schedbench.instances.windows import cerberus_run_window, theta_window
from schedbench.simcore.problem import Budget
from schedbench.solvers.registry import make_solver

BUDGET = Budget(deadline_s=30)


@pytest.mark.parametrize("w", [20, 50, 100, 200])
def test_dp_theta_pareto_front(benchmark, w):
    benchmark.group = "dp: Theta windows, exact Pareto front"
    dp = make_solver("dp")
    problem = theta_window(w, 1)
    decision = benchmark.pedantic(dp.solve, args=(problem, BUDGET), rounds=5, iterations=1)
    benchmark.extra_info.update(
        status=decision.status.value,
        front=len(decision.pareto),
        states_peak=decision.stats["states_peak"],
    )
    assert decision.status.value == "optimal"


@pytest.mark.parametrize("w", [10, 20])
def test_dp_cerberus_cn_bb(benchmark, w):
    benchmark.group = "dp: Cerberus CN x BB (Trinity)"
    dp = make_solver("dp")
    problem = cerberus_run_window(w, 1)
    decision = benchmark.pedantic(dp.solve, args=(problem, BUDGET), rounds=5, iterations=1)
    benchmark.extra_info.update(status=decision.status.value, value=decision.objectives[0])
    assert decision.status.value == "optimal"
