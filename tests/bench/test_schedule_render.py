"""``bench/report/schedule_render.py``: the schedule pictures of a report drawn in worker
processes are the pictures drawn here, in the folders' order; a bad folder is named, not
fatal; no pool is started where it would not pay."""

from __future__ import annotations

import pytest

from schedbench.bench.cli import main
from schedbench.bench.report import schedule_render as sr

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    out = []
    for seed, policy in ((1, "naive"), (2, "naive"), (3, "cerberus-maxp")):
        spec = f"lublin:jobs=60,nodes=64,seed={seed}"
        if policy.startswith("cerberus"):
            spec = f"cerberus:jobs=20,seed={seed}"
        folder = root / f"run{seed}"
        argv = ["simulate", "--workload", spec, "--policy", policy, "--out", str(folder)]
        assert main([*argv, "--no-progress"]) == 0
        out.append(folder)
    bad = root / "empty"
    bad.mkdir()
    return [*out, bad]


def test_pooled_pictures_are_the_ones_drawn_here_in_order(folders):
    here = [sr.draw(str(f)) for f in folders]
    with sr.ScheduleRenderer(folders, workers=2) as pool:
        assert pool.pooled
        got = [pool.get(i) for i in range(len(folders))]
    assert got == here
    assert all(p.gantt.startswith(PNG) and p.usage.startswith(PNG) for p in here[:3])
    assert len({p.gantt for p in here[:3]}) == 3  # three different schedules
    assert here[3].error and "jobs.csv" in here[3].error and not here[3].gantt


def test_a_closed_pool_still_answers_by_drawing_here(folders):
    pool = sr.ScheduleRenderer(folders[:1], workers=1)
    pool.close()
    assert pool.get(0) == sr.draw(str(folders[0]))
    if pool.fallbacks:  # cancelled before a worker took it: drawn here, and said why
        assert "Cancelled" in pool.fallbacks[0]


@pytest.mark.parametrize("n", [0, 1, sr.MIN_FOLDERS - 1])
def test_few_folders_are_drawn_without_a_pool(n):
    assert sr._workers(n) == 0


@pytest.mark.parametrize(
    ("load", "cpus", "expected"), [(0.3, 2, 2), (1.2, 2, 2), (2.7, 2, 0), (6.0, 8, 2), (9.0, 8, 0)]
)
def test_a_pool_only_where_a_second_core_is_idle(monkeypatch, load, cpus, expected):
    monkeypatch.setattr(sr.os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(sr.os, "cpu_count", lambda: cpus)
    assert sr._workers(12) == expected
