"""Schedule pictures: node placement for the Gantt chart, the queue-length timeline,
`schedbench plot`, decimation, bad folders, and the pictures in the HTML report."""

from __future__ import annotations

import csv
import json

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


# -- run folders of every core ------------------------------------------------------------------
def _csv_rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _numbers(rows, key):
    return np.array([float(r[key]) if r[key] else np.nan for r in rows])


@pytest.mark.parametrize("policy", ["cerberus-maxp", "one-phase-io"])
def test_gantt_and_usage_draw_a_cerberus_simulate_folder(tmp_path, policy):
    out = tmp_path / policy
    argv = ["simulate", "--workload", "cerberus:jobs=30,seed=1", "--policy", policy]
    assert main([*argv, "--out", str(out), "--no-progress"]) == 0
    rows = _csv_rows(out / "jobs.csv")
    run = sp.load_run(out)
    machine = json.loads((out / "metrics.json").read_text())["config"]["machine"]
    assert run.unit == "core" and run.nodes == machine["cores"]
    np.testing.assert_array_equal(run.jobs["start"], _numbers(rows, "run_start_s"))
    np.testing.assert_array_equal(run.jobs["nodes"], _numbers(rows, "cores"))
    three = policy == "cerberus-maxp"
    end = _numbers(rows, "exec_end_s" if three else "complete_s")
    np.testing.assert_array_equal(run.jobs["end"], end)
    assert ("first_alloc" in run.jobs) == three
    # the simulator's own samples: never more cores in use than the machine has
    assert run.usage.size and np.nanmax(run.usage[:, 0]) <= run.nodes
    for picture in ("gantt", "usage"):
        assert main(["plot", picture, str(out)]) == 0
        assert (out / f"{picture}.png").read_bytes().startswith(PNG)


def test_gantt_draws_a_locality_reproduction_on_the_nodes_jobs_ran_on(tmp_path):
    # the smallest platform reproduce locality takes: 10 nodes
    argv = ["reproduce", "locality", "--workload", "locality:jobs=400,nodes=10,users=8,seed=3"]
    argv += ["--gate", "0"]  # a sparse day: the drawing is the point here, not the gate grid
    out = tmp_path / "loc"
    assert main([*argv, "--schedulers", "lea", "--out", str(out), "--no-progress"]) == 0
    rows = _csv_rows(out / "lea" / "jobs.csv")
    run = sp.load_run(out / "lea")
    assert run.unit == "core" and run.blocks is not None and len(run.blocks) == len(rows)
    per_node = run.nodes // 10
    for row, blocks in zip(rows, run.blocks, strict=True):
        assert sum(c for _f, c in blocks) == int(row["cores"])
        # every block lies in the cores of the job's node
        assert all(f // per_node == int(row["node"]) == (f + c - 1) // per_node for f, c in blocks)
    assert main(["plot", "gantt", str(out / "lea")]) == 0
    assert main(["plot", "usage", str(out / "lea")]) == 0


def test_gantt_draws_reservations_on_the_pes_they_hold(tmp_path):
    req = tmp_path / "r.csv"
    req.write_text(
        "id,arrival_s,ready_s,duration_s,deadline_s,pes\n"
        "1,0,0,10,100,2\n2,0,0,10,100,2\n3,0,5,20,100,3\n4,0,0,10,12,4\n5,2,2,30,100,1\n"
    )
    out = tmp_path / "ar"
    argv = ["reproduce", "ar", "--requests", str(req), "--pes", "4", "--policy", "ff"]
    assert main([*argv, "--out", str(out)]) == 0
    rows = _csv_rows(out / "decisions.csv")
    run = sp.load_run(out)
    assert run.unit == "PE" and run.blocks is not None
    for row, blocks in zip(rows, run.blocks, strict=True):
        held = {f + x for f, c in blocks for x in range(c)}
        assert held == {int(x) for x in row["pe_ids"].split()}
        assert (row["accepted"] == "0") == (run.jobs["status"][rows.index(row)] == "rejected")
    assert any(r["accepted"] == "0" for r in rows)  # the rejected one has no block
    # a stream of seconds is drawn in seconds, its deadlines marked
    ax = sp.gantt_figure([run]).axes[0]
    assert ax.get_xlabel().endswith("(s)") and "deadline" in ax.get_legend_handles_labels()[1]
    assert main(["plot", "gantt", str(out)]) == 0 and main(["plot", "usage", str(out)]) == 0


@pytest.mark.parametrize(
    ("name", "header", "needle"),
    [
        ("jobs.csv", "id,begin,finish\n1,0,1\n", "submit, start, end, nodes"),
        ("decisions.csv", "id,accepted,start_s,pe_ids\n1,1,0,0\n", "start_s, end_s, pe_ids"),
    ],
)
def test_a_per_job_file_without_usable_columns_is_one_line_naming_it(
    tmp_path, capsys, name, header, needle
):
    (tmp_path / name).write_text(header)
    assert main(["plot", "gantt", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(tmp_path / name) in err and needle in err


# -- titles that fit ------------------------------------------------------------------------------
def _inside(fig, artist):
    """Whether the text lies inside the figure and, side by side, inside its own column."""
    box = artist.get_window_extent(fig.canvas.get_renderer())
    spec = artist.axes.get_subplotspec()
    width = fig.bbox.width / spec.get_gridspec().ncols
    left, right = spec.colspan.start * width, spec.colspan.stop * width
    return (
        box.x0 >= left - 0.5
        and box.x1 <= right + 0.5
        and box.y0 >= -0.5
        and box.y1 <= fig.bbox.height + 0.5
    )


def test_titles_and_captions_of_a_long_folder_name_stay_inside_the_figure(runs, tmp_path):
    import io
    import shutil

    long = tmp_path / ("lublin-jobs-400-nodes-64-seed-2-bbsched-S4-" * 3 + "x" * 80)  # 212 chars
    shutil.copytree(runs[0], long)
    run = sp.load_run(long)
    for fig in (
        sp.gantt_figure([run]),
        sp.gantt_figure([run, run]),
        sp.usage_figure([run]),
    ):
        fig.savefig(io.BytesIO(), format="png")  # the layout is final once drawn
        texts = [ax.title for ax in fig.axes if ax.get_title()]
        texts += [t for ax in fig.axes for t in ax.texts]
        assert texts and any(run.label[:20] in t.get_text() for t in texts)
        for text in texts:
            assert _inside(fig, text), text.get_text()
