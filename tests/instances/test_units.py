"""Processors and nodes: SWF sizes are processors; the machine is sized in the unit
the jobs use; node-based machines get job sizes converted at the header's processors per node;
rejected jobs are counted with reasons and a run that rejects more than 1 % warns loudly.

The LLNL-Atlas-like trace here is synthetic (the real one is not shipped): its header says 1,152
nodes and 9,216 processors (8 per node), job sizes are multiples of 8 processors up to the
whole machine, and a few jobs are cancelled without a size (status 5, size -1).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from schedbench.bench.cli import main
from schedbench.instances import datasets
from schedbench.instances.swf import read_swf
from schedbench.instances.systems import resolve_system
from schedbench.instances.units import fit_units, rejection_warning


def atlas_like(path: Path, *, jobs: int = 400, max_nodes: int | None = 1152, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    lines = ["; Version: 2.2", "; Computer: Atlas-like (synthetic)"]
    if max_nodes is not None:
        lines.append(f"; MaxNodes: {max_nodes}")
    lines.append("; MaxProcs: 9216")
    t = 0
    for j in range(1, jobs + 1):
        t += int(rng.integers(0, 600))
        run = int(rng.integers(60, 7200))
        if j % 40 == 0:  # cancelled before it started: status 5, no size, no runtime
            fields = [j, t, -1, -1, -1, -1, -1, -1, run, -1, 5, 1, 1, -1, -1, -1, -1, -1]
        else:
            procs = 8 * int(rng.choice([1, 2, 4, 16, 64, 256, 1152]))
            fields = [
                j,
                t,
                -1,
                run,
                procs,
                -1,
                -1,
                procs,
                run + 60,
                -1,
                1,
                1,
                1,
                -1,
                -1,
                -1,
                -1,
                -1,
            ]
        lines.append(" ".join(map(str, fields)))
    path.write_text("\n".join(lines) + "\n")
    return path


def _simulate(tmp_path: Path, trace: Path, *extra: str) -> dict:
    out = tmp_path / "out"
    assert (
        main(["simulate", "--workload", str(trace), "--out", str(out), "--no-progress", *extra])
        == 0
    )
    return json.loads((out / "metrics.json").read_text())


def test_header_sized_machine_is_in_processors_and_rejects_nothing(tmp_path, capsys):
    trace = atlas_like(tmp_path / "atlas.swf")
    metrics = _simulate(tmp_path, trace)
    config = metrics["config"]
    assert config["rejected"]["total"] == 0
    assert config["units"] == {"job_sizes": "processors", "machine": "processors", "notes": []}
    assert config["cleaning"]["no_processors"] == 10  # the cancelled jobs, counted
    out, err = capsys.readouterr()
    assert "9216 processors" in out and "WARNING" not in err
    assert "10 cancelled" in out


def test_node_machine_gets_sizes_converted_at_the_header_ratio(tmp_path, capsys):
    trace = atlas_like(tmp_path / "atlas.swf")
    machine = tmp_path / "atlas.toml"
    machine.write_text('name = "atlas"\nnodes = 1152\n')
    metrics = _simulate(tmp_path, trace, "--system", str(machine))
    assert metrics["config"]["rejected"]["total"] == 0
    (note,) = metrics["config"]["units"]["notes"]
    assert "8 processors per node" in note
    assert "8 processors per node" in capsys.readouterr().err


def test_fit_units_rounds_up_to_whole_nodes(tmp_path):
    w = read_swf(atlas_like(tmp_path / "atlas.swf"))
    converted, notes = fit_units(w, resolve_system("theta"))
    assert converted.size_unit == "nodes" and notes
    np.testing.assert_array_equal(converted.nodes, np.ceil(w.nodes / 8).astype(int))
    same, none = fit_units(w, resolve_system(None, workload=w))
    assert same is w and none == []


def test_a_mis_sized_machine_warns_loudly(tmp_path, capsys):
    # No MaxNodes: the per-node ratio is unknown, so a 1,152-node machine takes processors
    # one for one and most jobs can never fit: the run must say so.
    trace = atlas_like(tmp_path / "atlas.swf", max_nodes=None)
    machine = tmp_path / "small.toml"
    machine.write_text('name = "small"\nnodes = 1152\n')
    metrics = _simulate(tmp_path, trace, "--system", str(machine))
    rejected = metrics["config"]["rejected"]
    assert rejected["total"] > 0.01 * 390 and rejected["nodes"] == rejected["total"]
    err = capsys.readouterr().err
    assert "WARNING" in err and "can never fit" in err and "processors" in err


def test_no_warning_below_one_percent(tmp_path):
    w = read_swf(atlas_like(tmp_path / "atlas.swf"))
    assert rejection_warning(w, resolve_system("theta"), 3, {"rejected_nodes": 3}) is None
    assert rejection_warning(w, resolve_system("theta"), 50, {"rejected_nodes": 50})


def test_kth_one_processor_per_node_is_unchanged():
    w = read_swf(datasets.path("kth-sp2"))
    system = resolve_system(None, workload=w)
    assert system.nodes == 100 and system.unit == "processors"
    converted, notes = fit_units(w, resolve_system("theta"))
    assert converted is w and "one for one" in notes[0]
