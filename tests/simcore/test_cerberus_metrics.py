"""Cerberus metrics (simcore/cerberus/metrics.py): throughput counted cleanly and as the paper
counted, utilisation time-weighted and as a plain mean, every metric in the catalogue."""

from __future__ import annotations

import numpy as np
import pytest

from schedbench.simcore.catalogue import catalogue
from schedbench.simcore.cerberus import (
    CerberusSimulation,
    CerberusWorkload,
    config_for,
    make_variant,
)
from schedbench.simcore.cerberus.metrics import (
    CERBERUS_METRICS,
    compute_cerberus_metrics,
    throughput_clean,
    throughput_paper,
    utilisation,
)
from schedbench.simcore.system import System


def test_clean_throughput_counts_each_completion_once_in_bins_up_to_the_makespan():
    c = np.array([100.0, 500.0, 501.0, 1000.0, 1200.5])
    counts = throughput_clean(c, 1200.5)
    assert counts.tolist() == [2, 2, 1]  # (0,500], (500,1000], (1000,1500]
    assert counts.sum() == c.size


def test_paper_throughput_includes_both_ends_adds_one_on_a_lower_edge_and_in_the_last_bin():
    c = np.array([100.0, 500.0, 501.0, 1000.0, 1200.5])
    # edges: multiples of 500 below floor(1200.5) + 500 = 1700 -> 0, 500, 1000, 1500
    # [0,500]: 100, 500 -> 2; [500,1000]: 500, 501, 1000 -> 3, +1 (500 on its lower edge);
    # [1000,1500]: 1000, 1200.5 -> 2, +1 (1000 on its lower edge), +1 (final bin)
    assert throughput_paper(c, 1200.5).tolist() == [2, 4, 4]


def test_paper_edges_stop_below_floor_makespan_plus_500():
    # makespan 1000.5: floor + 500 = 1500, edges 0, 500, 1000: the last completion lies past
    # the last edge and is counted only by the final bin's extra one (as upstream did)
    assert throughput_paper(np.array([1000.5]), 1000.5).tolist() == [0, 1]
    assert throughput_clean(np.array([1000.5]), 1000.5).tolist() == [0, 0, 1]


def test_utilisation_time_weighted_and_plain_mean():
    t = np.array([0.0, 10.0, 30.0])
    u = np.array([1.0, 0.5, 0.0])
    weighted, plain = utilisation(t, u)
    assert weighted == pytest.approx((1.0 * 10 + 0.5 * 20) / 30)
    assert plain == pytest.approx(0.5)
    assert utilisation(np.array([]), np.array([])) == (None, None)


def test_every_metric_is_in_the_catalogue_and_computed():
    n = 3
    w = CerberusWorkload(
        job_id=[1, 2, 3],
        submit=[0.0, 0.0, 5.0],
        cores=[256, 512, 256],
        runtime=[100.0, 50.0, 10.0],
        requested=[200.0, 100.0, 20.0],
        in_gb=[8.0] * n,
        run_tb=[1.0] * n,
        out_tb=[2.0] * n,
        max_tb=[np.nan] * n,
    )
    system = System.simple("m", 768, 10_000.0, unit="processors")
    from schedbench.solvers.registry import make_solver

    pol = make_variant("cerberus-maxt", solver=make_solver("cerberus-dp"))
    res = CerberusSimulation(w, system, pol, config_for("faithful")).run()
    m = compute_cerberus_metrics(res)
    names = {s.name for s in CERBERUS_METRICS}
    assert names <= set(m) and names <= set(catalogue())
    assert m["cerberus_jobs_done"] == 3 and m["makespan_from_zero_s"] == pytest.approx(
        float(np.nanmax(res.complete))
    )
    assert m["knapsack_solves"] == len(res.calls) and m["decisions"] >= 1
    waits = res.waits()
    assert m["wait_total_mean_s"] == pytest.approx(float(np.mean(waits["wait"])))
    assert m["response_max_s"] == pytest.approx(float(np.max(res.complete - res.submit)))
    assert all(v is None or isinstance(v, (int, float)) for v in m.values())
