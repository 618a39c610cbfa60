"""The cqsim profile's rules on small traces worked out by hand (model note
bbsched-cqsim-semantics, section numbers in each test), each against its paper reading.

Jobs are listed in submit order and named by letter; expected starts are derived in comments.
"""

from __future__ import annotations

import numpy as np
import pytest

from schedbench.simcore.cqsim import (
    CqsimConfig,
    CqsimRules,
    CqsimSimulation,
    _Profile,
    decide,
    pareto_front,
    rules_from,
)
from schedbench.simcore.errors import ConfigError
from schedbench.simcore.schedule import JobState
from schedbench.simcore.system import System
from schedbench.simcore.workload import Workload
from schedbench.solvers.registry import make_solver

M10 = System.simple("m10", 10, bb_gb=100)


def jobs(**columns) -> Workload:
    return Workload.from_columns(**columns)


def starts(w: Workload, policy="naive", backfill="easy", solver=None, **rules) -> list[float]:
    config = CqsimConfig(policy=policy, window=10, backfill=backfill, rules=CqsimRules(**rules))
    result = CqsimSimulation(w, M10, config, solver=solver).run()
    return result.start.tolist()


def test_the_reservation_is_abandoned_when_the_bb_misses_where_the_nodes_first_fit():
    """§8. A (5 nodes, 10 s) and B (2 nodes, 80 GB, 100 s) run; H (8 nodes, 50 GB) arrives at
    1: the nodes first suffice at 10, where only 20 GB are free, so CQSim gives H no
    reservation and J (3 nodes, 20 GB, 200 s) backfills at 2; H then waits for J's nodes
    (202). Searching on, H is booked at 100 and J no longer fits beside it: H 100, J 110."""
    w = jobs(
        submit=[0, 0, 1, 2],
        runtime=[10, 100, 10, 200],
        nodes=[5, 2, 8, 3],
        bb_gb=[0, 80, 50, 20],
    )
    assert starts(w)[2:] == [202, 2]
    assert starts(w, bb_abandon=False)[2:] == [100, 110]


def test_queued_jobs_are_timed_by_their_runtime():
    """§9. A (6 nodes, 100 s) runs; B (8 nodes) waits for 100; C (4 nodes, runtime 50,
    request 200) fits beside B's reservation for its 50 s, not for its 200: CQSim backfills it
    at 2, the paper's reading leaves it until B ends (110)."""
    w = jobs(
        submit=[0, 1, 2],
        runtime=[100, 10, 50],
        requested_time=[100, 10, 200],
        nodes=[6, 8, 4],
    )
    assert starts(w) == [0, 100, 2]
    assert starts(w, queued_duration="requested") == [0, 100, 110]


def test_a_pass_follows_every_event():
    """§3. A and B end at 10 with C queued: two passes at 10 (the first still sees B
    running), one under the paper's reading. C starts at 10 either way."""
    w = jobs(submit=[0, 0, 1], runtime=[10, 10, 5], nodes=[5, 5, 10])
    per_event = CqsimSimulation(w, M10).run()
    per_instant = CqsimSimulation(w, M10, CqsimConfig(rules=CqsimRules(pass_per_event=False))).run()
    assert per_event.start.tolist() == per_instant.start.tolist() == [0, 0, 10]
    # arrivals at 0, 0, 1 and the completions at 10, 10: a pass after each event with a queue
    assert per_event.counters["passes"] == 3 + 2
    assert per_instant.counters["passes"] == 2 + 1


BLOCKED = {"submit": [0, 1, 2], "runtime": [10, 5, 5], "nodes": [10, 3, 8]}


def test_the_window_is_used_only_when_three_jobs_wait():
    """§6.1. A (10 nodes) runs until 10; X (3 nodes) and Y (8 nodes) wait. Two jobs are too
    few for CQSim's window: FCFS starts X at 10, Y after it (15). With the window at any
    queue length, {Y} uses more nodes than {X} and {X, Y} does not fit: Y at 10, X at 15."""
    w = jobs(**BLOCKED)
    assert starts(w, policy="window") == [0, 10, 15]
    assert starts(w, policy="window", window_min_queue=1) == [0, 15, 10]


EQUAL = {
    "submit": [0, 1, 2, 3],
    "runtime": [10, 5, 5, 5],
    "nodes": [10, 5, 5, 4],
    "bb_gb": [0, 0, 0, 50],
}


def test_subsets_with_equal_vectors_knock_each_other_out():
    """§6.3, §6.4. A (10 nodes) runs until 10; P, Q (5 nodes) and R (4 nodes, 50 GB) wait.
    {P, R} and {Q, R} both give (0.9, 0.5): CQSim drops both, and {R} (0.4, 0.5) is dominated
    by them, so the front is {P, Q} alone: P, Q at 10, R at 15. Keeping one of the pair, the
    decision maker prefers (0.9, 0.5) over (1.0, 0.0) (BB gain 0.5 > 0.3 x 0, node loss
    0.1 - 1 ulp < 0.1): P and R at 10, Q at 15."""
    w = jobs(**EQUAL)
    assert starts(w, policy="window") == [0, 10, 10, 15]
    assert starts(w, policy="window", equal_vectors_excluded=False) == [0, 10, 15, 10]


def test_a_solver_ranking_the_window_cannot_apply_the_equal_vector_rule():
    """§6.3: a solver returns one selection per vector, so with ``selection="solver"`` the
    pair of equal vectors stays on the front, as with the rule switched off."""
    w = jobs(**EQUAL)
    dp = make_solver("dp", {})
    assert starts(w, policy="window", solver=dp, selection="solver") == [0, 10, 15, 10]


def test_the_two_decision_makers():
    """§6.4 against BBSched §3.2.4: losing 0.15 of the nodes for 0.5 of the BB is refused by
    CQSim's 0.1 bound and taken by "twice the node loss" (0.5 > 0.3)."""
    u, b = [1.0, 0.85], [0.0, 0.5]
    assert decide(u, b, "cqsim") == 0
    assert decide(u, b, "paper") == 1
    assert decide([1.0, 0.9], [0.0, 0.5], "cqsim") == 1  # 1.0 - 0.9 < 0.1 in doubles


def test_the_front_rule():
    """§6.3: strictly larger than every other subset in one objective; equal vectors out."""
    u = np.array([0.5, 0.9, 0.9, 1.0, 0.4])
    b = np.array([0.5, 0.5, 0.5, 0.0, 0.5])
    assert pareto_front(u, b, True) == [3]
    assert pareto_front(u, b, False) == [3, 1]


def test_a_reservation_at_time_zero_counts_as_not_found():
    """§8: a start found at time zero is no reservation (and books nothing)."""
    prof = _Profile([0.0, 50.0], [4.0, 10.0], [0.0, 0.0], zero=0.0)
    assert prof.search(4, 0, 10, abandon=True) is None
    assert prof.search(8, 0, 10, abandon=True) == 50.0
    assert _Profile([0.0, 50.0], [4.0, 10.0], [0.0, 0.0], zero=None).search(4, 0, 10, True) == 0


def test_booking_splits_the_profile_at_the_end():
    """§8: the points in [start, start + d) lose the job's nodes; a point is made at the end
    with the availability that held there before."""
    prof = _Profile([5.0, 20.0], [4.0, 10.0], [0.0, 0.0], zero=None)
    prof.book(5.0, 3, 0, 10)
    assert (prof.t, prof.n) == ([5.0, 15.0, 20.0], [1.0, 4.0, 10.0])
    assert prof.qualifies(5.0, 1, 0, 100) and not prof.qualifies(5.0, 2, 0, 11)


def test_jobs_that_never_fit_make_no_event_and_read_num_caps_the_trace():
    """§1 steps 3-4: a job larger than the machine is dropped before the run (no arrival
    event, so no pass at its submission); jobs beyond ``read_num`` are never read."""
    w = jobs(submit=[0, 1, 2, 3], runtime=[5, 5, 5, 5], nodes=[2, 11, 2, 2])
    result = CqsimSimulation(w, M10, CqsimConfig(rules=CqsimRules(read_num=2))).run()
    assert result.state.tolist() == [
        JobState.COMPLETED,
        JobState.REJECTED,
        JobState.COMPLETED,
        JobState.REJECTED,
    ]
    assert result.counters["events"] == 4  # two arrivals, two completions
    assert (result.counters["rejected"], result.counters["unread"]) == (1, 1)


def test_bad_settings_are_one_line_naming_the_option():
    with pytest.raises(ConfigError, match=r"^window: expected an integer from 1 to 10"):
        CqsimConfig(policy="window", window=20)
    with pytest.raises(ConfigError, match=r"^backfill: expected one of easy, conservative"):
        CqsimConfig(backfill="none")
    with pytest.raises(ConfigError, match=r"^cqsim_rules.bogus: expected a rule name"):
        rules_from({"bogus": 1})
    with pytest.raises(ConfigError, match=r"^cqsim_rules.bb_abandon: expected true or false"):
        CqsimRules(bb_abandon="yes")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"^cqsim_rules.selection: 'solver' needs a solver"):
        CqsimSimulation(
            jobs(submit=[0], runtime=[1], nodes=[1]),
            M10,
            CqsimConfig(policy="window", rules=CqsimRules(selection="solver")),
        )


TRACE = """; MaxNodes: 10
; MaxProcs: 10
1 5 -1 10 4 -1 -1 -1 10 -1 1 1 1 -1 -1 -1 -1 -1
2 7 -1 10 4 -1 -1 4 -1 -1 1 1 1 -1 -1 -1 -1 -1
3 9 -1 10 6 -1 -1 4 10 -1 1 1 1 -1 -1 -1 -1 -1
4 9 -1 10 4 -1 -1 4 10 -1 1 1 1 -1 -1 -1 -1 -1
"""


def test_cqsim_drops_what_schedbenchs_reader_repairs_and_times_from_the_first_job_kept(tmp_path):
    """§1 step 2: job 1 has no field 8 and job 2 no request (schedbench's reader takes field 5
    and the runtime for them); CQSim drops both, so time zero is job 3's submission (9) and a
    reservation found then counts as none. Job 3 asks for 4 nodes (field 8) but counts 6
    (field 5) in the window's objective."""
    from schedbench.instances.workloads import load_workload

    path = tmp_path / "t.swf"
    path.write_text(TRACE)
    w = load_workload(str(path))
    sim = CqsimSimulation(w, M10)
    result = sim.run()
    assert result.state.tolist()[:2] == [JobState.REJECTED, JobState.REJECTED]
    assert result.counters["dropped"] == 2
    assert result.start.tolist()[2:] == [9, 9]
    assert sim.zero == 9 and sim.obj_nodes[2] == 6 and sim.nodes[2] == 4


@pytest.mark.parametrize("trial", range(4))
@pytest.mark.parametrize(("policy", "backfill"), [("naive", "easy"), ("window", "conservative")])
def test_random_traces_give_valid_schedules(trial, policy, backfill):
    """Requests above and below the runtimes, fractional submit times, burst buffer: every job
    starts and ends, nothing is ever over capacity, and no job starts without its resources."""
    rng = np.random.default_rng(trial)
    n = 150
    submit = np.sort(rng.integers(0, 8000, n)).astype(float) + (trial % 2) * rng.random(n)
    run = rng.integers(1, 2000, n).astype(float)
    factor = rng.uniform(0.6, 1.2, n) if trial >= 2 else rng.uniform(1, 3, n)
    w = jobs(
        submit=submit,
        runtime=run,
        requested_time=np.maximum(1, np.floor(run * factor)),
        nodes=rng.integers(1, 8, n),
        bb_gb=rng.integers(0, 60, n).astype(float) * (rng.random(n) < 0.6),
    )
    config = CqsimConfig(policy=policy, window=10, backfill=backfill)
    r = CqsimSimulation(w, M10, config).run()
    assert not np.isnan(r.start).any() and not np.isnan(r.end).any()
    assert (r.usage[:, 0] <= 10).all() and (r.usage[:, 1] <= 100).all()
    assert r.counters["phantom_starts"] == 0
