"""The window policy's starvation settings: how a window job ages, what happens when
starved jobs do not fit, and the per-run record of how often the optimiser decided."""

from __future__ import annotations

import numpy as np
import pytest

from schedbench.simcore.engine import simulate
from schedbench.simcore.errors import ConfigError
from schedbench.simcore.metrics import compute_metrics, solver_pass_warning, window_pass_stats
from schedbench.simcore.policies import WINDOW_DIAGNOSTICS, NaivePolicy, WindowPolicy
from schedbench.simcore.system import System
from schedbench.solvers.registry import make_solver
from tests.simcore.test_engine import M10, jobs, run


def start_of(r, w, job_id):
    return float(r.start[int(np.flatnonzero(w.job_id == job_id)[0])])


# -- ageing -------------------------------------------------------------------------------------
def blocked_head_workload():
    """A long job takes 8 of 10 nodes until 1000; X (6 nodes) waits behind it while 1-node,
    1 s jobs arrive every second: every pass starts them all (no choice, no solver call)."""
    n = 12
    return jobs(
        submit=[0, 1, *range(2, 2 + n)],
        runtime=[1000, 10] + [1] * n,
        nodes=[8, 6] + [1] * n,
    )


def test_decision_ageing_leaves_a_job_alone_in_passes_without_a_choice():
    w = blocked_head_workload()
    r = run(w, M10, WindowPolicy(make_solver("dp"), window=5, starvation_bound=3))
    assert r.counters["decisions"] == 0 and r.counters["choice_passes"] == 0
    assert r.counters["starved_heads"] == 0  # X never aged: nobody chose against it
    assert start_of(r, w, 2) == 1000


def test_pass_ageing_starves_the_same_job_after_bound_passes():
    w = blocked_head_workload()
    policy = WindowPolicy(make_solver("dp"), window=5, starvation_bound=3, ageing="pass")
    r = run(w, M10, policy)
    assert r.counters["starved_heads"] > 0  # X starved after three passes
    assert start_of(r, w, 2) == 1000  # ... and waits for its reservation all the same


def test_seconds_ageing_counts_time_since_the_job_entered_the_window():
    w = blocked_head_workload()
    policy = WindowPolicy(make_solver("dp"), window=5, starvation_bound=5.5, ageing="seconds")
    r = run(w, M10, policy)
    # X entered the window at 1, starved from 6.5 on: the passes at 7, ..., 13 (arrivals) and
    # 14 (the last 1 s job ends); at 1000 it fits and starts
    assert r.counters["starved_heads"] == 8


def test_decision_ageing_forces_a_job_left_out_of_bound_decisions():
    # X (6 nodes) and two 5-node fillers every 10 s on 10 nodes; the stub never picks X.
    # Every pass is a decision, so X must start at the pass after its third decision.
    from tests.simcore.test_engine import StubSolver, greedy_without

    n_fill = 10
    w = jobs(
        submit=[0] + [10 * (i // 2) for i in range(n_fill)],
        runtime=[10] * (n_fill + 1),
        nodes=[6] + [5] * n_fill,
    )
    r = run(w, M10, WindowPolicy(StubSolver(greedy_without(6)), window=5, starvation_bound=3))
    assert start_of(r, w, 1) == 30
    assert r.counters["starved_forced"] >= 1


def test_candidate_ageing_spares_a_job_that_could_not_be_chosen():
    """L holds 6 of 10 nodes until 1000, so X (5 nodes) cannot fit; pairs of 3-node, 1 s jobs
    arrive at 1, 3, 5 and 7, and each pair is a choice (6 > 4 free nodes) for the solver.
    ``decision`` ages X at each of the four decisions, so it starves with bound 3;
    ``candidate`` ages only the jobs the solver could have chosen, so X never starves."""
    w = jobs(
        submit=[0, 0.5, 1, 1, 3, 3, 5, 5, 7, 7],
        runtime=[1000, 10] + [1] * 8,
        nodes=[6, 5] + [3] * 8,
    )
    dp = make_solver("dp")
    by_decision = run(w, M10, WindowPolicy(dp, window=5, starvation_bound=3))
    by_candidate = run(w, M10, WindowPolicy(dp, window=5, starvation_bound=3, ageing="candidate"))
    assert by_decision.counters["choice_passes_solver"] == 4
    assert by_decision.counters["starved_heads"] > 0
    assert by_candidate.counters["choice_passes_solver"] == 4
    assert by_candidate.counters["starved_heads"] == 0
    assert start_of(by_candidate, w, 2) == start_of(by_decision, w, 2) == 1000


# -- optimising around a starved head ---------------------------------------------------------
def around_head_workload():
    """R (6 nodes) runs until 100. S (8 nodes) arrives at 0.5 and cannot fit before 100. At 1.5
    three short jobs arrive: A1 (3 nodes), A2 (2), A3 (2), 10 s each, in that order; 4 nodes
    are free. S is starved (one second in the window) when they arrive."""
    return jobs(
        submit=[0, 0.5, 1.5, 1.5, 1.5],
        runtime=[100, 50, 10, 10, 10],
        nodes=[6, 8, 3, 2, 2],
    )


def test_the_rest_of_the_window_is_optimised_around_the_starved_heads_reservation():
    w = around_head_workload()
    log = []
    policy = WindowPolicy(make_solver("dp"), window=5, starvation_bound=1, ageing="seconds")
    r = run(w, M10, policy, decision_log=log.append)
    # the exact front around S's reservation: A2 + A3 (4 nodes) beats A1 (3) ...
    assert start_of(r, w, 4) == start_of(r, w, 5) == 1.5
    assert start_of(r, w, 3) == 11.5
    assert start_of(r, w, 2) == 100  # ... and S starts exactly at its reservation
    assert r.counters["choice_passes"] == 1 and r.counters["choice_passes_solver"] == 1
    entry = next(e for e in log if e["t"] == 1.5)
    assert entry["starved_head"] == 2 and entry["selected"] == [4, 5]
    assert entry["free_at_head"] == [2.0]  # 10 nodes at 100, less S's 8


def test_without_optimising_around_the_head_the_backfiller_decides_and_it_counts_as_blocked():
    w = around_head_workload()
    policy = WindowPolicy(
        make_solver("dp"),
        window=5,
        starvation_bound=1,
        ageing="seconds",
        optimise_around_head=False,
    )
    r = run(w, M10, policy)
    assert start_of(r, w, 3) == 1.5  # EASY, in queue order: A1 fits first, then nothing
    assert start_of(r, w, 2) == 100
    assert r.counters["choice_passes"] == 1
    assert r.counters.get("choice_passes_solver", 0) == 0
    assert r.counters["starvation_blocked"] == 1


def test_a_long_job_that_would_hold_the_heads_nodes_is_no_candidate():
    # As above, but A1 runs 500 s: it would still hold 3 nodes at 100, when S needs 8 of 10.
    w = jobs(submit=[0, 0.5, 1.5, 1.5, 1.5], runtime=[100, 50, 500, 10, 10], nodes=[6, 8, 3, 2, 2])
    policy = WindowPolicy(make_solver("dp"), window=5, starvation_bound=1, ageing="seconds")
    r = run(w, M10, policy)
    assert start_of(r, w, 2) == 100
    assert start_of(r, w, 3) >= 100  # never before S


def test_the_head_reservation_covers_the_burst_buffer_too():
    # 10 nodes, 100 GB. R holds 2 nodes and 90 GB until 100; S needs 2 nodes and 50 GB.
    # Two short candidates fit now; a long one (400 s, 20 GB) would leave S 40 GB at 100.
    bb = System.simple("bb", 10, 100.0)
    w = jobs(
        submit=[0, 0.5, 1.5, 1.5, 1.5],
        runtime=[100, 10, 400, 10, 10],
        nodes=[2, 2, 1, 3, 3],
        bb_gb=[90.0, 50.0, 20.0, 5.0, 5.0],
    )
    policy = WindowPolicy(make_solver("dp"), window=5, starvation_bound=1, ageing="seconds")
    r = run(w, bb, policy)
    assert start_of(r, w, 2) == 100
    assert start_of(r, w, 3) >= 100


# -- counters, metrics, warnings ----------------------------------------------------------------
def test_the_diagnostic_counters_change_no_schedule():
    rng = np.random.default_rng(3)
    n = 80
    w = jobs(
        submit=np.sort(rng.integers(0, 300, n)).astype(float),
        runtime=rng.integers(1, 60, n).astype(float),
        nodes=rng.integers(1, 8, n),
    )
    r = run(w, M10, WindowPolicy(make_solver("dp"), window=6, starvation_bound=3))
    assert set(WINDOW_DIAGNOSTICS) <= set(r.counters)
    c = r.counters
    assert c["choice_passes_solver"] + c["starvation_blocked"] <= c["choice_passes"]
    assert c["choice_passes_solver"] <= c["decisions"]


def test_solver_pass_share_and_the_warning():
    assert window_pass_stats({"passes": 3}) == {
        "choice_passes": None,
        "solver_pass_share": None,
        "starvation_blocked": None,
    }
    stats = window_pass_stats(
        {"choice_passes": 10, "choice_passes_solver": 4, "starvation_blocked": 6}
    )
    assert stats == {"choice_passes": 10, "solver_pass_share": 0.4, "starvation_blocked": 6}
    warning = solver_pass_warning(stats)
    assert warning and "40 %" in warning and "10 passes" in warning
    assert solver_pass_warning({**stats, "solver_pass_share": 0.5}) is None
    assert solver_pass_warning({"solver_pass_share": None}) is None


def test_metrics_carry_the_share_for_window_policies_only():
    w = around_head_workload()
    window = compute_metrics(
        simulate(w, M10, WindowPolicy(make_solver("dp"), window=5, starvation_bound=1))
    )
    naive = compute_metrics(simulate(w, M10, NaivePolicy()))
    assert window["choice_passes"] >= 1 and window["solver_pass_share"] is not None
    assert naive["choice_passes"] is None and naive["solver_pass_share"] is None
    for m in (window, naive):
        assert m["offered_node_load"] is not None and m["offered_bb_load"] is None


# -- settings ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"ageing": "weeks"}, "ageing: expected one of decision, pass, seconds"),
        ({"ageing": "pass", "starvation_bound": 2.5}, "an integer >= 1"),
        ({"ageing": "seconds", "starvation_bound": 0}, "seconds > 0"),
        ({"optimise_around_head": "yes"}, "optimise_around_head"),
        ({"starvation": "old"}, "starvation: expected one of paper, legacy"),
    ],
)
def test_bad_settings_are_refused(options, match):
    with pytest.raises(ConfigError, match=match):
        WindowPolicy(make_solver("naive"), **options)


def test_describe_names_settings_that_differ_from_the_defaults():
    solver = make_solver("dp")
    assert WindowPolicy(solver).describe() == "window[dp,w=20]+easy"
    legacy = WindowPolicy(solver, ageing="pass", optimise_around_head=False, starvation_bound=9)
    assert legacy.describe() == "window[dp,w=20,ageing=pass,bound=9,around_head=no]+easy"


def test_named_starvation_settings():
    solver = make_solver("dp")
    paper = WindowPolicy(solver)
    assert (paper.starvation, paper.ageing, paper.optimise_around_head) == (
        "paper",
        "decision",
        True,
    )
    legacy = WindowPolicy(solver, starvation="legacy")
    assert (legacy.ageing, legacy.optimise_around_head) == ("pass", False)
    assert legacy.describe() == "window[dp,w=20,ageing=pass,around_head=no]+easy"
    # an explicit setting overrides the named one
    mixed = WindowPolicy(solver, starvation="legacy", optimise_around_head=True)
    assert (mixed.ageing, mixed.optimise_around_head) == ("pass", True)
    # the legacy setting gives the same schedule as its two settings spelt out
    w = blocked_head_workload()
    a = run(w, M10, WindowPolicy(solver, window=5, starvation_bound=3, starvation="legacy"))
    b = run(
        w,
        M10,
        WindowPolicy(
            solver, window=5, starvation_bound=3, ageing="pass", optimise_around_head=False
        ),
    )
    assert np.array_equal(a.start, b.start) and a.counters == b.counters


def test_a_suite_run_warns_when_the_solver_is_mostly_skipped(tmp_path):
    """Suite runs carry the same warning as `simulate` (the legacy rule starves the
    optimiser on a BB-heavy workload; the paper's ageing per decision does not)."""
    from schedbench.bench.run.runner import run_suite
    from schedbench.bench.suite.schema import load_suite

    def summary(starvation: str):
        path = tmp_path / f"{starvation}.toml"
        path.write_text(
            f'[suite]\nname = "warn-{starvation}"\n[[simulations]]\nname = "sc"\n'
            'workload = "lublin:jobs=400,nodes=4392,seed=1+bbsched:S4,seed=1+arrivals:2.5"\n'
            f'system = "theta"\nwindow = 10\npolicy_options = {{ starvation = "{starvation}" }}\n'
            'policies = ["window:dp"]\n'
        )
        return run_suite(
            load_suite(path), store_path=tmp_path / f"{starvation}.sqlite", show_progress=False
        )

    legacy = summary("legacy")
    assert len(legacy.warnings) == 1 and "reached the solver" in legacy.warnings[0]
    assert "sc window:dp" in legacy.warnings[0]
    assert summary("paper").warnings == ()
