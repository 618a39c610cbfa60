"""Schedule pictures (issue 18): node placement for the Gantt chart, the queue-length timeline,
`schedbench plot`, decimation, bad folders, and the pictures in the HTML report."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedbench.bench.cli import main
from schedbench.bench.report import schedule_plots as sp
from tests._hyp import examples

PNG = b"\x89PNG\r\n\x1a\n"


@given(
    st.lists(
        st.tuples(st.integers(0, 50), st.integers(1, 30), st.integers(1, 8), st.booleans()),
        min_size=1,
        max_size=30,
    )
)
@settings(max_examples=examples(60))
def test_placement_never_puts_two_jobs_on_one_node_at_once(jobs):
    # a feasible schedule on 8 nodes: start each job at the first time it fits (a list scheduler)
    total = 8
    start, end, nodes = [], [], []
    events: list[tuple[float, float, int]] = []
    for s0, dur, k, never in jobs:
        if never:
            start.append(np.nan), end.append(np.nan), nodes.append(k)
            continue
        t = float(s0)

        def fits(t: float, dur: float = dur, k: int = k) -> bool:
            instants = [t] + [a for a, _b, _n in events if t < a < t + dur]
            return all(sum(n for a, b, n in events if a <= x < b) + k <= total for x in instants)

        while not fits(t):
            t = min(b for _a, b, _n in events if b > t)
        events.append((t, t + dur, k))
        start.append(t), end.append(t + dur), nodes.append(k)
    blocks = sp.assign_nodes(np.array(start), np.array(end), np.array(nodes, float), total)
    for j, b in enumerate(blocks):
        if np.isnan(start[j]):
            assert b == []
            continue
        assert sum(c for _f, c in b) == nodes[j]
        assert all(f >= 0 and f + c <= total for f, c in b)
    for i in range(len(blocks)):
        for j in range(i + 1, len(blocks)):
            if np.isnan(start[i]) or np.isnan(start[j]):
                continue
            if start[i] < end[j] and start[j] < end[i]:  # overlapping in time
                a = {f + x for f, c in blocks[i] for x in range(c)}
                b = {f + x for f, c in blocks[j] for x in range(c)}
                assert not a & b


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("runs")
    out = []
    for backfill in ("easy", "conservative"):
        folder = base / backfill
        code = main(
            [
                "simulate",
                "--workload",
                "lublin:jobs=400,nodes=64,seed=2+bbsched:S4,seed=2",
                "--system",
                "theta",
                "--backfill",
                backfill,
                "--out",
                str(folder),
                "--no-progress",
                "--warmup",
                "3600",
            ]
        )
        assert code == 0
        out.append(folder)
    return out


def test_queue_length_counts_waiting_jobs(runs):
    run = sp.load_run(runs[0])
    t, q = sp.queue_length(run)
    assert q.min() >= 0 and q[-1] == 0  # never negative; empty at the end
    waiting = (run.jobs["submit"] <= t[len(t) // 2]) & (run.jobs["start"] > t[len(t) // 2])
    assert q[len(t) // 2] == waiting.sum()


def test_plot_commands_draw_one_run_or_two_side_by_side(runs, capsys):
    assert main(["plot", "gantt", str(runs[0])]) == 0
    assert (runs[0] / "gantt.png").read_bytes().startswith(PNG)
    assert main(["plot", "usage", str(runs[0]), str(runs[1]), "--out", str(runs[0] / "u.png")]) == 0
    assert (runs[0] / "u.png").read_bytes().startswith(PNG)
    assert main(["plot", "gantt", str(runs[0]), "--color", "bb", "--max-jobs", "50"]) == 0
    run = sp.load_run(runs[0])
    chosen, note = sp._select(run, None, None, 50)
    assert len(chosen) == 50 and "50 of" in note  # decimated, and the title says so
    assert "commit" in run.caption and "naive+easy" in run.caption


def test_a_folder_without_a_schedule_is_named_in_the_error(tmp_path, capsys):
    assert main(["plot", "gantt", str(tmp_path)]) == 2
    assert "jobs.csv" in capsys.readouterr().err


def test_the_suite_report_shows_schedules(tmp_path, capsys):
    suite = tmp_path / "s.toml"
    suite.write_text(
        '[suite]\nname = "pics"\n[[simulations]]\nname = "sc"\n'
        'workload = "lublin:jobs=200,nodes=64,seed=1"\nsystem = "theta"\npolicies = ["naive"]\n'
    )
    assert main(["run", str(suite), "--store", str(tmp_path / "p.sqlite"), "--no-progress"]) == 0
    page = (tmp_path / "pics-report.html").read_text()
    assert 'data-plot="gantt"' in page and 'data-plot="usage"' in page
