"""The cqsim profile against the BBSched authors' simulator: CQSim's four schedules of the
shipped calibration workload (dataset ``bbsched-w1``) are reproduced job for job.

CQSim ``-u F|M -x 10 -b 1|2`` is the profile's ``naive``/``window`` policy with a window of 10
and EASY/conservative backfilling (model note bbsched-cqsim-semantics, introduction). The
``.rst`` times are relative to the first job's submission (§1, §12). The second half shows
that the rules which act on this workload are needed: switched back to the paper's reading
one at a time, each breaks the match.
"""

from __future__ import annotations

import numpy as np
import pytest

from schedbench.instances import datasets
from schedbench.instances.systems import resolve_system
from schedbench.instances.workloads import load_workload
from schedbench.simcore.cqsim import CqsimConfig, CqsimRules, CqsimSimulation
from schedbench.simcore.workload import Workload
from schedbench.solvers.registry import make_solver

#: (CQSim's schedule in the dataset, policy, backfilling)
CONFIGS = {
    "F_b1": ("naive", "easy"),
    "F_b2": ("naive", "conservative"),
    "M_b1": ("window", "easy"),
    "M_b2": ("window", "conservative"),
}


@pytest.fixture(scope="module")
def w1() -> Workload:
    return load_workload("bbsched-w1")


def cqsim_starts(member: str) -> dict[int, float]:
    """Job id -> start time of one of CQSim's ``.rst`` schedules (``id;...;start;end``)."""
    with datasets.open_text(datasets.path(f"bbsched-w1/{member}")) as fh:
        header, *lines = fh.read().splitlines()
    cols = header.split(";")
    assert cols[0] == "id" and cols[8] == "start", header
    return {int(f[0]): float(f[8]) for f in (line.split(";") for line in lines)}


def mismatches(w: Workload, start: np.ndarray, member: str) -> tuple[int, list[str]]:
    """How many jobs start when CQSim starts them, and the first divergences in time order."""
    ref = cqsim_starts(member)
    ours = start - w.submit[0]  # time zero: the first job's submission (§1)
    ids = w.job_id.tolist()
    assert sorted(ids) == sorted(ref)
    wrong = [
        (min(ours[i], ref[j]), j, ours[i], ref[j]) for i, j in enumerate(ids) if ours[i] != ref[j]
    ]
    wrong.sort()
    return len(ids) - len(wrong), [f"job {j}: ours {a:g}, CQSim {b:g}" for _, j, a, b in wrong[:3]]


def run(w: Workload, member: str, **rules: object) -> np.ndarray:
    policy, backfill = CONFIGS[member]
    config = CqsimConfig(policy=policy, window=10, backfill=backfill, rules=CqsimRules(**rules))
    return CqsimSimulation(w, resolve_system("theta"), config).run().start


@pytest.mark.parametrize("member", sorted(CONFIGS))
def test_every_start_time_equals_cqsims(w1: Workload, member: str) -> None:
    matched, first = mismatches(w1, run(w1, member), member)
    assert matched == len(w1), f"{member}: {matched}/{len(w1)} jobs match; first: {first}"


@pytest.mark.parametrize("member", ["M_b1", "M_b2"])
def test_an_exact_solver_ranking_the_window_gives_the_same_schedules(w1, member):
    """``selection="solver"``: the exact DP's Pareto set instead of CQSim's enumeration. W1
    never has two window subsets with one vector, so the equal-vector rule (§6.3) does not act
    and the schedules are CQSim's."""
    policy, backfill = CONFIGS[member]
    config = CqsimConfig(
        policy=policy, window=10, backfill=backfill, rules=CqsimRules(selection="solver")
    )
    sim = CqsimSimulation(w1, resolve_system("theta"), config, solver=make_solver("dp", {}))
    result = sim.run()
    matched, first = mismatches(w1, result.start, member)
    assert matched == len(w1), f"{member}: {matched}/{len(w1)} jobs match; first: {first}"
    assert len(result.decision_latency_s) == result.counters["decisions"] > 0


@pytest.mark.parametrize(
    ("member", "rule", "paper"),
    [
        ("F_b1", "pass_per_event", False),  # §3
        ("F_b2", "bb_abandon", False),  # §8
        ("F_b1", "split_now_point", False),  # §7
        ("M_b2", "decision_maker", "paper"),  # §6.4
    ],
)
def test_each_rule_that_acts_on_w1_is_needed(w1, member, rule, paper):
    matched, _ = mismatches(w1, run(w1, member, **{rule: paper}), member)
    assert matched < len(w1) * 0.8, f"{rule}={paper!r} still matches {matched} jobs"
