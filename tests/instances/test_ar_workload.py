"""Advance-reservation request streams (instances/ar_workload.py): the paper's generator, SWF
import, the strict request CSV, and the ar-requests problem source."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from schedbench.instances import datasets
from schedbench.instances.ar_workload import (
    ARRequestProblems,
    generate_ar_requests,
    invalid_requests,
    map_runtimes,
    offered_load,
    read_requests_csv,
    requests_from_swf,
    write_requests_csv,
)
from schedbench.instances.lublin import generate_lublin
from schedbench.instances.sources import SourceError, SourceLimits, get_source
from schedbench.simcore.kinds.reservation import ReservationProblem
from schedbench.simcore.reservations.requests import Request, RequestError


def test_generator_follows_the_papers_setting():
    rs = generate_ar_requests(3000, seed=4, umed=7, artime=3, deadline=3)
    sizes = np.array([r.pes for r in rs])
    assert set(sizes) <= {32, 64, 128, 256, 512, 1024} and {32, 1024} <= set(sizes)
    assert {r.duration for r in rs} <= {60, 300, 900, 1800, 3600, 10800}
    assert [r.id for r in rs] == list(range(1, 3001))
    assert all(r.arrival <= r.ready <= r.arrival + 3 * r.duration for r in rs)
    assert all(r.ready + r.duration <= r.deadline <= r.ready + 4 * r.duration for r in rs)
    assert all(a.arrival <= b.arrival for a, b in itertools.pairwise(rs))
    assert rs == generate_ar_requests(3000, seed=4)  # same arguments, same requests
    # a larger UMed gives larger jobs and, through the model's size-runtime correlation,
    # longer ones
    big = generate_ar_requests(3000, seed=4, umed=9)
    assert np.mean([r.pes for r in big]) > 1.5 * sizes.mean()
    assert np.mean([r.duration for r in big]) > np.mean([r.duration for r in rs])


def test_factors_change_the_windows_of_the_same_jobs():
    base = generate_ar_requests(500, seed=2, artime=0, deadline=0)
    assert all(r.ready == r.arrival and r.deadline == r.ready + r.duration for r in base)
    flex = generate_ar_requests(500, seed=2, artime=5, deadline=5)
    assert [(r.arrival, r.duration, r.pes) for r in flex] == [
        (r.arrival, r.duration, r.pes) for r in base
    ]
    crowded = generate_ar_requests(500, seed=2, af=2.0, artime=0, deadline=0)
    assert [r.arrival for r in crowded] == [r.arrival // 2 for r in base]
    assert offered_load(crowded, 1024) == pytest.approx(2 * offered_load(base, 1024), rel=0.01)
    with pytest.raises(RequestError, match="af: expected a finite number > 0"):
        generate_ar_requests(5, af=0)


def test_runtime_mapping():
    rt = np.array([1, 60, 61, 299, 3601, 10800, 99999])
    assert map_runtimes(rt, "ceil").tolist() == [60, 60, 300, 300, 10800, 10800, 10800]
    assert map_runtimes(rt, "nearest").tolist() == [60, 60, 60, 300, 3600, 10800, 10800]
    assert map_runtimes(np.array([0.2, 7.5]), "none").tolist() == [1, 8]
    with pytest.raises(ValueError, match="runtime_map"):
        map_runtimes(rt, "round")  # type: ignore[arg-type]


def test_lublin_serial_and_power_of_two_overrides():
    w = generate_lublin(2000, nodes=1024, seed=1, serial_prob=0.0, pow2_prob=1.0, ulow=4.5)
    assert w.nodes.min() >= 32 and all(int(n) & (int(n) - 1) == 0 for n in w.nodes)
    plain = generate_lublin(2000, nodes=1024, seed=1)
    assert (plain.nodes == 1).any()
    same = generate_lublin(2000, nodes=1024, seed=1, serial_prob=None, pow2_prob=None)
    assert np.array_equal(plain.nodes, same.nodes) and np.array_equal(plain.submit, same.submit)


# ------------------------------------------------------------------------------- CSV
HEADER = "id,arrival_s,ready_s,duration_s,deadline_s,pes\n"


def test_csv_round_trip_and_integral_floats(tmp_path):
    rs = generate_ar_requests(50, seed=1)
    path = tmp_path / "r.csv"
    write_requests_csv(rs, path)
    assert read_requests_csv(path) == rs
    path.write_text("pes, deadline_s,id,arrival_s,ready_s,duration_s\n4,100.0,7,0,10,30\n\n")
    assert read_requests_csv(path) == [Request(0, 7, 10, 30, 100, 4)]


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("", "empty file; expected a header"),
        ("id,arrival_s,ready_s,duration_s,pes\n", "expected the columns id, arrival_s"),
        (HEADER.replace("pes", "pes,extra"), "expected the columns"),
        (HEADER + "1,0,0,10,20\n", r"r.csv:2: expected 6 values, got 5"),
        (HEADER + "1,0,0,10.5,20,1\n", r"r.csv:2: request 1: duration_s: expected an integer"),
        (HEADER + "x,0,0,10,20,1\n", r"r.csv:2: id: expected an integer, got 'x'"),
        (HEADER + "1,0,0,10,20,1\n1,0,0,10,20,1\n", r"r.csv:3: request 1: the id is already"),
    ],
)
def test_csv_errors_name_the_line_and_the_request(tmp_path, text, match):
    path = tmp_path / "r.csv"
    path.write_text(text)
    with pytest.raises(RequestError, match=match):
        read_requests_csv(path)


def test_csv_missing_file_is_named(tmp_path):
    with pytest.raises(RequestError, match=r"nope\.csv: cannot read the request file"):
        read_requests_csv(tmp_path / "nope.csv")


def test_invalid_requests_are_listed_with_a_reason():
    rs = [Request(0, 1, 0, 10, 20, 2), Request(0, 2, 0, 10, 5, 2), Request(0, 3, 0, 10, 50, 9)]
    assert [(rid, reason.split(":")[0]) for rid, reason in invalid_requests(rs, 8)] == [
        (2, "deadline 5 < ready 0 + duration 10"),
        (3, "pes 9"),
    ]


# ------------------------------------------------------------------------------- SWF
def test_requests_from_an_swf_trace(tmp_path):
    swf = tmp_path / "t.swf"
    swf.write_text(
        "; MaxProcs: 8\n"
        "1 0 0 100 4 -1 -1 4 120 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
        "2 50 0 30 16 -1 -1 16 30 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
        "3 90 0 200 2 -1 -1 2 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
    )
    rs = requests_from_swf(swf, artime=0, deadline=0)
    assert [(r.id, r.arrival, r.duration, r.pes) for r in rs] == [
        (1, 0, 120, 4),  # the requested time
        (2, 50, 30, 16),
        (3, 90, 200, 2),  # no requested time: the runtime
    ]
    assert [rid for rid, _ in invalid_requests(rs, 8)] == [2]  # larger than the machine
    runtime = requests_from_swf(swf, artime=0, deadline=0, duration="runtime", af=2)
    assert [(r.arrival, r.duration) for r in runtime] == [(0, 100), (25, 30), (45, 200)]


def test_requests_from_the_kth_trace():
    rs = requests_from_swf(datasets.path("kth-sp2"), max_jobs=500)
    assert len(rs) == 500 and all(r.deadline >= r.ready + r.duration for r in rs)


# ------------------------------------------------------------------------------- source
def test_the_ar_requests_source_poses_the_streams_decisions(tmp_path):
    src = get_source("ar-requests")
    assert isinstance(src, ARRequestProblems)
    spec = {"jobs": 30, "seeds": 1, "every": 10, "umed": 6}
    src.check(spec, tmp_path, SourceLimits())
    items = list(src.build(spec, tmp_path))
    assert len(items) == src.count(spec, tmp_path) == 3
    assert all(isinstance(i.problem, ReservationProblem) for i in items)
    assert items[0].problem.held == () and items[0].label == "seed1-req1"
    with pytest.raises(SourceError, match="policy"):
        src.check({"policy": "best"}, tmp_path, SourceLimits())
    with pytest.raises(SourceError, match="jobs"):
        src.check({"jobs": 0}, tmp_path, SourceLimits())
