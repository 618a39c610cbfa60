"""`schedbench reproduce locality` from the command line: the three workload forms (a locality
file or dataset, an SWF trace replayed on the platform, the generator by a spec), the platform
and its minimum, one-line errors naming the option or key, and reference mode's gate grid on a
workload too sparse for it (``bench/reproduce/locality.py``)."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from schedbench.bench.cli import main
from schedbench.instances import datasets
from schedbench.instances.locality_io import (
    parse_generator_spec,
    read_locality_machine,
    replay_factor,
    swf_to_locality,
    trace_processors,
)
from schedbench.instances.systems import locality_platform
from schedbench.simcore.locality import LocalityWorkloadError


def _run(tmp_path, capsys, *argv):
    out = tmp_path / "out"
    code = main(["reproduce", "locality", "--out", str(out), "--no-progress", *argv])
    cap = capsys.readouterr()
    return code, out, cap.out, cap.err


def _summary(out):
    with (out / "summary.csv").open() as fh:
        return {r["scheduler"]: r for r in csv.DictReader(fh)}


def _agreement(out):
    with (out / "agreement.csv").open() as fh:
        return list(csv.DictReader(fh))


# -- the three forms ------------------------------------------------------------------------------
def test_the_calibration_day_runs_from_the_command_line(tmp_path, capsys):
    code, out, stdout, _err = _run(tmp_path, capsys, "--schedulers", "fcfs", "lea")
    assert code == 0
    rows = _summary(out)
    authors = {
        r["scheduler"]: r
        for r in csv.DictReader(datasets.open_text(datasets.path("locality-day/summary.csv")))
    }
    for name in ("fcfs", "lea"):
        row = rows[name]
        assert (row["workload"], row["platform"], row["nodes"]) == (
            "locality-day",
            "locality",
            "486",
        )
        assert (row["mode"], row["gate_s"], row["gate_clock"]) == ("reference", "30", "grid")
        assert row["arrival_factor"] == "1"
        # reference mode on the day is the authors' simulator (tests/simcore/test_locality_calibration.py)
        assert int(row["transfer_wait_s"]) == round(float(authors[name]["transfer_wait_s"]))
    assert "486 nodes x 20 cores" in stdout
    assert all("486 nodes x 20 cores" in a["setting"] for a in _agreement(out))


def test_a_converted_trace_runs_from_the_command_line(tmp_path, capsys):
    # 50 nodes (1,000 cores) for KTH-SP2's 100 processors: arrivals x 10, about 3,000 jobs
    code, out, stdout, err = _run(
        tmp_path, capsys, "--workload", "kth-sp2", "--system", "locality:50", "--schedulers",
        "fcfs", "lea",
    )  # fmt: skip
    assert code == 0, err
    rows = _summary(out)
    assert {r["nodes"] for r in rows.values()} == {"50"}
    assert {float(r["arrival_factor"]) for r in rows.values()} == {10.0}
    load = float(rows["fcfs"]["offered_load"])
    assert 0.3 < load < 1.5, load  # the trace's own regime, not a near-empty machine
    assert "arrivals x 10" in stdout and "50 nodes x 20 cores" in stdout
    run = json.loads((out / "run.json").read_text())
    assert run["form"] == "SWF trace" and run["platform"]["nodes"] == 50
    assert any("100 processors" in n for n in run["notes"])


def test_a_generator_spec_runs_from_the_command_line(tmp_path, capsys):
    spec = "locality:jobs=2000,nodes=10,users=40,seed=1"
    code, out, _stdout, err = _run(
        tmp_path, capsys, "--workload", spec, "--schedulers", "fcfs", "lea"
    )
    assert code == 0, err
    rows = _summary(out)
    assert {(r["platform"], r["nodes"], r["workload"]) for r in rows.values()} == {
        ("locality:10", "10", spec)
    }
    assert int(rows["lea"]["evaluated_jobs"]) > 100


# -- one-line errors naming the option or the key ----------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "needles"),
    [
        (["--workload", "locality:jobs=5"], ["key 'jobs'", "10..200000", "'5'"]),
        (["--workload", "locality:jobs=abc"], ["key 'jobs'", "expected an integer"]),
        (["--workload", "locality:jobs=900,nodez=12"], ["unknown key 'nodez'", "accepted: jobs"]),
        (["--workload", "locality:nodes=20"], ["missing key 'jobs'"]),
        (["--workload", "locality:jobs=900,load=0"], ["key 'load'", "0.01..10"]),
        (["--workload", "locality:jobs=900,nodes=5"], ["--workload key 'nodes'", "minimum of 10"]),
        (
            ["--workload", "locality:jobs=900,nodes=12", "--system", "locality:20"],
            ["--system", "nodes=12"],
        ),
        (["--workload", "lublin:jobs=500,nodes=64,seed=1"], ["records no users", "locality:jobs"]),
        (["--workload", "kth-sp2", "--evaluated-days", "7"], ["--evaluated-days", "at most 2 fit"]),
        (["--workload", "kth-sp2", "--arrival-factor", "0"], ["--arrival-factor", "expected"]),
        (
            ["--workload", "locality-day", "--evaluated-days", "2"],
            ["--evaluated-days", "only for SWF"],
        ),
        (["--system", "locality:5"], ["--system", "minimum of 10"]),
        (["--system", "locality:20"], ["--system", "cannot hold the evaluated load", "at least"]),
        (["--system", "nowhere.txt"], ["--system 'nowhere.txt'"]),
        (["--workload", "no-such-file.txt"], ["'no-such-file.txt'", "no such file"]),
        (["--workload", "cerberus"], ["'cerberus'", "not a locality or SWF workload"]),
        (["--gate", "-1"], ["--gate", ">= 0"]),
    ],
)
def test_a_bad_workload_or_platform_is_one_line_naming_the_key(tmp_path, capsys, argv, needles):
    code, out, _stdout, err = _run(tmp_path, capsys, "--schedulers", "fcfs", *argv)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("schedbench: error: "), err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    assert not (out / "summary.csv").exists()


# -- reference mode on a sparse workload --------------------------------------------------------------
SPARSE = "locality:jobs=100,nodes=10,users=2,load=0.2,seed=1"


def test_a_stalled_gate_grid_stops_with_the_remedy_and_since_run_is_marked_everywhere(
    tmp_path, capsys
):
    code, out, _stdout, err = _run(tmp_path, capsys, "--workload", SPARSE, "--schedulers", "fcfs")
    assert code == 2
    line = err.strip()
    assert "\n" not in line and "can never start" in line and "--gate-clock since-run" in line
    assert not (out / "summary.csv").exists()

    code, out, stdout, err = _run(
        tmp_path, capsys, "--workload", SPARSE, "--schedulers", "fcfs", "lea", "--gate-clock",
        "since-run",
    )  # fmt: skip
    assert code == 0, err
    assert {r["gate_clock"] for r in _summary(out).values()} == {"since-run"}
    assert all("since the last run" in a["setting"] for a in _agreement(out))
    assert "since the last run" in stdout
    assert json.loads((out / "run.json").read_text())["options"]["gate_clock"] == "since-run"


# -- the platform -------------------------------------------------------------------------------------
def test_the_paper_platform_is_the_machine_file():
    machine = read_locality_machine(datasets.path("locality-day/machine"))
    paper = locality_platform("locality")
    assert (machine.nodes, machine.cores_per_node, machine.bandwidth_gbps) == (486, 20, 0.1)
    assert machine.memory_gb == paper.memory_gb
    assert paper.memory_gb.count(128) == 450 and paper.memory_gb.count(256) == 32
    assert paper.memory_gb.count(1024) == 4


def test_a_bad_machine_file_names_the_line(tmp_path):
    p = tmp_path / "m.txt"
    p.write_text(
        "{ id: 0 memory: 128 bandwidth: 0.1 core: 20 }\n{ id: 1 memory: 128 bandwidth: 0.2 core: 20 }\n"
    )
    with pytest.raises(LocalityWorkloadError, match=r"m.txt:2: token 'bandwidth:'"):
        read_locality_machine(p)


def test_the_replay_factor_is_the_ratio_of_machine_sizes():
    assert replay_factor(9720, 100) == pytest.approx(97.2)
    table = np.full((2, 18), -1.0)
    table[:, 7] = [4, 64]
    assert trace_processors(table, 100) == (100, "the trace's MaxProcs header")
    assert trace_processors(table, None)[0] == 64


def _swf(rows):
    """An SWF table from (submit, wait, run, procs, user) rows."""
    table = np.full((len(rows), 18), -1.0)
    for i, (sub, wait, run, procs, user) in enumerate(rows):
        table[i, [0, 1, 2, 3, 4, 7, 8, 10, 11]] = [
            i + 1,
            sub,
            wait,
            run,
            procs,
            procs,
            7200,
            1,
            user,
        ]
    return table


def test_compressed_arrivals_keep_the_logs_sessions_and_run_times():
    # the user's jobs 600 s apart are one session (the 800 s chain) in the log, and the job
    # 5,000 s later opens a new file; compressed 10x that gap is 500 s, which the chain would
    # join if it read the compressed times: it reads the log's
    rows = [(0, 10, 1000, 4, 1), (600, 0, 900, 4, 1), (1200, 5, 800, 4, 1), (6200, 0, 500, 4, 1)]
    plain, _ = swf_to_locality(_swf(rows), evaluated_start=0, evaluated_days=1, nodes=10)
    fast, report = swf_to_locality(
        _swf(rows), evaluated_offset=0, evaluated_days=1, nodes=10, arrival_factor=10
    )
    assert plain.file.tolist() == fast.file.tolist() == [1, 1, 1, 2]
    assert fast.submit.tolist() == [0, 60, 120, 620]
    assert np.array_equal(fast.delay, plain.delay) and np.array_equal(fast.walltime, plain.walltime)
    assert fast.hist_start.tolist() == [10, 60, 125, 620]  # the log's waits kept
    assert report.arrival_factor == 10 and report.trace_end == 620


def test_generator_spec_keys_become_the_generators_arguments():
    kw = parse_generator_spec("locality:jobs=20000,nodes=486,days=1,users=400,seed=3,load=1.05")
    assert kw == {"jobs": 20000, "nodes": 486, "days": 1, "users": 400, "seed": 3, "load": 1.05}
    with pytest.raises(LocalityWorkloadError, match=r"key 'users'.*at most jobs"):
        parse_generator_spec("locality:jobs=20,users=50")


# -- the agreement table on the two real workloads (all ten schedulers) ----------------------------
@pytest.mark.slow  # all ten schedulers: about 1.5 min on the calibration day, 2.5 on KTH-SP2
@pytest.mark.parametrize("workload", ["locality-day", "kth-sp2"])
def test_every_finding_is_judged_on_the_calibration_day_and_a_converted_trace(
    tmp_path, capsys, workload
):
    code, out, _stdout, err = _run(tmp_path, capsys, "--workload", workload)
    assert code == 0, err
    rows = {r["finding"]: r for r in _agreement(out)}
    assert len(rows) == 15
    assert all(r["agree"] in ("yes", "no") for r in rows.values())  # every scheduler ran
    assert all(r["reason"] for r in rows.values() if r["agree"] == "no")
    for family in ("without backfilling", "with backfilling"):
        # the transfer findings hold on both (locality.md, "Where we agree")
        assert rows[f"LEA cuts transfer + wait the most ({family})"]["agree"] == "yes"
        # waiting does not: EFT, which ignores files, is worse than FCFS too
        stretch = rows[f"LEA, LEO and LEM cut the mean stretch ({family})"]
        assert stretch["agree"] == "no" and "EFT, which ignores files" in stretch["reason"]
    sessions = rows["user sessions gain under LEA, LEO and LEM (without backfilling)"]
    assert sessions["agree"] == ("yes" if workload == "locality-day" else "no")
