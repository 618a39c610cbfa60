"""``schedbench simulate --stream``: the same per-job records and metrics as without it on a
trace, a streamed generator spec, and options refused by name."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from schedbench.bench.cli import main
from schedbench.instances.lublin_stream import lublin_stream_workload

SWF = """; MaxNodes: 8
; MaxProcs: 8
1 0 -1 100 4 -1 -1 4 150 -1 1 1 1 -1 -1 -1 -1 -1
2 10 -1 50 8 -1 -1 8 60 -1 1 1 1 -1 -1 -1 -1 -1
3 20 -1 30 2 -1 -1 2 40 -1 1 1 1 -1 -1 -1 -1 -1
4 30 -1 500 2 -1 -1 2 100 -1 1 1 1 -1 -1 -1 -1 -1
5 40 -1 20 16 -1 -1 16 20 -1 1 1 1 -1 -1 -1 -1 -1
6 45 -1 200 3 -1 -1 3 150 -1 1 1 1 -1 -1 -1 -1 -1
"""


def _rows(out: Path) -> list[dict[str, str]]:
    with (out / "jobs.csv").open() as fh:
        return list(csv.DictReader(fh))


def test_stream_gives_the_records_and_metrics_of_the_in_memory_run(tmp_path, capsys):
    swf = tmp_path / "tiny.swf"
    swf.write_text(SWF)
    mem, streamed = tmp_path / "mem", tmp_path / "stream"
    base = ["simulate", "--workload", str(swf), "--no-progress"]
    assert main([*base, "--out", str(mem)]) == 0
    assert main([*base, "--out", str(streamed), "--stream", "--chunk-jobs", "2"]) == 0
    printed = capsys.readouterr().out
    assert "streamed 6 jobs" in printed and "jobs.csv, metrics.json" in printed
    rows_mem, rows_stream = _rows(mem), _rows(streamed)
    assert len(rows_stream) == 6
    for a, b in zip(rows_mem, rows_stream, strict=True):
        for col in ("id", "submit", "start", "end", "nodes", "wait", "status"):
            assert a[col] == b[col], col
    assert {r["status"] for r in rows_stream} == {"completed", "killed", "rejected"}
    m_mem = json.loads((mem / "metrics.json").read_text())["metrics"]
    doc = json.loads((streamed / "metrics.json").read_text())
    for key in ("wait_mean_s", "wait_max_s", "jobs_killed", "jobs_rejected", "makespan_s"):
        assert doc["metrics"][key] == m_mem[key], key
    assert doc["metrics"]["node_usage"] == pytest.approx(m_mem["node_usage"], rel=1e-12)
    assert doc["config"]["streamed"] is True and doc["config"]["chunk_jobs"] == 2


def test_stream_generates_a_lublin_spec_in_chunks(tmp_path, capsys):
    out = tmp_path / "out"
    spec = "lublin:jobs=3000,nodes=64,seed=4"
    argv = ["simulate", "--stream", "--workload", spec, "--chunk-jobs", "500", "--out", str(out)]
    assert main([*argv, "--no-progress"]) == 0
    rows = _rows(out)
    w = lublin_stream_workload(3000, nodes=64, seed=4)  # the streamed generator's jobs
    assert [float(r["submit"]) for r in rows] == w.submit.tolist()
    assert [int(r["nodes"]) for r in rows] == w.nodes.tolist()
    doc = json.loads((out / "metrics.json").read_text())
    assert doc["metrics"]["jobs_measured"] == 3000
    assert doc["system"]["nodes"] == 64  # the machine of the spec's nodes=
    assert doc["config"]["max_window_jobs"] < 3000


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--backfill", "conservative"], "--backfill 'conservative'"),
        (["--priority", "wfp"], "--priority 'wfp'"),
        (["--solver", "dp"], "--solver is not available"),
        (["--lifecycle", "three-phase"], "--lifecycle"),
        (["--option", "x=1"], "--option is not available"),
        (["--chunk-jobs", "0"], "--chunk-jobs"),
        (["--set", "a=1"], "--set is not available"),
    ],
)
def test_stream_refuses_what_it_cannot_honour(extra, message, tmp_path, capsys):
    argv = ["simulate", "--stream", "--workload", "lublin:jobs=10", "--out", str(tmp_path / "o")]
    assert main([*argv, *extra]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_a_bad_generator_key_is_named(tmp_path, capsys):
    argv = ["simulate", "--stream", "--workload", "lublin:jobs=10,colour=1", "--no-progress"]
    assert main([*argv, "--out", str(tmp_path / "o")]) == 2
    assert "unknown key 'colour'" in capsys.readouterr().err
